package bench

import (
	"fmt"
	"math"
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
	}
	hi := maxSize(sizes)
	j := &job{name: c.String(), title: c.title(), unit: "us", column: "Avg Latency(us)", nodes: 2, ppn: 4, minPEs: 1, sizes: sizes}
	validate := s.Validate && c != Barrier
	res, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		n := pe.Size()
		w := pe.World()
		in := make([]float64, max(hi/8, 1))
		out := make([]float64, max(hi/8, 1))
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
					m := max(size/8, 1)
					if s.InPlace {
						// MPI_IN_PLACE: the sum overwrites the input.
						err = pgas.Allreduce(w, pgas.Sum, in[:m], in[:m])
					} else {
						err = pgas.Allreduce(w, pgas.Sum, in[:m], out[:m])
					}
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
					collFill(pe, c, k, size, in, bin)
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
					collFill(pe, c, k, size, in, bin)
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
				result := out
				if s.InPlace {
					result = in // the in-place sum
				}
				if validate {
					if bad := collCheck(pe, c, k, size, result, bin, bout); len(bad) > 0 {
						errs++
						typ := "MPI_CHAR"
						if c == Allreduce {
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
	}
	return res, err
}

// collPattern is the byte validation expects at index x of the data PE
// rank contributes in iteration k.
func collPattern(rank, k, x int) byte { return byte(rank*31 + k*7 + x) }

// collFill fills this PE's contribution to iteration k.
func collFill(pe *pgas.PE, c Collective, k, size int, in []float64, bin []byte) {
	r := pe.Rank()
	switch c {
	case Broadcast:
		for x := range size {
			bin[x] = collPattern(r, k, x)
		}
	case Allreduce:
		for x := range max(size/8, 1) {
			in[x] = float64(r + k + x)
		}
	case Alltoall:
		for x := range size * pe.Size() {
			bin[x] = collPattern(r, k, x)
		}
	}
}

// collCheck checks what iteration k delivered to this PE and returns the
// wrong elements (at most logLimit).
func collCheck(pe *pgas.PE, c Collective, k, size int, out []float64, bin, bout []byte) []mismatch {
	n, r := pe.Size(), pe.Rank()
	var bad []mismatch
	byteAt := func(pos int, want, got byte) {
		if want != got && len(bad) < logLimit {
			bad = append(bad, mismatch{pos, fmt.Sprint(int8(want)), fmt.Sprint(int8(got))})
		}
	}
	switch c {
	case Broadcast:
		for x := range size {
			byteAt(x, collPattern(0, k, x), bin[x])
		}
	case Allreduce:
		for x := range max(size/8, 1) {
			// The sum over ranks of rank+k+x.
			want := float64(n*(n-1)/2 + n*(k+x))
			if math.Abs(out[x]-want) > 1e-9*math.Max(1, want) && len(bad) < logLimit {
				bad = append(bad, mismatch{x, fmt.Sprintf("%f", want), fmt.Sprintf("%f", out[x])})
			}
		}
	case Alltoall:
		// Block src of the output is block r of src's input.
		for src := range n {
			for x := range size {
				byteAt(src*size+x, collPattern(src, k, r*size+x), bout[src*size+x])
			}
		}
	}
	return bad
}
