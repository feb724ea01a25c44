package sim

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gopgas/gopgas/internal/hugepage"
)

// A partitioned run (docs/parallel-kernel.md). The model is cut into
// partitions that share no mutable state; each is a Kernel of its own,
// with its own queue, slab and clock, and an event for another partition
// is sent with Post, at least the lookahead L after the time it is sent
// at. The run goes in conservative windows: with T the earliest pending
// event of any partition (or of any event on its way between them), every
// partition processes its events in [T, T+L) without looking at the
// others, since nothing sent in the window can arrive before T+L; what
// each sent waits in its outbox until the window ends, and each partition
// takes what was sent to it when the next window starts. The partitions
// of a window may run on several workers (goroutines) at once.
//
// The results are the same, bit for bit, for any number of workers: the
// windows depend only on the events, a partition's events in a window are
// the same whoever runs them, and an event sent to another partition keeps
// the tie-break its sender gave it (Kernel.At's order: the sender's number
// under the instant's mask, then its count), so the receiving partition
// orders its simultaneous events the same way whichever window or worker
// they came from. A model whose partitions really share nothing therefore
// also gives the results of one kernel running all of it, save for what
// its PEs' Sync does (Proc.Sync): a PE in a partitioned run waits only
// for its own partition's events before its clock, and for the windows
// up to its clock past the window's end, where on one kernel it waits
// for any event before its clock. A PE that resumes from an event of its
// own rather than going on changes the order of later simultaneous
// events, so with PEs the results depend on how the model is cut into
// partitions (which the model fixes: by group, by slab), though never on
// the number of workers.

// Parallel is a run of partitions in conservative windows.
type Parallel struct {
	parts     []*Kernel
	lookahead Time
	origins   uint32  // actor numbers given out, every partition's
	procs     []*Proc // every partition's PEs, by number

	// parity is which of each partition's two outboxes the window being
	// run fills (the other holds the previous window's, which the
	// partitions take at the window's start); the set-up's is 1.
	parity  int
	windows uint64

	simLimit  Time
	wallLimit time.Duration
	ran       bool
	between   []func(Time) // Between
}

// partition is a kernel's place in a Parallel run.
type partition struct {
	run   *Parallel
	index int
	// end is the end of the window being run: the partition processes
	// events before it, and sends none to another partition before it.
	end Time
	// out[b] is what the partition sent the others in the windows of
	// parity b; outMin is the earliest time sent in this window.
	out    [2]outbox
	outMin Time
	// nextAt is the partition's earliest pending event after the window
	// (-1: none), for the barrier.
	nextAt Time
	// failAt is when the partition's kernel failed (abort).
	failAt Time
}

// remoteEvent is an event sent to another partition, with the tie-break
// its sender gave it.
type remoteEvent struct {
	t    Time
	tie  uint64
	a    Actor
	code int32
	dst  int32 // the partition it is for
	data any
}

// outbox is what a partition sent the others in a window: in the order
// sent while the window runs, then, from its end, by destination,
// destination d's being sent[ends[d-1]:ends[d]] (from 0 for the first).
// One outbox for all the destinations, rather than one for each, holds
// only the most the partition sends in a window, not the sum of the most
// it sends each of the others: on the full Aries system (241 partitions)
// the outboxes of every pair held 45 MB at the peak, one outbox each
// about 26 MB (heap profiles). A destination's events are not kept in the
// order sent: the order of a kernel's events depends on their times and
// tie-breaks only, not on the order they were scheduled in.
type outbox struct {
	sent       []remoteEvent
	sorted     bool
	ends, next []int32 // by destination
}

// sort puts what was sent in order of destination, in place (a counting
// sort that moves each event to its destination's part).
func (o *outbox) sort() {
	o.sorted = true
	if len(o.sent) == 0 {
		return
	}
	clear(o.ends)
	for i := range o.sent {
		o.ends[o.sent[i].dst]++
	}
	n := int32(0)
	for d, c := range o.ends {
		o.next[d] = n
		n += c
		o.ends[d] = n
	}
	for d := range o.ends {
		for o.next[d] < o.ends[d] {
			e := &o.sent[o.next[d]]
			if e.dst == int32(d) {
				o.next[d]++
				continue
			}
			// Swap it into its destination's next place: one more
			// event there is where it belongs.
			to := &o.sent[o.next[e.dst]]
			o.next[e.dst]++
			*e, *to = *to, *e
		}
	}
}

// grow makes room for twice the events sent so far. append would grow a
// large outbox by a quarter at a time, leaving four times its size in
// garbage as it grows (22 MB more allocated on the Jaguar torus).
//
//go:noinline
func (o *outbox) grow() {
	sent := make([]remoteEvent, len(o.sent), max(64, 2*cap(o.sent)))
	copy(sent, o.sent)
	o.sent = sent
}

// to is what the outbox holds for destination d once sorted.
func (o *outbox) to(d int) []remoteEvent {
	if len(o.sent) == 0 {
		return nil
	}
	lo := int32(0)
	if d > 0 {
		lo = o.ends[d-1]
	}
	return o.sent[lo:o.ends[d]]
}

