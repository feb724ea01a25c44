package dragonfly_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly"
	"github.com/gopgas/gopgas/aries/dragonfly/dragonflytest"
)

// testPairs is the number of random pairs per system in the routing
// tests.
func testPairs() int {
	if testing.Short() {
		return 1000
	}
	return 5000
}

// The whitepaper's example (Cray XC Routing): "in a full bandwidth system
// with six groups and 48 cables from each group to each of the other
// groups, each Aries will be directly connected to all of the other groups,
// reducing the minimal path length to three".
func TestMinimalSixGroupsFull(t *testing.T) {
	d, err := dragonfly.NewDragonfly(6, 48)
	require.NoError(t, err)
	for a := range d.Aries() {
		reach := map[int]int{}
		for p := range dragonfly.GlobalLinksPerAries {
			h, ok, err := d.Link(a, dragonfly.FirstGlobalPort+p)
			require.NoError(t, err)
			require.True(t, ok)
			reach[h.To/dragonfly.AriesPerGroup]++
		}
		require.Len(t, reach, 5, "Aries %d reaches every other group", a)
	}
	rng := rand.New(rand.NewPCG(testSeed, 6))
	longest := 0
	for range testPairs() {
		src, dst := rng.IntN(d.Aries()), rng.IntN(d.Aries())
		p, err := d.Minimal(src, dst, rng.Uint64())
		require.NoError(t, err)
		dragonflytest.CheckMinimal(t, d, src, dst, p)
		if src/dragonfly.AriesPerGroup != dst/dragonfly.AriesPerGroup && p[0].Class != dragonfly.LinkGlobal {
			t.Fatalf("Minimal(%d, %d) = %v does not use the source's own global link", src, dst, p)
		}
		longest = max(longest, len(p))
	}
	assert.Equal(t, 3, longest)
}

// Whitepaper, Cray XC Routing (A-MINHOPS): a minimal route takes at most
// one green and one black hop in each group and exactly one global hop
// between groups; a non-minimal route at most 10 hops, within a group at
// most two green and two black.
func TestRoutes(t *testing.T) {
	for _, sys := range testSystems(t) {
		d := sys.d
		rng := rand.New(rand.NewPCG(testSeed, uint64(d.Chassis())))
		var hist [dragonfly.MaxNonMinimalHops + 1]int
		for range testPairs() {
			src, dst, via := rng.IntN(d.Aries()), rng.IntN(d.Aries()), rng.IntN(d.Aries())
			choice := rng.Uint64()
			p, err := d.Minimal(src, dst, choice)
			require.NoError(t, err)
			dragonflytest.CheckMinimal(t, d, src, dst, p)
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
			if gs, gd := src/dragonfly.AriesPerGroup, dst/dragonfly.AriesPerGroup; gs != gd {
				cables, err := d.CablesBetween(gs, gd)
				require.NoError(t, err)
				link := rng.IntN(dragonfly.LinksPerCable * cables)
				pv, err := d.MinimalVia(src, dst, link, choice)
				require.NoError(t, err)
				dragonflytest.CheckMinimal(t, d, src, dst, pv)
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
			perGroup := dragonflytest.CheckPath(t, d, src, dst, nm)
			if len(nm) > dragonfly.MaxNonMinimalHops {
				t.Fatalf("%s: non-minimal path %v: %d hops", sys.name, nm, len(nm))
			}
			hist[len(nm)]++
			if g := src / dragonfly.AriesPerGroup; g == dst/dragonfly.AriesPerGroup && g == via/dragonfly.AriesPerGroup && len(nm) > 0 {
				// Local non-minimal: up to two green and two black hops.
				if n := perGroup[0].N; len(perGroup) != 1 || n[dragonfly.LinkGreen] > 2 || n[dragonfly.LinkBlack] > 2 || n[dragonfly.LinkGlobal] > 0 {
					t.Fatalf("%s: local non-minimal path %v: %v", sys.name, nm, perGroup)
				}
			}
		}
		t.Logf("%v: non-minimal hops (hops:share)%s", d, dragonflytest.Histogram(hist[:]))
	}
}

// Whitepaper, Cray XC Routing: "Most non-minimal paths are shorter than
// this (six or seven hops) in all but the largest systems" (A-MINHOPS).
// The intermediate Aries is drawn uniformly from the whole system, as the
// route tables "distribute non-minimal traffic uniformly over all routers".
// The whitepaper does not say where "the largest systems" begin: 32 groups
// is only logged.
func TestNonMinimalMostlySixOrSeven(t *testing.T) {
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
		{"241 groups: the largest system", dragonfly.MaxGroups, 1, longer},
	}
	for _, c := range cases {
		d, err := dragonfly.NewDragonfly(c.groups, c.bundle)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(testSeed, uint64(c.groups)))
		var hist [dragonfly.MaxNonMinimalHops + 1]int
		pairs := 4 * testPairs()
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
			c.name, d, dragonflytest.Histogram(hist[:]), 100*share, mode)
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
func TestMinimalChoices(t *testing.T) {
	d, err := dragonfly.ForCabinets(16, 12) // 8 groups, 48 links between each pair
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(testSeed, 16))
	for range 200 {
		src, dst := rng.IntN(d.Aries()), rng.IntN(d.Aries())
		n, err := d.MinimalChoices(src, dst)
		require.NoError(t, err)
		gs, gd := src/dragonfly.AriesPerGroup, dst/dragonfly.AriesPerGroup
		switch {
		case src == dst:
			require.Equal(t, 1, n)
		case gs == gd:
			require.Equal(t, 6, n)
		default:
			require.Zero(t, n%36)
		}
		paths := map[string]bool{}
		links := map[dragonfly.Hop]bool{}
		nearest := dragonfly.MaxLocalMinimalHops
		for choice := range n {
			p, err := d.Minimal(src, dst, uint64(choice))
			require.NoError(t, err)
			dragonflytest.CheckMinimal(t, d, src, dst, p)
			paths[fmt.Sprint([]dragonfly.Hop(p))] = true // with ports, so lanes count
			for _, h := range p {
				if h.Class == dragonfly.LinkGlobal {
					links[h] = true
					nearest = min(nearest, dragonfly.LocalDistance(src, h.From))
					require.Equal(t, nearest, dragonfly.LocalDistance(src, h.From), "candidates are equally near")
				}
			}
		}
		if gs != gd {
			require.Len(t, links, n/36)
			// No global link between the groups is nearer src.
			cables, err := d.CablesBetween(gs, gd)
			require.NoError(t, err)
			for i := range dragonfly.LinksPerCable * cables {
				h, err := d.GlobalLink(gs, gd, i)
				require.NoError(t, err)
				dist := dragonfly.LocalDistance(src, h.From)
				require.GreaterOrEqual(t, dist, nearest)
				require.Equal(t, dist == nearest, links[h], "link %v", h)
			}
		}
		// Both orders and all three lanes of a two-hop local segment occur.
		if sl, dl := testLoc(t, d, src), testLoc(t, d, dst); gs == gd && sl.Chassis != dl.Chassis && sl.Slot != dl.Slot {
			require.Len(t, paths, 6, "two orders x three lanes")
		}
	}
}

