package pgas_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/smp"
	"github.com/gopgas/gopgas/pgas"
)

// Tests of the runtime's collective offload (offload.go) over a test-only
// backend, "smp-ce-test": the smp backend whose endpoints also advertise
// and implement a collective engine (conduit.CollectiveOffload), built
// here on shared memory. The engine counts what it is asked to do, so the
// tests can tell which calls the runtime offloaded.

const offtBackend = "smp-ce-test"

func init() {
	conduit.Register(offtBackend, conduit.Backend{Open: offtOpen, DefaultPEs: smp.DefaultPEs})
}

// offtEngines finds a running job's engine from its seed, which
// offtConfig makes unique, so that tests may run in parallel.
var (
	offtEngines sync.Map // seed -> *offtEngine
	offtSeeds   atomic.Uint64
)

// offtEngineOf returns the engine of pe's job.
func offtEngineOf(pe *pgas.PE) *offtEngine {
	e, ok := offtEngines.Load(pe.Config().Seed)
	if !ok {
		panic("offtEngineOf: not a job of the " + offtBackend + " backend")
	}
	return e.(*offtEngine)
}

func offtOpen(cfg conduit.JobConfig) (conduit.Job, error) {
	j, err := smp.Open(cfg)
	if err != nil {
		return nil, err
	}
	oj := &offtJob{inner: j, eng: offtNewEngine(cfg.PEs), seed: cfg.Seed}
	offtEngines.Store(cfg.Seed, oj.eng)
	return oj, nil
}

// offtJob wraps the smp job: its Run is the smp job's, with each endpoint
// wrapped.
type offtJob struct {
	inner conduit.Job
	eng   *offtEngine
	seed  uint64
}

func (j *offtJob) Run(main func(conduit.Endpoint) error) error {
	defer offtEngines.Delete(j.seed)
	return j.inner.Run(func(ep conduit.Endpoint) error {
		return main(&offtEndpoint{Endpoint: ep, eng: j.eng})
	})
}

// offtEndpoint is an smp endpoint with a collective engine.
type offtEndpoint struct {
	conduit.Endpoint
	eng *offtEngine
}

func (e *offtEndpoint) Backend() string { return offtBackend }

func (e *offtEndpoint) Caps() conduit.Caps {
	c := e.Endpoint.Caps()
	c.CollectiveOffload = true
	return c
}

func (e *offtEndpoint) OffloadBarrier() (conduit.Collective, error) {
	return e.eng.join(e.Rank(), offtCall{barrier: true}, 0)
}

func (e *offtEndpoint) OffloadAllreduce(op conduit.ReduceOp, kind conduit.ReduceKind, width int, value uint64) (conduit.Collective, error) {
	return e.eng.join(e.Rank(), offtCall{op: op, kind: kind, width: width}, value)
}

var _ conduit.CollectiveOffload = (*offtEndpoint)(nil)

// offtCall is what one collective of the engine does.
type offtCall struct {
	barrier bool
	op      conduit.ReduceOp
	kind    conduit.ReduceKind
	width   int
}

// offtGen is one generation of the engine: the n-th collective call of
// every PE.
type offtGen struct {
	call      offtCall
	joined    int
	collected int
	acc       uint64
	err       error
}

// offtCounts are one PE's calls of the engine.
type offtCounts struct {
	Barriers    int // barriers started
	Allreduces  int // allreduces started
	Unsupported int // allreduces refused with ErrUnsupported
	Last        offtCall
}

// offtEngine is the shared-memory collective engine: every call is
// collective over all PEs and joins the caller's next generation; a
// generation is complete once every PE has joined it.
type offtEngine struct {
	mu     sync.Mutex
	size   int
	next   []uint64 // per PE: its next generation
	gens   map[uint64]*offtGen
	counts []offtCounts
	errors int    // mismatched calls seen
	refuse []bool // per PE: refuse its next barrier
}

func offtNewEngine(size int) *offtEngine {
	return &offtEngine{size: size, next: make([]uint64, size), gens: map[uint64]*offtGen{}, counts: make([]offtCounts, size)}
}

