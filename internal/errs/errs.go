package errs

import "errors"

var (
	// BadPE: a rank outside the job or team.
	//lint:ignore ST1012 the package name says what they are: errs.BadPE; pgas re-exports them as ErrBadPE.
	BadPE = errors.New("PE out of range")
	// Range: an address outside the segment or in its reserved area, or a
	// bad length.
	//lint:ignore ST1012 the package name says what they are: errs.Range; pgas re-exports them as ErrRange.
	Range = errors.New("out of range")
	// NotAllocated: memory no live symmetric allocation holds (freed, or
	// never allocated).
	//lint:ignore ST1012 the package name says what they are: errs.NotAllocated; pgas re-exports them as ErrNotAllocated.
	NotAllocated = errors.New("not allocated")
	// Argument: any other bad argument.
	//lint:ignore ST1012 the package name says what they are: errs.Argument; pgas re-exports them as ErrArgument.
	Argument = errors.New("bad argument")
	// Ended: a PE used after its program returned.
	//lint:ignore ST1012 the package name says what they are: errs.Ended; pgas re-exports them as ErrEnded.
	Ended = errors.New("the job has ended")
	// InHandler: a blocking call from inside an active-message handler.
	//lint:ignore ST1012 the package name says what they are: errs.InHandler; pgas re-exports them as ErrInHandler.
	InHandler = errors.New("blocking call from inside an active-message handler")
)

// Detail is an error message that matches a sentinel without repeating
// its text.
type Detail struct {
	Msg      string
	Sentinel error
}

func (d *Detail) Error() string { return d.Msg }

// Unwrap returns the sentinel.
func (d *Detail) Unwrap() error { return d.Sentinel }
