package pgas

import (
	"reflect"
	"unsafe"

	"github.com/gopgas/gopgas/internal/errs"
)

// GPtr is a global pointer: the address of a T at byte offset Off of PE's
// segment.
//
// A GPtr made by Ptr (or a literal) is an address: every access through it
// must lie inside a live allocation. One taken from an Array (Array.At)
// also remembers the array's allocation, by its generation: accesses
// through it, or through pointers Add derives from it, fail with
// ErrNotAllocated once the array is freed, even when the memory has been
// allocated again, and with ErrRange outside the array's allocation. The
// generation is plain data, the same on every PE, so such a pointer may be
// sent to another PE; == compares it along with PE and Off.
type GPtr[T any] struct {
	PE  int
	Off int64
	gen uint64 // generation of the allocation; 0: any live one
}

// Ptr makes a global pointer.
func Ptr[T any](pe int, off int64) GPtr[T] { return GPtr[T]{PE: pe, Off: off} }

// Add returns the pointer n elements further on.
func (p GPtr[T]) Add(n int) GPtr[T] {
	var zero T
	return GPtr[T]{PE: p.PE, Off: p.Off + int64(n)*int64(unsafe.Sizeof(zero)), gen: p.gen}
}

// Array is a distributed array: n elements of T in the symmetric heap of
// every PE. T must hold no pointers. An Array is a small value; copies
// refer to the same memory. Once it is freed (Free), every operation on it
// or its copies fails with ErrNotAllocated, and Local returns nil. The zero
// Array fails every operation with ErrArgument.
type Array[T any] struct {
	pe      *PE
	off     int64
	n       int
	gen     uint64    // generation of the allocation, for At
	rec     *allocRec // the allocation's record: freed or not
	mode    Mode
	modeSet bool // With was called: mode, valid or not, replaces the PE's default
}

// NewArray allocates a distributed array of n elements per PE. It is
// collective, like PE.Alloc. The elements start zeroed.
func NewArray[T any](pe *PE, n int) (Array[T], error) {
	var zero T
	if err := checkPlain[T](pe, "NewArray"); err != nil {
		return Array[T]{}, err
	}
	size := int64(unsafe.Sizeof(zero))
	if n <= 0 || size == 0 || int64(n) > pe.segBytes/size {
		return Array[T]{}, pe.errf("NewArray", ErrArgument, "%d elements of %d bytes (want at least one, and no more than the segment holds)", n, size)
	}
	align := max(int64(DefaultAlign), int64(reflect.TypeOf(zero).Align()))
	off, err := pe.Alloc(int64(n)*size, align)
	if err != nil {
		return Array[T]{}, err
	}
	b := pe.heap.at(off)
	a := Array[T]{pe: pe, off: off, n: n, gen: b.gen, rec: b.rec}
	clear(a.Local())
	// No PE may write into another's elements before that one cleared them.
	if err := pe.Barrier(); err != nil {
		return Array[T]{}, err
	}
	return a, nil
}

// Len is the number of elements on each PE.
func (a Array[T]) Len() int { return a.n }

// Offset is the array's offset in every segment.
func (a Array[T]) Offset() int64 { return a.off }

// Local is this PE's part of the array, for direct access; nil for an
// array that was freed (or the zero Array). The slice must not be used
// after the array is freed, nor after Run returns (the job frees its
// segments then).
func (a Array[T]) Local() []T {
	if a.rec == nil || a.rec.freed {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&a.pe.seg[a.off])), a.n)
}

// At is the global pointer to element i on PE rank. It carries the
// array's allocation: see GPtr.
func (a Array[T]) At(rank, i int) GPtr[T] {
	return GPtr[T]{PE: rank, Off: a.off + int64(i)*a.size(), gen: a.gen}
}

// With returns the array accessed in mode m. A mode other than Relaxed and
// Strict makes every RMA operation of the returned array fail with
// ErrArgument, naming the mode.
func (a Array[T]) With(m Mode) Array[T] {
	a.mode, a.modeSet = m, true
	return a
}

// Free releases the array; collective. Freeing an array twice (or a copy
// of a freed one) fails with ErrNotAllocated, and never frees whatever was
// allocated in its place since.
func (a Array[T]) Free() error {
	if a.rec == nil {
		return zeroArray("Free")
	}
	return a.pe.free("Free", a.off, a.gen, "array")
}

