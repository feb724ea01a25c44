package aries

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/errs"
)

// topoTestGB is a decimal gigabyte, the unit of the whitepaper's GB/s.
const topoTestGB = 1e9

// topoTestMiB is a binary mebibyte, for memory figures.
const topoTestMiB = 1 << 20

// topoTestSeed fixes every random sample.
const topoTestSeed = 20121101

// topoTestSystem is a named system used by several tests.
type topoTestSystem struct {
	name string
	d    *Dragonfly
}

// topoTestSystems builds the system sizes the routing tests run on: the
// brief's 1 chassis, 1 group, 2 groups, 16 groups and 241 groups, plus
// Table 2's systems, a full 6-group system and two with a partial last
// group (one whose bundles fit, one whose bundles are cut short).
func topoTestSystems(t *testing.T) []topoTestSystem {
	t.Helper()
	mk := func(name string, d *Dragonfly, err error) topoTestSystem {
		require.NoError(t, err, name)
		return topoTestSystem{name, d}
	}
	chassis1, err1 := ForChassis(1, 0)
	chassis4, err4 := ForChassis(4, 0)
	group1, errG := NewDragonfly(1, 0)
	two, err2 := NewDragonfly(2, 12)
	twoFull, err2f := NewDragonfly(2, 240)
	six, err6 := ForCabinets(12, 12)
	sixFull, err6f := NewDragonfly(6, 48)
	eight, err8 := ForCabinets(16, 12)
	thirteen, err13 := ForCabinets(13, 12)
	sixteen, err16 := NewDragonfly(16, 15)
	cut, errCut := ForChassis(30*ChassisPerGroup+1, 8)
	largest, errL := NewDragonfly(MaxGroups, 1)
	return []topoTestSystem{
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

// Whitepaper, Dragonfly Implementation, Table 1, Aries Router and Aries
// Performance (CALIBRATION.md A-GROUP, A-TILE).
func TestTopoConstants(t *testing.T) {
	// A-GROUP: 6 chassis x 16 Aries x 4 nodes.
	assert.Equal(t, 384, NodesPerGroup)
	assert.Equal(t, 96, AriesPerGroup, "Table 1: 96 Aries per group")
	assert.Equal(t, 64, NodesPerChassis)
	assert.Equal(t, 192, NodesPerCabinet)
	assert.Equal(t, 6, ChassisPerGroup)
	assert.Equal(t, 15, GreenLinksPerAries, "all-to-all in a chassis")
	assert.Equal(t, 3, BlackLinksPerPeer)
	assert.Equal(t, 15, BlackLinksPerAries)
	assert.Equal(t, 10, GlobalLinksPerAries)
	assert.Equal(t, 4, LinksPerCable, "global links in sets of four")
	assert.Equal(t, 960, GlobalLinksPerGroup)
	assert.Equal(t, 240, MaxCablesPerGroup)
	assert.Equal(t, 241, MaxGroups)
	assert.Equal(t, 92544, MaxNodes)
	assert.Equal(t, 40, CablesPerChassis)
	// Table 1: (5×16×6)/2 = 240 9X copper cables, each a set of 3 black
	// links; (40×6)/2 = 120 optical cables per group.
	assert.Equal(t, 240, BlackLinksPerAries/BlackLinksPerPeer*AriesPerGroup/2)
	assert.Equal(t, 120, CablesPerChassis*ChassisPerGroup/2)
	assert.Equal(t, 9, BlackLinksPerPeer*LanesPerLink, "9X copper cable")

	// Aries Router: 48 tiles in 6 x 8, 40 network and 8 processor.
	assert.Equal(t, 48, TileRows*TileColumns)
	assert.Equal(t, 40, NetworkPortsPerAries)
	assert.Equal(t, TileRows*TileColumns, NetworkPortsPerAries+ProcessorPortsPerAries)
	assert.Equal(t, 8, ProcessorPortsPerAries)
	assert.Equal(t, [3]int{0, 15, 30}, [3]int{FirstGreenPort, FirstBlackPort, FirstGlobalPort})

	// Aries: 120 network SerDes = 40 ports x 3 lanes.
	assert.Equal(t, 120, NetworkPortsPerAries*LanesPerLink)
	// Aries Performance: 3 lanes at 14 Gb/s is 5.25 GB/s raw; an AOC of 12
	// lanes at 12.5 Gb/s is 18.75 GB/s; the optical link is the "4.7" of
	// "4.7 to 5.25 GB/s per direction per port" (Aries).
	assert.Equal(t, 5.25e9, float64(ElectricalLinkBytesPerSecond))
	assert.Equal(t, 4.6875e9, float64(OpticalLinkBytesPerSecond))
	assert.InDelta(t, 4.7, OpticalLinkBytesPerSecond/topoTestGB, 0.05)
	assert.Equal(t, 12, LanesPerCable)
	assert.Equal(t, 18.75e9, float64(CableBytesPerSecond))
	assert.Equal(t, float64(CableBytesPerSecond), LinksPerCable*float64(OpticalLinkBytesPerSecond))

	// A-TILE: one 48-bit flit per cycle at 875 MHz is 5.25 GB/s.
	assert.Equal(t, 6, FlitBytes)
	assert.Equal(t, 5.25e9, float64(TileBytesPerSecond))
	// The LCB's 60-byte set of ten flits, one of them overhead.
	assert.Equal(t, 60, LCBFlitsPerSet*FlitBytes)
	assert.Equal(t, 9, LCBDataFlitsPerSet)

	// Route lengths (Cray XC Routing; A-HOP's 500 ns at 100 ns a hop).
	assert.Equal(t, 5, MaxMinimalHops)
	assert.Equal(t, 10, MaxNonMinimalHops)
}

func TestTopoStrings(t *testing.T) {
	assert.Equal(t, "green", LinkGreen.String())
	assert.Equal(t, "black", LinkBlack.String())
	assert.Equal(t, "global", LinkGlobal.String())
	assert.Equal(t, "LinkClass(7)", LinkClass(7).String())
	assert.Equal(t, "g3c2s15", AriesLoc{3, 2, 15}.String())
	assert.Equal(t, "g3c2s15n1", NodeLoc{3, 2, 15, 1}.String())
	assert.Equal(t, "1:2 -black-> 3:4", Hop{LinkBlack, 1, 2, 3, 4}.String())
	assert.Equal(t, "empty", Path(nil).String())
	assert.Equal(t, "1 -green-> 2 -global-> 200",
		Path{{LinkGreen, 1, 0, 2, 0}, {LinkGlobal, 2, 30, 200, 31}}.String())

	d, err := ForCabinets(16, 12)
	require.NoError(t, err)
	assert.Equal(t, "8 groups (3072 nodes), bundles of 12 cables", d.String())
	d, err = ForCabinets(13, 12)
	require.NoError(t, err)
	assert.Equal(t, "6 groups + 1 of 3 chassis (2496 nodes), bundles of 12 cables", d.String())
	d, err = ForChassis(2, 0)
	require.NoError(t, err)
	assert.Equal(t, "1 group of 2 chassis (128 nodes)", d.String())
	d, err = NewDragonfly(1, 7)
	require.NoError(t, err)
	assert.Equal(t, "1 group (384 nodes)", d.String())
}

func TestTopoPortClass(t *testing.T) {
	for port := range NetworkPortsPerAries {
		c, ok := PortClass(port)
		require.True(t, ok, "port %d", port)
		switch {
		case port < 15:
			assert.Equal(t, LinkGreen, c, "port %d", port)
		case port < 30:
			assert.Equal(t, LinkBlack, c, "port %d", port)
		default:
			assert.Equal(t, LinkGlobal, c, "port %d", port)
		}
	}
	for _, bad := range []int{-1, 40, 1000} {
		_, ok := PortClass(bad)
		assert.False(t, ok, "port %d", bad)
	}
}

// Whitepaper, Dragonfly Implementation and Cray XC Series Configuration:
// group, cabinet and chassis counts (A-GROUP).
func TestTopoConstructors(t *testing.T) {
	cases := []struct {
		name                                 string
		build                                func() (*Dragonfly, error)
		groups, full, chassis, nodes, lastCh int
		bundle                               int
	}{
		{"1 chassis", func() (*Dragonfly, error) { return ForChassis(1, 0) }, 1, 0, 1, 64, 1, 0},
		{"1 cabinet", func() (*Dragonfly, error) { return ForCabinets(1, 0) }, 1, 0, 3, 192, 3, 0},
		{"2 cabinets", func() (*Dragonfly, error) { return ForCabinets(2, 0) }, 1, 1, 6, 384, 6, 0},
		{"1 group, bundle ignored", func() (*Dragonfly, error) { return NewDragonfly(1, 12) }, 1, 1, 6, 384, 6, 0},
		{"12 cabinets", func() (*Dragonfly, error) { return ForCabinets(12, 12) }, 6, 6, 36, 2304, 6, 12},
		{"13 cabinets", func() (*Dragonfly, error) { return ForCabinets(13, 12) }, 7, 6, 39, 2496, 3, 12},
		{"16 cabinets", func() (*Dragonfly, error) { return ForCabinets(16, 12) }, 8, 8, 48, 3072, 6, 12},
		{"64 cabinets", func() (*Dragonfly, error) { return ForCabinets(64, 6) }, 32, 32, 192, 12288, 6, 6},
		{"7 chassis", func() (*Dragonfly, error) { return ForChassis(7, 240) }, 2, 1, 7, 448, 1, 240},
		{"largest by groups", func() (*Dragonfly, error) { return NewDragonfly(241, 1) }, 241, 241, 1446, 92544, 6, 1},
		{"largest by cabinets", func() (*Dragonfly, error) { return ForCabinets(482, 1) }, 241, 241, 1446, 92544, 6, 1},
		{"largest by chassis", func() (*Dragonfly, error) { return ForChassis(1446, 1) }, 241, 241, 1446, 92544, 6, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.build()
			require.NoError(t, err)
			assert.Equal(t, c.groups, d.Groups())
			assert.Equal(t, c.full, d.FullGroups())
			assert.Equal(t, c.chassis, d.Chassis())
			assert.Equal(t, c.nodes, d.Nodes())
			assert.Equal(t, c.nodes/NodesPerAries, d.Aries())
			assert.Equal(t, c.bundle, d.Bundle())
			last, err := d.ChassisInGroup(d.Groups() - 1)
			require.NoError(t, err)
			assert.Equal(t, c.lastCh, last)
			if d.Groups() > 1 {
				first, err := d.ChassisInGroup(0)
				require.NoError(t, err)
				assert.Equal(t, ChassisPerGroup, first)
			}
		})
	}
	// Every cabinet count holds 192 nodes per cabinet.
	for cab := 1; cab <= MaxCabinets; cab++ {
		groups := (cab + 1) / 2
		bundle, err := MaxBundle(groups)
		require.NoError(t, err)
		d, err := ForCabinets(cab, bundle)
		if cab%2 == 1 && groups-1 > ChassisPerCabinet*CablesPerChassis {
			// A half group has too few connectors for a cable to each
			// other group.
			require.Error(t, err, "%d cabinets", cab)
			continue
		}
		require.NoError(t, err, "%d cabinets", cab)
		require.Equal(t, cab*NodesPerCabinet, d.Nodes(), "%d cabinets", cab)
	}
}

// The zero Dragonfly is empty and rejects every id.
func TestTopoZeroDragonfly(t *testing.T) {
	var d Dragonfly
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

func TestTopoMaxBundle(t *testing.T) {
	for _, c := range [][2]int{{1, 0}, {2, 240}, {6, 48}, {7, 40}, {8, 34}, {16, 16}, {17, 15}, {241, 1}} {
		b, err := MaxBundle(c[0])
		require.NoError(t, err)
		assert.Equal(t, c[1], b, "%d groups", c[0])
	}
	for _, bad := range []int{0, -1, 242} {
		_, err := MaxBundle(bad)
		require.Error(t, err)
		assert.ErrorIs(t, err, errs.Argument)
		assert.Contains(t, err.Error(), "MaxBundle")
		assert.Contains(t, err.Error(), fmt.Sprintf("%d groups", bad))
	}
}

// Bad inputs give errors that name the function and the bad value, never a
// panic.
func TestTopoRejected(t *testing.T) {
	cases := []struct {
		name  string
		call  func() error
		wants []string
	}{
		{"no groups", func() error { _, err := NewDragonfly(0, 1); return err }, []string{"NewDragonfly", "0 groups"}},
		{"too many groups", func() error { _, err := NewDragonfly(242, 1); return err }, []string{"NewDragonfly", "242 groups", "241"}},
		{"negative bundle", func() error { _, err := NewDragonfly(3, -1); return err }, []string{"NewDragonfly", "-1 cables"}},
		{"negative bundle, one group", func() error { _, err := NewDragonfly(1, -2); return err }, []string{"-2 cables"}},
		{"zero bundle", func() error { _, err := NewDragonfly(2, 0); return err }, []string{"0 cables", "2 groups"}},
		{"bundle too big", func() error { _, err := NewDragonfly(8, 35); return err }, []string{"35 cables", "8 groups", "34"}},
		{"bundle too big, 241 groups", func() error { _, err := NewDragonfly(241, 2); return err }, []string{"2 cables", "241 groups"}},
		{"no cabinets", func() error { _, err := ForCabinets(0, 0); return err }, []string{"ForCabinets", "0 cabinets"}},
		{"too many cabinets", func() error { _, err := ForCabinets(483, 1); return err }, []string{"ForCabinets", "483 cabinets", "482"}},
		{"cabinets, bad bundle", func() error { _, err := ForCabinets(16, 40); return err }, []string{"ForCabinets", "40 cables", "8 groups"}},
		{"no chassis", func() error { _, err := ForChassis(-3, 0); return err }, []string{"ForChassis", "-3 chassis"}},
		{"too many chassis", func() error { _, err := ForChassis(1447, 1); return err }, []string{"ForChassis", "1447 chassis", "1446"}},
		{"partial group cannot reach all", func() error { _, err := ForChassis(240*6+1, 1); return err },
			[]string{"ForChassis", "1 chassis", "40 cable connectors", "240 other groups"}},
		{"total cables", func() error { _, err := TotalCables(6, 49); return err }, []string{"TotalCables", "49 cables", "6 groups", "48"}},
		{"bisection cables", func() error { _, err := BisectionCables(0, 1); return err }, []string{"BisectionCables", "0 groups"}},
		{"bisection bandwidth", func() error { _, err := BisectionBandwidth(8, -1); return err }, []string{"BisectionBandwidth", "-1 cables"}},
		{"group bisection", func() error { _, _, err := GroupBisectionLinks(7); return err }, []string{"GroupBisectionLinks", "7 chassis"}},
		{"group bisection bandwidth", func() error { _, err := GroupBisectionBandwidth(0); return err }, []string{"GroupBisectionBandwidth", "0 chassis"}},
		{"payload, no flits", func() error { _, err := PayloadEfficiency(64, 0); return err }, []string{"PayloadEfficiency", "64 bytes in 0 flits"}},
		{"payload, too much", func() error { _, err := PayloadEfficiency(91, 15); return err }, []string{"91 bytes in 15 flits"}},
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
func TestTopoRejectedIDs(t *testing.T) {
	d, err := ForCabinets(13, 12) // 7 groups, the last of 3 chassis: 624 Aries
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
	_, err = d.AriesAt(AriesLoc{6, 3, 0}) // the last group has chassis 0..2
	check(err, "AriesAt", "g6c3s0")
	_, err = d.AriesAt(AriesLoc{0, 0, 16})
	check(err, "AriesAt", "g0c0s16")
	_, err = d.AriesAt(AriesLoc{7, 0, 0})
	check(err, "AriesAt", "g7c0s0")
	_, err = d.NodeAt(NodeLoc{0, 0, 0, 4})
	check(err, "NodeAt", "g0c0s0n4")
	_, err = d.NodeAt(NodeLoc{-1, 0, 0, 0})
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

// Node and Aries ids round-trip through their positions, densely, in every
// system, with a partial last group too.
func TestTopoAddressing(t *testing.T) {
	for _, sys := range topoTestSystems(t) {
		d := sys.d
		next := 0
		for g := range d.Groups() {
			nc, err := d.ChassisInGroup(g)
			require.NoError(t, err)
			for c := range nc {
				for s := range AriesPerChassis {
					l := AriesLoc{g, c, s}
					a, err := d.AriesAt(l)
					if err != nil || a != next {
						t.Fatalf("%s: AriesAt(%v) = %d, %v; want %d (dense, group-major)", sys.name, l, a, err, next)
					}
					next++
					if back, err := d.AriesLocation(a); err != nil || back != l {
						t.Fatalf("%s: AriesLocation(%d) = %v, %v; want %v", sys.name, a, back, err, l)
					}
					for nic := range NodesPerAries {
						nl := NodeLoc{g, c, s, nic}
						n, err := d.NodeAt(nl)
						if err != nil || n != a*NodesPerAries+nic {
							t.Fatalf("%s: NodeAt(%v) = %d, %v; want %d", sys.name, nl, n, err, a*NodesPerAries+nic)
						}
						if back, err := d.NodeLocation(n); err != nil || back != nl || back.Aries() != l {
							t.Fatalf("%s: NodeLocation(%d) = %v, %v; want %v", sys.name, n, back, err, nl)
						}
						if an, err := d.AriesOfNode(n); err != nil || an != a {
							t.Fatalf("%s: AriesOfNode(%d) = %d, %v; want %d", sys.name, n, an, err, a)
						}
					}
				}
			}
		}
		assert.Equal(t, d.Aries(), next, sys.name)
	}
}

// Green all-to-all in a chassis, three black links to the same slot in
// every other chassis (A-GROUP), at most 10 global links, and every cabled
// port's far end leads back.
func TestTopoNeighborsAndPorts(t *testing.T) {
	for _, sys := range topoTestSystems(t) {
		d := sys.d
		globalPorts := 0
		for a := range d.Aries() {
			loc := topoTestLoc(t, d, a)
			nc, err := d.ChassisInGroup(loc.Group)
			require.NoError(t, err)

			var wantGreen, wantBlack []int
			for s := range AriesPerChassis {
				if s != loc.Slot {
					wantGreen = append(wantGreen, topoID(loc.Group, loc.Chassis, s))
				}
			}
			for c := range nc {
				if c != loc.Chassis {
					for range BlackLinksPerPeer {
						wantBlack = append(wantBlack, topoID(loc.Group, c, loc.Slot))
					}
				}
			}
			green, err := d.GreenNeighbors(a)
			require.NoError(t, err)
			black, err := d.BlackNeighbors(a)
			require.NoError(t, err)
			if !slices.Equal(green, wantGreen) || !slices.Equal(black, slices.Compact(slices.Clone(wantBlack))) {
				t.Fatalf("%s: Aries %v: green %v black %v; want %v and %v", sys.name, loc, green, black, wantGreen, wantBlack)
			}

			// Every port: its class, its far end and back again.
			var perClass [LinkClassCount]int
			var greenTo, blackTo []int
			for port := range NetworkPortsPerAries {
				h, ok, err := d.Link(a, port)
				require.NoError(t, err)
				class, _ := PortClass(port)
				if !ok {
					if class == LinkGreen {
						t.Fatalf("%s: Aries %v: green port %d not cabled", sys.name, loc, port)
					}
					continue
				}
				toClass, _ := PortClass(h.ToPort)
				if h.Class != class || toClass != class || h.From != a || h.FromPort != port {
					t.Fatalf("%s: Link(%d, %d) = %v", sys.name, a, port, h)
				}
				back, ok, err := d.Link(h.To, h.ToPort)
				if err != nil || !ok || back != (Hop{h.Class, h.To, h.ToPort, h.From, h.FromPort}) {
					t.Fatalf("%s: %v leads back by %v, %v, %v", sys.name, h, back, ok, err)
				}
				perClass[class]++
				switch class {
				case LinkGreen:
					greenTo = append(greenTo, h.To)
				case LinkBlack:
					blackTo = append(blackTo, h.To)
				case LinkGlobal:
					if h.To/AriesPerGroup == a/AriesPerGroup {
						t.Fatalf("%s: global link %v within a group", sys.name, h)
					}
				}
			}
			slices.Sort(greenTo)
			slices.Sort(blackTo)
			if !slices.Equal(greenTo, wantGreen) || !slices.Equal(blackTo, wantBlack) ||
				perClass[LinkGlobal] > GlobalLinksPerAries {
				t.Fatalf("%s: Aries %v: ports lead to green %v, black %v, %d global", sys.name, loc, greenTo, blackTo, perClass[LinkGlobal])
			}
			globalPorts += perClass[LinkGlobal]
		}
		assert.Equal(t, 2*LinksPerCable*d.TotalCables(), globalPorts, "%s: cabled global ports", sys.name)
	}
}

// The global wiring: bundles of the configured size, the link numbering of
// GlobalLink agrees with Link, and bundles are spread over the chassis.
func TestTopoGlobalWiring(t *testing.T) {
	for _, sys := range topoTestSystems(t) {
		d := sys.d
		groups := d.Groups()
		total := 0
		for ga := range groups {
			for gb := range groups {
				n, err := d.CablesBetween(ga, gb)
				require.NoError(t, err)
				owners, err := d.GlobalOwners(ga, gb)
				require.NoError(t, err)
				if ga == gb {
					if n != 0 || len(owners) != 0 {
						t.Fatalf("%s: group %d to itself: %d cables, owners %v", sys.name, ga, n, owners)
					}
					continue
				}
				if nBack, _ := d.CablesBetween(gb, ga); n < 1 || nBack != n {
					t.Fatalf("%s: groups %d and %d: %d and %d cables", sys.name, ga, gb, n, nBack)
				}
				if ga < d.FullGroups() && gb < d.FullGroups() && n != d.Bundle() {
					t.Fatalf("%s: full groups %d and %d: %d cables, want %d", sys.name, ga, gb, n, d.Bundle())
				}
				if ga < gb {
					total += n
				}
				var seen []int
				for i := range LinksPerCable * n {
					h, err := d.GlobalLink(ga, gb, i)
					require.NoError(t, err)
					link, ok, err := d.Link(h.From, h.FromPort)
					rev, errRev := d.GlobalLink(gb, ga, i)
					if err != nil || errRev != nil || !ok || h.Class != LinkGlobal || link != h ||
						rev != (Hop{LinkGlobal, h.To, h.ToPort, h.From, h.FromPort}) ||
						h.From/AriesPerGroup != ga || h.To/AriesPerGroup != gb {
						t.Fatalf("%s: GlobalLink(%d, %d, %d) = %v; Link gives %v, %v; reverse %v", sys.name, ga, gb, i, h, link, ok, rev)
					}
					seen = append(seen, h.From)
				}
				slices.Sort(seen)
				if !slices.Equal(slices.Compact(seen), owners) {
					t.Fatalf("%s: GlobalOwners(%d, %d) = %v, want %v", sys.name, ga, gb, owners, seen)
				}
			}
		}
		assert.Equal(t, d.TotalCables(), total, sys.name)
	}

	// Whitepaper, Cray XC Series Configuration: bundles that are a multiple
	// of six cables allow single-chassis granularity; the wiring spreads
	// such a bundle evenly, bundle/6 cables from each chassis.
	d, err := ForCabinets(12, 12)
	require.NoError(t, err)
	for ga := range d.Groups() {
		for gb := range d.Groups() {
			if ga == gb {
				continue
			}
			var perChassis [ChassisPerGroup]int
			for i := range LinksPerCable * 12 {
				h, err := d.GlobalLink(ga, gb, i)
				require.NoError(t, err)
				perChassis[topoTestLoc(t, d, h.From).Chassis]++
			}
			for c, n := range perChassis {
				assert.Equal(t, 12/ChassisPerGroup*LinksPerCable, n, "groups %d->%d chassis %d", ga, gb, c)
			}
		}
	}

	// A full network uses every global port, 240 cables per group.
	for _, c := range [][2]int{{2, 240}, {5, 60}, {7, 40}, {241, 1}} {
		d, err := NewDragonfly(c[0], c[1])
		require.NoError(t, err)
		used := 0
		for a := range AriesPerGroup {
			for p := range GlobalLinksPerAries {
				_, ok, err := d.Link(a, FirstGlobalPort+p)
				require.NoError(t, err)
				if ok {
					used++
				}
			}
		}
		assert.Equal(t, GlobalLinksPerGroup, used, "%d groups x %d", c[0], c[1])
	}

	// A partial last group whose connectors cannot host every bundle keeps
	// at least one cable to every group, and uses all of its connectors.
	d, err = ForChassis(30*ChassisPerGroup+1, 8)
	require.NoError(t, err)
	used := 0
	for a := 30 * AriesPerGroup; a < d.Aries(); a++ {
		for p := range GlobalLinksPerAries {
			_, ok, err := d.Link(a, FirstGlobalPort+p)
			require.NoError(t, err)
			if ok {
				used++
			}
		}
	}
	assert.Equal(t, CablesPerChassis*LinksPerCable, used)
	// Its 40 connectors hold the first cable of all 30 bundles, then the
	// second of the bundles to its first 10 peers, groups 0 to 9.
	for g := range 30 {
		n, err := d.CablesBetween(g, 30)
		require.NoError(t, err)
		want := 1
		if g < 10 {
			want = 2
		}
		assert.Equal(t, want, n, "group %d", g)
	}
}

// The whitepaper's example (Cray XC Routing): "in a full bandwidth system
// with six groups and 48 cables from each group to each of the other
// groups, each Aries will be directly connected to all of the other groups,
// reducing the minimal path length to three".
func TestTopoMinimalSixGroupsFull(t *testing.T) {
	d, err := NewDragonfly(6, 48)
	require.NoError(t, err)
	for a := range d.Aries() {
		reach := map[int]int{}
		for p := range GlobalLinksPerAries {
			h, ok, err := d.Link(a, FirstGlobalPort+p)
			require.NoError(t, err)
			require.True(t, ok)
			reach[h.To/AriesPerGroup]++
		}
		require.Len(t, reach, 5, "Aries %d reaches every other group", a)
	}
	rng := rand.New(rand.NewPCG(topoTestSeed, 6))
	longest := 0
	for range topoTestPairs() {
		src, dst := rng.IntN(d.Aries()), rng.IntN(d.Aries())
		p, err := d.Minimal(src, dst, rng.Uint64())
		require.NoError(t, err)
		topoTestCheckMinimal(t, d, src, dst, p)
		if src/AriesPerGroup != dst/AriesPerGroup && p[0].Class != LinkGlobal {
			t.Fatalf("Minimal(%d, %d) = %v does not use the source's own global link", src, dst, p)
		}
		longest = max(longest, len(p))
	}
	assert.Equal(t, 3, longest)
}

// topoTestGroupHops counts the hops of a path made in one group.
type topoTestGroupHops struct {
	group int
	n     [LinkClassCount]int
}

// topoTestCheckPath checks that p is a route from src to dst over real
// links, and returns its hops per group (by the group a hop leaves) and
// class, groups in order of first visit.
func topoTestCheckPath(t *testing.T, d *Dragonfly, src, dst int, p Path) []topoTestGroupHops {
	t.Helper()
	var groups []topoTestGroupHops
	at := src
	for _, h := range p {
		link, ok, err := d.Link(h.From, h.FromPort)
		if h.From != at || err != nil || !ok || link != h {
			t.Fatalf("path %v from %d: hop %v is not a link from %d (%v, %v, %v)", p, src, h, at, link, ok, err)
		}
		g := h.From / AriesPerGroup
		i := slices.IndexFunc(groups, func(x topoTestGroupHops) bool { return x.group == g })
		if i < 0 {
			groups = append(groups, topoTestGroupHops{group: g})
			i = len(groups) - 1
		}
		groups[i].n[h.Class]++
		at = h.To
	}
	if at != dst {
		t.Fatalf("path %v from %d ends at %d, not %d", p, src, at, dst)
	}
	return groups
}

// topoTestCheckMinimal checks A-MINHOPS for a minimal path.
func topoTestCheckMinimal(t *testing.T, d *Dragonfly, src, dst int, p Path) {
	t.Helper()
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	for _, g := range topoTestCheckPath(t, d, src, dst, p) {
		if g.n[LinkGreen] > 1 || g.n[LinkBlack] > 1 || (g.group != gs && g.group != gd) {
			t.Fatalf("minimal path %v from %d to %d: %v green/black/global hops in group %d", p, src, dst, g.n, g.group)
		}
	}
	wantGlobal, most := 1, MaxMinimalHops
	if gs == gd {
		wantGlobal, most = 0, MaxLocalMinimalHops
	}
	if p.Count(LinkGlobal) != wantGlobal || len(p) > most {
		t.Fatalf("minimal path %v from %d to %d: %d global hops, want %d; %d hops, at most %d",
			p, src, dst, p.Count(LinkGlobal), wantGlobal, len(p), most)
	}
}

// topoTestPairs is the number of random pairs per system in the routing
// tests.
func topoTestPairs() int {
	if testing.Short() {
		return 1000
	}
	return 5000
}

// Whitepaper, Cray XC Routing (A-MINHOPS): a minimal route takes at most
// one green and one black hop in each group and exactly one global hop
// between groups; a non-minimal route at most 10 hops, within a group at
// most two green and two black.
func TestTopoRoutes(t *testing.T) {
	for _, sys := range topoTestSystems(t) {
		d := sys.d
		rng := rand.New(rand.NewPCG(topoTestSeed, uint64(d.Chassis())))
		var hist [MaxNonMinimalHops + 1]int
		for range topoTestPairs() {
			src, dst, via := rng.IntN(d.Aries()), rng.IntN(d.Aries()), rng.IntN(d.Aries())
			choice := rng.Uint64()
			p, err := d.Minimal(src, dst, choice)
			require.NoError(t, err)
			topoTestCheckMinimal(t, d, src, dst, p)
			again, err := d.Minimal(src, dst, choice)
			require.NoError(t, err)
			n, err := d.MinimalChoices(src, dst)
			require.NoError(t, err)
			mod, err := d.Minimal(src, dst, choice%uint64(n))
			require.NoError(t, err)
			if !slices.Equal(p, again) || !slices.Equal(p, mod) {
				t.Fatalf("%s: Minimal(%d, %d, %d) = %v, then %v; modulo %d: %v", sys.name, src, dst, choice, p, again, n, mod)
			}

			// Every global link gives a minimal route too.
			if gs, gd := src/AriesPerGroup, dst/AriesPerGroup; gs != gd {
				cables, err := d.CablesBetween(gs, gd)
				require.NoError(t, err)
				link := rng.IntN(LinksPerCable * cables)
				pv, err := d.MinimalVia(src, dst, link, choice)
				require.NoError(t, err)
				topoTestCheckMinimal(t, d, src, dst, pv)
				gl, err := d.GlobalLink(gs, gd, link)
				require.NoError(t, err)
				if !slices.Contains(pv, gl) {
					t.Fatalf("%s: MinimalVia(%d, %d, %d) = %v does not use %v", sys.name, src, dst, link, pv, gl)
				}
			}

			up, down := rng.Uint64(), rng.Uint64()
			nm, err := d.NonMinimal(src, dst, via, up, down)
			require.NoError(t, err)
			upPath, err := d.Minimal(src, via, up)
			require.NoError(t, err)
			downPath, err := d.Minimal(via, dst, down)
			require.NoError(t, err)
			if !slices.Equal(append(upPath, downPath...), nm) {
				t.Fatalf("%s: NonMinimal(%d, %d, via %d) = %v, not up %v then down %v", sys.name, src, dst, via, nm, upPath, downPath)
			}
			perGroup := topoTestCheckPath(t, d, src, dst, nm)
			if len(nm) > MaxNonMinimalHops {
				t.Fatalf("%s: non-minimal path %v: %d hops", sys.name, nm, len(nm))
			}
			hist[len(nm)]++
			if g := src / AriesPerGroup; g == dst/AriesPerGroup && g == via/AriesPerGroup && len(nm) > 0 {
				// Local non-minimal: up to two green and two black hops.
				if n := perGroup[0].n; len(perGroup) != 1 || n[LinkGreen] > 2 || n[LinkBlack] > 2 || n[LinkGlobal] > 0 {
					t.Fatalf("%s: local non-minimal path %v: %v", sys.name, nm, perGroup)
				}
			}
		}
		t.Logf("%v: non-minimal hops (hops:share)%s", d, topoTestHistogram(hist[:]))
	}
}

// topoTestHistogram formats a histogram as shares.
func topoTestHistogram(hist []int) string {
	total := 0
	for _, n := range hist {
		total += n
	}
	var b strings.Builder
	for hops, n := range hist {
		if n > 0 {
			fmt.Fprintf(&b, " %d:%.1f%%", hops, 100*float64(n)/float64(total))
		}
	}
	return b.String()
}

// Whitepaper, Cray XC Routing: "Most non-minimal paths are shorter than
// this (six or seven hops) in all but the largest systems" (A-MINHOPS).
// The intermediate Aries is drawn uniformly from the whole system, as the
// route tables "distribute non-minimal traffic uniformly over all routers".
// The whitepaper does not say where "the largest systems" begin: 32 groups
// is only logged.
func TestTopoNonMinimalMostlySixOrSeven(t *testing.T) {
	const (
		logOnly          = iota
		mostlySixOrSeven // more than half the routes, and the mode
		longer           // the mode is above 7
	)
	cases := []struct {
		name           string
		groups, bundle int
		want           int
	}{
		{"12 cabinets, bundles of 12", 6, 12, mostlySixOrSeven},
		{"16 cabinets, bundles of 12", 8, 12, mostlySixOrSeven},
		{"16 cabinets, full", 8, 34, mostlySixOrSeven},
		{"16 groups, full", 16, 15, mostlySixOrSeven},
		{"64 cabinets, bundles of 6", 32, 6, logOnly},
		{"241 groups: the largest system", MaxGroups, 1, longer},
	}
	for _, c := range cases {
		d, err := NewDragonfly(c.groups, c.bundle)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(topoTestSeed, uint64(c.groups)))
		var hist [MaxNonMinimalHops + 1]int
		pairs := 4 * topoTestPairs()
		for range pairs {
			src, dst, via := rng.IntN(d.Aries()), rng.IntN(d.Aries()), rng.IntN(d.Aries())
			p, err := d.NonMinimal(src, dst, via, rng.Uint64(), rng.Uint64())
			require.NoError(t, err)
			hist[len(p)]++
		}
		share := float64(hist[6]+hist[7]) / float64(pairs)
		mode := 0
		for h := range hist {
			if hist[h] > hist[mode] {
				mode = h
			}
		}
		t.Logf("%s (%v): non-minimal hops%s; 6 or 7: %.1f%%, mode %d",
			c.name, d, topoTestHistogram(hist[:]), 100*share, mode)
		switch c.want {
		case mostlySixOrSeven:
			assert.Greater(t, share, 0.5, c.name)
			assert.Contains(t, []int{6, 7}, mode, c.name)
		case longer:
			assert.Greater(t, mode, 7, c.name)
		}
	}
}

// Every choice in [0, MinimalChoices) gives a valid route, together they
// reach every candidate link, and every candidate is among the links
// nearest the source.
func TestTopoMinimalChoices(t *testing.T) {
	d, err := ForCabinets(16, 12) // 8 groups, 48 links between each pair
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(topoTestSeed, 16))
	for range 200 {
		src, dst := rng.IntN(d.Aries()), rng.IntN(d.Aries())
		n, err := d.MinimalChoices(src, dst)
		require.NoError(t, err)
		gs, gd := src/AriesPerGroup, dst/AriesPerGroup
		switch {
		case src == dst:
			require.Equal(t, 1, n)
		case gs == gd:
			require.Equal(t, 6, n)
		default:
			require.Zero(t, n%36)
		}
		paths := map[string]bool{}
		links := map[Hop]bool{}
		nearest := MaxLocalMinimalHops
		for choice := range n {
			p, err := d.Minimal(src, dst, uint64(choice))
			require.NoError(t, err)
			topoTestCheckMinimal(t, d, src, dst, p)
			paths[fmt.Sprint([]Hop(p))] = true // with ports, so lanes count
			for _, h := range p {
				if h.Class == LinkGlobal {
					links[h] = true
					nearest = min(nearest, topoLocalDistance(src, h.From))
					require.Equal(t, nearest, topoLocalDistance(src, h.From), "candidates are equally near")
				}
			}
		}
		if gs != gd {
			require.Len(t, links, n/36)
			// No global link between the groups is nearer src.
			cables, err := d.CablesBetween(gs, gd)
			require.NoError(t, err)
			for i := range LinksPerCable * cables {
				h, err := d.GlobalLink(gs, gd, i)
				require.NoError(t, err)
				dist := topoLocalDistance(src, h.From)
				require.GreaterOrEqual(t, dist, nearest)
				require.Equal(t, dist == nearest, links[h], "link %v", h)
			}
		}
		// Both orders and all three lanes of a two-hop local segment occur.
		if sl, dl := topoTestLoc(t, d, src), topoTestLoc(t, d, dst); gs == gd && sl.Chassis != dl.Chassis && sl.Slot != dl.Slot {
			require.Len(t, paths, 6, "two orders x three lanes")
		}
	}
}

// topoTestLoc is AriesLocation that must succeed.
func topoTestLoc(t *testing.T, d *Dragonfly, a int) AriesLoc {
	t.Helper()
	l, err := d.AriesLocation(a)
	require.NoError(t, err)
	return l
}

// The two ways of finding the candidate links agree.
func TestTopoCandidateMethodsAgree(t *testing.T) {
	for _, c := range [][2]int{{2, 12}, {6, 12}, {8, 34}, {16, 15}, {241, 1}} {
		d, err := NewDragonfly(c[0], c[1])
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(topoTestSeed, uint64(c[0])))
		for range 2000 {
			src := rng.IntN(d.Aries())
			gs, gd := src/AriesPerGroup, rng.IntN(d.Groups()-1)
			if gd >= gs {
				gd++
			}
			var scan, near [topoScanLinks]int
			ns, alls := d.topoScanCandidates(src, gs, gd, &scan)
			nn, alln := d.topoNearCandidates(src, gs, gd, &near)
			require.Equal(t, ns, nn, "%v: Aries %d to group %d", d, src, gd)
			require.Equal(t, alls, alln)
			if !alls {
				require.Equal(t, scan[:ns], near[:nn])
			}
		}
	}
}

// Whitepaper, Cray XC Series Configuration, Tables 2 and 3 (A-BISECT).
func TestTopoBisectionTables(t *testing.T) {
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
		d, err := ForCabinets(r.cabinets, r.bundle)
		require.NoError(t, err, name)
		require.Equal(t, r.groups, d.Groups(), name)
		require.Equal(t, r.groups, d.FullGroups(), name)
		assert.Equal(t, r.total, d.TotalCables(), name)

		total, err := TotalCables(r.groups, r.bundle)
		require.NoError(t, err)
		assert.Equal(t, r.total, total, name)
		crossing, err := BisectionCables(r.groups, r.bundle)
		require.NoError(t, err)
		assert.Equal(t, r.crossing, crossing, name)
		bw, err := BisectionBandwidth(r.groups, r.bundle)
		require.NoError(t, err)
		assert.Equal(t, r.bisectionGBs*topoTestGB, bw, name)

		// The whitepaper's formula (Aries Performance), with bundle x
		// (G-1) cables per group.
		g := float64(r.groups)
		formula := 18.75 * g / (2 * (g - 1)) * float64(r.bundle*(r.groups-1)) * g
		assert.InDelta(t, r.bisectionGBs, formula, 1e-9, name)
	}
	// The full rows use the largest bundles (Cray XC Series Configuration:
	// inter-group cables <= FLOOR(240 / (groups - 1))).
	for _, c := range [][2]int{{6, 48}, {8, 34}} {
		b, err := MaxBundle(c[0])
		require.NoError(t, err)
		assert.Equal(t, c[1], b)
	}
	// Two groups: every cable crosses (the ratio G/2(G-1) is one).
	n, err := BisectionCables(2, 240)
	require.NoError(t, err)
	assert.Equal(t, 240, n)
	// Odd groups: the best cut splits 3 | 4.
	n, err = BisectionCables(7, 10)
	require.NoError(t, err)
	assert.Equal(t, 3*4*10, n)
	// One group has no cables to cut.
	n, err = BisectionCables(1, 0)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// Whitepaper, Aries Performance (A-GLOBAL): "Peak global bandwidth is 11.7
// GB/s per node for a full network. With the payload efficiency of 64
// percent this equates to 7.5 GB/s per direction."
func TestTopoGlobalBandwidth(t *testing.T) {
	assert.Equal(t, 11.7, math.Round(PeakGlobalBytesPerSecondPerNode/topoTestGB*10)/10)
	eff, err := PayloadEfficiency(64, 15)
	require.NoError(t, err)
	assert.InDelta(t, 7.5e9, PeakGlobalBytesPerSecondPerNode*eff, 1)

	// Full networks: every connector of every group is used.
	for _, c := range [][2]int{{2, 240}, {5, 60}, {7, 40}, {MaxGroups, 1}} {
		d, err := NewDragonfly(c[0], c[1])
		require.NoError(t, err)
		assert.InDelta(t, PeakGlobalBytesPerSecondPerNode, d.GlobalBandwidthPerNode(), 1, "%v", d)
		// "link bandwidth × global links per group × groups".
		assert.InDelta(t, OpticalLinkBytesPerSecond*GlobalLinksPerGroup*float64(c[0]), d.GlobalBandwidth(), 1, "%v", d)
	}
	// 8 groups of 34: 238 of 240 connectors, "the number of optical ports
	// per group does not divide evenly into the number of other groups".
	d, err := NewDragonfly(8, 34)
	require.NoError(t, err)
	assert.InDelta(t, PeakGlobalBytesPerSecondPerNode*238/240, d.GlobalBandwidthPerNode(), 1)
	// Table 3's 12-cabinet partial network uses a quarter of the ports.
	d, err = ForCabinets(12, 12)
	require.NoError(t, err)
	assert.InDelta(t, PeakGlobalBytesPerSecondPerNode/4, d.GlobalBandwidthPerNode(), 1)
	// A single group has no global network.
	d, err = NewDragonfly(1, 0)
	require.NoError(t, err)
	assert.Zero(t, d.GlobalBandwidth())
}

// Whitepaper, Aries Performance (A-GREEN): "In each electrical group 384
// links cross the bisection in the green dimension and 432 cross in the
// black dimension. The green dimension sets the lower limit of 384 × 5.25 ×
// 2 = 4032 GB/s."
func TestTopoGroupBisection(t *testing.T) {
	green, black, err := GroupBisectionLinks(ChassisPerGroup)
	require.NoError(t, err)
	assert.Equal(t, 384, green)
	assert.Equal(t, 432, black)
	bw, err := GroupBisectionBandwidth(ChassisPerGroup)
	require.NoError(t, err)
	assert.Equal(t, 4032*topoTestGB, bw)

	// Smaller groups: one chassis has no black cut; two chassis are cut
	// in black (48 links) before green (128).
	green, black, err = GroupBisectionLinks(1)
	require.NoError(t, err)
	assert.Equal(t, [2]int{64, 0}, [2]int{green, black})
	bw, err = GroupBisectionBandwidth(1)
	require.NoError(t, err)
	assert.Equal(t, 64*2*5.25*topoTestGB, bw)
	green, black, err = GroupBisectionLinks(2)
	require.NoError(t, err)
	assert.Equal(t, [2]int{128, 48}, [2]int{green, black})
	bw, err = GroupBisectionBandwidth(2)
	require.NoError(t, err)
	assert.Equal(t, 48*2*5.25*topoTestGB, bw)
}

// Whitepaper, Aries Performance (A-EFF): "(64 bytes/15 flits) × (9 flits/60
// bytes) = 64 percent", for puts (14 + 1 flits) and gets (3 + 12).
func TestTopoPayloadEfficiency(t *testing.T) {
	put, err := PayloadEfficiency(64, 14+1)
	require.NoError(t, err)
	assert.InDelta(t, 0.64, put, 1e-12)
	get, err := PayloadEfficiency(64, 3+12)
	require.NoError(t, err)
	assert.Equal(t, put, get)
	assert.InDelta(t, 64.0/15*9/60, put, 1e-12)
	full, err := PayloadEfficiency(60, 10)
	require.NoError(t, err)
	assert.InDelta(t, 0.9, full, 1e-12, "a flit-full payload loses only the LCB's flit in 10")
}

// The largest system (241 groups, 92,544 nodes) builds and routes in
// bounded memory: nothing is tabulated per link or per pair.
func TestTopoLargestSystemMemory(t *testing.T) {
	pairs := 100000
	if testing.Short() {
		pairs = 10000
	}
	var before, built, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	d, err := NewDragonfly(MaxGroups, 1)
	require.NoError(t, err)
	runtime.ReadMemStats(&built)
	rng := rand.New(rand.NewPCG(topoTestSeed, MaxGroups))
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
		d, buildBytes, pairs, hops, float64(routeBytes)/topoTestMiB, growth, float64(growth)/topoTestMiB, elapsed)
	assert.Equal(t, MaxNodes, d.Nodes())
	assert.Less(t, buildBytes, uint64(64<<10), "the system is a few integers, not a table")
	assert.Less(t, growth, int64(64*topoTestMiB), "routing retains nothing")
	// Each route allocates only its own path.
	assert.Less(t, routeBytes, uint64(pairs)*uint64(MaxMinimalHops+MaxNonMinimalHops)*64)
}

// ExampleDragonfly_Minimal routes between two nodes of Table 3's 16-cabinet
// system.
func ExampleDragonfly_Minimal() {
	d, err := ForCabinets(16, 12)
	if err != nil {
		panic(err)
	}
	src, _ := d.AriesOfNode(0)
	dst, _ := d.AriesAt(AriesLoc{Group: 5, Chassis: 3, Slot: 9})
	p, _ := d.Minimal(src, dst, 0)
	fmt.Println(len(p), "hops:", p.Count(LinkGreen), "green,", p.Count(LinkBlack), "black,", p.Count(LinkGlobal), "global")
	// Output: 3 hops: 1 green, 1 black, 1 global
}
