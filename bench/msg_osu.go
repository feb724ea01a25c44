package bench

import (
	"fmt"
	"time"

	"github.com/gopgas/gopgas/pgas"
)

// The two-sided benchmarks of the OSU Micro-Benchmarks (osu_latency,
// osu_bw, osu_bibw, osu_mbw_mr, osu_multi_lat) on pgas's Send, Recv,
// Isend and Irecv, with OSU's loops: the same messages, the same
// acknowledgements, the same figures. Their buffers are ordinary memory
// outside the segment, as OSU's are (malloc): the runtime's protocols copy
// them through internal buffers or register them (its registration cache
// keeps them registered after the warm-up), as an MPI library does.

// Tags of the two-sided benchmarks: the data, and the acknowledgements
// (of a window, or of the validation's error count).
const (
	tagData = 1
	tagAck  = 2
)

// msgPattern is the byte validation expects at index x of the message of
// iteration k.
func msgPattern(k, x int) byte { return byte(k*13 + x + 1) }

// msgFill writes iteration k's message into buf.
func msgFill(buf []byte, k int) {
	for x := range buf {
		buf[x] = msgPattern(k, x)
	}
}

// msgCheck reports whether buf holds iteration k's message.
func msgCheck(buf []byte, k int) bool {
	for x := range buf {
		if buf[x] != msgPattern(k, x) {
			return false
		}
	}
	return true
}

// msgJob is a two-sided benchmark's job: a send and a receive buffer of
// area bytes per PE, outside the segment.
func msgJob(name, title, unit, column string, sizes []int, area int64, even bool) *job {
	j := p2pJob(name, title, unit, column, sizes, 0)
	j.private = 2 * area
	j.messages = true
	j.even = even
	return j
}

// senderMean averages x over the senders and adds up every PE's
// validation errors (every PE calls it): the mean, the number of senders,
// the errors.
func senderMean(pe *pgas.PE, x float64, sender bool, errs int) (mean, senders float64, total int, err error) {
	v := []float64{0, 0, float64(errs)}
	if sender {
		v[0], v[1] = x, 1
	}
	if err := pgas.Allreduce(pe.World(), pgas.Sum, v, v); err != nil {
		return 0, 0, 0, err
	}
	return v[0] / max(v[1], 1), v[1], int(v[2]), nil
}

// MsgLatency is osu_latency: rank 0 sends a message of the size to rank
// n/2 (Send), which receives it (Recv) and sends it back; the figure is
// half the round trip in microseconds, averaged over OSU's iterations
// (10000, 1000 above 8 KiB). Other PEs only join the barriers.
func MsgLatency(s Setup, sizes []int) (*Result, error) {
	hi := int64(maxSize(sizes))
	j := msgJob("latency", "OSU gopgas Latency Test", "us", "Avg Latency(us)", sizes, hi, false)
	return msgLatencyOf(s, j, sizes)
}

// MsgMultiLat is osu_multi_lat: PE i of the first half and PE i + n/2
// run osu_latency's ping-pong at once; the figure is the average over the
// pairs of half the round trip, in microseconds.
func MsgMultiLat(s Setup, sizes []int) (*Result, error) {
	hi := int64(maxSize(sizes))
	j := msgJob("multi_lat", "OSU gopgas Multi Latency Test", "us", "Avg Latency(us)", sizes, hi, true)
	j.all = true
	// The ping-pong is MsgLatency's; only the pairs differ.
	return msgLatencyOf(s, j, sizes)
}

