package transport

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/errs"
)

// Settings are the engine's tunables; the runtime validates them.
type Settings struct {
	// NumPD is the most post descriptors in flight (R-PD).
	NumPD int
	// BounceBytes is the bounce pool's total size (R-BOUNCE).
	BounceBytes int64
	// BounceCutover is the size of one bounce buffer and the largest
	// unregistered transfer that is bounced rather than registered for the
	// occasion (R-CUT-BOUNCE).
	BounceCutover int64
	// PDBounceBytes is the size of each descriptor's own bounce buffer
	// (R-CUT-FMA).
	PDBounceBytes int
	// FMACutover is the largest transfer sent by FMA; larger ones use the
	// block transfer engine.
	FMACutover int64
	// ChunkBytes is the largest piece of a transfer (R-CHUNK).
	ChunkBytes int64
	// PollBurst is how many completions one poll takes (R-BURST).
	PollBurst int
	// Direct allows load/store access to peers' segments when the backend
	// maps them.
	Direct bool
}

// Stats count what the engine did, for tests and reports.
type Stats struct {
	FMA, BTE    int64 // descriptors posted by mechanism (puts and gets)
	AMOs        int64 // AMO descriptors posted
	Chunked     int64 // transfers split into pieces
	PDBounced   int64 // transfers through a descriptor's own buffer
	Bounced     int64 // transfers through a pooled bounce buffer
	OneTimeRegs int64 // transfers that registered their buffer
	Emulated    int64 // atomics emulated with compare-and-swap
	PDWaits     int64 // times the descriptor pool was empty
	PDReclaims  int64 // times an empty pool was refilled by polling completions
	BounceWaits int64 // times the bounce pool was empty
	Completions int64 // completion events processed
	Retries     int64 // descriptors re-posted after a timeout

	// RegFallbacks: transfers moved through bounce buffers because the
	// network could not register their buffer.
	RegFallbacks int64
}

// TimeoutRetries is how many times the engine re-posts a descriptor whose
// completion reports conduit.StatusTimeout (its transaction's packets, or
// their responses, were lost: a link failed under them) before the
// operation fails with the timeout. The documents say only that
// completion events carry the status "allowing software to recover from
// errors" ([GEMINI-WP] 3.1), and GASNet's gemini-conduit does not retry
// ([GASNET-GEMINI]). Assumed: three retries. One covers a transaction cut
// by a single link failure, since the retry is routed around the failed
// link; the others cover failures that follow each other; a route that
// stays lost (a partitioned network) fails after four timeouts rather than
// hanging. Puts and gets are idempotent; an AMO's retry carries its first
// attempt's identity (conduit.PostDesc.TxnID, Retry), and the backend
// applies it at most once.
const TimeoutRetries = 3

// ErrInHandler is returned when a blocking call is made while the engine
// is running a poller (an active-message handler).
var ErrInHandler = errs.InHandler

// A Poller is polled along with the completion queue in every wait; it
// returns how many things it processed. Active messages register one.
type Poller func() (int, error)

// Cond is a condition a wait ends on.
type Cond interface{ Done() bool }

// Engine is one PE's transport.
type Engine struct {
	ep       conduit.Endpoint
	s        Settings
	rank     int
	size     int
	needReg  bool
	amo32    bool
	floatAMO bool
	amoOps   conduit.AMOSet
	direct   [][]byte
	waker    conduit.Waker  // when the backend's waiting PEs may sleep
	sleeping []*atomic.Bool // the waker's flags: which PEs sleep

	pds    pdPool
	bounce bouncePool
	evs    []conduit.Event

	// unflushed lists the PEs sent puts without strict ordering since the
	// last Flush, once each (isUnflushed marks them, by rank).
	unflushed   []int
	isUnflushed []bool
	// syncer is the endpoint as a conduit.SyncPoster, if it is one;
	// syncDone counts the operations it completed, for the polls between
	// them (syncPollEvery).
	syncer   conduit.SyncPoster
	syncDone int
	nowDesc  conduit.PostDesc // the descriptor of now
	// oneTime counts the in-flight transfers using each one-time
	// registration.
	oneTime   map[uint32]int
	flushBufs []byte

	// coreHz is the simulated host's core clock (conduit.Caps.CoreHz), at
	// which copies through bounce buffers are charged (ChargeCopy); 0 on a
	// real backend.
	coreHz float64

	pollers  []Poller
	remoteFn func(conduit.Event)
	inPoll   bool
	w        waiter

	Stats Stats
}

