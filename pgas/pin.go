package pgas

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/memreg"
)

// ErrRegistrationFull is wrapped by the error of a Pin the network cannot
// hold: on Gemini the node's NIC has a fixed number of page entries for
// registered memory, shared by all its PEs and their segments ([ORDERING]
// III.B: under 800 MB of 4 KB pages per node). Transfers from or to
// unpinned memory outside the segment do not fail for it: they move
// through bounce buffers instead.
var ErrRegistrationFull = memreg.ErrTableFull

// Pinned is a buffer outside the segment registered with the network by
// PE.Pin.
type Pinned struct {
	pe   *PE
	h    conduit.MemHandle
	done bool
}

// Pin registers buf, memory outside the segment, with the network, so that
// puts from it and gets into it move directly instead of through bounce
// buffers or a registration made for each transfer. On a simulated network
// registering costs what the model says (Gemini: G-REG, about 0.9 us per
// 4 KB page, more when the node's PEs register at once); on the shared-
// memory backend it costs almost nothing. When the node cannot register
// more pages Pin fails with an error wrapping ErrRegistrationFull that
// names the bytes asked for and those still free. Unpin ends the registration;
// buf must stay untouched by the program while transfers use it, as any
// transfer buffer.
func (pe *PE) Pin(buf []byte) (*Pinned, error) {
	if err := pe.usable("Pin"); err != nil {
		return nil, err
	}
	if len(buf) == 0 {
		return nil, pe.errf("Pin", ErrArgument, "empty buffer")
	}
	h, err := pe.eng.Endpoint().Register(buf)
	if err != nil {
		return nil, pe.wrap("Pin", err)
	}
	return &Pinned{pe: pe, h: h}, nil
}

// Unpin ends the registration. Transfers using the buffer must have
// completed; a second Unpin fails with ErrHandle.
func (p *Pinned) Unpin() error {
	if p == nil || p.pe == nil {
		return &Error{PE: -1, Op: "Unpin", Err: ErrHandle}
	}
	if err := p.pe.usable("Unpin"); err != nil {
		return err
	}
	if p.done {
		return p.pe.errf("Unpin", ErrHandle, "already unpinned")
	}
	if err := p.pe.eng.Quiesce(); err != nil {
		return p.pe.wrap("Unpin", err)
	}
	p.done = true
	return p.pe.wrap("Unpin", p.pe.eng.Endpoint().Deregister(p.h))
}
