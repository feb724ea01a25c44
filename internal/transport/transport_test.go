package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/smp"
	"github.com/gopgas/gopgas/conduit/smp/smptest"
)

// TestMain fails the package's tests if a job leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Inside a PE's goroutine the tests use assert (safe from any goroutine)
// and return errors; require only on the test's goroutine.

func testSettings() Settings {
	return Settings{NumPD: 8, BounceBytes: 4 * 1024, BounceCutover: 1024, PDBounceBytes: 64,
		FMACutover: 256, ChunkBytes: 4096, PollBurst: 10, Direct: false}
}

func jobConfig(pes int, needReg bool) conduit.JobConfig {
	return conduit.JobConfig{PEs: pes, SegmentBytes: 1 << 16, Ordering: conduit.OrderDefault,
		MailboxSlots: 48, PeerBurst: 4, RequireRegisteredLocal: needReg, StallTimeout: 5 * time.Second}
}

// onRank0 runs main on PE 0; the other PEs return at once (their segments
// stay valid, and smp executes posts at once).
func onRank0(main func(ep conduit.Endpoint) error) func(ep conduit.Endpoint) error {
	return func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		return main(ep)
	}
}

// recorder records every descriptor posted, as it was at Post.
type recorder struct {
	conduit.Endpoint
	posts []conduit.PostDesc
}

func (r *recorder) Post(d *conduit.PostDesc) error {
	r.posts = append(r.posts, *d)
	return r.Endpoint.Post(d)
}

func (r *recorder) take() []conduit.PostDesc {
	p := r.posts
	r.posts = nil
	return p
}

// noAMO32 is a backend without 32-bit and floating-point atomics.
type noAMO32 struct{ conduit.Endpoint }

func (n noAMO32) Caps() conduit.Caps {
	c := n.Endpoint.Caps()
	c.AMO32, c.FloatAMO = false, false
	return c
}

// failAt makes the target reject descriptors aimed at the listed offsets,
// by naming a registration the target does not have.
type failAt struct {
	conduit.Endpoint
	offs map[int64]bool
}

func (f *failAt) Post(d *conduit.PostDesc) error {
	if f.offs[d.RemoteOffset] {
		d.Remote.ID = 999
	}
	return f.Endpoint.Post(d)
}

// async executes a posted descriptor only when the completion queue is
// polled, one per poll, as a network whose transfers take time: a
// descriptor's resources must stay valid from Post to its completion.
type async struct {
	conduit.Endpoint
	queue []*conduit.PostDesc
}

func (a *async) Post(d *conduit.PostDesc) error {
	if err := conduit.CheckPost(d, a.Size()); err != nil {
		return err
	}
	a.queue = append(a.queue, d)
	return nil
}

func (a *async) PollLocalCQ(evs []conduit.Event) int {
	if len(a.queue) == 0 || len(evs) == 0 {
		return 0
	}
	d := a.queue[0]
	a.queue = a.queue[1:]
	if err := a.Endpoint.Post(d); err != nil {
		evs[0] = conduit.Event{Desc: d, Status: conduit.StatusError, Detail: err.Error()}
		return 1
	}
	return a.Endpoint.PollLocalCQ(evs[:1])
}

// stalled is a network whose completions are late: while hold is set its
// local completion queue reports nothing, and after that it reports nothing
// on the first of every period polls (period 0: never stalls again).
type stalled struct {
	conduit.Endpoint
	hold   bool
	period int
	polls  int
}

func (s *stalled) PollLocalCQ(evs []conduit.Event) int {
	if s.hold {
		return 0
	}
	s.polls++
	if s.period > 0 && s.polls%s.period == 1 {
		return 0
	}
	return s.Endpoint.PollLocalCQ(evs)
}

func sameMem(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func freeCount(e *Engine) (pds, bounce int) {
	for d := e.pds.free; d != nil; d = d.next {
		pds++
	}
	for b := e.bounce.free; b != nil; b = b.next {
		bounce++
	}
	return pds, bounce
}

// putWait puts buf to rank at off and waits.
func putWait(e *Engine, rank int, off int64, buf []byte) error {
	var op Op
	if err := e.Put(&op, rank, off, buf, conduit.OrderInherit); err != nil {
		return err
	}
	if err := e.Wait("a put", &op); err != nil {
		return err
	}
	return op.Err()
}

func getWait(e *Engine, rank int, off int64, buf []byte) error {
	var op Op
	if err := e.Get(&op, rank, off, buf, conduit.OrderInherit); err != nil {
		return err
	}
	if err := e.Wait("a get", &op); err != nil {
		return err
	}
	return op.Err()
}

func TestPDPoolLIFO(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		e := New(ep, testSettings())
		assert.Zero(t, e.pds.made, "no descriptors before the first post")
		assert.False(t, e.bounce.ready, "no bounce pool before the first bounce")
		d1, err := e.pds.get(e)
		if err != nil {
			return err
		}
		assert.Equal(t, 8, e.pds.made)
		d2, _ := e.pds.get(e)
		assert.NotSame(t, d1, d2)
		assert.Equal(t, 2, e.pds.inUse)
		e.pds.put(d1)
		e.pds.put(d2)
		d3, _ := e.pds.get(e)
		assert.Same(t, d2, d3, "the last descriptor returned is the first reused")
		d4, _ := e.pds.get(e)
		assert.Same(t, d1, d4)
		e.pds.put(d4)
		e.pds.put(d3)

		// Through operations: a completed descriptor is on top of the pool,
		// reset, with its own bounce buffer kept.
		if err := putWait(e, 1, 0, pattern(16, 1)); err != nil {
			return err
		}
		top := e.pds.free
		assert.Same(t, d3, top, "the operation used the top descriptor and put it back")
		if err := putWait(e, 1, 64, pattern(16, 2)); err != nil {
			return err
		}
		assert.Same(t, top, e.pds.free, "and the next operation used it again")
		assert.Same(t, top, top.desc.Context)
		assert.Nil(t, top.op)
		assert.Nil(t, top.copyBack)
		assert.Nil(t, top.pooled)
		assert.Nil(t, top.result)
		assert.False(t, top.oneTime.Valid())
		assert.Nil(t, top.desc.Local)
		assert.Len(t, top.bounce, 64)
		assert.True(t, top.bounceMem.Valid(), "the slab is registered when the backend needs it")
		h, ok := ep.Registered(top.bounce)
		assert.True(t, ok)
		assert.Equal(t, top.bounceMem, h)
		pds, _ := freeCount(e)
		assert.Equal(t, 8, pds)
		assert.Zero(t, e.pds.inUse)
		return nil
	}))
}

// TestPDPoolLazyGrowth: with every descriptor still in flight the pool
// grows a slab at a time up to NumPD; at NumPD a post polls once, then
// waits.
func TestPDPoolLazyGrowth(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		s.NumPD = 100
		net := &stalled{Endpoint: ep, hold: true}
		e := New(net, s)
		assert.Zero(t, e.pds.made)
		var op Op
		src := pattern(8, 3)
		for i := range 100 {
			if err := e.Put(&op, 1, int64(8*i), ep.Segment()[:8], conduit.OrderInherit); err != nil {
				return err
			}
			switch {
			case i == 0:
				assert.Equal(t, pdSlab, e.pds.made, "the first slab")
			case i == pdSlab:
				assert.Equal(t, 100, e.pds.made, "the second slab stops at NumPD")
			}
		}
		assert.Equal(t, 100, e.pds.made)
		assert.Equal(t, 100, e.InFlight())
		assert.Zero(t, e.Stats.PDWaits)
		assert.Zero(t, e.Stats.PDReclaims, "nothing had completed")
		// The 101st polls once (the network is still late), then waits
		// for a completion.
		net.hold, net.period = false, 1000
		if err := e.Put(&op, 1, 800, src, conduit.OrderInherit); err != nil {
			return err
		}
		assert.EqualValues(t, 1, e.Stats.PDWaits)
		assert.Zero(t, e.Stats.PDReclaims)
		assert.Equal(t, 100, e.pds.made, "never more than NumPD")
		if err := e.Wait("the puts", &op); err != nil {
			return err
		}
		assert.NoError(t, op.Err())
		assert.Equal(t, 100, e.pds.made)
		assert.Zero(t, e.InFlight())
		// Two slabs, each one registration of its bounce buffers.
		var handles []conduit.MemHandle
		for d := e.pds.free; d != nil; d = d.next {
			if !slices.Contains(handles, d.bounceMem) {
				handles = append(handles, d.bounceMem)
			}
		}
		assert.Len(t, handles, 2)
		return nil
	}))
}

