package fabric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A block-transfer channel's pacing is checked with the other parameters:
// negative values, and a quiesce count above the limit, are refused with
// the values named; 0 turns the limit and the wait off.
func TestBTEPacingParams(t *testing.T) {
	base := Params{VCs: 1, ProcessorTiles: 1, TileUnitTime: 1000, InputBufferUnits: 40, InputStage: 10_000, MaxPacketData: 64, NICClockHz: 1e9, PageBytes: 4096,
		BTEChannels: 1, BTEReadsOutstanding: 1, BTEBurstPackets: 1,
		ORBEntries: 1, AMOCacheEntries: 1, AMOFetchesOutstanding: 1, CoarsePackets: 1}
	require.NoError(t, base.validate(), "no pacing")
	ok := base
	ok.BTEMaxGets, ok.BTEGetQuiesce, ok.BTEGetDelayCycles = 768, 512, 5
	require.NoError(t, ok.validate())
	for _, c := range []struct {
		max, quiesce int
		delay        int64
		want         string
	}{
		{-1, 0, 0, "at most -1 gets"},
		{768, 769, 5, "quiesce at 769"},
		{768, 512, -5, "delay -5 cycles"},
		{768, -1, 5, "quiesce at -1"},
	} {
		p := base
		p.BTEMaxGets, p.BTEGetQuiesce, p.BTEGetDelayCycles = c.max, c.quiesce, c.delay
		err := p.validate()
		if assert.Error(t, err, "%+v", c) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// An ORB of more entries than a transaction counts (16 bits) is refused
// with its size named; the largest is accepted.
func TestORBEntriesParam(t *testing.T) {
	p := Params{VCs: 1, ProcessorTiles: 1, TileUnitTime: 1000, InputBufferUnits: 40, InputStage: 10_000, MaxPacketData: 64, NICClockHz: 1e9, PageBytes: 4096,
		BTEChannels: 1, BTEReadsOutstanding: 1, BTEBurstPackets: 1,
		ORBEntries: maxORBEntries, AMOCacheEntries: 1, AMOFetchesOutstanding: 1, CoarsePackets: 1}
	require.NoError(t, p.validate())
	p.ORBEntries++
	require.ErrorContains(t, p.validate(), "ORB 65536: more than 65535")
}
