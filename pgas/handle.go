package pgas

import (
	"unsafe"

	"github.com/gopgas/gopgas/internal/errs"
	"github.com/gopgas/gopgas/internal/transport"
)

// opState is the runtime side of a Handle, recycled through a per-PE LIFO
// pool. gen changes on every recycling, so a Handle that outlived its
// operation is recognised.
type opState struct {
	op  transport.Op
	gen uint32
	// A fetching atomic's result: the raw old value, copied to res (a *T
	// of resWidth bytes) when the handle completes.
	bits     uint64
	res      unsafe.Pointer
	resWidth uint8
	// msg is the send or receive of a messaging handle (Isend, Irecv),
	// which the messaging layer completes; op is unused then.
	msg  *msgReq
	next *opState
}

// done reports whether the handle's operation is complete.
func (s *opState) done() bool {
	if s.msg != nil {
		return s.msg.done
	}
	return s.op.Done()
}

type handlePool struct {
	free *opState
	gen  uint32
}

func (p *handlePool) get() *opState {
	s := p.free
	if s == nil {
		s = &opState{}
		p.gen++
		s.gen = p.gen
	} else {
		p.free = s.next
		s.next = nil
	}
	return s
}

func (p *handlePool) put(s *opState) {
	gen := s.gen + 1
	*s = opState{gen: gen, next: p.free}
	p.free = s
}

// Handle is the explicit handle of a non-blocking operation. Wait or Test
// completes it once; a second completion fails with ErrHandle. The zero
// Handle is invalid.
type Handle struct {
	pe  *PE
	s   *opState
	gen uint32
}

func (pe *PE) newHandle() (Handle, *opState) {
	s := pe.handles.get()
	return Handle{pe: pe, s: s, gen: s.gen}, s
}

func (h Handle) check(op string) error {
	if h.pe == nil || h.s == nil {
		return &Error{PE: -1, Op: op, Err: &errs.Detail{Msg: "the zero Handle", Sentinel: ErrHandle}}
	}
	if h.s.gen != h.gen {
		return h.pe.errf(op, ErrHandle, "handle already completed")
	}
	return h.pe.usable(op)
}

// finish recycles a completed handle's state and returns its outcome.
func (h Handle) finish() error {
	s := h.s
	err := s.op.Err()
	if r := s.msg; r != nil {
		err = r.err
		if r.stOut != nil && !r.send {
			*r.stOut = r.status
		}
		h.pe.msg.recycle(r)
	}
	if err == nil && s.res != nil {
		switch s.resWidth {
		case 4:
			*(*uint32)(s.res) = uint32(s.bits)
		case 8:
			*(*uint64)(s.res) = s.bits
		}
	}
	h.pe.handles.put(s)
	return h.pe.wrap("Wait", err)
}

// Wait blocks until the operation is complete: a put is delivered at the
// target, a get's data is in the destination buffer, an atomic's result is
// in its destination.
func (h Handle) Wait() error {
	if err := h.check("Wait"); err != nil {
		return err
	}
	if err := h.pe.blocking("Wait"); err != nil {
		return err
	}
	if s := h.s; s.msg != nil {
		if err := h.pe.msgWait("Wait", func() string { return "a message" }, s.msg, nil); err != nil {
			return err
		}
		return h.finish()
	}
	if err := h.pe.eng.Wait("a non-blocking operation", &h.s.op); err != nil {
		return h.pe.wrap("Wait", err)
	}
	return h.finish()
}

// Test completes the operation if it is done, without blocking; it reports
// whether it did. After Test has returned true the handle is spent.
func (h Handle) Test() (bool, error) {
	if err := h.check("Test"); err != nil {
		return false, err
	}
	if !h.s.done() {
		if h.s.msg != nil {
			if err := h.pe.blocking("Test"); err != nil {
				return false, err
			}
			if err := h.pe.msgPoll("Test"); err != nil {
				return false, err
			}
		} else if _, err := h.pe.eng.Poll(); err != nil {
			return false, h.pe.wrap("Test", err)
		}
		if !h.s.done() {
			return false, nil
		}
	}
	return true, h.finish()
}

// WaitAll waits for every handle and returns the first error. Every valid
// handle is spent, even after an error.
func WaitAll(hs ...Handle) error {
	var first error
	for _, h := range hs {
		if err := h.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WaitSome waits until at least one of the handles is complete, completes
// every one that is, sets those entries to the zero Handle, and returns
// their indices. Zero handles in hs are skipped; with none left it returns
// nothing.
func WaitSome(hs []Handle) ([]int, error) {
	var pe *PE
	msgs := false
	for _, h := range hs {
		if h.s != nil {
			if err := h.check("WaitSome"); err != nil {
				return nil, err
			}
			pe = h.pe
			msgs = msgs || h.s.msg != nil
		}
	}
	if pe == nil {
		return nil, nil
	}
	if err := pe.blocking("WaitSome"); err != nil {
		return nil, err
	}
	any := func() bool {
		for _, h := range hs {
			if h.s != nil && h.s.done() {
				return true
			}
		}
		return false
	}
	if msgs {
		if err := pe.msgWait("WaitSome", func() string { return "some non-blocking operation" }, nil, any); err != nil {
			return nil, err
		}
	} else if err := pe.eng.WaitFunc("some non-blocking operation", any); err != nil {
		return nil, pe.wrap("WaitSome", err)
	}
	var done []int
	var first error
	for i, h := range hs {
		if h.s == nil || !h.s.done() {
			continue
		}
		// A handle listed twice was spent at its first entry.
		err := h.check("WaitSome")
		if err == nil {
			err = h.finish()
		}
		if err != nil && first == nil {
			first = err
		}
		hs[i] = Handle{}
		done = append(done, i)
	}
	return done, first
}
