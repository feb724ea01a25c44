package aries

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly/dragonflytest"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Tests of the network at the level of its routes: packets made up here
// and routed hop by hop through Route on a quiet network, and systems up
// to the largest.

const netTestSeed = 0x41726965 // "Arie"

// netTestNetwork builds a job of pes PEs, one per node, with the backend
// options opts, and returns its network (not run: every link is idle).
func netTestNetwork(t testing.TB, pes int, opts map[string]string) (*network, *simnet.Job) {
	t.Helper()
	o, err := parseOptions(opts)
	require.NoError(t, err)
	w := newNetwork(o)
	j, err := fabric.Open(w.config(), netTestJob(pes))
	require.NoError(t, err)
	w.routing.clock = j.K
	return w, j
}

// netTestJob is the configuration of a job of pes PEs, one per node, with
// the least memory.
func netTestJob(pes int) conduit.JobConfig {
	return conduit.JobConfig{PEs: pes, PEsPerNode: 1, SegmentBytes: 8, Ordering: conduit.OrderDefault, MailboxSlots: 1, PeerBurst: 1}
}

// netTestHop is a hop a packet took: its link's class, the group it left
// and the VC it took.
type netTestHop struct {
	class LinkClass
	group int
	vc    uint8
}

// netTestRoute routes a packet from Aries src to Aries dst, starting on
// virtual channel vc, hop by hop through Route, and returns its hops;
// false if Route dropped it.
func netTestRoute(t testing.TB, w *network, src, dst int, adaptive bool, hash uint64, vc uint8) ([]netTestHop, bool) {
	t.Helper()
	p := &fabric.Packet{VC: vc, Adaptive: adaptive, Src: int32(src * NodesPerAries), Dst: int32(dst * NodesPerAries), DstRouter: int32(dst), Hash: hash, Size: 14}
	var hops []netTestHop
	for r := w.routing.routers[src]; r.ID != dst; {
		c := w.Route(r, p)
		if c == nil {
			return hops, false
		}
		port := slices.Index(w.routing.out[r.ID][:], c)
		require.GreaterOrEqual(t, port, 0, "Route chose a channel that is not a link of Aries %d", r.ID)
		class, _ := PortClass(port)
		hops = append(hops, netTestHop{class, r.ID / AriesPerGroup, p.VC})
		r = c.To()
		if len(hops) > MaxNonMinimalHops {
			t.Fatalf("packet from %d to %d: more than %d hops: %v", src, dst, MaxNonMinimalHops, hops)
		}
	}
	return hops, true
}

// netTestCheck checks a route's virtual channels (in the packet's class,
// never decreasing, one more after each global hop) and, for a minimal
// route, A-MINHOPS: at most one green and one black hop in each group,
// exactly one global hop between groups, none within a group.
func netTestCheck(t testing.TB, hops []netTestHop, src, dst int, class uint8, minimal bool) {
	t.Helper()
	var per [MaxGroups][LinkClassCount]int
	globals := 0
	for i, h := range hops {
		if h.vc < class || h.vc >= class+RequestVCs || (i > 0 && h.vc < hops[i-1].vc) ||
			(i > 0 && hops[i-1].class == LinkGlobal && h.vc == hops[i-1].vc) {
			t.Fatalf("route %d to %d: VCs %v: not rising within [%d,%d) after each global hop", src, dst, hops, class, class+RequestVCs)
		}
		per[h.group][h.class]++
		if h.class == LinkGlobal {
			globals++
		}
	}
	if !minimal {
		return
	}
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	want := 1
	if gs == gd {
		want = 0
	}
	for g := range per {
		if per[g][LinkGreen] > 1 || per[g][LinkBlack] > 1 || (g != gs && g != gd && per[g] != [LinkClassCount]int{}) {
			t.Fatalf("minimal route %d to %d: %v green/black/global hops in group %d: %v", src, dst, per[g], g, hops)
		}
	}
	if globals != want || len(hops) > MaxMinimalHops {
		t.Fatalf("minimal route %d to %d: %d global hops (want %d), %d hops: %v", src, dst, globals, want, len(hops), hops)
	}
}

