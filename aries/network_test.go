package aries_test

import (
	"bytes"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/pgas"
)

// ringJob runs a job of pes PEs, one per node, in which every PE puts a
// block to the next and gets it back, and returns the job's report.
func ringJob(t *testing.T, pes int, opts map[string]string) pgas.Report {
	t.Helper()
	var rep pgas.Report
	cfg := pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Options: opts, Report: &rep}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		const n = 1000
		base, err := pe.Alloc(2*n, 0)
		if err != nil {
			return err
		}
		src, err := pe.Local(base, n)
		if err != nil {
			return err
		}
		for i := range src {
			src[i] = byte(pe.Rank() + i)
		}
		next := (pe.Rank() + 1) % pe.Size()
		if err := pe.Put(next, base+n, src); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		got := make([]byte, n)
		if err := pe.Get(next, base+n, got); err != nil {
			return err
		}
		if !bytes.Equal(got, src) {
			return fmt.Errorf("PE %d: read back %v..., wrote %v...", pe.Rank(), got[:4], src[:4])
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	return rep
}

// A pgas job runs on the Aries network, within a chassis and across
// groups; the same job runs the same, adaptive routing included.
func TestPGASRuns(t *testing.T) {
	rep := ringJob(t, 8, nil)
	t.Logf("8 PEs: %v", rep.Counters)
	require.Zero(t, rep.Counters["dropped"])
	// PEs 383 and 384 are in groups 0 and 1.
	routings := []string{"deterministic", "adaptive"}
	if race.Enabled {
		routings = routings[1:] // slow under the race detector
	}
	for _, routing := range routings {
		rep = ringJob(t, 400, map[string]string{"groups": "3", "routing": routing})
		t.Logf("400 PEs over 2 of 3 groups, %s: %v", routing, rep.Counters)
		require.Zero(t, rep.Counters["dropped"])
	}
	again := ringJob(t, 400, map[string]string{"groups": "3", "routing": "adaptive"})
	assert.Equal(t, rep.End, again.End, "a job repeats exactly")
	assert.Equal(t, rep.Counters, again.Counters, "a job repeats exactly")
}

// putLatency is the mean time of a blocking 8-byte put from PE 0 to each
// of targets (its request and its acknowledgement crossing the network),
// in a job of PEs one per node.
func putLatency(t *testing.T, pes int, targets []int, opts map[string]string) []time.Duration {
	t.Helper()
	const warmup, iters = 5, 40
	out := make([]time.Duration, len(targets))
	cfg := pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Options: opts}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(16, 0)
		if err != nil {
			return err
		}
		if pe.Rank() == 0 {
			src, err := pe.Local(base, 8)
			if err != nil {
				return err
			}
			for i, target := range targets {
				var start time.Duration
				for k := range warmup + iters {
					if k == warmup {
						start = pe.Now()
					}
					if err := pe.Put(target, base+8, src); err != nil {
						return err
					}
				}
				out[i] = (pe.Now() - start) / iters
			}
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	return out
}

// A-HOP: "each router-to-router hop adds approximately 100ns of latency"
// (Aries Performance), on a quiet network, with minimal routes whether
// deterministic or adaptive. From node 0 (Aries 0): node 1 shares its
// Aries, node 4 is one green hop away (Aries 1), node 64 one black hop
// (Aries 16, the same slot of chassis 1) and node 68 both (Aries 17). A
// put's request and acknowledgement each cross the route, so a hop adds
// twice its latency to the put's.
func TestHopLatency(t *testing.T) {
	targets := []int{1, 4, 64, 68}
	for _, routing := range []string{"deterministic", "adaptive"} {
		lat := putLatency(t, 69, targets, map[string]string{"routing": routing})
		perHop := func(from, to int, hops int) time.Duration { return (lat[to] - lat[from]) / time.Duration(2*hops) }
		t.Logf("%s: 8-byte put latency to the same Aries %v, green hop %v, black hop %v, both %v; per hop %v (0->1), %v (1->2)",
			routing, lat[0], lat[1], lat[2], lat[3], perHop(0, 1, 1), perHop(1, 3, 1))
		for _, hop := range []time.Duration{perHop(0, 1, 1), perHop(0, 2, 1), perHop(1, 3, 1), perHop(0, 3, 2)} {
			assert.GreaterOrEqual(t, hop, 90*time.Nanosecond, routing)
			assert.LessOrEqual(t, hop, 120*time.Nanosecond, routing)
		}
	}
}

