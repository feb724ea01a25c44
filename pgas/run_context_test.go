package pgas_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/pgas"
)

// A context ended in the middle of a job stops it at the PEs' next waits:
// RunContext returns an error wrapping context.Canceled, and what the
// program recorded before is kept. A context ended before the start runs
// nothing; one that never ends runs the job as Run does.
func TestRunContextStops(t *testing.T) {
	for _, backend := range []string{"smp", "gemini"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const rounds = 1000
			done := 0
			err := pgas.RunContext(ctx, pgas.Config{Conduit: backend, PEs: 2}, func(pe *pgas.PE) error {
				for i := range rounds {
					if err := pe.Barrier(); err != nil {
						return err
					}
					if pe.Rank() == 0 {
						done = i + 1
						if i == 9 {
							cancel()
						}
					}
				}
				return nil
			})
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "context ended")
			assert.GreaterOrEqual(t, done, 10, "the rounds before the end were lost")
			assert.Less(t, done, rounds, "the job ran to its end")
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := pgas.RunContext(ctx, pgas.Config{Conduit: "smp", PEs: 2}, func(*pgas.PE) error { ran = true; return nil })
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, ran)
	assert.NoError(t, pgas.RunContext(context.Background(), pgas.Config{Conduit: "smp", PEs: 2}, func(pe *pgas.PE) error { return pe.Barrier() }))
	var none context.Context // a nil context is the error under test
	assert.Error(t, pgas.RunContext(none, pgas.Config{}, func(*pgas.PE) error { return nil }))
	assert.False(t, errors.Is(pgas.Run(pgas.Config{Conduit: "smp", PEs: 2}, func(pe *pgas.PE) error { return pe.Barrier() }), context.Canceled))
}
