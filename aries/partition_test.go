package aries_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/integrity"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/internal/simtest"
	"github.com/gopgas/gopgas/pgas"
)

// TestPartitionedSameForAnyWorkers: uniform random puts on 3 groups, run
// in partitions (a group each) on 1, 2 and 3 workers, give the same
// report, every counter and the events and end included, with the puts
// at once and with the BookSim-shaped gaps; and the same packets and
// transactions as on one kernel. Under the race detector the workers run
// at once.
func TestPartitionedSameForAnyWorkers(t *testing.T) {
	tr := simtest.Traffic{Nodes: 3 * aries.NodesPerGroup, Puts: 4, Size: 64, Seed: 3, Options: map[string]string{"groups": "3"}}
	tr.SameForAnyWorkers(t, aries.Name, "link_packets", 1, 2, 3)
}

// TestPartitionedFaults: the two global links from Aries 0 towards the
// other group fail in the middle of a run of the integrity program
// between the two groups (TestIntegrityWithGlobalLinksFailing's job), in
// partitions (a group each): every byte arrives, and 1, 2 and 3 workers
// give the same result and report, with packets lost on the links' wires,
// both directions of each link taken out of service (one in each
// partition) and, under deterministic routing, the network quiesced and
// re-routed once.
func TestPartitionedFaults(t *testing.T) {
	p := integrity.Params{MinBytes: 8, MaxBytes: 32 << 10, Factor: 8, Adds: 16, Rounds: 1}
	routings, workers := []string{"adaptive", "deterministic"}, []int{1, 2, 3}
	if race.Enabled {
		// Under the race detector (the workers at once) a smaller
		// program, deterministic routing (loss, quiesce and re-route)
		// and 1 and 2 workers: 8 s rather than 150.
		p.MaxBytes, routings, workers = 4<<10, routings[1:], workers[:2]
	}
	var lost int64
	for _, routing := range routings {
		_, opts, fail := globalLinksFailing(t, routing, p)
		one, part := simtest.FaultsSameForAnyWorkers(t, faultCfg(opts), p, workers...)
		c := part.Report.Counters
		t.Logf("routing=%s,fail=%s: one kernel ends at %v (%d lost, %d retries), partitions at %v (%d lost, %d retries)", routing, fail,
			one.Report.End, one.Report.Counters["lost_packets"], one.Result.Retries, part.Report.End, c["lost_packets"], part.Result.Retries)
		require.Equal(t, int64(4), c["link_failures"], routing)
		if routing == "deterministic" {
			require.Equal(t, int64(1), c["reroutes"], routing)
			require.GreaterOrEqual(t, c["quiesce_ns"], int64(aries.ReroutePause/conduit.Nanosecond), routing)
		} else {
			require.Zero(t, c["quiesce_ns"], routing)
		}
		lost += c["lost_packets"]
	}
	require.Positive(t, lost, "packets were lost")
}

// twoGroups excludes all but the first 32 nodes of each of two groups,
// so that a job of 64 nodes has half in each.
var twoGroups = fmt.Sprintf("32-%d", aries.NodesPerGroup-1)

// TestPartitionedMessages: the runtime's messaging between partitions (an
// allreduce, barriers, two-sided messages and active messages between the
// two groups) delivers every payload, and every PE ends at the same time
// on 1 and 2 workers. The collective engine is off on one kernel too (a
// partitioned run has none), for ends that compare. A mailbox slot a message held is released to its
// sender the lookahead after the target's poll, so the ends may differ
// from one kernel's, where the sender learns at once. With the runtime's
// depth at 1 (4 mailbox slots) the 6 messages a PE sends at once meet
// full mailboxes and credits.
func TestPartitionedMessages(t *testing.T) {
	ms := simtest.Messages{Conduit: aries.Name, PEs: 64, Rounds: 6, Size: 200, Depth: 1,
		Options: map[string]string{"groups": "2", "exclude": twoGroups}}
	one, part := ms.SameForAnyWorkers(t, 1, 2)
	logEnds(t, one, part)
}

