package pgas_test

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/smp"
	"github.com/gopgas/gopgas/pgas"
)

// A test-only backend, "smp-msg-spy": the smp backend that says it is
// simulated (so that the runtime applies what it does on simulated
// networks), records the ordering mode under which each two-sided
// messaging AM is sent, and delivers those AMs out of order: it holds each
// one back until the next one to the same target, which it sends first
// (a held message goes when its sender next polls).

const spyBackend = "smp-msg-spy"

// spyHandler is the runtime's messaging handler index (msg_match.go); the
// AM header's second byte names the handler.
const spyHandler = 2

func init() {
	conduit.Register(spyBackend, conduit.Backend{Open: spyOpen, DefaultPEs: smp.DefaultPEs})
}

type spyCounts struct {
	strict, other atomic.Int64
}

var (
	spyJobs  sync.Map // seed -> *spyCounts
	spySeeds atomic.Uint64
)

func spyOpen(cfg conduit.JobConfig) (conduit.Job, error) {
	j, err := smp.Open(cfg)
	if err != nil {
		return nil, err
	}
	c := &spyCounts{}
	spyJobs.Store(cfg.Seed, c)
	return &spyJob{inner: j, counts: c}, nil
}

type spyJob struct {
	inner  conduit.Job
	counts *spyCounts
}

func (j *spyJob) Run(main func(conduit.Endpoint) error) error {
	return j.inner.Run(func(ep conduit.Endpoint) error {
		return main(&spyEndpoint{Endpoint: ep, counts: j.counts, held: map[int]*spyMsg{}})
	})
}

type spyMsg struct{ header, payload []byte }

type spyEndpoint struct {
	conduit.Endpoint
	counts *spyCounts
	held   map[int]*spyMsg
}

func (e *spyEndpoint) Backend() string { return spyBackend }

func (e *spyEndpoint) Caps() conduit.Caps {
	c := e.Endpoint.Caps()
	c.Simulated = true
	return c
}

func (e *spyEndpoint) SendMessage(target int, header, payload []byte) error {
	if len(header) < 2 || header[1] != spyHandler {
		return e.Endpoint.SendMessage(target, header, payload)
	}
	if e.Ordering() == conduit.OrderStrict {
		e.counts.strict.Add(1)
	} else {
		e.counts.other.Add(1)
	}
	h := e.held[target]
	if h == nil {
		e.held[target] = &spyMsg{append([]byte(nil), header...), append([]byte(nil), payload...)}
		return nil
	}
	if err := e.Endpoint.SendMessage(target, header, payload); err != nil {
		return err
	}
	if e.Endpoint.SendMessage(target, h.header, h.payload) == nil {
		delete(e.held, target)
	}
	return nil
}

func (e *spyEndpoint) PollMessages(msgs []conduit.Message) int {
	for t := range e.Size() { // in rank order
		if h := e.held[t]; h != nil && e.Endpoint.SendMessage(t, h.header, h.payload) == nil {
			delete(e.held, t)
		}
	}
	return e.Endpoint.PollMessages(msgs)
}

// TestMsgSequenceReorders: with sequence-number matching the messaging
// AMs go under the job's (relaxed) ordering, with strict mailboxes under
// strict ordering; either way the receiver restores each sender's order
// from messages delivered out of order (with strict mailboxes a strictly
// ordered network never does that, and the sequence numbers are only a
// check).
func TestMsgSequenceReorders(t *testing.T) {
	for _, match := range []pgas.Matching{pgas.MatchSequence, pgas.MatchStrict} {
		t.Run(match.String(), func(t *testing.T) {
			seed := 1000 + spySeeds.Add(1)
			const n = 30
			var reordered atomic.Int64
			err := pgas.Run(pgas.Config{Conduit: spyBackend, PEs: 3, Seed: seed, MsgMatching: match, Ordering: pgas.OrderRelaxed}, func(pe *pgas.PE) error {
				if pe.Rank() != 0 {
					var hs []pgas.Handle
					for i := range n {
						h, err := pe.Isend(0, 1, msgPattern(1+i*700, i+pe.Rank()))
						if err != nil {
							return err
						}
						hs = append(hs, h)
					}
					return pgas.WaitAll(hs...)
				}
				next := map[int]int{}
				b := make([]byte, 1<<16)
				for range 2 * n {
					st, err := pe.Recv(pgas.AnySource, 1, b)
					if err != nil {
						return err
					}
					i := next[st.Source]
					next[st.Source]++
					if st.Bytes != 1+i*700 || !bytes.Equal(b[:st.Bytes], msgPattern(st.Bytes, i+st.Source)) {
						return fmt.Errorf("message %d from PE %d: %+v or wrong data", i, st.Source, st)
					}
				}
				reordered.Store(pe.MsgStats().Reordered)
				return nil
			})
			c, _ := spyJobs.Load(seed)
			spyJobs.Delete(seed)
			counts := c.(*spyCounts)
			if err != nil {
				t.Fatal(err)
			}
			if reordered.Load() == 0 {
				t.Error("no message was held back for reordering")
			}
			switch match {
			case pgas.MatchSequence:
				if counts.strict.Load() != 0 || counts.other.Load() == 0 {
					t.Errorf("%d messaging AMs sent strict, %d not; want none strict", counts.strict.Load(), counts.other.Load())
				}
			case pgas.MatchStrict:
				if counts.other.Load() != 0 || counts.strict.Load() == 0 {
					t.Errorf("%d messaging AMs sent strict, %d not; want all strict", counts.strict.Load(), counts.other.Load())
				}
			}
		})
	}
}
