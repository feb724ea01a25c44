package calibration

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/study"
	"github.com/gopgas/gopgas/pgas"
)

// The Gemini rows drawn from the ordering study's added sweeps: the FMA put
// sweep of [GEMINI-HOTI] Figure 8 and the shared vs non-shared sweep of
// [ORDERING] Figure 9 (bench/study measures the same sweeps and reads the
// same figures off them with the same functions), and the concurrency
// sweep of large FMA gets ([ORDERING] III.A).

// The grids of the rows.
var (
	// fmaPutPPNs, fmaPutSizes and fmaPutWindow are Figure 8's: 1, 2 and 4
	// PEs per node, 8 B..256 KiB (as the study), window 16 (as G-HT-FMA;
	// the paper does not state one).
	fmaPutPPNs   = []int{1, 2, 4}
	fmaPutSizes  = bench.Sizes(8, 256<<10)
	fmaPutWindow = 16
	// fig9PPNs, fig9Sizes and fig9Windows are Figure 9's: the four sizes
	// sample the four protocols of Cray's MPI; the windows are the study's
	// (the paper does not list its own; see study.Default).
	fig9PPNs    = []int{1, 2, 4, 8, 16, 24}
	fig9Sizes   = []int{8, 8 << 10, 256 << 10, 2 << 20}
	fig9Windows = []int{1, 2}
)

// rowFMAPPN is G-FMA-PPN: the size at which FMA puts reach 90% of the peak
// falls as PEs per node grow.
var rowFMAPPN = &Row{ID: "G-FMA-PPN", Backend: gem,
	Figure:    "FMA put bandwidth vs transfer size for 1, 2 and 4 processes per node: saturates progressively more easily as processes per node grow",
	Published: "the size reaching 90% of peak falls strictly from 1 to 2 to 4 PEs/node", Source: "[GEMINI-HOTI] V.A, Fig 8",
	Expect: []Expect{{Label: "steps not falling", Check: Exact, Target: 0}},
	Conditions: "OSU mbw_mr: node 0's 1, 2 or 4 PEs put by FMA to as many PEs of node 1, window 16 (the paper states none), relaxed ordering, 8 B..256 KiB by powers of 2, " +
		"iterations moving about 4 MiB per node (10 to 100, after 1 warm-up); the peak is the best bandwidth over the three curves, and each curve's size reaching 90% of it is interpolated geometrically between the measured sizes " +
		"(a curve that reaches it at no measured size saturates beyond 256 KiB: later than any that does); the count of the two steps, 1 to 2 and 2 to 4 PEs per node, where that size does not fall",
	measure: fmaPPNRow}

// rowFMABig is G-FMA-BIG: large FMA gets lose bandwidth at high
// concurrency even with relaxed ordering.
var rowFMABig = &Row{ID: "G-FMA-BIG", Backend: gem,
	Figure:    "large FMA gets slow down with concurrency even with relaxed ordering (FMA resources exhausted)",
	Published: "64 KiB FMA get at 24 PEs/node below its best over 1..24", Source: "[ORDERING] III.A",
	Expect:     []Expect{{Label: "best/at 24", Check: AtLeast, Target: 1.02}},
	Conditions: "the Figure 2 benchmark, FMA gets, 64 KiB, 4 nodes, 1..24 PEs per node, window 1, relaxed ordering; the best bandwidth over PEs per node over that at 24 (1.02: 2% above noise)",
	Miss: "relaxed 64 KiB FMA gets hold the links' bandwidth up to 24 PEs per node in the model, as block transfers do. The paper names the FMA resources large transfers exhaust " +
		"but neither counts them nor says how a transfer holds them, and the Gemini NIC's published counts ([GNI-SRC] gemini_hw.h) show none that 24 PEs exhaust and block transfers do not: " +
		"64 FMA descriptors for user processes, so each PE holds its own (FMADescriptors) and the cost of sharing one never arises; 255 sequence identifiers, one per transaction in flight (24 here); " +
		"and the 1024-entry output request buffer, which one 64 KiB FMA get fills alone, is the model's ORBEntries, for which block transfers wait as well. " +
		"uGNI keeps per-NIC fields for throttling FMA (a threshold, a delay, a largest transaction; [GNI-SRC] gni_priv.h) whose values are not published. " +
		"The row is left a miss rather than fitted to a limit no document gives",
	measure: fmaBigRow}

