package simnet

import (
	"math/rand/v2"
	"testing"

	"github.com/gopgas/gopgas/conduit"
)

// The queue hands events out in the order they came, across blocks, for
// any pattern of pushes and partial pops, and gives every block back
// once empty.
func TestCQOrder(t *testing.T) {
	var f cqFree
	var q cq
	rng := rand.New(rand.NewPCG(1, 2))
	var want []uint64
	next := uint64(0)
	buf := make([]conduit.Event, 20)
	for range 5000 {
		for range rng.IntN(3 * cqBlockLen) {
			q.push(&f, conduit.Event{Data: next})
			want = append(want, next)
			next++
		}
		n := q.pop(&f, buf[:rng.IntN(len(buf)+1)])
		for i := range n {
			if buf[i].Data != want[i] {
				t.Fatalf("event %d: got %d, want %d", i, buf[i].Data, want[i])
			}
		}
		want = want[n:]
		if q.len() != len(want) {
			t.Fatalf("len %d, want %d", q.len(), len(want))
		}
	}
	for q.len() > 0 {
		want = want[q.pop(&f, buf):]
	}
	if len(want) != 0 || q.head != nil || q.tail != nil {
		t.Fatalf("drained queue: %d left, head %p tail %p", len(want), q.head, q.tail)
	}
	free := 0
	for b := f.head; b != nil; b = b.next {
		free++
		for _, ev := range b.evs {
			if ev != (conduit.Event{}) {
				t.Fatalf("a free block keeps an event: %+v", ev)
			}
		}
	}
	if free%cqBlocksMade != 0 || free == 0 {
		t.Errorf("%d blocks free, want every block made (a multiple of %d)", free, cqBlocksMade)
	}
}

// Once the job's blocks cover the deepest backlog, queueing and taking
// events allocates nothing, whichever queue they pass through.
func TestCQSteadyNoAllocs(t *testing.T) {
	var f cqFree
	qs := make([]cq, 16)
	buf := make([]conduit.Event, 4)
	cycle := func() {
		for i := range qs {
			for range 1 + i%3*cqBlockLen {
				qs[i].push(&f, conduit.Event{Data: uint64(i)})
			}
		}
		for i := range qs {
			for qs[i].len() > 0 {
				qs[i].pop(&f, buf)
			}
		}
	}
	cycle()
	if a := testing.AllocsPerRun(100, cycle); a != 0 {
		t.Errorf("%v allocations per cycle after warm-up, want 0", a)
	}
}
