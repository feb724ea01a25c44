package bench

import (
	"fmt"
	"time"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

// The point-to-point benchmarks run between rank 0 and rank n/2 (on two
// nodes by default: ranks 0 and 1, one PE per node); other PEs only join
// the barriers.

func peerOf(pe *pgas.PE) int { return pe.Size() / 2 }

func p2pJob(name, title, unit, column string, sizes []int, segment int64) *job {
	return &job{name: name, title: title, unit: unit, column: column, nodes: 2, ppn: 1, minPEs: 2, sizes: sizes, segment: segment}
}

// Latency is the active-message ping-pong (the CLI's am_latency): rank 0
// sends a request with a payload of the size (Short for 0 bytes, Medium up
// to the largest Medium, Long beyond), whose handler replies with as much;
// the figure is half the round trip, in microseconds (osu_latency's loop on
// active messages; MsgLatency is osu_latency on Send and Recv).
func Latency(s Setup, sizes []int) (*Result, error) {
	hi := int64(maxSize(sizes))
	j := p2pJob("am_latency", "OSU gopgas Active Message Latency Test", "us", "Latency (us)", sizes, 2*hi)
	return s.run(j, func(pe *pgas.PE, r *Result) error {
		_, land, payload, err := Setup{}.areas(pe, hi)
		if err != nil {
			return err
		}
		ep := pe.AM()
		replies := 0
		pong, err := ep.Register("bench.pong", func(m *am.Message) error { replies++; return nil })
		if err != nil {
			return err
		}
		ping, err := ep.Register("bench.ping", func(m *am.Message) error {
			return reply(m, pong, payload[:m.Args[0]], land)
		})
		if err != nil {
			return err
		}
		peer := peerOf(pe)
		return s.latencySweep(pe, r, sizes, 2, func(size int) error {
			want := replies + 1
			if err := request(ep, peer, ping, payload[:size], land, ep.MaxMedium()); err != nil {
				return err
			}
			return pe.WaitUntil("the pong", func() bool { return replies >= want })
		})
	})
}

// request sends payload to target's handler h: Short when empty, Medium
// when it fits, Long to offset land otherwise. The first argument is the
// payload's size.
func request(ep *am.Endpoint, target int, h am.Index, payload []byte, land int64, maxMedium int) error {
	n := int32(len(payload))
	switch {
	case n == 0:
		return ep.RequestShort(target, h, n)
	case int(n) <= maxMedium:
		return ep.RequestMedium(target, h, payload, n)
	default:
		return ep.RequestLong(target, h, payload, land, n)
	}
}

// reply answers m with payload the same way.
func reply(m *am.Message, h am.Index, payload []byte, land int64) error {
	switch {
	case len(payload) == 0:
		return m.ReplyShort(h)
	case m.Category() != am.Long:
		return m.ReplyMedium(h, payload)
	default:
		return m.ReplyLong(h, payload, land)
	}
}

// PutLatency is the time of a blocking put (the data delivered at the
// target) from rank 0 to its peer, in microseconds.
func PutLatency(s Setup, sizes []int) (*Result, error) {
	return rmaLatency(s, sizes, true)
}

// GetLatency is the time of a blocking get, in microseconds.
func GetLatency(s Setup, sizes []int) (*Result, error) {
	return rmaLatency(s, sizes, false)
}

func rmaLatency(s Setup, sizes []int, put bool) (*Result, error) {
	hi := int64(maxSize(sizes))
	name, title := "put_latency", "OSU gopgas Put Latency Test"
	if !put {
		name, title = "get_latency", "OSU gopgas Get latency Test"
	}
	j := p2pJob(name, title, "us", "Latency (us)", sizes, 2*hi)
	if s.Win != WinAllocate {
		j.private = hi
	}
	kind := s.syncOf(SyncFlush)
	res, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		_, dst, local, err := Setup{}.areas(pe, hi)
		if err != nil {
			return err
		}
		local, pinned, e, err := s.originSetup(pe, local, hi, kind)
		if err != nil {
			return err
		}
		peer := peerOf(pe)
		for i, size := range sizes {
			iters, skip := s.iterations(size, true)
			if err := pe.Barrier(); err != nil {
				return err
			}
			ops := func(how issue) ([]pgas.Handle, error) {
				b := local[:size]
				switch {
				case how == issueBlocking && put:
					return nil, pe.Put(peer, dst, b)
				case how == issueBlocking:
					return nil, pe.Get(peer, dst, b)
				case how == issueImplicit && put:
					return nil, pe.PutNBI(peer, dst, b)
				case how == issueImplicit:
					return nil, pe.GetNBI(peer, dst, b)
				}
				var h pgas.Handle
				if put {
					h, err = pe.PutNB(peer, dst, b)
				} else {
					h, err = pe.GetNB(peer, dst, b)
				}
				return []pgas.Handle{h}, err
			}
			err := s.sizeWindow(pe, pe.Rank() == 0, local, pinned, func() error {
				return s.epochLatency(pe, r, e, peer, size, iters, skip, ops)
			})
			if err != nil {
				return err
			}
			s.progress(pe, i, len(sizes))
		}
		if pinned != nil {
			if err := pinned.Unpin(); err != nil {
				return err
			}
		}
		return pe.Barrier()
	})
	if res != nil {
		res.WinCreation, res.Sync = s.Win.OMBName(), kind.OMBName()
	}
	return res, err
}