// empty leaves the outbox empty, its events taken and cleared, for the
// window it begins.
func (o *outbox) empty() {
	o.sent, o.sorted = o.sent[:0], false
}

// NewParallel makes a run of n partitions with lookahead L: no event one
// partition sends another may be due less than L after the time it is
// sent at. Every partition's random order of simultaneous events follows
// seed, as one kernel's would.
func NewParallel(seed uint64, n int, lookahead Time) (*Parallel, error) {
	if n < 1 {
		return nil, fmt.Errorf("sim: a partitioned run of %d partitions: it needs at least 1", n)
	}
	if lookahead <= 0 {
		return nil, fmt.Errorf("sim: a partitioned run with a lookahead of %v: it must be positive", lookahead)
	}
	r := &Parallel{lookahead: lookahead, parity: 1}
	for i := range n {
		k := New(seed)
		k.part = &partition{run: r, index: i, outMin: math.MaxInt64, nextAt: -1}
		k.queue.maxMask = 1<<ringPartBits - 1
		for b := range k.part.out {
			k.part.out[b].ends = make([]int32, n)
			k.part.out[b].next = make([]int32, n)
		}
		r.parts = append(r.parts, k)
	}
	return r, nil
}

// Partition is partition i's kernel: its actors' events are scheduled
// there (At, After) and its PEs spawned there (Spawn).
func (r *Parallel) Partition(i int) *Kernel { return r.parts[i] }

// Partitions is the number of partitions.
func (r *Parallel) Partitions() int { return len(r.parts) }

// Lookahead is the run's lookahead.
func (r *Parallel) Lookahead() Time { return r.lookahead }

// Events is the number of events the partitions have processed.
func (r *Parallel) Events() uint64 {
	var n uint64
	for _, k := range r.parts {
		n += k.fired
	}
	return n
}

// Windows is the number of windows run so far.
func (r *Parallel) Windows() uint64 { return r.windows }

// SetLimits is Kernel.SetLimits for the whole run; the wall clock is read
// at the windows' ends.
func (r *Parallel) SetLimits(simLimit Time, wallLimit time.Duration) {
	r.simLimit, r.wallLimit = simLimit, wallLimit
}

// Between has f called after each window with the window's end, on the
// goroutine that called Run, while no partition runs: for what a model
// publishes to every partition at the windows' ends. Each call adds a
// function, called in the order they were added. What f schedules must
// be at or after the end.
func (r *Parallel) Between(f func(end Time)) { r.between = append(r.between, f) }

// End is when the run's last PE returned (or the latest time a partition
// reached, if some PE has not).
func (r *Parallel) End() Time {
	var t Time
	for _, k := range r.parts {
		if k.finished < len(k.procs) {
			return r.now()
		}
		t = max(t, k.lastDone)
	}
	return t
}

// Post schedules an event for actor a of partition dst (a kernel of the
// same run) at time t. For the kernel's own partition it is At. For
// another, t must be at least the run's lookahead after now (precisely:
// at or after the end of the window being run); the event waits in the
// sender's outbox until the window ends. An event sent too early is a
// model's error: the job fails, naming both partitions and the times.
func (k *Kernel) Post(dst *Kernel, t Time, a Actor, code int32, data any) {
	if dst == k {
		k.At(t, a, code, data)
		return
	}
	pt := k.part
	if pt == nil || dst.part == nil || dst.part.run != pt.run {
		panic("sim: Post to a kernel that is not a partition of the same run")
	}
	if t < pt.end || t < k.now {
		k.Fail(fmt.Errorf("sim: partition %d sent partition %d an event at %v, at %v: before its window's end %v (the lookahead, %v, is more than the model's least delay between partitions)",
			pt.index, dst.part.index, t, k.now, pt.end, pt.run.lookahead))
		return
	}
	box := &pt.out[pt.run.parity]
	// Sent between windows (by a Between function), it is sorted with
	// the rest before the next window.
	box.sorted = false
	if len(box.sent) == cap(box.sent) {
		box.grow()
	}
	box.sent = append(box.sent, remoteEvent{t: t, tie: k.tieBreak(t), a: a, code: code, dst: int32(dst.part.index), data: data})
	pt.outMin = min(pt.outMin, t)
}

// take moves what the other partitions sent the partition in the last
// window into its queue.
func (k *Kernel) take() {
	pt := k.part
	prev := pt.run.parity ^ 1
	for _, src := range pt.run.parts {
		box := src.part.out[prev].to(pt.index)
		for i := range box {
			e := &box[i]
			if e.t-k.base >= 1<<timeBits {
				k.farAt(e.t)
			}
			k.insert(e.t, e.tie, e.a, e.code, e.data)
			*e = remoteEvent{}
		}
	}
}

