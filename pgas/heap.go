package pgas

import (
	"math"
	"sort"
)

// heap is the symmetric heap's allocator: first fit over a free list sorted
// by offset, coalescing on free. Every PE runs the same sequence of
// allocations on its own copy, so the same call returns the same offset
// everywhere; Alloc checks that it did.
//
// It also keeps the live allocations, each with a generation number (1,
// 2, ... in allocation order, the same on every PE), so that every access
// can be checked against them on the issuing PE's copy: a GPtr carries the
// generation of its allocation and fails once that allocation is freed,
// even if the memory has been allocated again. hit is the block the last
// check found, so that the common case, a run of accesses to one
// allocation, costs two comparisons. An Array or Lock holds its
// allocation's record, marked when it is freed: checking it is one load.
type heap struct {
	free  []span  // sorted by offset, never adjacent
	live  []block // sorted by offset
	total int64
	gen   uint64 // generation of the latest allocation
	hit   block
	// closed: the PE's program has returned; no access hits any more, so
	// the fast paths need not look at the PE's end themselves.
	closed bool
}

type span struct{ off, n int64 }

// block is a live allocation: [off, end) of generation gen.
type block struct {
	off, end int64
	gen      uint64
	rec      *allocRec
}

// allocRec is the record of one allocation, shared by the Arrays and Locks
// made on it.
type allocRec struct{ freed bool }

// checkedGen, passed for a generation, says that the caller has checked
// the range against a live allocation itself (an Array, whose record is
// live and whose bounds hold the range).
const checkedGen = math.MaxUint64

// noBlock is a hit that no access matches (and whose end less any size
// does not overflow).
var noBlock = block{off: math.MaxInt64}

func (h *heap) init(lo, hi int64) {
	h.free = []span{{lo, hi - lo}}
	h.live = nil
	h.total = hi - lo
	h.hit = noBlock
}

// alloc returns the offset of n bytes aligned to align (a power of two),
// or -1. The allocation gets the next generation.
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
		h.gen++
		j := h.index(start) + 1
		h.live = append(h.live, block{})
		copy(h.live[j+1:], h.live[j:])
		h.live[j] = block{off: start, end: end, gen: h.gen, rec: &allocRec{}}
		return start
	}
	return -1
}

// cancel undoes the allocation alloc just made at off, generation
// included, so that a failed collective Alloc leaves the heap (and the
// next generation) as it was.
func (h *heap) cancel(off int64) {
	if h.release(off, 0) {
		h.gen--
	}
}

// release frees the allocation at off and reports whether there was one
// (of generation gen, unless gen is 0).
func (h *heap) release(off int64, gen uint64) bool {
	i := h.index(off)
	if i < 0 || h.live[i].off != off || (gen != 0 && h.live[i].gen != gen) {
		return false
	}
	n := h.live[i].end - off
	h.live[i].rec.freed = true
	h.live = append(h.live[:i], h.live[i+1:]...)
	h.hit = noBlock
	i = sort.Search(len(h.free), func(i int) bool { return h.free[i].off > off })
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

// index is the index of the last live block starting at or before off, or
// -1.
func (h *heap) index(off int64) int {
	return sort.Search(len(h.live), func(i int) bool { return h.live[i].off > off }) - 1
}

// at is the live block that starts at off; the caller knows there is one.
func (h *heap) at(off int64) block { return h.live[h.index(off)] }

// ok reports whether [off, off+n) (n >= 0) lies inside one live
// allocation, of generation gen unless gen is 0 (or checkedGen).
func (h *heap) ok(off, n int64, gen uint64) bool {
	return gen == checkedGen || h.hits(off, n, gen) || h.find(off, n, gen)
}

// hits is ok on the block the last check found, small enough to be
// inlined into the fast paths of the accesses: a run of accesses to one
// allocation costs two or three comparisons each. It does not know
// checkedGen (ok does).
func (h *heap) hits(off, n int64, gen uint64) bool {
	return off >= h.hit.off && off <= h.hit.end-n && (gen == 0 || gen == h.hit.gen)
}

// find is ok's search of the live blocks; it remembers the block found.
func (h *heap) find(off, n int64, gen uint64) bool {
	if gen == checkedGen {
		return true
	}
	i := h.index(off)
	if i < 0 {
		return false
	}
	b := h.live[i]
	if off > b.end-n || (gen != 0 && gen != b.gen) {
		return false
	}
	if !h.closed {
		h.hit = b
	}
	return true
}

// close makes every later access miss the fast path (the PE has ended).
func (h *heap) close() { h.hit, h.closed = noBlock, true }

// generation returns the live block of generation gen.
func (h *heap) generation(gen uint64) (block, bool) {
	for _, b := range h.live {
		if b.gen == gen {
			return b, true
		}
	}
	return block{}, false
}

// largest is the largest free span.
func (h *heap) largest() int64 {
	var m int64
	for _, s := range h.free {
		m = max(m, s.n)
	}
	return m
}
