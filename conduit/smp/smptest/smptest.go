package smptest

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/smp"
)

// RunJob opens a job of the shared-memory backend with cfg and runs main
// on each of its PEs. It fails the test, on the test's goroutine, if the
// job cannot be opened or ends with an error.
func RunJob(t testing.TB, cfg conduit.JobConfig, main func(ep conduit.Endpoint) error) {
	t.Helper()
	job, err := smp.Open(cfg)
	require.NoError(t, err)
	require.NoError(t, job.Run(main))
}

// WaitFunc adapts a function to conduit.Waiter.
type WaitFunc func() (bool, error)

// Ready calls f.
func (f WaitFunc) Ready() (bool, error) { return f() }

// Barrier is a test-side barrier of N PEs: a counter every PE bumps once
// per generation, waited for with WaitFor so that a hang becomes a
// deadlock report. Set N before the first Wait.
type Barrier struct {
	N     int64
	count atomic.Int64
}

// Wait enters the next generation of the barrier, *gen being the calling
// PE's count of its earlier ones, and returns once every PE has.
func (b *Barrier) Wait(ep conduit.Endpoint, gen *int64) error {
	*gen++
	want := *gen * b.N
	b.count.Add(1)
	return ep.WaitFor("the test barrier", WaitFunc(func() (bool, error) { return b.count.Load() >= want, nil }))
}
