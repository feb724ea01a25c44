package pgas

import (
	"reflect"
	"unsafe"
)

// GPtr is a global pointer: the address of a T at byte offset Off of PE's
// segment.
type GPtr[T any] struct {
	PE  int
	Off int64
}

// Ptr makes a global pointer.
func Ptr[T any](pe int, off int64) GPtr[T] { return GPtr[T]{PE: pe, Off: off} }

// Add returns the pointer n elements further on.
func (p GPtr[T]) Add(n int) GPtr[T] {
	var zero T
	return GPtr[T]{PE: p.PE, Off: p.Off + int64(n)*int64(unsafe.Sizeof(zero))}
}

// Array is a distributed array: n elements of T in the symmetric heap of
// every PE. T must hold no pointers. An Array is a small value; copies
// refer to the same memory.
type Array[T any] struct {
	pe   *PE
	off  int64
	n    int
	mode Mode // 0: the PE's default access mode
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
	a := Array[T]{pe: pe, off: off, n: n}
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

// Local is this PE's part of the array, for direct access. It is valid
// until Run returns (the job frees its segments then).
func (a Array[T]) Local() []T {
	return unsafe.Slice((*T)(unsafe.Pointer(&a.pe.seg[a.off])), a.n)
}

// At is the global pointer to element i on PE rank.
func (a Array[T]) At(rank, i int) GPtr[T] {
	return GPtr[T]{PE: rank, Off: a.off + int64(i)*a.size()}
}

// With returns the array accessed in mode m.
func (a Array[T]) With(m Mode) Array[T] {
	a.mode = m
	return a
}

// Free releases the array; collective.
func (a Array[T]) Free() error { return a.pe.Free(a.off) }

func (a Array[T]) size() int64 {
	var zero T
	return int64(unsafe.Sizeof(zero))
}

func (a Array[T]) acc() Accessor {
	if a.mode != 0 {
		return a.pe.With(a.mode)
	}
	return a.pe.Accessor
}

// span checks [i, i+k) and returns its byte offset.
func (a Array[T]) span(op string, rank, i, k int) (int64, error) {
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
	return a.acc().Put(rank, off, asBytes(src))
}

// Get copies elements [i, i+len(dst)) of PE rank into dst.
func (a Array[T]) Get(rank, i int, dst []T) error {
	off, err := a.span("Get", rank, i, len(dst))
	if err != nil {
		return err
	}
	return a.acc().Get(rank, off, asBytes(dst))
}

// PutNB is the non-blocking Put.
func (a Array[T]) PutNB(rank, i int, src []T) (Handle, error) {
	off, err := a.span("PutNB", rank, i, len(src))
	if err != nil {
		return Handle{}, err
	}
	return a.acc().PutNB(rank, off, asBytes(src))
}

// GetNB is the non-blocking Get.
func (a Array[T]) GetNB(rank, i int, dst []T) (Handle, error) {
	off, err := a.span("GetNB", rank, i, len(dst))
	if err != nil {
		return Handle{}, err
	}
	return a.acc().GetNB(rank, off, asBytes(dst))
}

// PutNBI is the implicit-handle Put.
func (a Array[T]) PutNBI(rank, i int, src []T) error {
	off, err := a.span("PutNBI", rank, i, len(src))
	if err != nil {
		return err
	}
	return a.acc().PutNBI(rank, off, asBytes(src))
}

// GetNBI is the implicit-handle Get.
func (a Array[T]) GetNBI(rank, i int, dst []T) error {
	off, err := a.span("GetNBI", rank, i, len(dst))
	if err != nil {
		return err
	}
	return a.acc().GetNBI(rank, off, asBytes(dst))
}

// PutValue stores v into element i on PE rank.
func (a Array[T]) PutValue(rank, i int, v T) error {
	if _, err := a.span("PutValue", rank, i, 1); err != nil {
		return err
	}
	return putValue(a.acc(), "PutValue", a.At(rank, i), v)
}

// GetValue loads element i of PE rank.
func (a Array[T]) GetValue(rank, i int) (T, error) {
	if _, err := a.span("GetValue", rank, i, 1); err != nil {
		var zero T
		return zero, err
	}
	return getValue(a.acc(), "GetValue", a.At(rank, i))
}

// PutIndexed stores src[k] into element idx[k] on PE rank.
func (a Array[T]) PutIndexed(rank int, idx []int, src []T) error {
	offs, err := a.offsets("PutIndexed", rank, idx, len(src))
	if err != nil {
		return err
	}
	return a.acc().PutIndexed(rank, offs, a.size(), asBytes(src))
}

// GetIndexed loads element idx[k] of PE rank into dst[k].
func (a Array[T]) GetIndexed(rank int, idx []int, dst []T) error {
	offs, err := a.offsets("GetIndexed", rank, idx, len(dst))
	if err != nil {
		return err
	}
	return a.acc().GetIndexed(rank, offs, a.size(), asBytes(dst))
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
	return a.acc().PutStrided(rank, off, []int64{int64(stride) * es}, asBytes(src), []int64{es}, []int64{es, int64(len(src))})
}

// GetStrided loads element start+k*stride of PE rank into dst[k].
func (a Array[T]) GetStrided(rank, start, stride int, dst []T) error {
	off, err := a.stridedSpan("GetStrided", rank, start, stride, len(dst))
	if err != nil || len(dst) == 0 {
		return err
	}
	es := a.size()
	return a.acc().GetStrided(rank, off, []int64{int64(stride) * es}, asBytes(dst), []int64{es}, []int64{es, int64(len(dst))})
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
	return renameOp(acc.Put(p.PE, p.Off, b), name)
}

// renameOp makes a runtime error name the operation the program called.
func renameOp(err error, name string) error {
	if e, ok := err.(*Error); ok {
		e.Op = name
	}
	return err
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
	if err := acc.Get(p.PE, p.Off, b); err != nil {
		return v, renameOp(err, name)
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), n), b)
	return v, nil
}
