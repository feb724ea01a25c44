package smp_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/smp"
	"github.com/gopgas/gopgas/conduit/smp/smptest"
)

// Inside a PE's goroutine the tests use assert (safe from any goroutine)
// and return errors to end the PE; require is used only on the test's own
// goroutine.

func jobConfig(pes int) conduit.JobConfig {
	return conduit.JobConfig{
		PEs:          pes,
		SegmentBytes: 1 << 16,
		Ordering:     conduit.OrderDefault,
		MailboxSlots: 48,
		PeerBurst:    4,
		// A test that hangs because of a bug ends as a deadlock report
		// instead of at the test binary's timeout.
		StallTimeout: 5 * time.Second,
	}
}

// nextEvent waits for one local completion.
func nextEvent(ep conduit.Endpoint) (conduit.Event, error) {
	var evs [1]conduit.Event
	err := ep.WaitFor("a local completion", smptest.WaitFunc(func() (bool, error) {
		return ep.PollLocalCQ(evs[:]) == 1, nil
	}))
	return evs[0], err
}

// post posts d and waits for its completion, checking that the event
// carries the descriptor and succeeded.
func post(ep conduit.Endpoint, d *conduit.PostDesc) error {
	if err := ep.Post(d); err != nil {
		return err
	}
	ev, err := nextEvent(ep)
	if err != nil {
		return err
	}
	if ev.Desc != d {
		return fmt.Errorf("event carries descriptor %p, posted %p", ev.Desc, d)
	}
	return ev.Err()
}

func putDesc(ep conduit.Endpoint, target int, off int64, buf []byte) *conduit.PostDesc {
	return &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: target, Local: buf,
		Remote: ep.SegmentHandle(target), RemoteOffset: off}
}

func getDesc(ep conduit.Endpoint, target int, off int64, buf []byte) *conduit.PostDesc {
	d := putDesc(ep, target, off, buf)
	d.Type = conduit.Get
	return d
}

