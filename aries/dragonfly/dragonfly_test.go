package dragonfly_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly"
	"github.com/gopgas/gopgas/internal/errs"
)

// testGB is a decimal gigabyte, the unit of the whitepaper's GB/s.
const testGB = 1e9

// testMiB is a binary mebibyte, for memory figures.
const testMiB = 1 << 20

// testSeed fixes every random sample.
const testSeed = 20121101

// testSystem is a named system used by several tests.
type testSystem struct {
	name string
	d    *dragonfly.Dragonfly
}

// testSystems builds the system sizes the routing tests run on: the
// brief's 1 chassis, 1 group, 2 groups, 16 groups and 241 groups, plus
// Table 2's systems, a full 6-group system and two with a partial last
// group (one whose bundles fit, one whose bundles are cut short).
func testSystems(t *testing.T) []testSystem {
	t.Helper()
	mk := func(name string, d *dragonfly.Dragonfly, err error) testSystem {
		require.NoError(t, err, name)
		return testSystem{name, d}
	}
	chassis1, err1 := dragonfly.ForChassis(1, 0)
	chassis4, err4 := dragonfly.ForChassis(4, 0)
	group1, errG := dragonfly.NewDragonfly(1, 0)
	two, err2 := dragonfly.NewDragonfly(2, 12)
	twoFull, err2f := dragonfly.NewDragonfly(2, 240)
	six, err6 := dragonfly.ForCabinets(12, 12)
	sixFull, err6f := dragonfly.NewDragonfly(6, 48)
	eight, err8 := dragonfly.ForCabinets(16, 12)
	thirteen, err13 := dragonfly.ForCabinets(13, 12)
	sixteen, err16 := dragonfly.NewDragonfly(16, 15)
	cut, errCut := dragonfly.ForChassis(30*dragonfly.ChassisPerGroup+1, 8)
	largest, errL := dragonfly.NewDragonfly(dragonfly.MaxGroups, 1)
	return []testSystem{
		mk("1 chassis", chassis1, err1),
		mk("4 chassis", chassis4, err4),
		mk("1 group", group1, errG),
		mk("2 groups, bundles of 12", two, err2),
		mk("2 groups, bundles of 240", twoFull, err2f),
		mk("12 cabinets, bundles of 12", six, err6),
		mk("6 groups, bundles of 48", sixFull, err6f),
		mk("16 cabinets, bundles of 12", eight, err8),
		mk("13 cabinets, bundles of 12", thirteen, err13),
		mk("16 groups, bundles of 15", sixteen, err16),
		mk("30 groups + 1 chassis, bundles of 8", cut, errCut),
		mk("241 groups, bundles of 1", largest, errL),
	}
}

