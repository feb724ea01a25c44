package pgas

import (
	"github.com/gopgas/gopgas/internal/errs"
	"github.com/gopgas/gopgas/internal/transport"
)

// Lock is a global mutual-exclusion lock built on remote atomics: an MCS
// queue lock, so that each waiting PE spins on a word of its own segment
// instead of loading the network. The queue's tail lives on PE 0; each PE
// holds its queue node (next, locked) in the same symmetric allocation.
type Lock struct {
	pe   *PE
	off  int64     // tail (used on PE 0), next, locked
	gen  uint64    // generation of the allocation
	rec  *allocRec // the allocation's record: freed or not
	held bool      // this PE holds the lock
}

const (
	lockTail   = 0
	lockNext   = 8
	lockLocked = 16
	lockBytes  = 24
)

// NewLock creates a lock; collective over all PEs.
func NewLock(pe *PE) (*Lock, error) {
	off, err := pe.Alloc(lockBytes, 8)
	if err != nil {
		return nil, err
	}
	clear(pe.seg[off : off+lockBytes])
	if err := pe.Barrier(); err != nil {
		return nil, err
	}
	b := pe.heap.at(off)
	return &Lock{pe: pe, off: off, gen: b.gen, rec: b.rec}, nil
}

// word is a word of rank's queue node; check has found the lock live.
func (l *Lock) word(rank int, field int64) GPtr[uint64] {
	return GPtr[uint64]{PE: rank, Off: l.off + field, gen: checkedGen}
}

// check fails the calls of a lock that was freed (or a nil or zero Lock).
func (l *Lock) check(op string) error {
	if l == nil || l.rec == nil {
		return &Error{PE: -1, Op: op, Err: &errs.Detail{Msg: "a nil or zero Lock (use NewLock)", Sentinel: ErrArgument}}
	}
	if err := l.pe.blocking(op); err != nil {
		return err
	}
	if l.rec.freed {
		return l.pe.errf(op, ErrNotAllocated, "the lock at offset %d was freed", l.off)
	}
	return nil
}

func (l *Lock) local(field int64) uint64 {
	return transport.LoadWord(l.pe.seg, l.off+field, 8)
}

// Lock acquires the lock, waiting for it as long as it takes.
func (l *Lock) Lock() error {
	if err := l.check("Lock"); err != nil {
		return err
	}
	pe := l.pe
	if l.held {
		return pe.errf("Lock", ErrArgument, "the lock is already held by this PE")
	}
	me := uint64(pe.rank + 1)
	transport.StoreWord(pe.seg, l.off+lockNext, 8, 0)
	transport.StoreWord(pe.seg, l.off+lockLocked, 8, 1)
	prev, err := FetchAtomic(pe, AtomicSwap, l.word(0, lockTail), me)
	if err != nil {
		return err
	}
	if prev != 0 {
		if err := AtomicStore(pe, l.word(int(prev-1), lockNext), me); err != nil {
			return err
		}
		if err := pe.eng.WaitFunc("a lock", func() bool { return l.local(lockLocked) == 0 }); err != nil {
			return pe.wrap("Lock", err)
		}
	}
	l.held = true
	return nil
}

// TryLock acquires the lock if it is free and reports whether it did.
func (l *Lock) TryLock() (bool, error) {
	if err := l.check("TryLock"); err != nil {
		return false, err
	}
	pe := l.pe
	if l.held {
		return false, pe.errf("TryLock", ErrArgument, "the lock is already held by this PE")
	}
	me := uint64(pe.rank + 1)
	transport.StoreWord(pe.seg, l.off+lockNext, 8, 0)
	old, err := CompareSwap(pe, l.word(0, lockTail), 0, me)
	l.held = err == nil && old == 0
	return l.held, err
}

// Unlock releases the lock, after completing the PE's outstanding
// operations so that the next holder sees them.
func (l *Lock) Unlock() error {
	if err := l.check("Unlock"); err != nil {
		return err
	}
	pe := l.pe
	if !l.held {
		return pe.errf("Unlock", ErrArgument, "the lock is not held by this PE")
	}
	if err := pe.quiet("Unlock"); err != nil {
		return err
	}
	l.held = false
	me := uint64(pe.rank + 1)
	if l.local(lockNext) == 0 {
		old, err := CompareSwap(pe, l.word(0, lockTail), me, 0)
		if err != nil {
			return err
		}
		if old == me {
			return nil
		}
		// A successor swapped itself in and is about to link up.
		if err := pe.eng.WaitFunc("a lock successor", func() bool { return l.local(lockNext) != 0 }); err != nil {
			return pe.wrap("Unlock", err)
		}
	}
	return AtomicStore(pe, l.word(int(l.local(lockNext)-1), lockLocked), 0)
}

// Free releases the lock's memory; collective. Afterwards every call of
// the lock fails with ErrNotAllocated, a second Free included.
func (l *Lock) Free() error {
	if l == nil || l.rec == nil {
		return &Error{PE: -1, Op: "Free", Err: &errs.Detail{Msg: "a nil or zero Lock (use NewLock)", Sentinel: ErrArgument}}
	}
	return l.pe.free("Free", l.off, l.gen, "lock")
}
