package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/prefetch"
)

// Time is virtual time in picoseconds.
type Time = conduit.Time

// An Actor receives the events scheduled for it. code and data are what the
// scheduler passed; data holding a pointer costs no allocation.
//
// Origin is the actor's place in the order of simultaneous events: its
// number (one the kernel gave out, NewOrigins) and the count of the events
// it has scheduled so far, which the kernel advances. An actor may embed a
// Source for both.
type Actor interface {
	Fire(code int32, data any)
	Origin() (id uint32, seq *uint32)
}

// Source is an actor's number and count of events scheduled (Actor.Origin),
// for an actor to embed.
type Source struct {
	ID  uint32
	Seq uint32
}

// Origin is the source's number and its count of events scheduled.
func (s *Source) Origin() (uint32, *uint32) { return s.ID, &s.Seq }

// The pending events are 64-bit keys in a priority queue (queue.go): the
// event's time (relative to a base the kernel moves forward) above the slot
// of its body in a slab. Events at the same time run in the order of their
// tie-break (tieBreak): the number of the actor that scheduled the event
// (0: none, the job's set-up) XOR a mask drawn from the run's seed and the
// event's time, then how many events that actor had scheduled before it.
// So the order depends only on what each actor did, not on where in memory
// the events were kept, and a partitioned kernel can reproduce it
// (docs/parallel-kernel.md). No actor's events come first at every
// instant, as they would if actors were ranked by number (a router would
// always serve the same input first when two packets arrive at once): of
// two actors, which goes first is decided by the mask's bit where their
// numbers first differ, a fair draw at each instant; and an actor's events
// at one time run in the order it scheduled them.
const (
	slotBits = 22 // at most 4M pending events
	slotMask = 1<<slotBits - 1
	timeBits = 64 - slotBits // pending events span at most 2^42 ps (4.4 s)
)

// bodyChunk is how many event bodies the slab makes at once: 48 KiB of
// bodies and tie-breaks, so that the chunk a partitioned run's kernel has
// begun and not filled holds little (241 kernels on the full Aries
// system).
const bodyChunk = 1 << 10

// body is a pending event, or a free slot of the slab: then a and data
// are nil and code links to the next free slot.
type body struct {
	a    Actor
	code int32
	data any
}

// slabChunk is a chunk of the slab: bodyChunk event bodies and their
// tie-breaks (tieBreak, without the mask of their time), by slot. The
// tie-breaks are apart from the bodies, so that gathering the events of
// one time reads 8 bytes a slot, eight to a cache line.
type slabChunk struct {
	bodies [bodyChunk]body
	ties   [bodyChunk]uint64
}

// Kernel is a discrete-event simulator.
type Kernel struct {
	now   Time
	base  Time  // keys hold times relative to it
	queue queue // time-base << slotBits | slot
	// slab is the event bodies and tie-breaks, in chunks of bodyChunk
	// made as the pending events first need them (so that growing it
	// copies nothing and leaves no garbage); slots counts the slots made.
	slab  []*slabChunk
	slots uint32
	// freeTop is the free slot made free last, plus one (0: none); each
	// free slot's code is the one made free before it, plus one. The
	// slots are reused last freed first.
	freeTop int32
	fired   uint64
	rng     *rand.Rand
	seed    uint64
	// mask is the mask of tie-breaks at maskTime (maskAt; -1 before the
	// first).
	mask     uint64
	maskTime Time

	// The batch is the events at the time now that are yet to run, while
	// there are several: every pending event at now is then in it. run
	// holds those that were pending when the time came, sorted by
	// tie-break, from runAt on (a burst of simultaneous events, such as
	// every PE's start, is sorted once); batch those scheduled for now
	// since, a binary heap by tie-break. The next is the lesser of their
	// firsts.
	run   []batchEntry
	runAt int
	keys  []uint64 // gather's room for the keys it takes from the queue
	batch []batchEntry
	// firing: an event is being processed (Step); an event it schedules
	// for now joins the batch.
	firing bool
	// curID and curSeq are the origin of the events scheduled now: the
	// number of the actor whose event is being processed (or 0), and its
	// count of events scheduled (or the kernel's own).
	curID    uint32
	curSeq   *uint32 // nil: curActor's, not yet looked up
	curActor Actor
	ownSeq   uint32
	origins  uint32 // numbers given out (NewOrigins)

	simLimit  Time          // SetLimits
	wallLimit time.Duration // SetLimits
	wallStart time.Time

	procs    []*Proc
	finished int  // procs whose body returned
	lastDone Time // when the last of them did
	running  *Proc
	abortErr error

	observe  func(Time, Actor) // Observe
	beforePE func()            // BeforePE

	// part is the kernel's place in a partitioned run (Parallel); nil
	// for a kernel that runs a job alone.
	part *partition
}