func (a Array[T]) size() int64 {
	var zero T
	return int64(unsafe.Sizeof(zero))
}

func (a Array[T]) acc() Accessor {
	if a.modeSet {
		return Accessor{pe: a.pe, mode: a.mode}
	}
	return a.pe.Accessor
}

func zeroArray(op string) error {
	return &Error{PE: -1, Op: op, Err: &errs.Detail{Msg: "the zero Array (use NewArray)", Sentinel: ErrArgument}}
}

// span checks that the array is still allocated and that [i, i+k) is in
// it, and returns the span's byte offset. The accesses it vouches for pass
// checkedGen for their generation.
func (a Array[T]) span(op string, rank, i, k int) (int64, error) {
	if a.rec == nil {
		return 0, zeroArray(op)
	}
	if a.rec.freed {
		return 0, a.pe.errf(op, ErrNotAllocated, "the array of %d elements at offset %d was freed", a.n, a.off)
	}
	if i < 0 || k < 0 || i > a.n-k {
		return 0, a.pe.errf(op, ErrRange, "elements [%d,+%d) outside an array of %d", i, k, a.n)
	}
	if err := a.pe.checkPE(op, rank); err != nil {
		return 0, err
	}
	return a.off + int64(i)*a.size(), nil
}

// Put copies src into elements [i, i+len(src)) on PE rank.
func (a Array[T]) Put(rank, i int, src []T) error {
	off, err := a.span("Put", rank, i, len(src))
	if err != nil {
		return err
	}
	return a.acc().put("Put", rank, off, asBytes(src), checkedGen)
}

// Get copies elements [i, i+len(dst)) of PE rank into dst.
func (a Array[T]) Get(rank, i int, dst []T) error {
	off, err := a.span("Get", rank, i, len(dst))
	if err != nil {
		return err
	}
	return a.acc().get("Get", rank, off, asBytes(dst), checkedGen)
}

// PutNB is the non-blocking Put.
func (a Array[T]) PutNB(rank, i int, src []T) (Handle, error) {
	off, err := a.span("PutNB", rank, i, len(src))
	if err != nil {
		return Handle{}, err
	}
	return a.acc().putNB(rank, off, asBytes(src), checkedGen)
}

// GetNB is the non-blocking Get.
func (a Array[T]) GetNB(rank, i int, dst []T) (Handle, error) {
	off, err := a.span("GetNB", rank, i, len(dst))
	if err != nil {
		return Handle{}, err
	}
	return a.acc().getNB(rank, off, asBytes(dst), checkedGen)
}

// PutNBI is the implicit-handle Put.
func (a Array[T]) PutNBI(rank, i int, src []T) error {
	off, err := a.span("PutNBI", rank, i, len(src))
	if err != nil {
		return err
	}
	return a.acc().putNBI(rank, off, asBytes(src), checkedGen)
}

// GetNBI is the implicit-handle Get.
func (a Array[T]) GetNBI(rank, i int, dst []T) error {
	off, err := a.span("GetNBI", rank, i, len(dst))
	if err != nil {
		return err
	}
	return a.acc().getNBI(rank, off, asBytes(dst), checkedGen)
}

// PutValue stores v into element i on PE rank.
func (a Array[T]) PutValue(rank, i int, v T) error {
	if _, err := a.span("PutValue", rank, i, 1); err != nil {
		return err
	}
	return putValue(a.acc(), "PutValue", GPtr[T]{PE: rank, Off: a.off + int64(i)*a.size(), gen: checkedGen}, v)
}

// GetValue loads element i of PE rank.
func (a Array[T]) GetValue(rank, i int) (T, error) {
	if _, err := a.span("GetValue", rank, i, 1); err != nil {
		var zero T
		return zero, err
	}
	return getValue(a.acc(), "GetValue", GPtr[T]{PE: rank, Off: a.off + int64(i)*a.size(), gen: checkedGen})
}

