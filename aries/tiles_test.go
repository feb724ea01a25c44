package aries

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Whitepaper, Aries Router and Aries Performance (calibration row A-TILE):
// the router's tiles.
func TestTileConstants(t *testing.T) {
	// Aries Router: 48 tiles in 6 x 8, 40 network and 8 processor.
	assert.Equal(t, 48, TileRows*TileColumns)
	assert.Equal(t, TileRows*TileColumns, NetworkPortsPerAries+ProcessorPortsPerAries)
	assert.Equal(t, 8, ProcessorPortsPerAries)

	// A-TILE: one 48-bit flit per cycle at 875 MHz is 5.25 GB/s.
	assert.Equal(t, 5.25e9, float64(TileBytesPerSecond))
}

// Link rates (A-TILE, A-GLOBAL): a flit takes 6 bytes at the raw rate
// stretched by the LCB's 10/9.
func TestLinkUnitTimes(t *testing.T) {
	assert.Equal(t, Time(1270), linkUnitTime(ElectricalLinkBytesPerSecond), "6 B / 5.25 GB/s x 10/9")
	assert.Equal(t, Time(1422), linkUnitTime(OpticalLinkBytesPerSecond), "6 B / 4.6875 GB/s x 10/9")
}
