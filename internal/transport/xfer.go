package transport

import (
	"errors"
	"fmt"
	"math"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/memreg"
)

// Put starts writing src to rank's segment at off, attaching its
// descriptors to op. The caller has checked the range. On a directly mapped
// segment the copy is done on return; otherwise src may be reused once op
// is done.
func (e *Engine) Put(op *Op, rank int, off int64, src []byte, order conduit.OrderingMode) error {
	return e.put(op, rank, off, src, order, true)
}

// PutFlag is Put for a word whose only reader is its target, waiting for
// it to change (a barrier's flag): the target sees the write when it
// becomes visible, which is all it waits for, so the put is never flushed
// (Flush). A put of data the target reads because of another signal must
// use Put.
func (e *Engine) PutFlag(op *Op, rank int, off int64, src []byte) error {
	return e.put(op, rank, off, src, conduit.OrderInherit, false)
}

func (e *Engine) put(op *Op, rank int, off int64, src []byte, order conduit.OrderingMode, flush bool) error {
	if len(src) == 0 {
		return nil
	}
	if d := e.Direct(rank); d != nil {
		copy(d[off:], src)
		e.Wake(rank)
		return nil
	}
	if flush {
		e.markUnflushed(rank, order)
	}
	if op.blocking {
		if took, err := e.now(op, conduit.Put, rank, off, src, order); took {
			return err
		}
	}
	return e.chunked(op, conduit.Put, rank, off, src, order, nil)
}

// Via names, for PutMem and GetMem, a registration of the remote PE other
// than its segment (one the peer made with Register and named in a
// message) and, when Mech is not zero, the mechanism to use instead of the
// one the FMA cutover chooses.
type Via struct {
	Mem  conduit.MemHandle
	Mech conduit.Mechanism
}

// PutMem starts writing src at offset off of the registration via.Mem of
// PE via.Mem.Owner, in pieces of the chunk size. It never takes the
// load/store shortcut: the registration need not be in a mapped segment.
func (e *Engine) PutMem(op *Op, via Via, off int64, src []byte, order conduit.OrderingMode) error {
	if len(src) == 0 {
		return nil
	}
	rank := int(via.Mem.Owner)
	e.markUnflushed(rank, order)
	return e.chunked(op, conduit.Put, rank, off, src, order, &via)
}

// GetMem starts reading len(dst) bytes at offset off of the registration
// via.Mem of PE via.Mem.Owner into dst; see PutMem.
func (e *Engine) GetMem(op *Op, via Via, off int64, dst []byte, order conduit.OrderingMode) error {
	if len(dst) == 0 {
		return nil
	}
	return e.chunked(op, conduit.Get, int(via.Mem.Owner), off, dst, order, &via)
}

// Get starts reading len(dst) bytes of rank's segment at off into dst.
func (e *Engine) Get(op *Op, rank int, off int64, dst []byte, order conduit.OrderingMode) error {
	if len(dst) == 0 {
		return nil
	}
	if d := e.Direct(rank); d != nil {
		copy(dst, d[off:])
		return nil
	}
	if op.blocking {
		if took, err := e.now(op, conduit.Get, rank, off, dst, order); took {
			return err
		}
	}
	return e.chunked(op, conduit.Get, rank, off, dst, order, nil)
}

// now carries out a blocking put or get of at most one chunk, whose local
// buffer lies in a registration of the backend's, through the endpoint's
// PostSync on the engine's own descriptor, without one from the pool (the
// shortest path a blocking access has: nothing of it outlives the call).
// It reports whether it took the transfer; an error is a refusal, and a
// failed transfer fails op, as a completion would.
func (e *Engine) now(op *Op, t conduit.PostType, rank int, off int64, buf []byte, order conduit.OrderingMode) (bool, error) {
	n := int64(len(buf))
	if e.syncer == nil || n > e.s.ChunkBytes {
		return false, nil
	}
	var h conduit.MemHandle
	if e.needReg {
		var ok bool
		if h, ok = e.ep.Registered(buf); !ok || e.oneTime[h.ID] > 0 {
			return false, nil
		}
	}
	// The descriptor's other fields stay zero: only these are ever set,
	// and PostSync changes none of them.
	d := &e.nowDesc
	mech := conduit.FMA
	if n > e.s.FMACutover {
		mech = conduit.BTE
	}
	d.Type, d.Mech, d.Order, d.Target = t, mech, order, rank
	d.Remote, d.RemoteOffset, d.Local, d.LocalMem = e.ep.SegmentHandle(rank), off, buf, h
	ev, err := e.syncer.PostSync(d)
	d.Local = nil
	if err != nil {
		return true, err
	}
	e.countIssued(t, mech)
	e.Stats.Completions++
	if err := ev.Err(); err != nil {
		op.fail(fmt.Errorf("%v of %d bytes to PE %d at offset %d: %w", t, n, rank, off, err))
	}
	return true, e.syncPoll()
}

