package fabric_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// ringCQName is the ring with Params.CQBehindData set.
const ringCQName = "fabric-ring-cq-behind-data"

func init() {
	p := ringParams
	p.CQBehindData = true
	conduit.Register(ringCQName, conduit.Backend{
		Open:       func(jc conduit.JobConfig) (conduit.Job, error) { return openRingWith(ringCQName, p, jc) },
		DefaultPEs: func() int { return 4 }})
}

// ringGetLatency is the mean time of PE 0's blocking gets of size bytes
// from PE 2, on the next router, under order.
func ringGetLatency(t *testing.T, backend string, order pgas.Ordering, size int) time.Duration {
	t.Helper()
	const gets = 20
	var lat time.Duration
	cfg := pgas.Config{Conduit: backend, PEs: 4, SegmentBytes: pgas.MinSegmentBytes, Ordering: order}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		off, err := pe.Alloc(int64(size), 0)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			buf := make([]byte, size)
			if err := pe.Get(2, off, buf); err != nil { // warm-up
				return err
			}
			start := pe.Now()
			for range gets {
				if err := pe.Get(2, off, buf); err != nil {
					return err
				}
			}
			lat = (pe.Now() - start) / gets
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	return lat
}

// With Params.CQBehindData a get's completion entry is written as soon as
// its last data packet has been handed to the host interface, behind the
// data, instead of once the data is visible: a blocking get completes
// sooner by the entry's own trip to memory (the ring's host: 100 ns), in
// every ordering mode and whatever its packets.
func TestCQBehindData(t *testing.T) {
	for _, order := range []pgas.Ordering{pgas.OrderStrict, pgas.OrderDefault, pgas.OrderRelaxed} {
		for _, size := range []int{8, 1024} {
			after := ringGetLatency(t, ringName, order, size)
			behind := ringGetLatency(t, ringCQName, order, size)
			assert.InDelta(t, 100, float64(after-behind)/float64(time.Nanosecond), 5,
				"%v, %d bytes: blocking get %v with the entry after the data is visible, %v with it behind the data", order, size, after, behind)
			t.Logf("%v, %d bytes: blocking get %v with the entry after the data is visible, %v with it behind the data", order, size, after, behind)
		}
	}
}

// A short message costs a completion entry at each end, written by the
// NICs over the host interfaces: its sender's, announcing that the
// message left ("a common completion queue ... for announcing the
// completion of locally originated messages"), and its receiver's
// ("arriving short messages are signalled on a second completion
// queue", [GASNET-GEMINI] Overview). PE 0 sends PE 2 (node 2) messages
// and PE 2 answers with one; meanwhile every other PE waits for a message
// that comes after, so the entries counted are those of these messages.
func TestMessageCompletionEntries(t *testing.T) {
	const n = 20
	for _, backend := range []string{ringName, ringCQName} {
		var at [4]int // entries of each node's host while PE 0 counts
		cfg := pgas.Config{Conduit: backend, PEs: 4, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes}
		err := pgas.Run(cfg, func(pe *pgas.PE) error {
			if err := pe.Barrier(); err != nil {
				return err
			}
			msg := make([]byte, 100)
			switch pe.Rank() {
			case 0:
				var before [4]int
				for i, h := range lastRing.hosts {
					before[i] = h.entries
				}
				hs := make([]pgas.Handle, n)
				for i := range hs {
					var err error
					if hs[i], err = pe.Isend(2, i, msg); err != nil {
						return err
					}
				}
				for _, h := range hs {
					if err := h.Wait(); err != nil {
						return err
					}
				}
				if _, err := pe.Recv(2, n, msg); err != nil {
					return err
				}
				for i, h := range lastRing.hosts {
					at[i] = h.entries - before[i]
				}
				for _, r := range []int{1, 2, 3} {
					if err := pe.Send(r, n+1, msg); err != nil {
						return err
					}
				}
			case 2:
				for i := range n {
					if _, err := pe.Recv(0, i, msg); err != nil {
						return err
					}
				}
				if err := pe.Send(0, n, msg); err != nil {
					return err
				}
				fallthrough
			default:
				if _, err := pe.Recv(0, n+1, msg); err != nil {
					return err
				}
			}
			return pe.Barrier()
		})
		require.NoError(t, err)
		require.Len(t, lastRing.hosts, 4)
		// Node 0: its n messages' entries and the answer's arrival; node 2:
		// the n arrivals, and the answer's own entry unless its
		// acknowledgement is still on the way when PE 0 has it. Besides,
		// the runtime's own messages from node 2 to node 0 (the active
		// messages' credit returns, am.Stats.CreditMessages) cost one entry
		// at each.
		extra := at[0] - (n + 1)
		assert.GreaterOrEqual(t, extra, 0, "%s: node 0's entries", backend)
		assert.Less(t, extra, n/2, "%s: node 0's entries", backend)
		assert.Contains(t, []int{n + extra, n + extra + 1}, at[2], "%s: node 2's entries", backend)
		assert.Zero(t, at[1]+at[3], "%s: entries of the nodes not in it", backend)
		t.Logf("%s: completion entries written while %d messages went from node 0 to node 2 and one came back: %v", backend, n, at)
	}
}