// countsOf returns PE rank's counters.
func (e *offtEngine) countsOf(rank int) offtCounts {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.counts[rank]
}

func (e *offtEngine) mismatches() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.errors
}

func (e *offtEngine) join(rank int, c offtCall, value uint64) (conduit.Collective, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.barrier && e.refuse != nil && e.refuse[rank] {
		e.refuse[rank] = false
		return nil, errOfftRefused
	}
	if !c.barrier {
		if c.op == conduit.ReduceProd {
			e.counts[rank].Unsupported++
			return nil, conduit.ErrUnsupported
		}
		if c.width != 4 && c.width != 8 {
			e.errors++
			return nil, fmt.Errorf("offload allreduce of width %d", c.width)
		}
		if c.width == 4 && value>>32 != 0 {
			e.errors++
			return nil, fmt.Errorf("offload allreduce of width 4 with value %#x", value)
		}
		e.counts[rank].Allreduces++
	} else {
		e.counts[rank].Barriers++
	}
	e.counts[rank].Last = c
	n := e.next[rank]
	e.next[rank]++
	g := e.gens[n]
	if g == nil {
		g = &offtGen{call: c, acc: value}
		e.gens[n] = g
	} else {
		if g.call != c {
			e.errors++
			g.err = fmt.Errorf("collective engine: generation %d: PE %d calls %+v, another PE %+v", n, rank, c, g.call)
		} else if !c.barrier && g.err == nil {
			var err error
			g.acc, err = offtCombine(c, g.acc, value)
			if err != nil {
				e.errors++
				g.err = err
			}
		}
	}
	g.joined++
	return &offtColl{eng: e, gen: n}, nil
}

// offtColl is one PE's part of a generation.
type offtColl struct {
	eng    *offtEngine
	gen    uint64
	done   bool
	result uint64
	err    error
}

func (c *offtColl) Test() (bool, uint64, error) {
	if c.done {
		return true, c.result, c.err
	}
	e := c.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	g := e.gens[c.gen]
	if g.joined < e.size {
		return false, 0, nil
	}
	c.done, c.result, c.err = true, g.acc, g.err
	if g.call.barrier {
		c.result = 0
	}
	g.collected++
	if g.collected == e.size {
		delete(e.gens, c.gen)
	}
	return true, c.result, c.err
}

// offtCombine folds b into a as op on the kind and width of c.
func offtCombine(c offtCall, a, b uint64) (uint64, error) {
	switch c.op {
	case conduit.ReduceAnd, conduit.ReduceOr, conduit.ReduceXor:
		if c.kind == conduit.ReduceFloat {
			return 0, fmt.Errorf("collective engine: bitwise %d on floats", c.op)
		}
		switch c.op {
		case conduit.ReduceAnd:
			return a & b, nil
		case conduit.ReduceOr:
			return a | b, nil
		}
		return a ^ b, nil
	}
	switch {
	case c.kind == conduit.ReduceInt && c.width == 4:
		return uint64(uint32(offtArith(c.op, int32(uint32(a)), int32(uint32(b))))), nil
	case c.kind == conduit.ReduceInt && c.width == 8:
		return uint64(offtArith(c.op, int64(a), int64(b))), nil
	case c.kind == conduit.ReduceUint && c.width == 4:
		return uint64(offtArith(c.op, uint32(a), uint32(b))), nil
	case c.kind == conduit.ReduceUint && c.width == 8:
		return offtArith(c.op, a, b), nil
	case c.kind == conduit.ReduceFloat && c.width == 4:
		return uint64(math.Float32bits(offtArith(c.op, math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))))), nil
	case c.kind == conduit.ReduceFloat && c.width == 8:
		return math.Float64bits(offtArith(c.op, math.Float64frombits(a), math.Float64frombits(b))), nil
	}
	return 0, fmt.Errorf("collective engine: kind %d width %d", c.kind, c.width)
}

