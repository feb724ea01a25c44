package calibration

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// Scenarios shared by the rows of both simulated backends.

// Units of the rows' figures.
const (
	mega = 1e6
	giga = 1e9
)

// scenarioSegmentBytes is the segment of every PE of a scenario unless it
// needs more (the benchmarks raise it to what they use): the default 64 MiB
// for each of hundreds of simulated PEs would take gigabytes.
const scenarioSegmentBytes = pgas.ReservedBytes + 1<<20

// config is the base job configuration of a scenario on backend.
func (s *Session) config(backend string, order pgas.Ordering, options map[string]string) pgas.Config {
	return pgas.Config{Conduit: backend, Seed: s.opts.Seed, Ordering: order, Options: options, SegmentBytes: scenarioSegmentBytes}
}

// putPingPong measures the one-way latency of size-byte puts between rank
// 0 and each rank in peers, in microseconds: rank 0 puts a counter into
// the peer's segment; the peer, watching its memory, puts it back; half
// the round trip is the latency from the put's issue to its data being
// visible to a program polling the target's memory. The job has ranks
// PEs, one per node; the others idle.
func putPingPong(cfg pgas.Config, ranks int, peers []int, size, iters int) ([]float64, error) {
	if size < 8 {
		size = 8
	}
	cfg.PEs, cfg.PEsPerNode = ranks, 1
	cfg.SegmentBytes = max(cfg.SegmentBytes, pgas.ReservedBytes+int64(4*size)+1<<20)
	lat := make([]float64, len(peers))
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		off, err := pe.Alloc(int64(2*size), 64)
		if err != nil {
			return err
		}
		buf, err := pe.Local(off, int64(2*size))
		if err != nil {
			return err
		}
		out, in := buf[:size], buf[size:]
		seen := func(v uint64) func() bool {
			return func() bool { return binary.LittleEndian.Uint64(in[size-8:]) == v }
		}
		for i, peer := range peers {
			if err := pe.Barrier(); err != nil {
				return err
			}
			me := pe.Rank()
			if me != 0 && me != peer {
				continue
			}
			other := peer
			if me == peer {
				other = 0
			}
			var start time.Duration
			for k := range iters + 1 {
				if k == 1 {
					start = pe.Now()
				}
				counter := uint64(i*(iters+1) + k + 1)
				binary.LittleEndian.PutUint64(out[size-8:], counter)
				if me == 0 {
					if err := pe.PutNBI(other, off+int64(size), out); err != nil {
						return err
					}
					if err := pe.WaitUntil("the pong", seen(counter)); err != nil {
						return err
					}
				} else {
					if err := pe.WaitUntil("the ping", seen(counter)); err != nil {
						return err
					}
					if err := pe.PutNBI(other, off+int64(size), out); err != nil {
						return err
					}
				}
				if err := pe.SyncNBIPuts(); err != nil {
					return err
				}
			}
			if me == 0 {
				lat[i] = float64(pe.Now()-start) / float64(time.Microsecond) / float64(iters) / 2
			}
		}
		return pe.Barrier()
	})
	return lat, err
}

// smallLatency runs a latency benchmark (bench.GetLatency, bench.Latency)
// of 8-byte operations between rank 0 and its peer, one PE per node on
// nodes nodes (the peer is rank nodes/2), 1000 iterations after 10, and
// returns its figure.
func smallLatency(s *Session, run func(bench.Setup, []int) (*bench.Result, error), backend string, nodes int) (Measurement, error) {
	r, err := runOne(s, func() (*bench.Result, error) {
		return run(bench.Setup{Config: s.config(backend, pgas.OrderDefault, nil), Nodes: nodes, PPN: 1, Iterations: 1000, Warmup: 10}, []int{8})
	})
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{Values: []float64{r.Points[0].Value}}, nil
}

// msgLatencyConditions are the conditions of the two-sided latency rows,
// between nodes on neighbouring routers (Geminis or Aries).
func msgLatencyConditions(routers string) string {
	return "osu_latency: an 8-byte Send and Recv ping-pong (eager, in one mailbox message; the receive costs the runtime's pgas.MsgRecvCycles, " +
		"its posting off the round trip's path) between nodes on neighbouring " + routers + ", half the round trip, 1000 iterations; the active-message ping-pong in the detail"
}

// msgLatency measures the two-sided latency rows: osu_latency's 8-byte
// ping-pong on Send and Recv between rank 0 and rank nodes/2 (a node on the
// neighbouring router), with the active-message ping-pong between the same
// nodes in the detail.
func msgLatency(s *Session, backend string, nodes int) (Measurement, error) {
	setup := func() bench.Setup {
		return bench.Setup{Config: s.config(backend, pgas.OrderDefault, nil), Nodes: nodes, PPN: 1, Iterations: 1000, Warmup: 10}
	}
	msg, err := runOne(s, func() (*bench.Result, error) { return bench.MsgLatency(setup(), []int{8}) })
	if err != nil {
		return Measurement{}, err
	}
	am, err := runOne(s, func() (*bench.Result, error) { return bench.Latency(setup(), []int{8}) })
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{Values: []float64{msg.Points[0].Value},
		Detail: fmt.Sprintf("active-message ping-pong (am_latency, 8-byte Medium payload): %.3g us", am.Points[0].Value)}, nil
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// series prints a list of (x, y) pairs.
func series[X, Y any](xs []X, ys []Y, fx, fy string) string {
	s := ""
	for i := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf(fx+":"+fy, xs[i], ys[i])
	}
	return s
}

// exchange measures rank 0's bandwidth each way, in bytes per second,
// when it and each rank of peers put size bytes to each other at the same
// time, window puts in flight per peer per direction, for iters rounds
// after a warm-up one. The job has ranks PEs, one per node.
func exchange(cfg pgas.Config, ranks int, peers []int, size, window, iters int) (out, in float64, err error) {
	cfg.PEs, cfg.PEsPerNode = ranks, 1
	area := int64(size * window * len(peers))
	cfg.SegmentBytes = max(cfg.SegmentBytes, pgas.ReservedBytes+2*area+1<<20)
	err = pgas.Run(cfg, func(pe *pgas.PE) error {
		src, err := pe.Alloc(area, 64)
		if err != nil {
			return err
		}
		dst, err := pe.Alloc(area, 64)
		if err != nil {
			return err
		}
		local, err := pe.Local(src, area)
		if err != nil {
			return err
		}
		var targets []int
		switch {
		case pe.Rank() == 0:
			targets = peers
		default:
			for _, p := range peers {
				if p == pe.Rank() {
					targets = []int{0}
				}
			}
		}
		var hs []pgas.Handle
		var start time.Duration
		for k := range iters + 1 {
			if k <= 1 {
				if err := pe.Barrier(); err != nil {
					return err
				}
				start = pe.Now()
			}
			hs = hs[:0]
			for w := range window {
				for i, t := range targets {
					off := int64((i*window + w) * size)
					h, err := pe.PutNB(t, dst+off, local[off:off+int64(size)])
					if err != nil {
						return err
					}
					hs = append(hs, h)
				}
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			d := (pe.Now() - start).Seconds()
			bytes := float64(size * window * len(peers) * iters)
			out, in = bytes/d, bytes/d
		}
		return nil
	})
	return out, in, err
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
