package gemini_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simtest"
	"github.com/gopgas/gopgas/pgas"
)

// BenchmarkLoadedTorus runs uniform random traffic on a loaded 4x4x4 torus
// (128 nodes, one PE each): every PE puts 8 KiB to random PEs, 8 at a
// time, packet by packet. It reports the simulator's speed: packet hops
// (a packet crossing a torus connection) and events per wall second.
func BenchmarkLoadedTorus(b *testing.B) {
	const nodes, rounds, window, size = 128, 8, 8, 8 << 10
	var hops, events int64
	var wall time.Duration
	for b.Loop() {
		var rep pgas.Report
		cfg := pgas.Config{Conduit: "gemini", PEs: nodes, PEsPerNode: 1, Ordering: pgas.OrderRelaxed, Report: &rep,
			SegmentBytes: pgas.MinSegmentBytes + 2*window*size, Options: map[string]string{"torus": "4x4x4", "coarse_bytes": "0"}}
		t0 := time.Now()
		err := pgas.Run(cfg, func(pe *pgas.PE) error {
			rng := rand.New(rand.NewPCG(uint64(pe.Rank()), 1))
			base, err := pe.Alloc(size*(1+window), 0)
			if err != nil {
				return err
			}
			src, err := pe.Local(base, size)
			if err != nil {
				return err
			}
			hs := make([]pgas.Handle, window)
			for range rounds {
				for i := range hs {
					if hs[i], err = pe.PutNB(rng.IntN(nodes), base+int64(size*(1+i)), src); err != nil {
						return err
					}
				}
				if err := pgas.WaitAll(hs...); err != nil {
					return err
				}
			}
			return pe.Barrier()
		})
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		hops += rep.Counters["torus_packets"]
		events += int64(rep.Events)
	}
	b.ReportMetric(float64(hops)/wall.Seconds(), "packet-hops/s")
	b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
	b.ReportMetric(float64(hops)/float64(b.N), "hops/run")
}

// BenchmarkBookSimTraffic is the simulator's speed on traffic shaped like
// a network simulator's synthetic benchmark: on an 8x8x8 torus, 512 nodes
// (one on each Gemini) each post 30 puts of 64 bytes to uniformly random
// other nodes, exponentially distributed gaps apart (simtest.Traffic). Run
// it with -benchmem; allocs/packet and B/packet count the heap while the
// job runs.
func BenchmarkBookSimTraffic(b *testing.B) {
	bookSim().Bench(b, gemini.Name)
}

// bookSim is BenchmarkBookSimTraffic's traffic.
func bookSim() simtest.Traffic {
	return simtest.Traffic{Nodes: 512, Puts: simtest.BookSimPuts, Size: simtest.BookSimSize,
		MeanGap: simtest.BookSimMeanGap, Seed: 1, Options: map[string]string{"torus": "8x8x8"}}
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
	tr.BenchSteady(b, gemini.Name, 60)
}

// BenchmarkJaguar is uniform random traffic on the Jaguar-size torus
// (25x16x24 Geminis, 19,200 nodes, one on each): every node puts 64 bytes
// to each of 16 random other nodes at once. Run it under /usr/bin/time -v
// for the peak resident memory.
func BenchmarkJaguar(b *testing.B) {
	tr := simtest.Traffic{Nodes: 19200, Puts: 16, Size: 64, Seed: 7, Options: map[string]string{"torus": "25x16x24"}}
	tr.Bench(b, gemini.Name)
}

// BenchmarkJaguarPartitioned is BenchmarkJaguar run in partitions, an X
// plane each, on 1 and 2 workers (the workers option,
// docs/parallel-kernel.md). Run it under /usr/bin/time -v for the peak
// resident memory.
func BenchmarkJaguarPartitioned(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			tr := simtest.Traffic{Nodes: 19200, Puts: 16, Size: 64, Seed: 7,
				Options: map[string]string{"torus": "25x16x24", "workers": fmt.Sprint(workers)}}
			tr.Bench(b, gemini.Name)
		})
	}
}

// BenchmarkSmallJobJaguar is a small job (2 nodes, a put each) on the
// Jaguar-size torus (25x16x24): the cost of building what the job does
// not use. Run it under /usr/bin/time -v for the peak resident memory.
func BenchmarkSmallJobJaguar(b *testing.B) {
	tr := simtest.Traffic{Nodes: 2, Puts: 1, Size: 64, Seed: 1, Options: map[string]string{"torus": "25x16x24"}}
	tr.Bench(b, gemini.Name)
}

// BenchmarkLookaheadWindows measures what a parallel kernel partitioned by
// slabs of the torus would have to work with (docs/parallel-kernel.md):
// uniform random traffic on the Jaguar-size torus (25x16x24, one node on
// each Gemini, 16 puts of 64 bytes per node, all at once or with the
// BookSim-shaped gaps), its events counted by window of the lookahead
// between X planes (a packet sent on a connection reaches the far router
// LinkFlight later and is routed RouterPipeline after that), with each of
// the 25 X planes a partition (simtest.Windows).
func BenchmarkLookaheadWindows(b *testing.B) {
	const gx = 25
	for _, gap := range []conduit.Time{0, simtest.BookSimMeanGap} {
		b.Run(fmt.Sprintf("torus=25x16x24,gap=%v", gap), func(b *testing.B) {
			w := &simtest.Windows{Width: gemini.LinkFlight + gemini.RouterPipeline, Parts: gx,
				Part: func(r *fabric.Router) int { return r.ID % gx }}
			tr := simtest.Traffic{Nodes: 19200, Puts: 16, Size: 64, MeanGap: gap, Seed: 7,
				Options: map[string]string{"torus": "25x16x24"}, Kernel: func(k *sim.Kernel) { k.Observe(w.Observe) }}
			for b.Loop() {
				w.Reset()
				if _, err := tr.Run(gemini.Name); err != nil {
					b.Fatal(err)
				}
			}
			w.Report(b.ReportMetric)
		})
	}
}
