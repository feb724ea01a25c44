package aries_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
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

// TestPartitionedRefusals: what a partitioned run does not model yet is
// refused with an error naming it, not run wrongly: failed links, the
// trace, the hazard checker, and messages between partitions (the
// runtime's collectives use them).
func TestPartitionedRefusals(t *testing.T) {
	run := func(opts map[string]string, pes int, body func(*pgas.PE) error) error {
		opts["groups"] = "2"
		opts["workers"] = "2"
		return pgas.Run(pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Options: opts}, body)
	}
	nothing := func(*pgas.PE) error { return nil }
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"fail": "0:0"}, `aries: option workers="2": a network with failed links (the fail option) cannot be run in partitions`},
		{map[string]string{"trace": t.TempDir() + "/t.json"}, "a traced run (the trace option) cannot be run in partitions"},
		{map[string]string{"hazards": "log"}, "the hazard checker (hazards=log) cannot run in partitions"},
	} {
		require.ErrorContains(t, run(c.opts, 2, nothing), c.want, "%v", c.opts)
	}
	err := run(map[string]string{}, 2*aries.NodesPerGroup, func(pe *pgas.PE) error {
		_, err := pe.Alloc(64, 0) // an allreduce of the sizes, by messages
		return err
	})
	require.ErrorIs(t, err, conduit.ErrUnsupported)
	require.ErrorContains(t, err, "messages between the partitions of a partitioned run (the workers option) are not modelled yet")
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
