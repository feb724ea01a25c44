// Package smptest helps tests run jobs on the shared-memory backend
// (conduit/smp) against the bare conduit interface: RunJob opens and runs
// a job, WaitFunc makes a function a conduit.Waiter, and Barrier holds the
// PEs of a job together between the steps of a test. The tests of
// conduit/smp and internal/transport share them; smptest.go holds all
// three.
package smptest
