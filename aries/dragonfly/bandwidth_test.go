package dragonfly_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly"
)

// Whitepaper, Cray XC Series Configuration, Tables 2 and 3 (A-BISECT).
func TestBisectionTables(t *testing.T) {
	rows := []struct {
		cabinets, groups, bundle int
		total, crossing          int
		bisectionGBs             float64
	}{
		{12, 6, 12, 180, 108, 4050},  // Table 2 and Table 3, partial
		{12, 6, 48, 720, 432, 16200}, // Table 3, full
		{16, 8, 12, 336, 192, 7200},  // Table 2 and Table 3, partial
		{16, 8, 34, 952, 544, 20400}, // Table 3, full
	}
	for _, r := range rows {
		name := fmt.Sprintf("%d cabinets, bundles of %d", r.cabinets, r.bundle)
		d, err := dragonfly.ForCabinets(r.cabinets, r.bundle)
		require.NoError(t, err, name)
		require.Equal(t, r.groups, d.Groups(), name)
		require.Equal(t, r.groups, d.FullGroups(), name)
		assert.Equal(t, r.total, d.TotalCables(), name)

		total, err := dragonfly.TotalCables(r.groups, r.bundle)
		require.NoError(t, err)
		assert.Equal(t, r.total, total, name)
		crossing, err := dragonfly.BisectionCables(r.groups, r.bundle)
		require.NoError(t, err)
		assert.Equal(t, r.crossing, crossing, name)
		bw, err := dragonfly.BisectionBandwidth(r.groups, r.bundle)
		require.NoError(t, err)
		assert.Equal(t, r.bisectionGBs*testGB, bw, name)

		// The whitepaper's formula (Aries Performance), with bundle x
		// (G-1) cables per group.
		g := float64(r.groups)
		formula := 18.75 * g / (2 * (g - 1)) * float64(r.bundle*(r.groups-1)) * g
		assert.InDelta(t, r.bisectionGBs, formula, 1e-9, name)
	}
	// The full rows use the largest bundles (Cray XC Series Configuration:
	// inter-group cables <= FLOOR(240 / (groups - 1))).
	for _, c := range [][2]int{{6, 48}, {8, 34}} {
		b, err := dragonfly.MaxBundle(c[0])
		require.NoError(t, err)
		assert.Equal(t, c[1], b)
	}
	// Two groups: every cable crosses (the ratio G/2(G-1) is one).
	n, err := dragonfly.BisectionCables(2, 240)
	require.NoError(t, err)
	assert.Equal(t, 240, n)
	// Odd groups: the best cut splits 3 | 4.
	n, err = dragonfly.BisectionCables(7, 10)
	require.NoError(t, err)
	assert.Equal(t, 3*4*10, n)
	// One group has no cables to cut.
	n, err = dragonfly.BisectionCables(1, 0)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// Whitepaper, Aries Performance (A-GLOBAL): "Peak global bandwidth is 11.7
// GB/s per node for a full network. With the payload efficiency of 64
// percent this equates to 7.5 GB/s per direction."
func TestGlobalBandwidth(t *testing.T) {
	assert.Equal(t, 11.7, math.Round(dragonfly.PeakGlobalBytesPerSecondPerNode/testGB*10)/10)
	eff, err := dragonfly.PayloadEfficiency(64, 15)
	require.NoError(t, err)
	assert.InDelta(t, 7.5e9, dragonfly.PeakGlobalBytesPerSecondPerNode*eff, 1)

	// Full networks: every connector of every group is used.
	for _, c := range [][2]int{{2, 240}, {5, 60}, {7, 40}, {dragonfly.MaxGroups, 1}} {
		d, err := dragonfly.NewDragonfly(c[0], c[1])
		require.NoError(t, err)
		assert.InDelta(t, dragonfly.PeakGlobalBytesPerSecondPerNode, d.GlobalBandwidthPerNode(), 1, "%v", d)
		// "link bandwidth × global links per group × groups".
		assert.InDelta(t, dragonfly.OpticalLinkBytesPerSecond*dragonfly.GlobalLinksPerGroup*float64(c[0]), d.GlobalBandwidth(), 1, "%v", d)
	}
	// 8 groups of 34: 238 of 240 connectors, "the number of optical ports
	// per group does not divide evenly into the number of other groups".
	d, err := dragonfly.NewDragonfly(8, 34)
	require.NoError(t, err)
	assert.InDelta(t, dragonfly.PeakGlobalBytesPerSecondPerNode*238/240, d.GlobalBandwidthPerNode(), 1)
	// Table 3's 12-cabinet partial network uses a quarter of the ports.
	d, err = dragonfly.ForCabinets(12, 12)
	require.NoError(t, err)
	assert.InDelta(t, dragonfly.PeakGlobalBytesPerSecondPerNode/4, d.GlobalBandwidthPerNode(), 1)
	// A single group has no global network.
	d, err = dragonfly.NewDragonfly(1, 0)
	require.NoError(t, err)
	assert.Zero(t, d.GlobalBandwidth())
}

// Whitepaper, Aries Performance (A-GREEN): "In each electrical group 384
// links cross the bisection in the green dimension and 432 cross in the
// black dimension. The green dimension sets the lower limit of 384 × 5.25 ×
// 2 = 4032 GB/s."
func TestGroupBisection(t *testing.T) {
	green, black, err := dragonfly.GroupBisectionLinks(dragonfly.ChassisPerGroup)
	require.NoError(t, err)
	assert.Equal(t, 384, green)
	assert.Equal(t, 432, black)
	bw, err := dragonfly.GroupBisectionBandwidth(dragonfly.ChassisPerGroup)
	require.NoError(t, err)
	assert.Equal(t, 4032*testGB, bw)

	// Smaller groups: one chassis has no black cut; two chassis are cut
	// in black (48 links) before green (128).
	green, black, err = dragonfly.GroupBisectionLinks(1)
	require.NoError(t, err)
	assert.Equal(t, [2]int{64, 0}, [2]int{green, black})
	bw, err = dragonfly.GroupBisectionBandwidth(1)
	require.NoError(t, err)
	assert.Equal(t, 64*2*5.25*testGB, bw)
	green, black, err = dragonfly.GroupBisectionLinks(2)
	require.NoError(t, err)
	assert.Equal(t, [2]int{128, 48}, [2]int{green, black})
	bw, err = dragonfly.GroupBisectionBandwidth(2)
	require.NoError(t, err)
	assert.Equal(t, 48*2*5.25*testGB, bw)
}

// Whitepaper, Aries Performance (A-EFF): "(64 bytes/15 flits) × (9 flits/60
// bytes) = 64 percent", for puts (14 + 1 flits) and gets (3 + 12).
func TestPayloadEfficiency(t *testing.T) {
	put, err := dragonfly.PayloadEfficiency(64, 14+1)
	require.NoError(t, err)
	assert.InDelta(t, 0.64, put, 1e-12)
	get, err := dragonfly.PayloadEfficiency(64, 3+12)
	require.NoError(t, err)
	assert.Equal(t, put, get)
	assert.InDelta(t, 64.0/15*9/60, put, 1e-12)
	full, err := dragonfly.PayloadEfficiency(60, 10)
	require.NoError(t, err)
	assert.InDelta(t, 0.9, full, 1e-12, "a flit-full payload loses only the LCB's flit in 10")
}