// TestPDReclaimBeforeGrow: when descriptors have completed, an empty pool
// is refilled from the completion queue and does not grow (growing
// registers memory).
func TestPDReclaimBeforeGrow(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		s.NumPD = 1000
		e := New(ep, s)
		return putsThroughPool(t, e, 500, pdSlab, func() {
			assert.Equal(t, pdSlab, e.pds.made, "one slab, reused")
			assert.Zero(t, e.Stats.PDWaits)
			assert.Positive(t, e.Stats.PDReclaims)
		})
	}))
}

// putsThroughPool posts n 8-byte puts from a Go buffer to PE 1, never more
// than inFlight at once, runs check once they are posted, then waits for
// them and reads them back: reused descriptors (and their bounce buffers)
// carry the right data.
func putsThroughPool(t *testing.T, e *Engine, n, inFlight int, check func()) error {
	var op Op
	want := pattern(8*n, 5)
	for i := range n {
		if err := e.Put(&op, 1, int64(8*i), want[8*i:8*i+8], conduit.OrderInherit); err != nil {
			return err
		}
		assert.LessOrEqual(t, e.InFlight(), inFlight)
	}
	check()
	if err := e.Wait("the puts", &op); err != nil {
		return err
	}
	assert.NoError(t, op.Err())
	assert.EqualValues(t, n, e.Stats.Completions)
	got := make([]byte, len(want))
	if err := getWait(e, 1, 0, got); err != nil {
		return err
	}
	assert.Equal(t, want, got)
	return nil
}

// TestPDReclaimNotInHandler: a post made while the engine runs a poller
// (an active-message handler) does not process completions itself; the
// pool grows instead.
func TestPDReclaimNotInHandler(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		s.NumPD = 200
		e := New(ep, s)
		var op Op
		posted := false
		e.AddPoller(func() (int, error) {
			if posted {
				return 0, nil
			}
			posted = true
			for i := range pdSlab + 1 {
				if err := e.Put(&op, 1, int64(8*i), ep.Segment()[:8], conduit.OrderInherit); err != nil {
					return 0, err
				}
			}
			return 1, nil
		})
		if _, err := e.Poll(); err != nil {
			return err
		}
		assert.Zero(t, e.Stats.PDReclaims)
		assert.Equal(t, 2*pdSlab, e.pds.made, "grew while in the handler")
		return e.Wait("the handler's puts", &op)
	}))
}

// TestPDExhaustion: NumPD descriptors carry any number of transfers, whether
// the completions are there when the pool runs dry (reclaimed at once) or
// late (the PE waits).
func TestPDExhaustion(t *testing.T) {
	for _, late := range []bool{false, true} {
		for _, needReg := range []bool{false, true} {
			t.Run(fmt.Sprint("late=", late, "/needReg=", needReg), func(t *testing.T) {
				smptest.RunJob(t, jobConfig(2, needReg), onRank0(func(ep conduit.Endpoint) error {
					net := &stalled{Endpoint: ep}
					if late {
						net.period = 2
					}
					e := New(net, testSettings())
					// Unregistered 8-byte sources: descriptor bounce when
					// registration is needed.
					return putsThroughPool(t, e, 50, 8, func() {
						if late {
							// Every reclaim finds the queue empty.
							assert.Zero(t, e.Stats.PDReclaims)
							assert.Positive(t, e.Stats.PDWaits)
						} else {
							assert.Positive(t, e.Stats.PDReclaims)
							assert.Zero(t, e.Stats.PDWaits)
						}
						assert.Equal(t, 8, e.pds.made)
					})
				}))
			})
		}
	}
}

func TestBouncePool(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		e := New(ep, testSettings())
		var op Op
		const n, size = 10, 500
		want := pattern(n*size, 9)
		for i := range n {
			if err := e.Put(&op, 1, int64(i*size), want[i*size:(i+1)*size], conduit.OrderInherit); err != nil {
				return err
			}
			if i == 0 {
				assert.True(t, e.bounce.ready)
				_, free := freeCount(e)
				assert.Equal(t, 3, free, "BounceBytes/BounceCutover = 4 buffers, one in use")
			}
			assert.LessOrEqual(t, e.bounce.inUse, 4)
		}
		assert.EqualValues(t, n, e.Stats.Bounced)
		assert.Positive(t, e.Stats.BounceWaits, "the pool of 4 ran out")
		assert.Zero(t, e.Stats.PDWaits, "8 descriptors were enough")
		if err := e.Wait("bounced puts", &op); err != nil {
			return err
		}
		assert.NoError(t, op.Err())
		assert.Zero(t, e.bounce.inUse)
		_, free := freeCount(e)
		assert.Equal(t, 4, free)
		// One registration holds all four buffers, each BounceCutover long.
		var handles []conduit.MemHandle
		for b := e.bounce.free; b != nil; b = b.next {
			assert.Len(t, b.buf, 1024)
			if !slices.Contains(handles, b.mem) {
				handles = append(handles, b.mem)
			}
		}
		if assert.Len(t, handles, 1) {
			assert.EqualValues(t, 4096, handles[0].Bytes)
		}
		got := make([]byte, len(want))
		if err := getWait(e, 1, 0, got); err != nil {
			return err
		}
		assert.Equal(t, want, got)
		return nil
	}))
}

