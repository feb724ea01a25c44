package gemini_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/integrity"
	"github.com/gopgas/gopgas/internal/simtest"
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

// TestPartitionedFaults: connections between the two X planes of a
// 2x2x2 torus fail, and one loses two of its links, in the middle of a
// run of the integrity program (the job of TestFaultRunsRepeat), in
// partitions (an X plane each): every
// byte arrives, and 1 and 2 workers give the same result and report, with
// packets lost on the links' wires (the times are chosen for that), the
// links taken out of service by their own partitions and, under
// by-order routing (deterministic for puts), the network quiesced for
// the re-route pause (20 us here, so that the new tables come within the
// run) and re-routed once.
func TestPartitionedFaults(t *testing.T) {
	p := integrity.Params{MinBytes: 8, MaxBytes: 4096, Factor: 8, Adds: 16, Rounds: 1}
	for _, routing := range []string{"by-order", "adaptive"} {
		opts := map[string]string{"torus": "2x2x2", "routing": routing, "fail": "0:x:+:0@80us;1:x:+:1@85us;2:x:+:0:2@65us", "reroute_pause": "20us"}
		one, part := simtest.FaultsSameForAnyWorkers(t, faultCfg(opts), p, 1, 2)
		c := part.Report.Counters
		t.Logf("routing=%s: one kernel ends at %v (%d lost, %d retries), partitions at %v (%d lost, %d retries)", routing,
			one.Report.End, one.Report.Counters["lost_packets"], one.Result.Retries, part.Report.End, c["lost_packets"], part.Result.Retries)
		require.Equal(t, one.Report.Counters["link_failures"], c["link_failures"], routing)
		require.Positive(t, c["link_failures"], routing)
		require.Positive(t, c["lost_packets"], routing)
		// Under by-order routing one quiesce takes in both failures;
		// adaptive routing re-routes after each.
		require.Equal(t, map[string]int64{"by-order": 1, "adaptive": 2}[routing], c["reroutes"], routing)
		if routing == "by-order" {
			require.Positive(t, c["quiesce_ns"], routing)
		} else {
			require.Zero(t, c["quiesce_ns"], routing)
		}
	}
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
