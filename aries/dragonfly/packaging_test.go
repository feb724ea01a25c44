package dragonfly_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gopgas/gopgas/aries/dragonfly"
)

// Whitepaper, Dragonfly Implementation, Table 1, Aries Router and Aries
// Performance (calibration row A-GROUP). The router's tiles are the aries
// package's (tiles_test.go).
func TestConstants(t *testing.T) {
	// A-GROUP: 6 chassis x 16 Aries x 4 nodes.
	assert.Equal(t, 384, dragonfly.NodesPerGroup)
	assert.Equal(t, 96, dragonfly.AriesPerGroup, "Table 1: 96 Aries per group")
	assert.Equal(t, 64, dragonfly.NodesPerChassis)
	assert.Equal(t, 192, dragonfly.NodesPerCabinet)
	assert.Equal(t, 6, dragonfly.ChassisPerGroup)
	assert.Equal(t, 15, dragonfly.GreenLinksPerAries, "all-to-all in a chassis")
	assert.Equal(t, 3, dragonfly.BlackLinksPerPeer)
	assert.Equal(t, 15, dragonfly.BlackLinksPerAries)
	assert.Equal(t, 10, dragonfly.GlobalLinksPerAries)
	assert.Equal(t, 4, dragonfly.LinksPerCable, "global links in sets of four")
	assert.Equal(t, 960, dragonfly.GlobalLinksPerGroup)
	assert.Equal(t, 240, dragonfly.MaxCablesPerGroup)
	assert.Equal(t, 241, dragonfly.MaxGroups)
	assert.Equal(t, 92544, dragonfly.MaxNodes)
	assert.Equal(t, 40, dragonfly.CablesPerChassis)
	// Table 1: (5×16×6)/2 = 240 9X copper cables, each a set of 3 black
	// links; (40×6)/2 = 120 optical cables per group.
	assert.Equal(t, 240, dragonfly.BlackLinksPerAries/dragonfly.BlackLinksPerPeer*dragonfly.AriesPerGroup/2)
	assert.Equal(t, 120, dragonfly.CablesPerChassis*dragonfly.ChassisPerGroup/2)
	assert.Equal(t, 9, dragonfly.BlackLinksPerPeer*dragonfly.LanesPerLink, "9X copper cable")

	// Aries Router: 40 network tiles, one per port.
	assert.Equal(t, 40, dragonfly.NetworkPortsPerAries)
	assert.Equal(t, [3]int{0, 15, 30}, [3]int{dragonfly.FirstGreenPort, dragonfly.FirstBlackPort, dragonfly.FirstGlobalPort})

	// Aries: 120 network SerDes = 40 ports x 3 lanes.
	assert.Equal(t, 120, dragonfly.NetworkPortsPerAries*dragonfly.LanesPerLink)
	// Aries Performance: 3 lanes at 14 Gb/s is 5.25 GB/s raw; an AOC of 12
	// lanes at 12.5 Gb/s is 18.75 GB/s; the optical link is the "4.7" of
	// "4.7 to 5.25 GB/s per direction per port" (Aries).
	assert.Equal(t, 5.25e9, float64(dragonfly.ElectricalLinkBytesPerSecond))
	assert.Equal(t, 4.6875e9, float64(dragonfly.OpticalLinkBytesPerSecond))
	assert.InDelta(t, 4.7, dragonfly.OpticalLinkBytesPerSecond/testGB, 0.05)
	assert.Equal(t, 12, dragonfly.LanesPerCable)
	assert.Equal(t, 18.75e9, float64(dragonfly.CableBytesPerSecond))
	assert.Equal(t, float64(dragonfly.CableBytesPerSecond), dragonfly.LinksPerCable*float64(dragonfly.OpticalLinkBytesPerSecond))

	// A 48-bit flit is 6 bytes.
	assert.Equal(t, 6, dragonfly.FlitBytes)
	// The LCB's 60-byte set of ten flits, one of them overhead.
	assert.Equal(t, 60, dragonfly.LCBFlitsPerSet*dragonfly.FlitBytes)
	assert.Equal(t, 9, dragonfly.LCBDataFlitsPerSet)

	// Route lengths (Cray XC Routing; A-HOP's 500 ns at 100 ns a hop).
	assert.Equal(t, 5, dragonfly.MaxMinimalHops)
	assert.Equal(t, 10, dragonfly.MaxNonMinimalHops)
}