func TestOpenValidates(t *testing.T) {
	bad := jobConfig(0)
	_, err := smp.Open(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PEs=0")

	bad = jobConfig(2)
	bad.SegmentBytes = 12
	_, err = smp.Open(bad)
	require.ErrorContains(t, err, "SegmentBytes")

	withOpt := jobConfig(2)
	withOpt.Options = map[string]string{"topology": "torus"}
	_, err = smp.Open(withOpt)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown option "topology"`)
	_, err = conduit.Open(smp.Name, withOpt)
	require.Error(t, err, "the registry path rejects unknown options too")

	job, err := conduit.Open(smp.Name, jobConfig(2))
	require.NoError(t, err, "the backend registers itself as %q", smp.Name)
	require.NoError(t, job.Run(func(ep conduit.Endpoint) error { return nil }))
	b, err := conduit.Lookup(smp.Name)
	require.NoError(t, err)
	assert.Positive(t, b.DefaultPEs())
	assert.Equal(t, smp.DefaultPEs(), b.DefaultPEs())
}

func TestRunTwice(t *testing.T) {
	job, err := smp.Open(jobConfig(2))
	require.NoError(t, err)
	var ran atomic.Int64
	require.NoError(t, job.Run(func(ep conduit.Endpoint) error { ran.Add(1); return nil }))
	err = job.Run(func(ep conduit.Endpoint) error { ran.Add(1); return nil })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "twice")
	assert.EqualValues(t, 2, ran.Load(), "the second Run starts no PE")
}

func TestEndpointBasics(t *testing.T) {
	cfg := jobConfig(3)
	cfg.Ordering = conduit.OrderRelaxed
	var seen [3]atomic.Bool
	smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
		seen[ep.Rank()].Store(true)
		assert.Equal(t, 3, ep.Size())
		assert.Equal(t, smp.Name, ep.Backend())
		assert.Equal(t, conduit.Caps{AMO32: true, FloatAMO: true, DirectAccess: true, FlaggedGet: true}, ep.Caps())
		assert.Equal(t, conduit.OrderRelaxed, ep.Ordering())
		seg := ep.Segment()
		assert.Len(t, seg, 1<<16)
		assert.Zero(t, uintptr(unsafe.Pointer(unsafe.SliceData(seg)))%8, "segment is 8-byte aligned")
		for _, b := range seg {
			if b != 0 {
				assert.Fail(t, "segment not zeroed")
				break
			}
		}
		for r := range 3 {
			assert.Equal(t, conduit.MemHandle{Owner: int32(r), ID: conduit.SegmentID, Bytes: 1 << 16}, ep.SegmentHandle(r))
		}
		assert.False(t, ep.SegmentHandle(-1).Valid())
		assert.False(t, ep.SegmentHandle(3).Valid())
		assert.Equal(t, smp.MaxHeaderBytes, ep.MaxMessageHeader())
		assert.Equal(t, smp.MaxPayloadBytes, ep.MaxMessagePayload())
		t0 := ep.Now()
		ep.Charge(conduit.Second) // ignored by a real backend
		assert.Less(t, ep.Now()-t0, conduit.Second)
		return nil
	})
	for r := range seen {
		assert.True(t, seen[r].Load(), "PE %d ran", r)
	}
}

func TestSetOrdering(t *testing.T) {
	smptest.RunJob(t, jobConfig(1), func(ep conduit.Endpoint) error {
		assert.Equal(t, conduit.OrderDefault, ep.Ordering())
		for _, m := range []conduit.OrderingMode{conduit.OrderStrict, conduit.OrderRelaxed, conduit.OrderDefault} {
			assert.NoError(t, ep.SetOrdering(m))
			assert.Equal(t, m, ep.Ordering())
		}
		for _, m := range []conduit.OrderingMode{conduit.OrderInherit, conduit.OrderingMode(4), conduit.OrderingMode(200)} {
			err := ep.SetOrdering(m)
			if assert.Error(t, err, "SetOrdering(%v)", m) {
				assert.Contains(t, err.Error(), m.String())
			}
			assert.Equal(t, conduit.OrderDefault, ep.Ordering(), "a rejected mode changes nothing")
		}
		return nil
	})
}

func TestNodes(t *testing.T) {
	cases := []struct {
		pes, perNode, nodes int
		nodeOf              []int
	}{
		{6, 0, 1, []int{0, 0, 0, 0, 0, 0}},
		{6, 4, 2, []int{0, 0, 0, 0, 1, 1}},
		{6, 2, 3, []int{0, 0, 1, 1, 2, 2}},
		{6, 1, 6, []int{0, 1, 2, 3, 4, 5}},
		{3, 8, 1, []int{0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d", c.pes, c.perNode), func(t *testing.T) {
			cfg := jobConfig(c.pes)
			cfg.PEsPerNode = c.perNode
			smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
				assert.Equal(t, c.nodes, ep.Nodes())
				for r, n := range c.nodeOf {
					assert.Equal(t, n, ep.Node(r), "Node(%d)", r)
				}
				return nil
			})
		})
	}
}

func TestDirectSegment(t *testing.T) {
	t.Run("mapped", func(t *testing.T) {
		var b smptest.Barrier
		b.N = 2
		smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
			var gen int64
			other := 1 - ep.Rank()
			assert.Nil(t, ep.DirectSegment(-1))
			assert.Nil(t, ep.DirectSegment(2))
			own := ep.DirectSegment(ep.Rank())
			if assert.Len(t, own, 1<<16) {
				assert.Same(t, &ep.Segment()[0], &own[0], "own direct segment is the segment")
			}
			peer := ep.DirectSegment(other)
			binary.NativeEndian.PutUint64(peer[8*ep.Rank():], uint64(100+ep.Rank()))
			if err := b.Wait(ep, &gen); err != nil {
				return err
			}
			assert.EqualValues(t, 100+other, binary.NativeEndian.Uint64(ep.Segment()[8*other:]), "peer's store through DirectSegment")
			return nil
		})
	})
	t.Run("NoDirectAccess", func(t *testing.T) {
		cfg := jobConfig(2)
		cfg.NoDirectAccess = true
		smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
			assert.False(t, ep.Caps().DirectAccess)
			for r := range 2 {
				assert.Nil(t, ep.DirectSegment(r), "DirectSegment(%d)", r)
			}
			return nil
		})
	})
}

func TestPutGet(t *testing.T) {
	var b smptest.Barrier
	b.N = 2
	var written [2][]byte
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		var gen int64
		me, other := ep.Rank(), 1-ep.Rank()
		rng := rand.New(rand.NewPCG(uint64(me), 7))
		// Each PE writes a region of its peer at offsets and lengths that
		// exercise unaligned heads and tails, with both mechanisms.
		base := int64(1024 * (me + 1))
		var want []byte
		for i, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 129, 1000} {
			buf := make([]byte, n)
			for j := range buf {
				buf[j] = byte(rng.Uint32())
			}
			off := base + int64(len(want)) + int64(i%3)
			want = append(want, make([]byte, i%3)...)
			want = append(want, buf...)
			d := putDesc(ep, other, off, buf)
			if i%2 == 1 {
				d.Mech = conduit.BTE
			}
			if err := post(ep, d); err != nil {
				return fmt.Errorf("put of %d bytes at %d: %w", n, off, err)
			}
		}
		// Read it back, whole and in pieces.
		got := make([]byte, len(want))
		if err := post(ep, getDesc(ep, other, base, got)); err != nil {
			return err
		}
		assert.Equal(t, want, got, "PE %d reads back what it put", me)
		piece := make([]byte, 5)
		if err := post(ep, getDesc(ep, other, base+3, piece)); err != nil {
			return err
		}
		assert.Equal(t, want[3:8], piece)
		written[me] = want
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		// The target sees it in its own segment.
		assert.Equal(t, 0, ep.PollRemoteCQ(make([]conduit.Event, 4)), "puts without RemoteEvent raise no remote event")
		theirs := written[other]
		assert.Equal(t, theirs, ep.Segment()[1024*(other+1):1024*(other+1)+len(theirs)])
		return nil
	})
}

func TestLocalCQBatches(t *testing.T) {
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		descs := make([]*conduit.PostDesc, 7)
		for i := range descs {
			descs[i] = putDesc(ep, 1, int64(8*i), []byte{byte(i)})
			descs[i].Context = i
			if err := ep.Post(descs[i]); err != nil {
				return err
			}
		}
		evs := make([]conduit.Event, 3)
		var got []int
		for _, want := range []int{3, 3, 1, 0} {
			n := ep.PollLocalCQ(evs)
			assert.Equal(t, want, n)
			for _, ev := range evs[:n] {
				assert.Equal(t, conduit.StatusOK, ev.Status)
				assert.NoError(t, ev.Err())
				got = append(got, ev.Desc.Context.(int))
				assert.Same(t, descs[ev.Desc.Context.(int)], ev.Desc)
			}
		}
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, got, "completions in post order")
		assert.Equal(t, 0, ep.PollLocalCQ(nil))
		return nil
	})
}

func amoOps() []conduit.AMOOp {
	var ops []conduit.AMOOp
	for op := conduit.AMOOp(1); op.Valid(); op++ {
		ops = append(ops, op)
	}
	return ops
}

func TestAMOAllOps(t *testing.T) {
	ops := amoOps()
	require.Len(t, ops, 11)
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		rng := rand.New(rand.NewPCG(1, 2))
		word := make([]byte, 8)
		const base = 256
		const sentinel = uint32(0xa5a5_5a5a)
		checked := 0
		for _, width := range []uint8{4, 8} {
			for _, op := range ops {
				if op == conduit.AMOFAdd && width == 4 {
					continue
				}
				offs := []int64{0}
				if width == 4 {
					offs = []int64{0, 4}
				}
				for _, fetch := range []bool{false, true} {
					for _, sub := range offs {
						for trial := range 6 {
							old, operand, compare := rng.Uint64(), rng.Uint64(), rng.Uint64()
							switch {
							case op == conduit.AMOFAdd:
								old = math.Float64bits(rng.NormFloat64() * 1e3)
								operand = math.Float64bits(rng.NormFloat64() * 1e3)
							case trial%2 == 0:
								compare = old // CSwap succeeds
							case trial == 1:
								operand = old // min/max of equal values, and so on
							}
							if width == 4 {
								old, operand, compare = old&math.MaxUint32, operand&math.MaxUint32, compare&math.MaxUint32
							}
							// Set the enclosing word: the target half and a
							// sentinel beside it.
							if width == 8 {
								binary.NativeEndian.PutUint64(word, old)
							} else {
								binary.NativeEndian.PutUint32(word[sub:], uint32(old))
								binary.NativeEndian.PutUint32(word[4-sub:], sentinel)
							}
							if err := post(ep, putDesc(ep, 1, base, word)); err != nil {
								return err
							}
							d := &conduit.PostDesc{Type: conduit.AMO, Mech: conduit.FMA, Target: 1, Remote: ep.SegmentHandle(1),
								RemoteOffset: base + sub, AMO: op, Width: width, Fetch: fetch, Operand: operand, Compare: compare, Result: 12345}
							if err := post(ep, d); err != nil {
								return fmt.Errorf("%v width %d: %w", op, width, err)
							}
							if fetch {
								assert.Equal(t, old, d.Result, "%v/%d fetch returns the old value", op, width)
							}
							got := make([]byte, 8)
							if err := post(ep, getDesc(ep, 1, base, got)); err != nil {
								return err
							}
							want := conduit.AMOResult(op, width, old, operand, compare)
							if width == 8 {
								assert.Equal(t, want, binary.NativeEndian.Uint64(got), "%v/8 old %#x operand %#x compare %#x", op, old, operand, compare)
							} else {
								assert.Equal(t, want, uint64(binary.NativeEndian.Uint32(got[sub:])), "%v/4 at +%d old %#x operand %#x compare %#x", op, sub, old, operand, compare)
								assert.Equal(t, sentinel, binary.NativeEndian.Uint32(got[4-sub:]), "%v/4 at +%d leaves the neighbouring word alone", op, sub)
							}
							checked++
						}
					}
				}
			}
		}
		assert.Equal(t, (10*2+11)*2*6, checked)
		return nil
	})
}

// TestAMOContention: every PE adds to the same words of PE 0 at once; the
// totals are exact and fetched old values are all distinct.
func TestAMOContention(t *testing.T) {
	const pes, n = 4, 500
	var olds [pes][]uint64
	var seg0 []byte
	var b smptest.Barrier
	b.N = pes
	smptest.RunJob(t, jobConfig(pes), func(ep conduit.Endpoint) error {
		var gen int64
		if ep.Rank() == 0 {
			seg0 = ep.Segment()
		}
		for i := range n {
			for _, width := range []uint8{8, 4} {
				off := int64(64)
				if width == 4 {
					off = 76 // the high half of the word at 72
				}
				d := &conduit.PostDesc{Type: conduit.AMO, Target: 0, Remote: ep.SegmentHandle(0), RemoteOffset: off,
					AMO: conduit.AMOAdd, Width: width, Operand: 1, Fetch: width == 8}
				if err := post(ep, d); err != nil {
					return err
				}
				if width == 8 {
					olds[ep.Rank()] = append(olds[ep.Rank()], d.Result)
				}
			}
			f := &conduit.PostDesc{Type: conduit.AMO, Target: 0, Remote: ep.SegmentHandle(0), RemoteOffset: 80,
				AMO: conduit.AMOFAdd, Width: 8, Operand: math.Float64bits(0.5)}
			if err := post(ep, f); err != nil {
				return err
			}
			_ = i
		}
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		if ep.Rank() == 0 {
			seg0 = slices.Clone(seg0) // the job frees its segments when it ends
		}
		return nil
	})
	assert.EqualValues(t, pes*n, binary.NativeEndian.Uint64(seg0[64:]))
	assert.EqualValues(t, pes*n, binary.NativeEndian.Uint32(seg0[76:]))
	assert.Zero(t, binary.NativeEndian.Uint32(seg0[72:]), "the other half of the word")
	assert.Equal(t, float64(pes*n)/2, math.Float64frombits(binary.NativeEndian.Uint64(seg0[80:])))
	seen := make(map[uint64]bool)
	for _, o := range olds {
		for _, v := range o {
			assert.False(t, seen[v], "old value %d fetched twice", v)
			seen[v] = true
		}
	}
	assert.Len(t, seen, pes*n)
}

func TestRemoteEvents(t *testing.T) {
	var b smptest.Barrier
	b.N = 2
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		var gen int64
		if ep.Rank() == 0 {
			for i := range 5 {
				d := putDesc(ep, 1, int64(8*i), []byte{1, 2, 3, byte(i)})
				d.RemoteEvent = i != 2 // one put without an event
				d.RemoteData = 0xdead0000 + uint64(i)
				if err := post(ep, d); err != nil {
					return err
				}
			}
			// A get asks in vain: only puts raise remote events.
			g := getDesc(ep, 1, 0, make([]byte, 8))
			g.RemoteEvent, g.RemoteData = true, 99
			if err := post(ep, g); err != nil {
				return err
			}
			assert.Equal(t, 0, ep.PollRemoteCQ(make([]conduit.Event, 8)), "the initiator gets no remote events")
			return b.Wait(ep, &gen)
		}
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		evs := make([]conduit.Event, 3)
		var got []uint64
		for _, want := range []int{3, 1, 0} {
			n := ep.PollRemoteCQ(evs)
			assert.Equal(t, want, n)
			for _, ev := range evs[:n] {
				assert.Equal(t, 0, ev.Source)
				assert.Nil(t, ev.Desc)
				assert.Equal(t, conduit.StatusOK, ev.Status)
				got = append(got, ev.Data)
				// The data is there when the event is.
				i := int(ev.Data - 0xdead0000)
				assert.Equal(t, []byte{1, 2, 3, byte(i)}, ep.Segment()[8*i:8*i+4])
			}
		}
		assert.Equal(t, []uint64{0xdead0000, 0xdead0001, 0xdead0003, 0xdead0004}, got)
		return nil
	})
}

func TestBadDescriptors(t *testing.T) {
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		seg1 := ep.SegmentHandle(1)
		amo := func(mod func(d *conduit.PostDesc)) *conduit.PostDesc {
			d := &conduit.PostDesc{Type: conduit.AMO, Mech: conduit.FMA, Target: 1, Remote: seg1, RemoteOffset: 16,
				AMO: conduit.AMOAdd, Width: 8, Operand: 1}
			mod(d)
			return d
		}
		put := func(mod func(d *conduit.PostDesc)) *conduit.PostDesc {
			d := putDesc(ep, 1, 16, make([]byte, 8))
			mod(d)
			return d
		}
		cases := []struct {
			name string
			d    *conduit.PostDesc
			want string
		}{
			{"nil", nil, "nil descriptor"},
			{"target negative", put(func(d *conduit.PostDesc) { d.Target = -1 }), "target PE -1 outside the job [0,2)"},
			{"target too large", put(func(d *conduit.PostDesc) { d.Target = 2 }), "target PE 2 outside the job [0,2)"},
			{"invalid handle", put(func(d *conduit.PostDesc) { d.Remote = conduit.MemHandle{} }), "invalid remote memory handle"},
			{"foreign handle", put(func(d *conduit.PostDesc) { d.Remote = ep.SegmentHandle(0) }), "belongs to PE 0"},
			{"range beyond handle", put(func(d *conduit.PostDesc) { d.RemoteOffset = 1<<16 - 4 }), "outside the 65536-byte region"},
			{"negative offset", put(func(d *conduit.PostDesc) { d.RemoteOffset = -8 }), "remote range [-8,+8)"},
			{"empty put", put(func(d *conduit.PostDesc) { d.Local = nil }), "empty transfer"},
			{"empty get", put(func(d *conduit.PostDesc) { d.Type, d.Local = conduit.Get, []byte{} }), "empty transfer"},
			{"bad mechanism", put(func(d *conduit.PostDesc) { d.Mech = 0 }), "bad mechanism"},
			{"bad ordering", put(func(d *conduit.PostDesc) { d.Order = 9 }), "bad ordering mode"},
			{"bad type", put(func(d *conduit.PostDesc) { d.Type = 0 }), "bad type"},
			{"misaligned amo 8", amo(func(d *conduit.PostDesc) { d.RemoteOffset = 12 }), "offset 12 not aligned to 8 bytes"},
			{"misaligned amo 4", amo(func(d *conduit.PostDesc) { d.Width, d.RemoteOffset = 4, 18 }), "offset 18 not aligned to 4 bytes"},
			{"amo width 2", amo(func(d *conduit.PostDesc) { d.Width = 2 }), "width 2 (want 4 or 8)"},
			{"amo width 0", amo(func(d *conduit.PostDesc) { d.Width = 0 }), "width 0"},
			{"fadd width 4", amo(func(d *conduit.PostDesc) { d.AMO, d.Width = conduit.AMOFAdd, 4 }), "float64 add is 8 bytes"},
			{"amo op 0", amo(func(d *conduit.PostDesc) { d.AMO = 0 }), "bad operation"},
			{"amo op too large", amo(func(d *conduit.PostDesc) { d.AMO = 12 }), "bad operation"},
			{"amo beyond handle", amo(func(d *conduit.PostDesc) { d.RemoteOffset = 1 << 16 }), "outside the 65536-byte region"},
		}
		for _, c := range cases {
			err := ep.Post(c.d)
			if assert.Error(t, err, c.name) {
				assert.Contains(t, err.Error(), c.want, c.name)
				assert.Contains(t, err.Error(), "smp: PE 0", c.name)
			}
		}
		assert.Equal(t, 0, ep.PollLocalCQ(make([]conduit.Event, 4)), "a rejected post completes nothing")
		// The descriptor at the end of the region and an AMO at the last
		// word are fine.
		if err := post(ep, put(func(d *conduit.PostDesc) { d.RemoteOffset = 1<<16 - 8 })); err != nil {
			return err
		}
		return post(ep, amo(func(d *conduit.PostDesc) { d.RemoteOffset = 1<<16 - 8 }))
	})
}

func TestRegistration(t *testing.T) {
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		me := int32(ep.Rank())
		seg := ep.Segment()
		h, ok := ep.Registered(seg[100:200])
		assert.True(t, ok)
		assert.Equal(t, ep.SegmentHandle(ep.Rank()), h, "segment memory is registered at start-up")
		_, ok = ep.Registered(seg[:0])
		assert.False(t, ok, "an empty buffer is in no registration")

		backing := make([]byte, 200)
		_, ok = ep.Registered(backing)
		assert.False(t, ok)
		_, err := ep.Register(nil)
		assert.ErrorContains(t, err, "empty")
		_, err = ep.Register(backing[5:5])
		assert.Error(t, err)

		r1, err := ep.Register(backing[40:120])
		if err != nil {
			return err
		}
		assert.True(t, r1.Valid())
		assert.Equal(t, me, r1.Owner)
		assert.NotEqual(t, conduit.SegmentID, r1.ID)
		assert.EqualValues(t, 80, r1.Bytes)
		r2, err := ep.Register(backing[150:160])
		if err != nil {
			return err
		}
		assert.NotEqual(t, r1.ID, r2.ID)

		for _, c := range []struct {
			lo, hi int
			want   conduit.MemHandle
			ok     bool
		}{
			{40, 120, r1, true},
			{60, 70, r1, true},
			{119, 120, r1, true},
			{39, 60, conduit.MemHandle{}, false},
			{100, 121, conduit.MemHandle{}, false},
			{0, 200, conduit.MemHandle{}, false},
			{150, 160, r2, true},
			{120, 150, conduit.MemHandle{}, false},
		} {
			h, ok := ep.Registered(backing[c.lo:c.hi])
			assert.Equal(t, c.ok, ok, "[%d,%d)", c.lo, c.hi)
			assert.Equal(t, c.want, h, "[%d,%d)", c.lo, c.hi)
		}

		// Deregistration.
		err = ep.Deregister(ep.SegmentHandle(ep.Rank()))
		assert.Error(t, err, "the segment cannot be deregistered")
		err = ep.Deregister(ep.SegmentHandle(1 - ep.Rank()))
		assert.Error(t, err, "another PE's handle")
		other := r1
		other.Owner = 1 - me
		assert.Error(t, ep.Deregister(other), "another PE's handle with a local ID")
		unknown := conduit.MemHandle{Owner: me, ID: 777, Bytes: 8}
		err = ep.Deregister(unknown)
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "unknown handle 777")
		}
		assert.NoError(t, ep.Deregister(r1))
		_, ok = ep.Registered(backing[60:70])
		assert.False(t, ok, "deregistered")
		assert.Error(t, ep.Deregister(r1), "second Deregister")
		h, ok = ep.Registered(backing[150:160])
		assert.True(t, ok)
		assert.Equal(t, r2, h, "the other registration survives")
		assert.NoError(t, ep.Deregister(r2))
		_, ok = ep.Registered(seg)
		assert.True(t, ok)
		r3, err := ep.Register(backing)
		if err != nil {
			return err
		}
		assert.NotContains(t, []uint32{conduit.SegmentID, r1.ID, r2.ID}, r3.ID, "IDs are not reused")
		return ep.Deregister(r3)
	})
}

// TestRemoteRegistration: a PE puts into a peer's registered buffer named
// by the handle it was sent; once the peer deregisters it, the put fails at
// the target and the event says so.
func TestRemoteRegistration(t *testing.T) {
	var b smptest.Barrier
	b.N = 2
	var handle atomic.Pointer[conduit.MemHandle]
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		var gen int64
		if ep.Rank() == 1 {
			buf := make([]byte, 64)
			h, err := ep.Register(buf[8:40])
			if err != nil {
				return err
			}
			handle.Store(&h)
			if err := b.Wait(ep, &gen); err != nil { // 1: handle published
				return err
			}
			if err := b.Wait(ep, &gen); err != nil { // 2: PE 0 has put
				return err
			}
			assert.Equal(t, []byte("hello"), buf[8+4:8+9])
			assert.Equal(t, make([]byte, 8), buf[:8], "nothing outside the registration")
			if err := ep.Deregister(h); err != nil {
				return err
			}
			return b.Wait(ep, &gen) // 3: deregistered
		}
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		h := *handle.Load()
		assert.EqualValues(t, 32, h.Bytes)
		d := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 1, Local: []byte("hello"), Remote: h, RemoteOffset: 4}
		if err := post(ep, d); err != nil {
			return err
		}
		// Past the end of the handle: rejected at Post.
		d2 := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 1, Local: []byte("hello"), Remote: h, RemoteOffset: 28}
		assert.ErrorContains(t, ep.Post(d2), "outside the 32-byte region")
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		d3 := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 1, Local: []byte("again"), Remote: h, RemoteOffset: 4}
		assert.NoError(t, ep.Post(d3), "the initiator cannot know the handle is gone")
		ev, err := nextEvent(ep)
		if err != nil {
			return err
		}
		assert.Same(t, d3, ev.Desc)
		assert.Equal(t, conduit.StatusError, ev.Status)
		assert.Contains(t, ev.Detail, fmt.Sprintf("no registration %d", h.ID))
		assert.ErrorContains(t, ev.Err(), "completion error")
		// A forged handle longer than the registration fails at the target.
		forged := conduit.MemHandle{Owner: 1, ID: conduit.SegmentID, Bytes: 1 << 20}
		d4 := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 1, Local: make([]byte, 8), Remote: forged, RemoteOffset: 1 << 16}
		assert.NoError(t, ep.Post(d4))
		ev, err = nextEvent(ep)
		if err != nil {
			return err
		}
		assert.Equal(t, conduit.StatusError, ev.Status)
		assert.Contains(t, ev.Detail, "beyond PE 1's 65536-byte registration")
		return nil
	})
}

// TestMisalignedRegistrationAMO: an AMO at an aligned offset of a
// registration that starts at an odd address is found misaligned at the
// target.
func TestMisalignedRegistrationAMO(t *testing.T) {
	smptest.RunJob(t, jobConfig(1), func(ep conduit.Endpoint) error {
		buf := make([]byte, 32)
		h, err := ep.Register(buf[1:17])
		if err != nil {
			return err
		}
		d := &conduit.PostDesc{Type: conduit.AMO, Target: 0, Remote: h, RemoteOffset: 8, AMO: conduit.AMOAdd, Width: 8, Operand: 1}
		assert.NoError(t, ep.Post(d))
		ev, err := nextEvent(ep)
		if err != nil {
			return err
		}
		assert.Equal(t, conduit.StatusError, ev.Status)
		assert.Contains(t, ev.Detail, "misaligned")
		assert.Equal(t, make([]byte, 32), buf, "nothing written")
		return ep.Deregister(h)
	})
}

func TestRequireRegisteredLocal(t *testing.T) {
	cfg := jobConfig(2)
	cfg.RequireRegisteredLocal = true
	smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		assert.True(t, ep.Caps().NeedsRegisteredLocal)
		buf := make([]byte, 64)
		for i := range buf {
			buf[i] = byte(i)
		}
		// Unregistered: refused, for puts and gets alike.
		for _, typ := range []conduit.PostType{conduit.Put, conduit.Get} {
			d := putDesc(ep, 1, 0, buf[:16])
			d.Type = typ
			err := ep.Post(d)
			if assert.Error(t, err, "%v from unregistered memory", typ) {
				assert.Contains(t, err.Error(), "not inside registration")
				assert.Contains(t, err.Error(), typ.String())
			}
		}
		h, err := ep.Register(buf[8:40])
		if err != nil {
			return err
		}
		// Registered, but LocalMem not given, or naming the wrong region,
		// or the buffer reaching beyond it: refused.
		for name, mod := range map[string]func(d *conduit.PostDesc){
			"no LocalMem":     func(d *conduit.PostDesc) {},
			"segment handle":  func(d *conduit.PostDesc) { d.LocalMem = ep.SegmentHandle(0) },
			"beyond":          func(d *conduit.PostDesc) { d.LocalMem, d.Local = h, buf[30:50] },
			"peer's handle":   func(d *conduit.PostDesc) { d.LocalMem = h; d.LocalMem.Owner = 1 },
			"unknown handle":  func(d *conduit.PostDesc) { d.LocalMem = h; d.LocalMem.ID = 99 },
			"before the area": func(d *conduit.PostDesc) { d.LocalMem, d.Local = h, buf[0:16] },
		} {
			d := putDesc(ep, 1, 0, buf[8:24])
			mod(d)
			assert.ErrorContains(t, ep.Post(d), "not inside registration", name)
		}
		assert.Equal(t, 0, ep.PollLocalCQ(make([]conduit.Event, 4)))
		// Registered: accepted.
		d := putDesc(ep, 1, 0, buf[8:24])
		d.LocalMem = h
		if err := post(ep, d); err != nil {
			return err
		}
		back := make([]byte, 64)
		g := getDesc(ep, 1, 0, back[:16])
		hb, err := ep.Register(back)
		if err != nil {
			return err
		}
		g.LocalMem = hb
		if err := post(ep, g); err != nil {
			return err
		}
		assert.Equal(t, buf[8:24], back[:16])
		// Segment memory is registered.
		s := getDesc(ep, 1, 0, ep.Segment()[128:144])
		s.LocalMem = ep.SegmentHandle(0)
		if err := post(ep, s); err != nil {
			return err
		}
		assert.Equal(t, buf[8:24], ep.Segment()[128:144])
		// AMOs have no local buffer.
		a := &conduit.PostDesc{Type: conduit.AMO, Target: 1, Remote: ep.SegmentHandle(1), RemoteOffset: 0, AMO: conduit.AMOOr, Width: 8, Fetch: true}
		if err := post(ep, a); err != nil {
			return err
		}
		assert.Equal(t, binary.NativeEndian.Uint64(buf[8:]), a.Result)
		// A deregistered buffer is refused again.
		if err := ep.Deregister(h); err != nil {
			return err
		}
		d = putDesc(ep, 1, 0, buf[8:24])
		d.LocalMem = h
		assert.ErrorContains(t, ep.Post(d), "not inside registration")
		return ep.Deregister(hb)
	})
}

// sendRetry sends, polling nothing, until the mailbox has room.
func sendRetry(ep conduit.Endpoint, target int, hdr, pay []byte) error {
	return ep.WaitFor("mailbox space", smptest.WaitFunc(func() (bool, error) {
		err := ep.SendMessage(target, hdr, pay)
		if errors.Is(err, conduit.ErrMailboxFull) {
			return false, nil
		}
		return true, err
	}))
}

func TestMessagesInOrderExact(t *testing.T) {
	const n = 200
	mk := func(i int) (hdr, pay []byte) {
		hdr = make([]byte, i%(smp.MaxHeaderBytes+1))
		for j := range hdr {
			hdr[j] = byte(i + 3*j)
		}
		if i%5 != 0 {
			pay = make([]byte, (i*37)%(smp.MaxPayloadBytes+1))
			for j := range pay {
				pay[j] = byte(i ^ j)
			}
		}
		if i == n-1 {
			hdr, pay = make([]byte, smp.MaxHeaderBytes), make([]byte, smp.MaxPayloadBytes)
			pay[len(pay)-1] = 0xee
		}
		return hdr, pay
	}
	exchangeMessages(t, n, mk)
}

// exchangeMessages has PE 1 send PE 0 the n messages mk makes, in order,
// and PE 0 check that each arrives whole and in order.
func exchangeMessages(t *testing.T, n int, mk func(i int) (hdr, pay []byte)) {
	t.Helper()
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			for i := range n {
				hdr, pay := mk(i)
				if err := sendRetry(ep, 0, hdr, pay); err != nil {
					return err
				}
				// The message was copied: changing the buffers does not
				// change it.
				for j := range hdr {
					hdr[j] = 0xff
				}
				for j := range pay {
					pay[j] = 0xff
				}
			}
			return nil
		}
		msgs := make([]conduit.Message, 7)
		next := 0
		err := ep.WaitFor(fmt.Sprintf("%d messages", n), smptest.WaitFunc(func() (bool, error) {
			k := ep.PollMessages(msgs)
			for _, m := range msgs[:k] {
				hdr, pay := mk(next)
				assert.Equal(t, 1, m.Source)
				assert.Equal(t, hdr, m.Header, "message %d header", next)
				if !assert.Equal(t, len(pay), len(m.Payload), "message %d payload length", next) || string(pay) != string(m.Payload) {
					assert.Fail(t, "payload differs", "message %d", next)
				}
				next++
			}
			return next == n, nil
		}))
		assert.Equal(t, 0, ep.PollMessages(msgs))
		return err
	})
}

func TestMessageToSelf(t *testing.T) {
	smptest.RunJob(t, jobConfig(1), func(ep conduit.Endpoint) error {
		if err := ep.SendMessage(0, []byte("hdr"), []byte("payload")); err != nil {
			return err
		}
		msgs := make([]conduit.Message, 2)
		assert.Equal(t, 1, ep.PollMessages(msgs))
		assert.Equal(t, conduit.Message{Source: 0, Header: []byte("hdr"), Payload: []byte("payload")}, msgs[0])
		return nil
	})
}

func TestMessageLimits(t *testing.T) {
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		for _, c := range []struct {
			target   int
			hdr, pay int
			want     string
		}{
			{1, smp.MaxHeaderBytes + 1, 0, "exceeds"},
			{1, 0, smp.MaxPayloadBytes + 1, "exceeds"},
			{1, smp.MaxHeaderBytes + 1, smp.MaxPayloadBytes + 1, "exceeds"},
			{2, 8, 0, "outside the job"},
			{-1, 8, 0, "outside the job"},
		} {
			err := ep.SendMessage(c.target, make([]byte, c.hdr), make([]byte, c.pay))
			if assert.Error(t, err, "%+v", c) {
				assert.Contains(t, err.Error(), c.want)
				assert.NotErrorIs(t, err, conduit.ErrMailboxFull)
			}
		}
		// At the limits exactly: fine.
		return ep.SendMessage(1, make([]byte, smp.MaxHeaderBytes), make([]byte, smp.MaxPayloadBytes))
	})
}

// TestMailboxFull: a sender may have MailboxSlots messages unreleased; the
// receiver releases a batch's slots at its next poll.
func TestMailboxFull(t *testing.T) {
	for _, slots := range []int{1, 2, 8, 64} {
		t.Run(fmt.Sprint(slots), func(t *testing.T) { testMailboxFull(t, slots) })
	}
}

// TestMailboxCapacityNotPowerOfTwo: JobConfig.MailboxSlots "is the number of
// messages each per-peer mailbox holds", also when it is not a power of two
// (the runtime asks for 4*NetworkDepth, 48 by default).
func TestMailboxCapacityNotPowerOfTwo(t *testing.T) {
	for _, slots := range []int{3, 48} {
		t.Run(fmt.Sprint(slots), func(t *testing.T) { testMailboxFull(t, slots) })
	}
}

func testMailboxFull(t *testing.T, slots int) {
	cfg := jobConfig(2)
	cfg.MailboxSlots = slots
	var phase atomic.Int64
	waitPhase := func(ep conduit.Endpoint, p int64) error {
		return ep.WaitFor(fmt.Sprintf("phase %d", p), smptest.WaitFunc(func() (bool, error) { return phase.Load() >= p, nil }))
	}
	smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			hdr := make([]byte, 8)
			fill := func(round int) {
				for i := range slots {
					binary.LittleEndian.PutUint64(hdr, uint64(round*1000+i))
					assert.NoError(t, ep.SendMessage(0, hdr, []byte{byte(i)}), "message %d of %d", i, slots)
				}
				err := ep.SendMessage(0, hdr, nil)
				assert.ErrorIs(t, err, conduit.ErrMailboxFull, "message %d with %d slots", slots+1, slots)
			}
			fill(0)
			phase.Store(1)
			if err := waitPhase(ep, 2); err != nil { // the receiver polled once
				return err
			}
			assert.ErrorIs(t, ep.SendMessage(0, hdr, nil), conduit.ErrMailboxFull, "slots are released one poll later")
			phase.Store(3)
			if err := waitPhase(ep, 4); err != nil { // the receiver polled again
				return err
			}
			fill(1)
			phase.Store(5)
			return nil
		}
		msgs := make([]conduit.Message, slots+4)
		check := func(round int) {
			n := ep.PollMessages(msgs)
			assert.Equal(t, slots, n)
			for i, m := range msgs[:n] {
				assert.EqualValues(t, round*1000+i, binary.LittleEndian.Uint64(m.Header))
				assert.Equal(t, []byte{byte(i)}, m.Payload)
			}
		}
		if err := waitPhase(ep, 1); err != nil {
			return err
		}
		check(0)
		phase.Store(2)
		if err := waitPhase(ep, 3); err != nil {
			return err
		}
		assert.Equal(t, 0, ep.PollMessages(msgs), "the refused message was not queued")
		phase.Store(4)
		if err := waitPhase(ep, 5); err != nil {
			return err
		}
		check(1)
		return nil
	})
}

// TestPollMessagesBursts: one PollMessages call takes at most len(msgs)
// messages and serves at most PeerBurst senders.
func TestPollMessagesBursts(t *testing.T) {
	const pes, perSender, peerBurst = 9, 3, 2
	cfg := jobConfig(pes)
	cfg.PeerBurst = peerBurst
	var sent atomic.Int64
	var b smptest.Barrier
	b.N = pes
	smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
		var gen int64
		if ep.Rank() != 0 {
			for i := range perSender {
				if err := ep.SendMessage(0, []byte{byte(ep.Rank()), byte(i)}, nil); err != nil {
					return err
				}
			}
			sent.Add(1)
			return b.Wait(ep, &gen)
		}
		if err := ep.WaitFor("all senders", smptest.WaitFunc(func() (bool, error) { return sent.Load() == pes-1, nil })); err != nil {
			return err
		}
		next := make(map[int]int)
		check := func(msgs []conduit.Message, n int) map[int]bool {
			srcs := make(map[int]bool)
			for _, m := range msgs[:n] {
				srcs[m.Source] = true
				assert.Equal(t, []byte{byte(m.Source), byte(next[m.Source])}, m.Header, "in order per sender")
				next[m.Source]++
			}
			return srcs
		}
		// len(msgs) bounds a call: 2 messages, both from one sender.
		small := make([]conduit.Message, 2)
		n := ep.PollMessages(small)
		assert.Equal(t, 2, n)
		assert.Len(t, check(small, n), 1)
		total := n
		big := make([]conduit.Message, 100)
		for range 20 {
			n := ep.PollMessages(big)
			srcs := check(big, n)
			assert.LessOrEqual(t, len(srcs), peerBurst, "one poll serves at most PeerBurst senders")
			if n > 0 {
				assert.NotEmpty(t, srcs)
			}
			total += n
			if total == (pes-1)*perSender {
				break
			}
		}
		assert.Equal(t, (pes-1)*perSender, total)
		for r := 1; r < pes; r++ {
			assert.Equal(t, perSender, next[r], "PE %d", r)
		}
		return b.Wait(ep, &gen)
	})
}

// TestMessageStress: every PE sends to every PE (itself included) at once,
// with random lengths; receivers check each sender's sequence and bytes.
func TestMessageStress(t *testing.T) {
	const pes = 6
	perPair := 1500
	if testing.Short() {
		perPair = 200
	}
	cfg := jobConfig(pes)
	cfg.MailboxSlots = 8
	cfg.PeerBurst = 3
	content := func(src, dst, seq int) (hdr, pay []byte) {
		r := rand.New(rand.NewPCG(uint64(src*pes+dst), uint64(seq)))
		hdr = make([]byte, 8+r.IntN(smp.MaxHeaderBytes-7))
		binary.LittleEndian.PutUint64(hdr, uint64(seq))
		for i := 8; i < len(hdr); i++ {
			hdr[i] = byte(r.Uint32())
		}
		n := r.IntN(300)
		if r.IntN(50) == 0 {
			n = smp.MaxPayloadBytes - r.IntN(100)
		}
		pay = make([]byte, n)
		for i := range pay {
			pay[i] = byte(r.Uint32())
		}
		return hdr, pay
	}
	var received [pes]atomic.Int64
	smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
		me := ep.Rank()
		nextSend := make([]int, pes)
		nextRecv := make([]int, pes)
		got := 0
		msgs := make([]conduit.Message, 16)
		var bad error
		err := ep.WaitFor("the stress traffic", smptest.WaitFunc(func() (bool, error) {
			// Send a few to every target that has room.
			for d := range pes {
				dst := (me + 1 + d) % pes
				for k := 0; k < 4 && nextSend[dst] < perPair; k++ {
					hdr, pay := content(me, dst, nextSend[dst])
					err := ep.SendMessage(dst, hdr, pay)
					if errors.Is(err, conduit.ErrMailboxFull) {
						break
					}
					if err != nil {
						return false, err
					}
					nextSend[dst]++
				}
			}
			n := ep.PollMessages(msgs)
			for _, m := range msgs[:n] {
				src := m.Source
				hdr, pay := content(src, me, nextRecv[src])
				if string(hdr) != string(m.Header) || string(pay) != string(m.Payload) {
					seq := uint64(math.MaxUint64)
					if len(m.Header) >= 8 {
						seq = binary.LittleEndian.Uint64(m.Header)
					}
					if bad == nil {
						bad = fmt.Errorf("PE %d: message from PE %d: got sequence %d (%d+%d bytes), want %d (%d+%d bytes)",
							me, src, seq, len(m.Header), len(m.Payload), nextRecv[src], len(hdr), len(pay))
					}
				}
				nextRecv[src]++
				got++
			}
			if bad != nil {
				return false, bad
			}
			sentAll := true
			for _, s := range nextSend {
				sentAll = sentAll && s == perPair
			}
			return sentAll && got == pes*perPair, nil
		}))
		received[me].Store(int64(got))
		return err
	})
	for r := range pes {
		assert.EqualValues(t, pes*perPair, received[r].Load(), "PE %d", r)
	}
}

func TestDoneAllDone(t *testing.T) {
	var released atomic.Bool
	var sawAllDone atomic.Int64
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		if ep.Rank() == 0 {
			assert.False(t, ep.AllDone())
			ep.Done()
			ep.Done() // idempotent: must not count twice
			assert.False(t, ep.AllDone(), "PE 1 is still running")
			released.Store(true)
		} else {
			if err := ep.WaitFor("release", smptest.WaitFunc(func() (bool, error) { return released.Load(), nil })); err != nil {
				return err
			}
			assert.False(t, ep.AllDone())
			ep.Done()
		}
		err := ep.WaitFor("every PE to finish", smptest.WaitFunc(func() (bool, error) { return ep.AllDone(), nil }))
		if err == nil {
			sawAllDone.Add(1)
		}
		return err
	})
	assert.EqualValues(t, 2, sawAllDone.Load())
}

func TestWaitForReturnsWaiterError(t *testing.T) {
	boom := errors.New("waiter failed")
	smptest.RunJob(t, jobConfig(1), func(ep conduit.Endpoint) error {
		polls := 0
		err := ep.WaitFor("a failing waiter", smptest.WaitFunc(func() (bool, error) {
			polls++
			if polls == 10 {
				return false, boom
			}
			return false, nil
		}))
		assert.ErrorIs(t, err, boom)
		assert.Equal(t, 10, polls)
		assert.NoError(t, ep.WaitFor("a ready waiter", smptest.WaitFunc(func() (bool, error) { return true, nil })))
		return nil
	})
}

// TestJobAbort: the first real error is what Run returns; the other PEs'
// waits fail with ErrJobAborted.
func TestJobAbort(t *testing.T) {
	boom := errors.New("boom")
	job, err := smp.Open(jobConfig(4))
	require.NoError(t, err)
	var aborted [4]error
	err = job.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() == 2 {
			return boom
		}
		werr := ep.WaitFor("something that never happens", smptest.WaitFunc(func() (bool, error) { return false, nil }))
		aborted[ep.Rank()] = werr
		assert.ErrorIs(t, ep.Err(), conduit.ErrJobAborted, "Err reports the abort")
		return werr
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, conduit.ErrJobAborted, "Run returns the root cause, not an echo of the abort")
	for _, r := range []int{0, 1, 3} {
		if assert.Error(t, aborted[r], "PE %d", r) {
			assert.ErrorIs(t, aborted[r], conduit.ErrJobAborted, "PE %d", r)
			assert.Contains(t, aborted[r].Error(), "PE 2 failed: boom")
		}
	}
}

// TestFirstFailureWins: Run returns the failure that happened first, not
// the lowest rank's.
func TestFirstFailureWins(t *testing.T) {
	first, late := errors.New("first"), errors.New("late")
	job, err := smp.Open(jobConfig(3))
	require.NoError(t, err)
	err = job.Run(func(ep conduit.Endpoint) error {
		switch ep.Rank() {
		case 2:
			return first
		case 1:
			werr := ep.WaitFor("the abort", smptest.WaitFunc(func() (bool, error) { return false, nil }))
			assert.ErrorIs(t, werr, conduit.ErrJobAborted)
			return late // a failure of its own, after the first
		}
		return nil
	})
	assert.ErrorIs(t, err, first)
	assert.NotErrorIs(t, err, late)
}

func TestErrWhileRunning(t *testing.T) {
	var b smptest.Barrier
	b.N = 2
	smptest.RunJob(t, jobConfig(2), func(ep conduit.Endpoint) error {
		var gen int64
		assert.NoError(t, ep.Err())
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		assert.NoError(t, ep.Err(), "a running job has no error")
		return nil
	})
}

func TestJobAbortEchoOnly(t *testing.T) {
	// A PE that itself returns an error wrapping ErrJobAborted (without a
	// root cause elsewhere) still makes Run fail.
	job, err := smp.Open(jobConfig(2))
	require.NoError(t, err)
	err = job.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			return fmt.Errorf("gave up: %w", conduit.ErrJobAborted)
		}
		return nil
	})
	assert.ErrorIs(t, err, conduit.ErrJobAborted)
}

func TestDeadlockDetection(t *testing.T) {
	never := smptest.WaitFunc(func() (bool, error) { return false, nil })
	t.Run("all waiting", func(t *testing.T) {
		cfg := jobConfig(3)
		cfg.StallTimeout = 100 * time.Millisecond
		job, err := smp.Open(cfg)
		require.NoError(t, err)
		start := time.Now()
		err = job.Run(func(ep conduit.Endpoint) error {
			werr := ep.WaitFor(fmt.Sprintf("the impossible %d", ep.Rank()), never)
			var dl *conduit.DeadlockError
			assert.ErrorAs(t, werr, &dl, "PE %d's wait", ep.Rank())
			assert.ErrorAs(t, ep.Err(), &dl, "PE %d's Err", ep.Rank())
			return werr
		})
		var dl *conduit.DeadlockError
		require.ErrorAs(t, err, &dl)
		assert.Equal(t, map[int]string{0: "the impossible 0", 1: "the impossible 1", 2: "the impossible 2"}, dl.Waiting)
		assert.Empty(t, dl.Finished)
		assert.Positive(t, dl.At)
		assert.Contains(t, err.Error(), "PE 1 waits for the impossible 1")
		assert.Less(t, time.Since(start), 5*time.Second)
	})
	t.Run("some finished", func(t *testing.T) {
		cfg := jobConfig(4)
		cfg.StallTimeout = 100 * time.Millisecond
		job, err := smp.Open(cfg)
		require.NoError(t, err)
		err = job.Run(func(ep conduit.Endpoint) error {
			if ep.Rank()%2 == 1 {
				return nil
			}
			return ep.WaitFor(fmt.Sprintf("a message from PE %d", ep.Rank()+1), never)
		})
		var dl *conduit.DeadlockError
		require.ErrorAs(t, err, &dl)
		assert.Equal(t, map[int]string{0: "a message from PE 1", 2: "a message from PE 3"}, dl.Waiting)
		assert.Equal(t, []int{1, 3}, dl.Finished)
	})
	t.Run("slow progress is not a deadlock", func(t *testing.T) {
		// PE 1 works (not waiting) for longer than the stall timeout
		// before releasing PE 0: no deadlock.
		cfg := jobConfig(2)
		cfg.StallTimeout = 50 * time.Millisecond
		var release atomic.Bool
		smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
			if ep.Rank() == 1 {
				time.Sleep(200 * time.Millisecond)
				release.Store(true)
				return nil
			}
			return ep.WaitFor("release", smptest.WaitFunc(func() (bool, error) { return release.Load(), nil }))
		})
	})
}

func TestWallTimeLimit(t *testing.T) {
	t.Run("ends a runaway job", func(t *testing.T) {
		cfg := jobConfig(3)
		cfg.WallTimeLimit = 200 * time.Millisecond
		job, err := smp.Open(cfg)
		require.NoError(t, err)
		var waitErr, computeErr error
		start := time.Now()
		err = job.Run(func(ep conduit.Endpoint) error {
			switch ep.Rank() {
			case 0:
				waitErr = ep.WaitFor("a message nobody sends", smptest.WaitFunc(func() (bool, error) { return false, nil }))
				return waitErr
			case 1:
				// Computing, not waiting; Err is how it learns of the end.
				for ep.Err() == nil {
				}
				computeErr = ep.Err()
				return computeErr
			}
			return nil
		})
		elapsed := time.Since(start)
		var le *conduit.LimitError
		require.ErrorAs(t, err, &le)
		assert.Equal(t, "wall-clock time limit", le.Limit)
		assert.Equal(t, "200ms", le.Value)
		assert.Equal(t, map[int]string{0: "waiting for a message nobody sends", 1: "computing (not in a runtime call)"}, le.Doing)
		assert.Equal(t, []int{2}, le.Finished)
		assert.GreaterOrEqual(t, le.At, conduit.FromDuration(200*time.Millisecond))
		assert.GreaterOrEqual(t, elapsed, 200*time.Millisecond)
		assert.Contains(t, err.Error(), "PE 0 is waiting for a message nobody sends;")
		assert.Contains(t, err.Error(), "PE 1 is computing (not in a runtime call);")
		for r, e := range []error{waitErr, computeErr} {
			var pe *conduit.LimitError
			assert.ErrorAs(t, e, &pe, "PE %d", r)
		}
	})
	t.Run("a job within its limit", func(t *testing.T) {
		cfg := jobConfig(2)
		cfg.WallTimeLimit = time.Minute
		var b smptest.Barrier
		b.N = 2
		smptest.RunJob(t, cfg, func(ep conduit.Endpoint) error {
			var gen int64
			for range 100 {
				if err := b.Wait(ep, &gen); err != nil {
					return err
				}
			}
			return ep.Err()
		})
	})
}

// TestMessageInlineBoundary sends messages whose header and payload just
// fit a mailbox slot (the payload travels inline) and just do not (it
// travels in the slot's payload buffer), alternating through the same
// slots, and checks every one whole.
func TestMessageInlineBoundary(t *testing.T) {
	const hdrBytes = 40
	mk := func(i int) (hdr, pay []byte) {
		hdr, pay = make([]byte, hdrBytes), make([]byte, smp.MaxHeaderBytes-hdrBytes+i%2)
		for j := range hdr {
			hdr[j] = byte(i + j)
		}
		for j := range pay {
			pay[j] = byte(3*i + j)
		}
		return hdr, pay
	}
	exchangeMessages(t, 150, mk) // the ring (64 slots) wraps twice
}
