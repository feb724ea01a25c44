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
	// A segment smaller than a page is Go memory: its own mapping would
	// make a whole page resident once touched (a job of many PEs with
	// small segments would hold a page for each), and cost one of the
	// process's mappings, of which the system allows a limited number.
	if n < minMapped {
		return heapSegment(n), nil
	}
	if b, ok := mapPages(n); ok {
		live.Add(n)
		return &Segment{Bytes: b, mapped: true}, nil
	}
	return heapSegment(n), nil
}

// minMapped is the smallest segment Alloc maps rather than takes from Go's
// heap: a page (4 KiB, the smallest page of the systems Go supports with
// mmap; a larger page only makes a small mapping more wasteful).
const minMapped = 4096

// heapSegment is a zeroed segment of n bytes of Go memory.
func heapSegment(n int64) *Segment {
	words := make([]uint64, n/8)
	live.Add(n)
	return &Segment{Bytes: unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)}
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