// testLoc is AriesLocation that must succeed.
func testLoc(t *testing.T, d *dragonfly.Dragonfly, a int) dragonfly.AriesLoc {
	t.Helper()
	l, err := d.AriesLocation(a)
	require.NoError(t, err)
	return l
}

// The two ways of finding the candidate links agree.
func TestCandidateMethodsAgree(t *testing.T) {
	for _, c := range [][2]int{{2, 12}, {6, 12}, {8, 34}, {16, 15}, {241, 1}} {
		d, err := dragonfly.NewDragonfly(c[0], c[1])
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(testSeed, uint64(c[0])))
		for range 2000 {
			src := rng.IntN(d.Aries())
			gs, gd := src/dragonfly.AriesPerGroup, rng.IntN(d.Groups()-1)
			if gd >= gs {
				gd++
			}
			var scan, near [dragonfly.MaxCandidates]int
			ns, alls := d.ScanCandidates(src, gs, gd, &scan)
			nn, alln := d.NearCandidates(src, gs, gd, &near)
			require.Equal(t, ns, nn, "%v: Aries %d to group %d", d, src, gd)
			require.Equal(t, alls, alln)
			if !alls {
				require.Equal(t, scan[:ns], near[:nn])
			}
		}
	}
}

// The unchecked forms a simulator's routing uses give the checked forms'
// routes, and GreenFirst chooses routes that take their green hops first,
// on the lanes it names.
func TestUncheckedForms(t *testing.T) {
	// checkSegment checks a local segment: green before black, the black
	// hop on lane lane.
	checkSegment := func(p dragonfly.Path, lane uint64) {
		t.Helper()
		for i, h := range p {
			switch h.Class {
			case dragonfly.LinkGreen:
				require.Zero(t, i, "%v: the green hop comes first", p)
			case dragonfly.LinkBlack:
				require.Equal(t, lane, uint64(h.FromPort-dragonfly.FirstBlackPort)%dragonfly.BlackLinksPerPeer, "%v: lane", p)
			}
		}
	}
	for _, sys := range testSystems(t) {
		d := sys.d
		rng := rand.New(rand.NewPCG(testSeed, uint64(d.Chassis())+1))
		for range 200 {
			src, dst, choice := rng.IntN(d.Aries()), rng.IntN(d.Aries()), rng.Uint64()
			want, err := d.Minimal(src, dst, choice)
			require.NoError(t, err)
			require.True(t, slices.Equal(want, d.AppendMinimal(nil, src, dst, choice)), "%s: AppendMinimal(%d, %d)", sys.name, src, dst)
			sl, dl := rng.Uint64()%dragonfly.BlackLinksPerPeer, rng.Uint64()%dragonfly.BlackLinksPerPeer
			gs, gd := src/dragonfly.AriesPerGroup, dst/dragonfly.AriesPerGroup
			if gs == gd {
				p, err := d.Minimal(src, dst, dragonfly.GreenFirst(sl, 0))
				require.NoError(t, err)
				checkSegment(p, sl)
				continue
			}
			var buf [dragonfly.MaxCandidates]int
			n, all := d.CandidateLinks(src, gd, &buf)
			choices, err := d.MinimalChoices(src, dst)
			require.NoError(t, err)
			require.Equal(t, choices, 36*n, "%s: candidates from %d to group %d", sys.name, src, gd)
			k := rng.IntN(n)
			link := k
			if !all {
				link = buf[k]
			}
			via, err := d.MinimalVia(src, dst, link, dragonfly.GreenFirst(sl, dl))
			require.NoError(t, err)
			require.True(t, slices.Equal(via, d.AppendMinimalVia(nil, src, dst, link, dragonfly.GreenFirst(sl, dl))))
			m, err := d.Minimal(src, dst, uint64(k)+uint64(n)*dragonfly.GreenFirst(sl, dl))
			require.NoError(t, err)
			require.True(t, slices.Equal(m, via), "%s: candidate %d of %d is link %d: %v and %v", sys.name, k, n, link, m, via)
			g := slices.IndexFunc(via, func(h dragonfly.Hop) bool { return h.Class == dragonfly.LinkGlobal })
			checkSegment(via[:g], sl)
			checkSegment(via[g+1:], dl)
		}
	}
}
