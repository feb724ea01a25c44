package am_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

// Inside a PE's goroutine the tests use assert (safe from any goroutine)
// and return errors; require only on the test's goroutine.

// config is a small job isolated from the environment's PGAS_* settings.
// alloc allocates n bytes of the symmetric heap (Long payloads land in
// live allocations) and settles the active messages of the allocation's
// collective (settle), so that every PE's counters read afterwards count
// only what the test does next, and every credit is back home.
func alloc(pe *pgas.PE, n int64) (int64, error) {
	off, err := pe.Alloc(n, 0)
	if err != nil {
		return 0, err
	}
	return off, settle(pe)
}

// settle waits, in a job of two PEs on the shared-memory backend (where a
// message is in its mailbox when SendMessage returns), for the active
// messages of the runtime's collectives to settle. Their requests leave
// credits owed, which a poll that finds no message returns. Of two PEs only
// one may owe the other (the collectives' last message goes one way) and
// that one receives no credit message, so its first poll returns them;
// the other's polls take whatever credit messages have come. After a
// barrier every credit message has been sent, and one more poll takes
// those sent here; the last barrier keeps the test's own messages out of
// that poll.
func settle(pe *pgas.PE) error {
	for range 2 {
		if err := pe.AM().Poll(); err != nil {
			return err
		}
	}
	if err := pe.Barrier(); err != nil {
		return err
	}
	if err := pe.AM().Poll(); err != nil {
		return err
	}
	return pe.Barrier()
}

// since is the growth of the counters from before to now.
func since(now, before am.Stats) am.Stats {
	return am.Stats{
		Requests: now.Requests - before.Requests, Replies: now.Replies - before.Replies,
		CreditMessages: now.CreditMessages - before.CreditMessages, Piggybacked: now.Piggybacked - before.Piggybacked,
		CreditWaits: now.CreditWaits - before.CreditWaits, Peers: now.Peers,
	}
}

func config(pes, depth int) pgas.Config {
	return pgas.Config{
		PEs:          pes,
		NetworkDepth: depth,
		SegmentBytes: pgas.MinSegmentBytes,
		StallTimeout: 10 * time.Second,
		Env:          func(string) (string, bool) { return "", false },
	}
}

// variants run a test with load/store access to peers' segments (the
// default on smp) and without it, so that Long payloads travel inline or by
// RDMA put, and with registration required, so that they are bounced or
// registered.
func variants() map[string]func(*pgas.Config) {
	return map[string]func(*pgas.Config){
		"direct":       func(c *pgas.Config) {},
		"network":      func(c *pgas.Config) { c.Direct = pgas.Off },
		"registration": func(c *pgas.Config) { c.Direct, c.RequireRegistration = pgas.Off, pgas.On },
	}
}

// argsFor is the argument list of n arguments the tests send: edge values
// and a pattern, a function of n and a seed only so that handlers can check
// it.
func argsFor(n int, seed uint32) []int32 {
	a := make([]int32, n)
	edges := []int32{-1, 0, 1, math.MinInt32, math.MaxInt32}
	for i := range a {
		a[i] = int32(seed*2654435761 + uint32(i)*0x9E3779B9)
		if i < len(edges) && seed%2 == 1 {
			a[i] = edges[(i+int(seed))%len(edges)]
		}
	}
	return a
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13) ^ seed ^ byte(i>>8)
	}
	return b
}