// msgLatencyOf runs MsgLatency's loop on j's pairs.
func msgLatencyOf(s Setup, j *job, sizes []int) (*Result, error) {
	sizes = s.typedSizes(sizes)
	return s.pairs(j, func(pe *pgas.PE, r *Result, peer int, sender bool, send, recv []byte) error {
		reps := s.validationReps()
		for i, size := range sizes {
			iters, skip := s.iterations(size, true)
			if err := pe.Barrier(); err != nil {
				return err
			}
			if s.Buffers == BuffersMultiple && peer >= 0 {
				// OSU's -b multiple: buffers of this size, allocated afresh.
				send, recv = make([]byte, size), make([]byte, size)
			}
			errs := 0
			dt := s.ddt(size)
			out := func() error {
				traceBuffer(size, send[:size])
				return pe.Send(peer, tagData, dt.packed(send[:size]))
			}
			in := func() error {
				_, err := pe.Recv(peer, tagData, dt.incoming(recv[:size]))
				dt.unpacked(recv[:size])
				return err
			}
			pingPong := func() error {
				if sender {
					if err := out(); err != nil {
						return err
					}
					return in()
				}
				if err := in(); err != nil {
					return err
				}
				return out()
			}
			var prep, post func(k int) error
			if s.Validate {
				// The fill and -u's untimed repetitions before each run,
				// the check after it, outside the time.
				prep = func(k int) error {
					s.Datatype.fill(send[:size], k)
					for range reps - 1 {
						if err := pingPong(); err != nil {
							return err
						}
					}
					return nil
				}
				post = func(k int) error {
					if !sender && len(s.Datatype.check(recv[:size], k, 1)) > 0 {
						errs++
						return s.logFailure(pe.Rank(), size, k, recv[:size])
					}
					return nil
				}
			}
			var mean float64
			var samples []float64
			var err error
			if peer >= 0 {
				mean, samples, err = timed(pe, iters, skip, s.perIteration() || s.Validate, 2, prep, pingPong, post)
			}
			if err != nil {
				return err
			}
			if err := s.addPoint(pe, r, size, iters, mean, sender, samples, errs); err != nil {
				return err
			}
			if pe.Rank() == 0 && dt != nil {
				r.Points[len(r.Points)-1].Transmit = dt.transmit
			}
			s.progress(pe, i, len(sizes))
		}
		return nil
	})
}

// addPoint adds a latency point: the senders' mean latencies averaged
// over the senders, rank 0's samples for the percentiles, the errors of
// every PE. Every PE calls it.
func (s Setup) addPoint(pe *pgas.PE, r *Result, size, iters int, mean float64, sender bool, samples []float64, errs int) error {
	avg, _, total, err := senderMean(pe, mean, sender, errs)
	if err != nil {
		return err
	}
	if pe.Rank() == 0 {
		p := Point{Size: size, Value: avg, Iterations: iters, Errors: total}
		s.percentiles(&p, samples)
		r.Points = append(r.Points, p)
	}
	return nil
}

// pairs runs body on every PE: with j.all, PE i < n/2 is a sender paired
// with i + n/2; otherwise only rank 0 (sender) and rank n/2 pair, and
// the other PEs get peer -1. send and recv are the PE's buffers, as large
// as j asks (none for a PE without a peer).
func (s Setup) pairs(j *job, body func(pe *pgas.PE, r *Result, peer int, sender bool, send, recv []byte) error) (*Result, error) {
	if s.Layout != nil && s.Validate {
		return nil, fmt.Errorf("%w: %s: a derived datatype (%s) does not support validation, as OSU's", ErrBadSetup, j.name, s.Layout.Spec)
	}
	res, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		half, rank := pe.Size()/2, pe.Rank()
		if j.all && j.pairs > 0 {
			if j.pairs > half {
				// An MPI launch's own count of PEs.
				return fmt.Errorf("%w: %s: %d pairs: want 1 to %d (half of %d PEs)", ErrBadSetup, j.name, j.pairs, half, pe.Size())
			}
			half = j.pairs
		}
		peer, sender := -1, false
		switch {
		case j.all && rank < half:
			peer, sender = rank+half, true
		case j.all && rank < 2*half:
			peer = rank - half
		case rank == 0:
			peer, sender = half, true
		case rank == half:
			peer = 0
		}
		// Only the PEs that exchange messages have buffers: on a simulated
		// network every PE's live in one process, and a window of 1 MiB
		// messages is 128 MiB a PE.
		var send, recv []byte
		if peer >= 0 {
			send, recv = make([]byte, j.private/2), make([]byte, j.private/2)
		}
		return body(pe, r, peer, sender, send, recv)
	})
	if res != nil {
		if j.all {
			res.Pairs = j.pairs
		}
		res.Validated = s.Validate
		res.Datatype = s.Datatype.OMBName()
		res.DDT = s.Layout != nil
	}
	return res, err
}