// New builds the engine of one PE.
func New(ep conduit.Endpoint, s Settings) *Engine {
	caps := ep.Caps()
	e := &Engine{
		ep:       ep,
		s:        s,
		rank:     ep.Rank(),
		size:     ep.Size(),
		needReg:  caps.NeedsRegisteredLocal,
		amo32:    caps.AMO32,
		floatAMO: caps.FloatAMO,
		amoOps:   caps.AMOOps,
		evs:      make([]conduit.Event, s.PollBurst),
		coreHz:   caps.CoreHz,
	}
	e.pds = pdPool{limit: s.NumPD, bounceSz: s.PDBounceBytes}
	e.bounce = bouncePool{total: s.BounceBytes, size: s.BounceCutover}
	if s.Direct && caps.DirectAccess {
		if ds, ok := ep.(conduit.DirectSegmenter); ok {
			e.direct = ds.DirectSegments()
		} else {
			e.direct = make([][]byte, e.size)
			for r := range e.direct {
				e.direct[r] = ep.DirectSegment(r)
			}
		}
		if e.waker, _ = ep.(conduit.Waker); e.waker != nil {
			e.sleeping = e.waker.Sleeping()
		}
	}
	e.syncer, _ = ep.(conduit.SyncPoster)
	e.w.e = e
	return e
}

// Endpoint returns the conduit endpoint.
func (e *Engine) Endpoint() conduit.Endpoint { return e.ep }

// Settings returns the engine's settings.
func (e *Engine) Settings() Settings { return e.s }

// AddPoller adds a poller to every wait.
func (e *Engine) AddPoller(p Poller) { e.pollers = append(e.pollers, p) }

// OnRemoteEvent sets the function destination-side events are given to;
// until one is set they stay queued in the conduit.
func (e *Engine) OnRemoteEvent(fn func(conduit.Event)) { e.remoteFn = fn }

// InPoll reports whether the engine is polling: running a poller (an
// active-message handler) or a completion's follow-on work. Nothing may
// wait then.
func (e *Engine) InPoll() bool { return e.inPoll }

// Op tracks the descriptors of one operation.
type Op struct {
	pending int
	err     error
	// blocking: the caller waits for the operation as soon as it is
	// issued (SetBlocking).
	blocking bool
	// OnDone, when set, runs once the last descriptor completes.
	OnDone func(*Op)
}

// Done reports whether every descriptor of the operation has completed.
func (o *Op) Done() bool { return o.pending == 0 }

// Err is the first failure of any of the operation's descriptors.
func (o *Op) Err() error { return o.err }

// Reset readies a completed Op for reuse.
func (o *Op) Reset() { *o = Op{} }

// SetBlocking says that the caller will wait for the operation as soon as
// it is issued, so that the engine may complete its puts and gets as it
// posts them where the backend can do that more cheaply
// (conduit.SyncPoster). Reset clears it.
func (o *Op) SetBlocking() { o.blocking = true }

func (o *Op) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// Poll processes up to a burst of completions, then runs the pollers. It
// returns how many things were processed.
func (e *Engine) Poll() (int, error) {
	if e.inPoll {
		return 0, fmt.Errorf("poll: %w", ErrInHandler)
	}
	if err := e.ep.Err(); err != nil {
		return 0, err
	}
	e.inPoll = true
	n, err := e.poll()
	e.inPoll = false
	return n, err
}

