package smp

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/pad"
)

// A mailbox is the ring one sender uses to one receiver: single producer,
// single consumer. Each side's index lives on its own cache lines with a
// cached copy of the other side's, so a message normally touches one line
// the other core wrote.
type mailbox struct {
	prod  *prodSide
	cons  *consSide
	slots []slot
	mask  uint64
}

type prodSide struct {
	head       atomic.Uint64 // next slot to fill; published after the fill
	cachedTail uint64
}

type consSide struct {
	tail atomic.Uint64 // slots before it are free for the producer
	next uint64        // next slot to hand out; tail catches up one poll later
}

type slot struct {
	hdr []byte
	pay []byte
}

func newMailbox(slots int) *mailbox {
	n := 1
	for n < slots {
		n <<= 1
	}
	return &mailbox{prod: pad.New[prodSide](), cons: pad.New[consSide](), slots: make([]slot, n), mask: uint64(n - 1)}
}

// inbox is a receiver's side of all its mailboxes.
type inbox struct {
	// Doorbells: bit s of bells[s/64] says sender s may have messages; bit
	// i of summary says some word in [i*span, (i+1)*span) may be non-zero.
	summary *atomic.Uint64
	bells   []atomic.Uint64
	span    int
	boxes   []atomic.Pointer[mailbox] // by sender, set by the sender

	// Owned by the receiving goroutine.
	work      []int // ring of senders to serve
	workHead  int
	workLen   int
	queued    []bool
	held      []*mailbox // boxes whose slots the last batch handed out
	peerBurst int
}

func (in *inbox) init(pes, peerBurst int) {
	words := (pes + 63) / 64
	in.summary = pad.New[atomic.Uint64]()
	in.bells = make([]atomic.Uint64, words)
	in.span = (words + 63) / 64
	in.boxes = make([]atomic.Pointer[mailbox], pes)
	in.work = make([]int, pes)
	in.queued = make([]bool, pes)
	in.peerBurst = peerBurst
}

func (in *inbox) ring(src int) {
	w := src >> 6
	bit := uint64(1) << (src & 63)
	// Skipping the write when the bit is already set is safe: the receiver
	// clears a word before it reads the rings it names, so a set bit means
	// our message, published before this load, will be seen.
	if in.bells[w].Load()&bit == 0 {
		in.bells[w].Or(bit)
	}
	sb := uint64(1) << (w / in.span)
	if in.summary.Load()&sb == 0 {
		in.summary.Or(sb)
	}
}

func (in *inbox) enqueue(src int) {
	if in.queued[src] {
		return
	}
	in.queued[src] = true
	in.work[(in.workHead+in.workLen)%len(in.work)] = src
	in.workLen++
}

func (in *inbox) dequeue() int {
	src := in.work[in.workHead]
	in.workHead = (in.workHead + 1) % len(in.work)
	in.workLen--
	in.queued[src] = false
	return src
}

// harvest moves the senders the doorbells name onto the work ring.
func (in *inbox) harvest() {
	if in.summary.Load() == 0 {
		return
	}
	s := in.summary.Swap(0)
	for s != 0 {
		i := bits.TrailingZeros64(s)
		s &^= 1 << i
		end := min((i+1)*in.span, len(in.bells))
		for w := i * in.span; w < end; w++ {
			if in.bells[w].Load() == 0 {
				continue
			}
			v := in.bells[w].Swap(0)
			for v != 0 {
				b := bits.TrailingZeros64(v)
				v &^= 1 << b
				in.enqueue(w*64 + b)
			}
		}
	}
}

// SendMessage copies the message into the receiver's ring for this PE.
func (e *endpoint) SendMessage(target int, header, payload []byte) error {
	if target < 0 || target >= len(e.job.eps) {
		return fmt.Errorf("smp: PE %d: SendMessage to PE %d outside the job [0,%d)", e.rank, target, len(e.job.eps))
	}
	if len(header) > MaxHeaderBytes || len(payload) > MaxPayloadBytes {
		return fmt.Errorf("smp: PE %d: SendMessage of %d+%d bytes exceeds %d+%d", e.rank, len(header), len(payload), MaxHeaderBytes, MaxPayloadBytes)
	}
	tgt := e.job.eps[target]
	box := e.out[target]
	if box == nil {
		box = newMailbox(e.job.cfg.MailboxSlots)
		e.out[target] = box
		tgt.inbox.boxes[e.rank].Store(box)
	}
	p := box.prod
	h := p.head.Load()
	if h-p.cachedTail >= uint64(len(box.slots)) {
		p.cachedTail = box.cons.tail.Load()
		if h-p.cachedTail >= uint64(len(box.slots)) {
			return conduit.ErrMailboxFull
		}
	}
	s := &box.slots[h&box.mask]
	s.hdr = append(s.hdr[:0], header...)
	s.pay = append(s.pay[:0], payload...)
	p.head.Store(h + 1)
	tgt.inbox.ring(e.rank)
	return nil
}

// PollMessages hands out arrived messages, serving at most peerBurst
// senders, and releases the slots of the previous batch.
func (e *endpoint) PollMessages(msgs []conduit.Message) int {
	in := &e.inbox
	for _, box := range in.held {
		box.cons.tail.Store(box.cons.next)
	}
	clear(in.held)
	in.held = in.held[:0]
	in.harvest()
	n := 0
	for peers := 0; peers < in.peerBurst && n < len(msgs) && in.workLen > 0; peers++ {
		src := in.dequeue()
		box := in.boxes[src].Load()
		c := box.cons
		h := box.prod.head.Load()
		start := c.next
		for c.next < h && n < len(msgs) {
			s := &box.slots[c.next&box.mask]
			msgs[n] = conduit.Message{Source: src, Header: s.hdr, Payload: s.pay}
			n++
			c.next++
		}
		if c.next != start {
			in.held = append(in.held, box)
		}
		if c.next < h {
			in.enqueue(src)
		}
	}
	if n > 0 {
		e.noteProgress()
	}
	return n
}

// eventQueue is a FIFO owned by one goroutine.
type eventQueue struct {
	evs  []conduit.Event
	head int
}

func (q *eventQueue) push(ev conduit.Event) { q.evs = append(q.evs, ev) }

func (q *eventQueue) pop(dst []conduit.Event) int {
	n := copy(dst, q.evs[q.head:])
	q.head += n
	if q.head == len(q.evs) {
		clear(q.evs)
		q.evs = q.evs[:0]
		q.head = 0
	}
	return n
}