// window takes what the partition was sent and processes its events
// before end, then notes its earliest pending event for the barrier.
func (k *Kernel) window(end Time) {
	pt := k.part
	k.take()
	// The outbox of the window before last has been taken.
	pt.out[pt.run.parity].empty()
	pt.end = end
	pt.outMin = math.MaxInt64
	for k.abortErr == nil {
		t := k.next()
		if t < 0 || t >= end {
			break
		}
		k.Step()
	}
	pt.nextAt = k.next()
	// What it sent is taken in the next window, its destinations' own
	// parts of one block.
	pt.out[pt.run.parity].sort()
}

// earliest is the earliest pending event of the run, or on its way
// between partitions: the next window's start (-1: none).
func (r *Parallel) earliest() Time {
	t := Time(math.MaxInt64)
	for _, k := range r.parts {
		if k.part.nextAt >= 0 {
			t = min(t, k.part.nextAt)
		}
		t = min(t, k.part.outMin)
	}
	if t == math.MaxInt64 {
		return -1
	}
	return t
}

// failed is the run's failure, if a partition has failed: the earliest
// (by time, then partition), which every partition then reports.
func (r *Parallel) failed() error {
	var first *Kernel
	for _, k := range r.parts {
		if k.abortErr != nil && (first == nil || k.part.failAt < first.part.failAt) {
			first = k
		}
	}
	if first == nil {
		return nil
	}
	for _, k := range r.parts {
		k.abortErr = first.abortErr
	}
	return first.abortErr
}

// Run runs the job on workers goroutines (at most one per partition; the
// partitions are dealt out in runs of consecutive ones) until every PE
// has returned, and returns its first failure as Kernel.Run does. The
// results are the same for any number of workers. Run may be called once.
func (r *Parallel) Run(workers int) error {
	if r.ran {
		return fmt.Errorf("sim: a partitioned run run twice")
	}
	r.ran = true
	defer hugepage.Hold()() // as Kernel.Run
	workers = max(1, min(workers, len(r.parts)))
	var start time.Time
	if r.wallLimit > 0 {
		start = time.Now()
	}
	for _, k := range r.parts {
		k.part.nextAt = k.next()
	}
	pool := newWorkers(r, workers)
	defer pool.stop()
	var err error
	for {
		if err = r.failed(); err != nil {
			break
		}
		for _, k := range r.parts {
			// What was sent before the first window or between two.
			if o := &k.part.out[r.parity]; !o.sorted {
				o.sort()
			}
		}
		finished := 0
		for _, k := range r.parts {
			finished += k.finished
		}
		if len(r.procs) > 0 && finished == len(r.procs) {
			break
		}
		t := r.earliest()
		if t < 0 && finished == len(r.procs) {
			break
		}
		switch {
		case t < 0:
			err = deadlock(r.procs, r.now())
		case r.simLimit > 0 && t > r.simLimit:
			err = limitError(r.procs, "simulated time limit", r.simLimit.String(), r.now())
		case r.wallLimit > 0 && time.Since(start) > r.wallLimit:
			err = limitError(r.procs, "wall-clock time limit", r.wallLimit.String(), r.now())
		}
		if err != nil {
			break
		}
		end := t + r.lookahead
		if r.simLimit > 0 {
			end = min(end, r.simLimit+1)
		}
		r.parity ^= 1
		r.windows++
		pool.window(end)
		if r.between != nil {
			for _, f := range r.between {
				f(end)
			}
			for _, k := range r.parts {
				k.part.nextAt = k.next()
			}
		}
	}
	if err != nil {
		// Every PE still running sees the job's end in its waits and
		// runs to the end of its program.
		for _, k := range r.parts {
			k.abortErr = err
			k.unwind()
		}
	}
	for _, p := range r.procs {
		p.stop()
	}
	return failure(err)
}

// now is the latest time any partition has reached.
func (r *Parallel) now() Time {
	var t Time
	for _, k := range r.parts {
		t = max(t, k.now)
	}
	return t
}

// workers runs each window's partitions: the calling goroutine takes the
// first run of partitions, and a goroutine each of the others.
type workers struct {
	r     *Parallel
	share [][]*Kernel // each worker's partitions
	start []chan Time // a window's end, for each goroutine
	done  sync.WaitGroup
}

func newWorkers(r *Parallel, n int) *workers {
	w := &workers{r: r}
	for i := range n {
		lo, hi := i*len(r.parts)/n, (i+1)*len(r.parts)/n
		w.share = append(w.share, r.parts[lo:hi])
	}
	for i := 1; i < n; i++ {
		c := make(chan Time)
		w.start = append(w.start, c)
		go func(parts []*Kernel) {
			for end := range c {
				for _, k := range parts {
					k.window(end)
				}
				w.done.Done()
			}
		}(w.share[i])
	}
	return w
}

// window runs the window that ends at end on every worker and returns
// when all are done.
func (w *workers) window(end Time) {
	w.done.Add(len(w.start))
	for _, c := range w.start {
		c <- end
	}
	for _, k := range w.share[0] {
		k.window(end)
	}
	w.done.Wait()
}

func (w *workers) stop() {
	for _, c := range w.start {
		close(c)
	}
}
