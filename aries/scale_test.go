package aries

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	w.clock = j.K
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
	p := &fabric.Packet{VC: vc, Adaptive: adaptive, Src: src * NodesPerAries, Dst: dst * NodesPerAries, DstRouter: dst, Hash: hash, Size: 14}
	var hops []netTestHop
	for r := w.routers[src]; r.ID != dst; {
		c := w.Route(r, p)
		if c == nil {
			return hops, false
		}
		port := slices.Index(w.out[r.ID][:], c)
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
		n := w.df.Aries()
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
		t.Logf("%v: minimal hops (hops:share)%s", w.df, topoTestHistogram(hist))
		assert.Zero(t, w.nonMinimalRoutes, "a quiet network routes minimally")
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
		n := w.df.Aries()
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
			w.df, topoTestHistogram(global[:]), 100*share, topoTestHistogram(local[:]))
		assert.Greater(t, share, 0.5, "mostly six or seven hops")
		assert.Contains(t, []int{6, 7}, mode)
		assert.Zero(t, w.minimalRoutes, "valiant: every adaptive packet non-minimal")
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
	failed := w.out[link.From][link.FromPort]
	require.True(t, failed.Failed())
	require.True(t, w.out[link.To][link.ToPort].Failed(), "both directions fail")
	assert.False(t, w.out[link.From][green].Failed(), "a degraded link still works")

	rng := rand.New(rand.NewPCG(netTestSeed, 3))
	dropped := 0
	for range netTestPairs() {
		// From the failed link's Aries to group 1: the link is one of the
		// nearest, and half of them.
		dst := AriesPerGroup + rng.IntN(AriesPerGroup)
		hash := rng.Uint64()
		p := &fabric.Packet{Adaptive: true, DstRouter: dst, Hash: hash}
		c := w.Route(w.routers[link.From], p)
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

// Bad fault specifications are errors naming the option and the value
// (network_test.go tries bad systems and faults outside them).
func TestNetworkBadOptions(t *testing.T) {
	for _, s := range []string{"1", "x:1", "1:40", "1:-1", "-1:3", "1:2:3", "1:2:0", "1:2:3:4", "1:a"} {
		_, err := parseFaults(s)
		assert.Error(t, err, s)
		if err != nil {
			assert.Contains(t, err.Error(), s, "the error names the bad link")
		}
		_, err = parseOptions(map[string]string{"fail": s})
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "fail")
		}
	}
	f, err := parseFaults(" 3:31 ; 7:0:2;")
	require.NoError(t, err)
	assert.Equal(t, []linkFault{{aries: 3, port: 31}, {aries: 7, port: 0, lanes: 2}}, f)
	f, err = parseFaults("")
	require.NoError(t, err)
	assert.Empty(t, f)

}

// Link rates (A-TILE, A-GLOBAL): a flit takes 6 bytes at the raw rate
// stretched by the LCB's 10/9.
func TestLinkUnitTimes(t *testing.T) {
	assert.Equal(t, Time(1270), linkUnitTime(ElectricalLinkBytesPerSecond), "6 B / 5.25 GB/s x 10/9")
	assert.Equal(t, Time(1422), linkUnitTime(OpticalLinkBytesPerSecond), "6 B / 4.6875 GB/s x 10/9")
}

// The default system is the smallest holding the job.
func TestDefaultSystem(t *testing.T) {
	for _, c := range []struct {
		nodes int
		want  string
	}{
		{1, "1 group of 1 chassis (64 nodes)"},
		{65, "1 group of 2 chassis (128 nodes)"},
		{384, "1 group (384 nodes)"},
		{385, "1 groups + 1 of 1 chassis (448 nodes), bundles of 240 cables"},
		{MaxNodes, "241 groups (92544 nodes), bundles of 1 cable"},
	} {
		var o options
		d, err := o.system(c.nodes)
		require.NoError(t, err)
		assert.Equal(t, c.want, d.String(), "%d nodes", c.nodes)
	}
	var o options
	_, err := o.system(MaxNodes + 1)
	assert.Error(t, err)
}

const netTestMiB = 1 << 20

