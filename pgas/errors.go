package pgas

import (
	"errors"
	"fmt"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/errs"
	"github.com/gopgas/gopgas/internal/transport"
)

// Error is the error of a runtime call: it names the PE, the operation and
// what was wrong. Err wraps one of the sentinel errors below where one
// applies.
type Error struct {
	PE  int
	Op  string
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("pgas: PE %d: %s: %v", e.PE, e.Op, e.Err) }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinel errors, matched with errors.Is.
var (
	// ErrBadPE: a rank outside the job or team.
	ErrBadPE = errs.BadPE
	// ErrRange: an address outside the segment or in its reserved area
	// (below ReservedBytes), outside the allocation a GPtr was taken from,
	// or a bad length.
	ErrRange = errs.Range
	// ErrNotAllocated: a use of memory no live symmetric allocation holds:
	// an Array, Lock or GPtr (from Array.At) whose allocation was freed, or
	// a raw offset outside every live allocation (freed or never
	// allocated).
	ErrNotAllocated = errs.NotAllocated
	// ErrMisaligned: an atomic on a word not aligned to its size.
	ErrMisaligned = errors.New("misaligned")
	// ErrNoMemory: the symmetric heap cannot satisfy an allocation.
	ErrNoMemory = errors.New("out of symmetric memory")
	// ErrHandle: a handle that is invalid or already completed.
	ErrHandle = errors.New("invalid handle")
	// ErrEnded: a PE used after its job ended.
	ErrEnded = errs.Ended
	// ErrInHandler: a call an active-message handler may not make.
	ErrInHandler = transport.ErrInHandler
	// ErrArgument: any other bad argument.
	ErrArgument = errs.Argument
	// ErrMismatch: PEs disagreed in a collective call.
	ErrMismatch = errors.New("collective mismatch")
	// ErrJobAborted is wrapped by the errors of PEs stopped because another
	// PE failed.
	ErrJobAborted = conduit.ErrJobAborted
	// ErrAMRule: an active-message handler broke a rule.
	ErrAMRule = am.ErrRule
)

// PanicError is returned by Run when a PE's program panicked.
type PanicError struct {
	PE    int
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("pgas: PE %d panicked: %v\n%s", e.PE, e.Value, e.Stack)
}

func (pe *PE) errf(op string, sentinel error, format string, args ...any) error {
	return &Error{PE: pe.rank, Op: op, Err: &errs.Detail{Msg: fmt.Sprintf(format, args...), Sentinel: sentinel}}
}

// wrap names the PE and operation of an error from a lower layer.
func (pe *PE) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e.PE == pe.rank {
		return err
	}
	return &Error{PE: pe.rank, Op: op, Err: err}
}
