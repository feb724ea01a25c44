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

	// Iterations and Warmup, when positive, replace the defaults for
	// every size: DefaultIterations and 1.
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

// iterations is the point's iterations and warm-up.
func (c *Config) iterations(size int) (iters, warmup int) {
	iters, warmup = DefaultIterations(size), 1
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
	case len(c.Orderings) == 0:
		return bad("no ordering modes")
	case len(c.Sizes) == 0 && len(c.PPNs) == 0:
		return bad("neither sizes nor PEs per node to sweep")
	case len(c.Sizes) > 0 && len(c.Mechanisms) == 0:
		return bad("no mechanisms for the size sweep")
	case len(c.PPNs) > 0 && (len(c.SweepSizes) == 0 || len(c.SweepMechanisms) == 0):
		return bad("the PEs-per-node sweep needs sizes and mechanisms")
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
	for _, s := range append(slices.Clone(c.Sizes), c.SweepSizes...) {
		if s < 1 {
			return bad("message size %d", s)
		}
	}
	for _, p := range c.PPNs {
		if p < 1 {
			return bad("%d PEs per node", p)
		}
	}
	for _, p := range append([]int{c.PPN}, c.PPNs...) {
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
	// Iterations and Warmup are what the point ran.
	Iterations, Warmup int
	// Events is the number of simulation events of the point's job (0 on a
	// real backend).
	Events uint64
}

// Curve is a series of points of one ordering and mechanism: by size (the
// size sweep, at PPN) or by PEs per node (the concurrency sweep, at Size).
type Curve struct {
	Ordering  pgas.Ordering
	Mechanism bench.Mechanism
	// PPN is fixed along a size curve; Size along a PEs-per-node curve.
	PPN, Size int
	Points    []Point
}

// Results are a study's measurements.
type Results struct {
	Config Config
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
}

type key struct {
	order     pgas.Ordering
	mech      bench.Mechanism
	size, ppn int
}

func (k key) String() string {
	return fmt.Sprintf("%v %v %s at %d PEs per node", k.order, k.mech, humanize.IBytes(uint64(k.size)), k.ppn)
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
			c := Curve{Ordering: o, Mechanism: m, PPN: cfg.PPN}
			for _, s := range cfg.Sizes {
				add(key{o, m, s, cfg.PPN})
				c.Points = append(c.Points, Point{Ordering: o, Mechanism: m, Size: s, PPN: cfg.PPN})
			}
			if len(cfg.Sizes) > 0 {
				res.SizeCurves = append(res.SizeCurves, c)
			}
		}
		for _, s := range cfg.SweepSizes {
			for _, m := range cfg.SweepMechanisms {
				c := Curve{Ordering: o, Mechanism: m, Size: s}
				for _, p := range cfg.PPNs {
					add(key{o, m, s, p})
					c.Points = append(c.Points, Point{Ordering: o, Mechanism: m, Size: s, PPN: p})
				}
				if len(cfg.PPNs) > 0 {
					res.PPNCurves = append(res.PPNCurves, c)
				}
			}
		}
	}
	// Longest first: the makespan is then close to the total over the
	// workers unless one point dominates.
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(cfg.cost(b), cfg.cost(a)) })

	par := cfg.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	var mu sync.Mutex
	measured := make(map[key]Point, len(keys))
	done := 0
	for _, k := range keys {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
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
	fill := func(cs []Curve) {
		for i := range cs {
			for j, p := range cs[i].Points {
				cs[i].Points[j] = measured[key{p.Ordering, p.Mechanism, p.Size, p.PPN}]
			}
		}
	}
	fill(res.SizeCurves)
	fill(res.PPNCurves)
	return res, nil
}

// cost estimates a point's wall time, to start the costliest first: the
// bytes the simulation moves, packet by packet except for large relaxed
// transfers, plus a per-operation overhead.
func (c *Config) cost(k key) float64 {
	iters, warmup := c.iterations(k.size)
	ops := float64(c.Nodes*k.ppn) * float64(iters+warmup)
	bytes := float64(k.size)
	if k.order == pgas.OrderRelaxed && k.size > 64<<10 {
		bytes /= 16
	}
	return ops * (bytes + 2048)
}

// measure runs one point.
func (c *Config) measure(k key) (Point, *bench.Result, error) {
	iters, warmup := c.iterations(k.size)
	cfg := c.Base
	cfg.Ordering = k.order
	r, err := bench.OrderingBW(bench.Setup{Config: cfg, Nodes: c.Nodes, PPN: k.ppn, Mechanism: k.mech,
		Window: 1, Iterations: iters, Warmup: warmup}, []int{k.size}, c.Op)
	if err != nil {
		return Point{}, nil, err
	}
	if len(r.Points) != 1 {
		return Point{}, nil, fmt.Errorf("the benchmark gave %d points for one size", len(r.Points))
	}
	p := r.Points[0]
	return Point{Ordering: k.order, Mechanism: k.mech, Size: k.size, PPN: k.ppn, Bandwidth: p.Value, Rate: p.Rate,
		Iterations: iters, Warmup: warmup, Events: r.Report.Events}, r, nil
}
