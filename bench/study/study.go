package study

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/dustin/go-humanize"
	"golang.org/x/sync/errgroup"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

// Config is what the study measures. Default gives the paper's conditions.
type Config struct {
	// Base is the job configuration every point starts from: backend,
	// seed, backend options, environment. Its Ordering, PEs and
	// PEsPerNode are set per point.
	Base pgas.Config
	// Op is the operation: bench.Get as the paper (puts behave alike,
	// section III).
	Op bench.Op
	// Nodes is the number of nodes of every point (4).
	Nodes int
	// Orderings are the ordering modes studied (strict, default, relaxed).
	Orderings []pgas.Ordering

	// PPN is the PEs per node of the size sweep (24: 48 pairs on 4
	// nodes).
	PPN int
	// Sizes are the message sizes of the size sweep (Figure 3), in bytes;
	// none skips it.
	Sizes []int
	// Mechanisms are the mechanisms of the size sweep (FMA, BTE, auto).
	Mechanisms []bench.Mechanism

	// PPNs are the PEs per node of the concurrency sweep (Figures 4 and
	// 5); none skips it.
	PPNs []int
	// SweepSizes are the message sizes of the concurrency sweep (16 KiB
	// and 64 KiB).
	SweepSizes []int
	// SweepMechanisms are the mechanisms of the concurrency sweep (FMA and
	// BTE).
	SweepMechanisms []bench.Mechanism

	// PutPPNs are the PEs per node of the FMA put sweep ([GEMINI-HOTI]
	// V.A, Figure 8: 1, 2 and 4); none skips it. Node 0's PEs put to node
	// 1's (bench.MBWMR on 2 nodes), FMA, relaxed ordering.
	PutPPNs []int
	// PutSizes are the message sizes of the put sweep (8 B..256 KiB: every
	// curve but one PE per node's has long reached its plateau, and FMA
	// puts are simulated packet by packet, the larger ones at some cost).
	PutSizes []int
	// PutWindow is the puts in flight per PE of the put sweep (16, as
	// G-HT-FMA: the paper does not state it).
	PutWindow int

	// OneSidedPPNs are the PEs per node of the shared vs non-shared sweep
	// ([ORDERING] V, Figure 9: 1, 2, 4, 8, 16, 24); none skips it. The
	// Figure 2 benchmark with Op, relaxed ordering, automatic mechanism,
	// local buffers inside the segment (shared) and outside (non-shared).
	OneSidedPPNs []int
	// OneSidedSizes are its message sizes (8 B, 8 KiB, 256 KiB, 2 MiB:
	// one per protocol of Cray's MPI).
	OneSidedSizes []int
	// OneSidedWindows are its windows (1 and 2: the paper does not list
	// its own, and at 2 MiB a window of 4 would hold 768 MiB of buffers on
	// 96 PEs).
	OneSidedWindows []int

	// TwoSidedPPNs are the PEs per node of the two-sided sweep ([ORDERING]
	// V.E, Figure 11: 1, 2, 4, 8, 12, 16, 24); none skips it. The
	// two-sided Figure 2 benchmark (bench.OrderingMsgBW), relaxed ordering for the
	// data (the matching messages go strictly ordered whatever it is), the
	// runtime's protocols; every point has a one-sided counterpart, the
	// Figure 9 benchmark with local buffers in the segment at the same
	// size, PEs per node and window (shared with that sweep where the
	// points coincide).
	TwoSidedPPNs []int
	// TwoSidedSizes are its message sizes (8 B, 8 KiB, 256 KiB, 2 MiB: one
	// per protocol of Cray's MPI).
	TwoSidedSizes []int
	// TwoSidedWindows are its windows up to TwoSidedSmallMax bytes (1, 8,
	// 64), TwoSidedLargeWindows above (1 and 2, as Figure 9: a window of 8
	// 2 MiB messages moves 1.5 GiB per iteration on 96 PEs, and the
	// simulation's cost follows the bytes).
	TwoSidedWindows, TwoSidedLargeWindows []int
	// TwoSidedSmallMax is the largest size of the small windows (8 KiB).
	TwoSidedSmallMax int
	// NoRendezvousSizes are the sizes measured again with rendezvous
	// disabled (PGAS_MSG_RNDV=off, the paper's Figure 11 right): 8 KiB
	// and 256 KiB. Below the buffered limit nothing changes; 2 MiB takes
	// the 8 KiB pieces of 256 KiB at eight times the simulation's cost.
	NoRendezvousSizes []int

	// Iterations and Warmup, when positive, replace the defaults for
	// every size: DefaultIterations and 1 (Figures 3-5), PutIterations
	// or WindowIterations and WindowWarmup (the put and the shared vs
	// non-shared sweeps).
	Iterations, Warmup int
	// Parallel is how many points run at once; 0 means GOMAXPROCS.
	Parallel int
	// Progress, when not nil, is told after each point (from one goroutine
	// at a time).
	Progress func(done, total int)
}

