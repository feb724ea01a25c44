package aries

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/fabric"
)

// rerouteLoad makes the routing see link a:port as loaded by units, as
// sampled now.
func rerouteLoad(w *network, a, port, units int) {
	i := a*NetworkPortsPerAries + port
	w.snapAt[i] = w.clock.Now()
	w.snapLoad[i] = int32(units)
}

// rerouteWalk routes p hop by hop from Aries src to its destination Aries,
// calling before at each Aries after the source, and returns the hops.
func rerouteWalk(t *testing.T, w *network, src int, p *fabric.Packet, before func(a int)) []netTestHop {
	t.Helper()
	var hops []netTestHop
	for r := w.routers[src]; r.ID != p.DstRouter; {
		if len(hops) > 0 && before != nil {
			before(r.ID)
		}
		c := w.Route(r, p)
		require.NotNil(t, c, "no way on from Aries %d after %v", r.ID, hops)
		port := slices.Index(w.out[r.ID][:], c)
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
		n := w.df.Aries()
		tried := 0
		for tried < 50 {
			src, dst := rng.IntN(n), rng.IntN(n)
			if src/AriesPerGroup == dst/AriesPerGroup {
				continue
			}
			p := &fabric.Packet{Adaptive: true, Src: src * NodesPerAries, Dst: dst * NodesPerAries, DstRouter: dst, Size: 14}
			var before func(a int)
			loaded := false
			before = func(a int) {
				if loaded {
					return
				}
				loaded = true
				// The rest of the route, loaded from its second link
				// to its global link: the next Aries sees it.
				rest := slices.Clone(w.remaining(a, p))
				for _, h := range rest[1:] {
					rerouteLoad(w, h.From, h.FromPort, 1000)
					if h.Class == LinkGlobal {
						break
					}
				}
			}
			r0 := w.rerouted
			hops := rerouteWalk(t, w, src, p, before)
			rerouteCheckOrder(t, hops)
			// Only routes with a second hop before their global one give
			// the next Aries something to reconsider.
			if len(hops) < 3 || hops[0].class == LinkGlobal || hops[1].class == LinkGlobal && w.rerouted == r0 {
				continue
			}
			tried++
			if progressive {
				assert.Equal(t, r0+1, w.rerouted, "rerouted at the next Aries: %v", hops)
			} else {
				assert.Equal(t, r0, w.rerouted)
			}
			clear(w.snapLoad)
		}
		t.Logf("progressive=%v: %d rerouted, %d of them non-minimal, of %d loaded routes", progressive, w.rerouted, w.reroutedNonMinimal, tried)
		if progressive {
			assert.Positive(t, w.reroutedNonMinimal)
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
		n := w.df.Aries()
		for range netTestPairs() {
			src, dst := rng.IntN(n), rng.IntN(n)
			if src == dst {
				continue
			}
			for _, class := range []uint8{0, RequestVCs} {
				p := &fabric.Packet{VC: class, Adaptive: true, Src: src * NodesPerAries, Dst: dst * NodesPerAries, DstRouter: dst, Size: 14}
				hops := rerouteWalk(t, w, src, p, func(a int) {
					// Load a few links of the Aries and its neighbours
					// at random.
					for range 8 {
						port := rng.IntN(NetworkPortsPerAries)
						if w.out[a][port] != nil {
							rerouteLoad(w, a, port, rng.IntN(200))
						}
					}
				})
				netTestCheck(t, hops, src, dst, class, false)
				rerouteCheckOrder(t, hops)
			}
		}
		t.Logf("%v: %d routes chosen again after the source, %d of them non-minimal", w.df, w.rerouted, w.reroutedNonMinimal)
		if w.df.Groups() > 1 {
			// (Within a group the rest of a route after its first hop is
			// one link, whose load the test cannot make up: the routing
			// reads it from the link itself.)
			assert.Positive(t, w.reroutedNonMinimal)
		}
	}
}