// The largest system (241 groups, 92,544 nodes): the topology and the
// routing's paths between any two nodes, random pairs and the farthest,
// need no memory beyond a few integers and the bounded candidate cache.
func TestScaleLargestRouting(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := NewDragonfly(MaxGroups, 1)
	require.NoError(t, err)
	w := &network{df: d}
	rng := rand.New(rand.NewPCG(netTestSeed, 4))
	pairs := 20 * netTestPairs()
	var path Path
	longest := [2]int{}
	check := func(src, dst int) {
		path = w.minimal(path[:0], src, dst, rng.Uint64())
		topoTestCheckMinimal(t, d, src, dst, path)
		longest[0] = max(longest[0], len(path))
		var split int
		path, split = w.nonMinimal(path[:0], src, dst, rng.Uint64(), rng.Uint64(), rng.Uint64())
		topoTestCheckPath(t, d, src, dst, path)
		require.LessOrEqual(t, len(path), MaxNonMinimalHops)
		require.LessOrEqual(t, split, len(path))
		longest[1] = max(longest[1], len(path))
	}
	start := time.Now()
	for range pairs {
		check(rng.IntN(d.Aries()), rng.IntN(d.Aries()))
	}
	// The farthest: the corners of the system, whose global links are two
	// local hops from both ends.
	for _, src := range []int{0, AriesPerGroup - 1, d.Aries() / 2} {
		for _, dst := range []int{d.Aries() - 1, d.Aries() - AriesPerGroup, AriesPerGroup} {
			check(src, dst)
		}
	}
	elapsed := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%v: %d pairs routed minimally and non-minimally in %v (longest %d and %d hops); "+
		"heap in use for the topology and the routing's candidate cache (%d slots): %+.2f MiB",
		d, pairs, elapsed, longest[0], longest[1], len(w.candCache), float64(growth)/netTestMiB)
	runtime.KeepAlive(w)
	assert.Equal(t, MaxMinimalHops, longest[0])
	assert.Less(t, growth, int64(8*netTestMiB), "nothing per link or pair of Aries, a bounded cache")
}

// A full fabric network of the largest system: a router per Aries (23,136)
// and every link. Long: skipped with -short and under the race detector.
func TestScaleLargestFabric(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("builds 23,136 routers and 1.3 M channels: skipped with -short and -race")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	w, j := netTestNetwork(t, 2, map[string]string{"groups": fmt.Sprint(MaxGroups)})
	built := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	links := 0
	for a := range w.out {
		for _, c := range w.out[a] {
			if c != nil {
				links++
			}
		}
	}
	tables := len(w.out)*int(unsafe.Sizeof(w.out[0])) + len(w.snapLoad)*int(unsafe.Sizeof(w.snapLoad[0])) +
		len(w.snapAt)*int(unsafe.Sizeof(w.snapAt[0]))
	t.Logf("%v: %d routers, %d link directions built in %v; heap in use %+.0f MiB (%.0f B per link direction), "+
		"of which the network's own tables %.1f MiB (the rest is the fabric's routers and channels)",
		w.df, len(w.routers), links, built, float64(after.HeapInuse-before.HeapInuse)/netTestMiB,
		float64(after.HeapInuse-before.HeapInuse)/float64(links), float64(tables)/netTestMiB)
	assert.Equal(t, MaxAries, len(w.routers))
	assert.Equal(t, MaxAries*NetworkPortsPerAries, links, "every port of the largest system is cabled")
	// A packet between the farthest nodes routes over it.
	hops, ok := netTestRoute(t, w, 0, MaxAries-1, true, 1, 0)
	require.True(t, ok)
	netTestCheck(t, hops, 0, MaxAries-1, 0, true)
	runtime.KeepAlive(j)
}

// netTestClock is a clock the test sets.
type netTestClock struct{ now Time }

func (c *netTestClock) Now() Time { return c.now }

// The routing sees a remote link's load as sampled at the last multiple of
// LoadUpdatePeriod.
func TestRemoteLoadSampling(t *testing.T) {
	w, _ := netTestNetwork(t, 1, nil)
	clock := &netTestClock{now: 5 * LoadUpdatePeriod}
	w.clock = clock
	assert.Zero(t, w.sampled(0, 1), "a quiet link")
	i := 0*NetworkPortsPerAries + 1
	assert.Equal(t, 5*LoadUpdatePeriod, w.snapAt[i])
	w.snapLoad[i] = 7 // as if the link had been loaded at the sample
	clock.now += LoadUpdatePeriod - 1
	assert.Equal(t, 7, w.sampled(0, 1), "the sample holds for a period")
	clock.now++
	assert.Zero(t, w.sampled(0, 1), "then the next is taken")
	assert.Equal(t, 6*LoadUpdatePeriod, w.snapAt[i])
	assert.Equal(t, Time(11428), LoadUpdatePeriod, "10 cycles at 875 MHz")
}