// MsgBW is osu_bw: each iteration rank 0 starts a window of Isends of the
// size to rank n/2, which has started a window of Irecvs; both wait for
// their window (WaitAll), and rank n/2 then sends a 4-byte
// acknowledgement that rank 0 receives. MB/s over OSU's iterations (100,
// 20 above 8 KiB); Rate is messages per second.
func MsgBW(s Setup, sizes []int) (*Result, error) {
	return msgWindows(s, sizes, "bw", "OSU gopgas Bandwidth Test", false, false)
}

// MsgBiBW is osu_bibw: rank 0 and rank n/2 each start a window of Irecvs
// and a window of Isends to the other and wait for both; the figure is
// the total of both directions, MB/s.
func MsgBiBW(s Setup, sizes []int) (*Result, error) {
	return msgWindows(s, sizes, "bibw", "OSU gopgas Bi-Directional Bandwidth Test", true, false)
}

// MsgMBWMR is osu_mbw_mr: PE i of the first half runs osu_bw's loop with
// PE i + n/2; the figure is the aggregate bandwidth (size x window x
// iterations x pairs over the senders' average time), MB/s, and Rate the
// aggregate messages per second.
//
// With Setup.Pairs, PE i < Pairs pairs with PE i + Pairs and the others
// only join the barriers; with Setup.VaryWindow, the sizes run with each
// of VariedWindows (a job each), the figures in Point.ByWindow and
// Point.RateByWindow, Value and Rate being the first window's and Report
// the jobs' sum.
func MsgMBWMR(s Setup, sizes []int) (*Result, error) {
	if !s.VaryWindow {
		return msgWindows(s, sizes, "mbw_mr", "OSU gopgas Multiple Bandwidth / Message Rate Test", false, true)
	}
	var res *Result
	for _, w := range VariedWindows {
		s.Window = w
		r, err := msgWindows(s, sizes, "mbw_mr", "OSU gopgas Multiple Bandwidth / Message Rate Test", false, true)
		if err != nil {
			return r, err
		}
		if !r.Rank0 {
			// Another process of an MPI launch: it runs every window's
			// job, rank 0 gathers the figures.
			res = r
			continue
		}
		if res == nil {
			res = r
			res.Windows = VariedWindows
		} else {
			addReport(&res.Report, r.Report)
		}
		for i := range res.Points {
			res.Points[i].ByWindow = append(res.Points[i].ByWindow, r.Points[i].Value)
			res.Points[i].RateByWindow = append(res.Points[i].RateByWindow, r.Points[i].Rate)
		}
	}
	return res, nil
}

// addReport adds the figures of another job's report to sum: its span
// (the jobs ran one after the other), its events and its counters.
func addReport(sum *pgas.Report, r pgas.Report) {
	sum.End += r.End
	sum.Events += r.Events
	for k, v := range r.Counters {
		if sum.Counters == nil {
			sum.Counters = map[string]int64{}
		}
		sum.Counters[k] += v
	}
}

// VariedWindows are the windows of osu_mbw_mr's -V (OSU 7.4's
// WINDOW_SIZES).
var VariedWindows = []int{1, 2, 4, 8, 16, 32, 64, 128}

