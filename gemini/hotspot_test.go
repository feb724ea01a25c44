package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench/calibration/caltest"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/simtest"
	"github.com/gopgas/gopgas/pgas"
)

// hotspot is simtest.Hotspot, failing the test on an error.
func hotspot(t *testing.T, conduitName string, nodes, ppn, size, window, rounds int, put bool, order pgas.Ordering) float64 {
	t.Helper()
	gbps, err := simtest.Hotspot(conduitName, nodes, ppn, size, window, rounds, put, order)
	require.NoError(t, err)
	return gbps
}

// A hot target: the 4 PEs of each of 31 nodes get (put) 64 KiB blocks
// from (to) node 0. Node 0's NIC reads every get's data from its memory,
// HostReadTags reads at a time, each holding its tag for the read's round
// trip, so it cannot serve gets faster than HostReadTags x 64 bytes per
// round trip, nor faster than the HyperTransport carries the data (64 of
// every 76 bytes of 9.6 GB/s); with 32 tags and a round trip of about
// 180 ns to the NIC's die, the link is the tighter limit.
func TestHotTargetGetsAndPuts(t *testing.T) {
	if testing.Short() {
		t.Skip("a 124-PE scenario")
	}
	caltest.NotUnderRace(t)
	const nodes, ppn, size = 32, 4, 64 << 10
	get := hotspot(t, "gemini", nodes, ppn, size, 2, 2, false, pgas.OrderDefault)
	put := hotspot(t, "gemini", nodes, ppn, size, 2, 2, true, pgas.OrderDefault)
	ht := func(n int) float64 { return float64(n) / gemini.HTBytesPerSecond }
	// A read's request crosses the link, memory answers, the data crosses
	// back.
	rtt := ht(gemini.HTOverheadBytes) + ht(64+gemini.HTOverheadBytes) + (2*gemini.HTLatency + gemini.LocalReadLatency).Seconds()
	tags := float64(gemini.HostReadTags*64) / rtt / 1e9
	link := float64(gemini.HTBytesPerSecond) * 64 / (64 + gemini.HTOverheadBytes) / 1e9
	assert.LessOrEqual(t, get, min(tags, link)*1.01, "gets %.2f GB/s: above the tags' %.2f GB/s or the link's %.2f GB/s", get, tags, link)
	t.Logf("31 nodes x 4 PEs to node 0, 64 KiB, default ordering: gets %.2f GB/s, puts %.2f GB/s (limits: %d tags %.2f GB/s, HT %.2f GB/s)",
		get, put, gemini.HostReadTags, tags, link)
}