func (e *Engine) chunked(op *Op, t conduit.PostType, rank int, off int64, buf []byte, order conduit.OrderingMode, via *Via) error {
	c := e.s.ChunkBytes
	if int64(len(buf)) > c {
		e.Stats.Chunked++
	}
	// Posting a piece may wait for a free descriptor or bounce buffer, and
	// the pieces already posted may complete meanwhile: hold the operation
	// open until all are posted, so that it is done (and OnDone runs) once.
	op.pending++
	var err error
	for len(buf) > 0 && err == nil {
		n := min(int64(len(buf)), c)
		err = e.post(op, t, rank, off, buf[:n], order, via)
		buf, off = buf[n:], off+n
	}
	op.pending--
	if op.pending == 0 && op.OnDone != nil {
		op.OnDone(op)
	}
	return err
}

// post issues one descriptor for a put or get of buf at off of rank's
// segment.
func (e *Engine) post(op *Op, t conduit.PostType, rank int, off int64, buf []byte, order conduit.OrderingMode, via *Via) error {
	d, err := e.getPD()
	if err != nil {
		return err
	}
	e.describe(d, t, rank, off, int64(len(buf)), order, via)
	local := buf
	if e.needReg {
		if local, err = e.localMem(d, t, buf); err != nil {
			e.pds.put(d)
			if errors.Is(err, memreg.ErrTableFull) && int64(len(buf)) > int64(e.s.PDBounceBytes) {
				return e.bounceInstead(op, t, rank, off, buf, order, via, err)
			}
			return err
		}
	}
	d.desc.Local = local
	return e.issue(op, d)
}

// bounceInstead moves a transfer whose buffer the network cannot register
// (its table of registered pages is full, [ORDERING] III.B: the error
// regErr) through bounce buffers, in pieces of one pooled bounce buffer,
// or of one descriptor's own bounce buffer when the pool itself cannot be
// registered.
func (e *Engine) bounceInstead(op *Op, t conduit.PostType, rank int, off int64, buf []byte, order conduit.OrderingMode, via *Via, regErr error) error {
	c := e.s.BounceCutover
	if !e.bounce.ready {
		if err := e.bounce.init(e); err != nil {
			if !errors.Is(err, memreg.ErrTableFull) {
				return err
			}
			c = int64(e.s.PDBounceBytes)
		}
	}
	if c < 1 {
		return regErr
	}
	e.Stats.RegFallbacks++
	for len(buf) > 0 {
		n := min(int64(len(buf)), c)
		if err := e.post(op, t, rank, off, buf[:n], order, via); err != nil {
			return err
		}
		buf, off = buf[n:], off+n
	}
	return nil
}

// describe fills in what a put or get of n bytes at off of rank's segment
// tells the backend besides its local buffer: FMA up to the FMA cutover,
// the block transfer engine above it.
func (e *Engine) describe(d *pd, t conduit.PostType, rank int, off, n int64, order conduit.OrderingMode, via *Via) {
	d.desc.Type = t
	d.desc.Mech = conduit.FMA
	if n > e.s.FMACutover {
		d.desc.Mech = conduit.BTE
	}
	d.desc.Order = order
	d.desc.Target = rank
	d.desc.Remote = e.ep.SegmentHandle(rank)
	if via != nil {
		d.desc.Remote = via.Mem
		if via.Mech != 0 {
			d.desc.Mech = via.Mech
		}
	}
	d.desc.RemoteOffset = off
}