// New makes a kernel whose random choices follow seed.
func New(seed uint64) *Kernel {
	k := &Kernel{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed: seed, maskTime: -1}
	k.setOrigin(0, &k.ownSeq)
	return k
}

// setOrigin makes actor id, whose count of events scheduled is *seq, the
// origin of the events scheduled from now on.
func (k *Kernel) setOrigin(id uint32, seq *uint32) {
	k.curID, k.curSeq = id, seq
}

// tieBreak is the tie-break of an event at time t scheduled by the
// current origin, as the kernel keeps it: above, the origin's number;
// below, the origin's count of events scheduled. The events of one time
// are ranked by it XOR the mask of their time (maskAt), applied where
// they are compared (gather, and insert for an event at now): the
// origin's number XOR 32 bits of a hash of the seed and the time, which
// rank the origins with events at one time afresh at every instant (the
// order keeps actors of nearby numbers together, a channel's events near
// its router's, as a hash of each number would not). Most events share
// their time with none, so most never need the mask.
func (k *Kernel) tieBreak(t Time) uint64 {
	if k.curSeq == nil {
		k.setOrigin(k.curActor.Origin())
	}
	seq := *k.curSeq
	*k.curSeq++
	return uint64(k.curID)<<32 | uint64(seq)
}

// maskAt is the mask of tie-breaks at time t (tieBreak), t being now: the
// hash of the seed and t in the origin's half. It is worked out once an
// instant.
func (k *Kernel) maskAt(t Time) uint64 {
	if k.maskTime != t {
		k.mask, k.maskTime = uint64(uint32(Mix64(k.seed+uint64(t))>>32))<<32, t
	}
	return k.mask
}

// Mix64 is SplitMix64's finaliser, a bijection of 64-bit words whose
// outputs look independent for neighbouring inputs: the models' hashes
// and counter-based random draws.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Seed is the seed the kernel was made with: a model's random streams
// of its own (one per actor, so that a draw depends only on that actor's
// history) derive from it.
func (k *Kernel) Seed() uint64 { return k.seed }

// NewOrigins gives out n consecutive actor numbers (Actor.Origin) and
// returns the first. Numbers start at 1 (0 is the kernel's own) and are
// given in the order asked for, so a model that asks in the same order
// gets the same numbers.
//
// The partitions of a Parallel run share one numbering; they are to be
// numbered before Run, from one goroutine.
func (k *Kernel) NewOrigins(n int) uint32 {
	c := &k.origins
	if k.part != nil {
		c = &k.part.run.origins
	}
	if n < 0 || uint64(*c)+uint64(n) >= 1<<32-1 {
		panic(fmt.Sprintf("sim: %d more actor numbers after %d", n, *c))
	}
	first := *c + 1
	*c += uint32(n)
	return first
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
func (k *Kernel) Pending() int { return k.queue.len() + k.batched() }

// batched is the number of events in the batch.
func (k *Kernel) batched() int { return len(k.run) - k.runAt + len(k.batch) }

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
	k.insert(t, k.tieBreak(t), a, code, data)
}

// insert adds an event at time t (checked by At) with tie-break tie.
func (k *Kernel) insert(t Time, tie uint64, a Actor, code int32, data any) {
	var slot uint32
	var c *slabChunk
	if k.freeTop > 0 {
		slot = uint32(k.freeTop - 1)
		c = k.slab[slot/bodyChunk]
		k.freeTop = c.bodies[slot%bodyChunk].code
	} else {
		slot = k.newSlot()
		c = k.slab[slot/bodyChunk]
	}
	b := &c.bodies[slot%bodyChunk]
	b.a, b.code, b.data = a, code, data
	c.ties[slot%bodyChunk] = tie
	if t == k.now && (k.firing || k.batched() > 0) {
		k.pushBatch(batchEntry{tie ^ k.maskAt(t), slot})
		return
	}
	if e := uint64(t-k.base)<<slotBits | uint64(slot); !k.queue.pushNear(e) {
		k.queue.pushFar(e) // not through push: one frame fewer on a PE's stack
	}
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
		k.slab = append(k.slab, new(slabChunk))
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
	if k.batched() > 0 {
		return k.now
	}
	if k.queue.len() == 0 {
		return -1
	}
	return k.base + Time(k.queue.min()>>slotBits)
}

