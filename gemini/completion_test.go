package gemini_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/pgas"
)

// getLatency is the mean time of PE 0's blocking 8-byte gets from PE 1, on
// another node, under order.
func getLatency(t *testing.T, order pgas.Ordering) time.Duration {
	t.Helper()
	const gets = 50
	var lat time.Duration
	cfg := pgas.Config{Conduit: "gemini", PEs: 2, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Ordering: order}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		off, err := pe.Alloc(8, 0)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			buf := make([]byte, 8)
			if err := pe.Get(1, off, buf); err != nil { // warm-up
				return err
			}
			start := pe.Now()
			for range gets {
				if err := pe.Get(1, off, buf); err != nil {
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

// A get's completion entry is generated when its data has been delivered
// ([GEMINI-WP] 2.5), and the NIC cannot see its posted writes become
// visible ([ORDERING] II): under default and strict ordering it writes the
// entry right behind the data, in the same ordered stream; under relaxed
// ordering it writes it once the data is visible. So a blocking get
// completes sooner ordered than relaxed, by about the entry's own trip
// (HTLatency and the NIC's die's LocalWriteLatency), and strict and
// default agree when nothing else is in flight.
func TestGetCompletionFollowsData(t *testing.T) {
	strict := getLatency(t, pgas.OrderStrict)
	def := getLatency(t, pgas.OrderDefault)
	relaxed := getLatency(t, pgas.OrderRelaxed)
	trip := (gemini.HTLatency + gemini.LocalWriteLatency).Duration()
	assert.Equal(t, strict, def, "strict %v, default %v", strict, def)
	assert.InDelta(t, float64(trip), float64(relaxed-def), 0.25*float64(trip), "relaxed %v - default %v, want about %v", relaxed, def, trip)
	t.Logf("blocking 8-byte get: strict %v, default %v, relaxed %v (the entry's trip %v)", strict, def, relaxed, trip)
}
