package fabric

import (
	"math"
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

// bareMachine is a machine of bare routers (dropAll) with vcs VCs,
// tiles processor tiles a router, own units of input buffer per VC and a
// pool of shared, for tests of its links and tiles alone.
func bareMachine(t *testing.T, vcs, tiles, own, shared int) *Machine {
	p := Params{VCs: vcs, ProcessorTiles: tiles, TileUnitTime: 1000, InputBufferUnits: own, SharedInputUnits: shared, InputStage: 10_000,
		MaxPacketData: 64, NICClockHz: 1e9, PageBytes: 4096, BTEChannels: 1, BTEReadsOutstanding: 1, BTEBurstPackets: 1,
		ORBEntries: 1, AMOCacheEntries: 1, AMOFetchesOutstanding: 1, CoarsePackets: 1}
	require.NoError(t, p.validate())
	return &Machine{p: p, k: sim.New(1), topo: dropAll{}}
}

// longLinkTime sends n packets of size units on one VC over a link of a
// unit per ns whose far end is 500 ns away, with own per-VC buffers of
// own units and a pool of shared, and returns when the last has left.
func longLinkTime(t *testing.T, n, size, own, shared int) Time {
	m := bareMachine(t, 4, 1, own, shared)
	a, b := m.NewRouter(), m.NewRouter()
	link := m.NewLink(a, b, 1000, 500_000, 1)
	for range n {
		link.enqueue(&Packet{Size: int32(size), cnt: 1, VC: 2})
	}
	m.k.RunUntil(1 << 50)
	require.Zero(t, link.queued, "every packet sent")
	link.absorbVC(2, &link.vcList()[2], m.k.Now())
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

// Credits come back by the time they are due, whichever way a channel
// counts them: absorbAll (a pooled buffer) counts every VC's due returns
// and finds the next due time in one pass, absorb only its VC's, and
// both leave what is not yet due. Returns are put on their way by hand
// (queueReturn), on three VCs of one channel and its twin.
func TestCreditsComeBackWhenDue(t *testing.T) {
	m := bareMachine(t, 4, 1, 32, 100)
	a, b := m.NewRouter(), m.NewRouter()
	all, each := m.NewLink(a, b, 1000, 500_000, 1), m.NewLink(a, b, 1000, 500_000, 1)
	for _, c := range []*Channel{all, each} {
		c.useVCs()
		for _, vc := range []int{0, 1, 3} {
			v := &c.vcList()[vc]
			v.credits -= 20
			c.shared -= 6
			// VC vc's returns: 4 units and 1 of the pool at 100+vc ns,
			// 6 and 2 at 300+vc ns, 10 and 3 at 500+vc ns.
			for _, r := range []creditReturn{{100_000, 4, 1}, {300_000, 6, 2}, {500_000, 10, 3}} {
				r.at += Time(vc * 1000)
				c.queueReturn(uint8(vc), r)
			}
		}
	}
	m.k.RunUntil(301_000) // VCs 0 and 1 have two returns back, VC 3 one
	all.absorbAll()
	for vc := range 4 {
		each.absorbVC(vc, &each.vcList()[vc], m.k.Now())
	}
	for _, c := range []*Channel{all, each} {
		v := c.vcList()
		assert.Equal(t, []int32{32 - 10, 32 - 10, 32, 32 - 16}, []int32{v[0].credits, v[1].credits, v[2].credits, v[3].credits})
		assert.Equal(t, int32(100-18+3+3+1), c.shared, "the pool's units of the returns due")
	}
	assert.Equal(t, Time(303_000), all.dueFrom, "VC 3's second return is the next due")
	m.k.RunUntil(1_000_000)
	all.absorbAll()
	assert.Equal(t, Time(math.MaxInt64), all.dueFrom, "none left on its way")
	assert.Equal(t, int32(100), all.shared)
	for vc, v := range all.vcList() {
		assert.Equal(t, int32(32), v.credits, "VC %d", vc)
		assert.Zero(t, v.returns, "VC %d's list back with the machine", vc)
	}
}

// A NIC's packets take the least loaded tile, the first of the least: an
// idle tile ends the search.
func TestLeastLoadedTile(t *testing.T) {
	m := bareMachine(t, 1, 3, 32, 0)
	tiles := m.NewRouter().eject
	tiles[0].queuedUnits, tiles[1].queuedUnits, tiles[2].queuedUnits = 5, 3, 3
	assert.Same(t, tiles[1], leastLoaded(tiles), "the first of the least loaded")
	tiles[2].queuedUnits = 0
	assert.Same(t, tiles[2], leastLoaded(tiles))
	tiles[0].queuedUnits, tiles[1].committed = 0, 8
	assert.Same(t, tiles[0], leastLoaded(tiles), "the first idle one")
	tiles[0].busy = 2000 // busy for 2 units from now
	assert.Same(t, tiles[2], leastLoaded(tiles), "a tile still sending is loaded")
}
