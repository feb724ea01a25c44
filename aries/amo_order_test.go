package aries_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/internal/simtest"
	"github.com/gopgas/gopgas/pgas"
)

// oneWordAMORate is simtest.OneWordAMORate on aries, failing the test
// on an error.
func oneWordAMORate(t *testing.T, order pgas.Ordering, window, rounds int) float64 {
	t.Helper()
	rate, err := simtest.OneWordAMORate("aries", order, window, rounds)
	require.NoError(t, err)
	return rate
}

// A strict AMO may not pass earlier posted writes ([ORDERING] II), and
// the AMO's own write-through of the word is one ([ARIES-WP] AMO
// section): one PE's strict adds to a cached word follow one another at
// the time the write-through takes to be visible (the word and its
// PCI-Express overhead on the link, PCIeLatency and MemoryWriteLatency)
// after the AMO unit's AMOCycles, where default and relaxed adds pipeline
// and go as fast as the PE issues them.
func TestStrictAMOsFollowWriteThrough(t *testing.T) {
	const window, rounds = 64, 20
	strict := oneWordAMORate(t, pgas.OrderStrict, window, rounds)
	def := oneWordAMORate(t, pgas.OrderDefault, window, rounds)
	relaxed := oneWordAMORate(t, pgas.OrderRelaxed, window, rounds)
	link := aries.Time(int64(8+aries.PCIeOverheadBytes) * 1e12 * 100 / (aries.PCIeBytesPerSecond * aries.PCIeEfficiencyPercent))
	period := link + aries.PCIeLatency + aries.MemoryWriteLatency + aries.Time(int64(aries.AMOCycles)*1e12/aries.NICClockHz)
	want := 1 / period.Seconds() / 1e6
	// Each window's first add waits for nothing, and its last response's
	// return adds a round trip.
	assert.InDelta(t, 1, strict/want, 0.1, "strict %.2f M/s, want about %.2f M/s (one add per %v)", strict, want, period)
	assert.Less(t, strict, 0.85*def, "strict %.2f M/s, default %.2f M/s", strict, def)
	assert.InDelta(t, def, relaxed, 0.01*def)
	t.Logf("one PE, one cached word, window %d: strict %.2f M/s (one add per %v: %.2f M/s), default %.2f M/s, relaxed %.2f M/s", window, strict, period, want, def, relaxed)
}
