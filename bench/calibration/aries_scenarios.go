package calibration

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// ariesHopLatencies is the one-way 8-byte put latency from node 0 to
// nodes whose minimal routes all have 1, 2, ... 5 hops in a system of
// ariesHopGroups groups, in microseconds, and those hop counts.
func ariesHopLatencies(s *Session) ([]float64, []int, error) {
	type res struct {
		lat  []float64
		hops []int
	}
	r, err := shared(s, "aries/hops", func() (res, error) {
		peers, hops, err := ariesHopPeers()
		if err != nil {
			return res{}, err
		}
		// The job: node 0 and the peers, the rest of the system excluded.
		var exclude []string
		ranks := make([]int, len(peers))
		prev := 0
		for i, p := range peers {
			if p > prev+1 {
				exclude = append(exclude, fmt.Sprintf("%d-%d", prev+1, p-1))
			}
			prev, ranks[i] = p, i+1
		}
		lat, err := runOne(s, func() ([]float64, error) {
			cfg := s.config(ari, pgas.OrderRelaxed, map[string]string{"groups": fmt.Sprint(ariesHopGroups), "bundle": fmt.Sprint(ariesHopBundle),
				"exclude": strings.Join(exclude, ",")})
			return putPingPong(cfg, len(peers)+1, ranks, 8, 200)
		})
		return res{lat, hops}, err
	})
	return r.lat, r.hops, err
}

// ariesHopPeers finds, for k = 1..MaxMinimalHops, the first node whose
// every minimal route from node 0 has k hops.
func ariesHopPeers() (peers, hops []int, err error) {
	d, err := aries.NewDragonfly(ariesHopGroups, ariesHopBundle)
	if err != nil {
		return nil, nil, err
	}
	found := map[int]int{}
	for a := 1; a < d.Aries() && len(found) < aries.MaxMinimalHops; a++ {
		n, err := d.MinimalChoices(0, a)
		if err != nil {
			return nil, nil, err
		}
		lo, hi := 1<<30, 0
		for c := range min(n, 4096) {
			p, err := d.Minimal(0, a, uint64(c))
			if err != nil {
				return nil, nil, err
			}
			lo, hi = min(lo, len(p)), max(hi, len(p))
		}
		if lo == hi && found[lo] == 0 {
			found[lo] = a * aries.NodesPerAries
		}
	}
	for k := 1; k <= aries.MaxMinimalHops; k++ {
		if node, ok := found[k]; ok {
			peers, hops = append(peers, node), append(hops, k)
		}
	}
	if len(peers) < 2 {
		return nil, nil, fmt.Errorf("calibration: A-HOP: only %d hop counts found", len(peers))
	}
	return peers, hops, nil
}

// ariesFlitDelta is the link flits of one 64-byte op to the neighbouring
// Aries (node 4 of 5 nodes).
func ariesFlitDelta(s *Session, op bench.Op) (float64, error) {
	return unitDelta(s, ari, "link_flits", 5, 4, op, 64)
}

// ariesBiBW is the bidirectional 1 MiB put bandwidth between nodes on
// neighbouring Aries, window 16, in GB/s (both directions).
func ariesBiBW(s *Session) (float64, error) {
	return shared(s, "aries/bibw", func() (float64, error) {
		return runOne(s, func() (float64, error) {
			r, err := bench.BiBW(bench.Setup{Config: s.config(ari, pgas.OrderRelaxed, nil), Nodes: 8, PPN: 1, Window: 16, Iterations: 4, Warmup: 1}, []int{1 << 20})
			if err != nil {
				return 0, err
			}
			return r.Points[0].Value / 1000, nil
		})
	})
}