// localMem gives the descriptor registered local memory for buf, on a
// backend that needs it, and returns the buffer the transfer uses
// ([GASNET-GEMINI], RDMA): buf itself when it lies in a registration, else
// the descriptor's own bounce buffer up to its size, a pooled bounce buffer
// up to the bounce cutover, and a registration of buf for this transfer
// alone above it (or, when the network cannot register it, bounce
// buffers: bounceInstead). A put's data is copied into a bounce buffer now; a get's
// is copied out when the descriptor completes. On failure the caller
// returns the descriptor to the pool.
func (e *Engine) localMem(d *pd, t conduit.PostType, buf []byte) ([]byte, error) {
	n := int64(len(buf))
	local := buf
	h, registered := e.ep.Registered(buf)
	switch {
	case registered:
		e.useRegistration(d, h)
	case n <= int64(len(d.bounce)):
		local = d.bounce[:n]
		d.desc.LocalMem = d.bounceMem
		e.Stats.PDBounced++
	case n <= e.s.BounceCutover:
		b, err := e.getBounce()
		if err != nil {
			return nil, err
		}
		d.pooled = b
		local = b.buf[:n]
		d.desc.LocalMem = b.mem
		e.Stats.Bounced++
	default:
		if err := e.registerOnce(d, buf); err != nil {
			return nil, err
		}
	}
	if &local[0] != &buf[0] {
		if t == conduit.Put {
			copy(local, buf)
			e.ChargeCopy(len(buf))
		} else {
			d.copyBack = buf
		}
	}
	return local, nil
}

// useRegistration makes the descriptor use registration h, which holds its
// local buffer. When h is another transfer's one-time registration the
// descriptor shares it, so that it outlives both.
func (e *Engine) useRegistration(d *pd, h conduit.MemHandle) {
	d.desc.LocalMem = h
	if e.oneTime[h.ID] > 0 {
		e.oneTime[h.ID]++
		d.oneTime = h
	}
}

// registerOnce registers buf for the descriptor's transfer alone; the
// registration goes when its last transfer completes (release).
func (e *Engine) registerOnce(d *pd, buf []byte) error {
	h, err := e.ep.Register(buf)
	if err != nil {
		return fmt.Errorf("registering a %d-byte buffer: %w", len(buf), err)
	}
	d.oneTime = h
	d.desc.LocalMem = h
	if e.oneTime == nil {
		e.oneTime = make(map[uint32]int)
	}
	e.oneTime[h.ID] = 1
	e.Stats.OneTimeRegs++
	return nil
}

func (e *Engine) issue(op *Op, d *pd) error {
	d.op = op
	if op.blocking && e.syncer != nil && d.desc.Type != conduit.AMO && !d.desc.RemoteEvent && d.desc.Flag == nil {
		return e.issueSync(op, d)
	}
	if err := e.ep.Post(&d.desc); err != nil {
		e.release(d)
		return err
	}
	e.countIssued(d.desc.Type, d.desc.Mech)
	op.pending++
	return nil
}

// countIssued counts an operation handed to the endpoint by its kind:
// atomics, and puts and gets by the mechanism that moves them.
func (e *Engine) countIssued(t conduit.PostType, mech conduit.Mechanism) {
	switch {
	case t == conduit.AMO:
		e.Stats.AMOs++
	case mech == conduit.FMA:
		e.Stats.FMA++
	default:
		e.Stats.BTE++
	}
}

// syncPollEvery is how many operations completed as they were posted
// (conduit.SyncPoster) the engine lets pass between polls: a PE that only
// makes blocking puts or gets never waits, and the poll serves the active
// messages and completions addressed to it meanwhile, as a wait's poll
// would. Assumed: 16, as often as the mpi backend's waits poll for
// messages (its amPollEvery).
const syncPollEvery = 16

// issueSync carries out a put or get of a blocking operation through the
// endpoint's PostSync and completes it at once.
func (e *Engine) issueSync(op *Op, d *pd) error {
	ev, err := e.syncer.PostSync(&d.desc)
	if err != nil {
		e.release(d)
		return err
	}
	e.countIssued(d.desc.Type, d.desc.Mech)
	op.pending++
	ev.Desc = &d.desc
	e.complete(&ev)
	return e.syncPoll()
}