// Step processes the earliest event and reports whether there was one.
// Of the events at one time it takes the least tie-break: when the
// earliest key's time is shared with others, they all move from the queue
// to the batch, which gives them out in tie-break order along with those
// scheduled for that time as they run.
func (k *Kernel) Step() bool { return k.step(math.MaxInt64) }

// step is Step for Run, which ends the job at the simulated time limit:
// an event later than limit is left pending and ends the job with the
// limit's error (overLimit's), as if Run had looked at the next event's
// time before the step; it reports true then.
func (k *Kernel) step(limit Time) bool {
	var slot uint32
	switch {
	case k.batched() > 0:
		slot = k.popBatch()
	case k.queue.len() == 0:
		return false
	default:
		e, same := k.queue.popNext()
		t := k.base + Time(e>>slotBits)
		if t > limit {
			k.queue.push(e) // pending again, as it was
			k.abortErr = k.limitError("simulated time limit", k.simLimit.String())
			return true
		}
		slot = uint32(e & slotMask)
		k.now = t
		if same {
			k.gather(e)
			slot = k.popBatch()
		} else if n, ok := k.queue.nextInBucket(); ok {
			// Likely the next event, unless this one schedules an
			// earlier.
			k.hintBody(uint32(n & slotMask))
		}
	}
	bp := &k.slab[slot/bodyChunk].bodies[slot%bodyChunk]
	b := *bp
	*bp = body{code: k.freeTop}
	k.freeTop = int32(slot) + 1
	k.fired++
	if k.observe != nil {
		k.observe(k.now, b.a)
	}
	// The actor's origin is looked up when it first schedules an event
	// (tieBreak): its Fire has the actor in cache by then, and an event
	// that schedules nothing never looks.
	k.curActor, k.curSeq = b.a, nil
	k.firing = true
	b.a.Fire(b.code, b.data)
	k.firing = false
	k.setOrigin(0, &k.ownSeq)
	return true
}

// batchEntry is an event of the batch: its tie-break and its slot.
type batchEntry struct {
	tie  uint64
	slot uint32
}

// gather moves the event of key e and every other pending one at its time
// from the queue to the batch.
//
//go:noinline
func (k *Kernel) gather(e uint64) {
	t := e >> slotBits
	m := k.maskAt(k.now)
	k.run, k.runAt = append(k.run[:0], batchEntry{k.tieOf(uint32(e&slotMask)) ^ m, uint32(e & slotMask)}), 0
	var ok bool
	if k.keys, ok = k.queue.takeTime(k.keys[:0], e); ok {
		for _, key := range k.keys {
			s := uint32(key & slotMask)
			k.run = append(k.run, batchEntry{k.tieOf(s) ^ m, s})
		}
	} else {
		for k.queue.len() > 0 && k.queue.min()>>slotBits == t {
			s := uint32(k.queue.pop() & slotMask)
			k.run = append(k.run, batchEntry{k.tieOf(s) ^ m, s})
		}
	}
	// The batch's heap is empty: its room is the radix sort's other
	// buffer, and keeps what the sort grew it to.
	k.batch = sortByTie(k.run, k.batch)[:0]
	for _, r := range k.run[:min(len(k.run), bodyAhead)] {
		k.hintBody(r.slot) // the rest as the run goes (ahead)
	}
}

// Where sortByTie changes sorts (tie-breaks are distinct, so every sort
// gives the same order): insertionMax keeps the short bursts most times
// have off the library's sort; radixMin is where a radix sort's eight
// passes over 256 counts are cheap beside n log n comparisons, chosen,
// not tuned (the full system's bursts are of thousands).
const (
	insertionMax = 12
	radixMin     = 512
)

