package pgas

// DefaultAlign is the alignment of symmetric allocations when none is
// given: a cache line, so that PEs' hot words do not share one.
const DefaultAlign = 64

// Alloc allocates n bytes of the symmetric heap, aligned to align (a power
// of two; 0 means DefaultAlign), and returns their offset, which is the same
// on every PE. It is collective: every PE calls it with the same arguments,
// and it returns once all have (it includes a barrier), so the memory may be
// accessed remotely at once. Its contents are whatever was there before:
// new segments are zeroed, reused memory is not.
//
// Every access by offset (Put, Get and their forms, atomics, PE.Local,
// Long active messages) must lie inside one live allocation: memory of the
// reserved area, memory never allocated and memory freed are errors.
func (pe *PE) Alloc(n, align int64) (int64, error) {
	if err := pe.blocking("Alloc"); err != nil {
		return 0, err
	}
	if align == 0 {
		align = DefaultAlign
	}
	if n <= 0 || align < 0 || align&(align-1) != 0 {
		return 0, pe.errf("Alloc", ErrArgument, "%d bytes aligned to %d (want a positive size and a power-of-two alignment)", n, align)
	}
	off := pe.heap.alloc(n, align)
	// Every PE takes part in the check, even one that failed, so that a
	// failure is reported everywhere instead of hanging the others.
	agree, err := pe.agree("Alloc", off, n)
	if err != nil {
		if off >= 0 {
			pe.heap.cancel(off)
		}
		return 0, err
	}
	if !agree {
		if off >= 0 {
			pe.heap.cancel(off)
		}
		return 0, pe.errf("Alloc", ErrMismatch, "PEs disagree on the allocation of %d bytes (asymmetric Alloc or Free calls); this PE got offset %d", n, off)
	}
	if off < 0 {
		return 0, pe.errf("Alloc", ErrNoMemory, "%d bytes aligned to %d: the largest free block of the %d-byte heap is %d bytes", n, align, pe.heap.total, pe.heap.largest())
	}
	return off, nil
}

// Free releases the symmetric allocation at off, which Alloc returned. It
// is collective, like Alloc. An offset that is not the start of a live
// allocation (never allocated, or freed already) is an error on every PE
// that passes it. Afterwards every access to the memory fails with
// ErrNotAllocated until it is allocated again, and accesses through an
// Array, Lock or GPtr of the freed allocation fail for good.
func (pe *PE) Free(off int64) error { return pe.free("Free", off, 0, "") }

// free frees the allocation at off, of generation gen unless gen is 0;
// what names the object freed, for the error of a stale one.
func (pe *PE) free(op string, off int64, gen uint64, what string) error {
	if err := pe.blocking(op); err != nil {
		return err
	}
	ok := pe.heap.release(off, gen)
	code := off
	if !ok {
		code = -1
	}
	// Every PE takes part, even one whose offset is bad, so that the
	// others do not wait for it.
	agree, err := pe.agree(op, code, 0)
	if err != nil {
		return err
	}
	if !ok {
		if gen != 0 {
			return pe.errf(op, ErrNotAllocated, "the %s at offset %d was freed already", what, off)
		}
		return pe.errf(op, ErrArgument, "offset %d is not a symmetric allocation (never allocated, or freed already)", off)
	}
	if !agree {
		return pe.errf(op, ErrMismatch, "PEs freed different offsets; this PE freed %d", off)
	}
	return nil
}

// agree reports whether every PE passed the same (a, b); it synchronises
// like a barrier.
func (pe *PE) agree(name string, a, b int64) (bool, error) {
	v := []int64{a, -a, b, -b}
	if err := Allreduce(pe.world, Max, v, v); err != nil {
		return false, pe.wrap(name, err)
	}
	return v[0] == -v[1] && v[2] == -v[3], nil
}
