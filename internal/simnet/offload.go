package simnet

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
)

// Offloader is the collective engine of a network whose NICs reduce in
// the network (the Aries collective engine): the job's Offload, which the
// Network sets in Start. The Endpoint's conduit.CollectiveOffload methods
// hand their calls to it, from the PE's coroutine at the PE's clock; the
// model completes each Collective at the simulated moment its result
// reaches the PE, and wakes the PE (Endpoint.Wake) then.
type Offloader interface {
	// OffloadBarrier starts ep's part of a barrier of all PEs.
	OffloadBarrier(ep *Endpoint) (conduit.Collective, error)
	// OffloadAllreduce starts ep's part of an allreduce of one value per
	// PE (conduit.CollectiveOffload.OffloadAllreduce).
	OffloadAllreduce(ep *Endpoint, op conduit.ReduceOp, kind conduit.ReduceKind, width int, value uint64) (conduit.Collective, error)
}

// LocOffloader is implemented by an Offloader that also reduces minimum
// and maximum with a location (conduit.LocOffload).
type LocOffloader interface {
	OffloadAllreduceLoc(ep *Endpoint, op conduit.ReduceOp, kind conduit.ReduceKind, width int, value, loc uint64) (conduit.LocCollective, error)
}

var (
	_ conduit.CollectiveOffload = (*Endpoint)(nil)
	_ conduit.LocOffload        = (*Endpoint)(nil)
)

// offloader is the job's collective engine (Job.Offload), or an error
// wrapping conduit.ErrUnsupported when it has none or the backend's
// capabilities leave it out.
func (e *Endpoint) offloader(call string) (Offloader, error) {
	o := e.job.Offload
	if o == nil || !e.job.caps.CollectiveOffload {
		return nil, fmt.Errorf("%s: PE %d: %s: no collective engine: %w", e.Backend(), e.rank, call, conduit.ErrUnsupported)
	}
	if err := e.kernel().Aborted(); err != nil {
		return nil, err
	}
	return o, nil
}

// OffloadBarrier starts a barrier on the network's collective engine
// (conduit.CollectiveOffload). It fails with conduit.ErrUnsupported when
// the backend has none (Caps.CollectiveOffload is false).
func (e *Endpoint) OffloadBarrier() (conduit.Collective, error) {
	o, err := e.offloader("OffloadBarrier")
	if err != nil {
		return nil, err
	}
	return o.OffloadBarrier(e)
}

// OffloadAllreduce starts an allreduce on the network's collective engine
// (conduit.CollectiveOffload). It fails with conduit.ErrUnsupported when
// the backend has none, or does not reduce op on kind and width.
func (e *Endpoint) OffloadAllreduce(op conduit.ReduceOp, kind conduit.ReduceKind, width int, value uint64) (conduit.Collective, error) {
	o, err := e.offloader("OffloadAllreduce")
	if err != nil {
		return nil, err
	}
	return o.OffloadAllreduce(e, op, kind, width, value)
}

// OffloadAllreduceLoc starts a minimum or maximum with a location on the
// network's collective engine (conduit.LocOffload). It fails with
// conduit.ErrUnsupported when the engine has no such reduction.
func (e *Endpoint) OffloadAllreduceLoc(op conduit.ReduceOp, kind conduit.ReduceKind, width int, value, loc uint64) (conduit.LocCollective, error) {
	o, err := e.offloader("OffloadAllreduceLoc")
	if err != nil {
		return nil, err
	}
	lo, ok := o.(LocOffloader)
	if !ok {
		return nil, fmt.Errorf("%s: PE %d: OffloadAllreduceLoc: the collective engine has no reductions with a location: %w", e.Backend(), e.rank, conduit.ErrUnsupported)
	}
	return lo.OffloadAllreduceLoc(e, op, kind, width, value, loc)
}

// Wake makes the PE look again at what it waits for: a model calls it from
// an event when something the PE may be waiting for has happened that the
// Endpoint's own callbacks do not cover (an offloaded collective's result).
func (e *Endpoint) Wake() { e.wake() }