func offtArith[T int32 | int64 | uint32 | uint64 | float32 | float64](op conduit.ReduceOp, a, b T) T {
	switch op {
	case conduit.ReduceSum:
		return a + b
	case conduit.ReduceMin:
		return min(a, b)
	case conduit.ReduceMax:
		return max(a, b)
	}
	panic(fmt.Sprintf("offtArith: op %d", op))
}

// offtConfig is a job on the engine backend.
func offtConfig(n int, direct pgas.Switch) pgas.Config {
	return pgas.Config{Conduit: offtBackend, PEs: n, SegmentBytes: pgas.MinSegmentBytes, Direct: direct, Seed: offtSeeds.Add(1)}
}

// offtExpect checks the change of a PE's counters across f.
func offtExpect(eng *offtEngine, pe *pgas.PE, what string, barriers, allreduces, unsupported int, f func() error) error {
	before := eng.countsOf(pe.Rank())
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	after := eng.countsOf(pe.Rank())
	if pe.Size() == 1 {
		// One PE never offloads.
		barriers, allreduces, unsupported = 0, 0, 0
	}
	if d := after.Barriers - before.Barriers; d != barriers {
		return fmt.Errorf("%s: PE %d started %d offloaded barriers, want %d", what, pe.Rank(), d, barriers)
	}
	if d := after.Allreduces - before.Allreduces; d != allreduces {
		return fmt.Errorf("%s: PE %d started %d offloaded allreduces, want %d", what, pe.Rank(), d, allreduces)
	}
	if d := after.Unsupported - before.Unsupported; d != unsupported {
		return fmt.Errorf("%s: PE %d had %d allreduces refused, want %d", what, pe.Rank(), d, unsupported)
	}
	return nil
}

