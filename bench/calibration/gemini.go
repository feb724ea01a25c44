package calibration

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/pgas"
)

// The Gemini rows (CALIBRATION.md, "Gemini (Cray XE6, 3D torus)").

const (
	gem  = "gemini"
	wp   = "gemini-network-whitepaper.txt"
	sip  = "gemini-system-interconnect-paper.txt"
	mop  = "gemini-message-ordering-paper.txt"
	mega = 1e6
	giga = 1e9
)

// The ordering study's conditions (MOP III, Figures 3-5): 4 nodes, PEs per
// node swept, one outstanding operation per PE, the Figure 2 benchmark.
var (
	studyNodes = 4
	studyPPNs  = []int{1, 2, 3, 4, 6, 8, 12, 16, 24}
	// studySizes are the sizes of the concurrency sweeps: medium and large
	// block transfers.
	studySizes = []int{16 << 10, 64 << 10}
	// monoSizes are the "small-to-medium" sizes of G-ORD-MONO.
	monoSizes = []int{1 << 10, 4 << 10, 16 << 10}
)

func init() {
	register(
		&Row{ID: "G-CLK", Backend: gem, Figure: "NIC / router / link clocks", Published: "650 MHz / 800 MHz / 3.125 GHz lanes", Source: wp + " 6.1",
			Expect:     []Expect{{Label: "NIC", Check: Exact, Target: 650, Unit: "MHz"}, {Label: "router", Check: Exact, Target: 800, Unit: "MHz"}, {Label: "lane", Check: Exact, Target: 3.125, Unit: "Gb/s"}},
			Conditions: "the model's clock parameters",
			measure: func(*Session) (Measurement, error) {
				return Measurement{Values: []float64{gemini.NICClockHz / mega, gemini.RouterClockHz / mega, gemini.LaneBitsPerSecond / giga}}, nil
			}},
		&Row{ID: "G-LAT-PUT", Backend: gem, Figure: "end-point latency, small remote put, quiet network, nearest neighbour", Published: "< 0.7 us (paper), <= 1.0 us (whitepaper)", Source: sip + " V.A",
			Expect:     []Expect{{Check: Below, Target: 0.7, Unit: "us"}},
			Conditions: "8-byte put ping-pong between nodes on neighbouring Geminis (x), half the round trip, relaxed ordering, 200 iterations",
			measure: func(s *Session) (Measurement, error) {
				l, err := hopLatencies(s)
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{l[0]}}, nil
			}},
		&Row{ID: "G-LAT-GET", Backend: gem, Figure: "small get latency", Published: "< 1.5 us", Source: sip + " V.A",
			Expect:     []Expect{{Check: Below, Target: 1.5, Unit: "us"}},
			Conditions: "blocking 8-byte get from a node on the neighbouring Gemini, 1000 iterations",
			measure: func(s *Session) (Measurement, error) {
				return smallLatency(s, bench.GetLatency, gem, 4)
			}},
		&Row{ID: "G-LAT-MSG", Backend: gem, Figure: "small two-sided message (AM/MPI-like) latency", Published: "<= 1.5 us", Source: "both Gemini docs",
			Expect:     []Expect{{Check: AtMost, Target: 1.5, Unit: "us"}},
			Conditions: "active-message ping-pong, 8-byte Medium payload, between nodes on neighbouring Geminis, half the round trip, 1000 iterations",
			measure: func(s *Session) (Measurement, error) {
				return smallLatency(s, bench.Latency, gem, 4)
			}},
		&Row{ID: "G-HOP", Backend: gem, Figure: "added latency per router hop, quiet network", Published: "105 ns", Source: "both Gemini docs",
			Expect:     []Expect{{Check: Within, Target: 105, Unit: "ns"}},
			Conditions: "8-byte put ping-pong from node 0 to nodes 1..6 Geminis away along x of a 16x2x2 torus; least-squares slope of the one-way latency",
			measure: func(s *Session) (Measurement, error) {
				l, err := hopLatencies(s)
				if err != nil {
					return Measurement{}, err
				}
				xs := make([]float64, len(l))
				for i := range xs {
					xs[i] = float64(i + 1)
				}
				return Measurement{Values: []float64{1000 * slope(xs, l)}, Detail: "one-way us by hops: " + series(xs, l, "%.0f", "%.3f")}, nil
			}},
		&Row{ID: "G-NIC-BW", Backend: gem, Figure: "NIC peak per direction (64 B every 5 cycles at 650 MHz)", Published: "8.3 GB/s", Source: wp + " 6.2",
			Expect:     []Expect{{Check: Within, Target: 8.3, Unit: "GB/s"}},
			Conditions: "the NIC's transmit pipeline fed 10,000 64-byte put packets without host limits (the HT link keeps a real node below this)",
			measure: func(*Session) (Measurement, error) {
				v, err := gemini.MeasureNICPeak(10000)
				return Measurement{Values: []float64{v / giga}}, err
			}},
		&Row{ID: "G-HT-FMA", Backend: gem, Figure: "FMA put peak limited by HT3 (12 B overhead per 64 B, 9.6 GB/s raw)", Published: "8 GB/s", Source: wp + " 6.2",
			Expect:     []Expect{{Check: Within, Target: 8, Unit: "GB/s"}},
			Conditions: "1, 2, 4 or 8 PEs of node 0 put 64 KiB by FMA to as many PEs of node 1 (the same Gemini: no torus link in the way), window 16, relaxed ordering; the peak",
			measure: func(s *Session) (Measurement, error) {
				ppns := []int{1, 2, 4, 8}
				bws := make([]float64, len(ppns))
				fs := make([]func() error, len(ppns))
				for i, ppn := range ppns {
					fs[i] = func() error {
						r, err := bench.MBWMR(bench.Setup{Config: s.config(gem, pgas.OrderRelaxed, nil), Nodes: 2, PPN: ppn, Mechanism: bench.FMA, Window: 16, Iterations: 5, Warmup: 1}, []int{64 << 10})
						if err == nil {
							bws[i] = r.Points[0].Value / 1000
						}
						return err
					}
				}
				if err := s.parallel(fs...); err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{slices.Max(bws)}, Detail: "GB/s by PEs per node: " + series(ppns, bws, "%d", "%.2f")}, nil
			}},
		&Row{ID: "G-HT-BTE", Backend: gem, Figure: "symmetric BTE peak per direction (12 B read req + 76 B posted write per 64 B)", Published: "7 GB/s", Source: wp + " 6.2",
			Expect:     []Expect{{Check: Within, Target: 7, Unit: "GB/s"}},
			Conditions: "node 0 and the nodes of its four neighbouring Geminis in x and z put 256 KiB by block transfer to each other, 2 in flight per pair and direction, relaxed ordering (so that node 0's host interface, not a link, is the limit); node 0's bandwidth per direction",
			measure: func(s *Session) (Measurement, error) {
				v, err := runOne(s, func() (float64, error) {
					// A 4x2x4 torus: Gemini g = x + 4(y + 2z) hosts nodes
					// 2g and 2g+1; node 0's neighbours in +x, -x, +z, -z are
					// Geminis 1, 3, 8 and 24.
					out, _, err := exchange(s.config(gem, pgas.OrderRelaxed, map[string]string{"torus": "4x2x4"}), 64, []int{2, 6, 16, 48}, 256<<10, 2, 4)
					return out, err
				})
				return Measurement{Values: []float64{v / giga}}, err
			}},
		&Row{ID: "G-PHIT", Backend: gem, Figure: "packet sizes in 24-bit phits", Published: "8 B put = 11 req + 2 rsp; 64 B put = 32 + 2; 64 B get = 8 + 27; error response 3", Source: wp + " section 3",
			Expect: []Expect{{Label: "8 B put", Check: Exact, Target: 13, Unit: "phits"}, {Label: "64 B put", Check: Exact, Target: 34, Unit: "phits"},
				{Label: "64 B get", Check: Exact, Target: 35, Unit: "phits"}, {Label: "error rsp", Check: Exact, Target: 3, Unit: "phits"}},
			Conditions: "phits crossing the torus per operation, counted in simulations of 200 and of 100 operations to the neighbouring Gemini, the difference divided by 100; the error response from the model's packet sizes",
			measure:    phitRow},
		&Row{ID: "G-LINK-RAW", Backend: gem, Figure: "torus connection raw bandwidth (12 lanes x 3.125 Gb/s) per direction", Published: "4.68 GB/s", Source: wp + " 6.2",
			Expect:     []Expect{{Check: Within, Target: 4.68, Tol: 0.01, Unit: "GB/s"}},
			Conditions: "one 24-bit phit per phit time of the model's connection",
			measure: func(*Session) (Measurement, error) {
				return Measurement{Values: []float64{gemini.LinkRawBytesPerSecond() / giga}}, nil
			}},
		&Row{ID: "G-LINK-EFF", Backend: gem, Figure: "payload efficiency on 64 B writes", Published: "63%", Source: wp + " 6.2",
			Expect:     []Expect{{Check: Within, Target: 63, Unit: "%"}},
			Conditions: "payload bytes over torus bytes (phits x 3, requests and responses) for a stream of 64-byte puts to the neighbouring Gemini",
			measure: func(s *Session) (Measurement, error) {
				d, err := phitDelta(s, bench.Put, 64)
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{100 * 64 / (d * 3)}}, nil
			}},
		&Row{ID: "G-LINK-BW", Backend: gem, Figure: "one torus connection after protocol, per direction", Published: "2.9 GB/s", Source: wp + " 6.2",
			Expect:     []Expect{{Check: Within, Target: 2.9, Unit: "GB/s"}},
			Conditions: "one PE puts 1 MiB by block transfer, window 8, to a node on the neighbouring Gemini in x, hashed deterministic routing (one of the two x connections), relaxed ordering",
			measure: func(s *Session) (Measurement, error) {
				v, err := p2pBW(s, "deterministic")
				return Measurement{Values: []float64{v}}, err
			}},
		&Row{ID: "G-P2P-BW", Backend: gem, Figure: "one point-to-point transfer with adaptive routing over the parallel links", Published: ">= 5 GB/s", Source: wp + " 6.2",
			Expect:     []Expect{{Check: AtLeast, Target: 5, Unit: "GB/s"}},
			Conditions: "as G-LINK-BW with adaptive routing, packet by packet over both x connections",
			measure: func(s *Session) (Measurement, error) {
				v, err := p2pBW(s, "adaptive")
				return Measurement{Values: []float64{v}}, err
			}},
		&Row{ID: "G-BISECT", Backend: gem, Figure: "bisection of a 10x16x24 torus (40 cabinets, 4 rows)", Published: "2995 GB/s; global 5990 GB/s", Source: wp + " 6.2.1, 6.2.2",
			Expect:     []Expect{{Label: "bisection", Check: Within, Target: 2995, Tol: 0.001, Unit: "GB/s"}, {Label: "global", Check: Within, Target: 5990, Tol: 0.001, Unit: "GB/s"}},
			Conditions: "the Table 1 system of 4 rows of 10 cabinets, the whitepaper's formula on its links",
			measure: func(*Session) (Measurement, error) {
				t, _, err := gemini.ForCabinets(10, 4)
				if err != nil {
					return Measurement{}, err
				}
				x, y, z := t.NodeGeometry()
				return Measurement{Values: []float64{t.BisectionBandwidth() / giga, t.GlobalBandwidth() / giga}, Detail: fmt.Sprintf("%dx%dx%d nodes", x, y, z)}, nil
			}},
		&Row{ID: "G-TOPO", Backend: gem, Figure: "Table 1 geometry classes and m-series 2D tori", Published: "exact", Source: wp + " section 5, Table 1",
			Expect:     []Expect{{Label: "mismatches", Check: Exact, Target: 0}},
			Conditions: "Table 1's geometry for 1, 3, 4, 16 cabinets in a row, 2 rows of 8 and 24, 4 rows of 10, 8 rows of 25 (Jaguar); m-series of 1 cabinet (y 4, 8, 12) and 2..6 cabinets",
			measure:    topoRow},
		&Row{ID: "G-AMO-MISS", Backend: gem, Figure: "many-to-one atomic add, 8192 random variables (all miss the AMO cache)", Published: "> 45 M/s", Source: sip + " V.A, Fig 9",
			Expect:     []Expect{{Check: Above, Target: 45, Unit: "M/s"}},
			Conditions: "the 124 PEs of nodes 1-31 (4 per node) add to words of rank 0 chosen at random among 8192, window 64 each",
			measure: func(s *Session) (Measurement, error) {
				return manyToOne(s, 8192)
			}},
		&Row{ID: "G-AMO-HIT", Backend: gem, Figure: "many-to-one atomic add on one variable (AMO cache hits)", Published: "up to 100 M/s", Source: sip + " V.A, Fig 9",
			Expect:     []Expect{{Check: Within, Target: 100, Unit: "M/s"}},
			Conditions: "the 124 PEs of nodes 1-31 (4 per node) add to one word of rank 0, window 64 each",
			measure: func(s *Session) (Measurement, error) {
				return manyToOne(s, 1)
			}},
		&Row{ID: "G-BTE-CONC", Backend: gem, Figure: "block transfers active at once per node", Published: "4", Source: mop + " II",
			Expect:     []Expect{{Check: Exact, Target: 4}},
			Conditions: "24 PEs of node 0 each post 2 non-blocking 64 KiB block-transfer puts at once; the most block transfers the NIC had active at a time",
			measure: func(s *Session) (Measurement, error) {
				r, err := runOne(s, func() (*bench.Result, error) {
					return bench.MBWMR(bench.Setup{Config: s.config(gem, pgas.OrderRelaxed, nil), Nodes: 2, PPN: 24, Mechanism: bench.BTE, Window: 2, Iterations: 1, Warmup: 1}, []int{64 << 10})
				})
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{float64(r.Report.Counters["bte_max_active"])}}, nil
			}},
		&Row{ID: "G-REG", Backend: gem, Figure: "memory registration of one 4 KB page; with 24 concurrent registrations", Published: "0.9 us; about 30 us", Source: mop + " III.B, Fig 6",
			Expect:     []Expect{{Label: "alone", Check: Within, Target: 0.9, Unit: "us"}, {Label: "24 at once", Check: Within, Target: 30, Unit: "us"}},
			Conditions: "PE.Pin of a 4 KB buffer by one PE, then by the 24 PEs of a node at the same instant (the time of the last one, which waits for all the others)",
			measure:    regRow},
		&Row{ID: "G-XOVER", Backend: gem, Figure: "48 pairs, one outstanding get each: FMA beats BTE below the crossover, BTE above", Published: "crossover near 4 KB (2 KB..8 KB passes)", Source: mop + " III, Fig 3",
			Expect:     []Expect{{Check: InRange, Target: 4096, Lo: 2048, Hi: 8192, Unit: "B"}},
			Conditions: "the Figure 2 benchmark, gets, 4 nodes x 24 PEs, window 1, relaxed ordering, sizes 512 B..32 KiB; the crossover interpolated (geometrically) where BTE's bandwidth overtakes FMA's",
			Miss:       "FMA gets keep up with block transfers at every size in the model: 24 PEs per node issue FMA requests faster than the links carry the responses, and nothing in the model stands for the FMA resources the paper says large FMA transfers exhaust (their number and use are not documented)",
			measure:    xoverRow},
		&Row{ID: "G-PUT-GET", Backend: gem, Figure: "peak put bandwidth relative to peak get bandwidth", Published: "about 0.8", Source: mop + " III, V.E",
			Expect:     []Expect{{Check: Within, Target: 0.8}},
			Conditions: "the Figure 2 benchmark, 4 nodes x 24 PEs, window 1, relaxed ordering, automatic mechanism; peaks over sizes 4 KiB..1 MiB",
			Miss:       "in the bidirectional Figure 2 benchmark the links between the two Geminis carry requests one way and responses the other, so puts (32-phit requests, 2-phit acknowledgements) and gets (8-phit requests, 27-phit responses) load them almost equally and peak within a few percent of each other; the paper does not say what made its puts 20% slower, and the model has no such mechanism",
			measure:    putGetRow},
		&Row{ID: "G-ORD-PEAK", Backend: gem, Figure: "BTE get, 48 pairs over 4 nodes, strict ordering: best processes-per-node", Published: "4 (3..6 passes)", Source: mop + " III.A, Fig 4",
			Expect:     []Expect{{Check: InRange, Target: 4, Lo: 3, Hi: 6, Unit: "PEs/node"}},
			Conditions: "the Figure 2 benchmark, BTE gets, 4 nodes, 1..24 PEs per node, window 1, strict ordering, 64 KiB",
			measure:    ordPeakRow},
		&Row{ID: "G-ORD-RATIO", Backend: gem, Figure: "BTE get, 24 processes per node: relaxed bandwidth / strict bandwidth", Published: "up to 4.6 (3.0..5.5 passes)", Source: mop + " abstract, III.A",
			Expect:     []Expect{{Check: InRange, Target: 4.6, Lo: 3.0, Hi: 5.5}},
			Conditions: "the Figure 2 benchmark, BTE gets, 4 nodes x 24 PEs, window 1; the largest ratio over 16 KiB and 64 KiB",
			measure:    ordRatioRow},
		&Row{ID: "G-ORD-MONO", Backend: gem, Figure: "relaxed ordering: bandwidth does not fall as processes per node grow 1..24 (small-to-medium sizes)", Published: "monotone within 5% noise", Source: mop + " Fig 5",
			Expect:     []Expect{{Label: "worst fall", Check: AtMost, Target: 5, Unit: "%"}},
			Conditions: "the Figure 2 benchmark, BTE gets, 4 nodes, 1..24 PEs per node, window 1, relaxed ordering, 1, 4 and 16 KiB; the largest fall below the best of fewer PEs per node",
			Miss:       "small relaxed block transfers lose a few percent from 8 to 24 PEs per node: with PEs on all four dies, most reads and writes go to remote dies (150 and 160 ns instead of 90 and 80), and at 1 KiB a transfer's round trip holds one of the node's 4 BTE channels",
			measure:    ordMonoRow},
		&Row{ID: "G-ORD-DEF", Backend: gem, Figure: "default ordering lies between strict and relaxed, generally closer to strict", Published: "strict <= default <= relaxed", Source: mop + " III",
			Expect:     []Expect{{Label: "points outside", Check: Exact, Target: 0}},
			Conditions: "the Figure 2 benchmark, BTE gets, 4 nodes, 1..24 PEs per node, window 1, 16 and 64 KiB; a point is outside when default is more than 5% below strict or above relaxed",
			Miss:       "at some points the model's default ordering falls below strict: with reads free to pass writes, the get responses arriving at each node interleave differently across the NUMA dies, and every die switch of the still-ordered posted writes waits a round trip",
			measure:    ordDefRow},
		&Row{ID: "G-MSG-RATE", Backend: gem, Figure: "8 B messages, relaxed, per node", Published: "about 12.5 M msgs/s (~100 MB/s)", Source: mop + " VI.A, VI.B",
			Expect:     []Expect{{Check: Within, Target: 12.5, Unit: "M/s"}},
			Conditions: "the Figure 2 benchmark with 8-byte FMA puts, 4 nodes x 24 PEs, window 64, relaxed ordering; messages per second per node",
			measure: func(s *Session) (Measurement, error) {
				r, err := runOne(s, func() (*bench.Result, error) {
					return bench.OrderingBW(bench.Setup{Config: s.config(gem, pgas.OrderRelaxed, nil), Nodes: 4, PPN: 24, Mechanism: bench.FMA, Window: 64, Iterations: 10, Warmup: 2}, []int{8}, bench.Put)
				})
				if err != nil {
					return Measurement{}, err
				}
				return Measurement{Values: []float64{r.Points[0].Rate / 4 / mega}, Detail: fmt.Sprintf("%.1f MB/s per node", r.Points[0].Value/4)}, nil
			}},
		&Row{ID: "G-BOUNCE", Backend: gem, Figure: "small transfers from outside the registered segment (bounce buffers) vs in-segment", Published: "at most ~10% slower", Source: mop + " I, IV.C",
			Expect:     []Expect{{Label: "worst slowdown", Check: AtMost, Target: 10, Unit: "%"}},
			Conditions: "the Figure 2 benchmark, gets, 4 nodes x 24 PEs, window 1, relaxed, automatic mechanism, 64 B..4 KiB, local buffers outside the segment vs inside",
			measure: func(s *Session) (Measurement, error) {
				return slowdown(s, []int{64, 512, 4096})
			}},
		&Row{ID: "G-DYNREG", Backend: gem, Figure: "large transfers needing dynamic registration vs in-segment", Published: "about 5..7% slower", Source: mop + " I, IV.C",
			Expect:     []Expect{{Label: "slowdown", Check: InRange, Target: 6, Lo: 4.5, Hi: 7.7, Unit: "%"}},
			Conditions: "the Figure 2 benchmark, 256 KiB gets, 4 nodes, relaxed, automatic mechanism, local buffers outside the segment (registered for each transfer) vs inside; the mean slowdown over 1, 2, 4, 8, 16 and 24 PEs per node and windows 1 and 4 (the grid of the paper's Figure 9)",
			Miss:       "in the model a registration costs the PE that makes it (0.7 us + 0.2 us per 4 KB page, serialised per node), and at high concurrency other PEs keep the links busy meanwhile: the loss is large with one PE per node and vanishes with many, where the paper sees it grow with concurrency (it blames registration's own growing cost, which the model has, but not its effect on the transfers)",
			measure:    dynRegRow},
	)
}

