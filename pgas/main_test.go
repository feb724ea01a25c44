package pgas_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// job must have stopped all its PEs when Run returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, leakOptions...) }

// leakOptions are more options of the check: the MPI tests (mpi_test.go)
// add the MPI thread, which lives as long as the process.
var leakOptions []goleak.Option
