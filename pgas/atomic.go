package pgas

import (
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// AtomicOp is an atomic read-modify-write operation on a remote word.
type AtomicOp uint8

const (
	AtomicAdd  AtomicOp = iota + 1 // add (float64: floating-point add)
	AtomicAnd                      // bitwise and (integers)
	AtomicOr                       // bitwise or (integers)
	AtomicXor                      // bitwise xor (integers)
	AtomicSwap                     // store the operand
	AtomicMin                      // minimum (integers; signed or unsigned as T)
	AtomicMax                      // maximum (integers; signed or unsigned as T)
)

var atomicNames = [...]string{"", "add", "and", "or", "xor", "swap", "min", "max"}

// String returns the operation's name.
func (op AtomicOp) String() string {
	if op > 0 && int(op) < len(atomicNames) {
		return atomicNames[op]
	}
	return "AtomicOp(?)"
}

// Word is the types atomics work on: 32- and 64-bit integers, and float64
// for add, swap, compare-and-swap, load and store.
type Word interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~float64
}

// wordInfo describes T for the conduit.
func wordInfo[T Word]() (width uint8, float, signed bool) {
	var one T = 1
	var neg T
	neg--
	return uint8(unsafe.Sizeof(one)), one/2 != 0, neg < 0
}

func wordBits[T Word](v T) uint64 {
	if unsafe.Sizeof(v) == 4 {
		return uint64(*(*uint32)(unsafe.Pointer(&v)))
	}
	return *(*uint64)(unsafe.Pointer(&v))
}

func fromBits[T Word](u uint64) T {
	var v T
	if unsafe.Sizeof(v) == 4 {
		*(*uint32)(unsafe.Pointer(&v)) = uint32(u)
	} else {
		*(*uint64)(unsafe.Pointer(&v)) = u
	}
	return v
}

// amoFor maps an operation on T to the conduit's.
func amoFor[T Word](pe *PE, name string, op AtomicOp) (conduit.AMOOp, error) {
	_, float, signed := wordInfo[T]()
	var zero T
	switch op {
	case AtomicAdd:
		if float {
			return conduit.AMOFAdd, nil
		}
		return conduit.AMOAdd, nil
	case AtomicSwap:
		return conduit.AMOSwap, nil
	}
	if float {
		return 0, pe.errf(name, ErrArgument, "%v is not defined on %T", op, zero)
	}
	switch op {
	case AtomicAnd:
		return conduit.AMOAnd, nil
	case AtomicOr:
		return conduit.AMOOr, nil
	case AtomicXor:
		return conduit.AMOXor, nil
	case AtomicMin:
		if signed {
			return conduit.AMOMin, nil
		}
		return conduit.AMOUMin, nil
	case AtomicMax:
		if signed {
			return conduit.AMOMax, nil
		}
		return conduit.AMOUMax, nil
	}
	return 0, pe.errf(name, ErrArgument, "unknown atomic operation %d", op)
}

// amoCheck validates an atomic's target, a word of an allocation of
// generation gen (0: any live one), and, in Strict mode, completes the
// PE's earlier operations.
func (pe *PE) amoCheck(name string, blocking bool, p int, off int64, width uint8, gen uint64) error {
	var err error
	if blocking {
		err = pe.blocking(name)
	} else {
		err = pe.usable(name)
	}
	if err == nil {
		err = pe.checkMem(name, p, off, int64(width), gen)
	}
	if err == nil && off%int64(width) != 0 {
		err = pe.errf(name, ErrMisaligned, "offset %d on PE %d is not aligned to %d bytes", off, p, width)
	}
	if err == nil && pe.Accessor.mode == Strict {
		err = pe.quiet(name)
	}
	return err
}

func (pe *PE) amoOrder() conduit.OrderingMode {
	return pe.Accessor.order()
}

// amoBlocking performs an atomic and waits for it.
func amoBlocking[T Word](pe *PE, name string, op conduit.AMOOp, p GPtr[T], operand, compare uint64, fetch bool) (T, error) {
	width := uint8(unsafe.Sizeof(T(0)))
	// Fast path: a relaxed atomic on an aligned word of a mapped segment
	// is one instruction.
	if p.Off%int64(width) == 0 {
		seg := pe.Accessor.direct(p.PE, p.Off, int64(width), p.gen)
		if seg == nil {
			seg = pe.Accessor.directMiss(p.PE, p.Off, int64(width), p.gen)
		}
		if seg != nil {
			old := conduit.ApplyAMO(seg[p.Off:], op, width, operand, compare)
			pe.eng.Wake(p.PE)
			return fromBits[T](old), nil
		}
	}
	if err := pe.amoCheck(name, true, p.PE, p.Off, width, p.gen); err != nil {
		return 0, err
	}
	bop := &pe.blockOp
	bop.Reset()
	var res *uint64
	if fetch {
		res = &pe.amoResult
	}
	if err := pe.eng.AMO(bop, p.PE, p.Off, op, width, operand, compare, res, pe.amoOrder()); err != nil {
		return 0, pe.wrap(name, err)
	}
	if !bop.Done() {
		if err := pe.eng.Wait(name, bop); err != nil {
			return 0, pe.wrap(name, err)
		}
		if err := bop.Err(); err != nil {
			return 0, pe.wrap(name, err)
		}
	}
	return fromBits[T](pe.amoResult), nil
}