// TestPathSelection: with a backend that needs registered local memory, a
// registered buffer goes straight, a small unregistered one through the
// descriptor's buffer, a medium one through the pool, a large one is
// registered for the transfer; without that need everything goes straight.
func TestPathSelection(t *testing.T) {
	type path int
	const (
		straight path = iota
		pdBounce
		pooled
		oneTime
	)
	cases := []struct {
		n       int
		inSeg   bool
		needReg path
	}{
		{1, false, pdBounce},
		{8, false, pdBounce},
		{64, false, pdBounce},
		{65, false, pooled},
		{1000, false, pooled},
		{1024, false, pooled},
		{1025, false, oneTime},
		{4000, false, oneTime},
		{8, true, straight},
		{500, true, straight},
		{4000, true, straight},
	}
	for _, needReg := range []bool{true, false} {
		for _, typ := range []conduit.PostType{conduit.Put, conduit.Get} {
			t.Run(fmt.Sprintf("%v/needReg=%v", typ, needReg), func(t *testing.T) {
				smptest.RunJob(t, jobConfig(2, needReg), onRank0(func(ep conduit.Endpoint) error {
					rec := &recorder{Endpoint: ep}
					e := New(rec, testSettings())
					remote := int64(8192)
					for i, c := range cases {
						want := pattern(c.n, byte(i))
						var buf []byte
						if c.inSeg {
							buf = ep.Segment()[1024 : 1024+c.n]
						} else {
							buf = make([]byte, c.n)
						}
						before := e.Stats
						var op Op
						if typ == conduit.Put {
							copy(buf, want)
							err := e.Put(&op, 1, remote, buf, conduit.OrderInherit)
							if err != nil {
								return err
							}
						} else {
							// Place the data at the target first, by a put
							// from the segment.
							copy(ep.Segment()[32768:], want)
							if err := putWait(e, 1, remote, ep.Segment()[32768:32768+c.n]); err != nil {
								return err
							}
							rec.take()
							before = e.Stats
							if err := e.Get(&op, 1, remote, buf, conduit.OrderInherit); err != nil {
								return err
							}
						}
						posts := rec.take()
						if !assert.Len(t, posts, 1, "case %d", i) {
							continue
						}
						d := posts[0]
						expect := straight
						if needReg {
							expect = c.needReg
						}
						assert.Equal(t, typ, d.Type)
						assert.Equal(t, c.n, len(d.Local))
						if expect == oneTime {
							h, ok := ep.Registered(buf)
							assert.True(t, ok, "case %d: registered while in flight", i)
							assert.Equal(t, h, d.LocalMem)
						}
						if err := e.Wait("the transfer", &op); err != nil {
							return err
						}
						if err := op.Err(); err != nil {
							return fmt.Errorf("case %d: %w", i, err)
						}
						delta := func(a, b int64) int64 { return a - b }
						assert.Equal(t, b2i(expect == pdBounce), delta(e.Stats.PDBounced, before.PDBounced), "case %d (%d bytes): PDBounced", i, c.n)
						assert.Equal(t, b2i(expect == pooled), delta(e.Stats.Bounced, before.Bounced), "case %d (%d bytes): Bounced", i, c.n)
						assert.Equal(t, b2i(expect == oneTime), delta(e.Stats.OneTimeRegs, before.OneTimeRegs), "case %d (%d bytes): OneTimeRegs", i, c.n)
						assert.Equal(t, expect == straight || expect == oneTime, sameMem(d.Local, buf), "case %d: the descriptor uses the buffer itself", i)
						if needReg && expect != oneTime {
							h, ok := ep.Registered(d.Local)
							assert.True(t, ok, "case %d: the local buffer is registered", i)
							assert.Equal(t, h, d.LocalMem, "case %d", i)
						} else if !needReg {
							assert.False(t, d.LocalMem.Valid(), "case %d: no local handle needed", i)
						}
						if expect == oneTime {
							_, ok := ep.Registered(buf)
							assert.False(t, ok, "case %d: the one-time registration is gone after completion", i)
						}
						// The data arrived.
						if typ == conduit.Put {
							got := make([]byte, c.n)
							if err := getWait(e, 1, remote, ep.Segment()[40000:40000+c.n]); err != nil {
								return err
							}
							copy(got, ep.Segment()[40000:])
							assert.Equal(t, want, got, "case %d", i)
						} else {
							assert.Equal(t, want, buf, "case %d: the get copied back", i)
						}
						rec.take()
					}
					assert.Zero(t, e.InFlight())
					assert.Zero(t, e.bounce.inUse)
					return nil
				}))
			})
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestFMAvsBTE(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &recorder{Endpoint: ep}
		e := New(rec, testSettings())
		for _, c := range []struct {
			n    int
			mech conduit.Mechanism
		}{{1, conduit.FMA}, {255, conduit.FMA}, {256, conduit.FMA}, {257, conduit.BTE}, {4096, conduit.BTE}} {
			before := e.Stats
			if err := putWait(e, 1, 0, make([]byte, c.n)); err != nil {
				return err
			}
			if err := getWait(e, 1, 0, make([]byte, c.n)); err != nil {
				return err
			}
			posts := rec.take()
			if assert.Len(t, posts, 2) {
				assert.Equal(t, c.mech, posts[0].Mech, "put of %d", c.n)
				assert.Equal(t, c.mech, posts[1].Mech, "get of %d", c.n)
			}
			assert.Equal(t, 2*b2i(c.mech == conduit.FMA), e.Stats.FMA-before.FMA, "%d bytes", c.n)
			assert.Equal(t, 2*b2i(c.mech == conduit.BTE), e.Stats.BTE-before.BTE, "%d bytes", c.n)
		}
		// AMOs go by FMA and are counted apart.
		var op Op
		var old uint64
		before := e.Stats
		if err := e.AMO(&op, 1, 0, conduit.AMOAdd, 8, 1, 0, &old, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Wait("an AMO", &op); err != nil {
			return err
		}
		posts := rec.take()
		if assert.Len(t, posts, 1) {
			assert.Equal(t, conduit.FMA, posts[0].Mech)
			assert.Equal(t, conduit.AMO, posts[0].Type)
			assert.True(t, posts[0].Fetch)
		}
		assert.EqualValues(t, 1, e.Stats.AMOs-before.AMOs)
		assert.Equal(t, before.FMA, e.Stats.FMA)
		return nil
	}))
}

func TestChunking(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &recorder{Endpoint: ep}
		s := testSettings()
		s.NumPD = 16
		e := New(rec, s)
		for _, c := range []struct {
			n      int
			pieces []int
		}{
			{4095, []int{4095}},
			{4096, []int{4096}},
			{4097, []int{4096, 1}},
			{8192, []int{4096, 4096}},
			{10000, []int{4096, 4096, 1808}},
		} {
			want := pattern(c.n, byte(c.n))
			before := e.Stats
			const off = 1000
			if err := putWait(e, 1, off, want); err != nil {
				return err
			}
			puts := rec.take()
			got := make([]byte, c.n)
			if err := getWait(e, 1, off, got); err != nil {
				return err
			}
			gets := rec.take()
			assert.Equal(t, want, got, "%d bytes", c.n)
			for _, posts := range [][]conduit.PostDesc{puts, gets} {
				var sizes []int
				at := int64(off)
				for _, d := range posts {
					sizes = append(sizes, len(d.Local))
					assert.Equal(t, at, d.RemoteOffset, "pieces are consecutive")
					at += int64(len(d.Local))
				}
				assert.Equal(t, c.pieces, sizes, "%d bytes", c.n)
			}
			assert.Equal(t, 2*b2i(len(c.pieces) > 1), e.Stats.Chunked-before.Chunked, "%d bytes", c.n)
			assert.EqualValues(t, 2*len(c.pieces), e.Stats.Completions-before.Completions)
		}
		return nil
	}))
}

func TestOnDoneOnce(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		s.NumPD = 16
		e := New(ep, s)
		calls := 0
		op := Op{OnDone: func(o *Op) {
			calls++
			assert.True(t, o.Done(), "OnDone runs once nothing is pending")
			assert.NoError(t, o.Err())
			assert.True(t, e.InPoll(), "OnDone runs inside the poll")
		}}
		if err := e.Put(&op, 1, 0, make([]byte, 5*4096), conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Get(&op, 1, 0, make([]byte, 3000), conduit.OrderInherit); err != nil {
			return err
		}
		assert.Zero(t, calls, "nothing completed yet")
		if err := e.Wait("the op", &op); err != nil {
			return err
		}
		assert.Equal(t, 1, calls)
		if _, err := e.Poll(); err != nil {
			return err
		}
		assert.Equal(t, 1, calls)
		return nil
	}))
}

// TestOnDoneOnceWhenPoolsRunOut: an operation whose descriptors outnumber
// the pool (or the bounce buffers) must still run OnDone once, after its
// last descriptor.
func TestOnDoneOnceWhenPoolsRunOut(t *testing.T) {
	for _, c := range []struct {
		name    string
		needReg bool
		s       func(*Settings)
		n       int
	}{
		{"descriptors", false, func(s *Settings) { s.NumPD = 2 }, 5 * 4096},
		{"bounce buffers", true, func(s *Settings) { s.ChunkBytes = 1024 }, 6 * 1024},
	} {
		t.Run(c.name, func(t *testing.T) {
			smptest.RunJob(t, jobConfig(2, c.needReg), onRank0(func(ep conduit.Endpoint) error {
				s := testSettings()
				c.s(&s)
				e := New(ep, s)
				calls := 0
				var total int64
				op := Op{OnDone: func(o *Op) {
					calls++
					total = e.Stats.Completions
				}}
				if err := e.Put(&op, 1, 0, pattern(c.n, 1), conduit.OrderInherit); err != nil {
					return err
				}
				if err := e.Wait("the op", &op); err != nil {
					return err
				}
				assert.Positive(t, e.Stats.PDReclaims+e.Stats.PDWaits+e.Stats.BounceWaits, "the pool ran out")
				assert.Equal(t, 1, calls, "OnDone calls")
				assert.Equal(t, e.Stats.Completions, total, "OnDone ran after the last completion")
				return nil
			}))
		})
	}
}

