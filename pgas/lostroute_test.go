package pgas_test

// The runtime's own traffic lost for good on a simulated network (a failed
// link on a deterministic route): a barrier's signals, a collective's
// messages, an active-message credit return. The job used to end with a
// deadlock report ("every PE waits for a barrier") that never showed the
// completion timeout behind it; the error must be the call's the PE waits
// in, naming the peer and the cause.

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// lostNet is a job split in two halves with no working route between
// them under deterministic routing; half gives a rank's half.
type lostNet struct {
	name string
	cfg  pgas.Config
	half func(rank int) int
}

// lostPartitions: on Gemini a 2x1x1 torus of four nodes, two per Gemini,
// with every x connection of both Geminis failed; on Aries eight nodes, four
// per Aries, with the green link between Aries 0 and 1 failed both ways and
// no collective engine (so that barriers and reductions run in software).
func lostPartitions() []lostNet {
	return []lostNet{
		{"gemini", pgas.Config{Conduit: "gemini", PEs: 4, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes,
			Options: map[string]string{"torus": "2x1x1", "routing": "deterministic",
				"fail": "0:x:+:0;0:x:+:1;0:x:-:0;0:x:-:1;1:x:+:0;1:x:+:1;1:x:-:0;1:x:-:1"}},
			func(r int) int { return r / 2 }},
		{"aries", pgas.Config{Conduit: "aries", PEs: 8, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes,
			Options: map[string]string{"routing": "deterministic", "ce": "false", "fail": "0:0;1:0"}},
			func(r int) int { return r / 4 }},
	}
}

var lostPeer = regexp.MustCompile(`no response from PE (\d+) within`)

// lostCheck asserts that err is the error of op on a PE, not a deadlock,
// and names a completion timeout from a peer across the partition.
func lostCheck(t *testing.T, n lostNet, err error, op string, want ...string) {
	t.Helper()
	require.Error(t, err)
	t.Log(err)
	var dl *conduit.DeadlockError
	assert.False(t, errors.As(err, &dl), "a deadlock report: %v", err)
	var pe *pgas.Error
	if !assert.ErrorAs(t, err, &pe) {
		return
	}
	assert.Equal(t, op, pe.Op, "the call the PE waited in")
	msg := err.Error()
	assert.Contains(t, msg, "completion timeout")
	assert.Contains(t, msg, "(a lost route?)")
	for _, w := range want {
		assert.Contains(t, msg, w)
	}
	m := lostPeer.FindStringSubmatch(msg)
	if assert.NotNil(t, m, "the error names the peer") {
		peer, _ := strconv.Atoi(m[1])
		assert.NotEqual(t, n.half(pe.PE), n.half(peer), "PE %d's peer %d is across the partition", pe.PE, peer)
	}
}

// TestLostBarrierSignal: a barrier whose signals cannot cross the
// partition fails in BarrierWait with the signal's timeout.
func TestLostBarrierSignal(t *testing.T) {
	for _, n := range lostPartitions() {
		t.Run(n.name, func(t *testing.T) {
			err := pgas.Run(n.cfg, func(pe *pgas.PE) error { return pe.Barrier() })
			lostCheck(t, n, err, "BarrierWait", "a barrier signal failed")
		})
	}
}

// TestLostAllreduce: an allreduce whose messages cannot cross the
// partition fails in Allreduce with the message's timeout.
func TestLostAllreduce(t *testing.T) {
	for _, n := range lostPartitions() {
		t.Run(n.name, func(t *testing.T) {
			err := pgas.Run(n.cfg, func(pe *pgas.PE) error {
				v := []int64{int64(pe.Rank()), 1}
				return pgas.Allreduce(pe.World(), pgas.Sum, v, v)
			})
			lostCheck(t, n, err, "Allreduce", "a message to PE")
		})
	}
}

// TestLostCreditReturn: PE a sends requests to PE b, whose handler does not
// reply, so b returns a's credits in credit messages; b's route to a is
// lost, a's to b is not. The routing is "by-order": b, switched to strict
// ordering, routes deterministically into the failed link, while a's
// requests, and the acknowledgements of them b's NIC sends back, are routed
// adaptively around it. b's wait fails with the credit message's timeout
// (a would otherwise wait for a credit for ever, b for the requests a
// cannot send).
func TestLostCreditReturn(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  pgas.Config
		a, b int
	}{
		// Gemini 3 of a 2x2x1 torus (nodes 6 and 7) with its x
		// connections failed: deterministic routes, x first, cannot leave
		// it towards Gemini 0 (node 0); adaptive ones go by y first.
		{"gemini", pgas.Config{Conduit: "gemini", PEs: 7, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes,
			Options: map[string]string{"torus": "2x2x1", "routing": "by-order", "fail": "3:x:+:0;3:x:+:1;3:x:-:0;3:x:-:1"}}, 0, 6},
		// Aries 1 (nodes 4-7) with its green link to Aries 0 failed.
		{"aries", pgas.Config{Conduit: "aries", PEs: 5, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes,
			Options: map[string]string{"routing": "by-order", "ce": "false", "fail": "1:0"}}, 0, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			const requests = 40
			var got int
			var stats am.Stats
			err := pgas.Run(c.cfg, func(pe *pgas.PE) error {
				h, err := pe.AM().Register("lost.count", func(*am.Message) error { got++; return nil })
				if err != nil {
					return err
				}
				// No barrier before the requests (its signals would
				// cross the failed link): b registers before it first
				// polls, and so before it handles any message.
				switch pe.Rank() {
				case c.a:
					for i := range requests {
						if err := pe.AM().RequestShort(c.b, h, int32(i)); err != nil {
							return err
						}
					}
				case c.b:
					if err := pe.SetOrdering(pgas.OrderStrict); err != nil {
						return err
					}
					err := pe.WaitUntil("the requests", func() bool { return got == requests })
					stats = pe.AM().Stats
					return err
				}
				return nil
			})
			lostCheck(t, lostNet{c.name, c.cfg, func(r int) int { return r / 4 }}, err, "WaitUntil",
				fmt.Sprintf("pgas: PE %d:", c.b), fmt.Sprintf("a message to PE %d failed", c.a), fmt.Sprintf("no response from PE %d", c.a))
			// b sent nothing but credit messages: the one lost was one.
			assert.Positive(t, stats.CreditMessages, "b returned credits")
			assert.Zero(t, stats.Requests+stats.Replies, "b sent no other message")
			assert.GreaterOrEqual(t, got, 6, "b handled the requests of a depth's half at least")
		})
	}
}
