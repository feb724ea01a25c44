package sim

import (
	"fmt"
	"iter"
	"math"
	"runtime/debug"
	"sort"
	"time"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/hugepage"
)

type procState uint8

const (
	procReady   procState = iota // a resume event is scheduled
	procRunning                  // executing its code
	procBlocked                  // waiting for Wake
	procDone                     // its body returned
)

// Proc is a PE running as a coroutine of the kernel.
type Proc struct {
	Source // its number among the actors (NewOrigins), given at Spawn
	k      *Kernel
	id     int
	clock  Time
	state  procState
	what   string
	// notified records a Wake that came while the PE was not blocked (it
	// was syncing): its next Block returns at once, so that it looks again
	// instead of missing what woke it.
	notified bool

	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	err   error // what its body returned
}

// Spawn makes a PE that runs body from time 0 when Run starts. body's
// error is returned by Run when it is the job's first failure.
func (k *Kernel) Spawn(body func(p *Proc) error) *Proc {
	p := &Proc{k: k, id: len(k.procs)}
	if k.part != nil {
		// PEs are numbered across the partitions.
		p.id = len(k.part.run.procs)
		k.part.run.procs = append(k.part.run.procs, p)
	}
	p.Source.ID = k.NewOrigins(1)
	seq := func(yield func(struct{}) bool) {
		p.yield = yield
		p.err = body(p)
	}
	p.next, p.stop = iter.Pull(seq)
	k.procs = append(k.procs, p)
	k.At(0, p, 0, nil)
	return p
}

// ID is the PE's index in spawn order.
func (p *Proc) ID() int { return p.id }

// Clock is the PE's own time.
func (p *Proc) Clock() Time { return p.clock }

// Kernel is the PE's kernel.
func (p *Proc) Kernel() *Kernel { return p.k }

// Fire resumes the PE: the kernel runs it from its resume event.
func (p *Proc) Fire(int32, any) {
	if p.state == procDone {
		return
	}
	p.clock = max(p.clock, p.k.now)
	p.state = procRunning
	if f := p.k.beforePE; f != nil {
		f()
	}
	p.k.running = p
	_, ok := p.resume()
	p.k.running = nil
	if !ok {
		p.state = procDone
		p.k.finished++
		p.k.lastDone = p.k.now
		if p.err != nil {
			p.k.abort(p.id, p.err)
		}
	}
}

// resume runs the coroutine until it yields, turning a panic that escaped
// the PE's own code (a simulator bug) into the job's failure.
func (p *Proc) resume() (v struct{}, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Errorf("sim: PE %d: panic in the simulator: %v\n%s", p.id, r, debug.Stack())
			ok = false
		}
	}()
	return p.next()
}

// Advance spends d of the PE's CPU time (nothing when d <= 0).
func (p *Proc) Advance(d Time) {
	if d > 0 {
		p.clock += d
	}
}

// Sync lets every event before the PE's clock happen, so that what the PE
// observes next is the state of the machine at its clock. It returns the
// job's abort error, if any.
//
// In a partitioned run (Parallel) only the events of the PE's own
// partition can change what it observes before the window's end: it
// waits for those before its clock, and when its clock is at or after
// the window's end, for the windows up to its clock, whose events from
// other partitions are not known yet.
func (p *Proc) Sync() error {
	if err := p.k.abortErr; err != nil {
		return err
	}
	if t := p.k.next(); t >= 0 && t < p.clock || p.k.part != nil && p.clock >= p.k.part.end {
		p.state = procReady
		p.k.At(p.clock, p, 0, nil)
		p.suspend()
	}
	return p.k.abortErr
}

// Block suspends the PE until Wake is called for it, then returns at a
// clock no earlier than before. what says what it waits for, for deadlock
// reports. It returns the job's abort error, if any.
func (p *Proc) Block(what string) error {
	if err := p.k.abortErr; err != nil {
		return err
	}
	if p.notified {
		p.notified = false
		return nil
	}
	p.state = procBlocked
	p.what = what
	p.suspend()
	p.what = ""
	return p.k.abortErr
}

func (p *Proc) suspend() {
	p.k.running = nil
	if !p.yield(struct{}{}) {
		// The kernel stopped the coroutine; nothing may run any more.
		panic("sim: PE resumed after stop")
	}
}

// Wake makes a blocked PE runnable at the current time (or its own clock,
// if later). Waking a PE that is not blocked makes its next Block return at
// once.
func (p *Proc) Wake() { p.WakeAt(p.k.now) }

// WakeAt is Wake at time t (not before now, nor before the PE's clock).
func (p *Proc) WakeAt(t Time) {
	if p.state != procBlocked {
		if p.state != procDone {
			p.notified = true
		}
		return
	}
	p.state = procReady
	p.k.At(max(p.k.now, p.clock, t), p, 0, nil)
}

// Running is the PE whose code is executing, or nil inside an event.
func (k *Kernel) Running() *Proc { return k.running }

// Aborted is the error that ended the job, or nil.
func (k *Kernel) Aborted() error { return k.abortErr }

// Fail ends the job with err as its failure, unless it has already failed.
// Model code calls it from an event when the run must stop.
func (k *Kernel) Fail(err error) { k.abort(-1, err) }

