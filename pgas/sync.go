package pgas

import "fmt"

// Quiet completes every outstanding operation of the PE (implicit-handle
// ones, those of live handles, and the runtime's own) and makes its puts
// globally visible. It returns the first error of an implicit-handle
// operation.
func (pe *PE) Quiet() error {
	if err := pe.blocking("Quiet"); err != nil {
		return err
	}
	return pe.quiet("Quiet")
}

// Fence orders the PE's puts issued before it before those issued after it,
// to every target. It is implemented as Quiet, which is stronger.
func (pe *PE) Fence() error {
	if err := pe.blocking("Fence"); err != nil {
		return err
	}
	return pe.quiet("Fence")
}

func (pe *PE) quiet(name string) error {
	if pe.eng.Idle() && pe.nbiPut.Err() == nil && pe.nbiGet.Err() == nil && pe.signalOp.Err() == nil && pe.fault == nil {
		return nil
	}
	if err := pe.eng.Quiesce(); err != nil {
		return pe.wrap(name, err)
	}
	if err := pe.eng.Flush(); err != nil {
		return pe.wrap(name, err)
	}
	if _, err := pe.pollFaults(); err != nil {
		return pe.wrap(name, err)
	}
	err := pe.nbiPut.Err()
	if err == nil {
		err = pe.nbiGet.Err()
	}
	pe.nbiPut.Reset()
	pe.nbiGet.Reset()
	return pe.wrap(name, err)
}

// pollFaults is a poller (it runs in every wait and poll of the PE) that
// fails the wait once a transfer of the runtime's own has failed: a
// barrier signal that timed out (a lost route) never reaches its partner,
// which would wait for it for ever, and this PE's later barriers would wait
// for partners that wait for it. The failure is for good, like the active
// message layer's (package am, whose poller reports lost messages: the
// collectives' data and credit returns): from then on every blocking call
// of the PE fails with it, naming the transfer, the peer and the cause,
// instead of the job ending as a deadlock.
func (pe *PE) pollFaults() (int, error) {
	if pe.fault == nil {
		err := pe.signalOp.Err()
		if err == nil {
			return 0, nil
		}
		pe.fault = fmt.Errorf("a barrier signal failed: %w", err)
	}
	return 0, pe.fault
}
