//go:build mpi

package mpi

/*
#include "gp.h"
*/
import "C"

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
)

// The world's barrier and single-value allreduces are MPI's own, started
// non-blocking (MPI_Ibarrier, MPI_Iallreduce) on the job's collectives
// communicator and tested by the runtime's wait loop. The runtime starts
// one at a time and every PE starts them in the same order, as MPI
// requires of collectives on one communicator.

// collective is the one offloaded collective in flight.
type collective struct {
	ep     *endpoint
	active bool
	done   bool
	result uint64
	width  int
}

// OffloadBarrier starts an MPI_Ibarrier.
func (e *endpoint) OffloadBarrier() (conduit.Collective, error) {
	if err := e.startColl("MPI_Ibarrier", C.gp_ibarrier(e.job.c)); err != nil {
		return nil, err
	}
	return &e.coll, nil
}

// OffloadAllreduce starts an MPI_Iallreduce of one value: sum, product,
// minimum and maximum of signed, unsigned and floating-point values, and
// bitwise and, or and xor of integers.
func (e *endpoint) OffloadAllreduce(op conduit.ReduceOp, kind conduit.ReduceKind, width int, value uint64) (conduit.Collective, error) {
	var k int
	switch {
	case kind == conduit.ReduceFloat && width == 8:
		k = 4
	case kind == conduit.ReduceFloat && width == 4:
		k = 5
	case kind == conduit.ReduceInt && width == 4:
		k = 1
	case kind == conduit.ReduceUint && width == 4:
		k = 0
	case kind == conduit.ReduceInt && width == 8:
		k = 3
	case kind == conduit.ReduceUint && width == 8:
		k = 2
	default:
		return nil, fmt.Errorf("mpi: PE %d: allreduce of kind %d, width %d: %w", e.rank, kind, width, conduit.ErrUnsupported)
	}
	var o int
	switch op {
	case conduit.ReduceSum:
		o = 0
	case conduit.ReduceAnd:
		o = 1
	case conduit.ReduceOr:
		o = 2
	case conduit.ReduceXor:
		o = 3
	case conduit.ReduceMin:
		o = 5
	case conduit.ReduceMax:
		o = 6
	case conduit.ReduceProd:
		o = 9
	default:
		return nil, fmt.Errorf("mpi: PE %d: allreduce operation %d: %w", e.rank, op, conduit.ErrUnsupported)
	}
	if kind == conduit.ReduceFloat && o >= 1 && o <= 3 {
		return nil, fmt.Errorf("mpi: PE %d: bitwise allreduce of floating-point values: %w", e.rank, conduit.ErrUnsupported)
	}
	if width == 4 {
		value &= 0xFFFFFFFF
	}
	if err := e.startColl("MPI_Iallreduce", C.gp_iallreduce(e.job.c, C.int(k), C.int(o), C.uint64_t(value))); err != nil {
		return nil, err
	}
	e.coll.width = width
	return &e.coll, nil
}

func (e *endpoint) startColl(call string, rc C.int) error {
	if e.coll.active {
		return fmt.Errorf("mpi: PE %d: %s while another offloaded collective is in flight", e.rank, call)
	}
	if err := check(call, e.rank, rc); err != nil {
		return err
	}
	e.coll = collective{ep: e, active: true}
	return nil
}

// Test tests the collective (MPI_Test).
func (c *collective) Test() (bool, uint64, error) {
	if c.done {
		return true, c.result, nil
	}
	e := c.ep
	if err := check("MPI_Test (offloaded collective)", e.rank, C.gp_coll_test(e.job.c)); err != nil {
		c.active = false
		return false, 0, err
	}
	if e.job.c.coll_done == 0 {
		return false, 0, nil
	}
	c.done, c.active = true, false
	c.result = uint64(C.gp_coll_result(e.job.c))
	if c.width == 4 {
		c.result &= 0xFFFFFFFF
	}
	e.progress++
	return true, c.result, nil
}