// amoNB starts an atomic on a new handle; result, when not nil, receives
// the old value when the handle completes.
func amoNB[T Word](pe *PE, name string, op conduit.AMOOp, p GPtr[T], operand, compare uint64, result *T) (Handle, error) {
	width, _, _ := wordInfo[T]()
	if err := pe.amoCheck(name, false, p.PE, p.Off, width, p.gen); err != nil {
		return Handle{}, err
	}
	if pe.eng.InPoll() {
		return Handle{}, pe.errf(name, ErrInHandler, "not allowed in an active-message handler")
	}
	h, s := pe.newHandle()
	var res *uint64
	if result != nil {
		res = &s.bits
		s.res = unsafe.Pointer(result)
		s.resWidth = width
	}
	if err := pe.eng.AMO(&s.op, p.PE, p.Off, op, width, operand, compare, res, pe.amoOrder()); err != nil {
		_ = h.Wait()
		return Handle{}, pe.wrap(name, err)
	}
	return h, nil
}

// Atomic performs op with operand v on the word at p, atomically with
// respect to every other atomic on it.
func Atomic[T Word](pe *PE, op AtomicOp, p GPtr[T], v T) error {
	c, err := amoFor[T](pe, "Atomic", op)
	if err != nil {
		return err
	}
	_, err = amoBlocking(pe, "Atomic", c, p, wordBits(v), 0, false)
	return err
}

// FetchAtomic performs op with operand v on the word at p and returns the
// word's previous value.
func FetchAtomic[T Word](pe *PE, op AtomicOp, p GPtr[T], v T) (T, error) {
	c, err := amoFor[T](pe, "FetchAtomic", op)
	if err != nil {
		return 0, err
	}
	return amoBlocking(pe, "FetchAtomic", c, p, wordBits(v), 0, true)
}

// FetchAdd adds v to the word at p and returns its previous value.
func FetchAdd[T Word](pe *PE, p GPtr[T], v T) (T, error) { return FetchAtomic(pe, AtomicAdd, p, v) }

// CompareSwap stores desired at p if it holds expect, and returns what it
// held.
func CompareSwap[T Word](pe *PE, p GPtr[T], expect, desired T) (T, error) {
	return amoBlocking(pe, "CompareSwap", conduit.AMOCSwap, p, wordBits(desired), wordBits(expect), true)
}

// AtomicLoad reads the word at p atomically.
func AtomicLoad[T Word](pe *PE, p GPtr[T]) (T, error) {
	// A fetching OR with zero changes no bits.
	return amoBlocking(pe, "AtomicLoad", conduit.AMOOr, p, 0, 0, true)
}

// AtomicStore writes v at p atomically.
func AtomicStore[T Word](pe *PE, p GPtr[T], v T) error {
	_, err := amoBlocking(pe, "AtomicStore", conduit.AMOSwap, p, wordBits(v), 0, false)
	return err
}

// AtomicNB starts a non-fetching atomic and returns its handle.
func AtomicNB[T Word](pe *PE, op AtomicOp, p GPtr[T], v T) (Handle, error) {
	c, err := amoFor[T](pe, "AtomicNB", op)
	if err != nil {
		return Handle{}, err
	}
	return amoNB(pe, "AtomicNB", c, p, wordBits(v), 0, nil)
}

// FetchAtomicNB starts a fetching atomic; the previous value is stored in
// *result when the handle completes.
func FetchAtomicNB[T Word](pe *PE, op AtomicOp, p GPtr[T], v T, result *T) (Handle, error) {
	c, err := amoFor[T](pe, "FetchAtomicNB", op)
	if err != nil {
		return Handle{}, err
	}
	if result == nil {
		return Handle{}, pe.errf("FetchAtomicNB", ErrArgument, "nil result pointer")
	}
	return amoNB(pe, "FetchAtomicNB", c, p, wordBits(v), 0, result)
}

// CompareSwapNB starts a compare-and-swap; the previous value is stored in
// *result when the handle completes.
func CompareSwapNB[T Word](pe *PE, p GPtr[T], expect, desired T, result *T) (Handle, error) {
	if result == nil {
		return Handle{}, pe.errf("CompareSwapNB", ErrArgument, "nil result pointer")
	}
	return amoNB(pe, "CompareSwapNB", conduit.AMOCSwap, p, wordBits(desired), wordBits(expect), result)
}
