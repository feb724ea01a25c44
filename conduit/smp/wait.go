package smp

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gopgas/gopgas/conduit"
)

// A wait backs off the way the Go runtime's own locks and idle processors
// do, so that a job with more PEs than processors, or on a machine other
// programs load, slows down gently instead of having spinning PEs starve
// the ones they wait for:
//
//  1. Spin: poll, first hotPolls times back to back (the fast path of a
//     message round trip or a barrier), then with a spin-wait hint (pause)
//     between polls. When PEs outnumber the processors (GOMAXPROCS) a
//     wait instead yields (runtime.Gosched) between polls from its first,
//     since spinning would keep the processor from a PE that may be the
//     one waited for.
//  2. Park: once the wait has gone without progress for parkAfter (PEs
//     outnumber processors) or spinAfter (they do not), sleep until woken
//     or until a timer fires, then poll again; the timer's period starts
//     at napMin and doubles up to the job's napMax.
//
// There is no yielding phase between the two when every PE has a
// processor: Gosched puts a goroutine on the global run queue, whence the
// processor running its peer may take it, and the two PEs of a job then
// take turns on one processor, each hand-over costing a spin (measured:
// a round trip of 5 us instead of 0.15 us with two jobs on two cores).
//
// The clock is read every clockEvery unproductive polls. A poll that finds
// something to do (a message, a completion, a remote event), even if the
// wait goes on, starts the backoff over: a PE that serves active messages
// while it waits stays quick to answer.
//
// Parking is what gives a processor back to the operating system, hence to
// a PE whose thread it had descheduled for another program's. What a PE
// waits for wakes it: a message to it, a put, AMO or remote event posted to
// it, freed mailbox slots, a PE's store into its segment through
// DirectSegment followed by Wake, another PE finishing, and the end of the
// job. The timer covers changes no one announces (a store through
// DirectSegment without Wake, a Go variable a test's waiter reads). Waking
// a parked goroutine costs 5 to 30 us on the development machine, and
// much more when other programs keep its processors busy: the woken thread
// waits for a time slice. When PEs outnumber processors a wait parks soon
// (parkAfter), as spinning only delays the PE it waits for. When every PE
// has a processor, a wait spins for spinAfter before it gives its processor
// up: parking sooner made 2-PE jobs beside busy programs several times
// slower (a mean round trip of 8.9 us with 2 PEs beside a busy program on
// two cores when parking after 20 us, against 0.9 us spinning), and a wait
// that long is one (a barrier while others compute) in which a wake-up of
// a few time slices does not count.
//
// Go readies a woken goroutine on the waker's processor, where it would
// run only once the waker blocks or yields; a woken PE therefore yields
// once, moving to the global run queue, where an idle processor takes it.
const (
	hotPolls   = 32
	clockEvery = 32 // unproductive polls between clock readings
	// parkAfter is how long a wait yields before it parks when PEs
	// outnumber processors; spinAfter how long it spins before it parks
	// when every PE has a processor.
	parkAfter = 20 * time.Microsecond
	spinAfter = 50 * time.Millisecond
	napMin    = 50 * time.Microsecond
	// napMax is multiplied by how many PEs share a processor, so that the
	// timer wake-ups of a job of many idle PEs cost a bounded share of the
	// machine; napCap bounds the product.
	napMax = time.Millisecond
	napCap = 20 * time.Millisecond
)

// WaitFor polls w until it is ready.
func (e *endpoint) WaitFor(what string, w conduit.Waiter) error {
	j := e.job
	if !j.oversubscribed {
		for range hotPolls {
			ok, err := w.Ready()
			if ok || err != nil {
				return err
			}
			if j.aborted.Load() {
				return j.abortErr
			}
		}
	}
	return e.backoff(what, w)
}

// backoff is the rest of a wait that the first polls did not end.
func (e *endpoint) backoff(what string, w conduit.Waiter) error {
	j := e.job
	var (
		yielding   = j.oversubscribed
		quiet      int       // polls since the last one that found something
		since      time.Time // the first clock reading of the quiet polls
		park       bool      // sleep after this poll if it finds nothing
		registered bool      // counted as waiting for deadlock detection
		quietSince time.Time // start of the current window without progress
		progress   int64     // total progress at quietSince
		nap        = j.napMin
	)
	if !yielding {
		quiet = hotPolls // WaitFor's
	}
	// What the PE waits for, for the deadlock and time-limit reports; the
	// string is copied only when it changes.
	if e.lastWhat == nil || *e.lastWhat != what {
		w := what
		e.lastWhat = &w
	}
	e.what.Store(e.lastWhat)
	for {
		if park {
			// Announce the sleep before the last poll: whoever changes
			// what w waits for after that poll sees the announcement and
			// wakes this PE (the flag and the changes are sequentially
			// consistent atomics, except a plain copy into a segment, whose
			// wake-up may rarely be missed until the timer fires).
			select {
			case <-e.wake: // a token left by a wake-up that came while polling
			default:
			}
			e.parked.Store(true)
		}
		seen := e.polled
		ok, err := w.Ready()
		if !ok && err == nil && j.aborted.Load() {
			err = j.abortErr
		}
		if park && (ok || err != nil || e.polled != seen) {
			e.parked.Store(false)
		}
		if ok || err != nil {
			if registered {
				e.hot.waiting.Store(false)
				e.hot.progress.Add(1)
			}
			e.what.Store(nil)
			return err
		}
		if e.polled != seen {
			// The poll handled something: start over, no longer idle.
			if registered {
				registered = false
				e.hot.waiting.Store(false)
			}
			yielding, quiet, since, park, nap = j.oversubscribed, 0, time.Time{}, false, j.napMin
			continue
		}
		if park {
			e.sleep(nap)
			park, nap = false, min(2*nap, j.napMax)
			continue
		}
		quiet++
		if quiet%clockEvery == 0 {
			now := time.Now()
			if since.IsZero() {
				since = now
			}
			switch d := now.Sub(since); {
			case d >= parkAfter && (j.oversubscribed || d >= spinAfter):
				if !registered {
					registered = true
					e.hot.waiting.Store(true)
					quietSince, progress = now, j.totalProgress()
				} else if idle, p := j.allIdle(), j.totalProgress(); !idle || p != progress {
					quietSince, progress = now, p
				} else if now.Sub(quietSince) >= j.stallTimeout {
					j.deadlocked(j.deadlock())
				}
				park = true
				continue
			}
		}
		switch {
		case yielding:
			runtime.Gosched()
		case quiet > hotPolls:
			pause()
		}
	}
}