// netTestPairs is the number of random pairs the route tests try.
func netTestPairs() int {
	if testing.Short() || race.Enabled {
		return 500
	}
	return 3000
}

// A-MINHOPS for the routes packets take: deterministic packets, and
// adaptive packets on a quiet network (where the minimal candidates win),
// take minimal routes; a deterministic packet's route depends only on its
// hash; requests stay on VCs 0..3 and responses on 4..7.
func TestRouteMinimal(t *testing.T) {
	for _, groups := range []string{"1", "6"} {
		w, _ := netTestNetwork(t, 1, map[string]string{"groups": groups})
		rng := rand.New(rand.NewPCG(netTestSeed, 1))
		n := w.routing.df.Aries()
		hist := make([]int, MaxMinimalHops+1)
		for range netTestPairs() {
			src, dst, hash := rng.IntN(n), rng.IntN(n), rng.Uint64()
			for _, class := range []uint8{0, RequestVCs} {
				det, ok := netTestRoute(t, w, src, dst, false, hash, class)
				require.True(t, ok)
				netTestCheck(t, det, src, dst, class, true)
				again, _ := netTestRoute(t, w, src, dst, false, hash, class)
				require.Equal(t, det, again, "a deterministic route depends on the hash alone")
				hist[len(det)]++
				ad, ok := netTestRoute(t, w, src, dst, true, hash, class)
				require.True(t, ok)
				netTestCheck(t, ad, src, dst, class, true)
			}
		}
		t.Logf("%v: minimal hops (hops:share)%s", w.routing.df, dragonflytest.Histogram(hist))
		assert.Zero(t, w.routing.nonMinimalRoutes, "a quiet network routes minimally")
	}
}

// A-MINHOPS for non-minimal routes (the valiant option): at most 10 hops;
// between groups two global hops, mostly 6 or 7 hops in all on a 6- or
// 8-group system ("The maximum path length of a global non-minimal path is
// 10 hops. Most non-minimal paths are shorter than this (six or seven
// hops)", Cray XC Routing); within a group at most two green and two black
// hops.
func TestRouteNonMinimal(t *testing.T) {
	for _, sys := range []struct{ groups, bundle string }{{"6", "12"}, {"8", "34"}} {
		w, _ := netTestNetwork(t, 1, map[string]string{"groups": sys.groups, "bundle": sys.bundle, "valiant": "true"})
		rng := rand.New(rand.NewPCG(netTestSeed, 2))
		n := w.routing.df.Aries()
		var local, global [MaxNonMinimalHops + 1]int
		for range netTestPairs() {
			src, dst := rng.IntN(n), rng.IntN(n)
			hops, ok := netTestRoute(t, w, src, dst, true, rng.Uint64(), 0)
			require.True(t, ok)
			netTestCheck(t, hops, src, dst, 0, false)
			var per [LinkClassCount]int
			for _, h := range hops {
				per[h.class]++
			}
			if src/AriesPerGroup == dst/AriesPerGroup {
				local[len(hops)]++
				if per[LinkGreen] > 2 || per[LinkBlack] > 2 || per[LinkGlobal] > 0 {
					t.Fatalf("local non-minimal route %d to %d: %v", src, dst, hops)
				}
				continue
			}
			global[len(hops)]++
			if per[LinkGlobal] != 2 {
				t.Fatalf("non-minimal route %d to %d between groups: %d global hops: %v", src, dst, per[LinkGlobal], hops)
			}
		}
		total, mode := 0, 0
		for h, k := range global {
			total += k
			if k > global[mode] {
				mode = h
			}
		}
		share := float64(global[6]+global[7]) / float64(total)
		t.Logf("%v: non-minimal hops (hops:share) between groups%s (6 or 7: %.1f%%); within a group%s",
			w.routing.df, dragonflytest.Histogram(global[:]), 100*share, dragonflytest.Histogram(local[:]))
		assert.Greater(t, share, 0.5, "mostly six or seven hops")
		assert.Contains(t, []int{6, 7}, mode)
		assert.Zero(t, w.routing.minimalRoutes, "valiant: every adaptive packet non-minimal")
	}
}