// Default is the paper's study with a size sweep from 8 B to 128 KiB:
// beyond, strict and default ordering, simulated packet by packet at 24
// PEs per node, cost the most, and the default study is to take under
// two minutes on two cores. The sweep covers the FMA/BTE crossover (near
// 4 KiB on the XE6) and the sizes of the concurrency sweep.
func Default() Config {
	return Config{
		Op:              bench.Get,
		Nodes:           4,
		Orderings:       []pgas.Ordering{pgas.OrderStrict, pgas.OrderDefault, pgas.OrderRelaxed},
		PPN:             24,
		Sizes:           bench.Sizes(8, DefaultMaxSize),
		Mechanisms:      []bench.Mechanism{bench.FMA, bench.BTE, bench.Auto},
		PPNs:            []int{1, 2, 3, 4, 6, 8, 12, 16, 24},
		SweepSizes:      []int{16 << 10, 64 << 10},
		SweepMechanisms: []bench.Mechanism{bench.FMA, bench.BTE},
		PutPPNs:         []int{1, 2, 4},
		PutSizes:        bench.Sizes(8, 256<<10),
		PutWindow:       16,
		OneSidedPPNs:    []int{1, 2, 4, 8, 16, 24},
		OneSidedSizes:   []int{8, 8 << 10, 256 << 10, 2 << 20},
		OneSidedWindows: []int{1, 2},

		TwoSidedPPNs:         []int{1, 2, 4, 8, 12, 16, 24},
		TwoSidedSizes:        []int{8, 8 << 10, 256 << 10, 2 << 20},
		TwoSidedWindows:      []int{1, 8, 64},
		TwoSidedLargeWindows: []int{1, 2},
		TwoSidedSmallMax:     8 << 10,
		NoRendezvousSizes:    []int{8 << 10, 256 << 10},
	}
}

// DefaultMaxSize is the largest size of the default size sweep.
const DefaultMaxSize = 128 << 10

// DefaultIterations is the number of timed iterations of a point of size
// bytes: 10 up to 16 KiB, 5 up to 256 KiB, 3 above. The simulation is
// deterministic: after one warm-up iteration each iteration is the
// steady state.
func DefaultIterations(size int) int {
	switch {
	case size <= 16<<10:
		return 10
	case size <= 256<<10:
		return 5
	}
	return 3
}

// WindowIterations is the number of timed iterations of a point of the
// put or the shared vs non-shared sweep, at ppn PEs per node: enough that
// each node moves about 4 MiB, so that the skew of the PEs leaving the
// barrier and the closing barrier weigh little on the figure (at 8 KiB, one
// PE per node and window 1, 10 iterations read 6% below 30), from 2 to
// 100. WindowWarmup iterations come first.
func WindowIterations(size, window, ppn int) int {
	per := max(1, size*max(window, 1)*max(ppn, 1))
	return max(2, min(100, (4<<20+per-1)/per))
}

// PutMinIterations is the fewest timed iterations of a point of the put
// sweep: with 16 puts in flight a window of large puts already moves the
// 4 MiB, but the FMA model's bandwidth settles over several windows (2
// iterations of 1 MiB at 4 PEs per node read from 7.2 to 7.9 GB/s
// across sizes, 10 within 2%).
const PutMinIterations = 10

