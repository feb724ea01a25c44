package pgas

import "sort"

// heap is the symmetric heap's allocator: first fit over a free list sorted
// by offset, coalescing on free. Every PE runs the same sequence of
// allocations on its own copy, so the same call returns the same offset
// everywhere; Alloc checks that it did.
type heap struct {
	free  []span          // sorted by offset, never adjacent
	used  map[int64]int64 // offset -> size
	total int64
}

type span struct{ off, n int64 }

func (h *heap) init(lo, hi int64) {
	h.free = []span{{lo, hi - lo}}
	h.used = make(map[int64]int64)
	h.total = hi - lo
}

// alloc returns the offset of n bytes aligned to align (a power of two),
// or -1.
func (h *heap) alloc(n, align int64) int64 {
	if n > h.total || align > h.total {
		return -1
	}
	for i, s := range h.free {
		start := (s.off + align - 1) &^ (align - 1)
		if start+n > s.off+s.n {
			continue
		}
		end := start + n
		var rest []span
		if start > s.off {
			rest = append(rest, span{s.off, start - s.off})
		}
		if end < s.off+s.n {
			rest = append(rest, span{end, s.off + s.n - end})
		}
		h.free = append(h.free[:i], append(rest, h.free[i+1:]...)...)
		h.used[start] = n
		return start
	}
	return -1
}

// release frees the allocation at off and reports whether there was one.
func (h *heap) release(off int64) bool {
	n, ok := h.used[off]
	if !ok {
		return false
	}
	delete(h.used, off)
	i := sort.Search(len(h.free), func(i int) bool { return h.free[i].off > off })
	h.free = append(h.free, span{})
	copy(h.free[i+1:], h.free[i:])
	h.free[i] = span{off, n}
	// Coalesce with the following and the preceding span.
	if i+1 < len(h.free) && h.free[i].off+h.free[i].n == h.free[i+1].off {
		h.free[i].n += h.free[i+1].n
		h.free = append(h.free[:i+1], h.free[i+2:]...)
	}
	if i > 0 && h.free[i-1].off+h.free[i-1].n == h.free[i].off {
		h.free[i-1].n += h.free[i].n
		h.free = append(h.free[:i], h.free[i+1:]...)
	}
	return true
}

// largest is the largest free span.
func (h *heap) largest() int64 {
	var m int64
	for _, s := range h.free {
		m = max(m, s.n)
	}
	return m
}