// TestPartitionedMailbox: short messages between the two groups fill
// their mailboxes (4 slots), and the senders retry: every message arrives
// once and in order, the same sends find the mailbox full and every PE
// ends at the same time on 1 and 2 workers. A release reaches a sender in
// another partition the lookahead (75 ns) after the target's poll, where
// on one kernel the sender sees it at once, so a partitioned sender finds
// its mailbox full at least as often.
func TestPartitionedMailbox(t *testing.T) {
	mb := simtest.Mailbox{Conduit: aries.Name, PEs: 64, Count: 40, Slots: 4,
		Retry: 50 * conduit.Nanosecond, Poll: 400 * conduit.Nanosecond, Options: map[string]string{"groups": "2", "exclude": twoGroups}}
	one, part := mb.SameForAnyWorkers(t)
	t.Logf("full mailboxes: one kernel %d, partitioned %d; last end %v and %v", one.Full, part.Full, slices.Max(one.Ends), slices.Max(part.Ends))
}

// TestPartitionedCollectiveEngine: the collective engine runs in
// partitions, an actor in each, its tree's packets crossing between the
// groups like any others: a barrier and 8 allreduces over 64 nodes of 2
// PEs, half in each of two groups, give the right sums, and the same
// report (the engine's counters, the events, the end) on 1 and 2 workers;
// the engine's counters are those of one kernel. The end may differ from
// one kernel's by the PEs' syncs at the windows ("The windowed kernel" of
// docs/parallel-kernel.md).
func TestPartitionedCollectiveEngine(t *testing.T) {
	const nodes, perNode, iters = 64, 2, 8
	run := func(workers int) conduit.Report {
		var rep conduit.Report
		opts := map[string]string{"groups": "2", "exclude": twoGroups}
		if workers > 0 {
			opts["workers"] = fmt.Sprint(workers)
		}
		err := pgas.Run(pgas.Config{Conduit: aries.Name, PEs: nodes * perNode, PEsPerNode: perNode, SegmentBytes: pgas.MinSegmentBytes,
			Options: opts, Report: &rep}, func(pe *pgas.PE) error {
			if err := pe.Barrier(); err != nil {
				return err
			}
			for i := range iters {
				v := []float64{float64(pe.Rank() * i)}
				if err := pgas.Allreduce(pe.World(), pgas.Sum, v, v); err != nil {
					return err
				}
				if want := float64(i * nodes * perNode * (nodes*perNode - 1) / 2); v[0] != want {
					return fmt.Errorf("allreduce %d: PE %d: %v, want %v", i, pe.Rank(), v[0], want)
				}
			}
			return nil
		})
		require.NoError(t, err, "%d workers", workers)
		return rep
	}
	one, part, two := run(0), run(1), run(2)
	require.Equal(t, part, two, "1 worker against 2")
	require.Equal(t, int64(1+iters), part.Counters["ce_collectives"])
	for _, c := range []string{"ce_collectives", "ce_packets", "ce_waits"} {
		require.Equal(t, one.Counters[c], part.Counters[c], c)
	}
	t.Logf("end: one kernel %v, partitioned %v; %d CE packets", one.End, part.End, part.Counters["ce_packets"])
}

// logEnds logs how the PEs' ends of a partitioned run differ from one
// kernel's.
func logEnds(t *testing.T, one, part []time.Duration) {
	differ, most := 0, time.Duration(0)
	for i := range one {
		if d := part[i] - one[i]; d != 0 {
			differ++
			most = max(most, d, -d)
		}
	}
	t.Logf("last end: one kernel %v, partitioned %v; %d of %d PEs end at another time, by at most %v",
		slices.Max(one), slices.Max(part), differ, len(one), most)
}

// TestPartitionedSteadyAllocs: a partitioned run recycles its
// transactions, those between two partitions too (whose last reference
// either side may drop, decided at the window's end): the BookSim-shaped
// traffic on 3 groups and 2 workers allocates next to nothing in its
// steady state (60 more puts per node after 90).
func TestPartitionedSteadyAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 150 puts per node on 3 groups, twice")
	}
	if race.Enabled {
		t.Skip("the race detector allocates for itself")
	}
	tr := bookSim()
	tr.Puts = 90
	tr.Options["workers"] = "2"
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = rate }()
	allocs, packets, err := tr.SteadyAllocs(aries.Name, 60)
	require.NoError(t, err)
	t.Logf("%d allocations for %d packets", allocs, packets)
	require.Positive(t, packets)
	// One kernel makes about 0.0002 a packet; transactions left to the
	// collector, which the machine makes 51 at a time, 0.0065.
	require.Less(t, float64(allocs)/float64(packets), 0.001, "allocations per packet in the steady state")
}