// Adaptive routes avoid a failed link; deterministic packets whose route
// crosses it are dropped. (network_test.go runs jobs over failed and
// degraded links.)
func TestRouteFaults(t *testing.T) {
	// Aries 0's global ports to group 1 (of 3 groups, bundles of 1: four
	// links between each pair of groups).
	d, err := NewDragonfly(3, 1)
	require.NoError(t, err)
	link, err := d.GlobalLink(0, 1, 0)
	require.NoError(t, err)
	green := FirstGreenPort + 2
	faults := fmt.Sprintf("%d:%d; %d:%d:1", link.From, link.FromPort, link.From, green)
	w, _ := netTestNetwork(t, 1, map[string]string{"groups": "3", "bundle": "1", "fail": faults})
	failed := w.routing.out[link.From][link.FromPort]
	require.True(t, failed.Failed())
	require.True(t, w.routing.out[link.To][link.ToPort].Failed(), "both directions fail")
	assert.False(t, w.routing.out[link.From][green].Failed(), "a degraded link still works")

	rng := rand.New(rand.NewPCG(netTestSeed, 3))
	dropped := 0
	for range netTestPairs() {
		// From the failed link's Aries to group 1: the link is one of the
		// nearest, and half of them.
		dst := AriesPerGroup + rng.IntN(AriesPerGroup)
		hash := rng.Uint64()
		p := &fabric.Packet{Adaptive: true, DstRouter: int32(dst), Hash: hash}
		c := w.Route(w.routing.routers[link.From], p)
		require.NotNil(t, c)
		assert.NotSame(t, failed, c, "adaptive routing avoids the failed link")
		hops, ok := netTestRoute(t, w, link.From, dst, true, hash, 0)
		require.True(t, ok)
		netTestCheck(t, hops, link.From, dst, 0, false)
		if _, ok := netTestRoute(t, w, link.From, dst, false, hash, 0); !ok {
			dropped++
		}
	}
	t.Logf("deterministic packets through the failed link dropped: %d of %d", dropped, netTestPairs())
	assert.Positive(t, dropped)
}

// netTestClock is a clock the test sets.
type netTestClock struct{ now Time }

func (c *netTestClock) Now() Time { return c.now }

// The routing sees a remote link's load as sampled at the last multiple of
// LoadUpdatePeriod.
func TestRemoteLoadSampling(t *testing.T) {
	w, _ := netTestNetwork(t, 1, nil)
	clock := &netTestClock{now: 5 * LoadUpdatePeriod}
	w.routing.clock = clock
	assert.Zero(t, w.routing.sampled(0, 1), "a quiet link")
	i := 0*NetworkPortsPerAries + 1
	assert.Equal(t, 5*LoadUpdatePeriod, w.routing.snaps[i].at)
	w.routing.snaps[i].load = 7 // as if the link had been loaded at the sample
	clock.now += LoadUpdatePeriod - 1
	assert.Equal(t, 7, w.routing.sampled(0, 1), "the sample holds for a period")
	clock.now++
	assert.Zero(t, w.routing.sampled(0, 1), "then the next is taken")
	assert.Equal(t, 6*LoadUpdatePeriod, w.routing.snaps[i].at)
	assert.Equal(t, Time(11428), LoadUpdatePeriod, "10 cycles at 875 MHz")
}

// rerouteLoad makes the routing see link a:port as loaded by units, as
// sampled now.
func rerouteLoad(w *network, a, port, units int) {
	i := a*NetworkPortsPerAries + port
	w.routing.snaps[i].at = w.routing.clock.Now()
	w.routing.snaps[i].load = int32(units)
}

