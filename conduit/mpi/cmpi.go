//go:build mpi

package mpi

// The C side: thin wrappers over MPI, one C call per runtime operation on
// the hot paths, and C memory for whatever MPI keeps a pointer to after a
// call returns (receive and send buffers, atomic operands and results).
// Handles (MPI_Comm, MPI_Win, MPI_Request) stay on this side: they are
// integers in MPICH and pointers in Open MPI.
//
// The flags come from pkg-config's "mpi" package (Debian and most
// distributions install it for the MPI chosen as the default; an MPI
// installed elsewhere is reached with PKG_CONFIG_PATH), or, with the extra
// build tag mpicc, from CGO_CFLAGS and CGO_LDFLAGS set from the output of
// `mpicc -show`.

/*
#cgo !mpicc pkg-config: mpi
#include "gp.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// mpiError is a failed MPI call: the call's name, the rank, and MPI's
// error string (the library returns errors: MPI_ERRORS_RETURN is set on
// every communicator and window the backend makes).
type mpiError struct {
	call string
	rank int
	code int
	text string
}

func (e *mpiError) Error() string {
	return fmt.Sprintf("mpi: PE %d: %s failed: %s (MPI error %d)", e.rank, e.call, e.text, e.code)
}

// check turns an MPI return code into an error naming the call.
func check(call string, rank int, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	C.gp_errstr(rc, &buf[0], C.int(len(buf)))
	return &mpiError{call: call, rank: rank, code: int(rc), text: C.GoString(&buf[0])}
}

// errRank is MPI_ERR_RANK, for the tests.
const errRank = int(C.MPI_ERR_RANK)

// errorFor is check for a plain code, for the tests.
func errorFor(call string, rank, code int) error { return check(call, rank, C.int(code)) }

// libraryVersion is MPI_Get_library_version's first line.
func libraryVersion() string {
	var buf [C.MPI_MAX_LIBRARY_VERSION_STRING + 1]C.char
	C.gp_version(&buf[0], C.int(len(buf)))
	s := C.GoString(&buf[0])
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
