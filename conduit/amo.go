package conduit

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"
)

// CheckPost validates the parts of a descriptor that the initiator can check
// before anything is sent: the type, mechanism and ordering, the target rank,
// the remote range against the handle's length, an AMO's operation, width
// and alignment, and a flagged get's flag word (an FMA get's only, 8 bytes,
// aligned, apart from Local). Every backend calls it from Post so that
// malformed descriptors fail the same way everywhere.
//
// The checks and the errors' texts are apart (postFault): a simulated
// backend runs Post on the PE's own stack, which keeps the size it starts
// with only while the post's frames are small.
func CheckPost(d *PostDesc, size int) error {
	if f := postFaultOf(d, size); f != postOK {
		return f.err(d, size)
	}
	if d.Flag != nil {
		return checkFlag(d)
	}
	return nil
}

// postFault is what CheckPost found wrong with a descriptor, in the order
// it checks.
type postFault uint8

const (
	postOK postFault = iota
	postNil
	postTarget
	postHandle
	postOwner
	postOrder
	postRange
	postMech
	postEmpty
	postAMOOp
	postAMOWidth
	postFAddWidth
	postAMOAlign
	postType
)

// postFaultOf is the first fault CheckPost reports for d (postOK if none;
// the flag word is checked apart).
func postFaultOf(d *PostDesc, size int) postFault {
	switch {
	case d == nil:
		return postNil
	case d.Target < 0 || d.Target >= size:
		return postTarget
	case !d.Remote.Valid():
		return postHandle
	case int(d.Remote.Owner) != d.Target:
		return postOwner
	case d.Order > OrderRelaxed:
		return postOrder
	}
	n := d.Bytes()
	if d.RemoteOffset < 0 || d.RemoteOffset > d.Remote.Bytes-n {
		return postRange
	}
	switch d.Type {
	case Put, Get:
		if d.Mech != FMA && d.Mech != BTE {
			return postMech
		}
		if len(d.Local) == 0 {
			return postEmpty
		}
	case AMO:
		switch {
		case !d.AMO.Valid():
			return postAMOOp
		case d.Width != 4 && d.Width != 8:
			return postAMOWidth
		case d.AMO == AMOFAdd && d.Width != 8:
			return postFAddWidth
		case d.RemoteOffset%int64(d.Width) != 0:
			return postAMOAlign
		}
	default:
		return postType
	}
	return postOK
}

// err is CheckPost's error for fault f of d.
//
//go:noinline
func (f postFault) err(d *PostDesc, size int) error {
	switch f {
	case postNil:
		return fmt.Errorf("post: nil descriptor")
	case postTarget:
		return fmt.Errorf("post %v: target PE %d outside the job [0,%d)", d.Type, d.Target, size)
	case postHandle:
		return fmt.Errorf("post %v to PE %d: invalid remote memory handle", d.Type, d.Target)
	case postOwner:
		return fmt.Errorf("post %v to PE %d: remote memory handle belongs to PE %d", d.Type, d.Target, d.Remote.Owner)
	case postOrder:
		return fmt.Errorf("post %v: bad ordering mode %v", d.Type, d.Order)
	case postRange:
		return fmt.Errorf("post %v to PE %d: remote range [%d,+%d) outside the %d-byte region", d.Type, d.Target, d.RemoteOffset, d.Bytes(), d.Remote.Bytes)
	case postMech:
		return fmt.Errorf("post %v: bad mechanism %v", d.Type, d.Mech)
	case postEmpty:
		return fmt.Errorf("post %v to PE %d: empty transfer", d.Type, d.Target)
	case postAMOOp:
		return fmt.Errorf("post amo: bad operation %v", d.AMO)
	case postAMOWidth:
		return fmt.Errorf("post amo %v: width %d (want 4 or 8)", d.AMO, d.Width)
	case postFAddWidth:
		return fmt.Errorf("post amo fadd: width %d (float64 add is 8 bytes)", d.Width)
	case postAMOAlign:
		return fmt.Errorf("post amo %v to PE %d: offset %d not aligned to %d bytes", d.AMO, d.Target, d.RemoteOffset, d.Width)
	case postType:
		return fmt.Errorf("post: bad type %v", d.Type)
	}
	return nil
}

