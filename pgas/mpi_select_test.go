package pgas_test

import (
	"strings"
	"testing"

	"github.com/gopgas/gopgas/conduit/mpi"
	"github.com/gopgas/gopgas/pgas"
)

// Under an MPI launcher the default backend is mpi, so that each process
// of `mpiexec -n 4 ./prog` is one PE of a four-PE job rather than a whole
// job of its own; without the launcher's variables it stays smp.
func TestConduitDefaultUnderMPILauncher(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no launcher", map[string]string{}, "smp"},
		{"mpiexec (Hydra)", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "4"}, "mpi"},
		{"Open MPI", map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, "mpi"},
		{"PMIx", map[string]string{"PMIX_RANK": "3"}, "mpi"},
		{"explicit smp wins", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "4", "PGAS_CONDUIT": "smp"}, "smp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }
			got, err := pgas.Config{Env: env, PEs: 2}.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if got.Conduit != c.want {
				t.Errorf("Conduit = %q, want %q", got.Conduit, c.want)
			}
		})
	}
}

// A program built without the build tag mpi says how to build it in
// rather than running anything.
func TestMPIWithoutTheBuildTag(t *testing.T) {
	if mpi.Available {
		t.Skip("built with -tags mpi")
	}
	err := pgas.Run(pgas.Config{Conduit: "mpi", PEs: 1}, func(pe *pgas.PE) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "-tags mpi") {
		t.Fatalf("Run on mpi without the tag: %v, want an error saying to build with -tags mpi", err)
	}
}
