package prefetch_test

import (
	"testing"
	"unsafe"

	"github.com/gopgas/gopgas/internal/prefetch"
)

// TestLineNeverFaults: a hint for an address that is not memory, or for
// memory the program holds, returns and changes nothing.
func TestLineNeverFaults(t *testing.T) {
	x := []uint64{1, 2, 3}
	for _, p := range []uintptr{0, 1, ^uintptr(0), ^uintptr(0) - 63, uintptr(unsafe.Pointer(&x[1]))} {
		prefetch.Line(p)
	}
	if x[0] != 1 || x[1] != 2 || x[2] != 3 {
		t.Fatalf("a hint changed memory: %v", x)
	}
}

// BenchmarkLine is the cost of one hint for a line already in the cache.
func BenchmarkLine(b *testing.B) {
	var x [64]byte
	p := uintptr(unsafe.Pointer(&x[0]))
	for b.Loop() {
		prefetch.Line(p)
	}
}
