package dragonfly_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly"
)

func TestStrings(t *testing.T) {
	assert.Equal(t, "green", dragonfly.LinkGreen.String())
	assert.Equal(t, "black", dragonfly.LinkBlack.String())
	assert.Equal(t, "global", dragonfly.LinkGlobal.String())
	assert.Equal(t, "LinkClass(7)", dragonfly.LinkClass(7).String())
	assert.Equal(t, "g3c2s15", dragonfly.AriesLoc{3, 2, 15}.String())
	assert.Equal(t, "g3c2s15n1", dragonfly.NodeLoc{3, 2, 15, 1}.String())
	assert.Equal(t, "1:2 -black-> 3:4", dragonfly.Hop{dragonfly.LinkBlack, 1, 2, 3, 4}.String())
	assert.Equal(t, "empty", dragonfly.Path(nil).String())
	assert.Equal(t, "1 -green-> 2 -global-> 200",
		dragonfly.Path{{dragonfly.LinkGreen, 1, 0, 2, 0}, {dragonfly.LinkGlobal, 2, 30, 200, 31}}.String())

	d, err := dragonfly.ForCabinets(16, 12)
	require.NoError(t, err)
	assert.Equal(t, "8 groups (3072 nodes), bundles of 12 cables", d.String())
	d, err = dragonfly.ForCabinets(13, 12)
	require.NoError(t, err)
	assert.Equal(t, "6 groups + 1 of 3 chassis (2496 nodes), bundles of 12 cables", d.String())
	d, err = dragonfly.ForChassis(2, 0)
	require.NoError(t, err)
	assert.Equal(t, "1 group of 2 chassis (128 nodes)", d.String())
	d, err = dragonfly.NewDragonfly(1, 7)
	require.NoError(t, err)
	assert.Equal(t, "1 group (384 nodes)", d.String())
}

func TestPortClass(t *testing.T) {
	for port := range dragonfly.NetworkPortsPerAries {
		c, ok := dragonfly.PortClass(port)
		require.True(t, ok, "port %d", port)
		switch {
		case port < 15:
			assert.Equal(t, dragonfly.LinkGreen, c, "port %d", port)
		case port < 30:
			assert.Equal(t, dragonfly.LinkBlack, c, "port %d", port)
		default:
			assert.Equal(t, dragonfly.LinkGlobal, c, "port %d", port)
		}
	}
	for _, bad := range []int{-1, 40, 1000} {
		_, ok := dragonfly.PortClass(bad)
		assert.False(t, ok, "port %d", bad)
	}
}

// Node and Aries ids round-trip through their positions, densely, in every
// system, with a partial last group too.
func TestAddressing(t *testing.T) {
	for _, sys := range testSystems(t) {
		d := sys.d
		next := 0
		for g := range d.Groups() {
			nc, err := d.ChassisInGroup(g)
			require.NoError(t, err)
			for c := range nc {
				for s := range dragonfly.AriesPerChassis {
					l := dragonfly.AriesLoc{g, c, s}
					a, err := d.AriesAt(l)
					if err != nil || a != next {
						t.Fatalf("%s: AriesAt(%v) = %d, %v; want %d (dense, group-major)", sys.name, l, a, err, next)
					}
					next++
					if back, err := d.AriesLocation(a); err != nil || back != l {
						t.Fatalf("%s: AriesLocation(%d) = %v, %v; want %v", sys.name, a, back, err, l)
					}
					for nic := range dragonfly.NodesPerAries {
						nl := dragonfly.NodeLoc{g, c, s, nic}
						n, err := d.NodeAt(nl)
						if err != nil || n != a*dragonfly.NodesPerAries+nic {
							t.Fatalf("%s: NodeAt(%v) = %d, %v; want %d", sys.name, nl, n, err, a*dragonfly.NodesPerAries+nic)
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
func TestNeighborsAndPorts(t *testing.T) {
	for _, sys := range testSystems(t) {
		d := sys.d
		globalPorts := 0
		for a := range d.Aries() {
			loc := testLoc(t, d, a)
			nc, err := d.ChassisInGroup(loc.Group)
			require.NoError(t, err)

			var wantGreen, wantBlack []int
			for s := range dragonfly.AriesPerChassis {
				if s != loc.Slot {
					wantGreen = append(wantGreen, dragonfly.FromCoords(loc.Group, loc.Chassis, s))
				}
			}
			for c := range nc {
				if c != loc.Chassis {
					for range dragonfly.BlackLinksPerPeer {
						wantBlack = append(wantBlack, dragonfly.FromCoords(loc.Group, c, loc.Slot))
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
			var perClass [dragonfly.LinkClassCount]int
			var greenTo, blackTo []int
			for port := range dragonfly.NetworkPortsPerAries {
				h, ok, err := d.Link(a, port)
				require.NoError(t, err)
				class, _ := dragonfly.PortClass(port)
				if !ok {
					if class == dragonfly.LinkGreen {
						t.Fatalf("%s: Aries %v: green port %d not cabled", sys.name, loc, port)
					}
					continue
				}
				toClass, _ := dragonfly.PortClass(h.ToPort)
				if h.Class != class || toClass != class || h.From != a || h.FromPort != port {
					t.Fatalf("%s: Link(%d, %d) = %v", sys.name, a, port, h)
				}
				back, ok, err := d.Link(h.To, h.ToPort)
				if err != nil || !ok || back != (dragonfly.Hop{h.Class, h.To, h.ToPort, h.From, h.FromPort}) {
					t.Fatalf("%s: %v leads back by %v, %v, %v", sys.name, h, back, ok, err)
				}
				perClass[class]++
				switch class {
				case dragonfly.LinkGreen:
					greenTo = append(greenTo, h.To)
				case dragonfly.LinkBlack:
					blackTo = append(blackTo, h.To)
				case dragonfly.LinkGlobal:
					if h.To/dragonfly.AriesPerGroup == a/dragonfly.AriesPerGroup {
						t.Fatalf("%s: global link %v within a group", sys.name, h)
					}
				}
			}
			slices.Sort(greenTo)
			slices.Sort(blackTo)
			if !slices.Equal(greenTo, wantGreen) || !slices.Equal(blackTo, wantBlack) ||
				perClass[dragonfly.LinkGlobal] > dragonfly.GlobalLinksPerAries {
				t.Fatalf("%s: Aries %v: ports lead to green %v, black %v, %d global", sys.name, loc, greenTo, blackTo, perClass[dragonfly.LinkGlobal])
			}
			globalPorts += perClass[dragonfly.LinkGlobal]
		}
		assert.Equal(t, 2*dragonfly.LinksPerCable*d.TotalCables(), globalPorts, "%s: cabled global ports", sys.name)
	}
}
