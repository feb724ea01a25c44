package bench_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

func TestSizes(t *testing.T) {
	assert.Equal(t, []int{0, 1, 2, 4, 8}, bench.Sizes(0, 8))
	assert.Equal(t, []int{1024, 2048, 4096}, bench.Sizes(1024, 5000))
	assert.Equal(t, []int{1}, bench.Sizes(1, 1))
	assert.Empty(t, bench.Sizes(16, 8))
}

func TestParseMechanism(t *testing.T) {
	for in, want := range map[string]bench.Mechanism{"auto": bench.Auto, "": bench.Auto, "FMA": bench.FMA, "bte": bench.BTE, "rdma": bench.BTE} {
		got, err := bench.ParseMechanism(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := bench.ParseMechanism("dma")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"dma"`)
}

func TestBadSetups(t *testing.T) {
	tiny := bench.Setup{Config: pgas.Config{Conduit: "smp"}, Iterations: 1, Warmup: 1}
	odd := tiny
	odd.Nodes, odd.PPN = 1, 3
	_, err := bench.OrderingBW(odd, []int{8}, bench.Get)
	require.ErrorIs(t, err, bench.ErrBadSetup)
	assert.Contains(t, err.Error(), "odd")

	one := tiny
	one.Nodes, one.PPN = 1, 1
	_, err = bench.PutBW(one, []int{8})
	require.ErrorIs(t, err, bench.ErrBadSetup)

	neg := tiny
	neg.Window = -1
	_, err = bench.GetBW(neg, []int{8})
	require.ErrorIs(t, err, bench.ErrBadSetup)

	_, err = bench.PutLatency(tiny, []int{-8})
	require.ErrorIs(t, err, bench.ErrBadSetup)

	_, err = bench.ManyToOne(tiny, 0)
	require.ErrorIs(t, err, bench.ErrBadSetup)

	_, _, err = bench.Atomics(tiny, "no such operation")
	require.ErrorIs(t, err, bench.ErrBadSetup)
	require.False(t, errors.Is(err, pgas.ErrArgument))
}

// Every benchmark runs on the real and the simulated backend and gives a
// positive figure for every size; on the simulated one it says so.
func TestBenchmarksRun(t *testing.T) {
	for _, conduit := range []string{"smp", "gemini"} {
		t.Run(conduit, func(t *testing.T) {
			s := bench.Setup{Config: pgas.Config{Conduit: conduit}, Iterations: 3, Warmup: 1, Window: 4, Percentiles: true}
			sizes := []int{8, 4096}
			check := func(r *bench.Result, err error, n int) {
				t.Helper()
				require.NoError(t, err)
				require.Len(t, r.Points, n, r.Benchmark)
				for _, p := range r.Points {
					assert.Positive(t, p.Value, "%s size %d", r.Benchmark, p.Size)
				}
				assert.Equal(t, conduit, r.Conduit)
				assert.Equal(t, conduit != "smp", r.Simulated)
				if r.Simulated {
					assert.Equal(t, "simulated time", r.TimeBase())
					assert.Positive(t, r.Report.Events)
				}
			}
			r, err := bench.Latency(s, []int{0, 8, 8192})
			check(r, err, 3)
			assert.Positive(t, r.Points[0].P50)
			r, err = bench.PutLatency(s, sizes)
			check(r, err, 2)
			r, err = bench.GetLatency(s, sizes)
			check(r, err, 2)
			r, err = bench.PutBW(s, sizes)
			check(r, err, 2)
			assert.Positive(t, r.Points[0].Rate)
			r, err = bench.GetBW(s, sizes)
			check(r, err, 2)
			r, err = bench.BiBW(s, sizes)
			check(r, err, 2)
			r, err = bench.AMBW(s, []int{8, 8192})
			check(r, err, 2)
			m := s
			m.PPN = 2
			r, err = bench.MBWMR(m, sizes)
			check(r, err, 2)
			o := s
			o.Nodes, o.PPN, o.Window = 2, 2, 0
			r, err = bench.OrderingBW(o, sizes, bench.Put)
			check(r, err, 2)
			assert.Equal(t, 1, r.Window, "the ordering benchmark's default window")
			rows, _, err := bench.Atomics(s, "add int64")
			require.NoError(t, err)
			require.Len(t, rows, 2) // add and fadd
			for _, row := range rows {
				assert.Positive(t, row.Rate, row.Name)
				assert.Positive(t, row.Latency, row.Name)
			}
			// The two-sided OSU benchmarks, with validation; 64 KiB
			// messages take the rendezvous protocol.
			v := s
			v.Validate = true
			two := []int{8, 64 << 10}
			for _, f := range []func(bench.Setup, []int) (*bench.Result, error){bench.MsgLatency, bench.MsgBW, bench.MsgBiBW} {
				r, err = f(v, two)
				check(r, err, 2)
				assert.True(t, r.Validated)
				for _, p := range r.Points {
					assert.Zero(t, p.Errors, "%s size %d", r.Benchmark, p.Size)
				}
			}
			assert.Positive(t, r.Points[0].P50, "bibw's percentiles")
			v.PPN = 2
			for _, f := range []func(bench.Setup, []int) (*bench.Result, error){bench.MsgMBWMR, bench.MsgMultiLat} {
				r, err = f(v, two)
				check(r, err, 2)
				for _, p := range r.Points {
					assert.Zero(t, p.Errors, "%s size %d", r.Benchmark, p.Size)
				}
			}
			for _, name := range []string{"fop_latency", "cas_latency", "acc_latency"} {
				r, err = bench.AtomicLatency(s, name)
				check(r, err, 1)
				assert.Equal(t, name, r.Benchmark)
			}
			mo := s
			mo.Nodes, mo.PPN = 2, 2
			mo.Full, mo.Validate, mo.Tail = true, true, []int{50, 95}
			r, err = bench.ManyToOne(mo, 16)
			check(r, err, 1)
			for _, c := range []bench.Collective{bench.Barrier, bench.Broadcast, bench.Allreduce, bench.Alltoall} {
				r, err = bench.Collectives(mo, c, []int{8, 64})
				n := 2
				if c == bench.Barrier {
					n = 1
				}
				check(r, err, n)
				assert.Equal(t, c != bench.Barrier, r.Validated, c.String())
				for _, p := range r.Points {
					assert.Zero(t, p.Errors, "%s size %d", c, p.Size)
					assert.LessOrEqual(t, p.Min, p.Value, c.String())
					assert.GreaterOrEqual(t, p.Max, p.Value, c.String())
					assert.Len(t, p.Tails, 2, c.String())
				}
			}
		})
	}
}

// On the simulated backend the figures follow the model: a bandwidth
// benchmark is deterministic, and more data moves in more time.
func TestSimulatedBenchmarksAreDeterministic(t *testing.T) {
	s := bench.Setup{Config: pgas.Config{Conduit: "gemini", Seed: 7}, Iterations: 3, Warmup: 1, Window: 8}
	a, err := bench.PutBW(s, []int{1024, 65536})
	require.NoError(t, err)
	b, err := bench.PutBW(s, []int{1024, 65536})
	require.NoError(t, err)
	assert.Equal(t, a.Points, b.Points)
	assert.Equal(t, a.Report, b.Report)
	assert.Greater(t, a.Points[1].Value, a.Points[0].Value, "64 KiB puts move more bytes per second than 1 KiB ones")
	// Two-sided too: the same figures again, and the rendezvous of 64 KiB
	// moves more bytes per second than 1 KiB eager messages.
	c, err := bench.MsgBW(s, []int{1024, 65536})
	require.NoError(t, err)
	d, err := bench.MsgBW(s, []int{1024, 65536})
	require.NoError(t, err)
	assert.Equal(t, c.Points, d.Points)
	assert.Greater(t, c.Points[1].Value, c.Points[0].Value)
	l, err := bench.MsgLatency(s, []int{8, 65536})
	require.NoError(t, err)
	assert.Greater(t, l.Points[1].Value, l.Points[0].Value, "a 64 KiB message takes longer than 8 bytes")
}

// Validation finds corrupted data: a receive buffer that the pattern does
// not fill fails.
func TestValidationCanFail(t *testing.T) {
	assert.True(t, bench.ValidPattern(bench.FillPattern(make([]byte, 64), 3), 3))
	assert.False(t, bench.ValidPattern(bench.FillPattern(make([]byte, 64), 3), 4))
	b := bench.FillPattern(make([]byte, 64), 3)
	b[17]++
	assert.False(t, bench.ValidPattern(b, 3))
}

// Only the PEs that exchange messages hold a two-sided benchmark's
// buffers: on a simulated network every PE lives in the one process, and
// osu_bw's window of 64 KiB messages is 8 MiB of buffers a PE, which 14 of
// these 16 PEs, without a partner, do not need.
func TestIdlePEsHaveNoBuffers(t *testing.T) {
	s := bench.Setup{Config: pgas.Config{Conduit: "gemini", Seed: 7}, Nodes: 16, PPN: 1, Window: 64, Iterations: 1, Warmup: 1}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := bench.MsgBW(s, []int{64 << 10})
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	const perPE = 2 * 64 * 64 << 10
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MiB; the buffers of every PE would be %d MiB", alloc>>20, 16*perPE>>20)
	assert.Less(t, alloc, uint64(6*perPE), "more than the two partners' buffers and the simulation's own")
}