// Whitepaper, Dragonfly Implementation and Cray XC Series Configuration:
// group, cabinet and chassis counts (A-GROUP).
func TestConstructors(t *testing.T) {
	cases := []struct {
		name                                 string
		build                                func() (*dragonfly.Dragonfly, error)
		groups, full, chassis, nodes, lastCh int
		bundle                               int
	}{
		{"1 chassis", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForChassis(1, 0) }, 1, 0, 1, 64, 1, 0},
		{"1 cabinet", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(1, 0) }, 1, 0, 3, 192, 3, 0},
		{"2 cabinets", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(2, 0) }, 1, 1, 6, 384, 6, 0},
		{"1 group, bundle ignored", func() (*dragonfly.Dragonfly, error) { return dragonfly.NewDragonfly(1, 12) }, 1, 1, 6, 384, 6, 0},
		{"12 cabinets", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(12, 12) }, 6, 6, 36, 2304, 6, 12},
		{"13 cabinets", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(13, 12) }, 7, 6, 39, 2496, 3, 12},
		{"16 cabinets", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(16, 12) }, 8, 8, 48, 3072, 6, 12},
		{"64 cabinets", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(64, 6) }, 32, 32, 192, 12288, 6, 6},
		{"7 chassis", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForChassis(7, 240) }, 2, 1, 7, 448, 1, 240},
		{"largest by groups", func() (*dragonfly.Dragonfly, error) { return dragonfly.NewDragonfly(241, 1) }, 241, 241, 1446, 92544, 6, 1},
		{"largest by cabinets", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForCabinets(482, 1) }, 241, 241, 1446, 92544, 6, 1},
		{"largest by chassis", func() (*dragonfly.Dragonfly, error) { return dragonfly.ForChassis(1446, 1) }, 241, 241, 1446, 92544, 6, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.build()
			require.NoError(t, err)
			assert.Equal(t, c.groups, d.Groups())
			assert.Equal(t, c.full, d.FullGroups())
			assert.Equal(t, c.chassis, d.Chassis())
			assert.Equal(t, c.nodes, d.Nodes())
			assert.Equal(t, c.nodes/dragonfly.NodesPerAries, d.Aries())
			assert.Equal(t, c.bundle, d.Bundle())
			last, err := d.ChassisInGroup(d.Groups() - 1)
			require.NoError(t, err)
			assert.Equal(t, c.lastCh, last)
			if d.Groups() > 1 {
				first, err := d.ChassisInGroup(0)
				require.NoError(t, err)
				assert.Equal(t, dragonfly.ChassisPerGroup, first)
			}
		})
	}
	// Every cabinet count holds 192 nodes per cabinet.
	for cab := 1; cab <= dragonfly.MaxCabinets; cab++ {
		groups := (cab + 1) / 2
		bundle, err := dragonfly.MaxBundle(groups)
		require.NoError(t, err)
		d, err := dragonfly.ForCabinets(cab, bundle)
		if cab%2 == 1 && groups-1 > dragonfly.ChassisPerCabinet*dragonfly.CablesPerChassis {
			// A half group has too few connectors for a cable to each
			// other group.
			require.Error(t, err, "%d cabinets", cab)
			continue
		}
		require.NoError(t, err, "%d cabinets", cab)
		require.Equal(t, cab*dragonfly.NodesPerCabinet, d.Nodes(), "%d cabinets", cab)
	}
}

// The zero Dragonfly is empty and rejects every id.
func TestZeroDragonfly(t *testing.T) {
	var d dragonfly.Dragonfly
	assert.Equal(t, [5]int{0, 0, 0, 0, 0}, [5]int{d.Groups(), d.FullGroups(), d.Chassis(), d.Aries(), d.Nodes()})
	assert.Zero(t, d.TotalCables())
	assert.Zero(t, d.GlobalBandwidth())
	assert.Equal(t, "0 groups (0 nodes)", d.String())
	_, err := d.Minimal(0, 0, 0)
	assert.ErrorIs(t, err, errs.Argument)
	_, err = d.CablesBetween(0, 0)
	assert.ErrorIs(t, err, errs.Argument)
	_, _, err = d.Link(0, 0)
	assert.ErrorIs(t, err, errs.Argument)
}

func TestMaxBundle(t *testing.T) {
	for _, c := range [][2]int{{1, 0}, {2, 240}, {6, 48}, {7, 40}, {8, 34}, {16, 16}, {17, 15}, {241, 1}} {
		b, err := dragonfly.MaxBundle(c[0])
		require.NoError(t, err)
		assert.Equal(t, c[1], b, "%d groups", c[0])
	}
	for _, bad := range []int{0, -1, 242} {
		_, err := dragonfly.MaxBundle(bad)
		require.Error(t, err)
		assert.ErrorIs(t, err, errs.Argument)
		assert.Contains(t, err.Error(), "MaxBundle")
		assert.Contains(t, err.Error(), fmt.Sprintf("%d groups", bad))
	}
}