// Virtual nodes: the job's nodes map around the excluded ones, so that
// with nodes 1-3 excluded the job's node 1 is the system's node 4, on the
// next Aries: a put to it takes as long as one to node 4 of a job without
// exclusions, a green hop more than one to node 1 there.
func TestExcludedNodes(t *testing.T) {
	plain := putLatency(t, 5, []int{1, 4}, nil)
	around := putLatency(t, 2, []int{1}, map[string]string{"exclude": "1-3"})
	t.Logf("8-byte put from node 0: to node 1 %v, to node 4 %v; to virtual node 1 with nodes 1-3 excluded %v", plain[0], plain[1], around[0])
	assert.Equal(t, plain[1], around[0])
	assert.Greater(t, around[0], plain[0]+150*time.Nanosecond, "a green hop each way")
}

// worstCase is the bandwidth of the first senders nodes of group 0
// putting to their partners in group 1 at once (each puts bytes to the
// node NodesPerGroup above it, in puts of chunk bytes, window at a time),
// on a system of the options, in bytes per second of simulated time.
func worstCase(t *testing.T, senders, bytesPerNode, chunk, window int, opts map[string]string) (float64, pgas.Report) {
	t.Helper()
	const pes = 2 * aries.NodesPerGroup
	var rep pgas.Report
	var longest time.Duration
	cfg := pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: 1, Ordering: pgas.OrderRelaxed, Report: &rep,
		SegmentBytes: pgas.MinSegmentBytes + int64(window*chunk), Options: opts}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(int64(window*chunk), 0)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() < senders {
			src, err := pe.Local(base, int64(chunk))
			if err != nil {
				return err
			}
			start := pe.Now()
			hs := make([]pgas.Handle, 0, window)
			for sent := 0; sent < bytesPerNode; sent += chunk {
				h, err := pe.PutNB(pe.Rank()+aries.NodesPerGroup, base+int64(len(hs)*chunk), src)
				if err != nil {
					return err
				}
				if hs = append(hs, h); len(hs) == window {
					if err := pgas.WaitAll(hs...); err != nil {
						return err
					}
					hs = hs[:0]
				}
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
			longest = max(longest, pe.Now()-start)
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	return float64(senders*bytesPerNode) / longest.Seconds(), rep
}

// The worst case for minimal routing (Cray XC Routing: Valiant's
// algorithm "is used to avoid congestion and spread non-uniform traffic
// evenly over the set of available links"): the nodes of one group
// sending to another group. On 4 groups joined by single cables (4 links
// between each pair), minimal routes have only the 4 links between the
// two groups; non-minimal routes add the 8 through the other two groups,
// and adaptive routing uses both.
func TestWorstCaseTraffic(t *testing.T) {
	// Far more than 4 links carry; a window of two 4 KiB puts each, so
	// that the routing sees the load the earlier puts made.
	senders, bytesPerNode := aries.NodesPerChassis, 32<<10
	if testing.Short() || race.Enabled {
		senders, bytesPerNode = aries.NodesPerChassis/2, 16<<10
	}
	sys := map[string]string{"groups": "4", "bundle": "1", "coarse_bytes": "0"}
	cases := []struct{ name, routing, valiant, progressive string }{
		{"deterministic (minimal)", "deterministic", "false", "true"},
		{"adaptive", "adaptive", "false", "true"},
		{"valiant", "adaptive", "true", "true"},
		{"adaptive at the source only", "adaptive", "false", "false"},
	}
	if race.Enabled {
		cases = cases[:2] // slow under the race detector
	}
	bw := make([]float64, len(cases))
	for i, c := range cases {
		opts := maps.Clone(sys)
		opts["routing"], opts["valiant"], opts["progressive"] = c.routing, c.valiant, c.progressive
		bw[i], _ = worstCase(t, senders, bytesPerNode, 4<<10, 2, opts)
		t.Logf("%v: %d nodes of group 0 to group 1, %d KiB each: %.1f GB/s (x%.2f)",
			c.name, senders, bytesPerNode>>10, bw[i]/1e9, bw[i]/bw[0])
	}
	for i, c := range cases[1:] {
		assert.GreaterOrEqual(t, bw[i+1], 1.5*bw[0], "%s: at least 1.5 times the minimal routes' bandwidth", c.name)
	}
}

// putTime is the simulated time PE 0 takes to put bytes to PE target in
// blocking puts of 64 KiB, in a job of pes PEs one per node; and the job's
// error.
func putTime(pes, target, bytes int, opts map[string]string) (time.Duration, pgas.Report, error) {
	const chunk = 64 << 10
	var took time.Duration
	var rep pgas.Report
	cfg := pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes + chunk,
		Options: opts, Report: &rep}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(chunk, 0)
		if err != nil {
			return err
		}
		if pe.Rank() == 0 {
			src, err := pe.Local(base, chunk)
			if err != nil {
				return err
			}
			start := pe.Now()
			for sent := 0; sent < bytes; sent += chunk {
				if err := pe.Put(target, base, src); err != nil {
					return err
				}
			}
			took = pe.Now() - start
		}
		return pe.Barrier()
	})
	return took, rep, err
}