// rerouteWalk routes p hop by hop from Aries src to its destination Aries,
// calling before at each Aries after the source, and returns the hops.
func rerouteWalk(t *testing.T, w *network, src int, p *fabric.Packet, before func(a int)) []netTestHop {
	t.Helper()
	var hops []netTestHop
	for r := w.routing.routers[src]; r.ID != int(p.DstRouter); {
		if len(hops) > 0 && before != nil {
			before(r.ID)
		}
		c := w.Route(r, p)
		require.NotNil(t, c, "no way on from Aries %d after %v", r.ID, hops)
		port := slices.Index(w.routing.out[r.ID][:], c)
		class, _ := PortClass(port)
		hops = append(hops, netTestHop{class, r.ID / AriesPerGroup, p.VC})
		r = c.To()
		require.LessOrEqual(t, len(hops), MaxNonMinimalHops, "%v", hops)
	}
	return hops
}

// rerouteCheckOrder checks the invariant that keeps the network free of
// credit cycles: on each VC the hops go green, then black, then global,
// at most one of each.
func rerouteCheckOrder(t *testing.T, hops []netTestHop) {
	t.Helper()
	for i := 1; i < len(hops); i++ {
		if hops[i].vc == hops[i-1].vc && hops[i].class <= hops[i-1].class {
			t.Fatalf("hops %v: a %v hop after a %v hop on VC %d", hops, hops[i].class, hops[i-1].class, hops[i].vc)
		}
	}
}

// A packet whose minimal route turns out loaded beyond its first hop is
// rerouted at the next Aries, onto a non-minimal route that does not
// start with a hop of a class it has taken; with progressive=false it
// keeps its route.
func TestRerouteAtNextAries(t *testing.T) {
	for _, progressive := range []bool{true, false} {
		w, _ := netTestNetwork(t, 1, map[string]string{"groups": "6", "bundle": "2", "progressive": map[bool]string{true: "true", false: "false"}[progressive]})
		rng := rand.New(rand.NewPCG(netTestSeed, 3))
		n := w.routing.df.Aries()
		tried := 0
		for tried < 50 {
			src, dst := rng.IntN(n), rng.IntN(n)
			if src/AriesPerGroup == dst/AriesPerGroup {
				continue
			}
			p := &fabric.Packet{Adaptive: true, Src: int32(src * NodesPerAries), Dst: int32(dst * NodesPerAries), DstRouter: int32(dst), Size: 14}
			var before func(a int)
			loaded := false
			before = func(a int) {
				if loaded {
					return
				}
				loaded = true
				// The rest of the route, loaded from its second link
				// to its global link: the next Aries sees it.
				rest := slices.Clone(w.routing.remaining(a, p))
				for _, h := range rest[1:] {
					rerouteLoad(w, h.From, h.FromPort, 1000)
					if h.Class == LinkGlobal {
						break
					}
				}
			}
			r0 := w.routing.rerouted
			hops := rerouteWalk(t, w, src, p, before)
			rerouteCheckOrder(t, hops)
			// Only routes with a second hop before their global one give
			// the next Aries something to reconsider.
			if len(hops) < 3 || hops[0].class == LinkGlobal || hops[1].class == LinkGlobal && w.routing.rerouted == r0 {
				continue
			}
			tried++
			if progressive {
				assert.Equal(t, r0+1, w.routing.rerouted, "rerouted at the next Aries: %v", hops)
			} else {
				assert.Equal(t, r0, w.routing.rerouted)
			}
			for i := range w.routing.snaps {
				w.routing.snaps[i].load = 0
			}
		}
		t.Logf("progressive=%v: %d rerouted, %d of them non-minimal, of %d loaded routes", progressive, w.routing.rerouted, w.routing.reroutedNonMinimal, tried)
		if progressive {
			assert.Positive(t, w.routing.reroutedNonMinimal)
		}
	}
}