// ariesBWUniRow measures A-BW-UNI with the whitepaper's own benchmarks on
// the runtime's two-sided messaging between nodes on neighbouring Aries
// (rank 0 and rank 4 of 8): osu_bw at 1 MiB, and IMB's PingPong at 4 MiB
// (its largest size) as the size over half the round trip, in GB/s. Both
// repeat the same exchange in a steady state, so a few iterations give
// what more would (osu_bw with 1 iteration after 1 of warm-up and with 2
// agree to 0.001%, the ping-pong with 3 after 1 and with IMB's 10 after 2
// to 0.01%). The detail gives the ping-pong with the get rendezvous for
// every large message, and one-sided 4 MiB blocking gets.
func ariesBWUniRow(s *Session) (Measurement, error) {
	const pingSize = 4 << 20
	// run has f measure the benchmark in cfg's job of 8 nodes and sets
	// *out to its one point's value, in the unit per makes of it.
	run := func(out *float64, per func(float64) float64, cfg pgas.Config, window, iters, warm int,
		f func(bench.Setup, []int) (*bench.Result, error), size int) func() error {
		return func() error {
			r, err := f(bench.Setup{Config: cfg, Nodes: 8, PPN: 1, Window: window, Iterations: iters, Warmup: warm}, []int{size})
			if err == nil {
				*out = per(r.Points[0].Value)
			}
			return err
		}
	}
	gbps := func(mbps float64) float64 { return mbps / 1000 }
	perHalfRTT := func(us float64) float64 { return pingSize / us / 1000 }
	getRndv := s.config(ari, pgas.OrderDefault, nil)
	getRndv.MsgRendezvousPut = 2 * pingSize
	var stream, ping, pingGet, get float64
	err := s.parallel(
		run(&stream, gbps, s.config(ari, pgas.OrderDefault, nil), 64, 1, 1, bench.MsgBW, 1<<20),
		run(&ping, perHalfRTT, s.config(ari, pgas.OrderDefault, nil), 1, 3, 1, bench.MsgLatency, pingSize),
		run(&pingGet, perHalfRTT, getRndv, 1, 3, 1, bench.MsgLatency, pingSize),
		run(&get, gbps, s.config(ari, pgas.OrderDefault, nil), 1, 4, 1, bench.GetBW, pingSize))
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{Values: []float64{stream, ping},
		Detail: fmt.Sprintf("ping-pong %.3g%% below streaming; with the get rendezvous for every large message (PGAS_MSG_RNDV_PUT above 4 MiB): %.3g GB/s; one-sided 4 MiB blocking gets: %.3g GB/s",
			100*(1-ping/stream), pingGet, get)}, nil
}

func ariesHalfRow(s *Session) (Measurement, error) {
	sizes := bench.Sizes(8, 64<<10)
	r, err := runOne(s, func() (*bench.Result, error) {
		// Nodes 0 and 1 share an Aries: no network link in the way of
		// the NICs and their host interfaces.
		return bench.MBWMR(bench.Setup{Config: s.config(ari, pgas.OrderRelaxed, nil), Nodes: 2, PPN: 8, Window: 64, Iterations: 5, Warmup: 1}, sizes)
	})
	if err != nil {
		return Measurement{}, err
	}
	var peak float64
	bws := make([]float64, len(r.Points))
	for i, p := range r.Points {
		bws[i] = p.Value / 1000
		peak = max(peak, bws[i])
	}
	half := 0.0
	for i, p := range r.Points {
		if bws[i] >= peak/2 {
			half = float64(p.Size)
			break
		}
	}
	return Measurement{Values: []float64{half}, Detail: fmt.Sprintf("peak %.2f GB/s; GB/s by size: %s", peak, series(sizes, bws, "%d", "%.2f"))}, nil
}

// ariesCENodes is A-CE's job: 750 nodes of 16 PEs.
const ariesCENodes, ariesCEPPN = 750, 16

// ariesCERow measures A-CE: the OSU allreduce latency of one float64 on the
// collective engine at 12,000 PEs.
func ariesCERow(s *Session) (Measurement, error) {
	r, err := runOne(s, func() (*bench.Result, error) {
		cfg := s.config(ari, pgas.OrderDefault, nil)
		// 12,000 segments: the smallest the runtime takes.
		cfg.SegmentBytes = pgas.MinSegmentBytes
		return bench.Collectives(bench.Setup{Config: cfg, Nodes: ariesCENodes, PPN: ariesCEPPN, Iterations: 10, Warmup: 2}, bench.Allreduce, []int{8})
	})
	if err != nil {
		return Measurement{}, err
	}
	c := r.Report.Counters
	if c["ce_collectives"] == 0 {
		return Measurement{}, errors.New("the allreduces did not use the collective engine")
	}
	return Measurement{Values: []float64{r.Points[0].Max},
		Detail: fmt.Sprintf("%d PEs; collective engine: %d collectives, %d packets, %d waits for a busy CE", ariesCENodes*ariesCEPPN, c["ce_collectives"], c["ce_packets"], c["ce_waits"])}, nil
}

