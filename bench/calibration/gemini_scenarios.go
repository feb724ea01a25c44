package calibration

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/units"
	"github.com/gopgas/gopgas/pgas"
)

// hopLatencies is the one-way 8-byte put latency from node 0 to nodes
// 1..6 Geminis away in x (nodes 2h of a 16x2x2 torus), in microseconds.
func hopLatencies(s *Session) ([]float64, error) {
	return shared(s, "gemini/hops", func() ([]float64, error) {
		peers := []int{2, 4, 6, 8, 10, 12}
		return runOne(s, func() ([]float64, error) {
			return putPingPong(s.config(gem, pgas.OrderRelaxed, map[string]string{"torus": "16x2x2"}), 13, peers, 8, 200)
		})
	})
}

// p2pBW is one PE's block-transfer put bandwidth to the neighbouring
// Gemini in GB/s.
func p2pBW(s *Session, routing string) (float64, error) {
	r, err := bench.PutBW(bench.Setup{Config: s.config(gem, pgas.OrderRelaxed, map[string]string{"routing": routing}),
		Nodes: 4, PPN: 1, Mechanism: bench.BTE, Window: 8, Iterations: 4, Warmup: 1}, []int{1 << 20})
	if err != nil {
		return 0, err
	}
	return r.Points[0].Value / 1000, nil
}

// phitDelta is the torus phits per operation of op with size bytes: the
// counters of 200 operations to the neighbouring Gemini less those of 100,
// over 100 (what the job does besides cancels).
func phitDelta(s *Session, op bench.Op, size int) (float64, error) {
	return unitDelta(s, gem, "torus_phits", 3, 2, op, size)
}

func phitRow(s *Session) (Measurement, error) {
	var vals []float64
	for _, c := range []struct {
		op   bench.Op
		size int
	}{{bench.Put, 8}, {bench.Put, 64}, {bench.Get, 64}} {
		d, err := phitDelta(s, c.op, c.size)
		if err != nil {
			return Measurement{}, err
		}
		vals = append(vals, d)
	}
	p := gemini.Phits()
	vals = append(vals, float64(p.ErrorResponse))
	return Measurement{Values: vals, Detail: fmt.Sprintf("model: 8 B put %d+%d, 64 B put %d+%d, 64 B get %d+%d, error %d",
		p.Put8Request, p.Put8Response, p.Put64Request, p.Put64Response, p.Get64Request, p.Get64Response, p.ErrorResponse)}, nil
}

func topoRow(*Session) (Measurement, error) {
	type want struct {
		perRow, rows int
		x, y, z      int
	}
	// Table 1 in nodes: class 0 3N x 4 x 8, class 1 N x 12 x 8, class 2
	// N x 12 x 16, class 3 N x 4R x 24; section 6.2.1's 10x16x24.
	cases := []want{{1, 1, 3, 4, 8}, {3, 1, 9, 4, 8}, {4, 1, 4, 12, 8}, {16, 1, 16, 12, 8},
		{8, 2, 8, 12, 16}, {24, 2, 24, 12, 16}, {10, 4, 10, 16, 24}, {25, 8, 25, 32, 24}}
	var bad []string
	for _, c := range cases {
		t, _, err := gemini.ForCabinets(c.perRow, c.rows)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%dx%d: %v", c.perRow, c.rows, err))
			continue
		}
		if x, y, z := t.NodeGeometry(); x != c.x || y != c.y || z != c.z {
			bad = append(bad, fmt.Sprintf("%d rows of %d: %dx%dx%d, want %dx%dx%d", c.rows, c.perRow, x, y, z, c.x, c.y, c.z))
		}
	}
	// m series (section 5.1): one cabinet 4x8, 8x8 or 12x8; N cabinets
	// 4N x 24.
	for _, y := range []int{4, 8, 12} {
		t, err := gemini.MSeries(1, y)
		if err != nil {
			bad = append(bad, fmt.Sprintf("m-series 1 cabinet y=%d: %v", y, err))
			continue
		}
		if nx, ny, nz := t.NodeGeometry(); nx*ny*nz != y*8 || nz != 1 && ny != 1 && nx != 1 {
			bad = append(bad, fmt.Sprintf("m-series 1 cabinet y=%d: %dx%dx%d", y, nx, ny, nz))
		}
	}
	for n := 2; n <= 6; n++ {
		t, err := gemini.MSeries(n, 0)
		if err != nil {
			bad = append(bad, fmt.Sprintf("m-series %d cabinets: %v", n, err))
			continue
		}
		if nx, ny, nz := t.NodeGeometry(); nx*ny*nz != 4*n*24 {
			bad = append(bad, fmt.Sprintf("m-series %d cabinets: %dx%dx%d, want %d nodes", n, nx, ny, nz, 4*n*24))
		}
	}
	return Measurement{Values: []float64{float64(len(bad))}, Detail: strings.Join(bad, "; ")}, nil
}

