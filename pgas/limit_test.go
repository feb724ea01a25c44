package pgas_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// spinOnGets is a runaway program: every PE polls, with blocking gets, a
// word that nobody writes.
func spinOnGets(pe *pgas.PE) error {
	a, err := pgas.NewArray[int64](pe, 1)
	if err != nil {
		return err
	}
	peer := (pe.Rank() + 1) % pe.Size()
	for {
		v, err := a.GetValue(peer, 0)
		if err != nil {
			return err
		}
		if v != 0 {
			return nil
		}
	}
}

// TestSimTimeLimitEndsRunaway: on the simulated backends a runaway program
// ends at the simulated time limit with an error naming what each PE was
// doing, instead of running forever.
func TestSimTimeLimitEndsRunaway(t *testing.T) {
	for _, backend := range []string{"gemini", "aries"} {
		t.Run(backend, func(t *testing.T) {
			err := pgas.Run(pgas.Config{Conduit: backend, PEs: 4, PEsPerNode: 2, SimTimeLimit: 200 * time.Microsecond,
				SegmentBytes: pgas.MinSegmentBytes}, spinOnGets)
			var le *conduit.LimitError
			require.True(t, errors.As(err, &le), "error %v is not a *conduit.LimitError", err)
			assert.Equal(t, "simulated time limit", le.Limit)
			assert.Len(t, le.Doing, 4, "every PE still running is named")
			assert.LessOrEqual(t, le.At, conduit.FromDuration(200*time.Microsecond))
			msg := err.Error()
			for _, want := range []string{"simulated time limit of 200µs", "PE 0 is", "PE 3 is"} {
				assert.Contains(t, msg, want)
			}
			assert.True(t, strings.Contains(msg, "waiting for") || strings.Contains(msg, "computing"), msg)
		})
	}
}

// TestWallTimeLimitEndsRunaway: the wall-clock limit ends a simulated
// runaway program too.
func TestWallTimeLimitEndsRunaway(t *testing.T) {
	start := time.Now()
	err := pgas.Run(pgas.Config{Conduit: "gemini", PEs: 2, SimTimeLimit: -1, WallTimeLimit: 300 * time.Millisecond,
		SegmentBytes: pgas.MinSegmentBytes}, spinOnGets)
	var le *conduit.LimitError
	require.True(t, errors.As(err, &le), "error %v is not a *conduit.LimitError", err)
	assert.Equal(t, "wall-clock time limit", le.Limit)
	assert.Len(t, le.Doing, 2)
	assert.Less(t, time.Since(start), time.Minute, "the limit ended the run")
}

// TestLimitsLeaveShortJobsAlone: a job well within its limits ends
// normally.
func TestLimitsLeaveShortJobsAlone(t *testing.T) {
	err := pgas.Run(pgas.Config{Conduit: "gemini", PEs: 2, SimTimeLimit: time.Second, WallTimeLimit: time.Hour,
		SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error { return pe.Barrier() })
	require.NoError(t, err)
}