// latencySweep times op for every size on rank 0, the other PEs waiting
// at the barriers between sizes, and adds a point per size (the mean time
// divided by div).
func (s Setup) latencySweep(pe *pgas.PE, r *Result, sizes []int, div float64, op func(size int) error) error {
	for i, size := range sizes {
		iters, skip := s.iterations(size, true)
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			mean, samples, err := timed(pe, iters, skip, s.perIteration(), div, nil, func() error { return op(size) }, nil)
			if err != nil {
				return err
			}
			p := Point{Size: size, Value: mean, Iterations: iters}
			s.percentiles(&p, samples)
			r.Points = append(r.Points, p)
		}
		s.progress(pe, i, len(sizes))
	}
	return pe.Barrier()
}

// PutBW is the bandwidth of windows of non-blocking puts from rank 0 to
// its peer, each window then waited for, in MB/s; Rate is puts per
// second. The operations of a window go from and to distinct slots, or
// all from and to the same bytes under BuffersSingle (OSU's layout).
func PutBW(s Setup, sizes []int) (*Result, error) {
	return rmaBW(s, sizes, "put_bw", "OSU gopgas Put Bandwidth Test", true, false)
}

// GetBW is PutBW with gets.
func GetBW(s Setup, sizes []int) (*Result, error) {
	return rmaBW(s, sizes, "get_bw", "OSU gopgas Get Bandwidth Test", false, false)
}

// BiBW is PutBW in both directions at once (the CLI's put_bibw, OSU's
// osu_put_bibw): rank 0 and its peer put to each other; the figure is the
// total. MsgBiBW is osu_bibw on Isend and Irecv.
func BiBW(s Setup, sizes []int) (*Result, error) {
	return rmaBW(s, sizes, "put_bibw", "OSU gopgas Put Bi-directional Bandwidth Test", true, true)
}