func TestEventErrorsReachOp(t *testing.T) {
	for _, needReg := range []bool{false, true} {
		t.Run(fmt.Sprint("needReg=", needReg), func(t *testing.T) {
			smptest.RunJob(t, jobConfig(2, needReg), onRank0(func(ep conduit.Endpoint) error {
				f := &failAt{Endpoint: ep, offs: map[int64]bool{64: true, 128: true, 4096: true}}
				e := New(f, testSettings())
				var op Op
				calls := 0
				op.OnDone = func(o *Op) { calls++ }
				if err := e.Put(&op, 1, 0, make([]byte, 8), conduit.OrderInherit); err != nil {
					return err
				}
				if err := e.Put(&op, 1, 64, make([]byte, 8), conduit.OrderInherit); err != nil {
					return err
				}
				dst := pattern(2000, 1)
				if err := e.Get(&op, 1, 128, dst[:500], conduit.OrderInherit); err != nil {
					return err
				}
				if err := e.Wait("failing transfers", &op); err != nil {
					return err
				}
				err := op.Err()
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), "put of 8 bytes to PE 1 at offset 64", "the first failure is kept")
					assert.Contains(t, err.Error(), "no registration 999")
				}
				assert.Equal(t, 1, calls)
				assert.Equal(t, pattern(2000, 1), dst, "a failed get copies nothing back")
				// The failed descriptors returned what they borrowed.
				assert.Zero(t, e.InFlight())
				assert.Zero(t, e.bounce.inUse)

				var op2 Op
				big := make([]byte, 3000)
				if err := e.Get(&op2, 1, 4096, big, conduit.OrderInherit); err != nil {
					return err
				}
				if err := e.Wait("a failing get", &op2); err != nil {
					return err
				}
				if assert.Error(t, op2.Err()) {
					assert.Contains(t, op2.Err().Error(), "get of 3000 bytes to PE 1 at offset 4096")
				}
				_, ok := ep.Registered(big)
				assert.False(t, ok, "a failed transfer's one-time registration is released")

				// A descriptor the initiator rejects fails at once and
				// leaves nothing behind.
				var op3 Op
				err = e.Put(&op3, 1, 1<<16-4, make([]byte, 2000), conduit.OrderInherit)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), "outside the 65536-byte region")
				}
				assert.True(t, op3.Done())
				assert.Zero(t, e.InFlight())
				err = e.Get(&op3, 1, 1<<16-4, make([]byte, 500), conduit.OrderInherit)
				assert.Error(t, err)
				assert.Zero(t, e.InFlight())
				assert.Zero(t, e.bounce.inUse)
				assert.Zero(t, e.pds.inUse)
				return nil
			}))
		})
	}
}

func TestAMONative(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		e := New(ep, testSettings())
		var op Op
		olds := make([]uint64, 20)
		for i := range olds {
			if err := e.AMO(&op, 1, 8, conduit.AMOAdd, 8, 3, 0, &olds[i], conduit.OrderInherit); err != nil {
				return err
			}
		}
		if err := e.AMO(&op, 1, 20, conduit.AMOAdd, 4, 5, 0, nil, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.AMO(&op, 1, 24, conduit.AMOFAdd, 8, math.Float64bits(1.5), 0, nil, conduit.OrderInherit); err != nil {
			return err
		}
		assert.Positive(t, e.Stats.PDReclaims, "22 AMOs on 8 descriptors")
		if err := e.Wait("AMOs", &op); err != nil {
			return err
		}
		for i, v := range olds {
			assert.EqualValues(t, 3*i, v)
		}
		assert.Zero(t, e.Stats.Emulated)
		assert.EqualValues(t, 22, e.Stats.AMOs)
		got := make([]byte, 32)
		if err := getWait(e, 1, 0, got); err != nil {
			return err
		}
		assert.EqualValues(t, 60, binary.NativeEndian.Uint64(got[8:]))
		assert.EqualValues(t, 5, binary.NativeEndian.Uint32(got[20:]))
		assert.Equal(t, 1.5, math.Float64frombits(binary.NativeEndian.Uint64(got[24:])))
		return nil
	}))
}

// TestAMOEmulationOps: without 32-bit and float atomics, every 32-bit
// operation and float64 add is emulated, gives the defined result and old
// value, and leaves the other half of the 64-bit word alone.
func TestAMOEmulationOps(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &recorder{Endpoint: noAMO32{ep}}
		e := New(rec, testSettings())
		const base = 256
		const sentinel = uint32(0x5eed_f00d)
		vals := []uint64{0, 1, 7, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff}
		word := make([]byte, 8)
		checked := 0
		for op := conduit.AMOOp(1); op.Valid(); op++ {
			width := uint8(4)
			subs := []int64{0, 4}
			if op == conduit.AMOFAdd {
				width, subs = 8, []int64{0}
			}
			for _, sub := range subs {
				for i, old := range vals {
					operand := vals[(i+3)%len(vals)]
					compare := old
					if i%2 == 1 {
						compare = operand
					}
					if op == conduit.AMOFAdd {
						old, operand = math.Float64bits(float64(i)*1.25), math.Float64bits(-0.5*float64(i*i))
					}
					if width == 8 {
						binary.NativeEndian.PutUint64(word, old)
					} else {
						binary.NativeEndian.PutUint32(word[sub:], uint32(old))
						binary.NativeEndian.PutUint32(word[4-sub:], sentinel)
					}
					if err := putWait(e, 1, base, word); err != nil {
						return err
					}
					rec.take()
					before := e.Stats
					var res uint64 = 42
					var o Op
					fetch := i%3 != 2
					var rp *uint64
					if fetch {
						rp = &res
					}
					if err := e.AMO(&o, 1, base+sub, op, width, operand, compare, rp, conduit.OrderInherit); err != nil {
						return err
					}
					assert.True(t, o.Done(), "an emulated AMO is complete on return")
					assert.EqualValues(t, 1, e.Stats.Emulated-before.Emulated)
					for _, d := range rec.take() {
						assert.EqualValues(t, 8, d.Width, "emulated with 64-bit AMOs")
						assert.EqualValues(t, base, d.RemoteOffset, "on the enclosing word")
						assert.Contains(t, []conduit.AMOOp{conduit.AMOOr, conduit.AMOCSwap}, d.AMO)
					}
					if fetch {
						assert.Equal(t, old, res, "%v/%d at +%d: old value", op, width, sub)
					} else {
						assert.EqualValues(t, 42, res)
					}
					got := make([]byte, 8)
					if err := getWait(e, 1, base, got); err != nil {
						return err
					}
					want := conduit.AMOResult(op, width, old, operand, compare)
					if width == 8 {
						assert.Equal(t, want, binary.NativeEndian.Uint64(got), "%v", op)
					} else {
						assert.Equal(t, want, uint64(binary.NativeEndian.Uint32(got[sub:])), "%v/4 at +%d old %#x operand %#x compare %#x", op, sub, old, operand, compare)
						assert.Equal(t, sentinel, binary.NativeEndian.Uint32(got[4-sub:]), "%v/4 at +%d: neighbouring word", op, sub)
					}
					checked++
				}
			}
		}
		assert.Equal(t, (10*2+1)*len(vals), checked)
		// 64-bit integer AMOs are not emulated.
		before := e.Stats
		var o Op
		if err := e.AMO(&o, 1, base, conduit.AMOXor, 8, 1, 0, nil, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Wait("an AMO", &o); err != nil {
			return err
		}
		assert.Equal(t, before.Emulated, e.Stats.Emulated)
		assert.EqualValues(t, 1, e.Stats.AMOs-before.AMOs)
		return nil
	}))
}

