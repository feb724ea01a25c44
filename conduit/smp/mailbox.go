package smp

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/pad"
)

// A mailbox is the ring one sender uses to one receiver: single producer,
// single consumer. On a machine where moving a cache line between cores is
// the dominant cost of a message, it is built so that a short message moves
// one line: each slot holds a sequence number, written by the sender after
// the header beside it, which the receiver polls; the receiver reports the
// slots it has released on a line of its own, which the sender reads only
// when the ring looks full.
type mailbox struct {
	src   int
	slots []slot // a power of two, at least cap
	mask  uint64
	cap   uint64 // messages the mailbox holds (JobConfig.MailboxSlots)
	prod  *prodSide
	cons  *consSide
}

type prodSide struct {
	head       uint64 // next slot to fill
	cachedTail uint64 // last tail read
}

type consSide struct {
	tail atomic.Uint64 // slots before it are free for the producer
	next uint64        // next slot to read; tail catches up one poll later
}

// slot is two cache lines (128 bytes, checked below): the sequence number,
// lengths and the first 48 header bytes (room for an active message with
// ten arguments) share the first.
type slot struct {
	seq    atomic.Uint64 // index+1 of the message in the slot
	hdrLen uint32
	payLen uint32
	hdr    [MaxHeaderBytes]byte // the header, then the payload if it fits (inline)
	pay    []byte               // a payload that does not fit: grown on demand, reused
}

var _ = [1]struct{}{}[unsafe.Sizeof(slot{})-128]

// inline reports whether a message's payload travels in its slot, after
// the header, rather than in the slot's payload buffer: a short message
// then moves the slot's cache lines alone (one, for a header and payload
// of up to 48 bytes together), not a line of the payload buffer besides.
func inline(headerBytes, payloadBytes int) bool {
	return headerBytes+payloadBytes <= MaxHeaderBytes
}

func newMailbox(src, slots int) *mailbox {
	n := 1
	for n < slots {
		n <<= 1
	}
	return &mailbox{src: src, slots: make([]slot, n), mask: uint64(n - 1), cap: uint64(slots), prod: pad.New[prodSide](), cons: pad.New[consSide]()}
}

// inbox is a receiver's side of its mailboxes.
type inbox struct {
	// Mailboxes made by senders since the receiver last looked.
	fresh    sync.Mutex
	freshBox []*mailbox
	anyFresh *atomic.Bool

	// Owned by the receiving goroutine.
	boxes     []*mailbox // every mailbox sending to this PE
	rr        int        // where the next scan starts
	held      []*mailbox // boxes whose slots the last batch handed out
	peerBurst int
}

func (in *inbox) init(peerBurst int) {
	in.anyFresh = pad.New[atomic.Bool]()
	in.peerBurst = peerBurst
}

// SendMessage copies the message into this PE's ring to the target.
func (e *endpoint) SendMessage(target int, header, payload []byte) error {
	if target < 0 || target >= len(e.job.eps) {
		return fmt.Errorf("smp: PE %d: SendMessage to PE %d outside the job [0,%d)", e.rank, target, len(e.job.eps))
	}
	if len(header) > MaxHeaderBytes || len(payload) > MaxPayloadBytes {
		return fmt.Errorf("smp: PE %d: SendMessage of %d+%d bytes exceeds %d+%d", e.rank, len(header), len(payload), MaxHeaderBytes, MaxPayloadBytes)
	}
	box := e.out.Get(target)
	if box == nil {
		box = newMailbox(e.rank, e.job.cfg.MailboxSlots)
		e.out.Set(target, box)
		in := &e.job.eps[target].inbox
		in.fresh.Lock()
		in.freshBox = append(in.freshBox, box)
		in.fresh.Unlock()
		in.anyFresh.Store(true)
	}
	p := box.prod
	h := p.head
	if h-p.cachedTail >= box.cap {
		p.cachedTail = box.cons.tail.Load()
		if h-p.cachedTail >= box.cap {
			return conduit.ErrMailboxFull
		}
	}
	s := &box.slots[h&box.mask]
	s.hdrLen = uint32(copy(s.hdr[:], header))
	s.payLen = uint32(len(payload))
	if len(payload) > 0 {
		if inline(len(header), len(payload)) {
			copy(s.hdr[len(header):], payload)
		} else {
			s.pay = append(s.pay[:0], payload...)
		}
	}
	s.seq.Store(h + 1)
	p.head = h + 1
	e.job.wakeUp(target)
	return nil
}

// PollMessages hands out arrived messages from at most peerBurst senders,
// and releases the slots of the previous batch.
func (e *endpoint) PollMessages(msgs []conduit.Message) int {
	in := &e.inbox
	for _, box := range in.held {
		box.cons.tail.Store(box.cons.next)
		e.job.wakeUp(box.src) // a sender may wait for space
	}
	clear(in.held)
	in.held = in.held[:0]
	if in.anyFresh.Load() {
		in.anyFresh.Store(false)
		in.fresh.Lock()
		in.boxes = append(in.boxes, in.freshBox...)
		clear(in.freshBox)
		in.freshBox = in.freshBox[:0]
		in.fresh.Unlock()
	}
	nb := len(in.boxes)
	n, served := 0, 0
	for i := 0; i < nb && served < in.peerBurst && n < len(msgs); i++ {
		box := in.boxes[(in.rr+i)%nb]
		c := box.cons
		start := c.next
		for n < len(msgs) {
			s := &box.slots[c.next&box.mask]
			if s.seq.Load() != c.next+1 {
				break
			}
			h, p := int(s.hdrLen), int(s.payLen)
			m := conduit.Message{Source: box.src, Header: s.hdr[:h:h]}
			if inline(h, p) {
				m.Payload = s.hdr[h : h+p : h+p]
			} else {
				m.Payload = s.pay[:p]
			}
			msgs[n] = m
			n++
			c.next++
		}
		if c.next != start {
			in.held = append(in.held, box)
			served++
		}
	}
	if nb > 0 {
		in.rr = (in.rr + 1) % nb
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
	if q.head == len(q.evs) {
		return 0
	}
	n := copy(dst, q.evs[q.head:])
	q.head += n
	if q.head == len(q.evs) {
		clear(q.evs)
		q.evs = q.evs[:0]
		q.head = 0
	}
	return n
}