// Bad inputs give errors that name the function and the bad value, never a
// panic.
func TestRejected(t *testing.T) {
	cases := []struct {
		name  string
		call  func() error
		wants []string
	}{
		{"no groups", func() error { _, err := dragonfly.NewDragonfly(0, 1); return err }, []string{"NewDragonfly", "0 groups"}},
		{"too many groups", func() error { _, err := dragonfly.NewDragonfly(242, 1); return err }, []string{"NewDragonfly", "242 groups", "241"}},
		{"negative bundle", func() error { _, err := dragonfly.NewDragonfly(3, -1); return err }, []string{"NewDragonfly", "-1 cables"}},
		{"negative bundle, one group", func() error { _, err := dragonfly.NewDragonfly(1, -2); return err }, []string{"-2 cables"}},
		{"zero bundle", func() error { _, err := dragonfly.NewDragonfly(2, 0); return err }, []string{"0 cables", "2 groups"}},
		{"bundle too big", func() error { _, err := dragonfly.NewDragonfly(8, 35); return err }, []string{"35 cables", "8 groups", "34"}},
		{"bundle too big, 241 groups", func() error { _, err := dragonfly.NewDragonfly(241, 2); return err }, []string{"2 cables", "241 groups"}},
		{"no cabinets", func() error { _, err := dragonfly.ForCabinets(0, 0); return err }, []string{"ForCabinets", "0 cabinets"}},
		{"too many cabinets", func() error { _, err := dragonfly.ForCabinets(483, 1); return err }, []string{"ForCabinets", "483 cabinets", "482"}},
		{"cabinets, bad bundle", func() error { _, err := dragonfly.ForCabinets(16, 40); return err }, []string{"ForCabinets", "40 cables", "8 groups"}},
		{"no chassis", func() error { _, err := dragonfly.ForChassis(-3, 0); return err }, []string{"ForChassis", "-3 chassis"}},
		{"too many chassis", func() error { _, err := dragonfly.ForChassis(1447, 1); return err }, []string{"ForChassis", "1447 chassis", "1446"}},
		{"partial group cannot reach all", func() error { _, err := dragonfly.ForChassis(240*6+1, 1); return err },
			[]string{"ForChassis", "1 chassis", "40 cable connectors", "240 other groups"}},
		{"total cables", func() error { _, err := dragonfly.TotalCables(6, 49); return err }, []string{"TotalCables", "49 cables", "6 groups", "48"}},
		{"bisection cables", func() error { _, err := dragonfly.BisectionCables(0, 1); return err }, []string{"BisectionCables", "0 groups"}},
		{"bisection bandwidth", func() error { _, err := dragonfly.BisectionBandwidth(8, -1); return err }, []string{"BisectionBandwidth", "-1 cables"}},
		{"group bisection", func() error { _, _, err := dragonfly.GroupBisectionLinks(7); return err }, []string{"GroupBisectionLinks", "7 chassis"}},
		{"group bisection bandwidth", func() error { _, err := dragonfly.GroupBisectionBandwidth(0); return err }, []string{"GroupBisectionBandwidth", "0 chassis"}},
		{"payload, no flits", func() error { _, err := dragonfly.PayloadEfficiency(64, 0); return err }, []string{"PayloadEfficiency", "64 bytes in 0 flits"}},
		{"payload, too much", func() error { _, err := dragonfly.PayloadEfficiency(91, 15); return err }, []string{"91 bytes in 15 flits"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			require.Error(t, err)
			assert.ErrorIs(t, err, errs.Argument)
			for _, w := range c.wants {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// Methods taking ids reject ids outside the system with an error naming the
// method and the id.
func TestRejectedIDs(t *testing.T) {
	d, err := dragonfly.ForCabinets(13, 12) // 7 groups, the last of 3 chassis: 624 Aries
	require.NoError(t, err)
	require.Equal(t, 624, d.Aries())
	check := func(err error, wants ...string) {
		t.Helper()
		require.Error(t, err)
		assert.ErrorIs(t, err, errs.Argument)
		for _, w := range wants {
			assert.Contains(t, err.Error(), w)
		}
	}
	_, err = d.AriesLocation(624)
	check(err, "AriesLocation", "Aries 624")
	_, err = d.AriesLocation(-1)
	check(err, "AriesLocation", "Aries -1")
	_, err = d.AriesAt(dragonfly.AriesLoc{6, 3, 0}) // the last group has chassis 0..2
	check(err, "AriesAt", "g6c3s0")
	_, err = d.AriesAt(dragonfly.AriesLoc{0, 0, 16})
	check(err, "AriesAt", "g0c0s16")
	_, err = d.AriesAt(dragonfly.AriesLoc{7, 0, 0})
	check(err, "AriesAt", "g7c0s0")
	_, err = d.NodeAt(dragonfly.NodeLoc{0, 0, 0, 4})
	check(err, "NodeAt", "g0c0s0n4")
	_, err = d.NodeAt(dragonfly.NodeLoc{-1, 0, 0, 0})
	check(err, "NodeAt", "g-1c0s0n0")
	_, err = d.NodeLocation(2496)
	check(err, "NodeLocation", "node 2496")
	_, err = d.AriesOfNode(-5)
	check(err, "AriesOfNode", "node -5")
	_, err = d.GreenNeighbors(9999)
	check(err, "GreenNeighbors", "Aries 9999")
	_, err = d.BlackNeighbors(-2)
	check(err, "BlackNeighbors", "Aries -2")
	_, _, err = d.Link(700, 0)
	check(err, "Link", "Aries 700")
	_, _, err = d.Link(0, 40)
	check(err, "Link", "port 40")
	_, _, err = d.Link(0, -1)
	check(err, "Link", "port -1")
	_, err = d.ChassisInGroup(7)
	check(err, "ChassisInGroup", "group 7")
	_, err = d.CablesBetween(0, 7)
	check(err, "CablesBetween", "group 7")
	_, err = d.GlobalLink(-1, 2, 0)
	check(err, "GlobalLink", "group -1")
	_, err = d.GlobalLink(0, 1, 48)
	check(err, "GlobalLink", "link 48", "[0,48)")
	_, err = d.GlobalLink(2, 2, 0)
	check(err, "GlobalLink", "link 0", "[0,0)")
	_, err = d.GlobalOwners(0, 8)
	check(err, "GlobalOwners", "group 8")
	_, err = d.Minimal(624, 0, 0)
	check(err, "Minimal", "source Aries 624")
	_, err = d.Minimal(0, -1, 0)
	check(err, "Minimal", "destination Aries -1")
	_, err = d.MinimalChoices(0, 1000)
	check(err, "MinimalChoices", "destination Aries 1000")
	_, err = d.MinimalVia(0, 1, 0, 0)
	check(err, "MinimalVia", "Aries 0 and 1", "group 0")
	_, err = d.MinimalVia(0, 100, 48, 0)
	check(err, "MinimalVia", "link 48")
	_, err = d.MinimalVia(0, 100, -1, 0)
	check(err, "MinimalVia", "link -1")
	_, err = d.NonMinimal(0, 1, 624, 0, 0)
	check(err, "NonMinimal", "intermediate Aries 624")
	_, err = d.NonMinimal(-7, 1, 0, 0, 0)
	check(err, "NonMinimal", "source Aries -7")
}

// The largest system (241 groups, 92,544 nodes) builds and routes in
// bounded memory: nothing is tabulated per link or per pair.
func TestLargestSystemMemory(t *testing.T) {
	pairs := 100000
	if testing.Short() {
		pairs = 10000
	}
	var before, built, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	d, err := dragonfly.NewDragonfly(dragonfly.MaxGroups, 1)
	require.NoError(t, err)
	runtime.ReadMemStats(&built)
	rng := rand.New(rand.NewPCG(testSeed, dragonfly.MaxGroups))
	hops := 0
	for range pairs {
		src, dst, via := rng.IntN(d.Aries()), rng.IntN(d.Aries()), rng.IntN(d.Aries())
		p, err := d.Minimal(src, dst, rng.Uint64())
		if err != nil {
			require.NoError(t, err)
		}
		nm, err := d.NonMinimal(src, dst, via, rng.Uint64(), rng.Uint64())
		if err != nil {
			require.NoError(t, err)
		}
		hops += len(p) + len(nm)
	}
	elapsed := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	buildBytes := built.TotalAlloc - before.TotalAlloc
	routeBytes := after.TotalAlloc - built.TotalAlloc
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%v: build allocated %d B; %d pairs (minimal + non-minimal, %d hops) allocated %.1f MiB in all, "+
		"heap growth after GC %+d B (%.3f MiB); %v",
		d, buildBytes, pairs, hops, float64(routeBytes)/testMiB, growth, float64(growth)/testMiB, elapsed)
	assert.Equal(t, dragonfly.MaxNodes, d.Nodes())
	assert.Less(t, buildBytes, uint64(64<<10), "the system is a few integers, not a table")
	assert.Less(t, growth, int64(64*testMiB), "routing retains nothing")
	// Each route allocates only its own path.
	assert.Less(t, routeBytes, uint64(pairs)*uint64(dragonfly.MaxMinimalHops+dragonfly.MaxNonMinimalHops)*64)
}
