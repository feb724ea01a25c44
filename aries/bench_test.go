package aries_test

import (
	"fmt"
	"testing"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simtest"
)

// BenchmarkUniformRandom runs uniform random traffic (every node puts 64
// bytes to each of 16 random other nodes at once, adaptively routed) on a
// full group (384 nodes) and on 16 groups (6144 nodes), and reports the
// simulator's speed: packets (requests and responses through the NICs)
// and packet hops (packets crossing a link between Aries) per wall second.
func BenchmarkUniformRandom(b *testing.B) {
	for _, groups := range []int{1, 16} {
		nodes := groups * aries.NodesPerGroup
		b.Run(fmt.Sprintf("groups=%d,nodes=%d", groups, nodes), func(b *testing.B) {
			tr := simtest.Traffic{Nodes: nodes, Puts: 16, Size: 64, Seed: 7, Options: map[string]string{"groups": fmt.Sprint(groups)}}
			sum := tr.Bench(b, aries.Name)
			b.ReportMetric(float64(sum.Hops)/sum.Wall.Seconds(), "hops/s")
			b.ReportMetric(float64(sum.Hops)/float64(sum.Packets), "hops/packet")
			b.ReportMetric(sum.End.Duration().Seconds()*1e6, "sim-us/run")
		})
	}
}

// BenchmarkWorkers is the 16-group workload (6,144 nodes, 16 puts of 64
// bytes each to random other nodes: at once, and with the BookSim-shaped
// gaps) on one kernel (workers=0) and run in partitions, a group each, on
// 1 and 2 workers (the workers option; docs/parallel-kernel.md): packets
// per wall second and per CPU second. The runs of 1 and 2 workers give
// the same results (TestPartitionedSameForAnyWorkers).
func BenchmarkWorkers(b *testing.B) {
	const groups = 16
	for _, gap := range []conduit.Time{0, simtest.BookSimMeanGap} {
		for _, workers := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("groups=%d,gap=%v,workers=%d", groups, gap, workers), func(b *testing.B) {
				tr := simtest.Traffic{Nodes: groups * aries.NodesPerGroup, Puts: 16, Size: 64, MeanGap: gap, Seed: 7,
					Options: map[string]string{"groups": fmt.Sprint(groups), "workers": fmt.Sprint(workers)}}
				tr.Bench(b, aries.Name)
			})
		}
	}
}

// BenchmarkBookSimTraffic is the simulator's speed on traffic shaped like
// a network simulator's synthetic benchmark: on 3 groups (1,152 nodes),
// every node posts 30 puts of 64 bytes to uniformly random other nodes,
// exponentially distributed gaps apart (simtest.Traffic). Run it with
// -benchmem; allocs/packet and B/packet count the heap while the job runs.
func BenchmarkBookSimTraffic(b *testing.B) {
	bookSim().Bench(b, aries.Name)
}

// bookSim is BenchmarkBookSimTraffic's traffic.
func bookSim() simtest.Traffic {
	const groups = 3
	return simtest.Traffic{Nodes: groups * aries.NodesPerGroup, Puts: simtest.BookSimPuts, Size: simtest.BookSimSize,
		MeanGap: simtest.BookSimMeanGap, Seed: 1, Options: map[string]string{"groups": fmt.Sprint(groups)}}
}

// BenchmarkSteadyAllocs is the heap allocations per packet of
// BenchmarkBookSimTraffic's traffic in its steady state: what 60 more
// puts per node add to a run of 90 (simtest.Traffic.SteadyAllocs). The
// 90 are the warm-up: enough writes that every node's host interface
// has made the state it makes as first used (Aries' ring of 64
// posted-write slots, made 16 at a time).
func BenchmarkSteadyAllocs(b *testing.B) {
	tr := bookSim()
	tr.Puts = 90
	tr.BenchSteady(b, aries.Name, 60)
}

// BenchmarkLookaheadWindows measures what a parallel kernel partitioned by
// group would have to work with (docs/parallel-kernel.md): the 16-group
// uniform random workload of BenchmarkUniformRandom, its events counted by
// window of the lookahead between groups (a packet sent on a global link
// reaches the far router's pipeline OpticalFlight later and is routed
// RouterPipeline after that, so nothing done in one group touches another
// sooner). It reports the windows' event counts (mean and percentiles,
// over the windows from the first event to the last) and the balance of
// the groups' router and channel events within a window, and of the two
// halves of the groups two workers would take (simtest.Windows).
func BenchmarkLookaheadWindows(b *testing.B) {
	const groups = 16
	for _, gap := range []conduit.Time{0, simtest.BookSimMeanGap} {
		b.Run(fmt.Sprintf("groups=%d,gap=%v", groups, gap), func(b *testing.B) {
			w := &simtest.Windows{Width: aries.OpticalFlight + aries.RouterPipeline, Parts: groups,
				Part: func(r *fabric.Router) int { return r.ID / aries.AriesPerGroup }}
			tr := simtest.Traffic{Nodes: groups * aries.NodesPerGroup, Puts: 16, Size: 64, MeanGap: gap, Seed: 7,
				Options: map[string]string{"groups": fmt.Sprint(groups)}, Kernel: func(k *sim.Kernel) { k.Observe(w.Observe) }}
			for b.Loop() {
				w.Reset()
				if _, err := tr.Run(aries.Name); err != nil {
					b.Fatal(err)
				}
			}
			w.Report(b.ReportMetric)
		})
	}
}

// BenchmarkFullSystem is uniform random traffic on the full system (241
// groups, 92,544 nodes): every node puts 64 bytes to each of 16 random
// other nodes at once. Run it under /usr/bin/time -v for the peak resident
// memory.
func BenchmarkFullSystem(b *testing.B) {
	tr := simtest.Traffic{Nodes: aries.MaxGroups * aries.NodesPerGroup, Puts: 16, Size: 64, Seed: 7,
		Options: map[string]string{"groups": fmt.Sprint(aries.MaxGroups)}}
	tr.Bench(b, aries.Name)
}

// BenchmarkFullSystemPartitioned is BenchmarkFullSystem run in
// partitions, a group each, on 2 workers (the workers option). Run it
// under /usr/bin/time -v for the peak resident memory.
func BenchmarkFullSystemPartitioned(b *testing.B) {
	tr := simtest.Traffic{Nodes: aries.MaxGroups * aries.NodesPerGroup, Puts: 16, Size: 64, Seed: 7,
		Options: map[string]string{"groups": fmt.Sprint(aries.MaxGroups), "workers": "2"}}
	tr.Bench(b, aries.Name)
}

// BenchmarkSmallJobFullSystem is a small job (2 nodes, a put each) on the
// full system of 241 groups: the cost of building what the job does not
// use. Run it under /usr/bin/time -v for the peak resident memory.
func BenchmarkSmallJobFullSystem(b *testing.B) {
	tr := simtest.Traffic{Nodes: 2, Puts: 1, Size: 64, Seed: 1, Options: map[string]string{"groups": "241"}}
	tr.Bench(b, aries.Name)
}