func TestRegistry(t *testing.T) {
	nop := func(m *am.Message) error { return nil }
	err := pgas.Run(config(1, 12), func(pe *pgas.PE) error {
		a := pe.AM()
		i, err := a.Register("a", nop)
		assert.NoError(t, err)
		assert.Equal(t, am.Index(am.FirstUserHandler), i)
		j, err := a.Register("b", nop)
		assert.NoError(t, err)
		assert.Equal(t, am.Index(am.FirstUserHandler+1), j)
		got, ok := a.Lookup("a")
		assert.True(t, ok)
		assert.Equal(t, i, got)
		got, ok = a.Lookup("b")
		assert.True(t, ok)
		assert.Equal(t, j, got)
		_, ok = a.Lookup("nobody")
		assert.False(t, ok)
		_, ok = a.Lookup("pgas.collective")
		assert.True(t, ok, "the runtime's own handlers are named too")

		// RegisterAt: user range only, any free index.
		for _, idx := range []am.Index{0, 1, 5, am.FirstUserHandler - 1} {
			err := a.RegisterAt(idx, fmt.Sprint("low", idx), nop)
			if assert.Error(t, err, "RegisterAt(%d)", idx) {
				assert.Contains(t, err.Error(), "reserved for the runtime")
			}
			_, ok := a.Lookup(fmt.Sprint("low", idx))
			assert.False(t, ok, "a refused registration leaves no name behind")
		}
		assert.NoError(t, a.RegisterAt(200, "c", nop))
		k, err := a.Register("d", nop)
		assert.NoError(t, err)
		assert.Equal(t, am.Index(am.FirstUserHandler+2), k, "Register takes the lowest free index")

		// Duplicates, nil handlers, empty names.
		_, err = a.Register("a", nop)
		assert.ErrorContains(t, err, `"a"`)
		assert.ErrorContains(t, a.RegisterAt(201, "a", nop), "name already at 128")
		assert.ErrorContains(t, a.RegisterAt(200, "e", nop), `index taken by "c"`)
		assert.ErrorContains(t, a.RegisterAt(i, "e", nop), "index taken")
		_, err = a.Register("nil", nil)
		assert.ErrorContains(t, err, "nil handler")
		assert.ErrorContains(t, a.RegisterAt(202, "nil", nil), "nil handler")
		_, err = a.Register("", nop)
		assert.ErrorContains(t, err, "empty name")
		_, ok = a.Lookup("e")
		assert.False(t, ok)
		_, ok = a.Lookup("nil")
		assert.False(t, ok)

		// The runtime's range.
		assert.ErrorContains(t, a.RegisterReserved(am.FirstUserHandler, "r", nop), "user range")
		assert.ErrorContains(t, a.RegisterReserved(1, "r", nop), "index taken", "pgas's collective handler is at 1")
		assert.NoError(t, a.RegisterReserved(77, "r", nop))
		r, ok := a.Lookup("r")
		assert.True(t, ok)
		assert.Equal(t, am.Index(77), r)

		// Every refusal is a bad argument.
		for name, err := range map[string]error{
			"low index":   a.RegisterAt(3, "x", nop),
			"duplicate":   a.RegisterAt(210, "a", nop),
			"taken":       a.RegisterAt(200, "y", nop),
			"nil":         a.RegisterAt(211, "z", nil),
			"empty name":  a.RegisterAt(212, "", nop),
			"user range":  a.RegisterReserved(130, "w", nop),
			"taken below": a.RegisterReserved(77, "w", nop),
		} {
			assert.ErrorIs(t, err, pgas.ErrArgument, name)
		}

		// Running out: 128 user indices, 4 taken.
		n := 0
		for {
			_, err := a.Register(fmt.Sprint("h", n), nop)
			if err != nil {
				assert.ErrorContains(t, err, "all 128 user handler indices are taken")
				assert.ErrorIs(t, err, pgas.ErrArgument)
				break
			}
			n++
			if n > am.NumHandlers {
				return errors.New("Register never runs out")
			}
		}
		assert.Equal(t, am.NumHandlers-am.FirstUserHandler-4, n)
		last, ok := a.Lookup(fmt.Sprint("h", n-1))
		assert.True(t, ok)
		assert.Equal(t, am.Index(am.NumHandlers-1), last)
		_, ok = a.Lookup(fmt.Sprint("h", n))
		assert.False(t, ok)
		return nil
	})
	require.NoError(t, err)
}

