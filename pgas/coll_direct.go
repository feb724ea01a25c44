package pgas

import (
	"unsafe"

	"github.com/gopgas/gopgas/internal/transport"
)

// Small allreduces on a team whose members' segments this PE can all reach
// by load and store (Caps.DirectAccess: the smp backend, or the mpi
// backend within one node) go through flags in the reserved part of the
// segments, as the barrier does, instead of active messages: recursive
// doubling over the largest power of two p of members, the members beyond
// p folding their contribution into member rank-p first and taking the
// result from it at the end.
//
// Each round has a slot of its own in the receiving member's segment: the
// data, then a word holding the allreduce's epoch and the data's length,
// stored after the data. A member reads a slot once the word shows the
// epoch it waits for. Slots alternate between two sets by the epoch's
// parity: a member can be at most one allreduce ahead of another (an
// allreduce ends only after every member has entered it), so a slot is
// never written while its previous contents may still be read.
//
// Both partners of a round combine the two halves in the same order (the
// lower team rank's first), so every member ends with the same bits, for
// floating point too.
const (
	// directTeams is how many teams (by team slot, the world first) have
	// allreduce slots.
	directTeams = 24
	// directRounds bounds the recursive-doubling rounds: teams of up to
	// 2*256-1 members.
	directRounds = 8
	// Slots per parity: the rounds, the fold-in and the fold-out.
	directSlots     = directRounds + 2
	slotFoldIn      = directRounds
	slotFoldOut     = directRounds + 1
	directSlotBytes = 64
	// directDataBytes is the largest allreduce (in bytes per member) that
	// goes through the flags; larger ones use active messages.
	directDataBytes = directSlotBytes - 8
	directLenBits   = 6 // the length's bits in the slot's word
	directOff       = (reservedEnd + directSlotBytes - 1) / directSlotBytes * directSlotBytes
	directEnd       = directOff + directTeams*2*directSlots*directSlotBytes
)

var (
	_ = [ReservedBytes - directEnd]struct{}{}              // the slots fit
	_ = [1<<directLenBits - 1 - directDataBytes]struct{}{} // the length fits its bits
)

// directSlotOff is the offset of team id's slot s for the epoch's parity.
func directSlotOff(id int, epoch uint64, s int) int64 {
	return int64(directOff + ((id*2+int(epoch&1))*directSlots+s)*directSlotBytes)
}

// clearDirectSlots clears a team slot's allreduce words, which may hold
// epochs of a destroyed team that had the slot.
func (pe *PE) clearDirectSlots(id int) {
	if id >= directTeams {
		return
	}
	for p := range uint64(2) {
		for s := range directSlots {
			transport.StoreWord(pe.seg, directSlotOff(id, p, s)+directDataBytes, 8, 0)
		}
	}
}

// allDirect reports whether every member's segment can be reached by load
// and store (worked out once per team).
func (t *Team) allDirect() bool {
	if t.direct == 0 {
		t.direct = 1
		for r := range t.size {
			if t.pe.eng.Direct(t.global(r)) == nil {
				t.direct = -1
				break
			}
		}
	}
	return t.direct > 0
}