// rowNonShared is G-NONSHARED: gets into local buffers outside the segment
// lose little against gets into the segment.
var rowNonShared = &Row{ID: "G-NONSHARED", Backend: gem,
	Figure:    "UPC-style get whose local buffer is outside the registered segment vs inside, any concurrency and window",
	Published: "at most 6% slower", Source: "[ORDERING] V (end), Fig 9",
	Expect: []Expect{{Label: "worst slowdown", Check: AtMost, Target: 6, Unit: "%"}},
	Conditions: "the Figure 2 benchmark, gets, 4 nodes, relaxed, automatic mechanism, 8 B, 8 KiB, 256 KiB and 2 MiB, 1, 2, 4, 8, 16 and 24 PEs per node, windows 1 and 2 (the paper lists none; larger windows of 2 MiB would hold over 1 GiB of buffers), " +
		"iterations moving about 4 MiB per node (2 to 100, after 1 warm-up); the worst slowdown of local buffers outside the segment vs inside over the grid. The sheet's bound is the paper's conclusion (at most 6%); its section V text says about 7% for large non-shared transfers",
	Miss: "as G-DYNREG: a 256 KiB or 2 MiB get into a buffer outside the segment is registered and deregistered around the transfer by the PE that issues it (0.7 us + 0.2 us per 4 KB page each), " +
		"so with 1 or 2 PEs per node and a small window the links idle during them and the loss reaches 9..21%; with 4 PEs per node and more the other PEs keep the links busy and the loss falls to 4% or less, " +
		"where the paper sees it small everywhere and growing with concurrency; an 8 KiB get through a bounce buffer pays the core's copy out of it (transport.CopyBytesPerCycle: 1,024 cycles, about 0.5 us), 9% at 1 PE per node and window 1, 1% at window 2; " +
		"the paper does not say how its UPC runtime overlaps registration with transfers (it names registration caches and pipelined registration only for MPI)",
	measure: nonSharedRow}

// row1SSat is G-1S-SAT: one-sided gets saturate the network with 4 PEs per
// node.
var row1SSat = &Row{ID: "G-1S-SAT", Backend: gem,
	Figure:    "one-sided (relaxed, in-segment) saturates the network with few cores: 4 PEs/node reach >= 90% of the best over 1..24, for 8 KiB..2 MiB",
	Published: "4 PEs/node", Source: "[ORDERING] V.E, Figs 9, 11",
	Expect:     []Expect{{Label: "worst at 4 / best", Check: AtLeast, Target: 0.9}},
	Conditions: "the runs of G-NONSHARED with local buffers in the segment at 8 KiB, 256 KiB and 2 MiB, windows 1 and 2: the worst over them of the bandwidth at 4 PEs per node over the best over 1, 2, 4, 8, 16 and 24",
	measure:    oneSidedSatRow}

// fmaPutBW is node 0's FMA put bandwidth to node 1 (MB/s) at ppn PEs per
// node and size bytes, window fmaPutWindow, relaxed.
func (s *Session) fmaPutBW(ppn, size int) (float64, error) {
	return shared(s, fmt.Sprintf("gemini/fmaput/%d/%d/%d", ppn, size, fmaPutWindow), func() (float64, error) {
		return runOne(s, func() (float64, error) {
			r, err := bench.MBWMR(bench.Setup{Config: s.config(gem, pgas.OrderRelaxed, nil), Nodes: 2, PPN: ppn, Mechanism: bench.FMA,
				Window: fmaPutWindow, Iterations: study.PutIterations(size, fmaPutWindow, ppn), Warmup: study.WindowWarmup}, []int{size})
			if err != nil {
				return 0, err
			}
			return r.Points[0].Value, nil
		})
	})
}