// PutIndexed stores src[k] into element idx[k] on PE rank.
func (a Array[T]) PutIndexed(rank int, idx []int, src []T) error {
	offs, err := a.offsets("PutIndexed", rank, idx, len(src))
	if err != nil {
		return err
	}
	acc := a.acc()
	ps, err := acc.indexed("PutIndexed", rank, offs, a.size(), asBytes(src), true, checkedGen)
	if err != nil {
		return err
	}
	return acc.blockingXfer("PutIndexed", true, rank, ps)
}

// GetIndexed loads element idx[k] of PE rank into dst[k].
func (a Array[T]) GetIndexed(rank int, idx []int, dst []T) error {
	offs, err := a.offsets("GetIndexed", rank, idx, len(dst))
	if err != nil {
		return err
	}
	acc := a.acc()
	ps, err := acc.indexed("GetIndexed", rank, offs, a.size(), asBytes(dst), true, checkedGen)
	if err != nil {
		return err
	}
	return acc.blockingXfer("GetIndexed", false, rank, ps)
}

func (a Array[T]) offsets(op string, rank int, idx []int, n int) ([]int64, error) {
	if len(idx) != n {
		return nil, a.pe.errf(op, ErrArgument, "%d indices for %d values", len(idx), n)
	}
	offs := make([]int64, len(idx))
	for k, i := range idx {
		off, err := a.span(op, rank, i, 1)
		if err != nil {
			return nil, err
		}
		offs[k] = off
	}
	return offs, nil
}

// PutStrided stores src[k] into element start+k*stride on PE rank.
func (a Array[T]) PutStrided(rank, start, stride int, src []T) error {
	off, err := a.stridedSpan("PutStrided", rank, start, stride, len(src))
	if err != nil || len(src) == 0 {
		return err
	}
	es := a.size()
	acc := a.acc()
	ps, err := acc.strided("PutStrided", rank, off, []int64{int64(stride) * es}, asBytes(src), []int64{es}, []int64{es, int64(len(src))}, true, checkedGen)
	if err != nil {
		return err
	}
	return acc.blockingXfer("PutStrided", true, rank, ps)
}

// GetStrided loads element start+k*stride of PE rank into dst[k].
func (a Array[T]) GetStrided(rank, start, stride int, dst []T) error {
	off, err := a.stridedSpan("GetStrided", rank, start, stride, len(dst))
	if err != nil || len(dst) == 0 {
		return err
	}
	es := a.size()
	acc := a.acc()
	ps, err := acc.strided("GetStrided", rank, off, []int64{int64(stride) * es}, asBytes(dst), []int64{es}, []int64{es, int64(len(dst))}, true, checkedGen)
	if err != nil {
		return err
	}
	return acc.blockingXfer("GetStrided", false, rank, ps)
}

func (a Array[T]) stridedSpan(op string, rank, start, stride, n int) (int64, error) {
	if stride < 1 {
		return 0, a.pe.errf(op, ErrArgument, "stride %d (want at least 1)", stride)
	}
	off, err := a.span(op, rank, start, 1)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		if _, err := a.span(op, rank, start+(n-1)*stride, 1); err != nil {
			return 0, err
		}
	}
	return off, nil
}

// PutValue stores v at p in the PE's default access mode.
func PutValue[T any](pe *PE, p GPtr[T], v T) error { return putValue(pe.Accessor, "PutValue", p, v) }

// GetValue loads the T at p in the PE's default access mode.
func GetValue[T any](pe *PE, p GPtr[T]) (T, error) { return getValue(pe.Accessor, "GetValue", p) }

func putValue[T any](acc Accessor, name string, p GPtr[T], v T) error {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v))
	pe := acc.pe
	if len(b) <= len(pe.scratch) {
		b = pe.scratch[:copy(pe.scratch[:], b)]
	} else {
		b = append([]byte(nil), b...)
	}
	return acc.put(name, p.PE, p.Off, b, p.gen)
}

func getValue[T any](acc Accessor, name string, p GPtr[T]) (T, error) {
	var v T
	pe := acc.pe
	n := int(unsafe.Sizeof(v))
	var b []byte
	if n <= len(pe.scratch) {
		b = pe.scratch[:n]
	} else {
		b = make([]byte, n)
	}
	if err := acc.get(name, p.PE, p.Off, b, p.gen); err != nil {
		return v, err
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), n), b)
	return v, nil
}
