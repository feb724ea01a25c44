package smp

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

type waitFunc func() (bool, error)

func (f waitFunc) Ready() (bool, error) { return f() }

// untilParked returns once PE rank sleeps in a wait.
func untilParked(j *job, rank int) error {
	deadline := time.Now().Add(10 * time.Second)
	for !j.parked[rank].Load() {
		if time.Now().After(deadline) {
			return fmt.Errorf("PE %d never parked", rank)
		}
		runtime.Gosched()
	}
	return nil
}

// word0 is the first word of a PE's segment.
func word0(ep conduit.Endpoint) *uint64 {
	return (*uint64)(unsafe.Pointer(unsafe.SliceData(ep.Segment())))
}

// TestParkedWaitWoken: a wait that has lasted sleeps, and each kind of event
// a PE waits for wakes it. The timed sleep is an hour long, and PE 1 stays
// in its program (finishing would wake PE 0) until PE 0's wait is over, so a
// case passes only if the event itself woke PE 0; a watchdog ends the job
// with an error if it does not.
func TestParkedWaitWoken(t *testing.T) {
	never := errors.New("the watchdog ended the job: the event did not wake the PE")
	cases := []struct {
		name string
		// wait is PE 0's; act is PE 1's, once PE 0 sleeps.
		wait    func(ep conduit.Endpoint) error
		act     func(ep conduit.Endpoint) error
		wantErr error
		leave   bool // PE 1 returns at once after act
	}{
		{"a message", func(ep conduit.Endpoint) error {
			msgs := make([]conduit.Message, 1)
			return ep.WaitFor("a message", waitFunc(func() (bool, error) { return ep.PollMessages(msgs) > 0, nil }))
		}, func(ep conduit.Endpoint) error {
			return ep.SendMessage(0, []byte("hi"), nil)
		}, nil, false},
		{"a posted put", func(ep conduit.Endpoint) error {
			return ep.WaitFor("a put", waitFunc(func() (bool, error) { return atomic.LoadUint64(word0(ep)) != 0, nil }))
		}, func(ep conduit.Endpoint) error {
			return postAndComplete(ep, &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 0,
				Local: []byte{1, 2, 3, 4, 5, 6, 7, 8}, Remote: ep.SegmentHandle(0)})
		}, nil, false},
		{"a posted AMO", func(ep conduit.Endpoint) error {
			return ep.WaitFor("an AMO", waitFunc(func() (bool, error) { return atomic.LoadUint64(word0(ep)) != 0, nil }))
		}, func(ep conduit.Endpoint) error {
			return postAndComplete(ep, &conduit.PostDesc{Type: conduit.AMO, Target: 0, Remote: ep.SegmentHandle(0),
				AMO: conduit.AMOAdd, Width: 8, Operand: 1})
		}, nil, false},
		{"a remote event", func(ep conduit.Endpoint) error {
			evs := make([]conduit.Event, 1)
			return ep.WaitFor("a remote event", waitFunc(func() (bool, error) { return ep.PollRemoteCQ(evs) > 0, nil }))
		}, func(ep conduit.Endpoint) error {
			// A put of nothing new (zeros over zeros): only the event tells.
			return postAndComplete(ep, &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 0,
				Local: make([]byte, 8), Remote: ep.SegmentHandle(0), RemoteOffset: 8, RemoteEvent: true, RemoteData: 7})
		}, nil, false},
		{"a store followed by Wake", func(ep conduit.Endpoint) error {
			return ep.WaitFor("a store", waitFunc(func() (bool, error) { return atomic.LoadUint64(word0(ep)) != 0, nil }))
		}, func(ep conduit.Endpoint) error {
			seg := ep.DirectSegment(0)
			atomic.StoreUint64((*uint64)(unsafe.Pointer(unsafe.SliceData(seg))), 1)
			ep.(conduit.Waker).Wake(0)
			return nil
		}, nil, false},
		{"another PE finishing", func(ep conduit.Endpoint) error {
			ep.Done()
			return ep.WaitFor("every PE to finish", waitFunc(func() (bool, error) { return ep.AllDone(), nil }))
		}, func(ep conduit.Endpoint) error {
			return nil // Run marks PE 1 done
		}, nil, true},
		{"a failure ending the job", func(ep conduit.Endpoint) error {
			return ep.WaitFor("the impossible", waitFunc(func() (bool, error) { return false, nil }))
		}, func(ep conduit.Endpoint) error {
			return errors.New("PE 1 gave up")
		}, conduit.ErrJobAborted, true},
		{"mailbox space", func(ep conduit.Endpoint) error {
			for {
				err := ep.SendMessage(1, []byte("x"), nil)
				if errors.Is(err, conduit.ErrMailboxFull) {
					break
				}
				if err != nil {
					return err
				}
			}
			return ep.WaitFor("mailbox space", waitFunc(func() (bool, error) {
				err := ep.SendMessage(1, []byte("x"), nil)
				if errors.Is(err, conduit.ErrMailboxFull) {
					return false, nil
				}
				return true, err
			}))
		}, func(ep conduit.Endpoint) error {
			msgs := make([]conduit.Message, 1000)
			ep.PollMessages(msgs)
			ep.PollMessages(msgs) // releases the slots of the first batch
			return nil
		}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cj, err := Open(conduit.JobConfig{PEs: 2, SegmentBytes: 1 << 12, Ordering: conduit.OrderDefault,
				MailboxSlots: 8, PeerBurst: 4, StallTimeout: time.Hour})
			require.NoError(t, err)
			j := cj.(*job)
			j.napMin, j.napMax = time.Hour, time.Hour
			stop := make(chan struct{})
			watchdog := make(chan struct{})
			go func() {
				defer close(watchdog)
				select {
				case <-stop:
				case <-time.After(20 * time.Second):
					j.fail(1, never)
				}
			}()
			var waitErr error
			var waited atomic.Bool
			err = j.Run(func(ep conduit.Endpoint) error {
				if ep.Rank() == 0 {
					waitErr = c.wait(ep)
					waited.Store(true)
					return nil
				}
				if err := untilParked(j, 0); err != nil {
					return err
				}
				if err := c.act(ep); err != nil || c.leave {
					return err
				}
				for !waited.Load() && ep.Err() == nil {
					runtime.Gosched()
				}
				return nil
			})
			close(stop)
			<-watchdog
			assert.NotErrorIs(t, err, never)
			if c.wantErr != nil {
				assert.ErrorIs(t, waitErr, c.wantErr)
			} else {
				assert.NoError(t, err)
				assert.NoError(t, waitErr)
			}
		})
	}
}

