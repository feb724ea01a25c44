// Command pgasbench runs gopgas's benchmarks: the OSU-style
// microbenchmarks of package bench on any backend (the shared-memory one
// in wall-clock time, the simulated Cray networks in simulated time), the
// ordering study of gemini-message-ordering-paper.txt section III, and the
// calibration report of the simulated networks against CALIBRATION.md.
//
// Usage:
//
//	pgasbench SUBCOMMAND [flags]
//	pgasbench help [SUBCOMMAND | settings]
//
// docs/pgasbench.md documents every subcommand, flag and output format.
// Exit status: 0 on success, 1 when a run fails (or, with calibrate
// --check, when a row fails), 2 for bad flags or values.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/gopgas/gopgas/pgas"
)

func main() {
	a := &app{
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		lookupEnv: os.LookupEnv,
		terminal:  isTerminal(os.Stderr),
		interrupt: func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			// The first interrupt stops the sweep between points; a second
			// one ends the program at once.
			go func() { <-ctx.Done(); stop() }()
			return ctx, stop
		},
	}
	code := a.run(context.Background(), os.Args[1:])
	if err := pgas.Finalize(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "pgasbench:", err)
		code = 1
	}
	os.Exit(code)
}

// isTerminal says whether f is a character device (a terminal), without a
// dependency: progress goes to stderr only then.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
