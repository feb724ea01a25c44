package pgas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/mpi"
	// The backends register themselves by name.
	_ "github.com/gopgas/gopgas/aries"
	_ "github.com/gopgas/gopgas/conduit/smp"
	_ "github.com/gopgas/gopgas/gemini"
)

// Run starts a job of cfg.PEs processing elements, calls program on each
// (SPMD), and returns when every one has returned. The first error a PE
// returns, or a panic inside one (recovered, reported with its rank and
// stack), ends the job: the other PEs' blocking calls fail with
// ErrJobAborted, and Run returns that first error. A PE that returns early
// keeps serving active messages until all have returned.
func Run(cfg Config, program func(pe *PE) error) error {
	return run("Run", cfg, program, nil)
}

// RunContext is Run with a context: when ctx ends before the job does,
// each PE's next wait in the runtime (a blocking call, a Wait, a barrier)
// fails with an error wrapping context.Cause(ctx), the job ends as when a
// PE fails, and RunContext returns an error for which errors.Is(err,
// ctx.Err()) holds. A PE that computes without calling the runtime learns
// of the end at its next call. What the program stored before then (the
// points of a sweep already measured) is left as it was. On the mpi
// backend only the process whose context ended stops; the others end as
// after a failed PE.
func RunContext(ctx context.Context, cfg Config, program func(pe *PE) error) error {
	if ctx == nil {
		return errors.New("pgas: RunContext: nil context")
	}
	if ctx.Err() != nil {
		return fmt.Errorf("pgas: RunContext: not started: %w", context.Cause(ctx))
	}
	done := ctx.Done()
	if done == nil {
		return run("RunContext", cfg, program, nil) // a context that never ends
	}
	// A receive from the done channel that cannot block reads the
	// channel's state without a lock: PEs check it on every call.
	err := run("RunContext", cfg, program, func() error {
		select {
		case <-done:
			return fmt.Errorf("the job's context ended: %w", context.Cause(ctx))
		default:
			return nil
		}
	})
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (the job's context ended: %w)", err, ctx.Err())
	}
	return err
}

// run runs the job; stopped, when not nil, is polled in every wait and
// ends the job with its error.
func run(name string, cfg Config, program func(pe *PE) error, stopped func() error) error {
	if program == nil {
		return fmt.Errorf("pgas: %s: nil program", name)
	}
	c, err := cfg.resolve()
	if err != nil {
		return err
	}
	plan, err := cfg.Plan()
	if err != nil {
		return err
	}
	if !plan.Fits() {
		return plan.Refusal()
	}
	defer admit(plan.TotalBytes)()
	job, err := conduit.Open(c.Conduit, c.jobConfig())
	if err != nil {
		return fmt.Errorf("pgas: starting the %s backend: %w", c.Conduit, err)
	}
	err = job.Run(func(ep conduit.Endpoint) (err error) {
		var pe *PE
		defer func() {
			if r := recover(); r != nil {
				err = &PanicError{PE: ep.Rank(), Value: r, Stack: debug.Stack()}
			}
			if pe != nil {
				pe.ended = true
				pe.heap.close()
				pe.am.Close()
			}
		}()
		if pe, err = newPE(ep, c); err != nil {
			return err
		}
		if stopped != nil {
			pe.stopped = stopped
			pe.eng.AddPoller(func() (int, error) { return 0, stopped() })
		}
		if err := program(pe); err != nil {
			return pe.wrap("program", err)
		}
		return pe.finish()
	})
	if cfg.Report != nil {
		*cfg.Report = conduit.Report{Backend: c.Conduit}
		if r, ok := job.(conduit.Reporter); ok {
			*cfg.Report = r.Report()
		}
	}
	return err
}

// jobConfig is what the backend is given of a resolved configuration.
func (c Config) jobConfig() conduit.JobConfig {
	return conduit.JobConfig{
		PEs:                    c.PEs,
		PEsPerNode:             c.PEsPerNode,
		SegmentBytes:           c.SegmentBytes,
		Ordering:               c.Ordering,
		MailboxSlots:           4 * c.NetworkDepth,
		PeerBurst:              c.SmsgPeerBurst,
		Seed:                   c.Seed,
		RequireRegisteredLocal: c.RequireRegistration == On,
		NoDirectAccess:         c.Direct == Off,
		StallTimeout:           c.StallTimeout,
		SimTimeLimit:           conduit.FromDuration(max(c.SimTimeLimit, 0)),
		WallTimeLimit:          max(c.WallTimeLimit, 0),
		Options:                c.Options,
	}
}

// finish completes the PE's communication and serves active messages
// until every PE's program has returned and every message a program or
// handler sent has been handled, so that nothing is lost when Run returns.
func (pe *PE) finish() error {
	if err := pe.quiet("exit"); err != nil {
		return err
	}
	pe.ep.Done()
	if err := pe.eng.WaitFunc("the other PEs to finish", pe.ep.AllDone); err != nil {
		return pe.wrap("exit", err)
	}
	// Only handlers can send now. Drain what has arrived, then compare the
	// job's totals of sent and handled messages; repeat until they agree.
	for {
		for {
			n, err := pe.eng.Poll()
			if err != nil {
				return pe.wrap("exit", err)
			}
			if n == 0 {
				break
			}
		}
		if err := pe.quiet("exit"); err != nil {
			return err
		}
		sent, handled := pe.am.Traffic()
		v := []int64{sent, handled}
		if err := Allreduce(pe.world, Sum, v, v); err != nil {
			return pe.wrap("exit", err)
		}
		if v[0] == v[1] {
			return nil
		}
	}
}

// Main runs the job and ends the process: on error it prints one line (the
// error) to standard error, prefixed by the program name, and exits with
// status 1. It is the usual body of a PGAS program's main function. It
// calls Finalize before it returns or exits.
func Main(cfg Config, program func(pe *PE) error) {
	err := Run(cfg, program)
	if ferr := Finalize(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// Finalize ends the process's use of a backend that lives as long as the
// process: on the mpi backend it calls MPI_Finalize, which every process
// of an MPI launch must do before it exits. No job can start after it.
// Main calls it; a program that calls Run itself calls Finalize once its
// last job has returned. It does nothing when no such backend was used.
func Finalize() error { return mpi.Finalize() }
