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

// TestWallTimeLimit: PGAS_WALL_TIME_LIMIT ends a job on the shared-memory
// backend that would otherwise never end, with a report of what each PE
// was doing.
func TestWallTimeLimit(t *testing.T) {
	t.Setenv("PGAS_WALL_TIME_LIMIT", "200ms")
	checkLimit := func(t *testing.T, err error, start time.Time) *conduit.LimitError {
		t.Helper()
		var le *conduit.LimitError
		require.ErrorAs(t, err, &le)
		assert.Equal(t, "wall-clock time limit", le.Limit)
		assert.Equal(t, "200ms", le.Value)
		assert.Empty(t, le.Finished)
		assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
		return le
	}
	// Every PE polls, with blocking gets, a word of its neighbour that
	// nobody writes: each get completes, so no PE ever waits long and no
	// deadlock can be seen.
	strict := pathConfig{"strict", pgas.Config{Conduit: "smp", PEs: 3, Access: pgas.Strict}}
	for _, c := range append(pathConfigs(pgas.Config{Conduit: "smp", PEs: 3}), strict) {
		t.Run("polling gets/"+c.name, func(t *testing.T) {
			start := time.Now()
			err := pgas.Run(c.cfg, func(pe *pgas.PE) error {
				a, err := pgas.NewArray[int64](pe, 1)
				if err != nil {
					return err
				}
				p := a.At((pe.Rank()+1)%pe.Size(), 0)
				for {
					v, err := pgas.GetValue(pe, p)
					if err != nil {
						return err
					}
					if v != 0 {
						return nil
					}
				}
			})
			le := checkLimit(t, err, start)
			require.Len(t, le.Doing, 3)
			for r, d := range le.Doing {
				assert.True(t, d == "computing (not in a runtime call)" || strings.HasPrefix(d, "waiting for "), "PE %d: %q", r, d)
			}
		})
	}
	t.Run("waiting", func(t *testing.T) {
		start := time.Now()
		err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 3}, func(pe *pgas.PE) error {
			a, err := pgas.NewArray[int64](pe, 1)
			if err != nil {
				return err
			}
			return pe.WaitUntil("a word nobody writes", func() bool { return a.Local()[0] != 0 })
		})
		le := checkLimit(t, err, start)
		want := "waiting for a word nobody writes"
		assert.Equal(t, map[int]string{0: want, 1: want, 2: want}, le.Doing)
	})
	t.Run("within the limit", func(t *testing.T) {
		err := pgas.Run(pgas.Config{Conduit: "smp", PEs: 3, WallTimeLimit: time.Minute}, func(pe *pgas.PE) error {
			a, err := pgas.NewArray[int64](pe, 1)
			if err != nil {
				return err
			}
			if err := pgas.PutValue(pe, a.At((pe.Rank()+1)%pe.Size(), 0), 1); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			return pe.WaitUntil("a word", func() bool { return a.Local()[0] == 1 })
		})
		assert.NoError(t, err)
	})
}

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
