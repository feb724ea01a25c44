//go:build unix && !race

package segmem

import "syscall"

// lazy: segments are mapped on demand (Lazy).
const lazy = true

// mapPages maps n bytes of anonymous memory, not reserved against the
// system's commit limit (a segment is mostly never touched). It reports
// false when the system refuses, and Alloc falls back to Go's heap.
func mapPages(n int64) ([]byte, bool) {
	if int64(int(n)) != n {
		return nil, false
	}
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|mapNoReserve)
	if err != nil {
		return nil, false
	}
	return b, true
}

func unmapPages(b []byte) {
	// Munmap fails only for a range that was not mapped, which Free
	// rules out.
	_ = syscall.Munmap(b)
}