func (e *Engine) poll() (int, error) {
	n := e.ep.PollLocalCQ(e.evs)
	for i := range n {
		e.complete(&e.evs[i])
		e.evs[i] = conduit.Event{}
	}
	if e.remoteFn != nil {
		m := e.ep.PollRemoteCQ(e.evs)
		for i := range m {
			e.remoteFn(e.evs[i])
			e.evs[i] = conduit.Event{}
		}
		n += m
	}
	for _, p := range e.pollers {
		k, err := p()
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (e *Engine) complete(ev *conduit.Event) {
	d := ev.Desc.Context.(*pd)
	e.Stats.Completions++
	op := d.op
	if ev.Status == conduit.StatusTimeout && d.retries < TimeoutRetries {
		if e.retry(d) {
			return
		}
	}
	if err := ev.Err(); err != nil {
		if d.retries > 0 {
			err = fmt.Errorf("after %d retries: %w", d.retries, err)
		}
		op.fail(fmt.Errorf("%v of %d bytes to PE %d at offset %d: %w", d.desc.Type, d.desc.Bytes(), d.desc.Target, d.desc.RemoteOffset, err))
	} else {
		if d.copyBack != nil {
			copy(d.copyBack, d.desc.Local)
			e.ChargeCopy(len(d.copyBack))
		}
		if d.result != nil {
			*d.result = d.desc.Result
		}
	}
	e.release(d)
	op.pending--
	if op.pending == 0 && op.OnDone != nil {
		op.OnDone(op)
	}
}

// retry re-posts a descriptor whose transaction timed out, with its
// first attempt's identity (conduit.PostDesc.TxnID) so that an AMO is not
// applied twice. It reports whether the descriptor is in flight again; if
// the post fails, its error is the operation's.
func (e *Engine) retry(d *pd) bool {
	d.retries++
	e.Stats.Retries++
	d.desc.Retry = true
	if err := e.ep.Post(&d.desc); err != nil {
		d.op.fail(fmt.Errorf("%v of %d bytes to PE %d at offset %d: retry %d after a timeout: %w", d.desc.Type, d.desc.Bytes(), d.desc.Target, d.desc.RemoteOffset, d.retries, err))
		return false
	}
	return true
}

// release returns a descriptor and what it borrowed.
func (e *Engine) release(d *pd) {
	if d.pooled != nil {
		e.bounce.put(d.pooled)
	}
	if h := d.oneTime; h.Valid() {
		if e.oneTime[h.ID]--; e.oneTime[h.ID] == 0 {
			delete(e.oneTime, h.ID)
			// The registration is ours and its last transfer is over:
			// failure here would be a backend bug, and there is nobody to
			// report it to but the operation, which has completed.
			_ = e.ep.Deregister(h)
		}
	}
	e.pds.put(d)
}

type waiter struct {
	e    *Engine
	cond Cond
}

func (w *waiter) Ready() (bool, error) {
	if w.cond.Done() {
		return true, nil
	}
	if _, err := w.e.Poll(); err != nil {
		return false, err
	}
	return w.cond.Done(), nil
}

// Wait polls until c is done. It fails with ErrInHandler when called from a
// poller.
func (e *Engine) Wait(what string, c Cond) error {
	if c.Done() {
		return nil
	}
	if e.inPoll {
		return fmt.Errorf("waiting for %s: %w", what, ErrInHandler)
	}
	prev := e.w.cond
	e.w.cond = c
	err := e.ep.WaitFor(what, &e.w)
	e.w.cond = prev
	return err
}

type condFunc func() bool

func (f condFunc) Done() bool { return f() }

// WaitFunc is Wait with a function as the condition.
func (e *Engine) WaitFunc(what string, done func() bool) error {
	return e.Wait(what, condFunc(done))
}

// Idle reports whether nothing is in flight and no put awaits a flush.
func (e *Engine) Idle() bool { return e.pds.inUse == 0 && len(e.unflushed) == 0 }

// Quiesce waits until no descriptor is in flight.
func (e *Engine) Quiesce() error {
	if e.pds.inUse == 0 {
		return nil
	}
	return e.WaitFunc("all transfers to complete", func() bool { return e.pds.inUse == 0 })
}

// InFlight is the number of descriptors posted and not yet completed.
func (e *Engine) InFlight() int { return e.pds.inUse }

// getPD takes a free descriptor. When none is free and some are in flight
// it first polls the local completion queue once: completion processing is
// what returns descriptors to the LIFO pool ([GASNET-GEMINI], the pool of
// gc_post_descriptor and gc_poll_local_queue), and the pool exists to be
// reused. Growing the pool registers memory, which is slow on every
// backend that needs registration (G-REG, serialized per node), while
// reclaiming a completed descriptor costs one poll. Only when nothing has
// completed does the pool grow, up to its limit, and after that the PE
// waits.
func (e *Engine) getPD() (*pd, error) {
	if !e.pds.available() && e.pds.inUse > 0 && !e.inPoll {
		e.reclaim()
	}
	d, err := e.pds.get(e)
	if d != nil || err != nil {
		return d, err
	}
	e.Stats.PDWaits++
	if err := e.WaitFunc("a free post descriptor", e.pds.available); err != nil {
		return nil, err
	}
	return e.pds.get(e)
}

// reclaim processes one burst of local completions, without the remote
// queue or the pollers (no active-message handler runs inside a post).
func (e *Engine) reclaim() {
	e.inPoll = true
	n := e.ep.PollLocalCQ(e.evs)
	for i := range n {
		e.complete(&e.evs[i])
		e.evs[i] = conduit.Event{}
	}
	e.inPoll = false
	if n > 0 {
		e.Stats.PDReclaims++
	}
}

func (e *Engine) getBounce() (*bounceBuf, error) {
	b, err := e.bounce.get(e)
	if b != nil || err != nil {
		return b, err
	}
	e.Stats.BounceWaits++
	if err := e.WaitFunc("a free bounce buffer", func() bool { return e.bounce.free != nil }); err != nil {
		return nil, err
	}
	return e.bounce.get(e)
}

// markUnflushed records that a put to rank was posted without strict
// ordering: its completion means delivered, not yet globally visible.
func (e *Engine) markUnflushed(rank int, order conduit.OrderingMode) {
	if order == conduit.OrderInherit {
		order = e.ep.Ordering()
	}
	if order == conduit.OrderStrict {
		return
	}
	if e.isUnflushed == nil {
		e.isUnflushed = make([]bool, e.size)
	}
	if !e.isUnflushed[rank] {
		e.isUnflushed[rank] = true
		e.unflushed = append(e.unflushed, rank)
	}
}

// Flush makes every completed put globally visible: to each PE that was
// sent puts without strict ordering it issues a strictly ordered read,
// which cannot pass the writes ahead of it at the target ([ORDERING]
// IV.A: under relaxed ordering the runtime must do additional work to make
// a put globally complete). Call it after the puts have completed.
func (e *Engine) Flush() error {
	if len(e.unflushed) == 0 {
		return nil
	}
	// Sorted, so that the reads go out in rank order whatever the order
	// of the puts.
	ranks := slices.Clone(e.unflushed)
	slices.Sort(ranks)
	for _, r := range ranks {
		e.isUnflushed[r] = false
	}
	e.unflushed = e.unflushed[:0]
	if len(e.flushBufs) < 8*len(ranks) {
		e.flushBufs = make([]byte, 8*len(ranks))
	}
	var op Op
	for i, r := range ranks {
		if err := e.post(&op, conduit.Get, r, 0, e.flushBufs[8*i:8*i+8], conduit.OrderStrict, nil); err != nil {
			return err
		}
	}
	if err := e.Wait("a flush of relaxed puts", &op); err != nil {
		return err
	}
	return op.Err()
}

// CopyBytesPerCycle is how many bytes a core copies per cycle between a
// bounce buffer and the program's memory: the copies the runtime makes
// for a transfer whose local memory is not registered ([GASNET-GEMINI]
// RDMA: "the small bounce buffer in the post descriptor is used", or an
// allocated one; [ORDERING] IV.C: "copying via bounce-buffers has a
// relatively small overhead"), and those of a two-sided message sent
// through the internal buffers (pgas: a piece of at most 8 KiB, R-MPI-E1).
// Assumed: one 8-byte load and store a cycle, a buffer of at most the
// bounce cutover (8 KiB, R-CUT-BOUNCE) being in the core's caches. On a
// simulated network the copy is the PE's CPU time (ChargeCopy); on a real
// backend it takes the time it takes.
const CopyBytesPerCycle = 8

// ChargeCopy charges the PE the CPU time of copying n bytes between its
// memory and a pre-registered buffer (a bounce buffer, or a two-sided
// message's internal buffer), at the simulated core's clock.
func (e *Engine) ChargeCopy(n int) {
	if e.coreHz > 0 && n > 0 {
		cycles := float64((n + CopyBytesPerCycle - 1) / CopyBytesPerCycle)
		e.ep.Charge(conduit.Time(math.Round(cycles * float64(conduit.Second) / e.coreHz)))
	}
}
