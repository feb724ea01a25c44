package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/simtest"
)

// Reusing transactions changes nothing: the machine reuses a completed
// put's transaction only without the hazard checker (which keeps them),
// so a run with the checker on, where every transaction is new, must give
// the same report as one with it off, where most are reused.
func TestTxnReuseChangesNothing(t *testing.T) {
	run := func(hazards string) simtest.TrafficResult {
		tr := simtest.Traffic{Nodes: 64, Puts: 20, Size: 64, MeanGap: simtest.BookSimMeanGap, Seed: 3,
			Options: map[string]string{"torus": "4x4x4", "hazards": hazards}}
		r, err := tr.Run(gemini.Name)
		require.NoError(t, err)
		return r
	}
	reused, fresh := run("off"), run("fail")
	assert.Equal(t, fresh.Report.End, reused.Report.End)
	assert.Equal(t, fresh.Report.Events, reused.Report.Events)
	assert.Equal(t, fresh.Report.Counters, reused.Report.Counters)
}
