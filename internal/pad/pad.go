package pad

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// fallbackLine is used when the CPU does not report its cache-line size;
// 128 bytes also covers the adjacent-line prefetcher of x86 cores.
const fallbackLine = 128

// CacheLine is the cache-line size of this machine in bytes.
var CacheLine = func() int {
	if l := cpuid.CPU.CacheLine; l >= 32 && l&(l-1) == 0 {
		return l
	}
	return fallbackLine
}()

// New returns a zeroed T alone on its cache lines. T must hold no pointers
// (it lives in memory the garbage collector does not scan): a T with
// pointers is a programming error and panics.
func New[T any]() *T {
	var zero T
	if !PointerFree(reflect.TypeOf(zero)) {
		panic(fmt.Sprintf("pad.New: %T holds pointers", zero))
	}
	size := int(unsafe.Sizeof(zero))
	n := (size + CacheLine - 1) / CacheLine * CacheLine
	// A block of n bytes, n a multiple of the line size, comes from a size
	// class of exactly n bytes whose objects start at multiples of n within
	// a page-aligned span, so the block starts on a line boundary. Allocate
	// one line more and align by hand to be independent of that detail.
	buf := make([]byte, n+CacheLine)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	off := (CacheLine - int(base%uintptr(CacheLine))) % CacheLine
	return (*T)(unsafe.Pointer(&buf[off]))
}

// PointerFree reports whether values of t hold no pointers (nor strings,
// slices, maps, channels, functions or interfaces): whether their bytes
// mean the same anywhere, so that they may live in memory the garbage
// collector does not scan or be copied to another PE.
func PointerFree(t reflect.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return PointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !PointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
