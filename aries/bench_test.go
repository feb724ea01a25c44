package aries_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
)

// uniformRandom runs uniform random traffic on a job of nodes nodes, one
// PE each, on the conduit directly (no runtime, small segments): every PE
// posts puts 64-byte puts to random other PEs at once and waits for them.
// It returns the job's report and its wall time.
func uniformRandom(nodes, puts int, opts map[string]string) (conduit.Report, time.Duration, error) {
	const size = 64
	job, err := conduit.Open(aries.Name, conduit.JobConfig{PEs: nodes, PEsPerNode: 1, SegmentBytes: 2 * size,
		Ordering: conduit.OrderRelaxed, MailboxSlots: 1, PeerBurst: 1, Options: opts})
	if err != nil {
		return conduit.Report{}, 0, err
	}
	start := time.Now()
	err = job.Run(func(ep conduit.Endpoint) error {
		rng := rand.New(rand.NewPCG(uint64(ep.Rank()), 7))
		local := ep.Segment()[:size]
		own := ep.SegmentHandle(ep.Rank())
		for range puts {
			target := rng.IntN(ep.Size() - 1)
			if target >= ep.Rank() {
				target++
			}
			d := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: target, Local: local, LocalMem: own,
				Remote: ep.SegmentHandle(target), RemoteOffset: size}
			if err := ep.Post(d); err != nil {
				return err
			}
		}
		return ep.WaitFor("puts", &completions{ep: ep, n: puts})
	})
	wall := time.Since(start)
	if err != nil {
		return conduit.Report{}, wall, err
	}
	return job.(conduit.Reporter).Report(), wall, nil
}

// completions waits for n local completions on an endpoint.
type completions struct {
	ep  conduit.Endpoint
	n   int
	evs [16]conduit.Event
}

func (c *completions) Ready() (bool, error) {
	for c.n > 0 {
		evs := c.evs[:]
		k := c.ep.PollLocalCQ(evs)
		if k == 0 {
			return false, nil
		}
		for _, e := range evs[:k] {
			if e.Status != conduit.StatusOK {
				return false, fmt.Errorf("PE %d: put completed with %v", c.ep.Rank(), e.Status)
			}
		}
		c.n -= k
	}
	return true, nil
}

// BenchmarkUniformRandom runs uniform random traffic (every node puts 64
// bytes to each of 16 random other nodes, adaptively routed) on a full
// group (384 nodes) and on 16 groups (6144 nodes), and reports the
// simulator's speed: packets (requests and responses through the NICs)
// and packet hops (packets crossing a link between Aries) per wall second.
func BenchmarkUniformRandom(b *testing.B) {
	const puts = 16
	for _, groups := range []int{1, 16} {
		nodes := groups * aries.NodesPerGroup
		b.Run(fmt.Sprintf("groups=%d,nodes=%d", groups, nodes), func(b *testing.B) {
			var packets, hops, events int64
			var wall time.Duration
			var end conduit.Time
			for b.Loop() {
				rep, took, err := uniformRandom(nodes, puts, map[string]string{"groups": fmt.Sprint(groups)})
				if err != nil {
					b.Fatal(err)
				}
				packets += rep.Counters["packets"]
				hops += rep.Counters["link_packets"]
				events += int64(rep.Events)
				wall += took
				end = rep.End
			}
			b.ReportMetric(float64(packets)/wall.Seconds(), "packets/s")
			b.ReportMetric(float64(hops)/wall.Seconds(), "hops/s")
			b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
			b.ReportMetric(float64(hops)/float64(packets), "hops/packet")
			b.ReportMetric(end.Duration().Seconds()*1e6, "sim-us/run")
		})
	}
}
