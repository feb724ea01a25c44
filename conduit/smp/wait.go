package smp

import (
	"runtime"
	"time"

	"github.com/gopgas/gopgas/conduit"
)

// Waits spin; when PEs outnumber processors a waiter yields the processor
// after every unproductive poll (otherwise the Go scheduler's preemption
// is enough to let other goroutines run). Every slowEvery polls it reads
// the clock, and a wait that has lasted slowAfter joins deadlock
// detection.
const (
	slowEvery = 4096
	slowAfter = time.Millisecond
)

// WaitFor polls w until it is ready.
func (e *endpoint) WaitFor(what string, w conduit.Waiter) error {
	j := e.job
	var (
		since      time.Time // when this wait began, read on the slow path
		registered bool      // counted as waiting for deadlock detection
		quietSince time.Time // start of the current window without progress
		progress   int64     // total progress at quietSince
	)
	for i := 1; ; i++ {
		ok, err := w.Ready()
		if ok || err != nil {
			if registered {
				e.hot.waiting.Store(false)
				e.hot.progress.Add(1)
			}
			return err
		}
		if j.aborted.Load() {
			if registered {
				e.hot.waiting.Store(false)
			}
			return j.abortErr
		}
		if j.oversubscribed {
			runtime.Gosched()
		}
		if i%slowEvery != 0 {
			continue
		}
		now := time.Now()
		switch {
		case since.IsZero():
			since = now
		case !registered && now.Sub(since) >= slowAfter:
			registered = true
			w := what // only a long wait pays for the allocation
			e.what.Store(&w)
			e.hot.waiting.Store(true)
			quietSince, progress = now, j.totalProgress()
		case registered:
			idle, p := j.allIdle(), j.totalProgress()
			if !idle || p != progress {
				quietSince, progress = now, p
			} else if now.Sub(quietSince) >= j.stallTimeout {
				j.deadlocked(j.deadlock())
			}
		}
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
			what := "something"
			if w := ep.what.Load(); w != nil {
				what = *w
			}
			d.Waiting[r] = what
		}
	}
	return d
}