func rmaBW(s Setup, sizes []int, name, title string, put, both bool) (*Result, error) {
	hi := maxSize(sizes)
	w := s.window()
	// A window's operations use slotsOf(size) distinct slots: one in
	// OSU's layout (BuffersSingle).
	slotsOf := func(size int) int {
		if s.Buffers == BuffersSingle {
			return 1
		}
		return slots(w, size)
	}
	area := int64(slotsOf(hi) * max(hi, 1))
	j := p2pJob(name, title, "MB/s", "Bandwidth (MB/s)", sizes, 2*area)
	// put_bibw's zero Setup keeps its plain windows (each side waits for
	// its own); OSU's default, pscw, is asked for explicitly (the CLI does).
	def := SyncFlush
	if both {
		def = SyncDefault
	}
	kind := s.syncOf(def)
	if both && kind != SyncDefault && kind != SyncPSCW && kind != SyncFence {
		return nil, fmt.Errorf("%w: %s: synchronization %s: OSU's put_bibw takes pscw or fence", ErrBadSetup, name, kind.OMBName())
	}
	if s.Win != WinAllocate {
		if s.Unregistered {
			return nil, fmt.Errorf("%w: %s: unregistered buffers and window creation %s both choose the local buffer", ErrBadSetup, name, s.Win.OMBName())
		}
		j.private = area
	}
	res, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		_, dst, local, err := s.areas(pe, area)
		if err != nil {
			return err
		}
		if err := touch(pe, dst, area, local); err != nil {
			return err
		}
		local, pinned, e, err := s.originSetup(pe, local, area, kind)
		if err != nil {
			return err
		}
		peer := peerOf(pe)
		origin := pe.Rank() == 0 || (both && pe.Rank() == peer)
		active := origin || (pe.Rank() == peer && e.targetActs())
		target := peer
		if pe.Rank() == peer {
			target = 0
		}
		hs := make([]pgas.Handle, w)
		for i, size := range sizes {
			iters, skip := s.iterations(size, false)
			ns := slotsOf(size)
			ops := func(how issue) ([]pgas.Handle, error) {
				if how == issueImplicit {
					return nil, windowNBI(pe, put, target, dst, local, size, ns, w)
				}
				return hs, issueWindow(pe, put, target, dst, local, size, ns, hs)
			}
			var samples []float64
			k := 0
			var start time.Duration
			err := s.sizeWindow(pe, origin, local, pinned, func() error {
				var err error
				start, err = together(pe, iters, skip, active, func() error {
					var t0 time.Duration
					if s.perIteration() {
						t0 = pe.Now()
					}
					var err error
					switch {
					case both:
						err = e.mutual(target, ops)
					case origin:
						err = e.origin(target, ops)
					default:
						err = e.target(0)
					}
					if err != nil {
						return err
					}
					if k++; s.perIteration() && k > skip {
						samples = append(samples, mbps(float64(size*w), pe.Now()-t0))
					}
					return nil
				})
				return err
			})
			if err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				bytes := float64(size) * float64(w) * float64(iters)
				ops := float64(w) * float64(iters)
				if both {
					bytes, ops = 2*bytes, 2*ops
				}
				d := pe.Now() - start
				p := Point{Size: size, Value: mbps(bytes, d), Rate: ops / d.Seconds(), Iterations: iters}
				s.percentiles(&p, samples)
				r.Points = append(r.Points, p)
			}
			s.progress(pe, i, len(sizes))
		}
		if pinned != nil {
			return pinned.Unpin()
		}
		return nil
	})
	if res != nil {
		res.WinCreation = s.Win.OMBName()
		if kind != SyncDefault {
			res.Sync = kind.OMBName()
		}
	}
	return res, err
}

// AMBW is the bandwidth of windows of active-message requests (Medium up
// to the largest Medium, Long beyond) from rank 0 to its peer; the
// request completing a window is answered by a Short reply that rank 0
// waits for. MB/s; Rate is messages per second.
func AMBW(s Setup, sizes []int) (*Result, error) {
	hi := int64(maxSize(sizes))
	j := p2pJob("am_bw", "OSU gopgas Active Message Bandwidth Test", "MB/s", "Bandwidth (MB/s)", sizes, 2*hi)
	w := s.window()
	return s.run(j, func(pe *pgas.PE, r *Result) error {
		_, land, payload, err := Setup{}.areas(pe, hi)
		if err != nil {
			return err
		}
		ep := pe.AM()
		acks, got := 0, 0
		ack, err := ep.Register("bench.ack", func(m *am.Message) error { acks++; return nil })
		if err != nil {
			return err
		}
		sink, err := ep.Register("bench.sink", func(m *am.Message) error {
			if got++; got%w == 0 {
				return m.ReplyShort(ack)
			}
			return nil
		})
		if err != nil {
			return err
		}
		peer := peerOf(pe)
		for i, size := range sizes {
			iters, skip := s.iterations(size, false)
			if err := pe.Barrier(); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				var start time.Duration
				for k := range iters + skip {
					if k == skip {
						start = pe.Now()
					}
					want := acks + 1
					for range w {
						if err := request(ep, peer, sink, payload[:size], land, ep.MaxMedium()); err != nil {
							return err
						}
					}
					if err := pe.WaitUntil("the window's acknowledgement", func() bool { return acks >= want }); err != nil {
						return err
					}
				}
				d := pe.Now() - start
				msgs := float64(w) * float64(iters)
				r.Points = append(r.Points, Point{Size: size, Value: mbps(float64(size)*msgs, d), Rate: msgs / d.Seconds()})
			}
			s.progress(pe, i, len(sizes))
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == peer && got%w != 0 {
			return fmt.Errorf("bench: am_bw: %d messages arrived, not a whole number of windows of %d", got, w)
		}
		return nil
	})
}
