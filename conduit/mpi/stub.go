//go:build !mpi

package mpi

import (
	"errors"

	"github.com/gopgas/gopgas/conduit"
)

// Available reports whether the backend is built in: true only in a
// program built with the build tag mpi (which needs cgo and an MPI
// library). Without it the backend is registered all the same, and Open
// says how to build it in.
const Available = false

// ErrNotBuilt is what the backend's Open returns in a program built
// without the tag.
var ErrNotBuilt = errors.New("mpi: this program was built without MPI: build it with -tags mpi (needs cgo and MPICH or Open MPI), then launch it with mpiexec")

func init() {
	conduit.Register(Name, conduit.Backend{
		Open:       func(conduit.JobConfig) (conduit.Job, error) { return nil, ErrNotBuilt },
		DefaultPEs: DefaultPEs,
	})
}

// DefaultPEs is the launcher's number of processes (one PE each), or 1.
func DefaultPEs() int {
	if _, _, size, ok := Launcher(nil); ok && size > 0 {
		return size
	}
	return 1
}

// Finalize ends the process's use of MPI. Without the build tag there is
// nothing to end.
func Finalize() error { return nil }