// PutIterations is the number of timed iterations of a point of the put
// sweep: WindowIterations, at least PutMinIterations.
func PutIterations(size, window, ppn int) int {
	return max(PutMinIterations, WindowIterations(size, window, ppn))
}

// WindowWarmup is the warm-up iterations of a point of the put or the
// shared vs non-shared sweep.
const WindowWarmup = 1

// iterations is the point's iterations and warm-up.
func (c *Config) iterations(k key) (iters, warmup int) {
	iters, warmup = DefaultIterations(k.size), 1
	switch k.kind {
	case figPut:
		iters, warmup = PutIterations(k.size, k.window, k.ppn), WindowWarmup
	case figOneSided, figTwoSided:
		iters, warmup = WindowIterations(k.size, k.window, k.ppn), WindowWarmup
	}
	if c.Iterations > 0 {
		iters = c.Iterations
	}
	if c.Warmup > 0 {
		warmup = c.Warmup
	}
	return iters, warmup
}

// ErrBadConfig wraps the errors of configurations the study cannot run.
var ErrBadConfig = errors.New("study: bad configuration")

func (c *Config) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	switch {
	case c.Nodes < 1:
		return bad("%d nodes", c.Nodes)
	case len(c.Orderings) == 0 && (len(c.Sizes) > 0 || len(c.PPNs) > 0):
		return bad("no ordering modes")
	case len(c.Sizes) == 0 && len(c.PPNs) == 0 && len(c.PutPPNs) == 0 && len(c.OneSidedPPNs) == 0 && len(c.TwoSidedPPNs) == 0:
		return bad("no sweep to run: no sizes and no PEs per node")
	case len(c.Sizes) > 0 && len(c.Mechanisms) == 0:
		return bad("no mechanisms for the size sweep")
	case len(c.PPNs) > 0 && (len(c.SweepSizes) == 0 || len(c.SweepMechanisms) == 0):
		return bad("the PEs-per-node sweep needs sizes and mechanisms")
	case len(c.PutPPNs) > 0 && (len(c.PutSizes) == 0 || c.PutWindow < 1):
		return bad("the put sweep needs sizes and a window")
	case len(c.OneSidedPPNs) > 0 && (len(c.OneSidedSizes) == 0 || len(c.OneSidedWindows) == 0):
		return bad("the shared vs non-shared sweep needs sizes and windows")
	case len(c.TwoSidedPPNs) > 0 && (len(c.TwoSidedSizes) == 0 || len(c.TwoSidedWindows) == 0 || len(c.TwoSidedLargeWindows) == 0):
		return bad("the two-sided sweep needs sizes and windows")
	case len(c.Sizes) > 0 && c.PPN < 1:
		return bad("%d PEs per node", c.PPN)
	case c.Iterations < 0 || c.Warmup < 0:
		return bad("iterations %d, warm-up %d", c.Iterations, c.Warmup)
	}
	for _, o := range c.Orderings {
		if o != pgas.OrderStrict && o != pgas.OrderDefault && o != pgas.OrderRelaxed {
			return bad("ordering %v", o)
		}
	}
	for _, s := range slices.Concat(c.Sizes, c.SweepSizes, c.PutSizes, c.OneSidedSizes, c.TwoSidedSizes, c.NoRendezvousSizes) {
		if s < 1 {
			return bad("message size %d", s)
		}
	}
	for _, w := range slices.Concat(c.OneSidedWindows, c.TwoSidedWindows, c.TwoSidedLargeWindows) {
		if w < 1 {
			return bad("window %d", w)
		}
	}
	for _, p := range slices.Concat(c.PPNs, c.PutPPNs, c.OneSidedPPNs, c.TwoSidedPPNs) {
		if p < 1 {
			return bad("%d PEs per node", p)
		}
	}
	for _, p := range slices.Concat([]int{c.PPN}, c.PPNs, c.OneSidedPPNs, c.TwoSidedPPNs) {
		if p > 0 && c.Nodes*p%2 != 0 {
			return bad("%d nodes x %d PEs per node is odd: the benchmark pairs PEs", c.Nodes, p)
		}
	}
	return nil
}