// TestAMOEmulationContention: several PEs hammer 32-bit halves of one
// 64-bit word and a float64 with emulated atomics; the totals are exact.
func TestAMOEmulationContention(t *testing.T) {
	const pes = 4
	n := 300
	if testing.Short() {
		n = 50
	}
	var seg0 []byte
	var fetched [pes][]uint64
	var b smptest.Barrier
	b.N = pes
	smptest.RunJob(t, jobConfig(pes, false), func(ep conduit.Endpoint) error {
		var gen int64
		e := New(noAMO32{ep}, testSettings())
		me := ep.Rank()
		if me == 0 {
			seg0 = ep.Segment()
			// A sentinel beside the word the others add to.
			binary.NativeEndian.PutUint32(seg0[32:], 0xfeed_beef)
		}
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		for i := range n {
			var op Op
			// Both halves of the word at 8 change at once: PEs add to the
			// low half and subtract from the high half.
			if err := e.AMO(&op, 0, 8, conduit.AMOAdd, 4, 1, 0, nil, conduit.OrderInherit); err != nil {
				return err
			}
			if err := e.AMO(&op, 0, 12, conduit.AMOAdd, 4, uint64(math.MaxUint32), 0, nil, conduit.OrderInherit); err != nil {
				return err
			}
			var old uint64
			if err := e.AMO(&op, 0, 36, conduit.AMOAdd, 4, 1, 0, &old, conduit.OrderInherit); err != nil {
				return err
			}
			fetched[me] = append(fetched[me], old)
			if err := e.AMO(&op, 0, 16, conduit.AMOFAdd, 8, math.Float64bits(0.25), 0, nil, conduit.OrderInherit); err != nil {
				return err
			}
			assert.True(t, op.Done())
			_ = i
		}
		assert.EqualValues(t, 4*n, e.Stats.Emulated)
		if err := b.Wait(ep, &gen); err != nil {
			return err
		}
		if ep.Rank() == 0 {
			seg0 = slices.Clone(seg0) // the job frees its segments when it ends
		}
		return nil
	})
	total := pes * n
	assert.EqualValues(t, total, binary.NativeEndian.Uint32(seg0[8:]))
	assert.EqualValues(t, uint32(-total), binary.NativeEndian.Uint32(seg0[12:]))
	assert.Equal(t, float64(total)/4, math.Float64frombits(binary.NativeEndian.Uint64(seg0[16:])))
	assert.EqualValues(t, total, binary.NativeEndian.Uint32(seg0[36:]))
	assert.EqualValues(t, 0xfeed_beef, binary.NativeEndian.Uint32(seg0[32:]), "the neighbouring word")
	var all []uint64
	for _, f := range fetched {
		all = append(all, f...)
	}
	slices.Sort(all)
	for i, v := range all {
		if !assert.EqualValues(t, i, v, "fetched old values are 0..%d, each once", total-1) {
			break
		}
	}
}

// TestFlush: a flush reads strictly from exactly the PEs that were sent
// puts without strict ordering.
func TestFlush(t *testing.T) {
	smptest.RunJob(t, jobConfig(5, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &recorder{Endpoint: ep}
		e := New(rec, testSettings())
		assert.True(t, e.Idle())
		var op Op
		buf := []byte("12345678")
		for _, c := range []struct {
			rank  int
			order conduit.OrderingMode
		}{
			{1, conduit.OrderInherit}, // the endpoint's default ordering
			{2, conduit.OrderStrict},
			{3, conduit.OrderRelaxed},
			{3, conduit.OrderDefault},
			{1, conduit.OrderRelaxed},
		} {
			if err := e.Put(&op, c.rank, 64, buf, c.order); err != nil {
				return err
			}
		}
		if err := e.Get(&op, 4, 64, make([]byte, 8), conduit.OrderRelaxed); err != nil {
			return err
		}
		if err := e.Wait("puts", &op); err != nil {
			return err
		}
		assert.False(t, e.Idle(), "puts await a flush")
		rec.take()
		if err := e.Flush(); err != nil {
			return err
		}
		posts := rec.take()
		var targets []int
		for _, d := range posts {
			targets = append(targets, d.Target)
			assert.Equal(t, conduit.Get, d.Type)
			assert.Equal(t, conduit.OrderStrict, d.Order)
			assert.Len(t, d.Local, 8)
		}
		assert.Equal(t, []int{1, 3}, targets)
		assert.True(t, e.Idle())
		assert.NoError(t, e.Flush())
		assert.Empty(t, rec.take(), "nothing left to flush")

		// Under strict endpoint ordering an inheriting put needs no flush.
		if err := ep.SetOrdering(conduit.OrderStrict); err != nil {
			return err
		}
		if err := putWait(e, 4, 64, buf); err != nil {
			return err
		}
		assert.True(t, e.Idle())
		rec.take()
		assert.NoError(t, e.Flush())
		assert.Empty(t, rec.take())
		return nil
	}))
}

// TestPutFlagNotFlushed: a flag put (a barrier's signal) is never flushed,
// whatever the ordering, while a put of data beside it is.
func TestPutFlagNotFlushed(t *testing.T) {
	smptest.RunJob(t, jobConfig(3, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &recorder{Endpoint: ep}
		e := New(rec, testSettings())
		for _, order := range []conduit.OrderingMode{conduit.OrderDefault, conduit.OrderRelaxed} {
			if err := ep.SetOrdering(order); err != nil {
				return err
			}
			var op Op
			if err := e.PutFlag(&op, 1, 64, []byte("12345678")); err != nil {
				return err
			}
			if err := e.Wait("a flag", &op); err != nil {
				return err
			}
			posts := rec.take()
			if assert.Len(t, posts, 1) {
				assert.Equal(t, conduit.Put, posts[0].Type)
			}
			assert.True(t, e.Idle(), "%v: a flag put awaits no flush", order)
			assert.NoError(t, e.Flush())
			assert.Empty(t, rec.take(), "%v: nothing to flush after a flag put", order)

			if err := e.PutFlag(&op, 1, 64, []byte("12345678")); err != nil {
				return err
			}
			if err := putWait(e, 2, 64, []byte("12345678")); err != nil {
				return err
			}
			if err := e.Wait("a flag", &op); err != nil {
				return err
			}
			rec.take()
			assert.NoError(t, e.Flush())
			posts = rec.take()
			if assert.Len(t, posts, 1, "%v: the data put is flushed, the flag put not", order) {
				assert.Equal(t, 2, posts[0].Target)
				assert.Equal(t, conduit.Get, posts[0].Type)
			}
		}
		return nil
	}))
}

func TestFlushFailure(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		f := &failAt{Endpoint: ep, offs: map[int64]bool{0: true}}
		e := New(f, testSettings())
		if err := putWait(e, 1, 64, []byte("12345678")); err != nil {
			return err
		}
		err := e.Flush()
		if assert.Error(t, err, "a failed flush read is reported") {
			assert.Contains(t, err.Error(), "get of 8 bytes to PE 1 at offset 0")
		}
		return nil
	}))
}

func TestWaitInsidePoller(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		s.NumPD = 2
		e := New(noAMO32{ep}, s)
		var (
			calls                             int
			waitErr, pollErr, funcErr, putErr error
			amoErr, quiesceErr, doneWait      error
			inPoll                            bool
		)
		active := true
		e.AddPoller(func() (int, error) {
			if !active {
				return 0, nil
			}
			active = false
			calls++
			inPoll = e.InPoll()
			waitErr = e.Wait("something", condFunc(func() bool { return false }))
			doneWait = e.Wait("something done", condFunc(func() bool { return true }))
			_, pollErr = e.Poll()
			funcErr = e.WaitFunc("a function", func() bool { return false })
			// Two descriptors may be posted; the third would have to wait.
			var op Op
			for i := range 3 {
				if putErr = e.Put(&op, 1, int64(8*i), make([]byte, 8), conduit.OrderInherit); putErr != nil {
					break
				}
			}
			quiesceErr = e.Quiesce()
			amoErr = e.AMO(&op, 1, 4, conduit.AMOAdd, 4, 1, 0, nil, conduit.OrderInherit)
			return 1, nil
		})
		assert.False(t, e.InPoll())
		n, err := e.Poll()
		assert.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, 1, calls)
		assert.True(t, inPoll)
		assert.False(t, e.InPoll())
		for name, err := range map[string]error{"Wait": waitErr, "Poll": pollErr, "WaitFunc": funcErr, "Put": putErr, "Quiesce": quiesceErr, "emulated AMO": amoErr} {
			assert.ErrorIs(t, err, ErrInHandler, name)
		}
		assert.ErrorContains(t, waitErr, "waiting for something")
		assert.NoError(t, doneWait, "a wait that need not wait is fine")
		assert.NoError(t, e.Quiesce(), "the puts posted in the poller complete")

		// A poller's error ends the wait it runs in.
		boom := errors.New("boom")
		e.AddPoller(func() (int, error) { return 0, boom })
		err = e.WaitFunc("never", func() bool { return false })
		assert.ErrorIs(t, err, boom)
		return nil
	}))
}

