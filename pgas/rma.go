package pgas

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/errs"
	"github.com/gopgas/gopgas/internal/transport"
)

// Accessor carries out one-sided accesses (RMA) in one access mode. Every
// PE embeds one in its default mode; PE.With returns one in another.
// Offsets are byte offsets into the target's segment; symmetric
// allocations have the same offset on every PE. Every range accessed must
// lie inside one live allocation (PE.Alloc): a range in the reserved area
// (below ReservedBytes) or past the segment fails with ErrRange, one
// outside every live allocation (freed, or never allocated) with
// ErrNotAllocated, before anything is transferred.
//
// The zero Accessor, and one whose mode is neither Relaxed nor Strict
// (PE.With of another value), fail every operation with ErrArgument.
//
// Completion, for each kind of call:
//   - Put, Get and their vector, strided and indexed forms block until the
//     operation is complete: a put's data delivered at the target, a get's
//     data in dst. In Strict mode they first complete every earlier
//     operation of the PE, and a put is globally visible on return.
//   - The NB forms return a Handle; src and dst must not be touched until
//     the handle completes (Handle.Wait or Test), with the same meaning.
//   - The NBI forms return at once; their operations complete at the next
//     SyncNBIPuts, SyncNBIGets, SyncNBI, Fence, Quiet or Barrier, or with
//     the Handle of the access region they were issued in.
type Accessor struct {
	pe   *PE
	mode Mode
}

// Mode is the accessor's access mode.
func (a Accessor) Mode() Mode { return a.mode }

// order is the network ordering of an access.
func (a Accessor) order() conduit.OrderingMode {
	if a.mode == Strict {
		return conduit.OrderStrict
	}
	return conduit.OrderInherit
}

// Span is n bytes at offset Off of a segment.
type Span struct{ Off, Len int64 }

// piece is one contiguous transfer of a composite access.
type piece struct {
	off   int64
	local []byte
}

// begin checks what every access shares and, in Strict mode, completes
// the PE's earlier operations.
func (a Accessor) begin(op string, target int, blocking bool) error {
	pe := a.pe
	if pe == nil {
		return &Error{PE: -1, Op: op, Err: &errs.Detail{Msg: "the zero Accessor (use PE.With)", Sentinel: ErrArgument}}
	}
	var err error
	if a.mode != Relaxed && a.mode != Strict {
		return pe.errf(op, ErrArgument, "access mode %v (given to With) is neither Relaxed nor Strict", a.mode)
	}
	if blocking {
		err = pe.blocking(op)
	} else {
		err = pe.usable(op)
		if err == nil && pe.eng.InPoll() {
			err = pe.errf(op, ErrInHandler, "not allowed in an active-message handler")
		}
	}
	if err == nil {
		err = pe.checkPE(op, target)
	}
	if err == nil && a.mode == Strict {
		err = pe.quiet(op)
	}
	return err
}

