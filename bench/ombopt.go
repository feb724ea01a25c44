package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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
	return parseChoice("datatype", s, []choice[Datatype]{{"mpi_char", Char}, {"mpi_int", Int}, {"mpi_float", Float}})
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
	return s.logMismatches(rank, size, k, s.Datatype.OMBName(), s.Datatype.check(buf, k, logLimit))
}

// logMismatches appends the wrong elements of iteration k's buffer of
// size bytes to rank's validation log, with typ the element type's
// OSU name.
func (s Setup) logMismatches(rank, size, k int, typ string, bad []mismatch) error {
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
	fmt.Fprintf(f, "Size: %d, Iteration:%d, Datatype: %s\n", size, k, typ)
	fmt.Fprintf(f, "%-10s%18s%18s\n", "Position", "Expected", "Actual")
	for _, m := range bad {
		fmt.Fprintf(f, "%-10d%18s%18s\n", m.pos, m.expected, m.actual)
	}
	return f.Close()
}

// Buffers chooses the buffers of the two-sided benchmarks (OSU's -b) and
// of the one-sided bandwidth tests (PutBW, GetBW, PutBiBW).
type Buffers uint8

const (
	// BuffersWindow, the zero value, is pgasbench's own choice: latency
	// reuses one buffer; the bandwidth tests give each message of a
	// window its own slot of one buffer (up to slotBytes per window;
	// beyond it the slots are reused in turn), on both sides.
	BuffersWindow Buffers = iota
	// BuffersSingle is OSU's -b single (its default): one send and one
	// receive buffer for every message of every window. In the one-sided
	// bandwidth tests every operation of a window moves the same local
	// bytes to (or from) the same remote bytes, as OSU's osu_put_bw,
	// osu_get_bw and osu_put_bibw do: a working set of one message, where
	// the slots of BuffersWindow make it a window's worth.
	BuffersSingle
	// BuffersMultiple is OSU's -b multiple: buffers allocated afresh for
	// each message size and, in the bandwidth tests, a distinct buffer for
	// each message of a window (up to slotBytes per window; beyond it they
	// are reused in turn). The one-sided bandwidth tests then use
	// BuffersWindow's slots.
	BuffersMultiple
)

// ParseBuffers parses OSU's -b value.
func ParseBuffers(s string) (Buffers, error) {
	return parseChoice("buffers", s, []choice[Buffers]{{"single", BuffersSingle}, {"multiple", BuffersMultiple}})
}

// choice is one of an option's named values.
type choice[T any] struct {
	name  string
	value T
}

// parseChoice finds s (in any case) among the names of cs; the error,
// with T's zero value, names what was parsed and every name.
func parseChoice[T any](what, s string, cs []choice[T]) (T, error) {
	names := make([]string, len(cs))
	for i, c := range cs {
		if strings.EqualFold(c.name, s) {
			return c.value, nil
		}
		names[i] = c.name
	}
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " or " + list
	}
	var zero T
	return zero, fmt.Errorf("bench: %s %q: not %s", what, s, list)
}

// bufferTrace, when not nil (tests), sees the send buffer of every
// message the two-sided benchmarks send, and the local buffer of every
// operation of the one-sided bandwidth tests' windows.
var bufferTrace func(size int, buf []byte)

func traceBuffer(size int, buf []byte) {
	if bufferTrace != nil {
		bufferTrace(size, buf)
	}
}

// Layout is OSU's -D, a derived datatype of the two-sided tests. gopgas
// has no datatypes: as an MPI library does for a non-contiguous layout
// over shared memory, the sender packs the layout's bytes of its buffer
// into a contiguous message and the receiver unpacks the message into
// the same layout of its own; the benchmark's packing and unpacking are
// timed with the transfer. The message carries the layout's bytes only
// (OSU's Transmit Size), which the bandwidths count.
type Layout struct {
	// Spec is the -D text: "cont", "vect:STRIDE:BLOCK" or "indx:FILE".
	Spec string
	// Stride and Block are the vector's: a block of Block bytes every
	// Stride bytes, size/Stride blocks (MPI_Type_vector on bytes).
	Stride, Block int
	// Blocks are the indexed layout's displacement and length in bytes,
	// one per line of the file (MPI_Type_indexed).
	Blocks [][2]int
	vector bool
}

