package aries_test

import (
	"fmt"
	"testing"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
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
			var sum simtest.TrafficBench
			var hops int64
			var end conduit.Time
			for b.Loop() {
				r, err := tr.Run(aries.Name)
				if err != nil {
					b.Fatal(err)
				}
				sum.Add(r)
				hops += r.Report.Counters["link_packets"]
				end = r.Report.End
			}
			sum.Report(b.ReportMetric)
			b.ReportMetric(float64(hops)/sum.Wall.Seconds(), "hops/s")
			b.ReportMetric(float64(hops)/float64(sum.Packets), "hops/packet")
			b.ReportMetric(end.Duration().Seconds()*1e6, "sim-us/run")
		})
	}
}

// BenchmarkBookSimTraffic is the simulator's speed on traffic shaped like
// a network simulator's synthetic benchmark: on 3 groups (1,152 nodes),
// every node posts 30 puts of 64 bytes to uniformly random other nodes,
// exponentially distributed gaps apart (simtest.Traffic). Run it with
// -benchmem; allocs/packet and B/packet count the heap while the job runs.
func BenchmarkBookSimTraffic(b *testing.B) {
	const groups = 3
	tr := simtest.Traffic{Nodes: groups * aries.NodesPerGroup, Puts: simtest.BookSimPuts, Size: simtest.BookSimSize,
		MeanGap: simtest.BookSimMeanGap, Seed: 1, Options: map[string]string{"groups": fmt.Sprint(groups)}}
	var sum simtest.TrafficBench
	for b.Loop() {
		r, err := tr.Run(aries.Name)
		if err != nil {
			b.Fatal(err)
		}
		sum.Add(r)
	}
	sum.Report(b.ReportMetric)
}
