package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/simtest"
	"github.com/gopgas/gopgas/pgas"
)

// oneWordAMORate is simtest.OneWordAMORate on gemini, failing the test
// on an error.
func oneWordAMORate(t *testing.T, order pgas.Ordering, window, rounds int) float64 {
	t.Helper()
	rate, err := simtest.OneWordAMORate("gemini", order, window, rounds)
	require.NoError(t, err)
	return rate
}

// A strict AMO may not pass earlier posted writes ([ORDERING] II), and
// the AMO's own write-through of the word is one ([GEMINI-WP] 2.4): one
// PE's strict adds to a cached word follow one another at the time the
// write-through takes to be visible (the word and its HT overhead on the
// link, HTLatency and the die's LocalWriteLatency) after the AMO unit's
// AMOHitCycles, where default and relaxed adds pipeline and go as fast as
// the PE issues them.
func TestStrictAMOsFollowWriteThrough(t *testing.T) {
	const window, rounds = 64, 20
	strict := oneWordAMORate(t, pgas.OrderStrict, window, rounds)
	def := oneWordAMORate(t, pgas.OrderDefault, window, rounds)
	relaxed := oneWordAMORate(t, pgas.OrderRelaxed, window, rounds)
	write := gemini.Time(int64(8+gemini.HTOverheadBytes)*1e12/gemini.HTBytesPerSecond) + gemini.HTLatency + gemini.LocalWriteLatency
	period := write + gemini.Time(int64(gemini.AMOHitCycles)*1e12/gemini.NICClockHz)
	want := 1 / period.Seconds() / 1e6
	// Each window's first add waits for nothing, and its last response's
	// return adds a round trip.
	assert.InDelta(t, 1, strict/want, 0.1, "strict %.2f M/s, want about %.2f M/s (one add per %v)", strict, want, period)
	assert.Less(t, strict, 0.85*def, "strict %.2f M/s, default %.2f M/s", strict, def)
	assert.InDelta(t, def, relaxed, 0.01*def)
	t.Logf("one PE, one cached word, window %d: strict %.2f M/s (one add per %v: %.2f M/s), default %.2f M/s, relaxed %.2f M/s", window, strict, period, want, def, relaxed)
}