// sleep blocks the parked PE for at most d, or until another PE wakes it.
func (e *endpoint) sleep(d time.Duration) {
	if e.timer == nil {
		e.timer = time.NewTimer(d)
	} else {
		e.timer.Reset(d)
	}
	woken := false
	select {
	case <-e.wake:
		woken = true
	case <-e.timer.C:
	}
	e.parked.Store(false)
	e.timer.Stop()
	if woken && !e.job.oversubscribed {
		// The waker's processor readied this goroutine; left there, the
		// two PEs would take turns on one processor, each hand-over
		// costing a spin. Yielding puts this one on the global queue,
		// where an idle processor takes it.
		runtime.Gosched()
	}
}

// Sleeping is the job's table of sleeping flags (conduit.Waker).
func (e *endpoint) Sleeping() []*atomic.Bool { return e.job.parked }

// Wake wakes PE rank if it sleeps in a wait (conduit.Waker).
func (e *endpoint) Wake(rank int) {
	if uint(rank) < uint(len(e.job.eps)) {
		e.job.wakeUp(rank)
	}
}

// wakeUp wakes PE rank if it sleeps in a wait: one atomic load when it does
// not. The first waker clears the flag, so that a stream of puts to a
// sleeping PE costs one wake-up, not one per put. The woken PE moves
// itself to another processor (sleep).
func (j *job) wakeUp(rank int) {
	if p := j.parked[rank]; p.Load() && p.CompareAndSwap(true, false) {
		select {
		case j.eps[rank].wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// wakeAll wakes every sleeping PE: the job ended, or a PE finished.
func (j *job) wakeAll() {
	for r := range j.eps {
		j.wakeUp(r)
	}
}

// allIdle reports whether every PE is waiting or has finished.
func (j *job) allIdle() bool {
	for _, ep := range j.eps {
		if !ep.hot.waiting.Load() && !ep.hot.done.Load() {
			return false
		}
	}
	return true
}

func (j *job) totalProgress() int64 {
	var p int64
	for _, ep := range j.eps {
		p += ep.hot.progress.Load()
	}
	return p
}

func (j *job) deadlock() *conduit.DeadlockError {
	d := &conduit.DeadlockError{Waiting: make(map[int]string), At: j.now()}
	for r, ep := range j.eps {
		switch {
		case ep.hot.done.Load():
			d.Finished = append(d.Finished, r)
		case ep.hot.waiting.Load():
			d.Waiting[r] = ep.doing("something")
		}
	}
	return d
}

// doing is what the PE waits for, or otherwise when it is not in a wait.
func (e *endpoint) doing(otherwise string) string {
	if w := e.what.Load(); w != nil {
		return *w
	}
	return otherwise
}

// computing is what a time-limit report says of a PE that was not waiting
// in the runtime when the limit was reached.
const computing = "computing (not in a runtime call)"

// limitReached ends the job with a *conduit.LimitError once it has run for
// JobConfig.WallTimeLimit, unless every PE has finished. A PE that is not
// in a runtime call cannot be stopped: it learns of the end at its next
// call.
func (j *job) limitReached() {
	if j.done.Load() == int64(len(j.eps)) {
		return
	}
	j.abortOnce.Do(func() {
		le := &conduit.LimitError{Limit: "wall-clock time limit", Value: j.cfg.WallTimeLimit.String(), Doing: make(map[int]string), At: j.now()}
		for r, ep := range j.eps {
			switch w := ep.what.Load(); {
			case ep.hot.done.Load():
				le.Finished = append(le.Finished, r)
			case w != nil:
				le.Doing[r] = "waiting for " + *w
			default:
				le.Doing[r] = computing
			}
		}
		j.rootErr, j.abortErr = le, le
		j.aborted.Store(true)
	})
	j.wakeAll()
}
