// Package segmem allocates the memory of PE segments so that a segment
// costs resident memory only for the pages a program touches.
//
// A segment is large (64 MiB by default) and mostly untouched: a benchmark
// writes a few of its pages, a simulated job of thousands of PEs touches a
// few kilobytes of each. Go's allocator must zero a large allocation that
// reuses freed heap memory, which touches every page, and it returns freed
// memory to the system only gradually; a study that runs hundreds of jobs
// one after another then holds the sum of their segments. On systems with
// mmap, Alloc maps fresh anonymous pages instead (zero-filled by the kernel
// on first touch, reserved without being charged) and Free unmaps them at
// once. Elsewhere, and under the race detector (whose shadow memory covers
// only Go's heap, so that races on segment memory stay visible), segments
// are ordinary zeroed Go memory.
//
// A segment's memory must not be used after Free: the runtime frees a job's
// segments when the job ends.
package segmem

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Segment is one allocation.
type Segment struct {
	// Bytes is the memory: zeroed, 8-byte aligned (page-aligned when
	// mapped).
	Bytes []byte
	// mapped: Bytes must be unmapped by Free.
	mapped bool
}

// Mapped tells whether the segment's pages are mapped on demand (resident
// only once touched) rather than allocated from Go's heap.
func (s *Segment) Mapped() bool { return s.mapped }

// live counts the bytes of segments allocated and not yet freed, for
// tests and reports.
var live atomic.Int64

// Live returns the bytes of all segments allocated and not yet freed.
func Live() int64 { return live.Load() }

// Alloc returns a zeroed segment of n bytes, n a positive multiple of 8.
func Alloc(n int64) (*Segment, error) {
	if n <= 0 || n%8 != 0 {
		return nil, fmt.Errorf("segmem: %d bytes: must be a positive multiple of 8", n)
	}
	if b, ok := mapPages(n); ok {
		live.Add(n)
		return &Segment{Bytes: b, mapped: true}, nil
	}
	words := make([]uint64, n/8)
	live.Add(n)
	return &Segment{Bytes: unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)}, nil
}

// Free releases the segment's memory. Freeing twice does nothing.
func (s *Segment) Free() {
	if s == nil || s.Bytes == nil {
		return
	}
	live.Add(-int64(len(s.Bytes)))
	if s.mapped {
		unmapPages(s.Bytes)
	}
	s.Bytes = nil
}

// Lazy reports whether Alloc maps segments on demand here, so that a
// segment costs resident memory only for the pages touched; otherwise a
// segment is resident whole.
func Lazy() bool { return lazy }
