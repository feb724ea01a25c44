package simtest

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// Messages is a program of the runtime's messaging for a partitioned run:
// an allocation (an allreduce, by messages), a barrier, Rounds two-sided
// messages of Size bytes from every PE to the PE Shift ranks on (half the
// job when 0: on a job of two partitions' nodes, in the other partition),
// all sent before any is received, Rounds active-message requests each
// answered by a reply, and a barrier. Every payload is checked where it
// lands. Depth, when not 0, is the runtime's NetworkDepth (the AM credits
// per peer; the mailbox has 4 slots per credit).
type Messages struct {
	Conduit string
	PEs     int
	Rounds  int
	Size    int
	Depth   int
	Shift   int
	Options map[string]string
}

// Run runs the program with the workers option at workers (0: one kernel)
// and returns each PE's clock at its end.
func (ms Messages) Run(workers int) ([]time.Duration, error) {
	opts := withWorkers(ms.Options, workers)
	ends := make([]time.Duration, ms.PEs)
	cfg := pgas.Config{Conduit: ms.Conduit, PEs: ms.PEs, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, NetworkDepth: ms.Depth, Options: opts}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		me, n := pe.Rank(), pe.Size()
		shift := cmp.Or(ms.Shift, n/2)
		to, from := (me+shift)%n, (me+n-shift)%n
		if _, err := pe.Alloc(64, 0); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		fill := func(rank, round int) []byte {
			b := make([]byte, ms.Size)
			for i := range b {
				b[i] = byte(rank*7 + round*13 + i)
			}
			return b
		}
		hs := make([]pgas.Handle, ms.Rounds)
		for r := range ms.Rounds {
			var err error
			if hs[r], err = pe.Isend(to, r, fill(me, r)); err != nil {
				return err
			}
		}
		got := make([]byte, ms.Size)
		for r := range ms.Rounds {
			if _, err := pe.Recv(from, r, got); err != nil {
				return err
			}
			if !bytes.Equal(got, fill(from, r)) {
				return fmt.Errorf("PE %d: message %d from PE %d: wrong payload", me, r, from)
			}
		}
		for _, h := range hs {
			if err := h.Wait(); err != nil {
				return err
			}
		}
		ep := pe.AM()
		var asked, sum int32
		answers := 0
		hAnswer, err := ep.Register("answer", func(m *am.Message) error {
			sum += m.Args[0]
			answers++
			return nil
		})
		if err != nil {
			return err
		}
		hTwice, err := ep.Register("twice", func(m *am.Message) error {
			asked++
			return m.ReplyShort(hAnswer, 2*m.Args[0])
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		var want int32
		for r := range ms.Rounds {
			if err := ep.RequestShort(to, hTwice, int32(me+r)); err != nil {
				return err
			}
			want += 2 * int32(me+r)
		}
		if err := pe.WaitUntil("the answers", func() bool { return answers == ms.Rounds }); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if sum != want || asked != int32(ms.Rounds) {
			return fmt.Errorf("PE %d: answers sum to %d, want %d; %d requests handled, want %d", me, sum, want, asked, ms.Rounds)
		}
		ends[me] = pe.Now()
		return nil
	})
	return ends, err
}

// SameForAnyWorkers runs the program on one kernel and on each of workers
// and checks that it succeeds on all of them, and that every PE ends at
// the same time for every number of workers. It returns the ends of one
// kernel and of the partitioned runs.
func (ms Messages) SameForAnyWorkers(t testing.TB, workers ...int) (one, part []time.Duration) {
	t.Helper()
	return sameForAnyWorkers(t, ms.Run, workers)
}

// sameForAnyWorkers runs run on one kernel (0) and on each of workers,
// fails t if a run fails or two numbers of workers give different
// results, and returns one kernel's result and the partitioned runs'.
func sameForAnyWorkers[R any](t testing.TB, run func(workers int) (R, error), workers []int) (one, part R) {
	t.Helper()
	one, err := run(0)
	if err != nil {
		t.Fatalf("one kernel: %v", err)
	}
	for i, w := range workers {
		r, err := run(w)
		if err != nil {
			t.Fatalf("%d workers: %v", w, err)
		}
		if i == 0 {
			part = r
		} else if !reflect.DeepEqual(r, part) {
			t.Errorf("%d workers: %+v\n%d workers: %+v", w, r, workers[0], part)
		}
	}
	return one, part
}

