package dragonfly_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly"
)

// The global wiring: bundles of the configured size, the link numbering of
// GlobalLink agrees with Link, and bundles are spread over the chassis.
func TestGlobalWiring(t *testing.T) {
	for _, sys := range testSystems(t) {
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
				for i := range dragonfly.LinksPerCable * n {
					h, err := d.GlobalLink(ga, gb, i)
					require.NoError(t, err)
					link, ok, err := d.Link(h.From, h.FromPort)
					rev, errRev := d.GlobalLink(gb, ga, i)
					if err != nil || errRev != nil || !ok || h.Class != dragonfly.LinkGlobal || link != h ||
						rev != (dragonfly.Hop{dragonfly.LinkGlobal, h.To, h.ToPort, h.From, h.FromPort}) ||
						h.From/dragonfly.AriesPerGroup != ga || h.To/dragonfly.AriesPerGroup != gb {
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
	d, err := dragonfly.ForCabinets(12, 12)
	require.NoError(t, err)
	for ga := range d.Groups() {
		for gb := range d.Groups() {
			if ga == gb {
				continue
			}
			var perChassis [dragonfly.ChassisPerGroup]int
			for i := range dragonfly.LinksPerCable * 12 {
				h, err := d.GlobalLink(ga, gb, i)
				require.NoError(t, err)
				perChassis[testLoc(t, d, h.From).Chassis]++
			}
			for c, n := range perChassis {
				assert.Equal(t, 12/dragonfly.ChassisPerGroup*dragonfly.LinksPerCable, n, "groups %d->%d chassis %d", ga, gb, c)
			}
		}
	}

	// A full network uses every global port, 240 cables per group.
	for _, c := range [][2]int{{2, 240}, {5, 60}, {7, 40}, {241, 1}} {
		d, err := dragonfly.NewDragonfly(c[0], c[1])
		require.NoError(t, err)
		used := 0
		for a := range dragonfly.AriesPerGroup {
			for p := range dragonfly.GlobalLinksPerAries {
				_, ok, err := d.Link(a, dragonfly.FirstGlobalPort+p)
				require.NoError(t, err)
				if ok {
					used++
				}
			}
		}
		assert.Equal(t, dragonfly.GlobalLinksPerGroup, used, "%d groups x %d", c[0], c[1])
	}

	// A partial last group whose connectors cannot host every bundle keeps
	// at least one cable to every group, and uses all of its connectors.
	d, err = dragonfly.ForChassis(30*dragonfly.ChassisPerGroup+1, 8)
	require.NoError(t, err)
	used := 0
	for a := 30 * dragonfly.AriesPerGroup; a < d.Aries(); a++ {
		for p := range dragonfly.GlobalLinksPerAries {
			_, ok, err := d.Link(a, dragonfly.FirstGlobalPort+p)
			require.NoError(t, err)
			if ok {
				used++
			}
		}
	}
	assert.Equal(t, dragonfly.CablesPerChassis*dragonfly.LinksPerCable, used)
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
