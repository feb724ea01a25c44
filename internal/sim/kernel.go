package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gopgas/gopgas/conduit"
)

// Time is virtual time in picoseconds.
type Time = conduit.Time

// An Actor receives the events scheduled for it. code and data are what the
// scheduler passed; data holding a pointer costs no allocation.
type Actor interface {
	Fire(code int32, data any)
}

// The pending events are 64-bit keys in a priority queue (queue.go): the
// event's time (relative to a base the kernel moves forward) above the slot
// of its body in a slab. Events at the same time run in the order of their
// slots, which is deterministic though not the order they were scheduled
// in.
const (
	slotBits = 22 // at most 4M pending events
	slotMask = 1<<slotBits - 1
	timeBits = 64 - slotBits // pending events span at most 2^42 ps (4.4 s)
)

// bodyChunk is how many event bodies the slab makes at once.
const bodyChunk = 1 << 12

// body is a pending event, or a free slot of the slab: then a and data
// are nil and code links to the next free slot.
type body struct {
	a    Actor
	code int32
	data any
}

// Kernel is a discrete-event simulator.
type Kernel struct {
	now   Time
	base  Time  // keys hold times relative to it
	queue queue // time-base << slotBits | slot
	// slab is the event bodies, in chunks of bodyChunk made as the
	// pending events first need them (so that growing it copies nothing
	// and leaves no garbage); slots counts the slots made.
	slab  [][]body
	slots uint32
	// freeTop is the free slot made free last, plus one (0: none); each
	// free slot's code is the one made free before it, plus one. The
	// slots are reused last freed first.
	freeTop int32
	fired   uint64
	rng     *rand.Rand

	simLimit  Time          // SetLimits
	wallLimit time.Duration // SetLimits
	wallStart time.Time

	procs    []*Proc
	finished int // procs whose body returned
	running  *Proc
	abortErr error

	observe  func(Time, Actor) // Observe
	beforePE func()            // BeforePE
}

// New makes a kernel whose random choices follow seed.
func New(seed uint64) *Kernel {
	return &Kernel{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Now is the time of the event being processed.
func (k *Kernel) Now() Time { return k.now }

// Events is the number of events processed so far.
func (k *Kernel) Events() uint64 { return k.fired }

// Rand is the kernel's random source: deterministic for a seed, and to be
// used only from events and PEs (never concurrently).
func (k *Kernel) Rand() *rand.Rand { return k.rng }

// Observe has f called with the time and the actor of every event the
// kernel processes from now on, before the actor's Fire (nil: none): for
// measuring the event population, not for the model.
func (k *Kernel) Observe(f func(Time, Actor)) { k.observe = f }

// BeforePE has f called on the kernel's own stack each time before it runs
// a PE's code (nil: none). A PE's code runs on a stack of its own, which
// keeps the size it starts with (2 KiB, a third of which the runtime
// keeps) only while its calls stay shallow: a model stocks there what its
// PEs' calls would otherwise allocate, since an allocation that takes the
// runtime's slow path is several hundred bytes deep.
func (k *Kernel) BeforePE(f func()) { k.beforePE = f }

// Pending is the number of events not yet processed.
func (k *Kernel) Pending() int { return k.queue.len() }

// At schedules an event for a at time t, which must not be in the past.
//
// A PE's post schedules events from the PE's own stack, which keeps the
// size it starts with only while the frames on it are small: what is rare
// (the checks' panics, a new chunk of the slab, the heap's growth) is
// done in functions of its own.
func (k *Kernel) At(t Time, a Actor, code int32, data any) {
	if t < k.now || t-k.base >= 1<<timeBits {
		k.farAt(t)
	}
	var slot uint32
	if k.freeTop > 0 {
		slot = uint32(k.freeTop - 1)
		k.freeTop = k.slab[slot/bodyChunk][slot%bodyChunk].code
	} else {
		slot = k.newSlot()
	}
	b := &k.slab[slot/bodyChunk][slot%bodyChunk]
	b.a, b.code, b.data = a, code, data
	k.queue.push(uint64(t-k.base)<<slotBits | uint64(slot))
}

// farAt checks an event's time t that is in the past or beyond the
// queue's span from its base: the base moves up to now, and t must then be
// within the span.
//
//go:noinline
func (k *Kernel) farAt(t Time) {
	if t < k.now {
		panic(fmt.Sprintf("sim: event scheduled at %v, before now %v", t, k.now))
	}
	k.rebase()
	if t-k.base >= 1<<timeBits {
		panic(fmt.Sprintf("sim: event scheduled %v ahead, beyond the queue's span", t-k.now))
	}
}

// newSlot is a slot of the slab never used before, the slab made larger
// by a chunk when it is full.
//
//go:noinline
func (k *Kernel) newSlot() uint32 {
	if k.slots > slotMask {
		panic("sim: more than 4M events pending")
	}
	slot := k.slots
	if slot%bodyChunk == 0 {
		k.slab = append(k.slab, make([]body, bodyChunk))
	}
	k.slots++
	return slot
}

// rebase moves the base of the keys up to now; every pending event is at
// or after now, so no key underflows and their order is kept.
func (k *Kernel) rebase() {
	d := uint64(k.now-k.base) << slotBits
	k.queue.shift(d)
	k.base = k.now
}

// After schedules an event d after now.
func (k *Kernel) After(d Time, a Actor, code int32, data any) { k.At(k.now+d, a, code, data) }

// next is the time of the earliest pending event, or -1.
func (k *Kernel) next() Time {
	if k.queue.len() == 0 {
		return -1
	}
	return k.base + Time(k.queue.min()>>slotBits)
}

// Step processes the earliest event and reports whether there was one.
func (k *Kernel) Step() bool {
	if k.queue.len() == 0 {
		return false
	}
	e := k.queue.pop()
	slot := uint32(e & slotMask)
	bp := &k.slab[slot/bodyChunk][slot%bodyChunk]
	b := *bp
	*bp = body{code: k.freeTop}
	k.freeTop = int32(slot) + 1
	k.now = k.base + Time(e>>slotBits)
	k.fired++
	if k.observe != nil {
		k.observe(k.now, b.a)
	}
	b.a.Fire(b.code, b.data)
	return true
}

// RunUntil processes events up to and including time t.
func (k *Kernel) RunUntil(t Time) {
	for k.queue.len() > 0 && k.next() <= t {
		k.Step()
	}
	if k.now < t {
		k.now = t
	}
}
