package transport

import (
	"errors"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/memreg"
)

// pd is a post descriptor of the pool: the conduit descriptor plus what the
// runtime must do when it completes ([GASNET-GEMINI], Event Processing:
// copy out of a bounce buffer, free the bounce buffer, deregister a
// one-time registration, mark the operation done).
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
// A slab's descriptors themselves are built a few at a time, as the free
// list runs dry, so that a PE with one operation in flight holds a few
// descriptors rather than a slab of them.
type pdPool struct {
	free     *pd
	made     int
	limit    int
	inUse    int
	bounceSz int
	// The current slab: its bounce memory and registration, how many
	// descriptors it has and how many of them are built.
	slabMem   []byte
	slabH     conduit.MemHandle
	slabN     int
	slabBuilt int
}

const (
	// pdSlab is the number of descriptors whose bounce buffers are
	// registered at once.
	pdSlab = 64
	// pdBuild is the number of a slab's descriptors built at once.
	pdBuild = 8
)

// available reports whether a descriptor can be had without growing the
// pool: a free one, or one of the current slab not yet built.
func (p *pdPool) available() bool { return p.free != nil || p.slabBuilt < p.slabN }

func (p *pdPool) get(e *Engine) (*pd, error) {
	if p.free == nil {
		if p.slabBuilt == p.slabN {
			if p.made >= p.limit {
				return nil, nil
			}
			if err := p.grow(e); err != nil {
				if errors.Is(err, memreg.ErrTableFull) && p.made > 0 {
					// The network cannot register another slab's bounce
					// buffers: make do with the descriptors there are.
					p.limit = p.made
					return nil, nil
				}
				return nil, err
			}
		}
		p.build()
	}
	d := p.free
	p.free = d.next
	d.next = nil
	p.inUse++
	return d, nil
}

// grow starts a new slab: its bounce memory, registered as one region.
func (p *pdPool) grow(e *Engine) error {
	n := min(pdSlab, p.limit-p.made)
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
	p.slabMem, p.slabH, p.slabN, p.slabBuilt = mem, h, n, 0
	p.made += n
	return nil
}

// build makes the current slab's next descriptors and pushes them so that
// the lowest comes off the free list first.
func (p *pdPool) build() {
	lo := p.slabBuilt
	n := min(pdBuild, p.slabN-lo)
	ds := make([]pd, n)
	for i := n - 1; i >= 0; i-- {
		d := &ds[i]
		if p.bounceSz > 0 {
			k := lo + i
			d.bounce = p.slabMem[k*p.bounceSz : (k+1)*p.bounceSz : (k+1)*p.bounceSz]
			d.bounceMem = p.slabH
		}
		d.desc.Context = d
		d.next = p.free
		p.free = d
	}
	p.slabBuilt += n
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
	mem := make([]byte, BouncePoolBytes(b.total, b.size))
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

// PoolBytes is the memory a PE's descriptor pool holds once it has made
// its first descriptors: the first few built and the first slab's bounce
// buffers of pdBounce bytes each.
func PoolBytes(pdBounce int) int64 {
	return pdBuild*int64(unsafe.Sizeof(pd{})) + pdSlab*int64(pdBounce)
}

// BouncePoolBytes is the memory of a PE's bounce-buffer pool of total
// bytes in buffers of size bytes, made whole on its first use: as many
// whole buffers as fit.
func BouncePoolBytes(total, size int64) int64 {
	if size <= 0 || total <= 0 {
		return 0
	}
	return total / size * size
}
