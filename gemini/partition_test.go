package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/require"

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
