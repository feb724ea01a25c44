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
			pe.heap.release(off)
		}
		return 0, err
	}
	if !agree {
		if off >= 0 {
			pe.heap.release(off)
		}
		return 0, pe.errf("Alloc", ErrMismatch, "PEs disagree on the allocation of %d bytes (asymmetric Alloc or Free calls); this PE got offset %d", n, off)
	}
	if off < 0 {
		return 0, pe.errf("Alloc", ErrNoMemory, "%d bytes aligned to %d: the largest free block of the %d-byte heap is %d bytes", n, align, pe.heap.total, pe.heap.largest())
	}
	return off, nil
}

// Free releases a symmetric allocation. It is collective, like Alloc.
func (pe *PE) Free(off int64) error {
	if err := pe.blocking("Free"); err != nil {
		return err
	}
	ok := pe.heap.release(off)
	code := off
	if !ok {
		code = -1
	}
	agree, err := pe.agree("Free", code, 0)
	if err != nil {
		return err
	}
	if !ok {
		return pe.errf("Free", ErrArgument, "offset %d is not a symmetric allocation", off)
	}
	if !agree {
		return pe.errf("Free", ErrMismatch, "PEs freed different offsets; this PE freed %d", off)
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