func TestDirect(t *testing.T) {
	t.Run("mapped", func(t *testing.T) {
		smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
			rec := &recorder{Endpoint: noAMO32{ep}}
			s := testSettings()
			s.Direct = true
			e := New(rec, s)
			seg1 := ep.DirectSegment(1)
			assert.True(t, sameMem(seg1, e.Direct(1)))
			var op Op
			if err := e.Put(&op, 1, 100, []byte("direct"), conduit.OrderRelaxed); err != nil {
				return err
			}
			assert.True(t, op.Done(), "a direct put is complete on return")
			assert.Equal(t, []byte("direct"), seg1[100:106])
			got := make([]byte, 6)
			if err := e.Get(&op, 1, 100, got, conduit.OrderInherit); err != nil {
				return err
			}
			assert.Equal(t, []byte("direct"), got)
			var old uint64
			if err := e.AMO(&op, 1, 200, conduit.AMOAdd, 8, 5, 0, &old, conduit.OrderInherit); err != nil {
				return err
			}
			if err := e.AMO(&op, 1, 200, conduit.AMOAdd, 8, 5, 0, &old, conduit.OrderInherit); err != nil {
				return err
			}
			assert.EqualValues(t, 5, old)
			assert.EqualValues(t, 10, binary.NativeEndian.Uint64(seg1[200:]))
			// Even an AMO the backend lacks needs no emulation on a mapped
			// segment.
			if err := e.AMO(&op, 1, 212, conduit.AMOAdd, 4, 7, 0, &old, conduit.OrderInherit); err != nil {
				return err
			}
			assert.EqualValues(t, 7, binary.NativeEndian.Uint32(seg1[212:]))
			assert.True(t, op.Done())
			assert.Zero(t, e.Stats.Emulated)
			assert.Zero(t, e.Stats.FMA+e.Stats.BTE+e.Stats.AMOs+e.Stats.Completions)
			assert.Empty(t, rec.posts, "no descriptors")
			assert.Zero(t, e.pds.made)
			assert.True(t, e.Idle(), "direct puts need no flush")
			assert.NoError(t, e.Put(nil, 1, 0, nil, conduit.OrderInherit), "an empty put does nothing")
			return nil
		}))
	})
	t.Run("not mapped", func(t *testing.T) {
		cfg := jobConfig(2, false)
		cfg.NoDirectAccess = true
		smptest.RunJob(t, cfg, onRank0(func(ep conduit.Endpoint) error {
			s := testSettings()
			s.Direct = true
			e := New(ep, s)
			assert.Nil(t, e.Direct(1))
			if err := putWait(e, 1, 100, []byte("posted")); err != nil {
				return err
			}
			assert.EqualValues(t, 1, e.Stats.FMA)
			return nil
		}))
	})
	t.Run("not allowed", func(t *testing.T) {
		smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
			e := New(ep, testSettings())
			assert.Nil(t, e.Direct(1), "Settings.Direct false: no load/store even on a mapped segment")
			if err := putWait(e, 1, 100, []byte("posted")); err != nil {
				return err
			}
			assert.EqualValues(t, 1, e.Stats.FMA)
			return nil
		}))
	})
}

// wakeRecorder records the Wake calls an engine makes.
type wakeRecorder struct {
	conduit.Endpoint
	woken []int
}

func (w *wakeRecorder) Wake(rank int) { w.woken = append(w.woken, rank) }

// Sleeping says every PE sleeps, so that the engine calls Wake for every
// store.
func (w *wakeRecorder) Sleeping() []*atomic.Bool {
	fs := make([]*atomic.Bool, w.Size())
	for i := range fs {
		fs[i] = new(atomic.Bool)
		fs[i].Store(true)
	}
	return fs
}

// TestDirectWakes: a store into a mapped segment (a put, an AMO) wakes its
// owner, a load does not, and Engine.Wake reaches the backend.
func TestDirectWakes(t *testing.T) {
	smptest.RunJob(t, jobConfig(3, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &wakeRecorder{Endpoint: ep}
		s := testSettings()
		s.Direct = true
		e := New(rec, s)
		var op Op
		if err := e.Put(&op, 1, 100, []byte("direct"), conduit.OrderRelaxed); err != nil {
			return err
		}
		if err := e.Get(&op, 2, 100, make([]byte, 8), conduit.OrderRelaxed); err != nil {
			return err
		}
		if err := e.AMO(&op, 2, 200, conduit.AMOAdd, 8, 5, 0, nil, conduit.OrderInherit); err != nil {
			return err
		}
		e.Wake(1)
		assert.Equal(t, []int{1, 2, 1}, rec.woken)
		return nil
	}))
	// An engine without load/store access, or over an endpoint that never
	// sleeps, has nobody to wake.
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		rec := &wakeRecorder{Endpoint: ep}
		New(rec, testSettings()).Wake(1)
		assert.Empty(t, rec.woken)
		s := testSettings()
		s.Direct = true
		New(struct{ conduit.Endpoint }{ep}, s).Wake(1) // must not fail
		return nil
	}))
}

func TestPollBurst(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		s.NumPD = 32
		e := New(ep, s)
		var op Op
		for i := range 25 {
			if err := e.Put(&op, 1, int64(8*i), make([]byte, 8), conduit.OrderInherit); err != nil {
				return err
			}
		}
		for _, want := range []int{10, 10, 5, 0} {
			n, err := e.Poll()
			if err != nil {
				return err
			}
			assert.Equal(t, want, n)
		}
		assert.EqualValues(t, 25, e.Stats.Completions)
		assert.True(t, op.Done())
		assert.NoError(t, e.Quiesce())
		return nil
	}))
}

func TestRemoteEventsToHandler(t *testing.T) {
	var posted atomic.Bool
	var b smptest.Barrier
	b.N = 2
	smptest.RunJob(t, jobConfig(2, false), func(ep conduit.Endpoint) error {
		var gen int64
		if ep.Rank() == 1 {
			// A raw put with a destination-side event.
			d := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 0, Local: []byte("x"),
				Remote: ep.SegmentHandle(0), RemoteOffset: 8, RemoteEvent: true, RemoteData: 77}
			if err := ep.Post(d); err != nil {
				return err
			}
			evs := make([]conduit.Event, 1)
			if err := ep.WaitFor("completion", smptest.WaitFunc(func() (bool, error) { return ep.PollLocalCQ(evs) == 1, nil })); err != nil {
				return err
			}
			posted.Store(true)
			return b.Wait(ep, &gen)
		}
		e := New(ep, testSettings())
		if err := ep.WaitFor("the put", smptest.WaitFunc(func() (bool, error) { return posted.Load(), nil })); err != nil {
			return err
		}
		n, err := e.Poll()
		assert.NoError(t, err)
		assert.Zero(t, n, "without a function remote events stay queued")
		var got []conduit.Event
		e.OnRemoteEvent(func(ev conduit.Event) { got = append(got, ev) })
		n, err = e.Poll()
		assert.NoError(t, err)
		assert.Equal(t, 1, n)
		if assert.Len(t, got, 1) {
			assert.Equal(t, 1, got[0].Source)
			assert.EqualValues(t, 77, got[0].Data)
		}
		return b.Wait(ep, &gen)
	})
}

// TestOneTimeRegistrationWhileInFlight: on a network whose transfers take
// time, a one-time registration lasts until its transfer completes.
func TestOneTimeRegistrationWhileInFlight(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		a := &async{Endpoint: ep}
		e := New(a, testSettings())
		buf := pattern(3000, 4)
		var op Op
		if err := e.Put(&op, 1, 0, buf, conduit.OrderInherit); err != nil {
			return err
		}
		_, ok := ep.Registered(buf)
		assert.True(t, ok, "registered while in flight")
		if err := e.Wait("the put", &op); err != nil {
			return err
		}
		assert.NoError(t, op.Err())
		_, ok = ep.Registered(buf)
		assert.False(t, ok, "deregistered after completion")
		got := make([]byte, 3000)
		if err := getWait(e, 1, 0, got); err != nil {
			return err
		}
		assert.Equal(t, buf, got)
		assert.EqualValues(t, 2, e.Stats.OneTimeRegs)
		return nil
	}))
}

// TestOneTimeRegistrationShared: two transfers in flight from one
// unregistered buffer; the second must not lose its local registration when
// the first completes.
func TestOneTimeRegistrationShared(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		a := &async{Endpoint: ep}
		e := New(a, testSettings())
		buf := pattern(3000, 4)
		var op Op
		if err := e.Put(&op, 1, 0, buf, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Put(&op, 1, 4096, buf[:2000], conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Wait("two puts", &op); err != nil {
			return err
		}
		assert.NoError(t, op.Err())
		_, ok := ep.Registered(buf)
		assert.False(t, ok, "no registration outlives the transfers")
		got := make([]byte, 2000)
		if err := getWait(e, 1, 4096, got); err != nil {
			return err
		}
		assert.True(t, bytes.Equal(buf[:2000], got), "the second put's data arrived")
		return nil
	}))
}

