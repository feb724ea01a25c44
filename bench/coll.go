package bench

import (
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

// Collectives measures the latency of a collective on every PE (the
// average over iterations, the maximum over PEs, as OSU's avg latency
// column of the slowest PE), in microseconds. Defaults: 2 nodes, 4 PEs per
// node. For Barrier, sizes may be nil.
func Collectives(s Setup, c Collective, sizes []int) (*Result, error) {
	if c == Barrier || len(sizes) == 0 {
		sizes = []int{0}
	}
	hi := maxSize(sizes)
	title := "OSU-style " + c.String() + " Latency Test"
	j := &job{name: c.String(), title: title, unit: "us", column: "Avg Latency(us)", nodes: 2, ppn: 4, minPEs: 1, sizes: sizes}
	return s.run(j, func(pe *pgas.PE, r *Result) error {
		n := pe.Size()
		w := pe.World()
		in := make([]float64, max(hi/8, 1))
		out := make([]float64, max(hi/8, 1))
		bin := make([]byte, hi*n)
		bout := make([]byte, hi*n)
		for i, size := range sizes {
			iters, skip := s.iterations(size, true)
			if s.Iterations == 0 {
				// OSU's collective tests run 1000 (100 above 8 KiB).
				iters = 1000
				if size > LargeSize {
					iters = 100
				}
			}
			var start time.Duration
			for k := range iters + skip {
				if k == skip {
					if err := pe.Barrier(); err != nil {
						return err
					}
					start = pe.Now()
				}
				var err error
				switch c {
				case Barrier:
					err = w.Barrier()
				case Broadcast:
					err = pgas.Broadcast(w, 0, bin[:size])
				case Allreduce:
					m := max(size/8, 1)
					err = pgas.Allreduce(w, pgas.Sum, in[:m], out[:m])
				case Alltoall:
					err = pgas.Alltoall(w, bin[:size*n], bout[:size*n])
				}
				if err != nil {
					return err
				}
			}
			lat := []float64{us(pe.Now()-start) / float64(iters)}
			if err := pgas.Allreduce(w, pgas.Max, lat, lat); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				r.Points = append(r.Points, Point{Size: size, Value: lat[0]})
			}
			s.progress(pe, i, len(sizes))
		}
		return nil
	})
}