// ParseLayout parses -D's value; read reads an indexed layout's file,
// whose lines are "DISPLACEMENT,LENGTH" ("#" lines are comments).
func ParseLayout(spec string, read func(name string) ([]byte, error)) (*Layout, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	l := &Layout{Spec: spec}
	switch kind {
	case "cont":
		if rest != "" {
			return nil, fmt.Errorf("bench: layout %q: cont takes no arguments", spec)
		}
	case "vect":
		var err1, err2 error
		a, b, ok := strings.Cut(rest, ":")
		l.Stride, err1 = atoiPositive(a)
		l.Block, err2 = atoiPositive(b)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bench: layout %q: want vect:STRIDE:BLOCK, both at least 1", spec)
		}
		l.vector = true
	case "indx":
		if rest == "" {
			return nil, fmt.Errorf("bench: layout %q: want indx:FILE", spec)
		}
		text, err := read(rest)
		if err != nil {
			return nil, fmt.Errorf("bench: layout %q: %w", spec, err)
		}
		for n, line := range strings.Split(string(text), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			d, ln, ok := strings.Cut(line, ",")
			disp, err1 := strconv.Atoi(strings.TrimSpace(d))
			length, err2 := strconv.Atoi(strings.TrimSpace(ln))
			if !ok || err1 != nil || err2 != nil || disp < 0 || length < 1 {
				return nil, fmt.Errorf("bench: layout %q: line %d %q: want DISPLACEMENT,LENGTH (at least 0 and 1)", spec, n+1, line)
			}
			l.Blocks = append(l.Blocks, [2]int{disp, length})
		}
		if len(l.Blocks) == 0 {
			return nil, fmt.Errorf("bench: layout %q: no blocks", spec)
		}
	default:
		return nil, fmt.Errorf("bench: layout %q: want cont, vect:STRIDE:BLOCK or indx:FILE", spec)
	}
	return l, nil
}

// atoiPositive parses a decimal integer of at least 1.
func atoiPositive(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return n, nil
}

// spans are the layout's blocks in a buffer of size bytes (offset,
// length), those beyond it cut at its end.
func (l *Layout) spans(size int) [][2]int {
	var out [][2]int
	add := func(off, n int) {
		n = min(n, size-off)
		if off < size && n > 0 {
			out = append(out, [2]int{off, n})
		}
	}
	switch {
	case l.vector:
		for i := range size / l.Stride {
			add(i*l.Stride, l.Block)
		}
	case len(l.Blocks) > 0:
		for _, b := range l.Blocks {
			add(b[0], b[1])
		}
	default:
		add(0, size)
	}
	return out
}

// Transmit is the bytes a message of size bytes carries: the layout's.
func (l *Layout) Transmit(size int) int {
	n := 0
	for _, s := range l.spans(size) {
		n += s[1]
	}
	return n
}

// pack copies the spans of src into msg, contiguous.
func pack(msg, src []byte, spans [][2]int) {
	at := 0
	for _, s := range spans {
		at += copy(msg[at:], src[s[0]:s[0]+s[1]])
	}
}

// unpack copies msg into the spans of dst.
func unpack(dst, msg []byte, spans [][2]int) {
	at := 0
	for _, s := range spans {
		at += copy(dst[s[0]:s[0]+s[1]], msg[at:])
	}
}

// ddtBuffer is one message's packing under -D: the layout's spans of a
// size and the contiguous message. A nil ddtBuffer sends the buffer as
// it is.
type ddtBuffer struct {
	spans    [][2]int
	msg      []byte
	transmit int
}

// ddt is a message's packing for a size, nil without a layout.
func (s Setup) ddt(size int) *ddtBuffer {
	if s.Layout == nil {
		return nil
	}
	spans := s.Layout.spans(size)
	t := s.Layout.Transmit(size)
	return &ddtBuffer{spans: spans, msg: make([]byte, t), transmit: t}
}

// packed is what to send for buf: buf itself, or its layout packed.
func (d *ddtBuffer) packed(buf []byte) []byte {
	if d == nil {
		return buf
	}
	pack(d.msg, buf, d.spans)
	return d.msg
}

// incoming is where to receive buf's message: buf, or the packed message.
func (d *ddtBuffer) incoming(buf []byte) []byte {
	if d == nil {
		return buf
	}
	return d.msg
}

// unpacked spreads a received packed message into buf's layout.
func (d *ddtBuffer) unpacked(buf []byte) {
	if d != nil {
		unpack(buf, d.msg, d.spans)
	}
}