// Point is one measurement.
type Point struct {
	Ordering  pgas.Ordering
	Mechanism bench.Mechanism
	// Size is the message size in bytes, PPN the PEs per node.
	Size, PPN int
	// Bandwidth is the aggregate bandwidth in MB/s (10^6 bytes per
	// second), Rate the aggregate operations per second.
	Bandwidth, Rate float64
	// Window is the operations in flight per PE (1 in Figures 3-5).
	Window int
	// Unregistered says the local buffers lay outside the segment (the
	// non-shared points of the shared vs non-shared sweep).
	Unregistered bool
	// NoRendezvous says two-sided rendezvous was disabled; Protocol is the
	// two-sided protocol the point's messages took (the two-sided sweep).
	NoRendezvous bool
	Protocol     string
	// Iterations and Warmup are what the point ran.
	Iterations, Warmup int
	// Events is the number of simulation events of the point's job (0 on a
	// real backend).
	Events uint64
}

// Curve is a series of points of one ordering and mechanism: by size (the
// size and put sweeps, at PPN) or by PEs per node (the concurrency and
// shared vs non-shared sweeps, at Size).
type Curve struct {
	Ordering  pgas.Ordering
	Mechanism bench.Mechanism
	// PPN is fixed along a size curve; Size along a PEs-per-node curve.
	PPN, Size int
	// Window and Unregistered are the points' (see Point).
	Window       int
	Unregistered bool
	NoRendezvous bool
	Points       []Point
}

// Results are a study's measurements.
type Results struct {
	Config Config
	// Invocation and Provenance are, for the record (Record), what the
	// command line asked and what ran where and when; the caller sets
	// them (zero: none recorded).
	Invocation report.Invocation
	Provenance *report.Provenance
	// Conduit is the backend that ran; Simulated says whether its times
	// are simulated.
	Conduit   string
	Simulated bool
	// SizeCurves are the size sweep (Figure 3), by ordering then
	// mechanism in the order of the Config.
	SizeCurves []Curve
	// PPNCurves are the concurrency sweep (Figures 4 and 5), by ordering,
	// size, then mechanism.
	PPNCurves []Curve
	// PutCurves are the FMA put sweep ([GEMINI-HOTI] Figure 8), one by
	// size per PEs per node.
	PutCurves []Curve
	// OneSidedCurves are the shared vs non-shared sweep ([ORDERING]
	// Figure 9), by PEs per node: by size, window, then shared before
	// non-shared.
	OneSidedCurves []Curve
	// TwoSidedCurves are the two-sided sweep ([ORDERING] Figure 11), by
	// PEs per node: by size then window, with rendezvous then (at
	// NoRendezvousSizes) without.
	TwoSidedCurves []Curve
	// CounterpartCurves are the one-sided counterparts of the two-sided
	// curves with rendezvous, in their order: shared, relaxed, automatic
	// mechanism, the same sizes, windows and PEs per node.
	CounterpartCurves []Curve
}

// fig is the benchmark a point belongs to.
type fig uint8

const (
	figOrdering fig = iota // Figures 3-5: the Figure 2 benchmark, window 1
	figPut                 // [GEMINI-HOTI] Figure 8: bench.MBWMR on 2 nodes
	figOneSided            // [ORDERING] Figure 9: the Figure 2 benchmark, windows, shared or not
	figTwoSided            // [ORDERING] Figure 11: the two-sided Figure 2 benchmark (bench.OrderingMsgBW)
)

// putNodes is the number of nodes of the put sweep: node 0's PEs put to
// node 1's.
const putNodes = 2

type key struct {
	kind      fig
	order     pgas.Ordering
	mech      bench.Mechanism
	size, ppn int
	window    int
	unreg     bool
	nolmt     bool
}

func (k key) String() string {
	s := fmt.Sprintf("%v %v %s at %d PEs per node", k.order, k.mech, humanize.IBytes(uint64(k.size)), k.ppn)
	switch k.kind {
	case figPut:
		s = fmt.Sprintf("FMA put %s at %d PEs per node, window %d", humanize.IBytes(uint64(k.size)), k.ppn, k.window)
	case figOneSided:
		s += fmt.Sprintf(", window %d", k.window)
		if k.unreg {
			s += ", non-shared"
		}
	case figTwoSided:
		s = fmt.Sprintf("two-sided %s at %d PEs per node, window %d", humanize.IBytes(uint64(k.size)), k.ppn, k.window)
		if k.nolmt {
			s += ", no rendezvous"
		}
	}
	return s
}

