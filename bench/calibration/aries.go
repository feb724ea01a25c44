package calibration

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// The Aries rows (CALIBRATION.md, "Aries (Cray XC, Dragonfly)").

const (
	ari = "aries"
	awp = "aries-xc-network-whitepaper.txt"
)

// ariesHopGroups and ariesHopBundle are the system of the hop-latency
// scenario: six groups joined by two cables each, so that most Aries reach
// another group only through other Aries of their own and node 0 has peers
// whose every minimal route has each of one to five hops.
const ariesHopGroups, ariesHopBundle = 6, 2

func init() {
	register(
		&Row{ID: "A-NIC-BW", Backend: ari, Figure: "NIC peak (64 B every 5 cycles at 800 MHz)", Published: "10.2 GB/s", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Within, Target: 10.2, Unit: "GB/s"}},
			Conditions: "the NIC's receive pipeline fed 10,000 64-byte put packets without host or network limits",
			measure: func(*Session) (Measurement, error) {
				v, err := aries.MeasureNICPeak(10000)
				return Measurement{Values: []float64{v / giga}}, err
			}},
		&Row{ID: "A-PCIE", Backend: ari, Figure: "PCIe Gen3 x16 raw; 24 B overhead per transfer", Published: "16 GB/s", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Label: "raw", Check: Exact, Target: 16, Unit: "GB/s"}, {Label: "overhead", Check: Exact, Target: 24, Unit: "B"}},
			Conditions: "the model's host-interface parameters",
			measure: func(*Session) (Measurement, error) {
				return Measurement{Values: []float64{aries.PCIeBytesPerSecond / giga, aries.PCIeOverheadBytes}}, nil
			}},
		&Row{ID: "A-SYM", Backend: ari, Figure: "symmetric bulk transfer per direction", Published: "about 8 GB/s", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Within, Target: 8, Unit: "GB/s"}},
			Conditions: "as A-BW-BI: two nodes on neighbouring Aries put 1 MiB to each other, window 16; per direction",
			measure: func(s *Session) (Measurement, error) {
				v, err := ariesBiBW(s)
				return Measurement{Values: []float64{v / 2}}, err
			}},
		&Row{ID: "A-TILE", Backend: ari, Figure: "processor tile: one 48-bit flit per cycle at 875 MHz", Published: "5.25 GB/s", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Within, Target: 5.25, Tol: 0.01, Unit: "GB/s"}},
			Conditions: "a flit per the model's tile flit time",
			measure: func(*Session) (Measurement, error) {
				return Measurement{Values: []float64{aries.TileBytesPerSecondModel() / giga}}, nil
			}},
		&Row{ID: "A-FLITS", Backend: ari, Figure: "64 B put = 14 request + 1 response flits; 64 B get = 3 + 12; LCB overhead 1 flit in 10", Published: "exact", Source: awp + ", Aries Performance",
			Expect: []Expect{{Label: "64 B put", Check: Exact, Target: 15, Unit: "flits"}, {Label: "64 B get", Check: Exact, Target: 15, Unit: "flits"},
				{Label: "LCB flits per 10", Check: Within, Target: 1, Tol: 0.01}},
			Conditions: "flits crossing links per operation, counted in simulations of 200 and of 100 operations to a node on the neighbouring Aries (one green hop), the difference over 100; the LCB's share of an electrical link's flit time",
			measure: func(s *Session) (Measurement, error) {
				put, err := ariesFlitDelta(s, bench.Put)
				if err != nil {
					return Measurement{}, err
				}
				get, err := ariesFlitDelta(s, bench.Get)
				if err != nil {
					return Measurement{}, err
				}
				raw := float64(aries.FlitBits) / (aries.LanesPerLink * aries.ElectricalLaneBitsPerSecond) * 1e12
				lcb := 10 * (1 - raw/float64(aries.LinkFlitTime(aries.ElectricalLaneBitsPerSecond)))
				f := aries.Flits()
				return Measurement{Values: []float64{put, get, lcb}, Detail: fmt.Sprintf("model: 64 B put %d+%d, 64 B get %d+%d, error %d",
					f.Put64Request, f.Put64Response, f.Get64Request, f.Get64Response, f.ErrorResponse)}, nil
			}},
		&Row{ID: "A-EFF", Backend: ari, Figure: "payload efficiency (64/15 flits x 9/60)", Published: "64%", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Within, Target: 64, Tol: 0.01, Unit: "%"}},
			Conditions: "64 payload bytes over the link bytes of a 64-byte put (A-FLITS's count), with the LCB's one flit in ten",
			measure: func(s *Session) (Measurement, error) {
				put, err := ariesFlitDelta(s, bench.Put)
				if err != nil {
					return Measurement{}, err
				}
				eff := 64 / (put * aries.FlitBytes) * aries.LCBDataFlitsPerSet / aries.LCBFlitsPerSet
				return Measurement{Values: []float64{100 * eff}}, nil
			}},
		&Row{ID: "A-LAT-PUT", Backend: ari, Figure: "8 B put latency, user space, quiet", Published: "0.8 us", Source: awp + ", Aries Performance, Figure 11",
			Expect:     []Expect{{Check: Within, Target: 0.8, Unit: "us"}},
			Conditions: "8-byte put ping-pong between nodes on neighbouring Aries of a chassis (one green hop), half the round trip, PEs on CPU 0, 200 iterations",
			measure: func(s *Session) (Measurement, error) {
				l, _, err := ariesHopLatencies(s)
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{l[0]}}, nil
			}},
		&Row{ID: "A-LAT-GET", Backend: ari, Figure: "8 B get latency", Published: "1.6 us", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Within, Target: 1.6, Unit: "us"}},
			Conditions: "blocking 8-byte get from a node on the neighbouring Aries, 1000 iterations",
			measure: func(s *Session) (Measurement, error) {
				return smallLatency(s, bench.GetLatency, ari, 8)
			}},
		&Row{ID: "A-LAT-MSG", Backend: ari, Figure: "8 B two-sided message latency", Published: "about 1.3 us", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Within, Target: 1.3, Unit: "us"}},
			Conditions: "active-message ping-pong, 8-byte Medium payload, between nodes on neighbouring Aries, half the round trip, 1000 iterations",
			measure: func(s *Session) (Measurement, error) {
				return smallLatency(s, bench.Latency, ari, 8)
			}},
		&Row{ID: "A-HOP", Backend: ari, Figure: "per router-to-router hop, quiet; the most on minimal routes", Published: "about 100 ns; max 500 ns", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Label: "per hop", Check: Within, Target: 100, Unit: "ns"}, {Label: "5 hops", Check: AtMost, Target: 500 * 1.1, Unit: "ns"}},
			Conditions: fmt.Sprintf("8-byte put ping-pong from node 0 to nodes whose every minimal route has 1..5 hops in a system of %d groups joined by %d cables each (the job's nodes are those, the option exclude maps it around the rest); least-squares slope of the one-way latency, and 5 times it", ariesHopGroups, ariesHopBundle),
			measure: func(s *Session) (Measurement, error) {
				l, hops, err := ariesHopLatencies(s)
				if err != nil {
					return Measurement{}, err
				}
				xs := make([]float64, len(hops))
				for i, h := range hops {
					xs[i] = float64(h)
				}
				per := 1000 * slope(xs, l)
				return Measurement{Values: []float64{per, 5 * per}, Detail: "one-way us by hops: " + series(xs, l, "%.0f", "%.3f")}, nil
			}},
		&Row{ID: "A-LAT-MAX", Backend: ari, Figure: "quiet latency between any pair on the largest systems", Published: "< 2 us", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Below, Target: 2, Unit: "us"}},
			Conditions: "the 8-byte put latency of A-HOP's longest pair (5 hops, the most a minimal route has on any system: one global hop however many groups; the model has no cable-length term beyond its optical flight time)",
			measure: func(s *Session) (Measurement, error) {
				l, _, err := ariesHopLatencies(s)
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{slices.Max(l)}}, nil
			}},
		&Row{ID: "A-BW-UNI", Backend: ari, Figure: "unidirectional bandwidth between two nodes", Published: "up to 10 GB/s (streaming 9.7; one-at-a-time ping-pong 8.5)", Source: awp + ", Aries Performance, Figures 12, 14",
			Expect:     []Expect{{Label: "streaming", Check: Within, Target: 9.7, Unit: "GB/s"}, {Label: "one at a time", Check: Within, Target: 8.5, Unit: "GB/s"}},
			Conditions: "streaming: one PE puts 1 MiB to a node on the neighbouring Aries, windows of 16; one at a time: it pulls 4 MiB (IMB's largest ping-pong size) by blocking gets, as a large MPI message's rendezvous does (the model has none of MPI's own costs: matching, rendezvous messages, registering the user's buffer; what holds the get below the streaming rate is its round trip and the adaptive routing of its responses, part of them on longer non-minimal paths)",
			measure: func(s *Session) (Measurement, error) {
				vals := make([]float64, 2)
				err := s.parallel(func() error {
					r, err := bench.PutBW(bench.Setup{Config: s.config(ari, pgas.OrderRelaxed, nil), Nodes: 8, PPN: 1, Window: 16, Iterations: 4, Warmup: 1}, []int{1 << 20})
					if err == nil {
						vals[0] = r.Points[0].Value / 1000
					}
					return err
				}, func() error {
					r, err := bench.GetBW(bench.Setup{Config: s.config(ari, pgas.OrderDefault, nil), Nodes: 8, PPN: 1, Window: 1, Iterations: 4, Warmup: 1}, []int{4 << 20})
					if err == nil {
						vals[1] = r.Points[0].Value / 1000
					}
					return err
				})
				return Measurement{Values: vals}, err
			}},
		&Row{ID: "A-BW-BI", Backend: ari, Figure: "bidirectional bandwidth", Published: "> 15 GB/s (7.5 each way)", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Above, Target: 15, Unit: "GB/s"}},
			Conditions: "two nodes on neighbouring Aries put 1 MiB to each other, window 16; the total",
			measure: func(s *Session) (Measurement, error) {
				v, err := ariesBiBW(s)
				return Measurement{Values: []float64{v}}, err
			}},
		&Row{ID: "A-HALF", Backend: ari, Figure: "half-peak put bandwidth with several processes per node", Published: "at 128 B", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Exact, Target: 128, Unit: "B"}},
			Conditions: "the 8 PEs of node 0 on CPU 0 (the socket of the whitepaper's measurements) put to the 8 PEs of node 1 (OSU mbw_mr, window 64), sizes 8 B..64 KiB in powers of two; the smallest size reaching half the peak",
			measure:    ariesHalfRow},
		&Row{ID: "A-RATE", Backend: ari, Figure: "puts per second per node with FMA launch; with an MDH change per put; per core", Published: "120 M; 80 M; 7.5 M", Source: awp + ", Aries Performance, Figure 13",
			Expect: []Expect{{Label: "node", Check: Within, Target: 120, Unit: "M/s"}, {Label: "MDH change", Check: Within, Target: 80, Unit: "M/s"},
				{Label: "core", Check: Within, Target: 7.5, Unit: "M/s"}},
			Conditions: "8-byte non-blocking puts, 2000 per PE then a sync, from a barrier to the last PE's sync: 16 PEs of node 0 each to one PE of a node on the neighbouring Aries; the same alternating between two PEs there (another memory domain each time); one PE alone",
			measure:    ariesRateRow},
		&Row{ID: "A-OUTST", Backend: ari, Figure: "outstanding packets per NIC", Published: "1024", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Exact, Target: 1024}},
			Conditions: "the 16 PEs of each of nodes 0-7 post 128 non-blocking 64-byte gets each, all to node 8, whose NIC answers them one after another: far more requests than answers per requester; the most request packets a NIC had outstanding",
			measure:    ariesOutstandingRow},
		&Row{ID: "A-AMO", Backend: ari, Figure: "AMOs per second, many processes on one cached variable; random variables", Published: "400 M; 50..120 M", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Label: "one variable", Check: Within, Target: 400, Unit: "M/s"}, {Label: "random", Check: InRange, Target: 85, Lo: 50, Hi: 120, Unit: "M/s"}},
			Conditions: "the 240 PEs of nodes 1-15 (16 per node) add to words of rank 0, window 64 each: one word; words chosen at random among 65,536 (512 KiB, huge pages)",
			measure: func(s *Session) (Measurement, error) {
				one, err := manyToOneOn(s, ari, 16, 16, 1)
				if err != nil {
					return Measurement{}, err
				}
				rnd, err := manyToOneOn(s, ari, 16, 16, 1<<16)
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{one.Values[0], rnd.Values[0]}, Detail: "one variable: " + one.Detail + "; random: " + rnd.Detail}, nil
			}},
		&Row{ID: "A-AMO-CACHE", Backend: ari, Figure: "AMO cache entries", Published: "64", Source: awp + ", AMO section",
			Expect:     []Expect{{Check: Exact, Target: 64}},
			Conditions: "a PE adds to n words of another node's PE in turn, 20 rounds, for n = 60..70: the largest n for which only the first round misses the AMO cache",
			measure:    ariesAMOCacheRow},
		&Row{ID: "A-CE", Backend: ari, Figure: "allreduce, 64-bit float sum, offloaded to the collective engine, 750 nodes x 16 processes", Published: "< 10 us", Source: awp + ", Aries Performance, Figure 15",
			Expect:     []Expect{{Check: Below, Target: 10, Unit: "us"}},
			Conditions: "OSU allreduce of one float64 (sum) on 750 nodes of 16 PEs (12,000 PEs; smallest segments), 10 iterations after 2 of warm-up: the slowest PE's average; the detail gives the engine's counters",
			measure:    ariesCERow},
		&Row{ID: "A-CE-SHAPE", Backend: ari, Figure: "collective engine: 4 virtual CEs per NIC, tree radix up to 32, 32/64-bit int, logical and float ops, min/max with location, no product", Published: "exact", Source: awp + ", Reductions and Barriers",
			Expect:     []Expect{{Label: "CEs", Check: Exact, Target: 4}, {Label: "radix", Check: Exact, Target: 32}, {Label: "mismatches", Check: Exact, Target: 0}},
			Conditions: "the engine's parameters, and which operations it takes (the rest fall back to software)",
			measure: func(*Session) (Measurement, error) {
				bad := aries.CEShapeMismatches()
				return Measurement{Values: []float64{aries.CEsPerNIC, aries.CEMaxRadix, float64(len(bad))}, Detail: strings.Join(bad, "; ")}, nil
			}},
		&Row{ID: "A-GROUP", Backend: ari, Figure: "group = 6 chassis x 16 Aries x 4 nodes = 384 nodes; 3 black links to each peer chassis; 10 global links per Aries in sets of 4; at most 241 groups, 92,544 nodes", Published: "exact", Source: awp + ", Dragonfly Implementation",
			Expect: []Expect{{Label: "nodes/group", Check: Exact, Target: 384}, {Label: "black per peer", Check: Exact, Target: 3}, {Label: "global per Aries", Check: Exact, Target: 10},
				{Label: "max groups", Check: Exact, Target: 241}, {Label: "max nodes", Check: Exact, Target: 92544}},
			Conditions: "the largest system the model builds (241 groups, bundles of 1)",
			measure: func(*Session) (Measurement, error) {
				d, err := aries.NewDragonfly(aries.MaxGroups, 1)
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{aries.NodesPerGroup, aries.BlackLinksPerPeer, aries.GlobalLinksPerAries, float64(d.Groups()), float64(d.Nodes())}}, nil
			}},
		&Row{ID: "A-MINHOPS", Backend: ari, Figure: "minimal: at most one green and one black hop per group, one global hop between groups; non-minimal at most 10 hops, mostly 6..7", Published: "exact", Source: awp + ", Cray XC Routing",
			Expect: []Expect{{Label: "minimal violations", Check: Exact, Target: 0}, {Label: "non-minimal max", Check: AtMost, Target: 10, Unit: "hops"},
				{Label: "non-minimal 6..7", Check: Above, Target: 50, Unit: "%"}},
			Conditions: "10,000 random pairs of Aries of a full 16-group system, bundles of the most that fit: a random minimal route, and a Valiant route through a random Aries of another group",
			measure:    ariesMinHopsRow},
		&Row{ID: "A-BISECT", Backend: ari, Figure: "bisection: 6 groups, bundles of 12: 180 cables, 108 crossing, 4050 GB/s; full 720/432/16200; 8 groups: 336/192/7200; full 952/544/20400", Published: "exact", Source: awp + ", Tables 2, 3",
			Expect:     []Expect{{Label: "mismatches", Check: Exact, Target: 0}},
			Conditions: "cables, crossing cables and bisection bandwidth of the model's systems of 6 and 8 groups, bundles of 12 and full",
			measure:    ariesBisectRow},
		&Row{ID: "A-GLOBAL", Backend: ari, Figure: "peak global bandwidth per node, full network; after payload efficiency", Published: "11.7 GB/s; 7.5 GB/s", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Label: "peak", Check: Within, Target: 11.7, Tol: 0.01, Unit: "GB/s"}, {Label: "payload", Check: Within, Target: 7.5, Tol: 0.01, Unit: "GB/s"}},
			Conditions: "241 groups, bundles of 1 (every optical port cabled); payload efficiency of a 64-byte put",
			measure: func(*Session) (Measurement, error) {
				d, err := aries.NewDragonfly(aries.MaxGroups, 1)
				if err != nil {
					return Measurement{}, err
				}
				eff, err := aries.PayloadEfficiency(64, aries.Flits().Put64Request+aries.Flits().Put64Response)
				if err != nil {
					return Measurement{}, err
				}
				g := d.GlobalBandwidthPerNode() / giga
				return Measurement{Values: []float64{g, g * eff}}, nil
			}},
		&Row{ID: "A-GREEN", Backend: ari, Figure: "intra-group bisection in the green dimension", Published: "4032 GB/s", Source: awp + ", Aries Performance",
			Expect:     []Expect{{Check: Exact, Target: 4032, Unit: "GB/s"}},
			Conditions: "a full group's green cut, both directions at the electrical link rate",
			measure: func(*Session) (Measurement, error) {
				v, err := aries.GroupBisectionBandwidth(aries.ChassisPerGroup)
				return Measurement{Values: []float64{v / giga}}, err
			}},
		&Row{ID: "A-IOMMU", Backend: ari, Figure: "PTE cache: 4-way, 128 entries x 8 PTEs; 4 KB pages two-level, huge pages one level", Published: "exact", Source: awp + ", Address Translation",
			Expect: []Expect{{Label: "ways", Check: Exact, Target: 4}, {Label: "entries", Check: Exact, Target: 128}, {Label: "PTEs/entry", Check: Exact, Target: 8},
				{Label: "4 KB levels", Check: Exact, Target: 2}, {Label: "huge levels", Check: Exact, Target: 1}},
			Conditions: "the IOMMU's parameters; the detail gives the rate of random 8-byte puts by 16 PEs over 64 MiB of one target with 4 KB and with huge pages",
			measure:    ariesIOMMURow},
		&Row{ID: "A-FMA-DESC", Backend: ari, Figure: "FMA descriptors per NIC", Published: "at most 127", Source: awp + ", Network Software Stack",
			Expect:     []Expect{{Check: Exact, Target: 127}},
			Conditions: "the most PEs per node a job may have (one FMA descriptor each): jobs of 127 and 128 PEs on one node",
			measure:    ariesFMADescRow},
	)
}

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
	return Measurement{Values: []float64{r.Points[0].Value},
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