// ariesRateRow measures A-RATE: puts per second of a node by FMA launch.
func ariesRateRow(s *Session) (Measurement, error) {
	const puts = 2000
	rate := func(ppn int, alternate bool) (float64, error) {
		cfg := s.config(ari, pgas.OrderRelaxed, nil)
		// Node 0's PEs put to node 4's (the neighbouring Aries); nodes
		// 1-3 idle.
		cfg.PEs, cfg.PEsPerNode = 5*ppn, ppn
		var r float64
		err := pgas.Run(cfg, func(pe *pgas.PE) error {
			// A word per PE for the puts' data, and one to put from.
			base, err := pe.Alloc(8*int64(pe.Size()+1), 0)
			if err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			start := pe.Now()
			if pe.Node() == 0 {
				buf, err := pe.Local(base+8*int64(pe.Size()), 8)
				if err != nil {
					return err
				}
				t := [2]int{4*ppn + pe.Rank(), 4*ppn + (pe.Rank()+1)%ppn}
				if ppn == 1 {
					t[1] = 4*ppn - 1 // another node: there is one PE on node 4
				}
				for i := range puts {
					target := t[0]
					if alternate {
						target = t[i%2]
					}
					if err := pe.PutNBI(target, base+8*int64(pe.Rank()), buf); err != nil {
						return err
					}
				}
				if err := pe.SyncNBIPuts(); err != nil {
					return err
				}
			}
			// The rate is over the time from the barrier to the last
			// PE's puts being complete.
			end := []int64{int64(pe.Now() - start)}
			if err := pgas.Allreduce(pe.World(), pgas.Max, end, end); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				r = float64(puts*ppn) / time.Duration(end[0]).Seconds() / mega
			}
			return nil
		})
		return r, err
	}
	vals := make([]float64, 3)
	err := s.parallel(func() (err error) {
		vals[0], err = rate(16, false)
		return err
	}, func() (err error) {
		vals[1], err = rate(16, true)
		return err
	}, func() (err error) {
		vals[2], err = rate(1, false)
		return err
	})
	return Measurement{Values: vals}, err
}

func ariesOutstandingRow(s *Session) (Measurement, error) {
	const senders, ppn, gets = 8, 16, 128
	var rep pgas.Report
	cfg := s.config(ari, pgas.OrderRelaxed, nil)
	cfg.PEs, cfg.PEsPerNode, cfg.Report = (senders+1)*ppn, ppn, &rep
	err := s.parallel(func() error {
		return pgas.Run(cfg, func(pe *pgas.PE) error {
			base, err := pe.Alloc(64*gets, 0)
			if err != nil || pe.Node() == senders {
				return err
			}
			buf, err := pe.Local(base, 64*gets)
			if err != nil {
				return err
			}
			hs := make([]pgas.Handle, gets)
			target := senders*ppn + pe.Rank()%ppn
			for i := range hs {
				if hs[i], err = pe.GetNB(target, base, buf[64*i:64*i+64]); err != nil {
					return err
				}
			}
			return pgas.WaitAll(hs...)
		})
	})
	return Measurement{Values: []float64{float64(rep.Counters["orb_max"])}}, err
}

