package gemini_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/simtest"
	"github.com/gopgas/gopgas/pgas"
)

// TestPartitionedSameForAnyWorkers: uniform random puts on a 5x4x4 torus,
// run in partitions (an X plane each) on 1, 2 and 5 workers, give the same
// report, every counter and the events and end included, with the puts at
// once and with the BookSim-shaped gaps; and the same packets and
// transactions as on one kernel. Under the race detector the workers run
// at once.
func TestPartitionedSameForAnyWorkers(t *testing.T) {
	tr := simtest.Traffic{Nodes: 80, Puts: 16, Size: 64, Seed: 3, Options: map[string]string{"torus": "5x4x4"}}
	tr.SameForAnyWorkers(t, gemini.Name, "torus_packets", 1, 2, 5)
}

// TestPartitionedRefusesFaults: a torus with a failed link is not run in
// partitions (a failure quiesces the whole network).
func TestPartitionedRefusesFaults(t *testing.T) {
	err := pgas.Run(pgas.Config{Conduit: "gemini", PEs: 2, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes,
		Options: map[string]string{"torus": "4x4x4", "workers": "2", "fail": "0:x:+:0"}}, func(*pgas.PE) error { return nil })
	require.ErrorContains(t, err, `gemini: option workers="2": a network with failed links (the fail option) cannot be run in partitions`)
}

// TestPartitionedMessages: the runtime's messaging between partitions (an
// allreduce, barriers, two-sided messages and active messages, each PE's
// to the Gemini next to its own, in the other X plane of a 2x4x4 torus)
// delivers every payload, and every PE ends at the same time on 1 and 2
// workers. With the runtime's depth at 1 (4 mailbox slots) the 6 messages
// a PE sends at once meet full credits.
func TestPartitionedMessages(t *testing.T) {
	ms := simtest.Messages{Conduit: gemini.Name, PEs: 64, Rounds: 6, Size: 200, Depth: 1, Shift: 2,
		Options: map[string]string{"torus": "2x4x4"}}
	one, part := ms.SameForAnyWorkers(t, 1, 2)
	t.Logf("last end: one kernel %v, partitioned %v", slices.Max(one), slices.Max(part))
}

// TestPartitionedMailbox: short messages between the X planes fill their
// mailboxes (4 slots) and the senders retry: every message arrives once
// and in order, and the same sends find the mailbox full and every PE ends
// at the same time on 1 and 2 workers; a release reaches a sender in the
// other plane the lookahead (105 ns) after the target's poll, so a
// partitioned sender finds its mailbox full at least as often as on one
// kernel.
func TestPartitionedMailbox(t *testing.T) {
	mb := simtest.Mailbox{Conduit: gemini.Name, PEs: 64, Count: 40, Slots: 4, Shift: 2,
		Retry: 50 * conduit.Nanosecond, Poll: 400 * conduit.Nanosecond, Options: map[string]string{"torus": "2x4x4"}}
	one, part := mb.SameForAnyWorkers(t)
	t.Logf("full mailboxes: one kernel %d, partitioned %d; last end %v and %v", one.Full, part.Full, slices.Max(one.Ends), slices.Max(part.Ends))
}