// postAndComplete posts d and collects its completion.
func postAndComplete(ep conduit.Endpoint, d *conduit.PostDesc) error {
	if err := ep.Post(d); err != nil {
		return err
	}
	evs := make([]conduit.Event, 1)
	if err := ep.WaitFor("a completion", waitFunc(func() (bool, error) { return ep.PollLocalCQ(evs) > 0, nil })); err != nil {
		return err
	}
	return evs[0].Err()
}

// TestParkedWaitTimer: a change nobody announces (here a Go variable) is
// still seen, at the end of a timed sleep.
func TestParkedWaitTimer(t *testing.T) {
	cj, err := Open(conduit.JobConfig{PEs: 2, SegmentBytes: 1 << 12, Ordering: conduit.OrderDefault,
		MailboxSlots: 8, PeerBurst: 4, StallTimeout: time.Hour})
	require.NoError(t, err)
	j := cj.(*job)
	var flag atomic.Bool
	err = j.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() == 0 {
			return ep.WaitFor("a flag", waitFunc(func() (bool, error) { return flag.Load(), nil }))
		}
		if err := untilParked(j, 0); err != nil {
			return err
		}
		flag.Store(true)
		return nil
	})
	require.NoError(t, err)
}

// TestWaitRestartsOnProgress: a wait whose polls keep finding something to
// do (here a message to itself on every poll) never sleeps, however long it
// lasts; once they find nothing, it sleeps.
func TestWaitRestartsOnProgress(t *testing.T) {
	cj, err := Open(conduit.JobConfig{PEs: 1, SegmentBytes: 1 << 12, Ordering: conduit.OrderDefault,
		MailboxSlots: 8, PeerBurst: 4, StallTimeout: time.Hour})
	require.NoError(t, err)
	j := cj.(*job)
	busyFor := 20 * parkAfter // the backoff would sleep after parkAfter of quiet polls
	var sleptBusy bool
	err = j.Run(func(ep conduit.Endpoint) error {
		msgs := make([]conduit.Message, 1)
		start := time.Now()
		return ep.WaitFor("a sleep", waitFunc(func() (bool, error) {
			if j.parked[0].Load() {
				// The poll a wait makes after announcing its sleep.
				sleptBusy = time.Since(start) < busyFor
				return true, nil
			}
			if time.Since(start) < busyFor {
				if err := ep.SendMessage(0, []byte("m"), nil); err != nil {
					return false, err
				}
				if ep.PollMessages(msgs) != 1 {
					return false, errors.New("the message to self did not arrive")
				}
			}
			return false, nil
		}))
	})
	require.NoError(t, err)
	assert.False(t, sleptBusy, "the wait slept while its polls found messages")
}
