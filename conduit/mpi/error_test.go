//go:build mpi

package mpi

import (
	"strings"
	"testing"
)

// A failed MPI call's error names the call, the PE and MPI's own error
// string.
func TestMPIErrorNamesTheCall(t *testing.T) {
	// Open MPI allows MPI_Error_string only once MPI has started.
	if _, _, err := World(); err != nil {
		t.Skipf("MPI does not start outside a launcher here: %v", err)
	}
	err := errorFor("MPI_Put", 3, errRank)
	if err == nil {
		t.Fatal("no error for MPI_ERR_RANK")
	}
	msg := err.Error()
	for _, want := range []string{"MPI_Put", "PE 3", "rank"} {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(want)) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if errorFor("MPI_Put", 3, 0) != nil {
		t.Error("an error for MPI_SUCCESS")
	}
}
