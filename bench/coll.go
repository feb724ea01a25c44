package bench

import (
	"fmt"
	"time"

	"github.com/gopgas/gopgas/pgas"
)

// Collective names a collective benchmark.
type Collective uint8

const (
	// Barrier: the world team's barrier (size ignored).
	Barrier Collective = iota
	// Broadcast: rank 0 broadcasts size bytes.
	Broadcast
	// Allreduce: a sum of size/8 float64s (at least one).
	Allreduce
	// Alltoall: size bytes to every PE.
	Alltoall
)

func (c Collective) String() string {
	switch c {
	case Barrier:
		return "barrier"
	case Broadcast:
		return "bcast"
	case Allreduce:
		return "allreduce"
	case Alltoall:
		return "alltoall"
	}
	return "collective?"
}

// title is OSU's title of the collective, with gopgas for MPI.
func (c Collective) title() string {
	switch c {
	case Barrier:
		return "OSU gopgas Barrier Latency Test"
	case Broadcast:
		return "OSU gopgas Broadcast Latency Test"
	case Allreduce:
		return "OSU gopgas Allreduce Latency Test"
	case Alltoall:
		return "OSU gopgas All-to-All Personalized Exchange Latency Test"
	}
	return "OSU gopgas Collective Latency Test"
}

// OSU's iteration counts of the collectives: 1000, above LargeSize 100
// (the warm-up is the latency tests': 100, above LargeSize 10).
const collIters, collItersL = 1000, 100

// Collectives measures the latency of a collective on every PE, as OSU's
// collective tests: each PE's average over the iterations, then Value is
// the average of those over PEs, Min and Max the smallest and largest, in
// microseconds. Defaults: 2 nodes, 4 PEs per node, OSU's iterations. For
// Barrier, sizes are ignored (nil will do); with no sizes the others
// measure nothing. With Setup.Validate, every PE checks what
// each broadcast, allreduce or all-to-all delivered (not timed).
func Collectives(s Setup, c Collective, sizes []int) (*Result, error) {
	if c == Barrier {
		sizes = []int{0}
	} else if s.Typed {
		sizes = s.typedSizes(sizes)
	}
	hi := maxSize(sizes)
	j := &job{name: c.String(), title: c.title(), unit: "us", column: "Avg Latency(us)", nodes: 2, ppn: 4, minPEs: 1, sizes: sizes}
	validate := s.Validate && c != Barrier
	res, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		n := pe.Size()
		w := pe.World()
		red := s.newReduction(hi)
		bin := make([]byte, hi*n)
		bout := make([]byte, hi*n)
		for i, size := range sizes {
			// OSU's collective counts: the latency tests' warm-up, 1000
			// iterations (100 above LargeSize).
			iters, skip := s.iterations(size, true)
			if s.Iterations == 0 {
				iters = collIters
				if size > LargeSize {
					iters = collItersL
				}
			}
			keep := s.perIteration() || validate
			reps := 1
			if validate {
				reps = s.validationReps()
			}
			op := func() error {
				var err error
				switch c {
				case Barrier:
					err = w.Barrier()
				case Broadcast:
					err = pgas.Broadcast(w, 0, bin[:size])
				case Allreduce:
					// MPI_IN_PLACE (-l): the sum overwrites the input.
					err = red.run(w, red.elems(size), s.InPlace)
				case Alltoall:
					if s.InPlace {
						// MPI_IN_PLACE: the blocks received replace those
						// sent, through a copy of the input (as MPI
						// libraries do), counted in the time.
						copy(bout[:size*n], bin[:size*n])
						err = pgas.Alltoall(w, bout[:size*n], bin[:size*n])
						bin, bout = bout, bin
					} else {
						err = pgas.Alltoall(w, bin[:size*n], bout[:size*n])
					}
				}
				return err
			}
			errs := 0
			var start, sum time.Duration
			var samples []float64
			for k := range iters + skip {
				if validate {
					s.collFill(pe, c, k, size, red, bin)
				}
				if k == skip {
					if err := pe.Barrier(); err != nil {
						return err
					}
					start = pe.Now()
				}
				// -u's untimed repetitions under -c, each on fresh input.
				for range reps - 1 {
					if err := op(); err != nil {
						return err
					}
					s.collFill(pe, c, k, size, red, bin)
				}
				var t0 time.Duration
				if keep {
					t0 = pe.Now()
				}
				err := op()
				if err != nil {
					return err
				}
				if keep && k >= skip {
					d := pe.Now() - t0
					sum += d
					samples = append(samples, us(d))
				}
				if validate {
					if bad := s.collCheck(pe, c, k, size, red, bin, bout); len(bad) > 0 {
						errs++
						typ := s.Datatype.OMBName()
						if c == Allreduce && !s.Typed {
							typ = "MPI_DOUBLE" // the float64 sum
						}
						if err := s.logMismatches(pe.Rank(), size, k, typ, bad); err != nil {
							return err
						}
					}
				}
			}
			if !keep {
				sum = pe.Now() - start
			}
			mine := us(sum) / float64(iters)
			stats := []float64{mine}
			lo := []float64{mine}
			if err := pgas.Allreduce(w, pgas.Sum, stats, stats); err != nil {
				return err
			}
			if err := pgas.Allreduce(w, pgas.Min, lo, lo); err != nil {
				return err
			}
			hi := []float64{mine}
			if err := pgas.Allreduce(w, pgas.Max, hi, hi); err != nil {
				return err
			}
			bad := []float64{float64(errs)}
			if err := pgas.Allreduce(w, pgas.Sum, bad, bad); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				p := Point{Size: size, Value: stats[0] / float64(n), Min: lo[0], Max: hi[0], Iterations: iters, Errors: int(bad[0])}
				s.percentiles(&p, samples)
				r.Points = append(r.Points, p)
			}
			s.progress(pe, i, len(sizes))
		}
		return nil
	})
	if res != nil {
		res.Full, res.Validated = s.Full, validate
		if s.Typed && c != Barrier {
			res.Datatype = s.Datatype.OMBName()
		}
	}
	return res, err
}