// ApplyAMO performs op atomically on the width-byte word at the start of
// word, using sync/atomic, and returns the old value (zero-extended for
// width 4). The word must be aligned to width; CheckPost has verified the
// offset and segments are 8-byte aligned, so a violation here is a
// programming error in a backend and panics.
func ApplyAMO(word []byte, op AMOOp, width uint8, operand, compare uint64) uint64 {
	if width == 4 {
		p := (*uint32)(unsafe.Pointer(unsafe.SliceData(word[:4])))
		if uintptr(unsafe.Pointer(p))%4 != 0 {
			panic("conduit: misaligned 32-bit AMO word")
		}
		return uint64(amo32(p, op, uint32(operand), uint32(compare)))
	}
	p := (*uint64)(unsafe.Pointer(unsafe.SliceData(word[:8])))
	if uintptr(unsafe.Pointer(p))%8 != 0 {
		panic("conduit: misaligned 64-bit AMO word")
	}
	return amo64(p, op, operand, compare)
}

func amo64(p *uint64, op AMOOp, v, cmp uint64) uint64 {
	switch op {
	case AMOAdd:
		return atomic.AddUint64(p, v) - v
	case AMOAnd:
		return atomic.AndUint64(p, v)
	case AMOOr:
		return atomic.OrUint64(p, v)
	case AMOSwap:
		return atomic.SwapUint64(p, v)
	}
	for {
		old := atomic.LoadUint64(p)
		nv := AMOResult(op, 8, old, v, cmp)
		if nv == old || atomic.CompareAndSwapUint64(p, old, nv) {
			return old
		}
	}
}

func amo32(p *uint32, op AMOOp, v, cmp uint32) uint32 {
	switch op {
	case AMOAdd:
		return atomic.AddUint32(p, v) - v
	case AMOAnd:
		return atomic.AndUint32(p, v)
	case AMOOr:
		return atomic.OrUint32(p, v)
	case AMOSwap:
		return atomic.SwapUint32(p, v)
	}
	for {
		old := atomic.LoadUint32(p)
		nv := uint32(AMOResult(op, 4, uint64(old), uint64(v), uint64(cmp)))
		if nv == old || atomic.CompareAndSwapUint32(p, old, nv) {
			return old
		}
	}
}

// AMOResult computes, without side effects, the value op leaves in a word
// that held old: the definition of every operation. ApplyAMO follows it, and
// simulated backends, which own their memory single-threaded, call it.
// FAdd of width 4 is not defined and leaves the word unchanged.
func AMOResult(op AMOOp, width uint8, old, operand, compare uint64) uint64 {
	if width == 4 {
		return uint64(amoCompute[uint32, int32](op, uint32(old), uint32(operand), uint32(compare)))
	}
	if op == AMOFAdd {
		return math.Float64bits(math.Float64frombits(old) + math.Float64frombits(operand))
	}
	return amoCompute[uint64, int64](op, old, operand, compare)
}

// amoCompute defines the integer operations on words of type U, S being
// the signed type of the same width.
func amoCompute[U uint32 | uint64, S int32 | int64](op AMOOp, old, v, cmp U) U {
	switch op {
	case AMOAdd:
		return old + v
	case AMOAnd:
		return old & v
	case AMOOr:
		return old | v
	case AMOXor:
		return old ^ v
	case AMOSwap:
		return v
	case AMOCSwap:
		if old == cmp {
			return v
		}
	case AMOMin:
		return U(min(S(old), S(v)))
	case AMOMax:
		return U(max(S(old), S(v)))
	case AMOUMin:
		return min(old, v)
	case AMOUMax:
		return max(old, v)
	}
	return old
}