// hopLatencies is the one-way 8-byte put latency from node 0 to nodes
// 1..6 Geminis away in x (nodes 2h of a 16x2x2 torus), in microseconds.
func hopLatencies(s *Session) ([]float64, error) {
	return shared(s, "gemini/hops", func() ([]float64, error) {
		peers := []int{2, 4, 6, 8, 10, 12}
		return runOne(s, func() ([]float64, error) {
			return putPingPong(s.config(gem, pgas.OrderRelaxed, map[string]string{"torus": "16x2x2"}), 13, peers, 8, 200)
		})
	})
}

// p2pBW is one PE's block-transfer put bandwidth to the neighbouring
// Gemini in GB/s.
func p2pBW(s *Session, routing string) (float64, error) {
	r, err := bench.PutBW(bench.Setup{Config: s.config(gem, pgas.OrderRelaxed, map[string]string{"routing": routing}),
		Nodes: 4, PPN: 1, Mechanism: bench.BTE, Window: 8, Iterations: 4, Warmup: 1}, []int{1 << 20})
	if err != nil {
		return 0, err
	}
	return r.Points[0].Value / 1000, nil
}

// phitDelta is the torus phits per operation of op with size bytes: the
// counters of 200 operations to the neighbouring Gemini less those of 100,
// over 100 (what the job does besides cancels).
func phitDelta(s *Session, op bench.Op, size int) (float64, error) {
	return unitDelta(s, gem, "torus_phits", 3, 2, op, size)
}

