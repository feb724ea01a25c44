package transport

import (
	"github.com/gopgas/gopgas/conduit"
)

// pd is a post descriptor of the pool: the conduit descriptor plus what the
// runtime must do when it completes (gasnet-gemini-conduit-readme.txt,
// Event Processing: copy out of a bounce buffer, free the bounce buffer,
// deregister a one-time registration, mark the operation done).
type pd struct {
	desc conduit.PostDesc
	op   *Op
	// bounce is this descriptor's own small bounce buffer, inside a
	// registered slab when the backend needs registered memory.
	bounce    []byte
	bounceMem conduit.MemHandle
	// Follow-on work.
	copyBack []byte            // a get landed in a bounce buffer: copy here
	pooled   *bounceBuf        // return to the bounce pool
	oneTime  conduit.MemHandle // deregister
	result   *uint64           // a fetching AMO's old value goes here
	retries  int               // times re-posted after a timeout
	next     *pd
}

// pdPool is the LIFO pool of post descriptors (R-PD). Descriptors are made
// in slabs when first needed, never more than limit, so a PE that issues
// little costs little memory; a slab's bounce buffers are one registration.
type pdPool struct {
	free     *pd
	made     int
	limit    int
	inUse    int
	bounceSz int
}

const pdSlab = 64

func (p *pdPool) get(e *Engine) (*pd, error) {
	if p.free == nil {
		if p.made >= p.limit {
			return nil, nil
		}
		if err := p.grow(e); err != nil {
			return nil, err
		}
	}
	d := p.free
	p.free = d.next
	d.next = nil
	p.inUse++
	return d, nil
}

func (p *pdPool) grow(e *Engine) error {
	n := min(pdSlab, p.limit-p.made)
	slab := make([]pd, n)
	var mem []byte
	var h conduit.MemHandle
	if p.bounceSz > 0 {
		mem = make([]byte, n*p.bounceSz)
		if e.needReg {
			var err error
			if h, err = e.ep.Register(mem); err != nil {
				return err
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		d := &slab[i]
		if p.bounceSz > 0 {
			d.bounce = mem[i*p.bounceSz : (i+1)*p.bounceSz : (i+1)*p.bounceSz]
			d.bounceMem = h
		}
		d.desc.Context = d
		d.next = p.free
		p.free = d
	}
	p.made += n
	return nil
}

func (p *pdPool) put(d *pd) {
	bounce, mem := d.bounce, d.bounceMem
	*d = pd{bounce: bounce, bounceMem: mem}
	d.desc.Context = d
	d.next = p.free
	p.free = d
	p.inUse--
}

// bounceBuf is one buffer of the bounce pool.
type bounceBuf struct {
	buf  []byte
	mem  conduit.MemHandle
	next *bounceBuf
}

// bouncePool holds total/size buffers of size bytes (R-BOUNCE,
// R-CUT-BOUNCE), allocated and registered as one region on first use.
type bouncePool struct {
	free  *bounceBuf
	total int64
	size  int64
	ready bool
	inUse int
}

func (b *bouncePool) get(e *Engine) (*bounceBuf, error) {
	if !b.ready {
		if err := b.init(e); err != nil {
			return nil, err
		}
	}
	x := b.free
	if x != nil {
		b.free = x.next
		x.next = nil
		b.inUse++
	}
	return x, nil
}

func (b *bouncePool) init(e *Engine) error {
	n := b.total / b.size
	mem := make([]byte, n*b.size)
	var h conduit.MemHandle
	if e.needReg {
		var err error
		if h, err = e.ep.Register(mem); err != nil {
			return err
		}
	}
	bufs := make([]bounceBuf, n)
	for i := n - 1; i >= 0; i-- {
		bufs[i] = bounceBuf{buf: mem[int64(i)*b.size : int64(i+1)*b.size : int64(i+1)*b.size], mem: h, next: b.free}
		b.free = &bufs[i]
	}
	b.ready = true
	return nil
}

func (b *bouncePool) put(x *bounceBuf) {
	x.next = b.free
	b.free = x
	b.inUse--
}