// withWorkers is opts, copied, with the workers option at workers (none
// for 0, one kernel).
func withWorkers(opts map[string]string, workers int) map[string]string {
	opts = maps.Clone(opts)
	if opts == nil {
		opts = map[string]string{}
	}
	if workers > 0 {
		opts["workers"] = fmt.Sprint(workers)
	}
	return opts
}

// Mailbox is a conduit-level program of short messages that fill their
// target's mailbox: PE i, for each i with i/Shift even, sends Count
// messages to PE i+Shift (Shift is half the job when 0: on a job of two
// partitions' nodes, the other partition's PE), retrying every Retry of its clock while
// the mailbox is full, and the partner polls for them every Poll. Slots
// are the mailbox's slots per sender.
type Mailbox struct {
	Conduit           string
	PEs, Count, Slots int
	Shift             int
	Retry, Poll       conduit.Time
	Options           map[string]string
}

// MailboxResult is what a Mailbox run saw: how many sends found the
// mailbox full, and each PE's clock at its end.
type MailboxResult struct {
	Full int
	Ends []conduit.Time
}

// Run runs the program with the workers option at workers (0: one kernel).
// Every message must arrive once, in order, with its payload.
func (mb Mailbox) Run(workers int) (MailboxResult, error) {
	opts := withWorkers(mb.Options, workers)
	job, err := conduit.Open(mb.Conduit, conduit.JobConfig{PEs: mb.PEs, PEsPerNode: 1, SegmentBytes: 64,
		MailboxSlots: mb.Slots, PeerBurst: 1, Ordering: conduit.OrderDefault, Options: opts})
	if err != nil {
		return MailboxResult{}, err
	}
	res := MailboxResult{Ends: make([]conduit.Time, mb.PEs)}
	full := make([]int, mb.PEs)
	shift := cmp.Or(mb.Shift, mb.PEs/2)
	err = job.Run(func(ep conduit.Endpoint) error {
		me := ep.Rank()
		sends := me/shift%2 == 0
		if sends && me+shift >= mb.PEs {
			return nil
		}
		if sends {
			for i := range mb.Count {
				for {
					err := ep.SendMessage(me+shift, []byte{byte(i)}, []byte{byte(me), byte(i >> 8)})
					if !errors.Is(err, conduit.ErrMailboxFull) {
						if err != nil {
							return err
						}
						break
					}
					full[me]++
					ep.Charge(mb.Retry)
					ep.PollLocalCQ(nil) // lets the network run to the PE's clock
					if err := ep.Err(); err != nil {
						return err
					}
				}
			}
		} else {
			msgs := make([]conduit.Message, 4)
			for got := 0; got < mb.Count; {
				n := ep.PollMessages(msgs)
				if err := ep.Err(); err != nil {
					return err
				}
				for _, m := range msgs[:n] {
					if m.Source != me-shift || !bytes.Equal(m.Header, []byte{byte(got)}) || !bytes.Equal(m.Payload, []byte{byte(me - shift), byte(got >> 8)}) {
						return fmt.Errorf("PE %d: message %d: from PE %d, %v %v", me, got, m.Source, m.Header, m.Payload)
					}
					got++
				}
				ep.Charge(mb.Poll)
			}
		}
		res.Ends[me] = ep.Now()
		return nil
	})
	for _, f := range full {
		res.Full += f
	}
	return res, err
}

// SameForAnyWorkers runs the program on one kernel and on 1 and 2
// workers and checks that each run delivers every message, that 1 and 2
// workers give the same result, that some sends found the mailbox full on
// one kernel, and that the partitioned runs found it full at least as
// often (a release reaches a sender in another partition later than on
// one kernel, never sooner). It returns one kernel's result and the
// partitioned runs'.
func (mb Mailbox) SameForAnyWorkers(t testing.TB) (one, part MailboxResult) {
	t.Helper()
	one, part = sameForAnyWorkers(t, mb.Run, []int{1, 2})
	if one.Full == 0 {
		t.Errorf("no send found the mailbox full on one kernel")
	}
	if part.Full < one.Full {
		t.Errorf("sends that found the mailbox full: %d partitioned, fewer than one kernel's %d", part.Full, one.Full)
	}
	return one, part
}
