package fabric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/sim"
)

// dropAll is a topology whose routers take every packet and lose it: the
// tests below look only at a link's sending.
type dropAll struct{}

func (dropAll) RouterOf(int) int                { return 0 }
func (dropAll) Route(*Router, *Packet) *Channel { return nil }

// longLinkTime sends n packets of size units on one VC over a link of a
// unit per ns whose far end is 500 ns away, with own per-VC buffers of
// own units and a pool of shared, and returns when the last has left.
func longLinkTime(t *testing.T, n, size, own, shared int) Time {
	p := Params{VCs: 4, ProcessorTiles: 1, TileUnitTime: 1000, InputBufferUnits: own, SharedInputUnits: shared, InputStage: 10_000,
		MaxPacketData: 64, NICClockHz: 1e9, PageBytes: 4096, BTEChannels: 1, BTEReadsOutstanding: 1, BTEBurstPackets: 1,
		ORBEntries: 1, AMOCacheEntries: 1, AMOFetchesOutstanding: 1, CoarsePackets: 1}
	require.NoError(t, p.validate())
	m := &Machine{p: p, k: sim.New(1), topo: dropAll{}}
	a, b := m.NewRouter(), m.NewRouter()
	link := m.NewLink(a, b, 1000, 500_000, 1)
	for range n {
		link.enqueue(&Packet{Size: int32(size), cnt: 1, VC: 2})
	}
	m.k.RunUntil(1 << 50)
	require.Zero(t, link.queued, "every packet sent")
	link.absorb(2)
	assert.Equal(t, own, int(link.vcList()[2].credits), "the VC's own space back")
	assert.Equal(t, shared, int(link.shared), "the pool back")
	return link.busy
}

// Dynamic per-VC input buffering: "allows a single active virtual channel
// to achieve full bandwidth over a long cable" (Aries Router). With its own
// 32 units a VC sends 32 units per credit round trip (about 1 us); with a
// pool big enough for the round trip it sends at the link's rate.
func TestSharedInputBuffer(t *testing.T) {
	const n, size = 200, 8 // 1600 units: 1.6 us at the link's rate
	alone := longLinkTime(t, n, size, 32, 0)
	pooled := longLinkTime(t, n, size, 32, 1200)
	t.Logf("1600 units over a 500 ns link: %v with 32 units per VC, %v with a pool of 1200 besides", alone, pooled)
	assert.Greater(t, alone, 20*1600*Time(1000)/2, "credit-bound: far below the link's rate")
	assert.Less(t, pooled, 1600*Time(1000)+1100*Time(1000), "at the link's rate after the first round trip")
}
