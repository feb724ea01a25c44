package aries_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/pgas"
)

// Tests of the collective engine (ce.go) through the runtime, which
// offloads the world team's barriers and one-element allreduces
// (pgas/offload.go), and A-CE.

// ceConfig is a job of pes PEs, perNode to a node, with the collective
// engine on or off (the ce option).
func ceConfig(pes, perNode int, ce bool) pgas.Config {
	return pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: perNode, SegmentBytes: pgas.MinSegmentBytes,
		Options: map[string]string{"ce": fmt.Sprint(ce)}}
}

// ceReduce runs an Allreduce of op over f(rank) and compares it with the
// serial fold of f with comb.
func ceReduce[T pgas.Number](pe *pgas.PE, name string, op pgas.ReduceOp, f func(r int) T, comb func(a, b T) T) error {
	want := f(0)
	for r := 1; r < pe.Size(); r++ {
		want = comb(want, f(r))
	}
	v := []T{f(pe.Rank())}
	if err := pgas.Allreduce(pe.World(), op, v, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if v[0] != want {
		return fmt.Errorf("%s: PE %d: %v, want %v", name, pe.Rank(), v[0], want)
	}
	return nil
}

// ceReduceAll checks every operation and type the engine takes, and
// products, which it does not (software computes them), on pe's job.
func ceReduceAll(pe *pgas.PE) error {
	sum64 := func(a, b int64) int64 { return a + b }
	steps := []error{
		ceReduce(pe, "int64 sum", pgas.Sum, func(r int) int64 { return int64(r*r) - 1<<40 }, sum64),
		ceReduce(pe, "int64 min", pgas.Min, func(r int) int64 { return int64((r*37)%23) - 11 }, func(a, b int64) int64 { return min(a, b) }),
		ceReduce(pe, "int64 max", pgas.Max, func(r int) int64 { return -int64(r+3) * 7 }, func(a, b int64) int64 { return max(a, b) }),
		ceReduce(pe, "int64 and", pgas.And, func(r int) int64 { return ^int64(1 << (r % 63)) }, func(a, b int64) int64 { return a & b }),
		ceReduce(pe, "int64 or", pgas.Or, func(r int) int64 { return int64(1) << (r % 64) }, func(a, b int64) int64 { return a | b }),
		ceReduce(pe, "int64 xor", pgas.Xor, func(r int) int64 { return int64(r) * 0x0101010101 }, func(a, b int64) int64 { return a ^ b }),
		ceReduce(pe, "int sum", pgas.Sum, func(r int) int { return -r }, func(a, b int) int { return a + b }),
		ceReduce(pe, "int32 sum wraps", pgas.Sum, func(r int) int32 { return math.MaxInt32 - int32(r) }, func(a, b int32) int32 { return a + b }),
		ceReduce(pe, "int32 min", pgas.Min, func(r int) int32 { return int32(r%5) - 2 }, func(a, b int32) int32 { return min(a, b) }),
		ceReduce(pe, "int32 max", pgas.Max, func(r int) int32 { return -int32(r) - 5 }, func(a, b int32) int32 { return max(a, b) }),
		ceReduce(pe, "int32 xor", pgas.Xor, func(r int) int32 { return int32(-1 - r*0x01010101) }, func(a, b int32) int32 { return a ^ b }),
		ceReduce(pe, "uint64 sum", pgas.Sum, func(r int) uint64 { return math.MaxUint64 - uint64(r) }, func(a, b uint64) uint64 { return a + b }),
		ceReduce(pe, "uint64 min", pgas.Min, func(r int) uint64 { return uint64(r+1) | uint64(r%2)<<63 }, func(a, b uint64) uint64 { return min(a, b) }),
		ceReduce(pe, "uint64 max", pgas.Max, func(r int) uint64 { return uint64(r%7) << 61 }, func(a, b uint64) uint64 { return max(a, b) }),
		ceReduce(pe, "uint64 or", pgas.Or, func(r int) uint64 { return 1 << (63 - r%64) }, func(a, b uint64) uint64 { return a | b }),
		ceReduce(pe, "uint32 sum", pgas.Sum, func(r int) uint32 { return uint32(r+1) << 29 }, func(a, b uint32) uint32 { return a + b }),
		ceReduce(pe, "uint32 max", pgas.Max, func(r int) uint32 { return 1<<31 + uint32(r*5%7) }, func(a, b uint32) uint32 { return max(a, b) }),
		ceReduce(pe, "uint32 min", pgas.Min, func(r int) uint32 { return 1<<31 + uint32(r*5%7) }, func(a, b uint32) uint32 { return min(a, b) }),
		ceReduce(pe, "uint32 and", pgas.And, func(r int) uint32 { return ^uint32(1 << (r % 32)) }, func(a, b uint32) uint32 { return a & b }),
		ceReduce(pe, "uint32 xor", pgas.Xor, func(r int) uint32 { return uint32(r) * 0x9e3779b9 }, func(a, b uint32) uint32 { return a ^ b }),
		// Sums of quarters are exact in any order.
		ceReduce(pe, "float64 sum", pgas.Sum, func(r int) float64 { return float64(r%9)*0.25 - 1 }, func(a, b float64) float64 { return a + b }),
		ceReduce(pe, "float64 min", pgas.Min, func(r int) float64 { return -float64(r%13) - 0.5 }, func(a, b float64) float64 { return min(a, b) }),
		ceReduce(pe, "float64 max", pgas.Max, func(r int) float64 { return math.Ldexp(float64(r), -r%5) }, func(a, b float64) float64 { return max(a, b) }),
		ceReduce(pe, "float32 sum", pgas.Sum, func(r int) float32 { return float32(r%4) * 0.5 }, func(a, b float32) float32 { return a + b }),
		ceReduce(pe, "float32 min", pgas.Min, func(r int) float32 { return float32(r*r%17) - 1.5 }, func(a, b float32) float32 { return min(a, b) }),
		ceReduce(pe, "float32 max", pgas.Max, func(r int) float32 { return -float32(r*r) - 1.5 }, func(a, b float32) float32 { return max(a, b) }),
		// No product on the engine: software.
		ceReduce(pe, "int64 prod", pgas.Prod, func(r int) int64 { return []int64{1, -1, 2, 1, 1}[r%5] }, func(a, b int64) int64 { return a * b }),
		ceReduce(pe, "float64 prod", pgas.Prod, func(r int) float64 { return []float64{0.5, -2, 4, 0.25, 1, 1, 1}[r%7] }, func(a, b float64) float64 { return a * b }),
		ceReduce(pe, "uint32 prod", pgas.Prod, func(r int) uint32 { return uint32(r%3 + 1) }, func(a, b uint32) uint32 { return a * b }),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	return nil
}

// Every operation and type, on the engine and in software (ce=false), on
// jobs whose trees have one node, one level and two, and a last node with
// fewer PEs.
func TestOffloadAllreduce(t *testing.T) {
	for _, c := range []struct{ pes, perNode int }{{7, 7}, {20, 3}, {79, 2}} {
		for _, ce := range []bool{true, false} {
			t.Run(fmt.Sprintf("PEs=%d/perNode=%d/ce=%v", c.pes, c.perNode, ce), func(t *testing.T) {
				require.NoError(t, pgas.Run(ceConfig(c.pes, c.perNode, ce), ceReduceAll))
			})
		}
	}
}

// Offloaded barriers, whole and split phase, hold every PE until all have
// arrived, with PEs arriving in varying orders: no PE leaves a barrier
// before the last one's clock entered it, and every PE sees every other's
// flag stored before the barrier.
func TestOffloadBarrier(t *testing.T) {
	const pes, iters = 40, 12
	entered := make([][]conduit.Time, iters)
	for i := range entered {
		entered[i] = make([]conduit.Time, pes)
	}
	err := pgas.Run(ceConfig(pes, 4, true), func(pe *pgas.PE) error {
		me := pe.Rank()
		flags, err := pgas.NewArray[int64](pe, 1)
		if err != nil {
			return err
		}
		for i := range iters {
			stamp := int64(i + 1)
			if err := pgas.AtomicStore(pe, flags.At(me, 0), stamp); err != nil {
				return err
			}
			pe.Compute(time.Duration((me*7+i*13)%11) * 300 * time.Nanosecond)
			entered[i][me] = pe.Clock()
			if i%2 == 0 {
				if err := pe.Barrier(); err != nil {
					return err
				}
			} else {
				if err := pe.World().BarrierNotify(); err != nil {
					return err
				}
				pe.Compute(time.Duration(me%3) * time.Microsecond)
				if err := pe.World().BarrierWait(); err != nil {
					return err
				}
			}
			if last := slices.Max(entered[i]); pe.Clock() < last {
				return fmt.Errorf("barrier %d: PE %d left at %v, before the last PE entered at %v", i, me, pe.Clock(), last)
			}
			if i%4 == 0 {
				for r := range pes {
					v, err := pgas.AtomicLoad(pe, flags.At(r, 0))
					if err != nil {
						return err
					}
					if v < stamp || v > stamp+1 {
						return fmt.Errorf("barrier %d: PE %d saw PE %d's flag %d, want %d or %d", i, me, r, v, stamp, stamp+1)
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// ceRun runs a job of allreduces and barriers with skewed PEs and returns
// what each PE got and saw of the time, and the job's report.
func ceRun(t *testing.T, cfg pgas.Config) ([][]float64, pgas.Report) {
	var rep pgas.Report
	cfg.Report = &rep
	got := make([][]float64, cfg.PEs)
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		me := pe.Rank()
		for i := range 6 {
			pe.Compute(time.Duration((me*5+i)%7) * 100 * time.Nanosecond)
			v := []float64{1 / float64(me+i+1)} // inexact sums: the order shows
			if err := pgas.Allreduce(pe.World(), pgas.Sum, v, v); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			got[me] = append(got[me], v[0], float64(pe.Clock()))
		}
		return nil
	})
	require.NoError(t, err)
	return got, rep
}

// The same job gives the same results at the same times, and the same
// report; every PE gets the same bits.
func TestOffloadDeterministic(t *testing.T) {
	cfg := ceConfig(90, 4, true)
	a, ra := ceRun(t, cfg)
	b, rb := ceRun(t, cfg)
	assert.Equal(t, a, b)
	assert.Equal(t, ra, rb)
	for r := range a {
		for i := 0; i < len(a[r]); i += 2 {
			require.Equal(t, a[0][i], a[r][i], "PE %d, allreduce %d", r, i/2)
		}
	}
}

// ceMeasure runs a warm-up barrier and then iters allreduces of a float64
// sum on a job of nodes nodes of perNode PEs and returns the median over
// the allreduces of the slowest PE's time, and PE 0's.
func ceMeasure(t *testing.T, nodes, perNode int, ce bool, iters int) (slowest, pe0 conduit.Time) {
	pes := nodes * perNode
	took := make([][]conduit.Time, iters)
	for i := range took {
		took[i] = make([]conduit.Time, pes)
	}
	err := pgas.Run(ceConfig(pes, perNode, ce), func(pe *pgas.PE) error {
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i := range iters {
			start := pe.Clock()
			v := []float64{float64(pe.Rank())}
			if err := pgas.Allreduce(pe.World(), pgas.Sum, v, v); err != nil {
				return err
			}
			took[i][pe.Rank()] = pe.Clock() - start
			if want := float64(pes) * float64(pes-1) / 2; v[0] != want {
				return fmt.Errorf("allreduce %d: PE %d: %v, want %v", i, pe.Rank(), v[0], want)
			}
		}
		return nil
	})
	require.NoError(t, err)
	worst := make([]conduit.Time, iters)
	first := make([]conduit.Time, iters)
	for i := range took {
		worst[i], first[i] = slices.Max(took[i]), took[i][0]
	}
	slices.Sort(worst)
	slices.Sort(first)
	return worst[iters/2], first[iters/2]
}

// ceACE checks A-CE on nodes nodes of 16 PEs (750 in the row: 12,000
// processes): an offloaded allreduce of a float64 sum takes less than 10
// us, and the software allreduce (ce=false) takes longer.
func ceACE(t *testing.T, nodes int) {
	start := time.Now()
	slowest, pe0 := ceMeasure(t, nodes, 16, true, 5)
	wall := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("A-CE: %d nodes x 16 PEs: offloaded allreduce median %v (slowest PE), %v (PE 0); published < 10 us; wall %v, heap in use %d MB, sys %d MB",
		nodes, slowest, pe0, wall.Round(time.Millisecond), ms.HeapInuse>>20, ms.Sys>>20)
	assert.Less(t, slowest, 10*conduit.Microsecond, "A-CE")
	start = time.Now()
	sw, sw0 := ceMeasure(t, nodes, 16, false, 5)
	t.Logf("A-CE: %d nodes x 16 PEs: software allreduce (ce=false) median %v (slowest PE), %v (PE 0); wall %v",
		nodes, sw, sw0, time.Since(start).Round(time.Millisecond))
	assert.Greater(t, sw, 2*slowest, "the engine is faster than software")
}

// A-CE at a smaller scale, always: 64 nodes of 16 PEs.
func TestOffloadACESmall(t *testing.T) { ceACE(t, 64) }

// A-CE's software comparison at full scale (the row itself is
// TestCalibrationCollectiveEngine): 12,000 PEs reducing in software take
// about half a minute.
func TestOffloadACESoftware(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("12,000 PEs in software: not with -short or -race")
	}
	ceACE(t, 750)
}

// MINLOC and MAXLOC: AllreduceLoc of one element goes to the engine
// ("min/max with location", Reductions and Barriers) and gives what the
// software reduction gives (ce=false), ties to the smallest location;
// several elements reduce in software.
func TestOffloadAllreduceLoc(t *testing.T) {
	type result struct {
		one  [2]pgas.Loc[float64]
		many []pgas.Loc[int32]
		ce   int64
	}
	run := func(ce bool) result {
		var rep pgas.Report
		cfg := ceConfig(48, 4, ce)
		cfg.Report = &rep
		var res result
		err := pgas.Run(cfg, func(pe *pgas.PE) error {
			me := pe.Rank()
			var got [2]pgas.Loc[float64]
			for k, op := range []pgas.ReduceOp{pgas.Min, pgas.Max} {
				// Values 0..4, each taken by several PEs; locations
				// unrelated to the ranks.
				v := []pgas.Loc[float64]{{Value: float64((me * 7) % 5), Loc: int64((me*13)%48 + 100)}}
				if err := pgas.AllreduceLoc(pe.World(), op, v, v); err != nil {
					return err
				}
				got[k] = v[0]
			}
			many := []pgas.Loc[int32]{{Value: int32(me % 3), Loc: int64(me)}, {Value: int32(-me), Loc: int64(me)}}
			if err := pgas.AllreduceLoc(pe.World(), pgas.Max, many, many); err != nil {
				return err
			}
			if me == 0 {
				res.one, res.many = got, many
			}
			return nil
		})
		require.NoError(t, err)
		res.ce = rep.Counters["ce_collectives"]
		return res
	}
	on, off := run(true), run(false)
	// The job's own collectives (start and exit) use the engine as well.
	var rep pgas.Report
	cfg := ceConfig(48, 4, true)
	cfg.Report = &rep
	require.NoError(t, pgas.Run(cfg, func(*pgas.PE) error { return nil }))
	// Min 0: PEs 0, 5, 10, ..., locations (13r mod 48) + 100, least 100 (r=0).
	// Max 4: PEs with 7r mod 5 = 4, i.e. r = 2, 7, 12, ...: least location
	// 13r mod 48 over them.
	minLoc, maxLoc := int64(-1), int64(-1)
	for r := range 48 {
		loc := int64((r*13)%48 + 100)
		if (r*7)%5 == 0 && (minLoc < 0 || loc < minLoc) {
			minLoc = loc
		}
		if (r*7)%5 == 4 && (maxLoc < 0 || loc < maxLoc) {
			maxLoc = loc
		}
	}
	want := [2]pgas.Loc[float64]{{Value: 0, Loc: minLoc}, {Value: 4, Loc: maxLoc}}
	assert.Equal(t, want, on.one, "offloaded")
	assert.Equal(t, want, off.one, "software")
	assert.Equal(t, []pgas.Loc[int32]{{Value: 2, Loc: 2}, {Value: 0, Loc: 0}}, on.many)
	assert.Equal(t, on.many, off.many)
	assert.Equal(t, rep.Counters["ce_collectives"]+2, on.ce, "the engine reduced the two single pairs")
	assert.Zero(t, off.ce)
}
