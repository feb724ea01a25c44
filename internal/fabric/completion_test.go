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
