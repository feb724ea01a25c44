package simnet

import "github.com/gopgas/gopgas/conduit"

// A PE's completion queues (local and remote) are lists of fixed blocks
// of events drawn from the job's free list as events arrive and returned
// to it as the PE takes them. A queue therefore holds memory only while
// events wait in it, and the job's blocks are those of its deepest total
// backlog: once a run has reached it, completing an operation allocates
// nothing. A slice per queue would grow to that PE's own deepest backlog,
// which keeps rising over a run of random gaps (one allocation per new
// depth, per PE).

// cqBlockLen is the events in a block: a PE that polls between posts
// rarely has more waiting (assumed).
const cqBlockLen = 8

// cqBlocksMade is how many blocks the free list makes at once.
const cqBlocksMade = 32

type cqBlock struct {
	evs  [cqBlockLen]conduit.Event
	next *cqBlock
}

// cqFree is a job's free list of blocks. The job's events and its PEs run
// one at a time, so it needs no lock.
type cqFree struct {
	head *cqBlock
}

func (f *cqFree) get() *cqBlock {
	if f.head == nil {
		made := make([]cqBlock, cqBlocksMade)
		for i := range made[:len(made)-1] {
			made[i].next = &made[i+1]
		}
		f.head = &made[0]
	}
	b := f.head
	f.head, b.next = b.next, nil
	return b
}

func (f *cqFree) put(b *cqBlock) {
	b.next = f.head
	f.head = b
}

// cq is a completion queue: events in the order they were queued.
type cq struct {
	head, tail *cqBlock
	r, w       int // next event to take in head; next free place in tail
	n          int // events queued
}

func (q *cq) len() int { return q.n }

func (q *cq) push(f *cqFree, ev conduit.Event) {
	if q.tail == nil || q.w == cqBlockLen {
		b := f.get()
		if q.tail == nil {
			q.head, q.r = b, 0
		} else {
			q.tail.next = b
		}
		q.tail, q.w = b, 0
	}
	q.tail.evs[q.w] = ev
	q.w++
	q.n++
}

// pop moves up to len(dst) events into dst, oldest first, and returns
// how many; emptied blocks go back to f.
func (q *cq) pop(f *cqFree, dst []conduit.Event) int {
	k := 0
	for k < len(dst) && q.n > 0 {
		b := q.head
		end := cqBlockLen
		if b == q.tail {
			end = q.w
		}
		m := copy(dst[k:], b.evs[q.r:end])
		clear(b.evs[q.r : q.r+m])
		q.r += m
		q.n -= m
		k += m
		if q.r < end {
			break
		}
		if b == q.tail {
			q.head, q.tail, q.r, q.w = nil, nil, 0, 0
		} else {
			q.head, q.r = b.next, 0
		}
		f.put(b)
	}
	return k
}