// Faults (the fail option): green link 0 of Aries 0 (port 0) is the only
// minimal route from node 0 to node 4 (Aries 1). Failed, adaptive routing
// avoids it (non-minimally) and the job completes; deterministic packets
// are lost and the job fails. Degraded to one lane of three, it carries
// the same traffic about three times more slowly.
func TestLinkFaults(t *testing.T) {
	const bytes = 256 << 10
	base := map[string]string{"routing": "deterministic"}
	healthy, _, err := putTime(8, 4, bytes, base)
	require.NoError(t, err)

	degraded, _, err := putTime(8, 4, bytes, map[string]string{"routing": "deterministic", "fail": "0:0:1"})
	require.NoError(t, err)
	t.Logf("256 KiB from node 0 to node 4: %v healthy, %v on one lane of three", healthy, degraded)
	assert.Greater(t, float64(degraded), 2.5*float64(healthy), "one lane of three")

	around, rep, err := putTime(8, 4, bytes, map[string]string{"routing": "adaptive", "fail": "0:0"})
	require.NoError(t, err, "adaptive routing avoids the failed link")
	assert.Zero(t, rep.Counters["dropped"])
	t.Logf("failed link, adaptive: %v (%d link packets for %d packets)", around, rep.Counters["link_packets"], rep.Counters["packets"])
	// Minimally every packet would cross one link; around the failed link
	// two (through another Aries of the chassis) or more.
	assert.Greater(t, float64(rep.Counters["link_packets"]), 1.5*float64(rep.Counters["packets"]), "routed around, non-minimally")

	_, rep, err = putTime(8, 4, bytes, map[string]string{"routing": "deterministic", "fail": "0:0"})
	assert.Error(t, err, "deterministic packets through the failed link are lost")
	assert.Positive(t, rep.Counters["dropped"])
}

// A collective-engine packet a deterministic route takes into a failed
// link is lost; the job ends with an error that says so (rather than as a
// deadlock). Adaptive routes go around the link and the barrier completes.
func TestCEPacketLost(t *testing.T) {
	run := func(routing string) error {
		return pgas.Run(pgas.Config{Conduit: "aries", PEs: 8, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes,
			Options: map[string]string{"routing": routing, "fail": "0:0"}}, func(pe *pgas.PE) error { return pe.Barrier() })
	}
	err := run("deterministic")
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "control packet from node")
		assert.Contains(t, err.Error(), "lost")
	}
	assert.NoError(t, run("adaptive"))
}

// Bad options are errors that name the option and the value.
func TestBadNetworkOptions(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		pes  int
		want string
	}{
		{map[string]string{"fail": "0:40"}, 2, `fail="0:40"`},
		{map[string]string{"fail": "0:1:3"}, 2, `fail="0:1:3"`},
		{map[string]string{"fail": "zero:1"}, 2, `fail="zero:1"`},
		{map[string]string{"fail": "16:0"}, 2, "Aries 16"}, // 2 nodes: one chassis of 16 Aries
		{map[string]string{"chassis": "1", "fail": "0:15"}, 2, "not cabled"},
		{map[string]string{"groups": "3", "bundle": "200"}, 2, "option groups=3, option bundle=200"},
		{map[string]string{"groups": "300"}, 2, `option groups="300": out of range (want an integer in [1, 241])`},
		{map[string]string{"cabinets": "6", "bundle": "200"}, 2, "option cabinets=6, option bundle=200"},
		{map[string]string{"chassis": "1"}, 65, "holds 64 nodes"},
		{map[string]string{"exclude": "x"}, 2, `exclude="x"`},
		{map[string]string{"exclude": "4-2"}, 2, `exclude="4-2"`},
		{map[string]string{"chassis": "1", "exclude": "1-63"}, 2, "around 63 excluded ones need 65"},
	} {
		err := pgas.Run(pgas.Config{Conduit: "aries", PEs: c.pes, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Options: c.opts},
			func(*pgas.PE) error { return nil })
		if assert.Error(t, err, "%v", c.opts) {
			assert.Contains(t, err.Error(), c.want, "%v", c.opts)
			t.Logf("%v: %v", c.opts, err)
		}
	}
}
