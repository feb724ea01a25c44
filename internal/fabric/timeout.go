package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
)

// A transaction's timer. Each NIC keeps the transactions it sent that have
// not completed on one list, ordered by when each is next looked at, with
// one event (nicTimeout) for the earliest: a transaction joins it when its
// first request takes its ORB entries (orb.go, admit) and leaves it when it
// completes (finish, txn.go). A transaction that shows no sign of life (a
// request sent, a response back) for Params.TransactionTimeout times out:
// a post completes with conduit.StatusTimeout, a short message is sent
// again (resend). The timers stand still while the network is quiesced
// (fault.go).

// arm puts t on the timer list, to be looked at when at comes.
func (n *nic) arm(t *txn, at Time) {
	t.timing, t.checkAt = true, at
	// Keep the list ordered: a transaction is almost always armed later
	// than those before it, so the search from the tail is short.
	after := n.timersTail
	for after != nil && after.checkAt > at {
		after = after.tPrev
	}
	t.tPrev = after
	if after == nil {
		t.tNext, n.timers = n.timers, t
	} else {
		t.tNext, after.tNext = after.tNext, t
	}
	if t.tNext == nil {
		n.timersTail = t
	} else {
		t.tNext.tPrev = t
	}
	n.setTimer()
}

// disarm takes t off the timer list.
func (n *nic) disarm(t *txn) {
	if !t.timing {
		return
	}
	if t.tPrev == nil {
		n.timers = t.tNext
	} else {
		t.tPrev.tNext = t.tNext
	}
	if t.tNext == nil {
		n.timersTail = t.tPrev
	} else {
		t.tNext.tPrev = t.tPrev
	}
	t.tPrev, t.tNext, t.timing = nil, nil, false
}

// setTimer makes sure an event comes no later than the first timer's
// check.
func (n *nic) setTimer() {
	if n.timers == nil || (n.timerSet && n.timerAt <= n.timers.checkAt) {
		return
	}
	n.timerAt, n.timerSet = n.timers.checkAt, true
	n.m.k.At(n.timerAt, n, nicTimeout, nil)
}

// timeouts looks at the timers that are due: a transaction that made
// progress within the timeout is looked at again later; one that did not
// times out.
func (n *nic) timeouts() {
	m := n.m
	now := m.k.Now()
	if n.timerAt <= now {
		n.timerSet = false // the event for timerAt is this one, or has been
	}
	timeout := m.p.TransactionTimeout
	for t := n.timers; t != nil && t.checkAt <= now; t = n.timers {
		n.disarm(t)
		if m.quiesced {
			// The timer stands still while the network is quiesced
			// (fault.go).
			n.arm(t, m.releaseAt+timeout)
			continue
		}
		if due := max(t.alive, m.releasedAt) + timeout; due > now {
			// Still making progress: the time counts from its last sign
			// of life (or the end of the last quiesce).
			n.arm(t, due)
			continue
		}
		if t.kind == pktMsg {
			n.resend(t)
			continue
		}
		n.finish(t, conduit.StatusTimeout, fmt.Sprintf("no response from PE %d within %v (a lost route?)", t.tep.Rank(), timeout))
	}
	n.setTimer()
}

// MessageResends is how many times a source NIC sends a short message
// again whose transaction timed out (a packet of it, or of its
// acknowledgements, was lost) before the job fails with an error naming
// the message's source and target. The documents say only that the
// initiating NIC times the transaction out ([ARIES-WP] Network
// Reliability, Availability and Serviceability); the model assumes the
// messaging library under the runtime sends a timed-out message again
// from its copy, so that a message is never silently lost, and that the
// target's mailbox drops a copy that arrives twice (by its sequence
// number, simnet). Assumed: three resends, as many as the runtime's
// retries of a timed-out post (transport.TimeoutRetries).
const MessageResends = 3

// resend ends a short message's transaction that timed out and sends the
// message again in a new one, from the NIC (no CPU time is charged), or
// fails the job once it has been sent MessageResends times more.
func (n *nic) resend(t *txn) {
	m := n.m
	if t.attempt >= MessageResends {
		// Lost every time: the sender's wait fails naming the target
		// (MessageLost).
		n.finish(t, conduit.StatusTimeout, fmt.Sprintf("no response from PE %d within %v, %d times (a lost route?)",
			t.tep.Rank(), m.p.TransactionTimeout, t.attempt+1))
		return
	}
	t.resent = true
	n.finish(t, conduit.StatusTimeout, "")
	nt := m.newTxn(t.ep, t.tep.Rank(), t.order)
	nt.kind = pktMsg
	x := nt.rare()
	x.msg, x.msgData = t.x.msg, t.x.msgData
	nt.size, nt.unit, nt.npkts, nt.pending = t.size, t.unit, t.npkts, t.npkts
	nt.attempt = t.attempt + 1
	nt.born = m.k.Now()
	m.stats.MsgResends++
	m.k.At(m.k.Now(), n, nicFMAIssue, nt)
}