func (k *Kernel) abort(id int, err error) {
	if k.abortErr == nil {
		k.abortErr = &jobFailure{pe: id, err: err}
		if k.part != nil {
			k.part.failAt = k.now
		}
	}
}

type jobFailure struct {
	pe  int
	err error
}

func (f *jobFailure) Error() string {
	return fmt.Sprintf("%v: PE %d failed: %v", conduit.ErrJobAborted, f.pe, f.err)
}

func (f *jobFailure) Unwrap() error { return conduit.ErrJobAborted }

// Run processes events until every PE has returned, and returns the job's
// first failure: a PE's error, or a *conduit.DeadlockError when every PE
// still running is blocked and no event is pending.
func (k *Kernel) Run() error {
	if k.part != nil {
		return fmt.Errorf("sim: Run of partition %d's kernel: a partitioned run is run by its Parallel", k.part.index)
	}
	if k.wallLimit > 0 {
		k.wallStart = time.Now()
	}
	// The model's state is read at random all over the heap: on huge
	// pages, fewer of its reads miss the TLB (package hugepage).
	defer hugepage.Hold()()
	limit := k.stepLimit()
	for {
		if k.abortErr != nil {
			k.unwind()
			break
		}
		if len(k.procs) > 0 && k.finished == len(k.procs) {
			// Every PE has returned: what is still scheduled (timers of
			// finished work) can change nothing anyone sees.
			break
		}
		if k.wallLimit > 0 && k.overLimit() { // the test outside: no call an event without the limit
			continue
		}
		if k.step(limit) {
			continue
		}
		if k.allDone() {
			break
		}
		k.abortErr = k.deadlock()
	}
	for _, p := range k.procs {
		p.stop()
	}
	return k.failure()
}

// unwind resumes every PE that has not returned: its waits now fail at
// once, so its program runs to its end.
func (k *Kernel) unwind() {
	for _, p := range k.procs {
		for p.state != procDone {
			k.setOrigin(p.Origin())
			p.Fire(0, nil)
			k.setOrigin(0, &k.ownSeq)
		}
	}
}

func (k *Kernel) allDone() bool {
	for _, p := range k.procs {
		if p.state != procDone {
			return false
		}
	}
	return true
}

// SetLimits ends Run with a *conduit.LimitError when the next event is
// later than simLimit, or once Run has taken wallLimit of wall-clock time
// (each 0 for none). The wall-clock limit is read every few thousand
// events; it is the only use of the wall clock, and a run it ends is by
// nature not reproducible.
func (k *Kernel) SetLimits(simLimit Time, wallLimit time.Duration) {
	k.simLimit, k.wallLimit = simLimit, wallLimit
}

// wallCheckEvery is how many events pass between readings of the wall
// clock for the wall-clock limit.
const wallCheckEvery = 4096

// overLimit ends the job when the wall-clock limit has passed, and
// reports whether it did (the simulated time limit is step's).
func (k *Kernel) overLimit() bool {
	if k.wallLimit > 0 && k.fired%wallCheckEvery == 0 && time.Since(k.wallStart) > k.wallLimit {
		k.abortErr = k.limitError("wall-clock time limit", k.wallLimit.String())
		return true
	}
	return false
}

// stepLimit is the latest time Run's steps may take an event at, found
// once a run: the simulated time limit, if set (step checks it on the
// event it takes, rather than overLimit looking for the next event's time
// before every step: the same check, made once an event).
func (k *Kernel) stepLimit() Time {
	if k.simLimit > 0 {
		return k.simLimit
	}
	return math.MaxInt64
}

// limitError says what each PE was doing when a limit ended the job.
func (k *Kernel) limitError(limit, value string) *conduit.LimitError {
	return limitError(k.procs, limit, value, k.now)
}

// limitError says what each of procs was doing when a limit ended the
// job at time at.
func limitError(procs []*Proc, limit, value string, at Time) *conduit.LimitError {
	e := &conduit.LimitError{Limit: limit, Value: value, Doing: make(map[int]string), At: at}
	for _, p := range procs {
		switch {
		case p.state == procDone:
			e.Finished = append(e.Finished, p.id)
		case p.state == procBlocked && p.what != "":
			e.Doing[p.id] = "waiting for " + p.what
		case p.state == procBlocked:
			e.Doing[p.id] = "waiting"
		default:
			e.Doing[p.id] = fmt.Sprintf("computing (its clock at %v)", p.clock)
		}
	}
	sort.Ints(e.Finished)
	return e
}

func (k *Kernel) deadlock() *conduit.DeadlockError { return deadlock(k.procs, k.now) }

// deadlock reports procs, none of which can go on, at time at.
func deadlock(procs []*Proc, at Time) *conduit.DeadlockError {
	d := &conduit.DeadlockError{Waiting: make(map[int]string), At: at}
	for _, p := range procs {
		switch p.state {
		case procDone:
			d.Finished = append(d.Finished, p.id)
		default:
			d.Waiting[p.id] = p.what
		}
	}
	sort.Ints(d.Finished)
	return d
}

// failure is what Run returns: a deadlock, or the first PE's error.
func (k *Kernel) failure() error { return failure(k.abortErr) }

// failure is what a run whose abort error is err returns.
func failure(err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *jobFailure:
		return e.err
	default:
		return e
	}
}