// issue starts the pieces on op.
func (a Accessor) issue(op *transport.Op, put bool, target int, ps []piece) error {
	pe := a.pe
	// A strict access to a mapped segment, checked by now, is copied here
	// word by word; a relaxed one leaves the shortcut to the engine.
	var strict []byte
	if a.mode == Strict {
		strict = pe.eng.Direct(target)
	}
	for _, p := range ps {
		var err error
		switch {
		case strict != nil:
			transport.CopyStrict(strict, p.off, p.local, put)
			if put {
				pe.eng.Wake(target)
			}
		case put:
			err = pe.eng.Put(op, target, p.off, p.local, a.order())
		default:
			err = pe.eng.Get(op, target, p.off, p.local, a.order())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// blockingXfer runs a composite access to completion.
func (a Accessor) blockingXfer(name string, put bool, target int, ps []piece) error {
	pe := a.pe
	op := &pe.blockOp
	op.Reset()
	op.SetBlocking()
	if err := a.issue(op, put, target, ps); err != nil {
		if !op.Done() {
			_ = pe.eng.Wait("an abandoned transfer", op)
		}
		return pe.wrap(name, err)
	}
	if err := pe.eng.Wait(name, op); err != nil {
		return pe.wrap(name, err)
	}
	return pe.wrap(name, op.Err())
}

// nbXfer starts a composite access on a new handle.
func (a Accessor) nbXfer(name string, put bool, target int, ps []piece) (Handle, error) {
	h, s := a.pe.newHandle()
	if err := a.issue(&s.op, put, target, ps); err != nil {
		_ = h.Wait()
		return Handle{}, a.pe.wrap(name, err)
	}
	return h, nil
}

// nbiXfer starts a composite access as implicit-handle operations.
func (a Accessor) nbiXfer(name string, put bool, target int, ps []piece) error {
	pe := a.pe
	op := &pe.nbiGet
	if put {
		op = &pe.nbiPut
	}
	if pe.region != nil {
		op = &pe.region.op
	}
	return pe.wrap(name, a.issue(op, put, target, ps))
}

// one checks a contiguous access to an allocation of generation gen
// (0: any live one).
func (a Accessor) one(op string, target int, off int64, buf []byte, blocking bool, gen uint64) ([]piece, error) {
	if err := a.begin(op, target, blocking); err != nil {
		return nil, err
	}
	if err := a.pe.checkMem(op, target, off, int64(len(buf)), gen); err != nil {
		return nil, err
	}
	ps := a.pe.pieceBuf[:0]
	return append(ps, piece{off, buf}), nil
}

// The load/store shortcut: an access to a peer whose segment the backend
// maps is a plain copy instead of a posted descriptor. Whether the target
// can be reached so is the engine's test (transport.Engine.Direct, which
// reads the table DirectSegments returns). An access the runtime has not
// checked yet is decided here, in two tiers of one predicate: direct
// answers on the allocation the last check found, which is all a run of
// accesses to one allocation needs, and directMiss answers for any
// access. A caller asks direct first and, when it says no, directMiss,
// before it takes the general path. Accesses that have been checked (the
// handle, composite and strict forms) meet the shortcut inside the
// engine's Put, Get and AMO, or, strict ones, in issue, which copies whole
// words.

// direct returns target's segment when a relaxed access to [off, off+n)
// of an allocation of generation gen (0: any live one) can be done at once
// by load/store, judging by the allocation the last check found, and nil
// when directMiss must decide. Besides the engine's answer for the target,
// the access must be relaxed (the zero Accessor, whose PE is nil, is not),
// lie inside that allocation, and come from a PE that is not in an
// active-message handler and whose job has not ended. It is the fast
// path's test, so it calls nothing that is not inlined, and it reads the
// engine's table itself, in the order measured to be the cheapest.
func (a Accessor) direct(target int, off, n int64, gen uint64) []byte {
	if a.mode != Relaxed {
		return nil
	}
	pe := a.pe
	segs := pe.eng.DirectSegments() // nil unless the backend maps segments
	// An ended PE's heap hits nothing (heap.close), so this need not look
	// at the end of the PE's program; directMiss does.
	if uint(target) >= uint(len(segs)) || !pe.heap.hits(off, n, gen) || pe.eng.InPoll() || pe.jobEnded() {
		return nil
	}
	return segs[target]
}

// directMiss is direct for any access: it checks the range against every
// live allocation (remembering the one found, for the next access), or
// takes the caller's word for it (checkedGen), and looks at the end of the
// PE's program. nil means that the access takes the general path, which
// also reports whatever is wrong with it.
func (a Accessor) directMiss(target int, off, n int64, gen uint64) []byte {
	if a.mode != Relaxed {
		return nil
	}
	pe := a.pe
	seg := pe.eng.Direct(target)
	if seg == nil || pe.ended || pe.eng.InPoll() || pe.jobEnded() || n < 0 || !pe.heap.ok(off, n, gen) {
		return nil
	}
	return seg
}

// Put copies src to target's segment at off.
func (a Accessor) Put(target int, off int64, src []byte) error {
	if seg := a.direct(target, off, int64(len(src)), 0); seg != nil {
		copy(seg[off:], src)
		a.pe.eng.Wake(target)
		return nil
	}
	return a.putSlow("Put", target, off, src, 0)
}

// put is Put for the package's callers: the operation to name and the
// allocation's generation (or checkedGen).
func (a Accessor) put(name string, target int, off int64, src []byte, gen uint64) error {
	if seg := a.direct(target, off, int64(len(src)), gen); seg != nil {
		copy(seg[off:], src)
		a.pe.eng.Wake(target)
		return nil
	}
	return a.putSlow(name, target, off, src, gen)
}

// putSlow is put once direct said no.
func (a Accessor) putSlow(name string, target int, off int64, src []byte, gen uint64) error {
	if seg := a.directMiss(target, off, int64(len(src)), gen); seg != nil {
		copy(seg[off:], src)
		a.pe.eng.Wake(target)
		return nil
	}
	ps, err := a.one(name, target, off, src, true, gen)
	if err != nil {
		return err
	}
	return a.blockingXfer(name, true, target, ps)
}

// Get copies len(dst) bytes of target's segment at off into dst.
func (a Accessor) Get(target int, off int64, dst []byte) error {
	if seg := a.direct(target, off, int64(len(dst)), 0); seg != nil {
		copy(dst, seg[off:])
		return nil
	}
	return a.getSlow("Get", target, off, dst, 0)
}

// get is Get for the package's callers, as put is Put.
func (a Accessor) get(name string, target int, off int64, dst []byte, gen uint64) error {
	if seg := a.direct(target, off, int64(len(dst)), gen); seg != nil {
		copy(dst, seg[off:])
		return nil
	}
	return a.getSlow(name, target, off, dst, gen)
}

// getSlow is get once direct said no.
func (a Accessor) getSlow(name string, target int, off int64, dst []byte, gen uint64) error {
	if seg := a.directMiss(target, off, int64(len(dst)), gen); seg != nil {
		copy(dst, seg[off:])
		return nil
	}
	ps, err := a.one(name, target, off, dst, true, gen)
	if err != nil {
		return err
	}
	return a.blockingXfer(name, false, target, ps)
}

// PutNB starts a Put and returns its handle.
func (a Accessor) PutNB(target int, off int64, src []byte) (Handle, error) {
	return a.putNB(target, off, src, 0)
}

func (a Accessor) putNB(target int, off int64, src []byte, gen uint64) (Handle, error) {
	ps, err := a.one("PutNB", target, off, src, false, gen)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("PutNB", true, target, ps)
}

// GetNB starts a Get and returns its handle.
func (a Accessor) GetNB(target int, off int64, dst []byte) (Handle, error) {
	return a.getNB(target, off, dst, 0)
}

func (a Accessor) getNB(target int, off int64, dst []byte, gen uint64) (Handle, error) {
	ps, err := a.one("GetNB", target, off, dst, false, gen)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("GetNB", false, target, ps)
}

// PutNBI starts a Put with an implicit handle.
func (a Accessor) PutNBI(target int, off int64, src []byte) error {
	if seg := a.direct(target, off, int64(len(src)), 0); seg != nil {
		copy(seg[off:], src)
		a.pe.eng.Wake(target)
		return nil
	}
	return a.putNBI(target, off, src, 0)
}

// putNBI is PutNBI for an allocation of generation gen (or checkedGen),
// after any fast path.
func (a Accessor) putNBI(target int, off int64, src []byte, gen uint64) error {
	seg := a.direct(target, off, int64(len(src)), gen)
	if seg == nil {
		seg = a.directMiss(target, off, int64(len(src)), gen)
	}
	if seg != nil {
		copy(seg[off:], src)
		a.pe.eng.Wake(target)
		return nil
	}
	ps, err := a.one("PutNBI", target, off, src, false, gen)
	if err != nil {
		return err
	}
	return a.nbiXfer("PutNBI", true, target, ps)
}

// GetNBI starts a Get with an implicit handle.
func (a Accessor) GetNBI(target int, off int64, dst []byte) error {
	if seg := a.direct(target, off, int64(len(dst)), 0); seg != nil {
		copy(dst, seg[off:])
		return nil
	}
	return a.getNBI(target, off, dst, 0)
}

// getNBI is GetNBI for an allocation of generation gen (or checkedGen),
// after any fast path.
func (a Accessor) getNBI(target int, off int64, dst []byte, gen uint64) error {
	seg := a.direct(target, off, int64(len(dst)), gen)
	if seg == nil {
		seg = a.directMiss(target, off, int64(len(dst)), gen)
	}
	if seg != nil {
		copy(dst, seg[off:])
		return nil
	}
	ps, err := a.one("GetNBI", target, off, dst, false, gen)
	if err != nil {
		return err
	}
	return a.nbiXfer("GetNBI", false, target, ps)
}

// vector pairs remote spans with local buffers of the same total length.
func (a Accessor) vector(op string, target int, remote []Span, local [][]byte, blocking bool) ([]piece, error) {
	pe := a.pe
	if err := a.begin(op, target, blocking); err != nil {
		return nil, err
	}
	var rn, ln int64
	for _, s := range remote {
		if err := pe.checkMem(op, target, s.Off, s.Len, 0); err != nil {
			return nil, err
		}
		rn += s.Len
	}
	for _, b := range local {
		ln += int64(len(b))
	}
	if rn != ln {
		return nil, pe.errf(op, ErrArgument, "remote spans hold %d bytes but local buffers %d", rn, ln)
	}
	ps := pe.pieceBuf[:0]
	li, lo := 0, 0
	for _, s := range remote {
		off, left := s.Off, s.Len
		for left > 0 {
			for len(local[li])-lo == 0 {
				li, lo = li+1, 0
			}
			n := min(left, int64(len(local[li])-lo))
			ps = append(ps, piece{off, local[li][lo : lo+int(n)]})
			off, left, lo = off+n, left-n, lo+int(n)
		}
	}
	pe.pieceBuf = ps[:0]
	return ps, nil
}

// PutV writes the local buffers, in order, to the remote spans, in order;
// the two lists hold the same number of bytes.
func (a Accessor) PutV(target int, dst []Span, src [][]byte) error {
	ps, err := a.vector("PutV", target, dst, src, true)
	if err != nil {
		return err
	}
	return a.blockingXfer("PutV", true, target, ps)
}

// GetV reads the remote spans, in order, into the local buffers, in order.
func (a Accessor) GetV(target int, src []Span, dst [][]byte) error {
	ps, err := a.vector("GetV", target, src, dst, true)
	if err != nil {
		return err
	}
	return a.blockingXfer("GetV", false, target, ps)
}

// PutVNB is the non-blocking PutV.
func (a Accessor) PutVNB(target int, dst []Span, src [][]byte) (Handle, error) {
	ps, err := a.vector("PutVNB", target, dst, src, false)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("PutVNB", true, target, ps)
}

// GetVNB is the non-blocking GetV.
func (a Accessor) GetVNB(target int, src []Span, dst [][]byte) (Handle, error) {
	ps, err := a.vector("GetVNB", target, src, dst, false)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("GetVNB", false, target, ps)
}

// indexed pairs blocks of one size at remote offsets, in an allocation of
// generation gen (0: any live ones), with consecutive blocks of a local
// buffer.
func (a Accessor) indexed(op string, target int, offs []int64, block int64, local []byte, blocking bool, gen uint64) ([]piece, error) {
	pe := a.pe
	if err := a.begin(op, target, blocking); err != nil {
		return nil, err
	}
	if block <= 0 || int64(len(local)) != block*int64(len(offs)) {
		return nil, pe.errf(op, ErrArgument, "%d blocks of %d bytes need a %d-byte local buffer, got %d", len(offs), block, block*int64(len(offs)), len(local))
	}
	ps := pe.pieceBuf[:0]
	for i, off := range offs {
		if err := pe.checkMem(op, target, off, block, gen); err != nil {
			return nil, err
		}
		ps = append(ps, piece{off, local[int64(i)*block : int64(i+1)*block]})
	}
	pe.pieceBuf = ps[:0]
	return ps, nil
}

// PutIndexed writes consecutive blocks of src to the remote offsets offs.
func (a Accessor) PutIndexed(target int, offs []int64, blockBytes int64, src []byte) error {
	ps, err := a.indexed("PutIndexed", target, offs, blockBytes, src, true, 0)
	if err != nil {
		return err
	}
	return a.blockingXfer("PutIndexed", true, target, ps)
}

// GetIndexed reads blocks at the remote offsets offs into consecutive
// blocks of dst.
func (a Accessor) GetIndexed(target int, offs []int64, blockBytes int64, dst []byte) error {
	ps, err := a.indexed("GetIndexed", target, offs, blockBytes, dst, true, 0)
	if err != nil {
		return err
	}
	return a.blockingXfer("GetIndexed", false, target, ps)
}

// PutIndexedNB is the non-blocking PutIndexed.
func (a Accessor) PutIndexedNB(target int, offs []int64, blockBytes int64, src []byte) (Handle, error) {
	ps, err := a.indexed("PutIndexedNB", target, offs, blockBytes, src, false, 0)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("PutIndexedNB", true, target, ps)
}

// GetIndexedNB is the non-blocking GetIndexed.
func (a Accessor) GetIndexedNB(target int, offs []int64, blockBytes int64, dst []byte) (Handle, error) {
	ps, err := a.indexed("GetIndexedNB", target, offs, blockBytes, dst, false, 0)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("GetIndexedNB", false, target, ps)
}

// Strided describes a GASNet-style strided section: Count[0] contiguous
// bytes, repeated Count[1] times at stride Strides[0], the whole repeated
// Count[2] times at stride Strides[1], and so on. len(Strides) is
// len(Count)-1.
type Strided struct {
	Count   []int64
	Strides []int64
}

// maxStridedElems bounds the contiguous pieces of one strided access, each
// of which becomes a transfer descriptor.
const maxStridedElems = 1 << 24

// strided pairs a remote strided section, in an allocation of generation
// gen (0: any live ones), and a local one of the same shape.
func (a Accessor) strided(op string, target int, roff int64, rstrides []int64, local []byte, lstrides []int64, count []int64, blocking bool, gen uint64) ([]piece, error) {
	pe := a.pe
	if err := a.begin(op, target, blocking); err != nil {
		return nil, err
	}
	d := len(count) - 1
	if d < 0 || len(rstrides) != d || len(lstrides) != d {
		return nil, pe.errf(op, ErrArgument, "count has %d entries, strides %d and %d (want %d each)", len(count), len(rstrides), len(lstrides), max(d, 0))
	}
	elems := int64(1)
	for i, c := range count {
		if c <= 0 {
			return nil, pe.errf(op, ErrArgument, "count[%d]=%d is not positive", i, c)
		}
		if i > 0 {
			if c > maxStridedElems/elems {
				return nil, pe.errf(op, ErrRange, "count %v describes more than %d elements", count, maxStridedElems)
			}
			elems *= c
			if rstrides[i-1] < 0 || lstrides[i-1] < 0 {
				return nil, pe.errf(op, ErrArgument, "negative stride in dimension %d", i)
			}
		}
	}
	ps := pe.pieceBuf[:0]
	idx := make([]int64, d)
	for e := int64(0); e < elems; e++ {
		ro, lo := roff, int64(0)
		for i, x := range idx {
			ro += x * rstrides[i]
			lo += x * lstrides[i]
		}
		if err := pe.checkMem(op, target, ro, count[0], gen); err != nil {
			return nil, err
		}
		if lo+count[0] > int64(len(local)) {
			return nil, pe.errf(op, ErrRange, "local section reaches byte %d of a %d-byte buffer", lo+count[0], len(local))
		}
		ps = append(ps, piece{ro, local[lo : lo+count[0]]})
		for i := range idx {
			if idx[i]++; idx[i] < count[i+1] {
				break
			}
			idx[i] = 0
		}
	}
	pe.pieceBuf = ps[:0]
	return ps, nil
}

// PutStrided writes the local strided section of src to the remote one at
// dstOff; both have the shape count.
func (a Accessor) PutStrided(target int, dstOff int64, dstStrides []int64, src []byte, srcStrides []int64, count []int64) error {
	ps, err := a.strided("PutStrided", target, dstOff, dstStrides, src, srcStrides, count, true, 0)
	if err != nil {
		return err
	}
	return a.blockingXfer("PutStrided", true, target, ps)
}

// GetStrided reads the remote strided section at srcOff into the local one
// of dst.
func (a Accessor) GetStrided(target int, srcOff int64, srcStrides []int64, dst []byte, dstStrides []int64, count []int64) error {
	ps, err := a.strided("GetStrided", target, srcOff, srcStrides, dst, dstStrides, count, true, 0)
	if err != nil {
		return err
	}
	return a.blockingXfer("GetStrided", false, target, ps)
}

// PutStridedNB is the non-blocking PutStrided.
func (a Accessor) PutStridedNB(target int, dstOff int64, dstStrides []int64, src []byte, srcStrides []int64, count []int64) (Handle, error) {
	ps, err := a.strided("PutStridedNB", target, dstOff, dstStrides, src, srcStrides, count, false, 0)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("PutStridedNB", true, target, ps)
}

// GetStridedNB is the non-blocking GetStrided.
func (a Accessor) GetStridedNB(target int, srcOff int64, srcStrides []int64, dst []byte, dstStrides []int64, count []int64) (Handle, error) {
	ps, err := a.strided("GetStridedNB", target, srcOff, srcStrides, dst, dstStrides, count, false, 0)
	if err != nil {
		return Handle{}, err
	}
	return a.nbXfer("GetStridedNB", false, target, ps)
}

// SyncNBIPuts completes every implicit-handle put issued outside an access
// region and returns the first error among them.
func (pe *PE) SyncNBIPuts() error { return pe.syncNBI("SyncNBIPuts", &pe.nbiPut) }

// SyncNBIGets completes every implicit-handle get issued outside an access
// region.
func (pe *PE) SyncNBIGets() error { return pe.syncNBI("SyncNBIGets", &pe.nbiGet) }

// SyncNBI completes every implicit-handle operation issued outside an
// access region.
func (pe *PE) SyncNBI() error {
	err := pe.SyncNBIPuts()
	if err2 := pe.SyncNBIGets(); err == nil {
		err = err2
	}
	return err
}

func (pe *PE) syncNBI(name string, op *transport.Op) error {
	if err := pe.blocking(name); err != nil {
		return err
	}
	if err := pe.eng.Wait("implicit-handle operations", op); err != nil {
		return pe.wrap(name, err)
	}
	err := op.Err()
	op.Reset()
	return pe.wrap(name, err)
}

// BeginRegion opens an access region: the implicit-handle operations
// issued until EndRegion complete through the one Handle EndRegion
// returns. Regions do not nest.
func (pe *PE) BeginRegion() error {
	if err := pe.usable("BeginRegion"); err != nil {
		return err
	}
	if pe.region != nil {
		return pe.errf("BeginRegion", ErrArgument, "an access region is already open")
	}
	_, s := pe.newHandle()
	pe.region = s
	return nil
}

// EndRegion closes the access region and returns the Handle of its
// operations.
func (pe *PE) EndRegion() (Handle, error) {
	if err := pe.usable("EndRegion"); err != nil {
		return Handle{}, err
	}
	s := pe.region
	if s == nil {
		return Handle{}, pe.errf("EndRegion", ErrArgument, "no access region is open")
	}
	pe.region = nil
	return Handle{pe: pe, s: s, gen: s.gen}, nil
}
