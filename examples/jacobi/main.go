package main

import (
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/gopgas/gopgas/pgas"
)

type params struct {
	points, iters int
	left, right   float64
}

func main() {
	var p params
	flag.IntVar(&p.points, "n", 1000, "interior grid points (at least one per PE)")
	flag.IntVar(&p.iters, "iters", 500, "Jacobi iterations")
	flag.Float64Var(&p.left, "left", 1, "fixed value left of the grid")
	flag.Float64Var(&p.right, "right", 0, "fixed value right of the grid")
	flag.Parse()
	pgas.Main(pgas.Config{}, func(pe *pgas.PE) error { return jacobi(pe, p) })
}

// block gives PE r's share of n points over size PEs: its first point
// (0-based among the interior points) and how many it owns.
func block(n, size, r int) (first, count int) {
	base, rem := n/size, n%size
	first = r*base + min(r, rem)
	count = base
	if r < rem {
		count++
	}
	return first, count
}

// step computes one iteration of points [1, len(dst)-1) of dst from src.
// The distributed and the serial computation share it, so they do the same
// floating-point operations on the same values.
func step(dst, src []float64) {
	for i := 1; i < len(dst)-1; i++ {
		dst[i] = (src[i-1] + src[i+1]) / 2
	}
}

// residual is the largest change one more iteration would make to the
// points [1, len(u)-1) of u.
func residual(u []float64) float64 {
	r := 0.0
	for i := 1; i < len(u)-1; i++ {
		r = max(r, math.Abs((u[i-1]+u[i+1])/2-u[i]))
	}
	return r
}

// serial runs the same iterations on the whole grid, boundaries included.
func serial(p params) []float64 {
	u := [2][]float64{make([]float64, p.points+2), make([]float64, p.points+2)}
	for _, b := range u {
		b[0], b[p.points+1] = p.left, p.right
	}
	for k := range p.iters {
		step(u[(k+1)%2], u[k%2])
	}
	return u[p.iters%2]
}

func jacobi(pe *pgas.PE, p params) error {
	n, rank := pe.Size(), pe.Rank()
	if p.iters < 0 {
		return fmt.Errorf("-iters %d: must not be negative", p.iters)
	}
	if p.points < n {
		return fmt.Errorf("-n %d: the grid needs at least one point per PE (%d PEs)", p.points, n)
	}
	first, count := block(p.points, n, rank)
	_, leftCount := block(p.points, n, max(rank-1, 0))
	start := pe.Now()

	// Two buffers of the largest block plus two ghost cells. NewArray
	// zeroes them (the initial interior values) and ends with a barrier.
	width := (p.points+n-1)/n + 2
	var u [2]pgas.Array[float64]
	for i := range u {
		var err error
		if u[i], err = pgas.NewArray[float64](pe, width); err != nil {
			return fmt.Errorf("allocating grid buffer %d: %w", i, err)
		}
	}
	// The boundary ghosts are never written by a neighbour, so they can be
	// set without another barrier.
	for _, a := range u {
		l := a.Local()
		if rank == 0 {
			l[0] = p.left
		}
		if rank == n-1 {
			l[count+1] = p.right
		}
	}

	for k := 0; ; k++ {
		a := u[k%2]
		cur := a.Local()[:count+2]
		if rank > 0 {
			if err := a.PutNBI(rank-1, leftCount+1, cur[1:2]); err != nil {
				return fmt.Errorf("iteration %d: putting the halo to PE %d: %w", k, rank-1, err)
			}
		}
		if rank < n-1 {
			if err := a.PutNBI(rank+1, 0, cur[count:count+1]); err != nil {
				return fmt.Errorf("iteration %d: putting the halo to PE %d: %w", k, rank+1, err)
			}
		}
		// Completes this PE's puts; on return every PE's have landed.
		if err := pe.Barrier(); err != nil {
			return fmt.Errorf("iteration %d: halo barrier: %w", k, err)
		}
		if k == p.iters {
			break
		}
		step(u[(k+1)%2].Local()[:count+2], cur)
	}
	elapsed := pe.Now() - start

	// The final buffer's ghosts are fresh: check the block and its
	// residual against the serial computation.
	final := u[p.iters%2].Local()[:count+2]
	want := serial(p)
	mismatches := []int64{0}
	for i := 1; i <= count; i++ {
		if g, w := final[i], want[first+i]; g != w {
			if mismatches[0] == 0 {
				fmt.Printf("jacobi: PE %d: point %d is %v, serial %v\n", rank, first+i, g, w)
			}
			mismatches[0]++
		}
	}
	if err := pgas.Allreduce(pe.World(), pgas.Sum, mismatches, mismatches); err != nil {
		return fmt.Errorf("counting the mismatches: %w", err)
	}
	if mismatches[0] != 0 {
		return fmt.Errorf("%d of %d points differ from the serial computation", mismatches[0], p.points)
	}
	res := []float64{residual(final)}
	if err := pgas.Allreduce(pe.World(), pgas.Max, res, res); err != nil {
		return fmt.Errorf("reducing the residual: %w", err)
	}
	if sr := residual(want); res[0] != sr {
		return fmt.Errorf("max residual %g, serial %g", res[0], sr)
	}
	if rank == 0 {
		fmt.Printf("jacobi: %d points, %d iterations on %d PEs in %v: max residual %.6g: matches the serial computation exactly: ok\n",
			p.points, p.iters, n, elapsed.Round(time.Microsecond), res[0])
	}
	return nil
}
