package aries_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/bench/calibration/caltest"
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

// A hot target: the 16 PEs of each of 15 nodes get (put) 64 KiB blocks
// from (to) node 0. Node 0's NIC reads every get's data from its memory,
// HostReadTags reads at a time, each holding its tag for the read's round
// trip, so it cannot serve gets faster than HostReadTags x 64 bytes per
// round trip, nor faster than PCI-Express carries the data (64 of every 88
// bytes of its 16 GB/s, after PCIeEfficiencyPercent); with 256 tags and a
// round trip of about 410 ns, the link is the tighter limit.
func TestHotTargetGetsAndPuts(t *testing.T) {
	if testing.Short() {
		t.Skip("a 256-PE scenario")
	}
	caltest.NotUnderRace(t)
	const nodes, ppn, size = 16, 16, 64 << 10
	get := hotspot(t, "aries", nodes, ppn, size, 2, 2, false, pgas.OrderDefault)
	put := hotspot(t, "aries", nodes, ppn, size, 2, 2, true, pgas.OrderDefault)
	rate := float64(aries.PCIeBytesPerSecond) * aries.PCIeEfficiencyPercent / 100
	pcie := func(n int) float64 { return float64(n) / rate }
	// A read's request crosses the link, memory answers, the data crosses
	// back.
	rtt := pcie(aries.PCIeOverheadBytes) + pcie(64+aries.PCIeOverheadBytes) + (2*aries.PCIeLatency + aries.MemoryReadLatency).Seconds()
	tags := float64(aries.HostReadTags*64) / rtt / 1e9
	link := rate * 64 / (64 + aries.PCIeOverheadBytes) / 1e9
	assert.LessOrEqual(t, get, min(tags, link)*1.01, "gets %.2f GB/s: above the tags' %.2f GB/s or the link's %.2f GB/s", get, tags, link)
	t.Logf("15 nodes x 16 PEs to node 0, 64 KiB, default ordering: gets %.2f GB/s, puts %.2f GB/s (limits: %d tags %.2f GB/s, PCIe %.2f GB/s)",
		get, put, aries.HostReadTags, tags, link)
}