// collKey is the pattern key of what PE rank contributes in iteration k.
func collKey(rank, k int) int { return rank*977 + k }

// collFill fills this PE's contribution to iteration k: the broadcast's
// or the all-to-all's bytes, element by element in the setup's type, or
// the reduction's input.
func (s Setup) collFill(pe *pgas.PE, c Collective, k, size int, red reduction, bin []byte) {
	r := pe.Rank()
	switch c {
	case Broadcast:
		s.Datatype.fill(bin[:size], collKey(r, k))
	case Allreduce:
		red.fill(r, k, red.elems(size))
	case Alltoall:
		s.Datatype.fill(bin[:size*pe.Size()], collKey(r, k))
	}
}

// collCheck checks what iteration k delivered to this PE and returns the
// wrong elements (at most logLimit).
func (s Setup) collCheck(pe *pgas.PE, c Collective, k, size int, red reduction, bin, bout []byte) []mismatch {
	n, r := pe.Size(), pe.Rank()
	d := s.Datatype
	switch c {
	case Broadcast:
		return d.check(bin[:size], collKey(0, k), logLimit)
	case Allreduce:
		return red.check(n, k, red.elems(size))
	case Alltoall:
		// Block src of the output is block r of src's input.
		var bad []mismatch
		per := size / d.Bytes()
		want := make([]byte, size*n)
		for src := range n {
			d.fill(want, collKey(src, k))
			blk := want[r*size : r*size+size]
			got := bout[src*size : src*size+size]
			if string(blk) == string(got) {
				continue
			}
			for x := 0; x+d.Bytes() <= size && len(bad) < logLimit; x += d.Bytes() {
				if w, g := blk[x:x+d.Bytes()], got[x:x+d.Bytes()]; string(w) != string(g) {
					bad = append(bad, mismatch{src*per + x/d.Bytes(), d.text(w), d.text(g)})
				}
			}
		}
		return bad
	}
	return nil
}

// reduction is the allreduce's buffers: float64s by default, or the
// elements of OSU's -T (int8 sums for mpi_char, int32, float32).
type reduction interface {
	// elems is the number of elements of a message of size bytes.
	elems(size int) int
	fill(rank, k, m int)
	run(t *pgas.Team, m int, inPlace bool) error
	check(n, k, m int) []mismatch
}

// newReduction is the allreduce's buffers for messages up to hi bytes.
func (s Setup) newReduction(hi int) reduction {
	if !s.Typed {
		return newReduceBuf[float64](hi, 8)
	}
	switch s.Datatype {
	case Int:
		return newReduceBuf[int32](hi, 4)
	case Float:
		return newReduceBuf[float32](hi, 4)
	}
	return newReduceBuf[int8](hi, 1)
}

// reduceBuf is a reduction of T elements of width bytes.
type reduceBuf[T pgas.Number] struct {
	in, out []T
	width   int
	inPlace bool
}

func newReduceBuf[T pgas.Number](hi, width int) *reduceBuf[T] {
	m := max(hi/width, 1)
	return &reduceBuf[T]{in: make([]T, m), out: make([]T, m), width: width}
}

func (b *reduceBuf[T]) elems(size int) int { return max(size/b.width, 1) }

// value is element x of rank's input in iteration k: small, so that
// the sums are exact (and wrap the same way everywhere for int8).
func (b *reduceBuf[T]) value(rank, k, x int) T { return T((rank + k + x) % 7) }

func (b *reduceBuf[T]) fill(rank, k, m int) {
	for x := range m {
		b.in[x] = b.value(rank, k, x)
	}
}

func (b *reduceBuf[T]) run(t *pgas.Team, m int, inPlace bool) error {
	b.inPlace = inPlace
	if inPlace {
		return pgas.Allreduce(t, pgas.Sum, b.in[:m], b.in[:m])
	}
	return pgas.Allreduce(t, pgas.Sum, b.in[:m], b.out[:m])
}

func (b *reduceBuf[T]) check(n, k, m int) []mismatch {
	res := b.out
	if b.inPlace {
		res = b.in // the in-place sum
	}
	var bad []mismatch
	for x := range m {
		var want T
		for r := range n {
			want += b.value(r, k, x)
		}
		if res[x] != want && len(bad) < logLimit {
			bad = append(bad, mismatch{x, fmt.Sprint(want), fmt.Sprint(res[x])})
		}
	}
	return bad
}
