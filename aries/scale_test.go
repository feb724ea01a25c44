package aries

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries/dragonfly/dragonflytest"
	"github.com/gopgas/gopgas/internal/race"
)

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
	rt := &routing{df: d}
	rng := rand.New(rand.NewPCG(netTestSeed, 4))
	pairs := 20 * netTestPairs()
	var path Path
	longest := [2]int{}
	check := func(src, dst int) {
		path = rt.minimal(path[:0], src, dst, rng.Uint64())
		dragonflytest.CheckMinimal(t, d, src, dst, path)
		longest[0] = max(longest[0], len(path))
		var split int
		path, split = rt.nonMinimal(path[:0], src, dst, rng.Uint64(), rng.Uint64(), rng.Uint64())
		dragonflytest.CheckPath(t, d, src, dst, path)
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
		d, pairs, elapsed, longest[0], longest[1], len(rt.candCache), float64(growth)/netTestMiB)
	runtime.KeepAlive(rt)
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
	for a := range w.routing.out {
		for _, c := range w.routing.out[a] {
			if c != nil {
				links++
			}
		}
	}
	tables := len(w.routing.out)*int(unsafe.Sizeof(w.routing.out[0])) + len(w.routing.snaps)*int(unsafe.Sizeof(w.routing.snaps[0]))
	t.Logf("%v: %d routers, %d link directions built in %v; heap in use %+.0f MiB (%.0f B per link direction), "+
		"of which the network's own tables %.1f MiB (the rest is the fabric's routers and channels)",
		w.routing.df, len(w.routing.routers), links, built, float64(after.HeapInuse-before.HeapInuse)/netTestMiB,
		float64(after.HeapInuse-before.HeapInuse)/float64(links), float64(tables)/netTestMiB)
	assert.Equal(t, MaxAries, len(w.routing.routers))
	assert.Equal(t, MaxAries*NetworkPortsPerAries, links, "every port of the largest system is cabled")
	// A packet between the farthest nodes routes over it.
	hops, ok := netTestRoute(t, w, 0, MaxAries-1, true, 1, 0)
	require.True(t, ok)
	netTestCheck(t, hops, 0, MaxAries-1, 0, true)
	runtime.KeepAlive(j)
}