// msgWindows runs osu_bw's loop (both: osu_bibw's; all: every pair's).
func msgWindows(s Setup, sizes []int, name, title string, both, all bool) (*Result, error) {
	hi := maxSize(sizes)
	w := s.window()
	area := int64(slots(w, hi) * max(hi, 1))
	column := "Bandwidth (MB/s)"
	if all {
		column = "MB/s"
	}
	j := msgJob(name, title, "MB/s", column, sizes, area, all)
	j.all = all
	if all {
		j.pairs = s.Pairs
	}
	sizes = s.typedSizes(sizes)
	reps := s.validationReps()
	return s.pairs(j, func(pe *pgas.PE, r *Result, peer int, sender bool, send, recv []byte) error {
		hs := make([]pgas.Handle, 0, 2*w)
		ack := make([]byte, 4)
		for i, size := range sizes {
			iters, skip := s.iterations(size, false)
			ns := slots(w, size)
			switch s.Buffers {
			case BuffersSingle:
				ns = 1
			case BuffersMultiple:
				// OSU's -b multiple: this size's buffers, allocated afresh.
				if peer >= 0 {
					send, recv = make([]byte, ns*size), make([]byte, ns*size)
				}
			}
			slot := func(b []byte, x int) []byte {
				off := (x % ns) * size
				return b[off : off+size]
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			// Under -D, a packed message per slot, each way.
			dts, dtr := make([]*ddtBuffer, ns), make([]*ddtBuffer, ns)
			for x := range ns {
				dts[x], dtr[x] = s.ddt(size), s.ddt(size)
			}
			// One window: the receives, the sends, the wait, the
			// acknowledgement.
			exchange := func() error {
				hs = hs[:0]
				if !sender || both {
					for x := range w {
						h, err := pe.Irecv(peer, tagData, dtr[x%ns].incoming(slot(recv, x)), nil)
						if err != nil {
							return err
						}
						hs = append(hs, h)
					}
				}
				if sender || both {
					for x := range w {
						traceBuffer(size, slot(send, x))
						h, err := pe.Isend(peer, tagData, dts[x%ns].packed(slot(send, x)))
						if err != nil {
							return err
						}
						hs = append(hs, h)
					}
				}
				if err := pgas.WaitAll(hs...); err != nil {
					return err
				}
				if !sender || both {
					for x := range min(w, ns) {
						dtr[x].unpacked(slot(recv, x))
					}
				}
				if both {
					return nil
				}
				if sender {
					_, err := pe.Recv(peer, tagAck, ack)
					return err
				}
				return pe.Send(peer, tagAck, ack)
			}
			keep := s.perIteration() || s.Validate
			moved := size // the bytes a message carries
			if s.Layout != nil {
				moved = s.Layout.Transmit(size)
			}
			errs := 0
			var prep, post func(k int) error
			if s.Validate {
				// The fill and -u's untimed repetitions before each
				// window, the check after it, outside the time.
				prep = func(k int) error {
					if sender || both {
						for x := range ns {
							s.Datatype.fill(slot(send, x), k)
						}
					}
					for range reps - 1 {
						if err := exchange(); err != nil {
							return err
						}
					}
					return nil
				}
				post = func(k int) error {
					if sender && !both {
						return nil
					}
					for x := range min(w, ns) {
						if b := slot(recv, x); len(s.Datatype.check(b, k, 1)) > 0 {
							errs++
							if err := s.logFailure(pe.Rank(), size, k, b); err != nil {
								return err
							}
						}
					}
					return nil
				}
			}
			var d time.Duration
			var samples []float64
			if peer >= 0 {
				var each []time.Duration
				var err error
				if d, each, err = timedRuns(pe, iters, skip, keep, prep, exchange, post); err != nil {
					return err
				}
				for _, e := range each {
					samples = append(samples, mbps(float64(moved*w), e))
				}
			}
			// The senders' time, averaged over the senders.
			secs, senders, total, err := senderMean(pe, d.Seconds(), sender && peer >= 0, errs)
			if err != nil {
				return err
			}
			if pe.Rank() == 0 {
				msgs := float64(w) * float64(iters) * senders
				if both {
					msgs *= 2
				}
				t := time.Duration(secs * float64(time.Second))
				p := Point{Size: size, Value: mbps(float64(moved)*msgs, t), Iterations: iters, Errors: total}
				if s.Layout != nil {
					p.Transmit = moved
				}
				if t > 0 {
					p.Rate = msgs / t.Seconds()
				}
				s.percentiles(&p, samples)
				r.Points = append(r.Points, p)
			}
			s.progress(pe, i, len(sizes))
		}
		return nil
	})
}
