package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// residentPages is mincore(2) of [lo, hi) into vec, a byte a page. The
// range is passed as numbers: the memory is the process's mappings, not
// a Go object.
func residentPages(lo, hi uintptr, vec []byte) error {
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		return e
	}
	return nil
}

// collapseRange puts [lo, hi) on huge pages, copying what it holds
// (MADV_COLLAPSE, Linux 6.1 and later). It is advice: an error (an older
// kernel, a range unmapped meanwhile, no free huge page) leaves the memory
// as it was, and is not reported.
func collapseRange(lo, hi uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_COLLAPSE)
}