// all runs f for every i < n at once (each takes a parallel slot itself)
// and returns the first error.
func all(n int, f func(i int) error) error {
	errc := make(chan error, n)
	for i := range n {
		go func() { errc <- f(i) }()
	}
	var first error
	for range n {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func fmaPPNRow(s *Session) (Measurement, error) {
	bw := make([][]float64, len(fmaPutPPNs))
	for i := range bw {
		bw[i] = make([]float64, len(fmaPutSizes))
	}
	n := len(fmaPutSizes)
	err := all(len(fmaPutPPNs)*n, func(k int) (err error) {
		bw[k/n][k%n], err = s.fmaPutBW(fmaPutPPNs[k/n], fmaPutSizes[k%n])
		return err
	})
	if err != nil {
		return Measurement{}, err
	}
	peak := 0.0
	for _, c := range bw {
		peak = math.Max(peak, slices.Max(c))
	}
	sizes := make([]float64, len(bw))
	var parts []string
	for i, c := range bw {
		sizes[i] = study.SaturationSize(fmaPutSizes, c, study.SaturationLevel*peak)
		at := "none up to 256 KiB"
		if !math.IsInf(sizes[i], 0) {
			at = fmt.Sprintf("%.0f B", sizes[i])
		}
		parts = append(parts, fmt.Sprintf("%d/node %s (best %.0f MB/s, %.0f%% of the peak)", fmaPutPPNs[i], at, slices.Max(c), 100*slices.Max(c)/peak))
	}
	return Measurement{Values: []float64{float64(study.StrictFallViolations(sizes))},
		Detail: fmt.Sprintf("peak %.0f MB/s; size reaching 90%% of it: %s", peak, strings.Join(parts, ", "))}, nil
}

func fmaBigRow(s *Session) (Measurement, error) {
	pts := make([]ordPoint, len(studyPPNs))
	for i, ppn := range studyPPNs {
		pts[i] = ordPoint{op: bench.Get, mech: bench.FMA, order: pgas.OrderRelaxed, size: 64 << 10, ppn: ppn}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	last := bw[len(bw)-1]
	v := math.Inf(1)
	if last > 0 {
		v = slices.Max(bw) / last
	}
	return Measurement{Values: []float64{v}, Detail: "MB/s by PEs/node: " + series(studyPPNs, bw, "%d", "%.0f")}, nil
}

// fig9BW is one point of the Figure 9 grid (MB/s): gets, relaxed,
// automatic mechanism, 4 nodes; unreg puts the local buffers outside the
// segment. Its iterations move about 4 MiB per node, as the study's.
func (s *Session) fig9BW(size, ppn, window int, unreg bool) (float64, error) {
	p := ordPoint{op: bench.Get, mech: bench.Auto, order: pgas.OrderRelaxed, size: size, ppn: ppn, window: window, unreg: unreg}
	iters := study.WindowIterations(size, window, ppn)
	return shared(s, fmt.Sprintf("%s/fig9/%d", p.key(), iters), func() (float64, error) {
		if int64(studyNodes*ppn*window)*int64(size) > study.BigPointBytes {
			// Its buffers are real memory: one such run at a time, waiting
			// outside the parallel slots.
			mu, _ := shared(s, "gemini/fig9/big", func() (*sync.Mutex, error) { return new(sync.Mutex), nil })
			mu.Lock()
			defer mu.Unlock()
		}
		return runOne(s, func() (float64, error) {
			r, err := bench.OrderingBW(bench.Setup{Config: s.config(gem, p.order, nil), Nodes: studyNodes, PPN: ppn, Mechanism: p.mech,
				Window: window, Iterations: iters, Warmup: study.WindowWarmup, Unregistered: unreg}, []int{size}, p.op)
			if err != nil {
				return 0, err
			}
			return r.Points[0].Value, nil
		})
	})
}

// fig9 is the Figure 9 grid: bw[size][window][unreg][ppn] in MB/s.
func fig9(s *Session) ([][][2][]float64, error) {
	bw := make([][][2][]float64, len(fig9Sizes))
	type cell struct{ si, wi, ui, pi int }
	var cells []cell
	for si := range fig9Sizes {
		bw[si] = make([][2][]float64, len(fig9Windows))
		for wi := range fig9Windows {
			for ui := range 2 {
				bw[si][wi][ui] = make([]float64, len(fig9PPNs))
				for pi := range fig9PPNs {
					cells = append(cells, cell{si, wi, ui, pi})
				}
			}
		}
	}
	// The costliest first, so that the grid's makespan is short.
	slices.SortStableFunc(cells, func(a, b cell) int {
		return fig9Cost(b.si, b.wi, b.pi) - fig9Cost(a.si, a.wi, a.pi)
	})
	err := all(len(cells), func(k int) (err error) {
		c := cells[k]
		bw[c.si][c.wi][c.ui][c.pi], err = s.fig9BW(fig9Sizes[c.si], fig9PPNs[c.pi], fig9Windows[c.wi], c.ui == 1)
		return err
	})
	return bw, err
}

// fig9Cost ranks a Figure 9 point's cost: the bytes it moves.
func fig9Cost(si, wi, pi int) int {
	size, w := fig9Sizes[si], fig9Windows[wi]
	return fig9PPNs[pi] * w * size * study.WindowIterations(size, w, fig9PPNs[pi])
}

func nonSharedRow(s *Session) (Measurement, error) {
	bw, err := fig9(s)
	if err != nil {
		return Measurement{}, err
	}
	worst := math.Inf(-1)
	var parts []string
	for si, size := range fig9Sizes {
		for wi, w := range fig9Windows {
			sd := study.Slowdown{Size: size, Window: w, PPN: fig9PPNs}
			for pi := range fig9PPNs {
				sd.Percent = append(sd.Percent, study.SlowdownPercent(bw[si][wi][0][pi], bw[si][wi][1][pi]))
			}
			pct, ppn := sd.Worst()
			worst = math.Max(worst, pct)
			parts = append(parts, fmt.Sprintf("%s W%d: worst %.1f%% at %d/node", sizeText(size), w, pct, ppn))
		}
	}
	return Measurement{Values: []float64{worst}, Detail: strings.Join(parts, "; ")}, nil
}

func oneSidedSatRow(s *Session) (Measurement, error) {
	bw, err := fig9(s)
	if err != nil {
		return Measurement{}, err
	}
	worst := math.Inf(1)
	var parts []string
	for si, size := range fig9Sizes {
		if size < 8<<10 {
			continue
		}
		for wi, w := range fig9Windows {
			f, ok := study.FewCoresOf(fig9PPNs, bw[si][wi][0], study.FewCoresPPN)
			if !ok {
				return Measurement{}, fmt.Errorf("%d PEs per node not in the grid", study.FewCoresPPN)
			}
			worst = math.Min(worst, f.Ratio())
			parts = append(parts, fmt.Sprintf("%s W%d: %.0f / %.0f MB/s (best at %d/node) = %.3f", sizeText(size), w, f.At, f.Best, f.BestPPN, f.Ratio()))
		}
	}
	return Measurement{Values: []float64{worst}, Detail: strings.Join(parts, "; ")}, nil
}

// sizeText prints a size in bytes, KiB or MiB.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