// TestShortAndMedium: requests and replies of both categories with 0..16
// arguments and Medium payloads of 0..MaxMedium bytes arrive exactly.
func TestShortAndMedium(t *testing.T) {
	for name, v := range variants() {
		t.Run(name, func(t *testing.T) {
			cfg := config(2, 12)
			v(&cfg)
			err := pgas.Run(cfg, func(pe *pgas.PE) error {
				a := pe.AM()
				other := 1 - pe.Rank()
				var replies, requests int
				var hReq, hRep am.Index
				sizes := []int{0, 1, 7, 64, 1000, 4095, a.MaxMedium()}
				hRep, err := a.Register("reply", func(m *am.Message) error {
					replies++
					assert.False(t, m.IsRequest())
					assert.Equal(t, other, m.Source())
					assert.Equal(t, hRep, m.Handler())
					n := len(m.Args)
					assert.Equal(t, argsFor(n, 2), m.Args, "reply with %d args", n)
					switch m.Category() {
					case am.Short:
						assert.Empty(t, m.Payload)
					case am.Medium:
						assert.True(t, bytes.Equal(pattern(len(m.Payload), byte(n)+1), m.Payload), "reply payload of %d bytes", len(m.Payload))
					default:
						assert.Fail(t, "unexpected category", "%v", m.Category())
					}
					return nil
				})
				if err != nil {
					return err
				}
				hReq, err = a.Register("request", func(m *am.Message) error {
					requests++
					assert.True(t, m.IsRequest())
					assert.Equal(t, other, m.Source())
					assert.Equal(t, hReq, m.Handler())
					n := len(m.Args)
					assert.Equal(t, argsFor(n, 1), m.Args, "request with %d args", n)
					assert.Zero(t, m.Offset)
					switch m.Category() {
					case am.Short:
						assert.Empty(t, m.Payload)
						return m.ReplyShort(hRep, argsFor(n, 2)...)
					case am.Medium:
						assert.True(t, bytes.Equal(pattern(len(m.Payload), byte(n)), m.Payload), "request payload of %d bytes", len(m.Payload))
						return m.ReplyMedium(hRep, pattern(len(m.Payload), byte(n)+1), argsFor(n, 2)...)
					}
					return fmt.Errorf("unexpected category %v", m.Category())
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				// Both PEs send at once: requests and replies cross.
				sent := 0
				for n := 0; n <= am.MaxArgs; n++ {
					if err := a.RequestShort(other, hReq, argsFor(n, 1)...); err != nil {
						return err
					}
					sent++
					for _, size := range sizes {
						payload := pattern(size, byte(n))
						if err := a.RequestMedium(other, hReq, payload, argsFor(n, 1)...); err != nil {
							return err
						}
						clear(payload) // may be reused on return
						sent++
					}
				}
				if err := pe.WaitUntil("the replies", func() bool { return replies == sent }); err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				assert.Equal(t, sent, requests)
				st := a.Stats
				assert.EqualValues(t, sent, st.Requests)
				assert.EqualValues(t, sent, st.Replies)
				assert.Zero(t, st.CreditMessages, "replies return every credit")
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// TestShortPayloadIsNil: a Short message's Payload is nil, as the
// documentation of Message.Payload says, also after Medium messages have
// used the same mailbox slots.
func TestShortPayloadIsNil(t *testing.T) {
	var payloads []bool
	err := pgas.Run(config(2, 12), func(pe *pgas.PE) error {
		a := pe.AM()
		got := 0
		h, err := a.Register("h", func(m *am.Message) error {
			got++
			if m.Category() == am.Short {
				payloads = append(payloads, m.Payload == nil)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			for range 100 {
				if err := a.RequestMedium(1, h, []byte("payload")); err != nil {
					return err
				}
			}
			for range 100 {
				if err := a.RequestShort(1, h); err != nil {
					return err
				}
			}
		} else if err := pe.WaitUntil("the messages", func() bool { return got == 200 }); err != nil {
			return err
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	assert.Len(t, payloads, 100)
	assert.NotContains(t, payloads, false, "a Short message had a non-nil payload")
}

// TestLong: Long requests and replies, small (inline) and large (by RDMA
// then message), land at the given offset before the handler runs.
func TestLong(t *testing.T) {
	const mib = 1 << 20
	for name, v := range variants() {
		t.Run(name, func(t *testing.T) {
			cfg := config(2, 12)
			cfg.SegmentBytes = 8 * mib
			v(&cfg)
			err := pgas.Run(cfg, func(pe *pgas.PE) error {
				a := pe.AM()
				other := 1 - pe.Rank()
				maxMed := a.MaxMedium()
				// Long payloads land in live allocations: this one is
				// the whole heap.
				base, err := alloc(pe, cfg.SegmentBytes-pgas.ReservedBytes)
				if err != nil {
					return err
				}
				before := a.Stats
				sizes := []int{0, 1, 100, maxMed - 1, maxMed, maxMed + 1, 3*maxMed + 5, 3 * mib}
				// Request i lands at reqOff(i) of the target, and its
				// reply (the same bytes, echoed) at repOff(i) of the
				// requester.
				reqOff := func(i int) int64 { return base + int64(i)*13 }
				repOff := func(i int) int64 { return 4*mib + int64(i)*7 }
				local := func(off int64, n int) []byte {
					b, err := pe.Local(off, int64(n))
					assert.NoError(t, err)
					return b
				}
				var hReq, hRep am.Index
				var replies, requests int
				hRep, err = a.Register("long reply", func(m *am.Message) error {
					i := int(m.Args[0])
					replies++
					assert.Equal(t, am.Long, m.Category())
					assert.False(t, m.IsRequest())
					assert.Equal(t, repOff(i), m.Offset)
					assert.Len(t, m.Payload, sizes[i])
					if len(m.Payload) > 0 {
						assert.Same(t, &local(m.Offset, sizes[i])[0], &m.Payload[0], "the payload is the segment")
					}
					assert.True(t, bytes.Equal(pattern(sizes[i], byte(i)), m.Payload), "reply %d (%d bytes) landed", i, sizes[i])
					assert.Equal(t, argsFor(int(m.Args[1]), 3)[2:], m.Args[2:])
					return nil
				})
				if err != nil {
					return err
				}
				hReq, err = a.Register("long request", func(m *am.Message) error {
					i := int(m.Args[0])
					requests++
					assert.Equal(t, am.Long, m.Category())
					assert.True(t, m.IsRequest())
					assert.Equal(t, other, m.Source())
					assert.Equal(t, reqOff(i), m.Offset)
					assert.Len(t, m.Payload, sizes[i])
					if len(m.Payload) > 0 {
						assert.Same(t, &local(m.Offset, sizes[i])[0], &m.Payload[0], "the payload is the segment")
					}
					assert.True(t, bytes.Equal(pattern(sizes[i], byte(i)), m.Payload), "request %d (%d bytes) landed before the handler ran", i, sizes[i])
					nargs := int(m.Args[1])
					assert.Len(t, m.Args, nargs)
					assert.Equal(t, argsFor(nargs, 3)[2:], m.Args[2:])
					// Echo the bytes back from the segment, which stays
					// unchanged until the reply has gone.
					return m.ReplyLong(hRep, m.Payload, repOff(i), m.Args...)
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if pe.Rank() == 0 {
					for i, n := range sizes {
						nargs := 2 + i*2
						args := argsFor(nargs, 3)
						args[0], args[1] = int32(i), int32(nargs)
						payload := pattern(n, byte(i))
						if err := a.RequestLong(other, hReq, payload, reqOff(i), args...); err != nil {
							return err
						}
						clear(payload) // may be reused on return
						if err := pe.WaitUntil("a Long reply", func() bool { return replies == i+1 }); err != nil {
							return err
						}
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if pe.Rank() == 1 {
					assert.Equal(t, len(sizes), requests)
				} else {
					assert.Equal(t, len(sizes), replies)
				}
				assert.Zero(t, since(a.Stats, before).CreditMessages)
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// TestLongPayloadInPieces: a large Long payload that needs more bounce
// buffers than the pool has still arrives whole, and its handler runs
// once.
func TestLongPayloadInPieces(t *testing.T) {
	cfg := config(2, 12)
	cfg.Direct, cfg.RequireRegistration = pgas.Off, pgas.On
	cfg.BounceBytes, cfg.BounceRegisterCutover, cfg.ChunkBytes = 65536, 32768, 32768 // two bounce buffers
	cfg.SegmentBytes = 1 << 20
	const size = 3 * 32768
	var calls atomic.Int64
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		a := pe.AM()
		base, err := pe.Alloc(size, 0)
		if err != nil {
			return err
		}
		h, err := a.Register("long", func(m *am.Message) error {
			calls.Add(1)
			assert.True(t, bytes.Equal(pattern(size, 9), m.Payload), "the whole payload landed before the handler ran")
			return nil
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			if err := a.RequestLong(1, h, pattern(size, 9), base); err != nil {
				return err
			}
		} else if err := pe.WaitUntil("the Long request", func() bool { return calls.Load() > 0 }); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	assert.EqualValues(t, 1, calls.Load(), "handler runs")
}

func TestLimits(t *testing.T) {
	err := pgas.Run(config(2, 4), func(pe *pgas.PE) error {
		a := pe.AM()
		other := 1 - pe.Rank()
		seg := pe.Config().SegmentBytes
		// An allocation at the end of the segment, for Long payloads
		// there: allocated after a block that fills the rest of the heap.
		head, err := pe.Alloc(seg-pgas.ReservedBytes-64, 0)
		if err != nil {
			return err
		}
		tail, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		if tail != seg-64 {
			return fmt.Errorf("the tail allocation is at %d, not at the segment's end", tail)
		}
		if err := pe.Free(head); err != nil {
			return err
		}
		if err := settle(pe); err != nil {
			return err
		}
		before := a.Stats
		var replyErrs []error
		var hRep am.Index
		var handled int
		hRep, err = a.Register("reply", func(m *am.Message) error { handled++; return nil })
		if err != nil {
			return err
		}
		hReq, err := a.Register("request", func(m *am.Message) error {
			big := make([]int32, am.MaxArgs+1)
			replyErrs = append(replyErrs,
				m.ReplyShort(hRep, big...),
				m.ReplyMedium(hRep, nil, big...),
				m.ReplyMedium(hRep, make([]byte, a.MaxMedium()+1)),
				m.ReplyLong(hRep, nil, 0, big...),
				m.ReplyLong(hRep, make([]byte, 16), seg-8),
				m.ReplyLong(hRep, nil, -1),
				m.ReplyShort(am.Index(250)),
			)
			// None of those counted as the reply: this one does.
			return m.ReplyShort(hRep, argsFor(am.MaxArgs, 1)...)
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		big := make([]int32, am.MaxArgs+1)
		for name, err := range map[string]error{
			"short 17 args":       a.RequestShort(other, hReq, big...),
			"medium 17 args":      a.RequestMedium(other, hReq, nil, big...),
			"long 17 args":        a.RequestLong(other, hReq, nil, tail, big...),
			"medium too large":    a.RequestMedium(other, hReq, make([]byte, a.MaxMedium()+1)),
			"long beyond segment": a.RequestLong(other, hReq, make([]byte, 16), seg-8),
			"long negative":       a.RequestLong(other, hReq, nil, -1),
			"long too large":      a.RequestLong(other, hReq, make([]byte, seg+1), 0),
			"target negative":     a.RequestShort(-1, hReq),
			"target too large":    a.RequestShort(2, hReq),
			"unregistered":        a.RequestShort(other, am.Index(250)),
		} {
			assert.Error(t, err, name)
		}
		for _, c := range []struct {
			name     string
			err      error
			sentinel error
		}{
			{"17 args", a.RequestShort(other, hReq, big...), pgas.ErrArgument},
			{"medium too large", a.RequestMedium(other, hReq, make([]byte, a.MaxMedium()+1)), pgas.ErrArgument},
			{"unregistered", a.RequestShort(other, am.Index(250)), pgas.ErrArgument},
			{"long beyond segment", a.RequestLong(other, hReq, make([]byte, 16), seg-8), pgas.ErrRange},
			{"long negative", a.RequestLong(other, hReq, nil, -1), pgas.ErrRange},
			{"target", a.RequestShort(2, hReq), pgas.ErrBadPE},
			{"target medium", a.RequestMedium(-1, hReq, nil), pgas.ErrBadPE},
		} {
			assert.ErrorIs(t, c.err, c.sentinel, c.name)
			assert.ErrorContains(t, c.err, fmt.Sprintf("am: PE %d:", pe.Rank()), c.name)
		}
		assert.ErrorContains(t, a.RequestShort(other, hReq, big...), "17 arguments (at most 16)")
		assert.ErrorContains(t, a.RequestMedium(other, hReq, make([]byte, a.MaxMedium()+1)), "exceeds MaxMedium")
		assert.ErrorContains(t, a.RequestLong(other, hReq, make([]byte, 16), seg-8), "outside the")
		assert.ErrorContains(t, a.RequestShort(other, am.Index(250)), "not registered")
		assert.Zero(t, since(a.Stats, before).Requests, "refused requests are not sent")
		assert.Zero(t, since(a.Stats, before).CreditWaits)
		// The limits themselves are fine, and refusals took no credit:
		// Depth requests go without waiting.
		if err := a.RequestShort(other, hReq, argsFor(am.MaxArgs, 1)...); err != nil {
			return err
		}
		if err := a.RequestMedium(other, hReq, make([]byte, a.MaxMedium()), argsFor(am.MaxArgs, 1)...); err != nil {
			return err
		}
		if err := a.RequestLong(other, hReq, make([]byte, 8), seg-8, argsFor(am.MaxArgs, 1)...); err != nil {
			return err
		}
		if err := a.RequestLong(other, hReq, nil, seg); err != nil {
			return err
		}
		assert.Zero(t, since(a.Stats, before).CreditWaits)
		if err := pe.WaitUntil("the replies", func() bool { return handled == 4 }); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		assert.Len(t, replyErrs, 4*7)
		for i, err := range replyErrs {
			assert.Error(t, err, "reply %d", i%7)
			assert.NotErrorIs(t, err, am.ErrRule, "reply %d: a bad argument, not a broken rule", i%7)
		}
		return nil
	})
	require.NoError(t, err)
}

// TestRules: breaking a handler rule returns an error wrapping ErrRule (or
// ErrInHandler for blocking calls) instead of deadlocking.
func TestRules(t *testing.T) {
	var kept atomic.Pointer[am.Message]
	err := pgas.Run(config(2, 12), func(pe *pgas.PE) error {
		a := pe.AM()
		other := 1 - pe.Rank()
		var replies int
		var errs = map[string]error{}
		var hRep, hReq, hKeep am.Index
		// Long messages of the cases land here: only the rule is wrong.
		dst, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		hRep, err = a.Register("reply", func(m *am.Message) error {
			replies++
			errs["reply from reply handler"] = m.ReplyShort(hRep)
			errs["request from reply handler"] = a.RequestShort(m.Source(), hReq)
			return nil
		})
		if err != nil {
			return err
		}
		hReq, err = a.Register("request", func(m *am.Message) error {
			errs["request from request handler"] = a.RequestShort(m.Source(), hReq)
			errs["medium request from request handler"] = a.RequestMedium(m.Source(), hReq, nil)
			errs["long request from request handler"] = a.RequestLong(m.Source(), hReq, nil, dst)
			errs["barrier in handler"] = pe.Barrier()
			errs["poll in handler"] = pe.Poll()
			errs["wait in handler"] = pe.WaitUntil("x", func() bool { return false })
			if err := m.ReplyShort(hRep); err != nil {
				return err
			}
			errs["second reply"] = m.ReplyShort(hRep)
			errs["second medium reply"] = m.ReplyMedium(hRep, nil)
			errs["second long reply"] = m.ReplyLong(hRep, nil, dst)
			return nil
		})
		if err != nil {
			return err
		}
		hKeep, err = a.Register("keep", func(m *am.Message) error {
			kept.Store(m)
			return nil
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			if err := a.RequestShort(other, hReq); err != nil {
				return err
			}
			if err := pe.WaitUntil("the reply and the message to keep", func() bool { return replies == 1 && kept.Load() != nil }); err != nil {
				return err
			}
		} else {
			if err := a.RequestShort(other, hKeep); err != nil {
				return err
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			m := kept.Load()
			if assert.NotNil(t, m) {
				errs["reply after the handler returned"] = m.ReplyShort(hRep)
				errs["medium reply after the handler returned"] = m.ReplyMedium(hRep, nil)
				errs["long reply after the handler returned"] = m.ReplyLong(hRep, nil, dst)
			}
			for _, name := range []string{"reply from reply handler", "request from reply handler",
				"reply after the handler returned", "medium reply after the handler returned", "long reply after the handler returned"} {
				assert.ErrorIs(t, errs[name], am.ErrRule, name)
			}
		} else {
			for _, name := range []string{"request from request handler", "medium request from request handler",
				"long request from request handler", "second reply", "second medium reply", "second long reply"} {
				assert.ErrorIs(t, errs[name], am.ErrRule, name)
			}
			assert.ErrorContains(t, errs["second reply"], "second ReplyShort to PE 0")
			for _, name := range []string{"barrier in handler", "poll in handler", "wait in handler"} {
				assert.ErrorIs(t, errs[name], pgas.ErrInHandler, name)
			}
			assert.EqualValues(t, 1, a.Stats.Replies, "refused replies are not counted")
		}
		return nil
	})
	require.NoError(t, err)
}

// TestHandlerError: an error returned by a handler fails the blocking call
// the target was in, and the job.
func TestHandlerError(t *testing.T) {
	boom := errors.New("boom")
	for _, inReply := range []bool{false, true} {
		t.Run(fmt.Sprint("reply=", inReply), func(t *testing.T) {
			var failed [2]error
			err := pgas.Run(config(2, 12), func(pe *pgas.PE) (err error) {
				// Whichever blocking call fails (the handler may run as
				// early as in the first barrier).
				defer func() { failed[pe.Rank()] = err }()
				a := pe.AM()
				hRep, err := a.Register("reply", func(m *am.Message) error { return boom })
				if err != nil {
					return err
				}
				hReq, err := a.Register("request", func(m *am.Message) error {
					if inReply {
						return m.ReplyShort(hRep)
					}
					return boom
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if pe.Rank() == 0 {
					if err := a.RequestShort(1, hReq); err != nil {
						return err
					}
				}
				// The PE whose handler fails waits for the message (a
				// barrier need not poll); the other enters a barrier the
				// failing PE never reaches.
				if pe.Rank() == 1 && !inReply || pe.Rank() == 0 && inReply {
					return pe.WaitUntil("the message", func() bool { return false })
				}
				return pe.Barrier()
			})
			require.Error(t, err)
			assert.ErrorIs(t, err, boom)
			failing, other := 1, 0
			if inReply {
				failing, other = 0, 1
			}
			assert.ErrorIs(t, failed[failing], boom, "the blocking call of the PE that ran the handler")
			assert.ErrorContains(t, failed[failing], "handler")
			assert.ErrorIs(t, failed[other], pgas.ErrJobAborted)
		})
	}
}

// TestFlowControl: a sender never has more than Depth requests unhandled at
// a slow receiver, waits for credits when it has none, and gets them back
// by hidden credit messages when the handler does not reply.
func TestFlowControl(t *testing.T) {
	const n = 150
	for _, depth := range []int{1, 2, 12} {
		t.Run(fmt.Sprint("depth=", depth), func(t *testing.T) {
			var sent, handled, maxOut, maxOutAtTarget atomic.Int64
			var spent atomic.Bool // the sender has used its first Depth credits
			var away atomic.Bool  // the receiver has left the barrier and stopped polling
			var senderStats, receiverStats am.Stats
			err := pgas.Run(config(2, depth), func(pe *pgas.PE) error {
				a := pe.AM()
				h, err := a.Register("slow", func(m *am.Message) error {
					out := sent.Load() - handled.Load()
					if out > maxOutAtTarget.Load() {
						maxOutAtTarget.Store(out)
					}
					handled.Add(1)
					if m.Args[0]%16 == 0 {
						time.Sleep(50 * time.Microsecond) // a slow receiver
					}
					return nil
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if pe.Rank() == 0 {
					awaitFlag(&away)
					for i := range n {
						if err := a.RequestShort(1, h, int32(i)); err != nil {
							return err
						}
						out := sent.Add(1) - handled.Load()
						if out > maxOut.Load() {
							maxOut.Store(out)
						}
						if i == depth-1 {
							spent.Store(true)
						}
					}
					senderStats = a.Stats
				} else {
					// Not polling until the sender has used its credits.
					away.Store(true)
					awaitFlag(&spent)
					if err := pe.WaitUntil("every request", func() bool { return handled.Load() == n }); err != nil {
						return err
					}
					receiverStats = a.Stats
				}
				return pe.Barrier()
			})
			require.NoError(t, err)
			assert.EqualValues(t, n, handled.Load())
			assert.EqualValues(t, depth, maxOut.Load(), "at most Depth requests outstanding, and Depth while the receiver is away")
			assert.LessOrEqual(t, maxOutAtTarget.Load(), int64(depth))
			assert.EqualValues(t, n, senderStats.Requests)
			assert.Positive(t, senderStats.CreditWaits, "the sender ran out of credits")
			assert.Positive(t, receiverStats.CreditMessages, "credits came back in hidden messages")
			assert.Zero(t, receiverStats.Piggybacked, "nothing else went back to piggyback on")
			assert.Zero(t, receiverStats.Replies)
			assert.LessOrEqual(t, receiverStats.CreditMessages, int64(n), "at most one credit message per request")
		})
	}
}

// TestCreditReturn checks how credits owed for requests without replies go
// back: on the next message headed back, when half a depth is owed, or
// when the target runs out of other work.
func TestCreditReturn(t *testing.T) {
	cases := []struct {
		name                        string
		oneWay                      int  // one-way requests
		withReply                   bool // then one request that is answered
		piggybacked, creditMessages int64
	}{
		// 3 owed, then a reply carries them back.
		{"piggyback on a reply", 3, true, 3, 0},
		// 2 owed and nothing else to do: one hidden message.
		{"idle flush", 2, false, 0, 1},
		// Half the depth (6 of 12) owed: a hidden message at once.
		{"half depth", 6, false, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sent, handled atomic.Int64
			var flushed, away atomic.Bool
			var refillWaits atomic.Int64
			var recv am.Stats
			err := pgas.Run(config(2, 12), func(pe *pgas.PE) error {
				a := pe.AM()
				replies := 0
				hRep, err := a.Register("reply", func(m *am.Message) error { replies++; return nil })
				if err != nil {
					return err
				}
				hReq, err := a.Register("request", func(m *am.Message) error {
					handled.Add(1)
					if m.Args[0] == 1 {
						return m.ReplyShort(hRep)
					}
					return nil
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				total := int64(c.oneWay + b2i(c.withReply))
				if pe.Rank() == 0 {
					awaitFlag(&away)
					for range c.oneWay {
						if err := a.RequestShort(1, hReq, 0); err != nil {
							return err
						}
					}
					if c.withReply {
						if err := a.RequestShort(1, hReq, 1); err != nil {
							return err
						}
					}
					sent.Store(total)
					if err := pe.WaitUntil("the target's flush", flushed.Load); err != nil {
						return err
					}
					// Take in whatever the target sent back before it
					// said so.
					for range 3 {
						if err := pe.Poll(); err != nil {
							return err
						}
					}
					assert.Equal(t, b2i(c.withReply), replies)
					// Every credit is back: all 12 go without waiting.
					before := a.Stats.CreditWaits
					for range 12 {
						if err := a.RequestShort(1, hReq, 0); err != nil {
							return err
						}
					}
					refillWaits.Store(a.Stats.CreditWaits - before)
				} else {
					// Not polling until the whole batch has been sent, so
					// that one poll takes it.
					away.Store(true)
					for sent.Load() < total {
						time.Sleep(100 * time.Microsecond)
					}
					if err := pe.WaitUntil("the requests", func() bool { return handled.Load() == total }); err != nil {
						return err
					}
					// Idle polls flush what is still owed.
					for range 3 {
						if err := pe.Poll(); err != nil {
							return err
						}
					}
					recv = a.Stats
					flushed.Store(true)
					if err := pe.WaitUntil("the last requests", func() bool { return handled.Load() == total+12 }); err != nil {
						return err
					}
				}
				return pe.Barrier()
			})
			require.NoError(t, err)
			assert.Equal(t, c.piggybacked, recv.Piggybacked, "Piggybacked")
			assert.Equal(t, c.creditMessages, recv.CreditMessages, "CreditMessages")
			assert.Zero(t, refillWaits.Load(), "every credit came back")
		})
	}
}

// awaitFlag waits for another PE's signal without polling (the tests that
// use it control exactly when a PE polls). The other PE must not need this
// one's progress to set it.
func awaitFlag(f *atomic.Bool) {
	for !f.Load() {
		time.Sleep(50 * time.Microsecond)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNoDeadlockOneWay: every PE sends many requests without replies to
// every other PE at once, with a single credit per peer: hidden credit
// messages keep it going.
func TestNoDeadlockOneWay(t *testing.T) {
	const pes = 3
	n := 10000
	if testing.Short() {
		n = 1000
	}
	for _, depth := range []int{1, 12} {
		t.Run(fmt.Sprint("depth=", depth), func(t *testing.T) {
			var stats [pes]am.Stats
			var got [pes]int
			err := pgas.Run(config(pes, depth), func(pe *pgas.PE) error {
				a := pe.AM()
				me := pe.Rank()
				from := make([]int, pes)
				h, err := a.Register("one-way", func(m *am.Message) error {
					src := m.Source()
					if int(m.Args[0]) != from[src] {
						return fmt.Errorf("request %d from PE %d arrived as number %d", m.Args[0], src, from[src])
					}
					from[src]++
					got[me]++
					return nil
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				for i := range n {
					for d := 1; d < pes; d++ {
						if err := a.RequestShort((me+d)%pes, h, int32(i)); err != nil {
							return err
						}
					}
				}
				if err := pe.WaitUntil("every request", func() bool { return got[me] == n*(pes-1) }); err != nil {
					return err
				}
				stats[me] = a.Stats
				return pe.Barrier()
			})
			require.NoError(t, err)
			for r := range pes {
				assert.Equal(t, n*(pes-1), got[r])
				assert.EqualValues(t, n*(pes-1), stats[r].Requests)
				assert.Positive(t, stats[r].CreditMessages+stats[r].Piggybacked)
				if depth == 1 {
					assert.Positive(t, stats[r].CreditWaits)
					assert.Positive(t, stats[r].CreditMessages, "PE %d", r)
				} else {
					assert.Positive(t, stats[r].Piggybacked, "PE %d: all-to-all traffic carries credits back", r)
				}
			}
		})
	}
}

// TestPingPongNeedsNoCreditMessages: replies return credits for free.
func TestPingPongNeedsNoCreditMessages(t *testing.T) {
	const n = 1000
	for _, depth := range []int{1, 12} {
		t.Run(fmt.Sprint("depth=", depth), func(t *testing.T) {
			var stats [2]am.Stats
			err := pgas.Run(config(2, depth), func(pe *pgas.PE) error {
				a := pe.AM()
				replies := 0
				var hRep am.Index
				dst, err := alloc(pe, 64)
				if err != nil {
					return err
				}
				before := a.Stats
				hRep, err = a.Register("pong", func(m *am.Message) error { replies++; return nil })
				if err != nil {
					return err
				}
				hReq, err := a.Register("ping", func(m *am.Message) error {
					switch m.Args[0] % 3 {
					case 0:
						return m.ReplyShort(hRep, m.Args[0])
					case 1:
						return m.ReplyMedium(hRep, []byte("pong"), m.Args[0])
					}
					return m.ReplyLong(hRep, []byte("pong"), dst, m.Args[0])
				})
				if err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if pe.Rank() == 0 {
					for i := range n {
						if err := a.RequestShort(1, hReq, int32(i)); err != nil {
							return err
						}
						if err := pe.WaitUntil("the pong", func() bool { return replies == i+1 }); err != nil {
							return err
						}
					}
					// And pipelined, a depth at a time.
					for i := 0; i < n; i += depth {
						for k := range depth {
							if err := a.RequestMedium(1, hReq, []byte("ping"), int32(i+k)); err != nil {
								return err
							}
						}
						if err := pe.WaitUntil("the pongs", func() bool { return replies == n+i+depth }); err != nil {
							return err
						}
					}
				}
				err = pe.Barrier()
				stats[pe.Rank()] = since(a.Stats, before)
				return err
			})
			require.NoError(t, err)
			want := int64(n + (n+depth-1)/depth*depth)
			assert.Equal(t, want, stats[0].Requests)
			assert.Equal(t, want, stats[1].Replies)
			for r := range 2 {
				assert.Zero(t, stats[r].CreditMessages, "PE %d", r)
				assert.Zero(t, stats[r].Piggybacked, "PE %d", r)
			}
			assert.Zero(t, stats[0].CreditWaits, "a depth at a time never waits")
		})
	}
}

// TestLazyPeerState: a PE that talks only to its neighbours keeps AM state
// for those alone.
func TestLazyPeerState(t *testing.T) {
	const pes = 16
	var peers [pes]int
	var before [pes]int
	err := pgas.Run(config(pes, 4), func(pe *pgas.PE) error {
		a := pe.AM()
		me := pe.Rank()
		got := 0
		h, err := a.Register("ring", func(m *am.Message) error {
			assert.Equal(t, (me+pes-1)%pes, m.Source())
			got++
			return nil
		})
		if err != nil {
			return err
		}
		before[me] = a.Stats.Peers
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i := range 20 {
			if err := a.RequestShort((me+1)%pes, h, int32(i)); err != nil {
				return err
			}
		}
		if err := pe.WaitUntil("the left neighbour's requests", func() bool { return got == 20 }); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		peers[me] = a.Stats.Peers
		return nil
	})
	require.NoError(t, err)
	for r := range pes {
		assert.Zero(t, before[r], "PE %d: no peer state before any message", r)
		assert.Equal(t, 2, peers[r], "PE %d: state for its two neighbours only", r)
	}
}

// TestClosedAfterProgram: once a PE's program has returned, its AM
// endpoint refuses every call with ErrEnded.
func TestClosedAfterProgram(t *testing.T) {
	var eps [2]*am.Endpoint
	var hs [2]am.Index
	err := pgas.Run(config(2, 12), func(pe *pgas.PE) error {
		a := pe.AM()
		eps[pe.Rank()] = a
		var err error
		hs[pe.Rank()], err = a.Register("h", func(m *am.Message) error { return nil })
		return err
	})
	require.NoError(t, err)
	h := hs[0]
	// The PEs' goroutines have ended: the test's goroutine may use the
	// endpoints now.
	a := eps[0]
	before := a.Stats.Requests // the runtime's own exit traffic
	nop := func(m *am.Message) error { return nil }
	for name, err := range map[string]error{
		"RequestShort":  a.RequestShort(1, h),
		"RequestMedium": a.RequestMedium(1, h, []byte("x")),
		"RequestLong":   a.RequestLong(1, h, []byte("x"), pgas.ReservedBytes),
		"Poll":          a.Poll(),
		"RegisterAt":    a.RegisterAt(200, "late", nop),
	} {
		assert.ErrorIs(t, err, pgas.ErrEnded, name)
	}
	_, err = a.Register("late", nop)
	assert.ErrorIs(t, err, pgas.ErrEnded)
	assert.Equal(t, before, a.Stats.Requests, "nothing was sent")
}
