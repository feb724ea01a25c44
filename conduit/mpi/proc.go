//go:build mpi

package mpi

/*
#include "gp.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gopgas/gopgas/conduit"
)

// Available reports whether the backend is built in: true in a program
// built with the build tag mpi.
const Available = true

func init() {
	conduit.Register(Name, conduit.Backend{Open: Open, DefaultPEs: DefaultPEs})
}

// The process's MPI. MPI is initialised once per process, on first use,
// by a goroutine locked to its OS thread for the life of the process (the
// MPI thread), asking for MPI_THREAD_FUNNELED: every later MPI call is
// made on that thread, because every PE program runs there (Job.Run hands
// the program to it). One thread is all one PE per process needs, and
// MPI_THREAD_MULTIPLE would make the library take locks on every call.
var proc struct {
	once     sync.Once
	work     chan func()
	initErr  error
	provided int
	rank     int
	size     int
	version  string

	busy      atomic.Bool // a job is open in this process
	finalized atomic.Bool
	broken    atomic.Bool // a job failed half-way through a collective step
}

// startMPI initialises MPI on the MPI thread, once.
func startMPI() error {
	proc.once.Do(func() {
		proc.work = make(chan func())
		ready := make(chan struct{})
		go mpiThread(ready)
		<-ready
	})
	if proc.finalized.Load() {
		return errors.New("mpi: MPI has been finalized in this process (Finalize): no job can start")
	}
	return proc.initErr
}

// mpiThread is the MPI thread: it initialises MPI and then runs what it is
// given, for the life of the process.
func mpiThread(ready chan<- struct{}) {
	runtime.LockOSThread() // never unlocked: MPI belongs to this thread
	var provided, rank, size C.int
	if err := check("MPI_Init_thread", -1, C.gp_init(&provided, &rank, &size)); err != nil {
		proc.initErr = err
	} else if provided < C.MPI_THREAD_FUNNELED {
		proc.initErr = fmt.Errorf("mpi: MPI_Init_thread granted thread level %d, below MPI_THREAD_FUNNELED (%d)", provided, C.MPI_THREAD_FUNNELED)
	}
	proc.provided, proc.rank, proc.size = int(provided), int(rank), int(size)
	if proc.initErr == nil {
		proc.version = libraryVersion()
	}
	close(ready)
	for f := range proc.work {
		f()
	}
}

// onThread runs f on the MPI thread and waits for it.
func onThread(f func()) {
	done := make(chan struct{})
	proc.work <- func() {
		defer close(done)
		f()
	}
	<-done
}

// DefaultPEs is the number of processes of the MPI job: one PE each. It
// initialises MPI; if that fails it returns 1 and Open reports why.
func DefaultPEs() int {
	if err := startMPI(); err != nil {
		return 1
	}
	return proc.size
}

// Finalize ends the process's use of MPI (MPI_Finalize): call it once the
// process's last job has returned, before the process exits (pgas.Main
// does). No job can start after it. If a job of this process failed while
// the processes were out of step (a start that not every process reached),
// MPI cannot be finalized collectively and Finalize calls MPI_Abort
// instead, which ends every process of the launch. It does nothing when
// MPI was never started.
func Finalize() error {
	started := false
	proc.once.Do(func() {}) // MPI will never start after this
	if proc.work != nil && proc.initErr == nil {
		started = true
	}
	if !started || proc.finalized.Swap(true) {
		return nil
	}
	if proc.busy.Load() {
		return errors.New("mpi: Finalize while a job is running in this process")
	}
	var err error
	onThread(func() {
		if proc.broken.Load() {
			C.gp_abort(1)
		}
		err = check("MPI_Finalize", proc.rank, C.gp_finalize())
	})
	return err
}

// World reports this process's rank and the number of processes of the
// MPI job, starting MPI if need be.
func World() (rank, size int, err error) {
	if err := startMPI(); err != nil {
		return 0, 0, err
	}
	return proc.rank, proc.size, nil
}

// Library is MPI's description of itself (MPI_Get_library_version, first
// line), once MPI has started.
func Library() string { return proc.version }