func manyToOne(s *Session, vars int) (Measurement, error) {
	return manyToOneOn(s, gem, 32, 4, vars)
}

func regRow(s *Session) (Measurement, error) {
	times := make([]float64, 2)
	for i, ppn := range []int{1, 24} {
		cfg := s.config(gem, pgas.OrderDefault, nil)
		cfg.PEs, cfg.PEsPerNode = ppn, ppn
		slowest := make([]float64, 1)
		err := s.parallel(func() error {
			return pgas.Run(cfg, func(pe *pgas.PE) error {
				buf := make([]byte, 4096)
				if err := pe.Barrier(); err != nil {
					return err
				}
				// Start together: every PE waits for the same instant,
				// well after the last one is done agreeing on it.
				at := []float64{float64(pe.Now())}
				if err := pgas.Allreduce(pe.World(), pgas.Max, at, at); err != nil {
					return err
				}
				start := time.Duration(at[0]) + 100*time.Microsecond
				if pe.Now() >= start {
					return fmt.Errorf("agreeing on a start took over 100 us")
				}
				pe.Compute(start - pe.Now())
				t0 := pe.Now()
				p, err := pe.Pin(buf)
				if err != nil {
					return err
				}
				d := []float64{float64(pe.Now()-t0) / 1e3}
				if err := pgas.Allreduce(pe.World(), pgas.Max, d, d); err != nil {
					return err
				}
				if pe.Rank() == 0 {
					slowest[0] = d[0]
				}
				return p.Unpin()
			})
		})
		if err != nil {
			return Measurement{}, err
		}
		times[i] = slowest[0]
	}
	return Measurement{Values: times}, nil
}

// ordPoint is one point of the Figure 2 benchmark under the study's
// conditions: bandwidth in MB/s.
type ordPoint struct {
	op        bench.Op
	mech      bench.Mechanism
	order     pgas.Ordering
	size, ppn int
	unreg     bool
	window    int // 0 means 1
}

func (p ordPoint) key() string {
	return fmt.Sprintf("gemini/ord/%v/%v/%v/%d/%d/%v/%d", p.op, p.mech, p.order, p.size, p.ppn, p.unreg, max(p.window, 1))
}

// studyIterations: the simulation is deterministic, so no repetition is
// needed to average noise; enough iterations are needed, though, that
// every PE moves about a megabyte, so that the skew of the PEs leaving the
// barrier and the closing barrier do not weigh on the figure.
func studyIterations(size int) int {
	return max(10, min(100, (1<<20+size-1)/size))
}

func (s *Session) ordBW(p ordPoint) (float64, error) {
	return shared(s, p.key(), func() (float64, error) {
		var v float64
		err := s.parallel(func() error {
			r, err := bench.OrderingBW(bench.Setup{Config: s.config(gem, p.order, nil), Nodes: studyNodes, PPN: p.ppn, Mechanism: p.mech,
				Window: max(p.window, 1), Iterations: studyIterations(p.size), Warmup: 2, Unregistered: p.unreg}, []int{p.size}, p.op)
			if err != nil {
				return err
			}
			v = r.Points[0].Value
			return nil
		})
		return v, err
	})
}