// sortByTie sorts r by tie-break: by insertion when short (most times
// are shared by a few events), by radix when long (every node's first
// posts of a large machine), else by the library's sort. spare is the
// radix sort's other buffer, grown as needed and returned.
func sortByTie(r, spare []batchEntry) []batchEntry {
	if len(r) >= radixMin {
		return radixByTie(r, spare)
	}
	if len(r) > insertionMax {
		slices.SortFunc(r, func(a, b batchEntry) int { return cmp.Compare(a.tie, b.tie) })
		return spare
	}
	for i := 1; i < len(r); i++ {
		x := r[i]
		j := i
		for j > 0 && r[j-1].tie > x.tie {
			r[j] = r[j-1]
			j--
		}
		r[j] = x
	}
	return spare
}

// radixByTie sorts r by tie-break, least significant byte first, passing
// over the bytes every tie-break has alike; spare is its other buffer,
// grown to r's length and returned.
func radixByTie(r, spare []batchEntry) []batchEntry {
	if cap(spare) < len(r) {
		spare = make([]batchEntry, len(r))
	}
	src, dst := r, spare[:len(r)]
	var counts [8][256]int
	for _, e := range src {
		for b := range 8 {
			counts[b][byte(e.tie>>(8*b))]++
		}
	}
	for b := range 8 {
		c := &counts[b]
		if c[byte(src[0].tie>>(8*b))] == len(src) {
			continue // every tie-break has this byte
		}
		at := 0
		for d, n := range c {
			c[d] = at
			at += n
		}
		for _, e := range src {
			d := byte(e.tie >> (8 * b))
			dst[c[d]] = e
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &r[0] {
		copy(r, src)
	}
	return spare
}

// tieOf is the tie-break of the event in slot s.
func (k *Kernel) tieOf(s uint32) uint64 { return k.slab[s/bodyChunk].ties[s%bodyChunk] }

// pushBatch adds x to the batch's heap.
func (k *Kernel) pushBatch(x batchEntry) { k.batch = heapPush(k.batch, x, batchKey) }

// popBatch takes the batch's least tie-break and returns its slot.
func (k *Kernel) popBatch() uint32 {
	if k.runAt < len(k.run) && (len(k.batch) == 0 || k.run[k.runAt].tie < k.batch[0].tie) {
		k.runAt++
		k.ahead()
		return k.run[k.runAt-1].slot
	}
	var top batchEntry
	top, k.batch = heapPop(k.batch, batchKey)
	return top.slot
}

// batchKey orders the batch: by tie-break.
func batchKey(e batchEntry) uint64 { return e.tie }

// RunUntil processes events up to and including time t.
func (k *Kernel) RunUntil(t Time) {
	for k.Pending() > 0 && k.next() <= t {
		k.Step()
	}
	if k.now < t {
		k.now = t
	}
}

// The run's events are read in tie-break order from slots all over the
// slab, and their actors and packets from all over the heap: each would
// be a cache miss when it runs. The kernel asks for them ahead instead
// (internal/prefetch), so that the events before overlap the waits: a
// body bodyAhead events before it runs (gather asks for the run's first),
// its actor and data actorAhead before, once its body is in the cache
// (docs/scale.md, "Lines asked for ahead"). An event alone at its time
// asks for the body of the next key in its bucket of the queue, the
// likely next event (step).
const (
	bodyAhead  = 6
	actorAhead = 3
)

// ahead asks for the lines the run's next events will read, runAt being
// the next to run after the one popBatch returns.
func (k *Kernel) ahead() {
	if i := k.runAt - 1 + bodyAhead; i < len(k.run) {
		k.hintBody(k.run[i].slot)
	}
	if i := k.runAt - 1 + actorAhead; i < len(k.run) {
		s := k.run[i].slot
		b := &k.slab[s/bodyChunk].bodies[s%bodyChunk]
		prefetch.Line(uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&b.a))[1]))
		prefetch.Line(uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&b.data))[1]))
	}
}

// hintBody asks for the body of the event in slot s.
func (k *Kernel) hintBody(s uint32) {
	prefetch.Line(uintptr(unsafe.Pointer(&k.slab[s/bodyChunk].bodies[s%bodyChunk])))
}