func (k key) point() Point {
	return Point{Ordering: k.order, Mechanism: k.mech, Size: k.size, PPN: k.ppn, Window: k.window, Unregistered: k.unreg, NoRendezvous: k.nolmt}
}

// keyOf is the key of a point of a sweep of kind.
func keyOf(kind fig, p Point) key {
	return key{kind, p.Ordering, p.Mechanism, p.Size, p.PPN, p.Window, p.Unregistered, p.NoRendezvous}
}

// Run runs the study. Points run in parallel, the costliest first; the
// first error stops the study (points already running finish).
func Run(ctx context.Context, cfg Config) (*Results, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	res := &Results{Config: cfg}
	var keys []key
	seen := map[key]bool{}
	add := func(k key) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, o := range cfg.Orderings {
		for _, m := range cfg.Mechanisms {
			c := Curve{Ordering: o, Mechanism: m, PPN: cfg.PPN, Window: 1}
			for _, s := range cfg.Sizes {
				k := key{figOrdering, o, m, s, cfg.PPN, 1, false, false}
				add(k)
				c.Points = append(c.Points, k.point())
			}
			if len(cfg.Sizes) > 0 {
				res.SizeCurves = append(res.SizeCurves, c)
			}
		}
		for _, s := range cfg.SweepSizes {
			for _, m := range cfg.SweepMechanisms {
				c := Curve{Ordering: o, Mechanism: m, Size: s, Window: 1}
				for _, p := range cfg.PPNs {
					k := key{figOrdering, o, m, s, p, 1, false, false}
					add(k)
					c.Points = append(c.Points, k.point())
				}
				if len(cfg.PPNs) > 0 {
					res.PPNCurves = append(res.PPNCurves, c)
				}
			}
		}
	}
	for _, p := range cfg.PutPPNs {
		c := Curve{Ordering: pgas.OrderRelaxed, Mechanism: bench.FMA, PPN: p, Window: cfg.PutWindow}
		for _, s := range cfg.PutSizes {
			k := key{figPut, pgas.OrderRelaxed, bench.FMA, s, p, cfg.PutWindow, false, false}
			add(k)
			c.Points = append(c.Points, k.point())
		}
		if len(cfg.PutSizes) > 0 {
			res.PutCurves = append(res.PutCurves, c)
		}
	}
	for _, s := range cfg.OneSidedSizes {
		for _, w := range cfg.OneSidedWindows {
			for _, unreg := range []bool{false, true} {
				c := Curve{Ordering: pgas.OrderRelaxed, Mechanism: bench.Auto, Size: s, Window: w, Unregistered: unreg}
				for _, p := range cfg.OneSidedPPNs {
					k := key{figOneSided, pgas.OrderRelaxed, bench.Auto, s, p, w, unreg, false}
					add(k)
					c.Points = append(c.Points, k.point())
				}
				if len(cfg.OneSidedPPNs) > 0 {
					res.OneSidedCurves = append(res.OneSidedCurves, c)
				}
			}
		}
	}
	res.TwoSidedCurves, res.CounterpartCurves = cfg.twoSidedCurves(add)
	// Longest first: the makespan is then close to the total over the
	// workers unless one point dominates.
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(cfg.cost(b), cfg.cost(a)) })
	keys = spreadBig(keys, cfg.big)

	par := cfg.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	var mu, bigMu sync.Mutex
	measured := make(map[key]Point, len(keys))
	done := 0
	for _, k := range keys {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if cfg.big(k) {
				bigMu.Lock()
				defer bigMu.Unlock()
			}
			if err := gctx.Err(); err != nil {
				return err
			}
			p, r, err := cfg.measure(k)
			if err != nil {
				return fmt.Errorf("study: %v: %w", k, err)
			}
			mu.Lock()
			defer mu.Unlock()
			measured[k] = p
			res.Conduit, res.Simulated = r.Conduit, r.Simulated
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, len(keys))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fill := func(kind fig, cs []Curve) {
		for i := range cs {
			for j, p := range cs[i].Points {
				cs[i].Points[j] = measured[keyOf(kind, p)]
			}
		}
	}
	fill(figOrdering, res.SizeCurves)
	fill(figOrdering, res.PPNCurves)
	fill(figPut, res.PutCurves)
	fill(figOneSided, res.OneSidedCurves)
	fill(figTwoSided, res.TwoSidedCurves)
	fill(figOneSided, res.CounterpartCurves)
	return res, nil
}