// offtAllreduce runs a one-element Allreduce of v (this PE's value) and
// compares it with want; it expects the engine to see kind and width, or
// (width 0) not to be used at all.
func offtAllreduce[T pgas.Number](eng *offtEngine, pe *pgas.PE, what string, op pgas.ReduceOp, v, want T, kind conduit.ReduceKind, width int) error {
	allreduces, unsupported := 0, 0
	switch {
	case width == 0:
	case op == pgas.Prod:
		unsupported = 2
	default:
		allreduces = 2
	}
	in, out := []T{v}, []T{0}
	err := offtExpect(eng, pe, what, 0, allreduces, unsupported, func() error {
		if err := pgas.Allreduce(pe.World(), op, in, out); err != nil {
			return err
		}
		if out[0] != want || in[0] != v {
			return fmt.Errorf("Allreduce %v: in %v out %v, want in %v out %v", op, in[0], out[0], v, want)
		}
		// In place.
		if err := pgas.Allreduce(pe.World(), op, in, in); err != nil {
			return err
		}
		if in[0] != want {
			return fmt.Errorf("in-place Allreduce %v: %v, want %v", op, in[0], want)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if allreduces > 0 && pe.Size() > 1 {
		if got := eng.countsOf(pe.Rank()).Last; got != (offtCall{op: offtOp(op), kind: kind, width: width}) {
			return fmt.Errorf("%s: the engine saw %+v, want op %v kind %d width %d", what, got, op, kind, width)
		}
	}
	return nil
}

func offtOp(op pgas.ReduceOp) conduit.ReduceOp {
	return map[pgas.ReduceOp]conduit.ReduceOp{pgas.Sum: conduit.ReduceSum, pgas.Prod: conduit.ReduceProd, pgas.Min: conduit.ReduceMin,
		pgas.Max: conduit.ReduceMax, pgas.And: conduit.ReduceAnd, pgas.Or: conduit.ReduceOr, pgas.Xor: conduit.ReduceXor}[op]
}

// offtFold computes the serial reduction of f(r) over n PEs.
func offtFold[T pgas.Number](n int, f func(r int) T, op func(a, b T) T) T {
	acc := f(0)
	for r := 1; r < n; r++ {
		acc = op(acc, f(r))
	}
	return acc
}

// TestOffloadUsed checks which calls the runtime hands to the engine and
// that the results are exact, for 1 to 6 PEs.
func TestOffloadUsed(t *testing.T) {
	for _, direct := range []pgas.Switch{pgas.On, pgas.Off} {
		for n := 1; n <= 6; n++ {
			t.Run(fmt.Sprintf("direct=%v/PEs=%d", direct == pgas.On, n), func(t *testing.T) {
				err := pgas.Run(offtConfig(n, direct), func(pe *pgas.PE) error {
					eng := offtEngineOf(pe)
					me := pe.Rank()
					if pe.Conduit() != offtBackend {
						return fmt.Errorf("conduit %q", pe.Conduit())
					}
					// Whole barriers and split-phase ones over the world.
					if err := offtExpect(eng, pe, "Barrier", 1, 0, 0, pe.Barrier); err != nil {
						return err
					}
					if err := offtExpect(eng, pe, "world Barrier", 3, 0, 0, func() error {
						for range 3 {
							if err := pe.World().Barrier(); err != nil {
								return err
							}
						}
						return nil
					}); err != nil {
						return err
					}
					sum := func(a, b int64) int64 { return a + b }
					steps := []func() error{
						func() error {
							return offtAllreduce(eng, pe, "int64 sum", pgas.Sum, int64(me+1), int64(n*(n+1)/2), conduit.ReduceInt, 8)
						},
						func() error {
							f := func(r int) int64 { return int64(r*r) - 1<<40 }
							return offtAllreduce(eng, pe, "int64 min", pgas.Min, f(me), offtFold(n, f, func(a, b int64) int64 { return min(a, b) }), conduit.ReduceInt, 8)
						},
						func() error {
							f := func(r int) int64 { return -int64(r+3) * 7 }
							return offtAllreduce(eng, pe, "int64 max negative", pgas.Max, f(me), offtFold(n, f, func(a, b int64) int64 { return max(a, b) }), conduit.ReduceInt, 8)
						},
						func() error {
							f := func(r int) int32 { return int32(r%3) - 2 }
							return offtAllreduce(eng, pe, "int32 min negative", pgas.Min, f(me), offtFold(n, f, func(a, b int32) int32 { return min(a, b) }), conduit.ReduceInt, 4)
						},
						func() error {
							f := func(r int) int32 { return -int32(r) - 5 }
							return offtAllreduce(eng, pe, "int32 sum negative", pgas.Sum, f(me), offtFold(n, f, func(a, b int32) int32 { return a + b }), conduit.ReduceInt, 4)
						},
						func() error {
							f := func(r int) uint32 { return 1<<31 + uint32(r*5%7) }
							return offtAllreduce(eng, pe, "uint32 max", pgas.Max, f(me), offtFold(n, f, func(a, b uint32) uint32 { return max(a, b) }), conduit.ReduceUint, 4)
						},
						func() error {
							f := func(r int) uint32 { return uint32(r+1) << 29 } // wraps
							return offtAllreduce(eng, pe, "uint32 sum", pgas.Sum, f(me), offtFold(n, f, func(a, b uint32) uint32 { return a + b }), conduit.ReduceUint, 4)
						},
						func() error {
							f := func(r int) uint64 { return uint64(r) | uint64(r%2)<<63 }
							return offtAllreduce(eng, pe, "uint64 min", pgas.Min, f(me), offtFold(n, f, func(a, b uint64) uint64 { return min(a, b) }), conduit.ReduceUint, 8)
						},
						func() error {
							f := func(r int) float64 { return float64(r+1) * 0.5 }
							return offtAllreduce(eng, pe, "float64 sum", pgas.Sum, f(me), offtFold(n, f, func(a, b float64) float64 { return a + b }), conduit.ReduceFloat, 8)
						},
						func() error {
							f := func(r int) float64 { return -float64(r) - 0.25 }
							return offtAllreduce(eng, pe, "float64 min", pgas.Min, f(me), offtFold(n, f, func(a, b float64) float64 { return min(a, b) }), conduit.ReduceFloat, 8)
						},
						func() error {
							f := func(r int) float32 { return -float32(r*r) - 1.5 }
							return offtAllreduce(eng, pe, "float32 max", pgas.Max, f(me), offtFold(n, f, func(a, b float32) float32 { return max(a, b) }), conduit.ReduceFloat, 4)
						},
						func() error {
							f := func(r int) int64 { return ^int64(1 << r) }
							return offtAllreduce(eng, pe, "int64 and", pgas.And, f(me), offtFold(n, f, func(a, b int64) int64 { return a & b }), conduit.ReduceInt, 8)
						},
						func() error {
							f := func(r int) uint32 { return 1 << (31 - r) }
							return offtAllreduce(eng, pe, "uint32 or", pgas.Or, f(me), offtFold(n, f, func(a, b uint32) uint32 { return a | b }), conduit.ReduceUint, 4)
						},
						func() error {
							f := func(r int) int32 { return int32(-1 - r*0x01010101) }
							return offtAllreduce(eng, pe, "int32 xor", pgas.Xor, f(me), offtFold(n, f, func(a, b int32) int32 { return a ^ b }), conduit.ReduceInt, 4)
						},
						// Prod is refused by the engine: software computes it.
						func() error {
							f := func(r int) int64 { return -int64(r + 2) }
							return offtAllreduce(eng, pe, "int64 prod", pgas.Prod, f(me), offtFold(n, f, func(a, b int64) int64 { return a * b }), conduit.ReduceInt, 8)
						},
						func() error {
							f := func(r int) float64 { return []float64{0.5, -2, 4, 0.25}[r%4] }
							return offtAllreduce(eng, pe, "float64 prod", pgas.Prod, f(me), offtFold(n, f, func(a, b float64) float64 { return a * b }), conduit.ReduceFloat, 8)
						},
						func() error {
							f := func(r int) uint32 { return uint32(r + 1) }
							return offtAllreduce(eng, pe, "uint32 prod", pgas.Prod, f(me), offtFold(n, f, func(a, b uint32) uint32 { return a * b }), conduit.ReduceUint, 4)
						},
						// Widths the engine does not take never reach it.
						func() error {
							f := func(r int) int8 { return int8(r) - 3 }
							return offtAllreduce(eng, pe, "int8 sum", pgas.Sum, f(me), offtFold(n, f, func(a, b int8) int8 { return a + b }), 0, 0)
						},
						func() error {
							f := func(r int) uint16 { return uint16(r) * 1000 }
							return offtAllreduce(eng, pe, "uint16 max", pgas.Max, f(me), offtFold(n, f, func(a, b uint16) uint16 { return max(a, b) }), 0, 0)
						},
						// More than one element: software.
						func() error {
							in := []int64{int64(me), 1, -int64(me)}
							out := make([]int64, 3)
							return offtExpect(eng, pe, "3-element Allreduce", 0, 0, 0, func() error {
								if err := pgas.Allreduce(pe.World(), pgas.Sum, in, out); err != nil {
									return err
								}
								s := offtFold(n, func(r int) int64 { return int64(r) }, sum)
								if out[0] != s || out[1] != int64(n) || out[2] != -s {
									return fmt.Errorf("3-element sum %v", out)
								}
								return nil
							})
						},
						func() error {
							// Zero elements: software, trivially.
							return offtExpect(eng, pe, "empty Allreduce", 0, 0, 0, func() error {
								return pgas.Allreduce(pe.World(), pgas.Sum, []float64{}, []float64{})
							})
						},
						// Other collectives never use the engine.
						func() error {
							return offtExpect(eng, pe, "Reduce, Broadcast", 0, 0, 0, func() error {
								out := []int64{0}
								if err := pgas.Reduce(pe.World(), n-1, pgas.Sum, []int64{int64(me)}, out); err != nil {
									return err
								}
								b := []int64{out[0]}
								if err := pgas.Broadcast(pe.World(), n-1, b); err != nil {
									return err
								}
								if b[0] != int64(n*(n-1)/2) {
									return fmt.Errorf("Reduce then Broadcast: %d", b[0])
								}
								return nil
							})
						},
					}
					for _, s := range steps {
						if err := s(); err != nil {
							return err
						}
					}
					// Sub-teams: Split itself ends with a world barrier; the
					// sub-team's barriers and allreduces stay in software.
					var sub *pgas.Team
					if err := offtExpect(eng, pe, "Split", 1, 0, 0, func() (err error) {
						sub, err = pe.World().Split(me%2, me)
						return err
					}); err != nil {
						return err
					}
					if err := offtExpect(eng, pe, "sub-team barrier and allreduce", 0, 0, 0, func() error {
						for range 3 {
							if err := sub.Barrier(); err != nil {
								return err
							}
						}
						v := []int64{int64(me)}
						if err := pgas.Allreduce(sub, pgas.Sum, v, v); err != nil {
							return err
						}
						want := int64(0)
						for r := range sub.Size() {
							want += int64(sub.GlobalRank(r))
						}
						if v[0] != want {
							return fmt.Errorf("sub-team sum %d, want %d", v[0], want)
						}
						return nil
					}); err != nil {
						return err
					}
					// A team with every PE is still not the world.
					all, err := pe.World().Split(0, -me)
					if err != nil {
						return err
					}
					if err := offtExpect(eng, pe, "all-PE team", 0, 0, 0, func() error {
						if err := all.Barrier(); err != nil {
							return err
						}
						v := []int64{1}
						if err := pgas.Allreduce(all, pgas.Sum, v, v); err != nil {
							return err
						}
						if v[0] != int64(n) {
							return fmt.Errorf("all-PE team count %d", v[0])
						}
						return nil
					}); err != nil {
						return err
					}
					if err := all.Destroy(); err != nil {
						return err
					}
					if err := sub.Destroy(); err != nil {
						return err
					}
					if m := eng.mismatches(); m != 0 {
						return fmt.Errorf("the engine saw %d mismatched calls", m)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestOffloadBarrierSynchronises checks that offloaded barriers, whole and
// split phase, hold every PE until all have arrived, with PEs arriving in
// varying orders, interleaved with offloaded and software allreduces.
func TestOffloadBarrierSynchronises(t *testing.T) {
	for _, n := range []int{2, 3, 6} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(offtConfig(n, pgas.On), func(pe *pgas.PE) error {
				eng := offtEngineOf(pe)
				me := pe.Rank()
				flags, err := pgas.NewArray[int64](pe, 1)
				if err != nil {
					return err
				}
				check := func(what string, lo int64) error {
					for r := range n {
						v, err := pgas.AtomicLoad(pe, flags.At(r, 0))
						if err != nil {
							return err
						}
						if v < lo || v > lo+1 {
							return fmt.Errorf("%s: PE %d left the barrier when PE %d's flag was %d, want %d or %d", what, me, r, v, lo, lo+1)
						}
					}
					return nil
				}
				const iters = 300
				before := eng.countsOf(me)
				for i := range iters {
					stamp := int64(i + 1)
					if err := pgas.AtomicStore(pe, flags.At(me, 0), stamp); err != nil {
						return err
					}
					teamtBusy(i, me, 9)
					if i%2 == 0 {
						if err := pe.Barrier(); err != nil {
							return err
						}
					} else {
						if err := pe.World().BarrierNotify(); err != nil {
							return err
						}
						teamtBusy(i, me, 10)
						if err := pe.World().BarrierWait(); err != nil {
							return err
						}
					}
					if err := check(fmt.Sprint("barrier ", i), stamp); err != nil {
						return err
					}
					if i%5 == 0 {
						v := []uint64{uint64(i * me)}
						if err := pgas.Allreduce(pe.World(), pgas.Max, v, v); err != nil {
							return err
						}
						if v[0] != uint64(i*(n-1)) {
							return fmt.Errorf("iteration %d: max %d", i, v[0])
						}
					}
					if i%7 == 0 {
						v := []int32{int32(me + i), 1}
						if err := pgas.Allreduce(pe.World(), pgas.Sum, v, v); err != nil {
							return err
						}
						if v[0] != int32(n*(n-1)/2+n*i) || v[1] != int32(n) {
							return fmt.Errorf("iteration %d: sums %v", i, v)
						}
					}
				}
				after := eng.countsOf(me)
				if d := after.Barriers - before.Barriers; d != iters {
					return fmt.Errorf("%d offloaded barriers, want %d", d, iters)
				}
				if d := after.Allreduces - before.Allreduces; d != (iters+4)/5 {
					return fmt.Errorf("%d offloaded allreduces, want %d", d, (iters+4)/5)
				}
				if m := eng.mismatches(); m != 0 {
					return fmt.Errorf("the engine saw %d mismatched calls", m)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOffloadCollectivesAndLock runs the rest of the runtime over the
// engine backend: allocation (whose agreement is a 4-element allreduce),
// collectives of every kind, and a lock.
func TestOffloadCollectivesAndLock(t *testing.T) {
	for _, direct := range []pgas.Switch{pgas.On, pgas.Off} {
		t.Run(fmt.Sprintf("direct=%v", direct == pgas.On), func(t *testing.T) {
			const n = 4
			err := pgas.Run(offtConfig(n, direct), func(pe *pgas.PE) error {
				eng := offtEngineOf(pe)
				me := pe.Rank()
				if err := colltAllTypes(pe.World(), []int{1, 3}, false, "ce world"); err != nil {
					return err
				}
				l, err := pgas.NewLock(pe)
				if err != nil {
					return err
				}
				ctr, err := pgas.NewArray[int64](pe, 1)
				if err != nil {
					return err
				}
				for range 50 {
					if err := l.Lock(); err != nil {
						return err
					}
					v, err := ctr.GetValue(0, 0)
					if err != nil {
						return err
					}
					if err := ctr.PutValue(0, 0, v+1); err != nil {
						return err
					}
					if err := l.Unlock(); err != nil {
						return err
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				v, err := ctr.GetValue(0, 0)
				if err != nil {
					return err
				}
				if v != n*50 {
					return fmt.Errorf("counter %d, want %d", v, n*50)
				}
				if m := eng.mismatches(); m != 0 {
					return fmt.Errorf("the engine saw %d mismatched calls", m)
				}
				if c := eng.countsOf(me); c.Barriers == 0 || c.Allreduces == 0 || c.Unsupported == 0 {
					return fmt.Errorf("engine counts %+v: expected all kinds of calls", c)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOffloadEngineErrors checks that an error of the engine reaches the
// caller, and that a failed BarrierNotify leaves the barrier usable.
func TestOffloadEngineErrors(t *testing.T) {
	const n = 3
	err := pgas.Run(offtConfig(n, pgas.On), func(pe *pgas.PE) error {
		eng := offtEngineOf(pe)
		me := pe.Rank()
		// Force the next barrier to be refused on every PE, the same way.
		if err := pe.Barrier(); err != nil {
			return err
		}
		eng.mu.Lock()
		eng.failBarriers(me)
		eng.mu.Unlock()
		err := pe.Barrier()
		if !errors.Is(err, errOfftRefused) {
			return fmt.Errorf("refused barrier: %v, want %v", err, errOfftRefused)
		}
		var perr *pgas.Error
		if !errors.As(err, &perr) || perr.PE != me {
			return fmt.Errorf("refused barrier: %v is not a *pgas.Error of PE %d", err, me)
		}
		// The refusal left no barrier half-begun.
		if err := pe.World().BarrierWait(); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("BarrierWait after a refused BarrierNotify: %v, want ErrArgument", err)
		}
		return pe.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
}

var errOfftRefused = errors.New("collective engine: barrier refused (test)")

// failBarriers makes PE rank's next barrier call fail; e.mu is held.
func (e *offtEngine) failBarriers(rank int) {
	if e.refuse == nil {
		e.refuse = make([]bool, e.size)
	}
	e.refuse[rank] = true
}