// directAllreduce runs an allreduce of n bytes per member through the
// flags when it can; ok is false when it cannot and the active-message
// algorithm must. It takes the team's next allreduce epoch even when the
// arguments are wrong, so that the members' next allreduces still match.
func directAllreduce[T Number](t *Team, op ReduceOp, in, out []T) (ok bool, err error) {
	n := len(in) * int(unsafe.Sizeof(T(0)))
	if t.id >= directTeams || n == 0 || n > directDataBytes || t.size < 2 || t.size >= 2<<directRounds || !t.allDirect() {
		return false, nil
	}
	pe := t.pe
	t.arEpoch++
	e := t.arEpoch
	if len(out) != len(in) {
		return true, pe.errf("Allreduce", ErrArgument, "out has %d elements, in %d", len(out), len(in))
	}
	if !validOp[T](op) {
		_, err := combiner[T](pe, "Allreduce", op)
		return true, err
	}
	var accBuf, tmpBuf [directDataBytes / 8]uint64 // aligned for any T
	acc := unsafe.Slice((*T)(unsafe.Pointer(&accBuf[0])), len(in))
	tmp := unsafe.Slice((*T)(unsafe.Pointer(&tmpBuf[0])), len(in))
	copy(acc, in)
	p := 1
	for p*2 <= t.size {
		p *= 2
	}
	r := t.rank
	if r >= p {
		// Fold in at r-p, take the result from it.
		t.directSend(r-p, e, slotFoldIn, asBytes(acc))
		if err := t.directRecv(r-p, e, slotFoldOut, asBytes(out)); err != nil {
			return true, err
		}
		return true, nil
	}
	if r+p < t.size {
		if err := t.directRecv(r+p, e, slotFoldIn, asBytes(tmp)); err != nil {
			return true, err
		}
		combineInto(op, acc, tmp)
	}
	for k, mask := 0, 1; mask < p; k, mask = k+1, mask<<1 {
		partner := r ^ mask
		t.directSend(partner, e, k, asBytes(acc))
		if err := t.directRecv(partner, e, k, asBytes(tmp)); err != nil {
			return true, err
		}
		if r < partner {
			combineInto(op, acc, tmp)
		} else {
			combineInto(op, tmp, acc)
			copy(acc, tmp)
		}
	}
	if r+p < t.size {
		t.directSend(r+p, e, slotFoldOut, asBytes(acc))
	}
	copy(out, acc)
	return true, nil
}

// directSend stores data into team rank to's slot s for epoch e, then the
// slot's word, and wakes it. It cannot fail: the slot is in the peer's
// mapped segment, and the caller checked the data fits.
func (t *Team) directSend(to int, e uint64, s int, data []byte) {
	pe := t.pe
	g := t.global(to)
	seg := pe.eng.Direct(g)
	off := directSlotOff(t.id, e, s)
	copy(seg[off:off+int64(len(data))], data)
	transport.StoreWord(seg, off+directDataBytes, 8, e<<directLenBits|uint64(len(data)))
	pe.eng.Wake(g)
}

// directRecv waits for this PE's slot s to hold team rank from's data of
// epoch e and copies it into dst, whose length it must have.
func (t *Team) directRecv(from int, e uint64, s int, dst []byte) error {
	pe := t.pe
	off := directSlotOff(t.id, e, s)
	pe.flag = flagCond{seg: pe.seg, off: off + directDataBytes, want: e << directLenBits}
	if err := pe.eng.Wait("an allreduce", &pe.flag); err != nil {
		return pe.wrap("Allreduce", err)
	}
	w := transport.LoadWord(pe.seg, off+directDataBytes, 8)
	if got := int(w & (1<<directLenBits - 1)); got != len(dst) {
		return pe.errf("Allreduce", ErrMismatch, "PE %d contributed %d bytes where %d were expected", t.global(from), got, len(dst))
	}
	copy(dst, pe.seg[off:off+int64(len(dst))])
	return nil
}

// validOp reports whether op is defined on T (combiner gives the error).
func validOp[T Number](op ReduceOp) bool {
	switch op {
	case Sum, Prod, Min, Max:
		return true
	case And, Or, Xor:
		return !isFloat[T]()
	}
	return false
}

// combineInto sets dst[i] = dst[i] op src[i]; op is valid for T.
func combineInto[T Number](op ReduceOp, dst, src []T) {
	switch op {
	case Sum:
		for i := range dst {
			dst[i] += src[i]
		}
	case Prod:
		for i := range dst {
			dst[i] *= src[i]
		}
	case Min:
		for i := range dst {
			dst[i] = min(dst[i], src[i])
		}
	case Max:
		for i := range dst {
			dst[i] = max(dst[i], src[i])
		}
	default:
		f := bitwise[T](op)
		for i := range dst {
			dst[i] = f(dst[i], src[i])
		}
	}
}
