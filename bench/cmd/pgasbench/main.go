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