// ordGrid measures every point of pts (in parallel) and returns their
// bandwidths in order.
func (s *Session) ordGrid(pts []ordPoint) ([]float64, error) {
	out := make([]float64, len(pts))
	fs := make([]func() error, len(pts))
	for i, p := range pts {
		fs[i] = func() (err error) {
			out[i], err = s.ordBW(p)
			return err
		}
	}
	// ordBW takes a parallel slot itself; run the lookups unbounded.
	errc := make(chan error, len(fs))
	for _, f := range fs {
		go func() { errc <- f() }()
	}
	var first error
	for range fs {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return out, first
}

// sweep is bandwidth vs PEs per node for one size and order (BTE gets).
func (s *Session) sweep(order pgas.Ordering, size int) ([]float64, error) {
	pts := make([]ordPoint, len(studyPPNs))
	for i, ppn := range studyPPNs {
		pts[i] = ordPoint{op: bench.Get, mech: bench.BTE, order: order, size: size, ppn: ppn}
	}
	return s.ordGrid(pts)
}

func ordPeakRow(s *Session) (Measurement, error) {
	bw, err := s.sweep(pgas.OrderStrict, 64<<10)
	if err != nil {
		return Measurement{}, err
	}
	best := 0
	for i := range bw {
		if bw[i] > bw[best] {
			best = i
		}
	}
	return Measurement{Values: []float64{float64(studyPPNs[best])}, Detail: "strict MB/s by PEs/node: " + series(studyPPNs, bw, "%d", "%.0f")}, nil
}

func ordRatioRow(s *Session) (Measurement, error) {
	best := 0.0
	var parts []string
	for _, size := range studySizes {
		bw, err := s.ordGrid([]ordPoint{{op: bench.Get, mech: bench.BTE, order: pgas.OrderStrict, size: size, ppn: 24},
			{op: bench.Get, mech: bench.BTE, order: pgas.OrderRelaxed, size: size, ppn: 24}})
		if err != nil {
			return Measurement{}, err
		}
		r := bw[1] / bw[0]
		best = math.Max(best, r)
		parts = append(parts, fmt.Sprintf("%d KiB: relaxed %.0f / strict %.0f MB/s = %.2f", size>>10, bw[1], bw[0], r))
	}
	return Measurement{Values: []float64{best}, Detail: strings.Join(parts, "; ")}, nil
}

func ordMonoRow(s *Session) (Measurement, error) {
	worst := 0.0
	var parts []string
	for _, size := range monoSizes {
		bw, err := s.sweep(pgas.OrderRelaxed, size)
		if err != nil {
			return Measurement{}, err
		}
		peak := 0.0
		for _, v := range bw {
			if peak > 0 {
				worst = math.Max(worst, 100*(peak-v)/peak)
			}
			peak = math.Max(peak, v)
		}
		parts = append(parts, fmt.Sprintf("%d KiB: %s", size>>10, series(studyPPNs, bw, "%d", "%.0f")))
	}
	return Measurement{Values: []float64{worst}, Detail: strings.Join(parts, "; ")}, nil
}

func ordDefRow(s *Session) (Measurement, error) {
	outside, points, below, gaps, closer := 0, 0, 0, 0, 0
	var parts []string
	low, lowAt := math.Inf(1), ""
	check := func(st, de, re float64, point string) {
		at := fmt.Sprintf("%s: strict %.0f default %.0f relaxed %.0f", point, st, de, re)
		points++
		if de < st {
			below++
		}
		if re > 1.05*st {
			// A gap between the modes to be closer to one end of.
			gaps++
			if de-st < re-de {
				closer++
			}
		}
		if de/st < low {
			low, lowAt = de/st, at
		}
		if de < 0.95*st || de > 1.05*re {
			outside++
			parts = append(parts, at)
		}
	}
	orders := []pgas.Ordering{pgas.OrderStrict, pgas.OrderDefault, pgas.OrderRelaxed}
	for _, size := range studySizes {
		var bws [3][]float64
		for i, o := range orders {
			bw, err := s.sweep(o, size)
			if err != nil {
				return Measurement{}, err
			}
			bws[i] = bw
		}
		for i, ppn := range studyPPNs {
			check(bws[0][i], bws[1][i], bws[2][i], fmt.Sprintf("BTE %s %d/node", units.HumanBytes(int64(size)), ppn))
		}
	}
	// The paper states the order of the modes of Figure 3's runs: 24 PEs
	// per node, every size, each mechanism (block transfers of the sizes
	// above are done).
	for _, mech := range []bench.Mechanism{bench.FMA, bench.BTE} {
		var sizes []int
		for _, size := range figure3Sizes {
			if mech == bench.FMA || !slices.Contains(studySizes, size) {
				sizes = append(sizes, size)
			}
		}
		var pts []ordPoint
		for _, size := range sizes {
			for _, o := range orders {
				pts = append(pts, ordPoint{op: bench.Get, mech: mech, order: o, size: size, ppn: 24})
			}
		}
		bw, err := s.ordGrid(pts)
		if err != nil {
			return Measurement{}, err
		}
		for i, size := range sizes {
			check(bw[3*i], bw[3*i+1], bw[3*i+2], fmt.Sprintf("%s %s 24/node", strings.ToUpper(mech.String()), units.HumanBytes(int64(size))))
		}
	}
	// Then how close default comes to strict: the points it is below at
	// all, and the lowest.
	parts = append(parts, fmt.Sprintf("default below strict at %d of %d points; lowest against strict (%.1f%%) %s; closer to strict than to relaxed at %d of the %d points where relaxed is more than 5%% above strict", below, points, 100*(low-1), lowAt, closer, gaps))
	share := 0.0
	if gaps > 0 {
		share = 100 * float64(closer) / float64(gaps)
	}
	return Measurement{Values: []float64{float64(outside), share}, Detail: strings.Join(parts, "; ")}, nil
}

// figure3Sizes are the sizes of G-ORD-DEF's Figure 3 runs: 8 B to 64 KiB,
// doubling.
var figure3Sizes = bench.Sizes(8, 64<<10)

func xoverRow(s *Session) (Measurement, error) {
	sizes := []int{512, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10}
	var pts []ordPoint
	for _, size := range sizes {
		for _, m := range []bench.Mechanism{bench.FMA, bench.BTE} {
			pts = append(pts, ordPoint{op: bench.Get, mech: m, order: pgas.OrderRelaxed, size: size, ppn: 24})
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	var parts []string
	for i, size := range sizes {
		parts = append(parts, fmt.Sprintf("%d: FMA %.0f BTE %.0f", size, bw[2*i], bw[2*i+1]))
	}
	// The crossover is where BTE overtakes FMA for good: BTE at least as
	// fast at every larger size measured. The first size from which that
	// holds (none when FMA is ahead at the largest) and the size before
	// it, between which the difference crosses zero.
	from := len(sizes)
	for from > 0 && bw[2*from-1] >= bw[2*from-2] {
		from--
	}
	cross := math.NaN()
	switch {
	case from == 0:
		cross = float64(sizes[0])
	case from < len(sizes):
		// Interpolate log(size) where BTE - FMA crosses zero.
		d0, d1 := bw[2*from-1]-bw[2*from-2], bw[2*from+1]-bw[2*from]
		frac := d0 / (d0 - d1)
		cross = float64(sizes[from-1]) * math.Pow(2, frac*math.Log2(float64(sizes[from])/float64(sizes[from-1])))
	}
	return Measurement{Values: []float64{cross}, Detail: "MB/s: " + strings.Join(parts, ", ")}, nil
}

func putGetRow(s *Session) (Measurement, error) {
	sizes := []int{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}
	var pts []ordPoint
	for _, size := range sizes {
		for _, op := range []bench.Op{bench.Put, bench.Get} {
			pts = append(pts, ordPoint{op: op, mech: bench.Auto, order: pgas.OrderRelaxed, size: size, ppn: 24})
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	var put, get float64
	for i := range sizes {
		put = math.Max(put, bw[2*i])
		get = math.Max(get, bw[2*i+1])
	}
	return Measurement{Values: []float64{put / get}, Detail: fmt.Sprintf("peak put %.0f MB/s, peak get %.0f MB/s; by size put:get %s", put, get,
		series(sizes, pairs(bw), "%d", "%s"))}, nil
}

func pairs(bw []float64) []string {
	var out []string
	for i := 0; i+1 < len(bw); i += 2 {
		out = append(out, fmt.Sprintf("%.0f/%.0f", bw[i], bw[i+1]))
	}
	return out
}

// slowdown compares gets into buffers outside the segment with gets into
// the segment, at 24 PEs per node, and returns the worst slowdown in
// percent over sizes.
func slowdown(s *Session, sizes []int) (Measurement, error) {
	var pts []ordPoint
	for _, size := range sizes {
		for _, unreg := range []bool{false, true} {
			pts = append(pts, ordPoint{op: bench.Get, mech: bench.Auto, order: pgas.OrderRelaxed, size: size, ppn: 24, unreg: unreg})
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	worst := math.Inf(-1)
	var parts []string
	for i, size := range sizes {
		in, out := bw[2*i], bw[2*i+1]
		sd := 100 * (in - out) / in
		worst = math.Max(worst, sd)
		parts = append(parts, fmt.Sprintf("%d B: in-segment %.0f, outside %.0f MB/s (%.1f%%)", size, in, out, sd))
	}
	return Measurement{Values: []float64{worst}, Detail: strings.Join(parts, "; ")}, nil
}

// dynRegRow is the mean slowdown of 256 KiB gets into buffers outside the
// segment over a grid of concurrencies and windows.
func dynRegRow(s *Session) (Measurement, error) {
	var pts []ordPoint
	for _, ppn := range []int{1, 2, 4, 8, 16, 24} {
		for _, w := range []int{1, 4} {
			for _, unreg := range []bool{false, true} {
				pts = append(pts, ordPoint{op: bench.Get, mech: bench.Auto, order: pgas.OrderRelaxed, size: 256 << 10, ppn: ppn, window: w, unreg: unreg})
			}
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	var sum float64
	var parts []string
	for i := 0; i < len(pts); i += 2 {
		sd := 100 * (bw[i] - bw[i+1]) / bw[i]
		sum += sd
		parts = append(parts, fmt.Sprintf("%d/node w%d: %.1f%%", pts[i].ppn, max(pts[i].window, 1), sd))
	}
	return Measurement{Values: []float64{sum / float64(len(pts)/2)}, Detail: strings.Join(parts, ", ")}, nil
}

// regLimitRow fills node 0's table of registered pages with pins by PE 0
// of a node of 2 PEs: pins of a 4 MiB buffer, then of 64 KiB and 4 KiB
// ones, until a Pin fails. It returns the bytes the pins held in MB, 1 when
// the first Pin succeeded and the last failed for want of pages (else 0),
// and 1 when a 512 KiB get from the other PE into unregistered memory
// outside the segment then completed, with the right data, through bounce
// buffers (else 0).
func regLimitRow(s *Session) (Measurement, error) {
	cfg := s.config(gem, pgas.OrderRelaxed, nil)
	cfg.PEs, cfg.PEsPerNode = 2, 2
	const big = 512 << 10
	var pinned int64
	var firstOK, failed, bounced bool
	var detail string
	err := s.parallel(func() error {
		return pgas.Run(cfg, func(pe *pgas.PE) error {
			base, err := pe.Alloc(big, 0)
			if err != nil {
				return err
			}
			pattern := make([]byte, big)
			for i := range pattern {
				pattern[i] = byte(i*7 + pe.Rank())
			}
			if err := pe.Put(pe.Rank(), base, pattern); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				var pins []*pgas.Pinned
				var last error
				for _, n := range []int{4 << 20, 64 << 10, 4 << 10} {
					buf := make([]byte, n)
					for {
						p, err := pe.Pin(buf)
						if err != nil {
							last = err
							break
						}
						pins = append(pins, p)
						pinned += int64(n)
					}
				}
				firstOK = len(pins) > 0
				failed = errors.Is(last, pgas.ErrRegistrationFull)
				detail = fmt.Sprintf("%d pins; the last Pin: %v", len(pins), last)
				got := make([]byte, big)
				before := pe.Stats().Transport.RegFallbacks
				if err := pe.Get(1, base, got); err != nil {
					return err
				}
				ok := pe.Stats().Transport.RegFallbacks == before+1
				for i := range got {
					ok = ok && got[i] == byte(i*7+1)
				}
				bounced = ok
				for _, p := range pins {
					if err := p.Unpin(); err != nil {
						return err
					}
				}
			}
			return pe.Barrier()
		})
	})
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{Values: []float64{float64(pinned) / mega, b2f(firstOK && failed), b2f(bounced)}, Detail: detail}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// lowSizes and lowPPNs are G-ORD-LOWC's medium sizes and its low
// concurrencies, up to the PEs per node strict does best with ([ORDERING]
// III.A: "between 4KB and 16KB", "low concurrency"). The row shares the
// relaxed sweeps of both sizes with G-ORD-MONO and the strict one of 16
// KiB with G-ORD-RATIO; only strict 4 KiB is its own.
var lowSizes = []int{4 << 10, 16 << 10}

const lowPPNs = 4

// ordLowRow is G-ORD-LOWC: the largest gain of relaxed over strict block
// transfer gets with up to lowPPNs PEs per node.
func ordLowRow(s *Session) (Measurement, error) {
	best := math.Inf(-1)
	var parts []string
	for _, size := range lowSizes {
		st, err := s.sweep(pgas.OrderStrict, size)
		if err != nil {
			return Measurement{}, err
		}
		re, err := s.sweep(pgas.OrderRelaxed, size)
		if err != nil {
			return Measurement{}, err
		}
		var ppns []int
		var gains []float64
		for i, ppn := range studyPPNs {
			if ppn > lowPPNs {
				break
			}
			g := 100 * (re[i] - st[i]) / st[i]
			best = math.Max(best, g)
			ppns, gains = append(ppns, ppn), append(gains, g)
		}
		parts = append(parts, fmt.Sprintf("%d KiB, relaxed over strict %% by PEs/node: %s", size>>10, series(ppns, gains, "%d", "%.1f")))
	}
	return Measurement{Values: []float64{best}, Detail: strings.Join(parts, "; ")}, nil
}
