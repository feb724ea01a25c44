package pgas_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// job must have stopped all its PEs when Run returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
