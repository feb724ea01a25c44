package pgas_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/internal/segmem"
	"github.com/gopgas/gopgas/pgas"
)

// heldBytes is the memory the Go runtime holds for live objects and
// goroutine stacks, after a collection.
func heldBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// TestPlanMemory: a job's estimate (Config.Plan) covers what the job
// really holds once every PE has taken part in communication, and is not
// wildly above it, on each backend with a plan.
func TestPlanMemory(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes what allocations cost")
	}
	if !segmem.Lazy() {
		t.Skip("segments are resident whole here; the estimate counts them so")
	}
	for _, c := range []struct {
		conduit  string
		pes, ppn int
	}{{"gemini", 512, 1}, {"gemini", 1024, 16}, {"aries", 512, 1}, {"aries", 1024, 16}, {"smp", 256, 0}, {"smp", 2048, 0}} {
		cfg := pgas.Config{Conduit: c.conduit, PEs: c.pes, PEsPerNode: c.ppn, SegmentBytes: 1 << 20}
		plan, err := cfg.Plan()
		require.NoError(t, err)
		before := heldBytes()
		var during int64
		err = pgas.Run(cfg, func(pe *pgas.PE) error {
			a, err := pgas.NewArray[int64](pe, 8)
			if err != nil {
				return err
			}
			if err := a.Put((pe.Rank()+1)%pe.Size(), 0, []int64{1}); err != nil {
				return err
			}
			sum := []int64{1}
			if err := pgas.Allreduce(pe.World(), pgas.Sum, sum, sum); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				during = heldBytes()
			}
			return pe.Barrier()
		})
		require.NoError(t, err)
		// The pages of the segments the runtime touched are resident but
		// not Go's; the estimate counts two per PE.
		held := during - before + int64(c.pes)*2*4096
		t.Logf("%s %d PEs (%d per node): estimate %s; held %d (%d per PE)", c.conduit, c.pes, c.ppn, plan, held, held/int64(c.pes))
		assert.GreaterOrEqual(t, plan.TotalBytes, held, "%s: the estimate is below what the job holds", c.conduit)
		assert.LessOrEqual(t, plan.TotalBytes, 3*held, "%s: the estimate is more than 3 times what the job holds", c.conduit)
	}
}

// TestMemoryLimitRefuses: a job whose estimate exceeds the limit is refused
// before it starts, with one line naming the estimate and the limit.
func TestMemoryLimitRefuses(t *testing.T) {
	err := pgas.Run(pgas.Config{Conduit: "gemini", PEs: 70000, PEsPerNode: 1, SegmentBytes: 1 << 20, MemoryLimit: 1 << 30},
		func(pe *pgas.PE) error { t.Error("the program ran"); return nil })
	require.Error(t, err)
	msg := err.Error()
	assert.NotContains(t, msg, "\n")
	for _, want := range []string{"70000 PEs", "gemini", "needs an estimated", "memory limit of 1 GiB", "Config.MemoryLimit"} {
		assert.Contains(t, msg, want)
	}
	// The same through the variable, named as given.
	err = pgas.Run(pgas.Config{Conduit: "smp", PEs: 1 << 20, Env: func(k string) (string, bool) {
		if k == "PGAS_MEMORY_LIMIT" {
			return "2G", true
		}
		return "", false
	}}, func(pe *pgas.PE) error { t.Error("the program ran"); return nil })
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "PGAS_MEMORY_LIMIT=2G"), err.Error())
}

// TestPoolBytes: a two-sided job holds more than its plan unless the
// program adds the runtime's pools (pgas.PoolBytes) to ProgramBytes, and
// no more than the plan that does.
func TestPoolBytes(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes what allocations cost")
	}
	if !segmem.Lazy() {
		t.Skip("segments are resident whole here; the estimate counts them so")
	}
	const size = 4096
	cfg := pgas.Config{Conduit: "gemini", PEs: 96, PEsPerNode: 24, SegmentBytes: pgas.MinSegmentBytes, ProgramBytes: 2 * size}
	c, err := cfg.Resolve()
	require.NoError(t, err)
	pools := pgas.PoolBytes(c, true, true)
	assert.Equal(t, int64(0), pgas.PoolBytes(c, false, false))
	assert.Equal(t, 16*c.MsgEagerBuffer, pgas.PoolBytes(c, true, false))
	assert.Equal(t, c.BounceBytes/c.BounceRegisterCutover*c.BounceRegisterCutover, pgas.PoolBytes(c, false, true))

	bare, err := cfg.Plan()
	require.NoError(t, err)
	withPools := cfg
	withPools.ProgramBytes += pools
	full, err := withPools.Plan()
	require.NoError(t, err)

	before := heldBytes()
	var during int64
	err = pgas.Run(withPools, func(pe *pgas.PE) error {
		send, recv := make([]byte, size), make([]byte, size)
		partner := (pe.Rank() + pe.Size()/2) % pe.Size()
		rh, err := pe.Irecv(partner, 0, recv, nil)
		if err != nil {
			return err
		}
		if err := pe.Send(partner, 0, send); err != nil {
			return err
		}
		if err := rh.Wait(); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			during = heldBytes()
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	held := during - before
	t.Logf("held %d; plan without the pools %d, with them %d", held, bare.TotalBytes, full.TotalBytes)
	assert.Greater(t, held, bare.TotalBytes, "the pools are not what the plan misses")
	assert.LessOrEqual(t, held, full.TotalBytes, "the plan with the pools is below what the job holds")
	assert.LessOrEqual(t, full.TotalBytes, 3*held, "the plan with the pools is more than 3 times what the job holds")
}
