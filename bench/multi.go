package bench

import (
	"github.com/gopgas/gopgas/pgas"
)

// MBWMR is OSU's multiple-bandwidth / message-rate test on puts (the
// CLI's put_mbw_mr; MsgMBWMR is osu_mbw_mr on Isend and Irecv): PE i of
// the first half sends windows of non-blocking puts to PE i + n/2 and waits
// for each window; the figure is the aggregate bandwidth in MB/s and Rate
// the aggregate messages per second. Defaults: 2 nodes, 1 PE per node.
func MBWMR(s Setup, sizes []int) (*Result, error) {
	return multiPair(s, sizes, &job{name: "put_mbw_mr", title: "OSU gopgas Put Multiple Bandwidth / Message Rate Test", unit: "MB/s",
		column: "MB/s", nodes: 2, ppn: 1, minPEs: 2, even: true, sizes: sizes}, true, false)
}

// Op is the operation of the ordering benchmark.
type Op uint8

const (
	// Get: every PE gets from its target.
	Get Op = iota
	// Put: every PE puts to its target.
	Put
)

func (o Op) String() string {
	if o == Put {
		return "put"
	}
	return "get"
}

// OrderingBW is the bidirectional multi-pair benchmark of
// [ORDERING], Figure 2: with n PEs, pairs = n/2 and
// every PE's target is (rank + pairs) mod n; each iteration every PE posts
// a window of non-blocking gets (or puts) of the size and waits for them
// all; the figure is the aggregate bandwidth, size x window x iterations x
// n over the time from the barrier after the warm-up to the barrier after
// the last iteration, in MB/s, and Rate the aggregate operations per
// second. Defaults: 4 nodes, 24 PEs per node (48 pairs, as the paper),
// window 1 (one outstanding operation per PE, as its Figure 3).
func OrderingBW(s Setup, sizes []int, op Op) (*Result, error) {
	if s.Window == 0 {
		s.Window = 1
	}
	return multiPair(s, sizes, &job{name: "ordering_bw", title: "Multi-pair " + op.String() + " bandwidth (message-ordering paper, Figure 2)",
		unit: "MB/s", column: "Bandwidth (MB/s)", nodes: 4, ppn: 24, minPEs: 2, even: true, sizes: sizes}, op == Put, true)
}

// multiPair runs MBWMR (bidirectional false: the first half sends) and
// OrderingBW (bidirectional: everyone does).
func multiPair(s Setup, sizes []int, j *job, put, bidirectional bool) (*Result, error) {
	hi := maxSize(sizes)
	w := s.window()
	area := int64(slots(w, hi) * max(hi, 1))
	j.segment = 2 * area
	return s.run(j, func(pe *pgas.PE, r *Result) error {
		_, dst, local, err := s.areas(pe, area)
		if err != nil {
			return err
		}
		n := pe.Size()
		pairs := n / 2
		target := (pe.Rank() + pairs) % n
		active := bidirectional || pe.Rank() < pairs
		senders := pairs
		if bidirectional {
			senders = n
		}
		hs := make([]pgas.Handle, w)
		for i, size := range sizes {
			iters, skip := s.iterations(size, false)
			ns := slots(w, size)
			start, err := together(pe, iters, skip, active, func() error {
				return window(pe, put, target, dst, local, size, ns, hs)
			})
			if err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				ops := float64(w) * float64(iters) * float64(senders)
				d := pe.Now() - start
				r.Points = append(r.Points, Point{Size: size, Value: mbps(float64(size)*ops, d), Rate: ops / d.Seconds(), Iterations: iters})
			}
			s.progress(pe, i, len(sizes))
		}
		return nil
	})
}
