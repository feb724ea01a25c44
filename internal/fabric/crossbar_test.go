package fabric

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/sim"
)

// crossMachine is a router of a machine of tiled routers of 2 x 4 tiles (processor
// tiles 6 and 7) with unit time 1 ns, buses of 3 and 5 ns, and outputs
// by tile: links leaving by tiles 0..5 to a router of their own.
func crossMachine(t *testing.T) (*Router, []*Channel) {
	p := Params{VCs: 2, ProcessorTiles: 2, TileUnitTime: 1000, InputBufferUnits: 64,
		TileRows: 2, TileColumns: 4, RowBus: 3000, ColumnBus: 5000,
		MaxPacketData: 64, NICClockHz: 1e9, PageBytes: 4096, BTEChannels: 1, BTEReadsOutstanding: 1, BTEBurstPackets: 1,
		ORBEntries: 1, AMOCacheEntries: 1, AMOFetchesOutstanding: 1, CoarsePackets: 1}
	require.NoError(t, p.validate())
	m := &Machine{p: p, k: sim.New(1)}
	r := m.NewRouter()
	far := m.NewRouter()
	var out []*Channel
	for tile := range 6 {
		c := m.NewLink(r, far, 1000, 0, 1)
		c.SetTiles(tile, 0)
		out = append(out, c)
	}
	return r, out
}

// crossAt crosses a packet of size units from input tile in to out now and
// returns when it reaches out's queue.
func crossAt(r *Router, in int, out *Channel, size int) Time {
	return r.cross(&Packet{Size: int32(size), cnt: 1, inTile: int16(in)}, out)
}

func TestTiledRouterCrossing(t *testing.T) {
	r, out := crossMachine(t)
	const size = 4 // units: 4 ns on a bus
	// Alone: the two buses' latencies.
	assert.Equal(t, Time(8000), crossAt(r, 1, out[5], size))
	assert.Equal(t, size, int(out[5].committed), "counted in the output's load until it gets there")
	assert.Equal(t, size, out[5].Load())

	// One input tile to outputs of one column (tiles 1 and 5): the row bus
	// is shared, so the second starts when the first has left it.
	r, out = crossMachine(t)
	a := crossAt(r, 0, out[1], size)
	b := crossAt(r, 0, out[5], size)
	assert.Equal(t, Time(8000), a)
	assert.Equal(t, Time(12000), b, "4 ns behind on the row bus")

	// Two input tiles of one row to one output: the column bus is shared.
	r, out = crossMachine(t)
	a = crossAt(r, 0, out[2], size)
	b = crossAt(r, 1, out[2], size)
	assert.Equal(t, Time(8000), a)
	assert.Equal(t, Time(12000), b, "4 ns behind on the column bus")

	// Input tiles of different rows to one output: different sub-switches
	// and column buses; they meet only in the output's queue.
	r, out = crossMachine(t)
	a = crossAt(r, 0, out[2], size)
	b = crossAt(r, 4, out[2], size)
	assert.Equal(t, a, b)
}

// The buses' times are kept in 32 bits after a base: a crossing more than
// 4.3 ms (2^32 ps) after the router's first moves the base, and a bus
// still busy then stays busy for the same time.
func TestTiledRouterBusesAfterLongTime(t *testing.T) {
	r, out := crossMachine(t)
	r.m.topo = dropAll{} // the packets go nowhere after crossing
	const size = 4
	k := r.m.k
	assert.Equal(t, Time(8000), crossAt(r, 0, out[1], size))
	later := Time(1) << 40 // about a second
	k.RunUntil(later)
	a := crossAt(r, 0, out[1], size)
	b := crossAt(r, 0, out[5], size)
	assert.Equal(t, later+8000, a, "the buses used at time 0 are free")
	assert.Equal(t, later+12000, b, "4 ns behind on the row bus, as at time 0")
	assert.Equal(t, later, r.busBase, "the base moved up to now")
	k.RunUntil(2 * later)
	assert.Equal(t, 2*later+8000, crossAt(r, 0, out[1], size), "every bus free long after")
}

// Each row bus (an input tile to an output column) and each column bus (an
// output column's, from an input row to an output row) of a 6 x 8 tiled
// router has a place of its own among the router's buses, and the two a
// crossing uses share a cache line.
func TestBusBlocks(t *testing.T) {
	const rows, cols = 6, 8
	rowOf, colOf := map[int][2]int{}, map[int][3]int{}
	for in := range rows * cols {
		for o := range rows * cols {
			ri, ci := busIndex(rows, cols, in, o)
			rb, cb := [2]int{in, o % cols}, [3]int{in / cols, o % cols, o / cols}
			if prev, ok := rowOf[ri]; ok {
				require.Equal(t, rb, prev, "place %d holds one row bus", ri)
			}
			if prev, ok := colOf[ci]; ok {
				require.Equal(t, cb, prev, "place %d holds one column bus", ci)
			}
			rowOf[ri], colOf[ci] = rb, cb
			require.NotContains(t, colOf, ri)
			require.NotContains(t, rowOf, ci)
			require.Less(t, ci, rows*cols*busBlock(rows, cols))
			require.Equal(t, ri*4/64, ci*4/64, "in %d to out %d: one cache line", in, o)
		}
	}
	assert.Len(t, rowOf, rows*cols*cols)
	assert.Len(t, colOf, rows*cols*rows)
	// The blocks line up with cache lines when the buses do: the
	// allocator's size class for them (3 KiB) is a multiple of 64.
	buses := make([]uint32, rows*cols*busBlock(rows, cols))
	assert.Zero(t, uintptr(unsafe.Pointer(&buses[0]))%64)
}
