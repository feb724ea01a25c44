package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The OSU Micro-Benchmarks 7.4 options beyond the basic ones, as they
// apply to a PGAS runtime: the element type (-T), the buffers of a window
// (-b), the validation's warm-up and log (-u, -c log:DIR), the one-sided
// window creation (-w) and synchronization (-s), in-place collectives
// (-l).

// Datatype is the element type of OSU's -T. gopgas moves bytes whatever
// the type: a message of a size moves that many bytes; the type sets the
// number of elements (size divided by the element's bytes, so that sizes
// below one element are skipped, as OSU's), the values the validation
// writes and checks element by element, and the element a reduction
// combines.
type Datatype uint8

const (
	// Char is MPI_CHAR: bytes (OSU's default).
	Char Datatype = iota
	// Int is MPI_INT: 4-byte signed integers.
	Int
	// Float is MPI_FLOAT: 4-byte IEEE floats.
	Float
)

// Datatypes are every Datatype, in the order OSU's -T all runs them.
var Datatypes = []Datatype{Char, Int, Float}

// ParseDatatype parses OSU's -T value (mpi_char, mpi_int, mpi_float).
func ParseDatatype(s string) (Datatype, error) {
	switch strings.ToLower(s) {
	case "mpi_char":
		return Char, nil
	case "mpi_int":
		return Int, nil
	case "mpi_float":
		return Float, nil
	}
	return Char, fmt.Errorf("bench: datatype %q: not mpi_char, mpi_int or mpi_float", s)
}

// Bytes is the size of one element.
func (d Datatype) Bytes() int {
	if d == Char {
		return 1
	}
	return 4
}

// OMBName is OSU's name of the type, as its "# Datatype:" line prints it.
func (d Datatype) OMBName() string {
	switch d {
	case Int:
		return "MPI_INT"
	case Float:
		return "MPI_FLOAT"
	}
	return "MPI_CHAR"
}

// typedSizes drops the sizes below one element.
func (s Setup) typedSizes(sizes []int) []int {
	var out []int
	for _, sz := range sizes {
		if sz >= s.Datatype.Bytes() {
			out = append(out, sz)
		}
	}
	return out
}

// elemValue is the value validation expects in element x of iteration
// k's message, stored into b (one element) in the setup's type.
func (d Datatype) put(b []byte, k, x int) {
	switch d {
	case Int:
		v := uint32(int32(k*131 + x + 1))
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	case Float:
		v := math.Float32bits(float32((k*131+x+1)%(1<<20)) / 2)
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	default:
		b[0] = msgPattern(k, x)
	}
}

// fill writes iteration k's message into buf, element by element.
func (d Datatype) fill(buf []byte, k int) {
	n := d.Bytes()
	for x := 0; x+n <= len(buf); x += n {
		d.put(buf[x:x+n], k, x/n)
	}
}

// mismatch is an element validation found wrong.
type mismatch struct {
	pos              int
	expected, actual string
}

// check compares buf with iteration k's message and returns the wrong
// elements (at most limit of them).
func (d Datatype) check(buf []byte, k, limit int) []mismatch {
	n := d.Bytes()
	var want [4]byte
	var bad []mismatch
	for x := 0; x+n <= len(buf) && len(bad) < limit; x += n {
		d.put(want[:n], k, x/n)
		if string(want[:n]) != string(buf[x:x+n]) {
			bad = append(bad, mismatch{x / n, d.text(want[:n]), d.text(buf[x : x+n])})
		}
	}
	return bad
}

// text prints one element.
func (d Datatype) text(b []byte) string {
	switch d {
	case Int:
		return fmt.Sprint(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
	case Float:
		return fmt.Sprintf("%f", math.Float32frombits(uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24))
	}
	return fmt.Sprint(int8(b[0]))
}

// DefaultValidationWarmup is OSU's -u default: under -c, each timed
// iteration is preceded by this many untimed repetitions of it.
const DefaultValidationWarmup = 5

// validationReps is how many times an iteration runs under -c: the
// untimed repetitions of -u, then the timed one.
func (s Setup) validationReps() int {
	if !s.Validate {
		return 1
	}
	if s.ValidationWarmup < 0 {
		return 1
	}
	return s.ValidationWarmup + 1
}

// logLimit bounds the elements a validation log lists per failure.
const logLimit = 1 << 16

// logFailure appends a failed buffer's wrong elements to the validation
// log of rank (OSU's -c log:DIR): DIR/log-RANK.log, a "Size: ...,
// Iteration: ..., Datatype: ..." line, a Position/Expected/Actual header
// and a line per wrong element.
func (s Setup) logFailure(rank, size, k int, buf []byte) error {
	if s.ValidationLog == "" {
		return nil
	}
	if err := os.MkdirAll(s.ValidationLog, 0o755); err != nil {
		return fmt.Errorf("bench: validation log: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(s.ValidationLog, fmt.Sprintf("log-%d.log", rank)), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("bench: validation log: %w", err)
	}
	fmt.Fprintf(f, "Size: %d, Iteration:%d, Datatype: %s\n", size, k, s.Datatype.OMBName())
	fmt.Fprintf(f, "%-10s%18s%18s\n", "Position", "Expected", "Actual")
	for _, m := range s.Datatype.check(buf, k, logLimit) {
		fmt.Fprintf(f, "%-10d%18s%18s\n", m.pos, m.expected, m.actual)
	}
	return f.Close()
}

// Buffers chooses the buffers of the two-sided benchmarks (OSU's -b).
type Buffers uint8

const (
	// BuffersWindow, the zero value, is pgasbench's own choice: latency
	// reuses one buffer; the bandwidth tests give each message of a
	// window its own slot of one buffer.
	BuffersWindow Buffers = iota
	// BuffersSingle is OSU's -b single (its default): one send and one
	// receive buffer for every message of every window.
	BuffersSingle
	// BuffersMultiple is OSU's -b multiple: buffers allocated afresh for
	// each message size and, in the bandwidth tests, a distinct buffer for
	// each message of a window (up to slotBytes per window; beyond it they
	// are reused in turn).
	BuffersMultiple
)

// ParseBuffers parses OSU's -b value.
func ParseBuffers(s string) (Buffers, error) {
	switch strings.ToLower(s) {
	case "single":
		return BuffersSingle, nil
	case "multiple":
		return BuffersMultiple, nil
	}
	return BuffersWindow, fmt.Errorf("bench: buffers %q: not single or multiple", s)
}

// bufferTrace, when not nil (tests), sees the send buffer of every
// message the two-sided benchmarks send.
var bufferTrace func(size int, buf []byte)

func traceBuffer(size int, buf []byte) {
	if bufferTrace != nil {
		bufferTrace(size, buf)
	}
}