func TestQuiesceAndSettings(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, false), onRank0(func(ep conduit.Endpoint) error {
		s := testSettings()
		e := New(ep, s)
		assert.Equal(t, s, e.Settings())
		assert.Equal(t, ep, e.Endpoint())
		assert.NoError(t, e.Quiesce(), "nothing in flight")
		var op Op
		for i := range 5 {
			if err := e.Put(&op, 1, int64(8*i), make([]byte, 8), conduit.OrderStrict); err != nil {
				return err
			}
		}
		assert.Equal(t, 5, e.InFlight())
		assert.False(t, e.Idle())
		assert.NoError(t, e.Quiesce())
		assert.Zero(t, e.InFlight())
		assert.True(t, op.Done())
		assert.True(t, e.Idle(), "strict puts need no flush")
		op.Reset()
		assert.Equal(t, Op{}, op)
		assert.NoError(t, e.Put(&op, 1, 0, nil, conduit.OrderInherit))
		assert.NoError(t, e.Get(&op, 1, 0, nil, conduit.OrderInherit))
		assert.Zero(t, e.InFlight(), "empty transfers post nothing")
		return nil
	}))
}

// TestPollStopsWhenJobEnds: once another PE has failed, polling and waiting
// return the job's error instead of spinning.
func TestPollStopsWhenJobEnds(t *testing.T) {
	boom := errors.New("boom")
	job, err := smp.Open(jobConfig(2, false))
	require.NoError(t, err)
	var pollErr, waitErr error
	err = job.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			return boom
		}
		e := New(ep, testSettings())
		waitErr = e.WaitFunc("something that never happens", func() bool { return false })
		_, pollErr = e.Poll()
		return waitErr
	})
	assert.ErrorIs(t, err, boom)
	assert.ErrorIs(t, waitErr, conduit.ErrJobAborted)
	assert.ErrorIs(t, pollErr, conduit.ErrJobAborted)
}

// lossy is a network that loses transactions: the first lose[off]
// attempts of a descriptor aimed at offset off complete with
// StatusTimeout. With applied set, a lost attempt is carried out at the
// target first (only its response is lost); the network keeps the outcome
// of every AMO by transaction identity and answers a retry of one already
// carried out from that record, as conduit.PostDesc.TxnID requires.
type lossy struct {
	conduit.Endpoint
	lose     map[int64]int
	applied  bool
	attempts map[int64]int
	posts    []conduit.PostDesc // every post, as it was at Post
	ids      uint64
	done     map[uint64]uint64 // AMOs carried out: the old value by identity
	queue    []conduit.Event   // timeouts to report
}

func (l *lossy) Post(d *conduit.PostDesc) error {
	if err := conduit.CheckPost(d, l.Size()); err != nil {
		return err
	}
	if !d.Retry {
		l.ids++
		d.TxnID = l.ids
	}
	l.posts = append(l.posts, *d)
	if old, ok := l.done[d.TxnID]; ok && d.Type == conduit.AMO {
		d.Result = old
		l.queue = append(l.queue, conduit.Event{Desc: d})
		return nil
	}
	if l.attempts[d.RemoteOffset] < l.lose[d.RemoteOffset] {
		l.attempts[d.RemoteOffset]++
		if l.applied {
			if err := l.carryOut(d); err != nil {
				return err
			}
		}
		l.queue = append(l.queue, conduit.Event{Desc: d, Status: conduit.StatusTimeout, Detail: "no response from PE 1"})
		return nil
	}
	if err := l.carryOut(d); err != nil {
		return err
	}
	l.queue = append(l.queue, conduit.Event{Desc: d})
	return nil
}

// carryOut does d at the target now (smp executes a post at once) and
// consumes its completion.
func (l *lossy) carryOut(d *conduit.PostDesc) error {
	cp := *d
	if err := l.Endpoint.Post(&cp); err != nil {
		return err
	}
	var ev [1]conduit.Event
	if l.Endpoint.PollLocalCQ(ev[:]) != 1 || ev[0].Status != conduit.StatusOK {
		return fmt.Errorf("the target did not carry out %v: %+v", d.Type, ev[0])
	}
	if d.Type == conduit.AMO {
		l.done[d.TxnID] = cp.Result
		d.Result = cp.Result
	}
	return nil
}

func (l *lossy) PollLocalCQ(evs []conduit.Event) int {
	n := copy(evs, l.queue)
	l.queue = l.queue[n:]
	return n
}

func newLossy(ep conduit.Endpoint, lose map[int64]int, applied bool) *lossy {
	return &lossy{Endpoint: ep, lose: lose, applied: applied, attempts: map[int64]int{}, done: map[uint64]uint64{}}
}

// A transfer or AMO whose completion reports a timeout is posted again,
// with Retry set and its first attempt's identity, up to TimeoutRetries
// times; puts and gets then deliver their data, and an AMO whose response
// was lost is not applied twice. One lost every time fails with an error
// naming the operation, the PE, the offset and the timeout.
func TestTimeoutRetries(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		l := newLossy(ep, map[int64]int{0: 1, 1024: 2, 2048: TimeoutRetries, 4096: 1}, true)
		e := New(l, testSettings())
		src := pattern(600, 3)
		if err := putWait(e, 1, 0, src); err != nil {
			return err
		}
		dst := make([]byte, 600)
		if err := getWait(e, 1, 0, dst); err != nil {
			return err
		}
		assert.Equal(t, src, dst)
		if err := putWait(e, 1, 1024, src[:8]); err != nil {
			return err
		}
		if err := putWait(e, 1, 2048, src[:100]); err != nil {
			return err
		}
		assert.Equal(t, int64(1+2+TimeoutRetries), e.Stats.Retries)
		type key struct {
			typ conduit.PostType
			off int64
		}
		first := map[key]uint64{}
		for _, p := range l.posts {
			k := key{p.Type, p.RemoteOffset}
			if id, ok := first[k]; ok {
				assert.True(t, p.Retry, "a re-post is marked")
				assert.Equal(t, id, p.TxnID, "a re-post carries its first attempt's identity")
			} else {
				assert.False(t, p.Retry, "a first post is not a retry")
				first[k] = p.TxnID
			}
		}
		assert.Len(t, l.posts, 2+1+3+1+TimeoutRetries, "the put at 0 lost once, the get, the put at 1024 lost twice, the one at 2048 lost every time but the last")
		// A fetch-add whose response is lost, once: applied once.
		var op Op
		var old uint64
		if err := e.AMO(&op, 1, 4096, conduit.AMOAdd, 8, 5, 0, &old, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Wait("a fetch-add", &op); err != nil {
			return err
		}
		require.NoError(t, op.Err())
		var now uint64
		var op2 Op
		if err := e.AMO(&op2, 1, 4096, conduit.AMOAdd, 8, 0, 0, &now, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Wait("a fetch", &op2); err != nil {
			return err
		}
		assert.Zero(t, old, "the retry returns the first attempt's fetched value")
		assert.Equal(t, uint64(5), now, "the add is applied once")
		assert.Zero(t, e.InFlight())
		return nil
	}))

	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		l := newLossy(ep, map[int64]int{64: TimeoutRetries + 1}, false)
		e := New(l, testSettings())
		err := putWait(e, 1, 64, make([]byte, 8))
		if assert.Error(t, err) {
			for _, want := range []string{"put of 8 bytes to PE 1 at offset 64", fmt.Sprintf("after %d retries", TimeoutRetries), "timeout"} {
				assert.Contains(t, err.Error(), want)
			}
		}
		assert.Len(t, l.posts, TimeoutRetries+1)
		assert.Equal(t, int64(TimeoutRetries), e.Stats.Retries)
		assert.Zero(t, e.InFlight())
		assert.Zero(t, e.bounce.inUse)
		return nil
	}))
}

