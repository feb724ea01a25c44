//go:build mpi

package mpi

/*
#include "gp.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// amoSlots is how many MPI atomics may be in flight at once (their
// operands and results live in C memory until the flush that completes
// them); past it, Post flushes to make room.
const amoSlots = 1024

// region is one registration: pinned Go memory (or the segment) that MPI
// may hold a pointer to until the operation using it completes. A region
// other than the segment is attached to the dynamic window so that other
// PEs can name it.
type region struct {
	id       uint32
	buf      []byte
	pin      runtime.Pinner
	addr     int64 // its address in the dynamic window
	attached bool
}

func (r *region) contains(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(r.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= base && p+uintptr(len(b)) <= base+uintptr(len(r.buf))
}

func (r *region) overlaps(b []byte) bool {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(r.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p < base+uintptr(len(r.buf)) && base < p+uintptr(len(b))
}

// inflight is a posted operation waiting for the flush that completes it.
type inflight struct {
	d      *conduit.PostDesc
	dyn    bool
	slot   int // MPI atomic operand slot, or -1
	kind   int
	remote bool // send the destination-side event after the flush
}

// remoteRegion is what a PE learnt of another PE's registration.
type remoteRegion struct {
	addr  int64 // in the dynamic window, or the offset in the segment
	bytes int64
	ok    bool
	seg   bool // inside the segment
}

type endpoint struct {
	job       *job
	lastSched time.Time // the last pass through Go's scheduler (resched)
	work      int       // work posted since the clock was last read (flushWork)
	rank      int
	ordering  conduit.OrderingMode

	regs   map[uint32]*region
	seg    *region   // regs[conduit.SegmentID], without the map's lookup
	order  []*region // registrations, newest last, for Registered
	nextID uint32

	pending    []inflight
	dirty      []int // targets with pending operations on the segment window
	dirtyDyn   []int
	isDirty    []uint8 // bit 0: segment window, bit 1: dynamic window
	freeSlots  []int
	localCQ    eventQueue
	remoteCQ   []conduit.Event
	amoWaiting map[uint64]*conduit.PostDesc // active-message atomics by sequence number
	amoSeq     uint64
	regCache   map[regKey]remoteRegion
	regQuery   *regQuery

	// Active messages.
	nrecv    int
	head     int   // next receive slot to hand out
	held     []int // slots handed out by the last PollMessages
	rdone    []bool
	rsrc     []int
	rlen     []int
	inFlight []int // unfinished sends to each target
	slotDest []int // target of each send slot (-1: none or control)
	sendFree []int // free send slots
	reaped   []C.int

	progress int64 // things got done: completions, messages

	syncs        int64 // MPI_Win_sync calls made inside waits (WaitFor)
	completedNow bool  // the last PollLocalCQ handed out completions
	amSkips      int   // polls of messages skipped in a row (amPollEvery)
	fence        atomic.Uint32

	inWait    bool // inside WaitFor
	idlePolls int  // polls outside a wait that left operations pending

	done bool
	coll collective
}

type regKey struct {
	owner int
	id    uint32
}

type regQuery struct {
	key   regKey
	reply *remoteRegion
}

// Ready: the owner has answered.
func (q *regQuery) Ready() (bool, error) { return q.reply != nil, nil }

func newEndpoint(j *job, nrecv int) *endpoint {
	e := &endpoint{
		job:        j,
		rank:       j.rank,
		ordering:   j.cfg.Ordering,
		regs:       map[uint32]*region{},
		nextID:     conduit.SegmentID + 1,
		isDirty:    make([]uint8, j.size),
		amoWaiting: map[uint64]*conduit.PostDesc{},
		regCache:   map[regKey]remoteRegion{},
		nrecv:      nrecv,
		rdone:      make([]bool, nrecv),
		rsrc:       make([]int, nrecv),
		rlen:       make([]int, nrecv),
		inFlight:   make([]int, j.size),
		slotDest:   make([]int, int(j.c.nsend)),
		reaped:     make([]C.int, 0, int(j.c.nsend)),
	}
	for i := range e.slotDest {
		e.slotDest[i] = -1
		e.sendFree = append(e.sendFree, len(e.slotDest)-1-i)
	}
	seg := &region{id: conduit.SegmentID, buf: j.seg}
	e.regs[seg.id], e.seg = seg, seg
	e.order = append(e.order, seg)
	e.freeSlots = make([]int, amoSlots)
	for i := range e.freeSlots {
		e.freeSlots[i] = amoSlots - 1 - i
	}
	return e
}

func (e *endpoint) Rank() int       { return e.rank }
func (e *endpoint) Size() int       { return e.job.size }
func (e *endpoint) Node(r int) int  { return e.job.nodeOf[r] }
func (e *endpoint) Nodes() int      { return e.job.nodes }
func (e *endpoint) Backend() string { return Name }

// Caps: local buffers must be registered (pinned, so that MPI may keep a
// pointer to them until the operation completes); every AMO exists (in
// the mode amo=am the target performs it, in amo=mpi MPI does); peers on
// this node are mapped for load/store, unless that would mix the CPU's
// atomics with MPI's (amo=mpi on a job of several nodes); barriers and
// allreduces are offloaded to MPI.
func (e *endpoint) Caps() conduit.Caps {
	c := conduit.Caps{
		NeedsRegisteredLocal: true,
		AMO32:                true,
		FloatAMO:             true,
		DirectAccess:         e.job.directAccess(),
		CollectiveOffload:    true,
	}
	if e.job.amo == amoMPI {
		// MPICH 4.0's MPI_MIN and MPI_MAX on MPI_UINT64_T compare as
		// signed (this backend's tests found it): unsigned minimum and
		// maximum are left to the runtime's compare-and-swap loop.
		c.AMOOps = mpiAMOOps
	}
	return c
}

var mpiAMOOps = conduit.NewAMOSet(conduit.AMOAdd, conduit.AMOAnd, conduit.AMOOr, conduit.AMOXor, conduit.AMOSwap,
	conduit.AMOCSwap, conduit.AMOMin, conduit.AMOMax, conduit.AMOFAdd)

func (j *job) directAccess() bool {
	return !j.cfg.NoDirectAccess && (j.amo == amoAM || j.nodes == 1)
}

func (e *endpoint) Ordering() conduit.OrderingMode { return e.ordering }

func (e *endpoint) SetOrdering(m conduit.OrderingMode) error {
	switch m {
	case conduit.OrderStrict, conduit.OrderDefault, conduit.OrderRelaxed:
		e.ordering = m
		return nil
	}
	return fmt.Errorf("mpi: PE %d: SetOrdering(%v): must be strict, default or relaxed", e.rank, m)
}

func (e *endpoint) Segment() []byte { return e.job.seg }

func (e *endpoint) SegmentHandle(rank int) conduit.MemHandle {
	if rank < 0 || rank >= e.job.size {
		return conduit.MemHandle{}
	}
	return conduit.MemHandle{Owner: int32(rank), ID: conduit.SegmentID, Bytes: e.job.cfg.SegmentBytes}
}

func (e *endpoint) DirectSegment(rank int) []byte {
	if !e.job.directAccess() || rank < 0 || rank >= e.job.size {
		return nil
	}
	return e.job.direct[rank]
}

// Register pins buf and attaches it to the dynamic window, so that MPI
// may use it as a local buffer and other PEs may name it. A buffer that
// overlaps another registration is pinned but not attached again (MPI
// does not allow attaching memory twice): other PEs cannot name it, and
// their operations on it fail at the target.
func (e *endpoint) Register(buf []byte) (conduit.MemHandle, error) {
	if len(buf) == 0 {
		return conduit.MemHandle{}, fmt.Errorf("mpi: PE %d: Register of an empty buffer", e.rank)
	}
	r := &region{id: e.nextID, buf: buf}
	e.nextID++
	r.pin.Pin(unsafe.SliceData(buf))
	overlap := false
	for _, o := range e.order {
		if o.attached && o.overlaps(buf) {
			overlap = true
			break
		}
	}
	if !overlap && !e.job.inSegment(buf) && !e.job.noDynamic {
		var addr C.int64_t
		if err := check("MPI_Win_attach", e.rank, C.gp_attach(e.job.c, ptr(buf), C.int64_t(len(buf)), &addr)); err != nil {
			r.pin.Unpin()
			return conduit.MemHandle{}, err
		}
		r.addr, r.attached = int64(addr), true
	}
	e.regs[r.id] = r
	e.order = append(e.order, r)
	return conduit.MemHandle{Owner: int32(e.rank), ID: r.id, Bytes: int64(len(buf))}, nil
}

func (j *job) inSegment(b []byte) bool {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(j.seg)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= base && p < base+uintptr(len(j.seg))
}

func (e *endpoint) Deregister(h conduit.MemHandle) error {
	r := e.regs[h.ID]
	if int(h.Owner) != e.rank || h.ID == conduit.SegmentID || r == nil {
		return fmt.Errorf("mpi: PE %d: Deregister of handle %d of PE %d: not a registration of this PE", e.rank, h.ID, h.Owner)
	}
	if r.attached {
		// Operations on it must be complete before MPI lets go of it.
		if err := e.flushAll(); err != nil {
			return err
		}
		if err := check("MPI_Win_detach", e.rank, C.gp_detach(e.job.c, ptr(r.buf))); err != nil {
			return err
		}
	}
	r.pin.Unpin()
	delete(e.regs, h.ID)
	for i, o := range e.order {
		if o == r {
			e.order = append(e.order[:i], e.order[i+1:]...)
			break
		}
	}
	return nil
}

func (e *endpoint) Registered(buf []byte) (conduit.MemHandle, bool) {
	// The segment first: most local buffers of transfers lie there.
	if seg := e.order[0]; seg.contains(buf) {
		return conduit.MemHandle{Owner: int32(e.rank), ID: seg.id, Bytes: int64(len(seg.buf))}, true
	}
	for i := len(e.order) - 1; i > 0; i-- {
		if r := e.order[i]; r.contains(buf) {
			return conduit.MemHandle{Owner: int32(e.rank), ID: r.id, Bytes: int64(len(r.buf))}, true
		}
	}
	return conduit.MemHandle{}, false
}

// amoKind and amoOp map an AMO to MPI's datatype and operation (gp.c's
// codes): unsigned types for the bitwise, arithmetic and unsigned
// operations, signed ones for min and max, double for float add.
func amoKind(op conduit.AMOOp, width uint8) int {
	signed := op == conduit.AMOMin || op == conduit.AMOMax
	switch {
	case op == conduit.AMOFAdd:
		return 4
	case width == 4 && signed:
		return 1
	case width == 4:
		return 0
	case signed:
		return 3
	}
	return 2
}

func amoOp(d *conduit.PostDesc) int {
	switch d.AMO {
	case conduit.AMOAdd, conduit.AMOFAdd:
		return 0
	case conduit.AMOAnd:
		return 1
	case conduit.AMOOr:
		if d.Fetch && d.Operand == 0 {
			return 7 // a read: MPI_NO_OP, allowed beside any operation
		}
		return 2
	case conduit.AMOXor:
		return 3
	case conduit.AMOSwap:
		return 4
	case conduit.AMOMin, conduit.AMOUMin:
		return 5
	case conduit.AMOMax, conduit.AMOUMax:
		return 6
	}
	return 8 // AMOCSwap
}

// Post starts the operation. A put or get goes to MPI at once
// (MPI_Put/MPI_Get on the segment's window, or the dynamic window for
// other registrations) and completes at the next flush: under strict
// ordering Post flushes it at once, otherwise the next PollLocalCQ does.
// An AMO is an MPI atomic (amo=mpi) or a request to the target (amo=am).
func (e *endpoint) Post(d *conduit.PostDesc) error {
	j := e.job
	if err := conduit.CheckPost(d, j.size); err != nil {
		return fmt.Errorf("mpi: PE %d: %w", e.rank, err)
	}
	if d.Flag != nil {
		return fmt.Errorf("mpi: PE %d: post get with a flag word: %w", e.rank, conduit.ErrUnsupported)
	}
	r, err := e.resolve(d)
	switch {
	case err != nil:
		return err
	case r.fail != "":
		e.completeNow(d, conduit.StatusError, r.fail)
		return nil
	case r.self:
		st, detail := e.postSelf(d)
		e.completeNow(d, st, detail)
		return nil
	}
	order := d.Order
	if order == conduit.OrderInherit {
		order = e.ordering
	}
	strict := order == conduit.OrderStrict
	dyn, disp := r.dyn, r.disp
	var rc C.int
	call := ""
	f := inflight{d: d, dyn: dyn, slot: -1, remote: d.RemoteEvent && d.Type == conduit.Put}
	switch d.Type {
	case conduit.Put:
		call = "MPI_Put"
		rc = C.gp_put(j.c, C.int(boolInt(dyn)), ptr(d.Local), C.int64_t(len(d.Local)), C.int(d.Target), C.int64_t(disp))
	case conduit.Get:
		call = "MPI_Get"
		rc = C.gp_get(j.c, C.int(boolInt(dyn)), ptr(d.Local), C.int64_t(len(d.Local)), C.int(d.Target), C.int64_t(disp))
	case conduit.AMO:
		if j.amo == amoAM {
			return e.postAMOMessage(d, strict)
		}
		if len(e.freeSlots) == 0 {
			if err := e.flushAll(); err != nil {
				return err
			}
		}
		f.slot = e.freeSlots[len(e.freeSlots)-1]
		e.freeSlots = e.freeSlots[:len(e.freeSlots)-1]
		f.kind = amoKind(d.AMO, d.Width)
		op := amoOp(d)
		call = map[int]string{8: "MPI_Compare_and_swap"}[op]
		if call == "" {
			call = "MPI_Fetch_and_op"
			if !d.Fetch {
				call = "MPI_Accumulate"
			}
		}
		rc = C.gp_amo(j.c, C.int(boolInt(dyn)), C.int(f.slot), C.int(f.kind), C.int(op), C.int(boolInt(d.Fetch)), C.int(d.Target), C.int64_t(disp), C.uint64_t(d.Operand), C.uint64_t(d.Compare))
	}
	if err := check(call, e.rank, rc); err != nil {
		if f.slot >= 0 {
			e.freeSlots = append(e.freeSlots, f.slot)
		}
		return fmt.Errorf("%w (%v of %d bytes to PE %d at offset %d)", err, d.Type, d.Bytes(), d.Target, d.RemoteOffset)
	}
	e.pending = append(e.pending, f)
	e.work += 1 + int(d.Bytes()>>16)
	bit := uint8(1)
	if dyn {
		bit = 2
	}
	if e.isDirty[d.Target]&bit == 0 {
		e.isDirty[d.Target] |= bit
		if dyn {
			e.dirtyDyn = append(e.dirtyDyn, d.Target)
		} else {
			e.dirty = append(e.dirty, d.Target)
		}
	}
	if strict {
		// Strict: nothing overtakes, so each operation is complete
		// before the next is issued.
		return e.flush()
	}
	return nil
}

// route is where a descriptor goes (resolve): the window (the dynamic
// one, dyn, or the segment's) and the displacement in it; or this PE's own
// registration by a copy (self); or nowhere, with the reason its
// completion gives (fail).
type route struct {
	dyn  bool
	disp int64
	self bool
	fail string
}

// resolve finds where a checked descriptor goes, and checks a put's or
// get's local buffer. An error is Post's.
func (e *endpoint) resolve(d *conduit.PostDesc) (route, error) {
	j := e.job
	if j.aborted {
		return route{}, j.abortErr
	}
	r := route{dyn: d.Remote.ID != conduit.SegmentID, disp: d.RemoteOffset}
	if r.dyn && j.noDynamic {
		reg := e.regs[d.Remote.ID]
		if d.Target != e.rank || reg == nil || d.RemoteOffset+d.Bytes() > int64(len(reg.buf)) {
			r.fail = fmt.Sprintf("PE %d has no registration %d covering [%d,+%d)", d.Target, d.Remote.ID, d.RemoteOffset, d.Bytes())
			return r, nil
		}
		r.self = true
	} else if r.dyn {
		rr, err := e.lookupRemote(d.Target, d.Remote.ID)
		if err != nil {
			return route{}, err
		}
		if !rr.ok || d.RemoteOffset+d.Bytes() > rr.bytes {
			r.fail = fmt.Sprintf("PE %d has no remotely accessible registration %d covering [%d,+%d)", d.Target, d.Remote.ID, d.RemoteOffset, d.Bytes())
			return r, nil
		}
		r.disp += rr.addr
		if rr.seg {
			r.dyn = false // a registration inside the segment
		}
	}
	if d.Type != conduit.AMO {
		if err := e.checkLocal(d); err != nil {
			return route{}, err
		}
	}
	return r, nil
}

// PostSync carries out a put or get at once (conduit.SyncPoster): the
// MPI_Put or MPI_Get, the MPI_Win_flush that completes it and the
// MPI_Win_sync a wait would end with, in one call into the library. It
// flushes only the operation's target, and leaves the operations pending
// to other targets pending. It does the work Post and a wait's flush
// would count towards a pass through Go's scheduler (resched).
func (e *endpoint) PostSync(d *conduit.PostDesc) (conduit.Event, error) {
	j := e.job
	if err := conduit.CheckPost(d, j.size); err != nil {
		return conduit.Event{}, fmt.Errorf("mpi: PE %d: %w", e.rank, err)
	}
	if (d.Type != conduit.Put && d.Type != conduit.Get) || d.RemoteEvent || d.Flag != nil {
		return conduit.Event{}, fmt.Errorf("mpi: PE %d: PostSync of a %v (with a destination event %t, a flag word %t): only plain puts and gets: %w",
			e.rank, d.Type, d.RemoteEvent, d.Flag != nil, conduit.ErrUnsupported)
	}
	r, err := e.resolve(d)
	ev := conduit.Event{Desc: d}
	switch {
	case err != nil:
		return conduit.Event{}, err
	case r.fail != "":
		ev.Status, ev.Detail = conduit.StatusError, r.fail
		return ev, nil
	case r.self:
		ev.Status, ev.Detail = e.postSelf(d)
		return ev, nil
	}
	e.progress++
	if e.work += 1 + int(d.Bytes()>>16); e.work >= flushWork {
		e.work = 0
		e.resched()
	}
	put, dyn, n, tgt, disp := C.int(boolInt(d.Type == conduit.Put)), C.int(boolInt(r.dyn)), C.int64_t(len(d.Local)), C.int(d.Target), C.int64_t(r.disp)
	var res C.int64_t
	if d.LocalMem.ID == conduit.SegmentID {
		// The segment is MPI's memory, not Go's: its address goes as a
		// number, which spares the call cgo's check of a Go pointer
		// argument (about 10 ns, 2% of an 8-byte put's round here).
		res = C.gp_xfer_sync_addr(j.c, put, dyn, C.uintptr_t(uintptr(ptr(d.Local))), n, tgt, disp)
	} else {
		res = C.gp_xfer_sync(j.c, put, dyn, ptr(d.Local), n, tgt, disp)
	}
	rc, step := C.int(res/4), int64(res%4)
	call := [...]string{"MPI_Put", "MPI_Win_flush", "MPI_Win_sync"}[step]
	if d.Type == conduit.Get && step == 0 {
		call = "MPI_Get"
	}
	if err := check(call, e.rank, rc); err != nil {
		if step == 0 {
			return conduit.Event{}, fmt.Errorf("%w (%v of %d bytes to PE %d at offset %d)", err, d.Type, d.Bytes(), d.Target, d.RemoteOffset)
		}
		ev.Status, ev.Detail = conduit.StatusError, err.Error()
	}
	e.syncs++
	return ev, nil
}

// postSelf performs an operation on one of this PE's own registrations
// other than the segment on a job of one process that has no dynamic
// window (Open MPI's, see job.open): a copy, or the CPU's atomic, complete
// at once (resolve has checked the registration). It returns the
// completion's status and detail.
func (e *endpoint) postSelf(d *conduit.PostDesc) (conduit.Status, string) {
	r := e.regs[d.Remote.ID]
	mem := r.buf[d.RemoteOffset:]
	switch d.Type {
	case conduit.Put:
		copy(mem, d.Local)
		if d.RemoteEvent {
			e.remoteCQ = append(e.remoteCQ, conduit.Event{Source: e.rank, Data: d.RemoteData})
		}
	case conduit.Get:
		copy(d.Local, mem)
	case conduit.AMO:
		d.Result = conduit.ApplyAMO(mem[:d.Width], d.AMO, d.Width, d.Operand, d.Compare)
	}
	return conduit.StatusOK, ""
}

// checkLocal checks that a put's or get's local buffer lies in this PE's
// registration LocalMem.
func (e *endpoint) checkLocal(d *conduit.PostDesc) error {
	r := e.seg
	if d.LocalMem.ID != conduit.SegmentID {
		r = e.regs[d.LocalMem.ID]
	}
	if int(d.LocalMem.Owner) != e.rank || r == nil || !r.contains(d.Local) {
		return fmt.Errorf("mpi: PE %d: post %v to PE %d: local buffer of %d bytes is not inside registration %d (the mpi backend requires registered local memory)",
			e.rank, d.Type, d.Target, len(d.Local), d.LocalMem.ID)
	}
	return nil
}

// completeNow queues the completion of a descriptor that went nowhere.
func (e *endpoint) completeNow(d *conduit.PostDesc, st conduit.Status, detail string) {
	e.localCQ.push(conduit.Event{Desc: d, Status: st, Detail: detail})
}

// flush completes every pending operation: MPI_Win_flush to each target
// with pending operations (MPI_Win_flush_all past a few targets), after
// which puts are complete at their targets, gets' data is in the local
// buffers, and atomics have their results.
func (e *endpoint) flush() error {
	if len(e.pending) == 0 {
		return nil
	}
	j := e.job
	var err error
	if e.work >= flushWork {
		e.work = 0
		e.resched()
	}
	// Inside a wait the last flush also syncs the segment's window (the
	// wait's MPI_Win_sync, in the same call).
	lastWin := 0
	if len(e.dirtyDyn) > 0 {
		lastWin = 1
	}
	for w, list := range [2][]int{e.dirty, e.dirtyDyn} {
		if len(list) == 0 || err != nil {
			continue
		}
		if len(list) > 4 {
			sync := C.int(boolInt(e.inWait && w == lastWin))
			err = check("MPI_Win_flush_all", e.rank, C.gp_flush_all(j.c, C.int(w), sync))
		} else {
			for i, t := range list {
				sync := C.int(boolInt(e.inWait && w == lastWin && i == len(list)-1))
				if err = check("MPI_Win_flush", e.rank, C.gp_flush(j.c, C.int(w), C.int(t), sync)); err != nil {
					break
				}
			}
		}
	}
	if err == nil && e.inWait {
		e.syncs++
	}
	for _, t := range e.dirty {
		e.isDirty[t] = 0
	}
	for _, t := range e.dirtyDyn {
		e.isDirty[t] = 0
	}
	e.dirty, e.dirtyDyn = e.dirty[:0], e.dirtyDyn[:0]
	for i := range e.pending {
		f := &e.pending[i]
		ev := conduit.Event{Desc: f.d}
		if err != nil {
			ev.Status, ev.Detail = conduit.StatusError, err.Error()
		} else {
			if f.slot >= 0 && f.d.Fetch {
				f.d.Result = uint64(C.gp_amo_result(j.c, C.int(f.slot), C.int(f.kind)))
			}
			if f.remote {
				if serr := e.job.sendCtl(f.d.Target, tagRemoteEvent, u64bytes(f.d.RemoteData)); serr != nil {
					ev.Status, ev.Detail = conduit.StatusError, serr.Error()
				}
			}
		}
		if f.slot >= 0 {
			e.freeSlots = append(e.freeSlots, f.slot)
		}
		e.localCQ.push(ev)
		*f = inflight{}
	}
	e.pending = e.pending[:0]
	return nil
}

// flushAll completes everything, for callers outside the completion path.
func (e *endpoint) flushAll() error {
	return e.flush()
}

// flushBatch and idleFlush bound how long operations stay pending when
// the runtime polls outside a wait (to reclaim descriptors while it posts
// a window of operations, or in a program's own polling loop): they are
// flushed once flushBatch are pending or after idleFlush polls. A poll
// inside WaitFor flushes at once.
const (
	flushBatch = 64
	idleFlush  = 8
)

// PollLocalCQ flushes what is pending and hands out completions. MPI has
// no non-blocking flush, so an eager flush on every poll would complete
// every few operations one by one while the runtime posts a window of
// them; outside a wait the flush is batched (flushBatch, idleFlush).
func (e *endpoint) PollLocalCQ(evs []conduit.Event) int {
	if e.localCQ.empty() && len(e.pending) > 0 {
		if e.inWait || len(e.pending) >= flushBatch || e.idlePolls >= idleFlush {
			e.idlePolls = 0
			_ = e.flush() // a failure is carried by the events
		} else {
			e.idlePolls++
		}
	}
	n := e.localCQ.pop(evs)
	e.progress += int64(n)
	e.completedNow = n > 0
	return n
}

// PollRemoteCQ hands out destination-side events of puts.
func (e *endpoint) PollRemoteCQ(evs []conduit.Event) int {
	n := copy(evs, e.remoteCQ)
	rest := copy(e.remoteCQ, e.remoteCQ[n:])
	clear(e.remoteCQ[rest:])
	e.remoteCQ = e.remoteCQ[:rest]
	e.progress += int64(n)
	return n
}

func (e *endpoint) MaxMessageHeader() int  { return MaxHeaderBytes }
func (e *endpoint) MaxMessagePayload() int { return MaxPayloadBytes }

func (e *endpoint) Now() conduit.Time     { return e.job.now() }
func (e *endpoint) Charge(_ conduit.Time) {}

// Done starts the done barrier (MPI_Ibarrier); AllDone tests it.
func (e *endpoint) Done() {
	if e.done {
		return
	}
	e.done = true
	j := e.job
	if err := check("MPI_Ibarrier (done)", e.rank, C.gp_done_start(j.c)); err != nil {
		j.fail(err)
		proc.broken.Store(true)
	}
	j.dl.report(stateDone, "")
}

func (e *endpoint) AllDone() bool {
	j := e.job
	if j.allDone {
		return true
	}
	if !e.done {
		return false
	}
	if err := check("MPI_Test (done barrier)", e.rank, C.gp_done_test(j.c, &j.c.coll_done)); err != nil {
		j.fail(err)
		return false
	}
	j.allDone = j.c.coll_done != 0
	return j.allDone
}

func (e *endpoint) Err() error {
	if e.job.aborted {
		return e.job.abortErr
	}
	return nil
}

// eventQueue is a FIFO owned by one goroutine.
type eventQueue struct {
	evs  []conduit.Event
	head int
}

func (q *eventQueue) empty() bool { return q.head == len(q.evs) }

func (q *eventQueue) push(ev conduit.Event) { q.evs = append(q.evs, ev) }

func (q *eventQueue) pop(dst []conduit.Event) int {
	if q.head == len(q.evs) {
		return 0
	}
	n := copy(dst, q.evs[q.head:])
	q.head += n
	if q.head == len(q.evs) {
		clear(q.evs)
		q.evs = q.evs[:0]
		q.head = 0
	}
	return n
}

// reschedEvery is how long a PE's goroutine may run without passing
// through Go's scheduler: less than the 10 ms after which Go's sysmon
// thread preempts a goroutine that has not been rescheduled. A PE runs on
// the MPI thread (locked to it) and, while it spins in a wait or sits in a
// long MPI call (a flush of a window of large puts), it never reaches the
// scheduler: every 10 ms sysmon then takes its processor away (a cgo call
// counts as a system call) and hands it to another thread, and resets its
// own polling to every 20 us. On a node whose cores are all busy (the
// processes of a job spinning on each core) those sysmon wake-ups and
// thread handoffs preempt the spinning processes thousands of times a
// second: 64 KiB puts between two processes on two cores lost about a tenth
// of their bandwidth to them. A Gosched every few milliseconds keeps the
// scheduler's count moving, at the cost of one handoff of the locked
// thread (a few microseconds) per period. Assumed: 5 ms, half the limit.
const reschedEvery = 5 * time.Millisecond

// flushWork is how much posted work (an operation, plus one per 64 KiB it
// moves) passes between readings of the clock for resched: reading it on
// every flush cost a blocking put about 6% of its time, and 16 operations
// or 1 MiB take well under reschedEvery. Assumed.
const flushWork = 16

// resched passes through Go's scheduler if reschedEvery has gone by since
// the last time (see reschedEvery). Called before a flush once flushWork
// has been flushed since the last call, and on the slow path of a wait.
//
// Not on a host with more processes than processors: there the handoff
// of the locked thread is two wake-ups of threads that must each wait for
// a processor the other processes spin on, during which this PE drives no
// MPI progress for its peers. With 4 processes on 2 cores, the MPICH
// suite's RMA, atomics, locks and metamorphic tests took 21 to 294 s a
// run (a third of the runs over 70 s) with the Gosched, and 21 to 27 s in
// six runs without it. The waits there yield the processor on every poll
// (sched_yield) instead.
func (e *endpoint) resched() {
	if e.job.oversubscribed {
		return
	}
	now := time.Now()
	if now.Sub(e.lastSched) >= reschedEvery {
		e.lastSched = now
		runtime.Gosched()
	}
}
