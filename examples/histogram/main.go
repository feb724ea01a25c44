package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gopgas/gopgas/pgas"
)

func main() {
	perPE := flag.Int("n", 10000, "values drawn by each PE")
	bins := flag.Int("bins", 64, "number of histogram bins")
	seed := flag.Uint64("seed", 1, "seed of the random values (combined with each PE's rank)")
	show := flag.Bool("show", false, "print the histogram")
	stats := flag.Bool("stats", false, "print PE 0's transport counters (how the atomics travelled)")
	flag.Parse()
	pgas.Main(pgas.Config{}, func(pe *pgas.PE) error { return histogram(pe, *perPE, *bins, *seed, *show, *stats) })
}

// values returns the bins of the values PE rank draws: the mean of two
// uniform draws, so that the histogram is a triangle rather than flat.
func values(seed uint64, rank, count, bins int) []int {
	rng := rand.New(rand.NewPCG(seed, uint64(rank)))
	v := make([]int, count)
	for i := range v {
		v[i] = (rng.IntN(bins) + rng.IntN(bins)) / 2
	}
	return v
}

func histogram(pe *pgas.PE, perPE, bins int, seed uint64, show, stats bool) error {
	if perPE < 0 {
		return fmt.Errorf("-n %d: must not be negative", perPE)
	}
	if bins < 1 {
		return fmt.Errorf("-bins %d: must be at least 1", bins)
	}
	n, rank := pe.Size(), pe.Rank()
	per := (bins + n - 1) / n // bins per PE; the last PEs may hold padding
	hist, err := pgas.NewArray[int64](pe, per)
	if err != nil {
		return fmt.Errorf("allocating %d bins per PE: %w", per, err)
	}
	owner := func(b int) (rank, index int) { return b % n, b / n }

	for i, b := range values(seed, rank, perPE, bins) {
		r, j := owner(b)
		if err := pgas.Atomic(pe, pgas.AtomicAdd, hist.At(r, j), 1); err != nil {
			return fmt.Errorf("value %d: incrementing bin %d on PE %d: %w", i, b, r, err)
		}
	}
	// The barrier completes every PE's atomics before anyone reads.
	if err := pe.Barrier(); err != nil {
		return fmt.Errorf("barrier after the updates: %w", err)
	}

	all := make([]int64, per*n) // PE r's bins at r*per
	if err := pgas.Allgather(pe.World(), hist.Local(), all); err != nil {
		return fmt.Errorf("gathering the histogram: %w", err)
	}
	got := make([]int64, bins)
	for r := range n {
		for j := range per {
			c := all[r*per+j]
			if b := j*n + r; b < bins {
				got[b] = c
			} else if c != 0 {
				return fmt.Errorf("padding element %d on PE %d holds %d, want 0", j, r, c)
			}
		}
	}

	want := make([]int64, bins)
	for r := range n {
		for _, b := range values(seed, r, perPE, bins) {
			want[b]++
		}
	}
	var total int64
	for b := range bins {
		if got[b] != want[b] {
			r, j := owner(b)
			return fmt.Errorf("bin %d (PE %d, index %d) counts %d, want %d", b, r, j, got[b], want[b])
		}
		total += got[b]
	}
	if total != int64(n)*int64(perPE) {
		return fmt.Errorf("the histogram counts %d values, want %d", total, int64(n)*int64(perPE))
	}

	// Every PE has checked its copy; agree that all did before reporting.
	ok := []int64{1}
	if err := pgas.Allreduce(pe.World(), pgas.Sum, ok, ok); err != nil {
		return fmt.Errorf("collecting the checks: %w", err)
	}
	if rank == 0 {
		if show {
			printHistogram(got)
		}
		if stats {
			fmt.Printf("PE 0 transport: %+v\n", pe.Stats().Transport)
		}
		fmt.Printf("histogram: %d values from %d PEs in %d bins, %d PEs checked: matches the serial histogram: ok\n", total, n, bins, ok[0])
	}
	return nil
}

// printHistogram draws one bar per bin, the fullest 50 characters wide.
func printHistogram(h []int64) {
	peak := int64(1)
	for _, c := range h {
		peak = max(peak, c)
	}
	for b, c := range h {
		fmt.Printf("%4d %8d %s\n", b, c, strings.Repeat("#", int(c*50/peak)))
	}
}