func ariesAMOCacheRow(s *Session) (Measurement, error) {
	const rounds = 20
	largest := 0.0
	var detail []string
	for n := 60; n <= 70; n++ {
		var rep pgas.Report
		cfg := s.config(ari, pgas.OrderRelaxed, nil)
		cfg.PEs, cfg.PEsPerNode, cfg.Report = 2, 1, &rep
		err := s.parallel(func() error {
			return pgas.Run(cfg, func(pe *pgas.PE) error {
				base, err := pe.Alloc(int64(8*n), 64)
				if err != nil || pe.Rank() != 0 {
					return err
				}
				for range rounds {
					for v := range n {
						if _, err := pgas.FetchAdd(pe, pgas.Ptr[int64](1, base+8*int64(v)), 1); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
		if err != nil {
			return Measurement{}, err
		}
		misses := rep.Counters["amo_misses"]
		detail = append(detail, fmt.Sprintf("%d:%d", n, misses))
		if misses == int64(n) {
			largest = float64(n)
		}
	}
	return Measurement{Values: []float64{largest}, Detail: "misses by variables: " + strings.Join(detail, ", ")}, nil
}

func ariesMinHopsRow(*Session) (Measurement, error) {
	const groups, pairs = 16, 10000
	bundle, err := aries.MaxBundle(groups)
	if err != nil {
		return Measurement{}, err
	}
	d, err := aries.NewDragonfly(groups, bundle)
	if err != nil {
		return Measurement{}, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	groupOf := func(a int) int {
		l, _ := d.AriesLocation(a)
		return l.Group
	}
	violations, longest, mid := 0, 0, 0
	for range pairs {
		src, dst := rng.IntN(d.Aries()), rng.IntN(d.Aries())
		p, err := d.Minimal(src, dst, rng.Uint64())
		if err != nil {
			return Measurement{}, err
		}
		// Per group: at most one green and one black hop.
		green, black := map[int]int{}, map[int]int{}
		for _, h := range p {
			switch h.Class {
			case aries.LinkGreen:
				green[groupOf(h.From)]++
			case aries.LinkBlack:
				black[groupOf(h.From)]++
			}
		}
		wantGlobal := 0
		if groupOf(src) != groupOf(dst) {
			wantGlobal = 1
		}
		bad := p.Count(aries.LinkGlobal) != wantGlobal
		for g := range green {
			bad = bad || green[g] > 1
		}
		for g := range black {
			bad = bad || black[g] > 1
		}
		if bad {
			violations++
		}
		via := rng.IntN(d.Aries())
		for groupOf(via) == groupOf(src) || groupOf(via) == groupOf(dst) {
			via = rng.IntN(d.Aries())
		}
		q, err := d.NonMinimal(src, dst, via, rng.Uint64(), rng.Uint64())
		if err != nil {
			return Measurement{}, err
		}
		longest = max(longest, len(q))
		if len(q) >= 6 && len(q) <= 7 {
			mid++
		}
	}
	return Measurement{Values: []float64{float64(violations), float64(longest), 100 * float64(mid) / pairs}}, nil
}

func ariesBisectRow(*Session) (Measurement, error) {
	type want struct {
		groups, bundle       int
		cables, crossing     int
		bandwidthGBPerSecond float64
	}
	cases := []want{{6, 12, 180, 108, 4050}, {6, 48, 720, 432, 16200}, {8, 12, 336, 192, 7200}, {8, 34, 952, 544, 20400}}
	var bad []string
	for _, c := range cases {
		total, err1 := aries.TotalCables(c.groups, c.bundle)
		crossing, err2 := aries.BisectionCables(c.groups, c.bundle)
		bw, err3 := aries.BisectionBandwidth(c.groups, c.bundle)
		if err := errors.Join(err1, err2, err3); err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if total != c.cables || crossing != c.crossing || bw/giga != c.bandwidthGBPerSecond {
			bad = append(bad, fmt.Sprintf("%d groups bundle %d: %d/%d/%.0f, want %d/%d/%.0f", c.groups, c.bundle, total, crossing, bw/giga, c.cables, c.crossing, c.bandwidthGBPerSecond))
		}
	}
	return Measurement{Values: []float64{float64(len(bad))}, Detail: strings.Join(bad, "; ")}, nil
}

// ariesIOMMURow gives the IOMMU's parameters, and in the detail the rate
// of random puts over a large target with small and with huge pages.
func ariesIOMMURow(s *Session) (Measurement, error) {
	rates := make([]float64, 2)
	fs := make([]func() error, 2)
	for i, page := range []int{aries.SmallPageBytes, aries.HugePageBytes} {
		fs[i] = func() (err error) {
			rates[i], err = ariesRandomPutRate(s, page)
			return err
		}
	}
	if err := s.parallel(fs...); err != nil {
		return Measurement{}, err
	}
	return Measurement{
		Values: []float64{aries.PTECacheWays, aries.PTECacheEntries, aries.PTEsPerEntry, float64(aries.PageLevels(aries.SmallPageBytes)), float64(aries.PageLevels(aries.HugePageBytes))},
		Detail: fmt.Sprintf("random 8-byte puts over 64 MiB: %.1f M/s with 4 KB pages, %.1f M/s with huge pages", rates[0], rates[1]),
	}, nil
}

// ariesRandomPutRate is the rate, in millions per second, of 8-byte puts
// by the 16 PEs of node 0 to random words of 64 MiB of node 4's first PE,
// with pages of page bytes.
func ariesRandomPutRate(s *Session, page int) (float64, error) {
	const area, puts, ppn = 64 << 20, 1000, 16
	cfg := s.config(ari, pgas.OrderRelaxed, map[string]string{"page_bytes": fmt.Sprint(page)})
	cfg.PEs, cfg.PEsPerNode = 5*ppn, ppn
	cfg.SegmentBytes = pgas.ReservedBytes + area
	var r float64
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		// The whole heap: the area the puts land in, its first word also
		// what they put.
		base, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		start := pe.Now()
		if pe.Node() == 0 {
			rng := rand.New(rand.NewPCG(uint64(pe.Rank()), 7))
			buf, err := pe.Local(base, 8)
			if err != nil {
				return err
			}
			for range puts {
				off := base + 8*rng.Int64N(area/8)
				if err := pe.PutNBI(4*ppn, off, buf); err != nil {
					return err
				}
			}
			if err := pe.SyncNBIPuts(); err != nil {
				return err
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			r = float64(ppn*puts) / (pe.Now() - start).Seconds() / mega
		}
		return nil
	})
	return r, err
}

func ariesFMADescRow(s *Session) (Measurement, error) {
	largest := 0
	for _, ppn := range []int{aries.FMADescriptors, aries.FMADescriptors + 1} {
		cfg := s.config(ari, pgas.OrderRelaxed, nil)
		cfg.PEs, cfg.PEsPerNode = ppn, ppn
		cfg.SegmentBytes = pgas.ReservedBytes + 64<<10
		err := s.parallel(func() error {
			return pgas.Run(cfg, func(pe *pgas.PE) error { return nil })
		})
		if err == nil {
			largest = ppn
		}
	}
	return Measurement{Values: []float64{float64(largest)}}, nil
}

// The Aries ordering comparison of [ORDERING] VI.B on the Figure 2
// benchmark: 4 nodes, PEs per node up to a node's cores.
var ariesOrdPPNs = []int{1, 2, 4, 8, aries.CoresPerNode}

// ariesOrdBW is one point of it (BTE gets, window 1): bandwidth in MB/s.
func ariesOrdBW(s *Session, order pgas.Ordering, size, ppn int) (float64, error) {
	return shared(s, fmt.Sprintf("aries/ord/%v/%d/%d", order, size, ppn), func() (float64, error) {
		return runOne(s, func() (float64, error) {
			r, err := bench.OrderingBW(bench.Setup{Config: s.config(ari, order, nil), Nodes: studyNodes, PPN: ppn, Mechanism: bench.BTE,
				Window: 1, Iterations: studyIterations(size), Warmup: 2}, []int{size}, bench.Get)
			if err != nil {
				return 0, err
			}
			return r.Points[0].Value, nil
		})
	})
}

func ariesOrdRow(s *Session) (Measurement, error) {
	orders := []pgas.Ordering{pgas.OrderStrict, pgas.OrderRelaxed}
	bw := make([][][]float64, len(studySizes)) // size, order, PEs per node
	var fs []func() error
	for i, size := range studySizes {
		bw[i] = make([][]float64, len(orders))
		for j, o := range orders {
			bw[i][j] = make([]float64, len(ariesOrdPPNs))
			for k, ppn := range ariesOrdPPNs {
				fs = append(fs, func() (err error) {
					bw[i][j][k], err = ariesOrdBW(s, o, size, ppn)
					return err
				})
			}
		}
	}
	// ariesOrdBW takes a parallel slot itself; run the lookups unbounded.
	errc := make(chan error, len(fs))
	for _, f := range fs {
		go func() { errc <- f() }()
	}
	var first error
	for range fs {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return Measurement{}, first
	}
	gap, fall := 0.0, 0.0
	var parts []string
	for i, size := range studySizes {
		st, re := bw[i][0], bw[i][1]
		best := 0.0
		for k := range ariesOrdPPNs {
			gap = max(gap, 100*math.Abs(re[k]-st[k])/max(re[k], st[k]))
			if best > 0 {
				fall = max(fall, 100*(best-st[k])/best)
			}
			best = max(best, st[k])
		}
		parts = append(parts, fmt.Sprintf("%d KiB strict: %s; relaxed: %s", size>>10, series(ariesOrdPPNs, st, "%d", "%.0f"), series(ariesOrdPPNs, re, "%d", "%.0f")))
	}
	return Measurement{Values: []float64{gap, fall}, Detail: strings.Join(parts, "; ")}, nil
}
