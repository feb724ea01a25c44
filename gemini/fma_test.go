package gemini_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/pgas"
)

// storeCrossing is how long one 64-byte FMA put store holds a core's
// write-combining buffer: the HT link carrying it with its overhead, and
// the link's latency.
func storeCrossing() time.Duration {
	ps := int64(64+gemini.HTOverheadBytes) * 1_000_000_000_000 / gemini.HTBytesPerSecond
	return time.Duration(ps)/1000 + time.Duration(gemini.HTLatency/1000)
}

// One core stores FMA puts through its write-combining buffers, each held
// until its store has crossed the HT link: one PE alone puts at
// FMAStoreBuffers x 64 bytes per crossing, below the HT's FMA peak, which
// two PEs of a node together reach.
func TestFMAPutRateOfOneCore(t *testing.T) {
	if race.Enabled {
		// One kernel, whose PEs take turns: 76 s under the race
		// detector for nothing it could find. CI's long stage runs it
		// without.
		t.Skip("a one-kernel simulation: run without the race detector")
	}
	want := float64(gemini.FMAStoreBuffers*64) / storeCrossing().Seconds() / 1e6 // MB/s
	s := bench.Setup{Config: gem(0, 0, pgas.OrderRelaxed, nil), Nodes: 2, PPN: 1, Mechanism: bench.FMA, Window: 4, Iterations: 2, Warmup: 1}
	r, err := bench.PutBW(s, []int{1 << 20})
	require.NoError(t, err)
	one := r.Points[0].Value
	assert.InEpsilon(t, want, one, 0.03, "one core's FMA put bandwidth")
	s.PPN = 2
	m, err := bench.MBWMR(s, []int{1 << 20})
	require.NoError(t, err)
	t.Logf("one core %.1f MB/s (want %.1f), two %.1f MB/s", one, want, m.Points[0].Value)
	assert.Greater(t, m.Points[0].Value, 1.3*one, "two cores of a node put more than one")
}

// The core is busy for the whole FMA transfer: a non-blocking FMA put
// returns only when its last store has left the core, while a block
// transfer's post returns at once.
func TestFMAStoresKeepTheCoreBusy(t *testing.T) {
	const size = 64 << 10
	elapsed := func(cutover int64) time.Duration {
		cfg := gem(2, 1, pgas.OrderRelaxed, nil)
		cfg.FMARDMACutover = cutover
		var took time.Duration
		err := pgas.Run(cfg, func(pe *pgas.PE) error {
			a, err := pgas.NewArray[byte](pe, size)
			if err != nil {
				return err
			}
			if pe.Rank() == 0 {
				src := a.Local()
				start := pe.Now()
				h, err := a.PutNB(1, 0, src)
				if err != nil {
					return err
				}
				took = pe.Now() - start
				if err := h.Wait(); err != nil {
					return err
				}
			}
			return pe.Barrier()
		})
		require.NoError(t, err)
		return took
	}
	stores := size / 64
	want := time.Duration(stores/gemini.FMAStoreBuffers) * storeCrossing()
	fma := elapsed(size)
	assert.GreaterOrEqual(t, fma, want*95/100, "an FMA put of %d bytes keeps the core %v", size, fma)
	assert.LessOrEqual(t, fma, want*110/100+2*time.Microsecond)
	bte := elapsed(4096)
	assert.Less(t, bte, 5*time.Microsecond, "a block transfer's post")
}

// Every PE of a node holds one of its NIC's FMA descriptors: a node runs
// as many PEs as the NIC has descriptors for user processes, each able to
// communicate, and a job asking for one more per node fails to start,
// naming the count and the limit.
func TestFMADescriptorsPerNode(t *testing.T) {
	cfg := func(ppn int) conduit.JobConfig {
		return conduit.JobConfig{PEs: 2 * ppn, PEsPerNode: ppn, SegmentBytes: 4096,
			Ordering: conduit.OrderRelaxed, MailboxSlots: 1, PeerBurst: 1}
	}
	job, err := conduit.Open(gemini.Name, cfg(gemini.FMADescriptors))
	require.NoError(t, err)
	var done atomic.Int32
	err = job.Run(func(ep conduit.Endpoint) error {
		// Each PE gets 8 bytes from its partner on the other node by FMA.
		peer := (ep.Rank() + gemini.FMADescriptors) % (2 * gemini.FMADescriptors)
		seg, own := ep.Segment(), ep.SegmentHandle(ep.Rank())
		d := &conduit.PostDesc{Type: conduit.Get, Mech: conduit.FMA, Target: peer, Local: seg[:8], LocalMem: own,
			Remote: ep.SegmentHandle(peer)}
		if err := ep.Post(d); err != nil {
			return err
		}
		var evs [1]conduit.Event
		return ep.WaitFor("the get", waiter(func() (bool, error) {
			if ep.PollLocalCQ(evs[:]) == 0 {
				return false, nil
			}
			done.Add(1)
			return true, evs[0].Err()
		}))
	})
	require.NoError(t, err)
	assert.Equal(t, int32(2*gemini.FMADescriptors), done.Load(), "every PE's get completed")

	over := cfg(gemini.FMADescriptors + 1)
	_, err = conduit.PlanJob(gemini.Name, over)
	assert.ErrorContains(t, err, "gemini: 65 PEs per node: a NIC has 64 FMA descriptors")
	_, err = conduit.Open(gemini.Name, over)
	assert.ErrorContains(t, err, "gemini: 65 PEs per node: a NIC has 64 FMA descriptors")
}
