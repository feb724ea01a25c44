//go:build mpi

package mpi

/*
#include "gp.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/gopgas/gopgas/conduit"
)

// Every slowEvery polls a wait reads the clock and looks at the control
// messages.
const slowEvery = 256

// A wait that is still not ready after spinAfter polls drives MPI's
// progress between its polls in C (gp_spin): up to spinRounds rounds of a
// probe of the control communicator, a test of the ring's next receive and
// a test of the offloaded collective, stopping at the first that finds
// something. A PE waiting for others is often the target of their RMA,
// and MPICH over UCX's shared-memory transport completes a put or get
// only when the target's progress engine serves it: a round trip through
// the runtime's poll costs several cgo calls and allocates nothing useful,
// and a target polling that slowly held get bandwidth at 76 to 83% of
// osu_get_bw from 64 to 256 KiB, whose target sits in MPI_Barrier. The
// cost is that a word of the segment that another PE writes (a barrier
// flag of a split team) is seen up to one spin later. Assumed: 64 polls
// is longer than a wait for a completion or a reply on one node (those
// end in a few polls), and 16 rounds of two or three MPI calls each are a
// few microseconds on the development machine.
const (
	spinAfter  = 64
	spinRounds = 16
)

// WaitFor polls w until it is ready. Every check of w but the first comes
// after an MPI_Win_sync on the segment's window: the runtime polls words
// of its own segment that other PEs write with MPI_Put (barrier flags,
// lock words), and in MPI's unified memory model MPI_Win_sync is what
// makes such a write visible to the process's loads. The sync is made by
// the poll itself when it calls MPI anyway (the flush of PollLocalCQ, the
// one call of PollMessages, gp_spin) and by its own call otherwise. A wait
// ends with a sync too, or, when one came after the last check of w began
// only, with a memory fence (an atomic add), which orders the loads that
// follow after the load that saw the wait end. The polls themselves
// drive MPI's progress (PollLocalCQ flushes, PollMessages tests the
// receives and probes the control communicator).
//
// A wait that has made no progress for half the stall timeout is reported
// to rank 0; rank 0 declares the job deadlocked when every PE has been
// waiting without progress, or has finished, for another half
// (JobConfig.StallTimeout in all), and tells every PE.
func (e *endpoint) WaitFor(what string, w conduit.Waiter) error {
	j := e.job
	outer := e.inWait
	e.inWait = true
	defer func() { e.inWait = outer }()
	var (
		since    time.Time // when this wait began, read on the slow path
		quiet    time.Time // since when it has made no progress
		progress = e.progress
		reported bool
	)
	synced := e.syncs // the count of syncs when the last check began
	for i := 1; ; i++ {
		if i > 1 && e.syncs == synced {
			C.gp_win_sync(j.c)
			e.syncs++
		}
		synced = e.syncs
		ok, err := w.Ready()
		if ok || err != nil {
			if i == 1 && e.syncs == synced {
				C.gp_win_sync(j.c)
			} else {
				e.fence.Add(1)
			}
			if reported {
				j.dl.report(stateBusy, "")
			}
			return err
		}
		if j.aborted {
			return j.abortErr
		}
		if j.oversubscribed {
			// More processes than processors on this host: drive MPI's
			// progress once (the PE this one waits for may need it to
			// complete an access to this PE's memory) before pause lets
			// the process this PE waits for run.
			e.spin(1)
		} else if i%yieldEvery != 0 && i > spinAfter {
			// A long wait: drive MPI's progress in C, except on the
			// polls where pause gives the processor away.
			e.spin(spinRounds)
		}
		j.pause(i)
		if i%slowEvery != 0 {
			continue
		}
		j.pollCtl()
		if j.aborted {
			return j.abortErr
		}
		e.resched()
		now := time.Now()
		if since.IsZero() {
			since, quiet = now, now
			continue
		}
		if e.progress != progress {
			progress, quiet = e.progress, now
			if reported {
				reported = false
				j.dl.report(stateBusy, "")
			}
		} else if !reported && now.Sub(quiet) >= j.stall/2 {
			reported = true
			j.dl.report(stateWaiting, what)
		}
		if lim := j.cfg.WallTimeLimit; lim > 0 && now.Sub(j.start) >= lim {
			j.fail(&conduit.LimitError{Limit: "wall-clock time limit", Value: lim.String(), Doing: map[int]string{e.rank: "waits for " + what}, At: j.now()})
			return j.abortErr
		}
		j.dl.check(now)
		if j.aborted {
			return j.abortErr
		}
	}
}

// yieldEvery: a waiting loop on a host with no more processes than
// processors gives the processor away every yieldEvery polls (pause).
const yieldEvery = 64

// pause is what a loop that waits for other processes does after its i-th
// poll (i from 1): on a host with more processes than processors it gives
// the processor away every time, as the process waited for may be the one
// that does not run; otherwise every yieldEvery-th time, for a long wait
// on a busy host.
func (j *job) pause(i int) {
	if j.oversubscribed || i%yieldEvery == 0 {
		C.gp_yield()
	}
}

// spin drives MPI's progress in C for up to rounds rounds, until
// something arrives (see spinAfter), and records what did: the ring's
// next message, a control message. An offloaded collective that completed
// is found by its next test.
func (e *endpoint) spin(rounds int) {
	j := e.job
	slot := e.headSlot()
	if err := check("MPI_Iprobe or MPI_Test (waiting)", e.rank, C.gp_spin(j.c, C.int(slot), C.int(rounds))); err != nil {
		j.fail(err)
		return
	}
	e.syncs++
	if slot >= 0 {
		e.received(slot)
	}
	if j.recvCtl() {
		j.pollCtl()
	}
}

// PE states for deadlock detection.
const (
	stateBusy    = 0
	stateWaiting = 1
	stateDone    = 2
)

// deadlock is the detection: every PE reports its changes of state to
// rank 0, which keeps the table.
type deadlock struct {
	j       *job
	states  []byte   // rank 0: each PE's state
	what    []string // rank 0: what each waiting PE waits for
	changed time.Time
	mine    byte
}

func (d *deadlock) init(j *job) {
	d.j = j
	if j.rank == 0 {
		d.states = make([]byte, j.size)
		d.what = make([]string, j.size)
		d.changed = time.Now()
	}
}

// report tells rank 0 of this PE's new state.
func (d *deadlock) report(state byte, what string) {
	j := d.j
	if d.mine == state && state != stateWaiting {
		return
	}
	d.mine = state
	if j.rank == 0 {
		d.set(0, state, what)
		return
	}
	if len(what) > 1000 {
		what = what[:1000]
	}
	// A failure to report only delays detection; the job goes on.
	_ = j.sendCtl(0, tagStatus, append([]byte{state}, what...))
}

// status records a report that reached rank 0.
func (d *deadlock) status(src int, b []byte) {
	if d.states == nil || len(b) == 0 || src < 0 || src >= len(d.states) {
		return
	}
	d.set(src, b[0], string(b[1:]))
}

func (d *deadlock) set(r int, state byte, what string) {
	d.states[r], d.what[r] = state, what
	d.changed = time.Now()
}

// check, on rank 0, ends the job if every PE has been waiting or done,
// with no report, for half the stall timeout, and at least one waits.
func (d *deadlock) check(now time.Time) {
	j := d.j
	if d.states == nil || j.aborted {
		return
	}
	waiting := false
	for _, s := range d.states {
		switch s {
		case stateBusy:
			return
		case stateWaiting:
			waiting = true
		}
	}
	if !waiting || now.Sub(d.changed) < j.stall/2 {
		return
	}
	err := &conduit.DeadlockError{Waiting: map[int]string{}, At: j.now()}
	for r, s := range d.states {
		if s == stateDone {
			err.Finished = append(err.Finished, r)
		} else {
			err.Waiting[r] = d.what[r]
		}
	}
	msg := encodeDeadlock(err)
	for r := 1; r < j.size; r++ {
		_ = j.sendCtl(r, tagDeadlock, msg)
	}
	j.abortedBy(0, err, err)
}

// encodeDeadlock writes the report: the clock, then each waiting PE's
// rank and what it waits for, then the finished ranks.
func encodeDeadlock(d *conduit.DeadlockError) []byte {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, uint64(d.At))
	b = le.AppendUint32(b, uint32(len(d.Waiting)))
	ranks := make([]int, 0, len(d.Waiting))
	for r := range d.Waiting {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	for _, r := range ranks {
		b = le.AppendUint32(b, uint32(r))
		b = le.AppendUint32(b, uint32(len(d.Waiting[r])))
		b = append(b, d.Waiting[r]...)
	}
	b = le.AppendUint32(b, uint32(len(d.Finished)))
	for _, r := range d.Finished {
		b = le.AppendUint32(b, uint32(r))
	}
	return b
}

func decodeDeadlock(b []byte) *conduit.DeadlockError {
	le := binary.LittleEndian
	d := &conduit.DeadlockError{Waiting: map[int]string{}}
	bad := func() *conduit.DeadlockError {
		d.Waiting[-1] = fmt.Sprintf("(a malformed deadlock report of %d bytes)", len(b))
		return d
	}
	if len(b) < 12 {
		return bad()
	}
	d.At = conduit.Time(le.Uint64(b))
	n := int(le.Uint32(b[8:]))
	b = b[12:]
	for range n {
		if len(b) < 8 {
			return bad()
		}
		r, l := int(le.Uint32(b)), int(le.Uint32(b[4:]))
		if len(b) < 8+l {
			return bad()
		}
		d.Waiting[r] = string(b[8 : 8+l])
		b = b[8+l:]
	}
	if len(b) < 4 {
		return bad()
	}
	n = int(le.Uint32(b))
	b = b[4:]
	for range n {
		if len(b) < 4 {
			return bad()
		}
		d.Finished = append(d.Finished, int(le.Uint32(b)))
		b = b[4:]
	}
	return d
}