// syncPoster gives an smp endpoint conduit.SyncPoster: PostSync posts and
// takes the descriptor's completion off the queue at once (smp carries a
// post out before it returns), keeping the other completions for
// PollLocalCQ. fail, when set, is the error PostSync returns, and
// failed, when set, the detail of the failed completion it returns.
type syncPoster struct {
	conduit.Endpoint
	calls  int
	held   []conduit.Event
	fail   error
	failed string
}

func (s *syncPoster) PostSync(d *conduit.PostDesc) (conduit.Event, error) {
	s.calls++
	if s.fail != nil {
		return conduit.Event{}, s.fail
	}
	if s.failed != "" {
		return conduit.Event{Status: conduit.StatusError, Detail: s.failed}, nil
	}
	if err := s.Endpoint.Post(d); err != nil {
		return conduit.Event{}, err
	}
	evs := make([]conduit.Event, 64)
	for {
		n := s.Endpoint.PollLocalCQ(evs)
		if n == 0 {
			return conduit.Event{}, fmt.Errorf("the completion of a synchronous post is missing")
		}
		for _, ev := range evs[:n] {
			if ev.Desc == d {
				return conduit.Event{Status: ev.Status, Detail: ev.Detail}, nil
			}
			s.held = append(s.held, ev)
		}
	}
}

func (s *syncPoster) PollLocalCQ(evs []conduit.Event) int {
	n := copy(evs, s.held)
	s.held = s.held[n:]
	return n + s.Endpoint.PollLocalCQ(evs[n:])
}

// TestBlockingThroughPostSync: the puts and gets of a blocking operation
// go through the endpoint's PostSync and are complete when issued, with
// their descriptors back in the pool; a non-blocking operation's and a
// blocking atomic's are posted as usual; a refusal is the operation's
// error and gives the descriptor back; the engine polls every
// syncPollEvery synchronous operations.
func TestBlockingThroughPostSync(t *testing.T) {
	smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
		sp := &syncPoster{Endpoint: ep}
		e := New(sp, testSettings())
		polls := 0
		e.AddPoller(func() (int, error) { polls++; return 0, nil })
		seg := ep.Segment()
		want := pattern(10000, 3) // three chunks of 4096
		var op Op
		op.SetBlocking()
		if err := e.Put(&op, 1, 100, want, conduit.OrderInherit); err != nil {
			return err
		}
		assert.True(t, op.Done(), "a blocking put is complete once issued")
		assert.NoError(t, op.Err())
		assert.Equal(t, 3, sp.calls, "one PostSync per chunk")
		assert.Zero(t, e.InFlight(), "the descriptors are back")
		got := make([]byte, len(want))
		op.Reset()
		op.SetBlocking()
		if err := e.Get(&op, 1, 100, got, conduit.OrderInherit); err != nil {
			return err
		}
		assert.True(t, op.Done())
		assert.Equal(t, want, got)
		assert.Equal(t, 6, sp.calls)

		// Not blocking: posted, completed by the wait.
		var nb Op
		if err := e.Put(&nb, 1, 0, want[:8], conduit.OrderInherit); err != nil {
			return err
		}
		assert.Equal(t, 6, sp.calls, "a non-blocking put is posted")
		if err := e.Wait("the put", &nb); err != nil {
			return err
		}
		// A blocking atomic is posted too.
		var amo Op
		amo.SetBlocking()
		var old uint64
		if err := e.AMO(&amo, 0, 0, conduit.AMOAdd, 8, 5, 0, &old, conduit.OrderInherit); err != nil {
			return err
		}
		if err := e.Wait("the add", &amo); err != nil {
			return err
		}
		assert.Equal(t, 6, sp.calls, "a blocking atomic is posted")
		assert.EqualValues(t, 5, binary.LittleEndian.Uint64(seg))

		// A failed completion is the operation's error.
		sp.failed = "lost"
		op.Reset()
		op.SetBlocking()
		assert.NoError(t, e.Put(&op, 1, 0, want[:8], conduit.OrderInherit))
		assert.True(t, op.Done())
		assert.ErrorContains(t, op.Err(), "lost")
		assert.Zero(t, e.InFlight())
		sp.failed = ""

		// A refusal is the operation's error, and the descriptor comes back.
		sp.fail = fmt.Errorf("refused")
		op.Reset()
		op.SetBlocking()
		assert.ErrorContains(t, e.Put(&op, 1, 0, want[:8], conduit.OrderInherit), "refused")
		assert.Zero(t, e.InFlight())
		sp.fail = nil

		// From a registered buffer (the segment), one chunk: on the
		// engine's own descriptor, the pool untouched.
		copy(seg[200:208], "abcdefgh")
		pds, _ := freeCount(e)
		built := e.pds.slabBuilt
		calls := sp.calls
		op.Reset()
		op.SetBlocking()
		if err := e.Put(&op, 1, 300, seg[200:208], conduit.OrderInherit); err != nil {
			return err
		}
		assert.True(t, op.Done())
		assert.NoError(t, op.Err())
		assert.Equal(t, calls+1, sp.calls)
		after, _ := freeCount(e)
		assert.Equal(t, pds, after, "no descriptor taken from the pool")
		assert.Equal(t, built, e.pds.slabBuilt)
		back := make([]byte, 8)
		if err := getWait(e, 1, 300, back); err != nil {
			return err
		}
		assert.Equal(t, "abcdefgh", string(back))
		sp.failed = "gone"
		op.Reset()
		op.SetBlocking()
		assert.NoError(t, e.Get(&op, 1, 300, seg[208:216], conduit.OrderInherit))
		assert.ErrorContains(t, op.Err(), "gone")
		sp.failed = ""

		// The engine polls every syncPollEvery synchronous operations.
		polls, e.syncDone = 0, 0
		for range 2 * syncPollEvery {
			op.Reset()
			op.SetBlocking()
			if err := e.Put(&op, 1, 0, want[:8], conduit.OrderInherit); err != nil {
				return err
			}
		}
		assert.Equal(t, 2, polls)
		return nil
	}))
}

// charging is a backend with a simulated core clock that records the CPU
// time the runtime charges.
type charging struct {
	conduit.Endpoint
	hz      float64
	charged conduit.Time
}

func (c *charging) Caps() conduit.Caps {
	caps := c.Endpoint.Caps()
	caps.CoreHz = c.hz
	return caps
}

func (c *charging) Charge(d conduit.Time) { c.charged += d }

// A transfer through a bounce buffer charges the PE the copy between the
// bounce buffer and its memory, CopyBytesPerCycle a cycle at the core's
// clock (a put's copy in when it is posted, a get's copy out when it
// completes), whether it goes through the descriptor's own bounce buffer
// or one of the pool's; a transfer in registered memory, or by a one-time
// registration, copies nothing and is charged nothing; a real backend
// (no core clock) is charged nothing either.
func TestBounceCopyCharged(t *testing.T) {
	cases := []struct {
		n     int
		inSeg bool
		want  conduit.Time // at 1 GHz: one cycle a nanosecond
	}{
		{8, false, 1 * conduit.Nanosecond},
		{64, false, 8 * conduit.Nanosecond},
		{65, false, 9 * conduit.Nanosecond},
		{1000, false, 125 * conduit.Nanosecond},
		{1025, false, 0}, // one-time registration
		{1000, true, 0},
	}
	for _, typ := range []conduit.PostType{conduit.Put, conduit.Get} {
		for _, hz := range []float64{1e9, 0} {
			t.Run(fmt.Sprintf("%v/hz=%v", typ, hz), func(t *testing.T) {
				smptest.RunJob(t, jobConfig(2, true), onRank0(func(ep conduit.Endpoint) error {
					c := &charging{Endpoint: ep, hz: hz}
					e := New(c, testSettings())
					for i, cs := range cases {
						buf := make([]byte, cs.n)
						if cs.inSeg {
							buf = ep.Segment()[1024 : 1024+cs.n]
						}
						c.charged = 0
						var err error
						if typ == conduit.Put {
							err = putWait(e, 1, 8192, buf)
						} else {
							err = getWait(e, 1, 8192, buf)
						}
						if err != nil {
							return err
						}
						want := cs.want
						if hz == 0 {
							want = 0
						}
						assert.Equal(t, want, c.charged, "case %d: %d bytes, in the segment %v", i, cs.n, cs.inSeg)
					}
					return nil
				}))
			})
		}
	}
}