// BigPointBytes is the local buffer bytes of a point above which it runs
// beside no other such point: the benchmarks' buffers are real memory, and
// two 2 MiB points of 96 PEs with 2 in flight each would hold about 1 GiB.
const BigPointBytes = 256 << 20

// big reports whether a point's local buffers (every sender's window)
// exceed BigPointBytes.
func (c *Config) big(k key) bool {
	nodes := c.Nodes
	if k.kind == figPut {
		nodes = putNodes / 2
	}
	if k.kind == figTwoSided {
		return twoSidedBytes(nodes, k) > BigPointBytes
	}
	return int64(nodes)*int64(k.ppn)*int64(max(k.window, 1))*int64(k.size) > BigPointBytes
}

// spreadBig reorders keys so that each big one is followed by one that is
// not, while there are: a worker then has other work while a big point
// waits for another.
func spreadBig(keys []key, big func(key) bool) []key {
	var bigs, rest []key
	for _, k := range keys {
		if big(k) {
			bigs = append(bigs, k)
		} else {
			rest = append(rest, k)
		}
	}
	out := make([]key, 0, len(keys))
	for i, k := range bigs {
		out = append(out, k)
		if i < len(rest) {
			out = append(out, rest[i])
		}
	}
	if len(rest) > len(bigs) {
		out = append(out, rest[len(bigs):]...)
	}
	return out
}

// cost estimates a point's wall time, to start the costliest first: the
// bytes the simulation moves, packet by packet except for large relaxed
// transfers, plus a per-operation overhead.
func (c *Config) cost(k key) float64 {
	iters, warmup := c.iterations(k)
	nodes, senders := c.Nodes, 1.0
	if k.kind == figPut {
		nodes, senders = putNodes, 0.5
	}
	ops := float64(nodes*k.ppn) * senders * float64(iters+warmup) * float64(max(k.window, 1))
	bytes := float64(k.size)
	if k.order == pgas.OrderRelaxed && k.size > 64<<10 && !k.nolmt {
		bytes /= 16
	}
	if k.kind == figTwoSided {
		// Send and receive: twice the operations.
		ops *= 2
	}
	return ops * (bytes + 2048)
}

// measure runs one point.
func (c *Config) measure(k key) (Point, *bench.Result, error) {
	iters, warmup := c.iterations(k)
	cfg := c.Base
	cfg.Ordering = k.order
	setup := bench.Setup{Config: cfg, Nodes: c.Nodes, PPN: k.ppn, Mechanism: k.mech,
		Window: max(k.window, 1), Iterations: iters, Warmup: warmup, Unregistered: k.unreg}
	var r *bench.Result
	var err error
	switch k.kind {
	case figPut:
		setup.Nodes = putNodes
		r, err = bench.MBWMR(setup, []int{k.size})
	case figTwoSided:
		setup.Mechanism = bench.Auto
		if k.nolmt {
			setup.Config.MsgRendezvous = pgas.Off
		}
		r, err = bench.OrderingMsgBW(setup, []int{k.size})
	default:
		r, err = bench.OrderingBW(setup, []int{k.size}, c.Op)
	}
	if err != nil {
		return Point{}, nil, err
	}
	if len(r.Points) != 1 {
		return Point{}, nil, fmt.Errorf("the benchmark gave %d points for one size", len(r.Points))
	}
	p := r.Points[0]
	out := k.point()
	out.Bandwidth, out.Rate, out.Iterations, out.Warmup, out.Events = p.Value, p.Rate, iters, warmup, r.Report.Events
	out.Protocol = p.Protocol
	return out, r, nil
}