// syncPoll counts an operation PostSync completed and polls after every
// syncPollEvery of them.
func (e *Engine) syncPoll() error {
	if e.syncDone++; e.syncDone%syncPollEvery == 0 && !e.inPoll {
		if _, err := e.Poll(); err != nil {
			return err
		}
	}
	return nil
}

// AMO starts an atomic on the width-byte word of rank's segment at off
// (aligned; the caller has checked). When result is not nil the old value
// is stored there once op is done. Operations the backend lacks (32-bit
// words, float64 add, any not in Caps.AMOOps) are emulated with a
// compare-and-swap loop on the enclosing 64-bit word, reading it with a
// fetching OR with zero (or a compare-and-swap of zero for zero, when OR is
// missing too); the emulation waits, so it is complete on return.
func (e *Engine) AMO(op *Op, rank int, off int64, amo conduit.AMOOp, width uint8, operand, compare uint64, result *uint64, order conduit.OrderingMode) error {
	if seg := e.Direct(rank); seg != nil {
		old := conduit.ApplyAMO(seg[off:off+int64(width)], amo, width, operand, compare)
		e.Wake(rank)
		if result != nil {
			*result = old
		}
		return nil
	}
	if (width == 4 && !e.amo32) || (amo == conduit.AMOFAdd && !e.floatAMO) || !e.amoOps.Has(amo) {
		return e.emulateAMO(rank, off, amo, width, operand, compare, result, order)
	}
	return e.postAMO(op, rank, off, amo, width, operand, compare, result, order)
}

func (e *Engine) postAMO(op *Op, rank int, off int64, amo conduit.AMOOp, width uint8, operand, compare uint64, result *uint64, order conduit.OrderingMode) error {
	d, err := e.getPD()
	if err != nil {
		return err
	}
	d.desc.Type = conduit.AMO
	d.desc.Mech = conduit.FMA
	d.desc.Order = order
	d.desc.Target = rank
	d.desc.Remote = e.ep.SegmentHandle(rank)
	d.desc.RemoteOffset = off
	d.desc.AMO = amo
	d.desc.Width = width
	d.desc.Operand = operand
	d.desc.Compare = compare
	d.desc.Fetch = result != nil
	d.result = result
	return e.issue(op, d)
}

// emulateAMO performs amo by reading the enclosing 64-bit word and
// compare-and-swapping the new value in until no other PE intervened.
func (e *Engine) emulateAMO(rank int, off int64, amo conduit.AMOOp, width uint8, operand, compare uint64, result *uint64, order conduit.OrderingMode) error {
	e.Stats.Emulated++
	base := off &^ 7
	shift := uint((off - base) * 8)
	// A fetching OR with zero reads the word atomically; so does a
	// compare-and-swap of zero for zero.
	cur, err := e.amoRead(rank, base, order)
	for err == nil {
		old, nv := cur, conduit.AMOResult(amo, 8, cur, operand, compare)
		if width == 4 {
			old = (cur >> shift) & math.MaxUint32
			nv = cur&^(math.MaxUint32<<shift) | conduit.AMOResult(amo, 4, old, operand, compare)<<shift
		}
		var got uint64
		if nv != cur {
			got, err = e.amoNow(rank, base, conduit.AMOCSwap, nv, cur, order)
		}
		if err == nil && (nv == cur || got == cur) {
			if result != nil {
				*result = old
			}
			return nil
		}
		cur = got // another PE changed the word first: retry on its value
	}
	return err
}

func (e *Engine) amoRead(rank int, off int64, order conduit.OrderingMode) (uint64, error) {
	if e.amoOps.Has(conduit.AMOOr) {
		return e.amoNow(rank, off, conduit.AMOOr, 0, 0, order)
	}
	return e.amoNow(rank, off, conduit.AMOCSwap, 0, 0, order)
}

// amoNow performs a fetching 64-bit AMO and waits for its old value.
func (e *Engine) amoNow(rank int, off int64, amo conduit.AMOOp, operand, compare uint64, order conduit.OrderingMode) (uint64, error) {
	var op Op
	var old uint64
	if err := e.postAMO(&op, rank, off, amo, 8, operand, compare, &old, order); err != nil {
		return 0, err
	}
	if err := e.Wait("an emulated atomic", &op); err != nil {
		return 0, err
	}
	return old, op.Err()
}