// Under loads that change at every hop, rerouted packets still reach
// their destination within MaxNonMinimalHops, their VCs rise by one after
// each global hop and at most to the class's last, and on each VC the
// hops keep the green, black, global order: rerouting adds no credit
// cycle.
func TestRerouteKeepsVCOrder(t *testing.T) {
	for _, sys := range []map[string]string{{"groups": "6", "bundle": "2"}, {"groups": "3", "bundle": "1"}, {"chassis": "6"}} {
		w, _ := netTestNetwork(t, 1, sys)
		rng := rand.New(rand.NewPCG(netTestSeed, 4))
		n := w.routing.df.Aries()
		for range netTestPairs() {
			src, dst := rng.IntN(n), rng.IntN(n)
			if src == dst {
				continue
			}
			for _, class := range []uint8{0, RequestVCs} {
				p := &fabric.Packet{VC: class, Adaptive: true, Src: int32(src * NodesPerAries), Dst: int32(dst * NodesPerAries), DstRouter: int32(dst), Size: 14}
				hops := rerouteWalk(t, w, src, p, func(a int) {
					// Load a few links of the Aries and its neighbours
					// at random.
					for range 8 {
						port := rng.IntN(NetworkPortsPerAries)
						if w.routing.out[a][port] != nil {
							rerouteLoad(w, a, port, rng.IntN(200))
						}
					}
				})
				netTestCheck(t, hops, src, dst, class, false)
				rerouteCheckOrder(t, hops)
			}
		}
		t.Logf("%v: %d routes chosen again after the source, %d of them non-minimal", w.routing.df, w.routing.rerouted, w.routing.reroutedNonMinimal)
		if w.routing.df.Groups() > 1 {
			// (Within a group the rest of a route after its first hop is
			// one link, whose load the test cannot make up: the routing
			// reads it from the link itself.)
			assert.Positive(t, w.routing.reroutedNonMinimal)
		}
	}
}

// The adaptive routing weighs its candidates by their heads, up to their
// first global hop (routing.weigh with heads), and makes only the chosen
// one whole: over random loads, pairs and draws, the heads are the whole
// candidates' first hops, and the choice, its cost and its route are
// those of weighing the whole candidates.
func TestCandidateHeadsChooseAsWholeRoutes(t *testing.T) {
	w, _ := netTestNetwork(t, 16*NodesPerGroup, map[string]string{"groups": "16"})
	rt := &w.routing
	rng := rand.New(rand.NewPCG(netTestSeed, 9))
	aries := len(rt.routers)
	for a := range aries {
		for port := range NetworkPortsPerAries {
			if rt.out[a][port] != nil {
				rerouteLoad(w, a, port, rng.IntN(40))
			}
		}
	}
	chose := [2]int{}
	for range 5000 {
		src, dst := rng.IntN(aries), rng.IntN(aries)
		first := LinkClass(rng.IntN(int(LinkGlobal) + 1))
		limit := -1
		if rng.IntN(2) == 0 {
			limit = rng.IntN(60)
		}
		for k := range rt.draws {
			rt.draws[k] = [3]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64()}
		}
		best, cost, split := rt.weigh(src, dst, first, limit, false)
		var whole [len(rt.cand)]Path
		for k := range rt.cand {
			whole[k] = slices.Clone(rt.cand[k])
		}
		hBest, hCost, _ := rt.weigh(src, dst, first, limit, true)
		for k := range rt.cand {
			head := rt.cand[k]
			require.LessOrEqual(t, len(head), len(whole[k]))
			require.Equal(t, whole[k][:len(head)], head, "candidate %d from %d to %d: its head", k, src, dst)
		}
		require.Equal(t, best, hBest, "from %d to %d", src, dst)
		require.Equal(t, cost, hCost, "from %d to %d", src, dst)
		if best < 0 {
			continue
		}
		chose[min(best/MinimalCandidates, 1)]++
		path, hSplit := rt.candidate(best, src, dst)
		require.Equal(t, whole[best], path)
		require.Equal(t, split, hSplit)
		require.True(t, rt.allCabled(path))
	}
	require.Positive(t, chose[0], "a minimal candidate chosen")
	require.Positive(t, chose[1], "a non-minimal candidate chosen")
}