// unitDelta is a link counter's growth per operation of op with size
// bytes from rank 0 to rank target of a job of ranks PEs, one per node:
// the counter after 200 operations less that after 100, over 100 (what
// the job does besides cancels).
func unitDelta(s *Session, backend, counter string, ranks, target int, op bench.Op, size int) (float64, error) {
	return shared(s, fmt.Sprintf("%s/%s/%v/%d", backend, counter, op, size), func() (float64, error) {
		count := func(n int) (int64, error) {
			var rep pgas.Report
			cfg := s.config(backend, pgas.OrderRelaxed, nil)
			cfg.PEs, cfg.PEsPerNode, cfg.Report, cfg.FMARDMACutover = ranks, 1, &rep, 1<<20
			err := pgas.Run(cfg, func(pe *pgas.PE) error {
				base, err := pe.Alloc(2*int64(size), 0)
				if err != nil || pe.Rank() != 0 {
					return err
				}
				buf, err := pe.Local(base, int64(size))
				if err != nil {
					return err
				}
				for range n {
					if op == bench.Put {
						err = pe.Put(target, base+int64(size), buf)
					} else {
						err = pe.Get(target, base+int64(size), buf)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
			return rep.Counters[counter], err
		}
		base, err := runOne(s, func() (int64, error) { return count(100) })
		if err != nil {
			return 0, err
		}
		with, err := runOne(s, func() (int64, error) { return count(200) })
		if err != nil {
			return 0, err
		}
		return float64(with-base) / 100, nil
	})
}

func phitRow(s *Session) (Measurement, error) {
	var vals []float64
	for _, c := range []struct {
		op   bench.Op
		size int
	}{{bench.Put, 8}, {bench.Put, 64}, {bench.Get, 64}} {
		d, err := phitDelta(s, c.op, c.size)
		if err != nil {
			return Measurement{}, err
		}
		vals = append(vals, d)
	}
	p := gemini.Phits()
	vals = append(vals, float64(p.ErrorResponse))
	return Measurement{Values: vals, Detail: fmt.Sprintf("model: 8 B put %d+%d, 64 B put %d+%d, 64 B get %d+%d, error %d",
		p.Put8Request, p.Put8Response, p.Put64Request, p.Put64Response, p.Get64Request, p.Get64Response, p.ErrorResponse)}, nil
}

func topoRow(*Session) (Measurement, error) {
	type want struct {
		perRow, rows int
		x, y, z      int
	}
	// Table 1 in nodes: class 0 3N x 4 x 8, class 1 N x 12 x 8, class 2
	// N x 12 x 16, class 3 N x 4R x 24; section 6.2.1's 10x16x24.
	cases := []want{{1, 1, 3, 4, 8}, {3, 1, 9, 4, 8}, {4, 1, 4, 12, 8}, {16, 1, 16, 12, 8},
		{8, 2, 8, 12, 16}, {24, 2, 24, 12, 16}, {10, 4, 10, 16, 24}, {25, 8, 25, 32, 24}}
	var bad []string
	for _, c := range cases {
		t, _, err := gemini.ForCabinets(c.perRow, c.rows)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%dx%d: %v", c.perRow, c.rows, err))
			continue
		}
		if x, y, z := t.NodeGeometry(); x != c.x || y != c.y || z != c.z {
			bad = append(bad, fmt.Sprintf("%d rows of %d: %dx%dx%d, want %dx%dx%d", c.rows, c.perRow, x, y, z, c.x, c.y, c.z))
		}
	}
	// m series (section 5.1): one cabinet 4x8, 8x8 or 12x8; N cabinets
	// 4N x 24.
	for _, y := range []int{4, 8, 12} {
		t, err := gemini.MSeries(1, y)
		if err != nil {
			bad = append(bad, fmt.Sprintf("m-series 1 cabinet y=%d: %v", y, err))
			continue
		}
		if nx, ny, nz := t.NodeGeometry(); nx*ny*nz != y*8 || nz != 1 && ny != 1 && nx != 1 {
			bad = append(bad, fmt.Sprintf("m-series 1 cabinet y=%d: %dx%dx%d", y, nx, ny, nz))
		}
	}
	for n := 2; n <= 6; n++ {
		t, err := gemini.MSeries(n, 0)
		if err != nil {
			bad = append(bad, fmt.Sprintf("m-series %d cabinets: %v", n, err))
			continue
		}
		if nx, ny, nz := t.NodeGeometry(); nx*ny*nz != 4*n*24 {
			bad = append(bad, fmt.Sprintf("m-series %d cabinets: %dx%dx%d, want %d nodes", n, nx, ny, nz, 4*n*24))
		}
	}
	return Measurement{Values: []float64{float64(len(bad))}, Detail: strings.Join(bad, "; ")}, nil
}

func manyToOne(s *Session, vars int) (Measurement, error) {
	return manyToOneOn(s, gem, 32, 4, vars)
}

// manyToOneOn is the AMO rate, in millions per second, of the PEs of
// nodes 1..nodes-1 (ppn each) adding to vars words of rank 0 chosen at
// random, window 64 each.
func manyToOneOn(s *Session, backend string, nodes, ppn, vars int) (Measurement, error) {
	r, err := runOne(s, func() (*bench.Result, error) {
		return bench.ManyToOne(bench.Setup{Config: s.config(backend, pgas.OrderRelaxed, nil), Nodes: nodes, PPN: ppn, Window: 64, Iterations: 10, Warmup: 2}, vars)
	})
	if err != nil {
		return Measurement{}, err
	}
	c := r.Report.Counters
	return Measurement{Values: []float64{r.Points[0].Value}, Detail: fmt.Sprintf("AMO cache hits %d, misses %d", c["amo_hits"], c["amo_misses"])}, nil
}

func regRow(s *Session) (Measurement, error) {
	times := make([]float64, 2)
	for i, ppn := range []int{1, 24} {
		cfg := s.config(gem, pgas.OrderDefault, nil)
		cfg.PEs, cfg.PEsPerNode = ppn, ppn
		slowest := make([]float64, 1)
		err := s.parallel(func() error {
			return pgas.Run(cfg, func(pe *pgas.PE) error {
				buf := make([]byte, 4096)
				if err := pe.Barrier(); err != nil {
					return err
				}
				// Start together: every PE waits for the same instant,
				// well after the last one is done agreeing on it.
				at := []float64{float64(pe.Now())}
				if err := pgas.Allreduce(pe.World(), pgas.Max, at, at); err != nil {
					return err
				}
				start := time.Duration(at[0]) + 100*time.Microsecond
				if pe.Now() >= start {
					return fmt.Errorf("agreeing on a start took over 100 us")
				}
				pe.Compute(start - pe.Now())
				t0 := pe.Now()
				p, err := pe.Pin(buf)
				if err != nil {
					return err
				}
				d := []float64{float64(pe.Now()-t0) / 1e3}
				if err := pgas.Allreduce(pe.World(), pgas.Max, d, d); err != nil {
					return err
				}
				if pe.Rank() == 0 {
					slowest[0] = d[0]
				}
				return p.Unpin()
			})
		})
		if err != nil {
			return Measurement{}, err
		}
		times[i] = slowest[0]
	}
	return Measurement{Values: times}, nil
}

// ordPoint is one point of the Figure 2 benchmark under the study's
// conditions: bandwidth in MB/s.
type ordPoint struct {
	op        bench.Op
	mech      bench.Mechanism
	order     pgas.Ordering
	size, ppn int
	unreg     bool
	window    int // 0 means 1
}

func (p ordPoint) key() string {
	return fmt.Sprintf("gemini/ord/%v/%v/%v/%d/%d/%v/%d", p.op, p.mech, p.order, p.size, p.ppn, p.unreg, max(p.window, 1))
}

// studyIterations: the simulation is deterministic, so no repetition is
// needed to average noise; enough iterations are needed, though, that
// every PE moves about a megabyte, so that the skew of the PEs leaving the
// barrier and the closing barrier do not weigh on the figure.
func studyIterations(size int) int {
	return max(10, min(100, (1<<20+size-1)/size))
}

func (s *Session) ordBW(p ordPoint) (float64, error) {
	return shared(s, p.key(), func() (float64, error) {
		var v float64
		err := s.parallel(func() error {
			r, err := bench.OrderingBW(bench.Setup{Config: s.config(gem, p.order, nil), Nodes: studyNodes, PPN: p.ppn, Mechanism: p.mech,
				Window: max(p.window, 1), Iterations: studyIterations(p.size), Warmup: 2, Unregistered: p.unreg}, []int{p.size}, p.op)
			if err != nil {
				return err
			}
			v = r.Points[0].Value
			return nil
		})
		return v, err
	})
}

// ordGrid measures every point of pts (in parallel) and returns their
// bandwidths in order.
func (s *Session) ordGrid(pts []ordPoint) ([]float64, error) {
	out := make([]float64, len(pts))
	fs := make([]func() error, len(pts))
	for i, p := range pts {
		fs[i] = func() (err error) {
			out[i], err = s.ordBW(p)
			return err
		}
	}
	// ordBW takes a parallel slot itself; run the lookups unbounded.
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
	return out, first
}

// sweep is bandwidth vs PEs per node for one size and order (BTE gets).
func (s *Session) sweep(order pgas.Ordering, size int) ([]float64, error) {
	pts := make([]ordPoint, len(studyPPNs))
	for i, ppn := range studyPPNs {
		pts[i] = ordPoint{op: bench.Get, mech: bench.BTE, order: order, size: size, ppn: ppn}
	}
	return s.ordGrid(pts)
}

func ordPeakRow(s *Session) (Measurement, error) {
	bw, err := s.sweep(pgas.OrderStrict, 64<<10)
	if err != nil {
		return Measurement{}, err
	}
	best := 0
	for i := range bw {
		if bw[i] > bw[best] {
			best = i
		}
	}
	return Measurement{Values: []float64{float64(studyPPNs[best])}, Detail: "strict MB/s by PEs/node: " + series(studyPPNs, bw, "%d", "%.0f")}, nil
}

func ordRatioRow(s *Session) (Measurement, error) {
	best := 0.0
	var parts []string
	for _, size := range studySizes {
		bw, err := s.ordGrid([]ordPoint{{op: bench.Get, mech: bench.BTE, order: pgas.OrderStrict, size: size, ppn: 24},
			{op: bench.Get, mech: bench.BTE, order: pgas.OrderRelaxed, size: size, ppn: 24}})
		if err != nil {
			return Measurement{}, err
		}
		r := bw[1] / bw[0]
		best = math.Max(best, r)
		parts = append(parts, fmt.Sprintf("%d KiB: relaxed %.0f / strict %.0f MB/s = %.2f", size>>10, bw[1], bw[0], r))
	}
	return Measurement{Values: []float64{best}, Detail: strings.Join(parts, "; ")}, nil
}

func ordMonoRow(s *Session) (Measurement, error) {
	worst := 0.0
	var parts []string
	for _, size := range monoSizes {
		bw, err := s.sweep(pgas.OrderRelaxed, size)
		if err != nil {
			return Measurement{}, err
		}
		peak := 0.0
		for _, v := range bw {
			if peak > 0 {
				worst = math.Max(worst, 100*(peak-v)/peak)
			}
			peak = math.Max(peak, v)
		}
		parts = append(parts, fmt.Sprintf("%d KiB: %s", size>>10, series(studyPPNs, bw, "%d", "%.0f")))
	}
	return Measurement{Values: []float64{worst}, Detail: strings.Join(parts, "; ")}, nil
}

func ordDefRow(s *Session) (Measurement, error) {
	outside := 0
	var parts []string
	for _, size := range studySizes {
		var bws [3][]float64
		for i, o := range []pgas.Ordering{pgas.OrderStrict, pgas.OrderDefault, pgas.OrderRelaxed} {
			bw, err := s.sweep(o, size)
			if err != nil {
				return Measurement{}, err
			}
			bws[i] = bw
		}
		for i, ppn := range studyPPNs {
			st, de, re := bws[0][i], bws[1][i], bws[2][i]
			if de < 0.95*st || de > 1.05*re {
				outside++
				parts = append(parts, fmt.Sprintf("%d KiB %d/node: strict %.0f default %.0f relaxed %.0f", size>>10, ppn, st, de, re))
			}
		}
	}
	return Measurement{Values: []float64{float64(outside)}, Detail: strings.Join(parts, "; ")}, nil
}

func xoverRow(s *Session) (Measurement, error) {
	sizes := []int{512, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10}
	var pts []ordPoint
	for _, size := range sizes {
		for _, m := range []bench.Mechanism{bench.FMA, bench.BTE} {
			pts = append(pts, ordPoint{op: bench.Get, mech: m, order: pgas.OrderRelaxed, size: size, ppn: 24})
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	var parts []string
	cross := math.NaN()
	for i, size := range sizes {
		f, b := bw[2*i], bw[2*i+1]
		parts = append(parts, fmt.Sprintf("%d: FMA %.0f BTE %.0f", size, f, b))
		if math.IsNaN(cross) && b >= f {
			if i == 0 {
				cross = float64(size)
				continue
			}
			// Interpolate log(size) where BTE - FMA crosses zero.
			f0, b0 := bw[2*i-2], bw[2*i-1]
			d0, d1 := b0-f0, b-f
			frac := d0 / (d0 - d1)
			cross = float64(sizes[i-1]) * math.Pow(2, frac*math.Log2(float64(size)/float64(sizes[i-1])))
		}
	}
	return Measurement{Values: []float64{cross}, Detail: "MB/s: " + strings.Join(parts, ", ")}, nil
}

func putGetRow(s *Session) (Measurement, error) {
	sizes := []int{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}
	var pts []ordPoint
	for _, size := range sizes {
		for _, op := range []bench.Op{bench.Put, bench.Get} {
			pts = append(pts, ordPoint{op: op, mech: bench.Auto, order: pgas.OrderRelaxed, size: size, ppn: 24})
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	var put, get float64
	for i := range sizes {
		put = math.Max(put, bw[2*i])
		get = math.Max(get, bw[2*i+1])
	}
	return Measurement{Values: []float64{put / get}, Detail: fmt.Sprintf("peak put %.0f MB/s, peak get %.0f MB/s; by size put:get %s", put, get,
		series(sizes, pairs(bw), "%d", "%s"))}, nil
}

func pairs(bw []float64) []string {
	var out []string
	for i := 0; i+1 < len(bw); i += 2 {
		out = append(out, fmt.Sprintf("%.0f/%.0f", bw[i], bw[i+1]))
	}
	return out
}

// slowdown compares gets into buffers outside the segment with gets into
// the segment, at 24 PEs per node, and returns the worst slowdown in
// percent over sizes.
func slowdown(s *Session, sizes []int) (Measurement, error) {
	var pts []ordPoint
	for _, size := range sizes {
		for _, unreg := range []bool{false, true} {
			pts = append(pts, ordPoint{op: bench.Get, mech: bench.Auto, order: pgas.OrderRelaxed, size: size, ppn: 24, unreg: unreg})
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	worst := math.Inf(-1)
	var parts []string
	for i, size := range sizes {
		in, out := bw[2*i], bw[2*i+1]
		sd := 100 * (in - out) / in
		worst = math.Max(worst, sd)
		parts = append(parts, fmt.Sprintf("%d B: in-segment %.0f, outside %.0f MB/s (%.1f%%)", size, in, out, sd))
	}
	return Measurement{Values: []float64{worst}, Detail: strings.Join(parts, "; ")}, nil
}

// dynRegRow is the mean slowdown of 256 KiB gets into buffers outside the
// segment over a grid of concurrencies and windows.
func dynRegRow(s *Session) (Measurement, error) {
	var pts []ordPoint
	for _, ppn := range []int{1, 2, 4, 8, 16, 24} {
		for _, w := range []int{1, 4} {
			for _, unreg := range []bool{false, true} {
				pts = append(pts, ordPoint{op: bench.Get, mech: bench.Auto, order: pgas.OrderRelaxed, size: 256 << 10, ppn: ppn, window: w, unreg: unreg})
			}
		}
	}
	bw, err := s.ordGrid(pts)
	if err != nil {
		return Measurement{}, err
	}
	var sum float64
	var parts []string
	for i := 0; i < len(pts); i += 2 {
		sd := 100 * (bw[i] - bw[i+1]) / bw[i]
		sum += sd
		parts = append(parts, fmt.Sprintf("%d/node w%d: %.1f%%", pts[i].ppn, max(pts[i].window, 1), sd))
	}
	return Measurement{Values: []float64{sum / float64(len(pts)/2)}, Detail: strings.Join(parts, ", ")}, nil
}
