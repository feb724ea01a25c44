package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

// app is the program with its outside world, so tests run it in-process.
type app struct {
	stdout, stderr io.Writer
	// lookupEnv reads the process environment.
	lookupEnv func(name string) (string, bool)
	// terminal: stderr is a terminal, so progress is shown there.
	terminal bool
	// interrupt, when not nil, derives a context cancelled on an interrupt
	// (the long sweeps stop between points).
	interrupt func(ctx context.Context) (context.Context, context.CancelFunc)

	progressMu  sync.Mutex
	progressLen int

	// What the records of a run say of the command (process.go): when it
	// started, the flags given with their values, and the run's place in
	// --count.
	start        time.Time
	flags        map[string]string
	index, count int
	// provenance, when not nil, is the provenance every record carries
	// instead of the build's, the machine's and the clock's: tests set it
	// to compare outputs byte for byte.
	provenance *report.Provenance
	// plotRuns are the runs of --count so far, for --plot.
	plotRuns []*report.Run
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // a run failed, or calibrate --check found a failing row
	exitUsage   = 2 // bad flags or values
	// exitInterrupted: an interrupt (SIGINT, Ctrl-C) stopped the command
	// after it printed what it had measured; 128 + SIGINT's number, as a
	// shell reports a process an interrupt ended.
	exitInterrupted = 130
)

// usageError is a bad flag or value: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failedError ends the program with status 1 after its message.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

// command is a subcommand.
type command struct {
	name string
	// summary is the one-line description of the command list.
	summary string
	// args is the synopsis after the name.
	args string
	// about is the paragraph of its --help.
	about string
	// flags defines the command's flags on fs, storing into o.
	flags func(o *options, fs *flag.FlagSet)
	// run runs the command.
	run func(a *app, ctx context.Context, o *options) error
}

func (a *app) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		a.generalUsage(a.stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if name != "help" {
			rest = nil
		}
		return a.help(rest)
	case "version", "--version", "-version":
		fmt.Fprintf(a.stdout, "pgasbench %s\n", version())
		return exitOK
	}
	cmd := lookup(name)
	if cmd == nil {
		return a.fail(usagef("unknown subcommand %q", name), "")
	}
	o := newOptions(cmd)
	fs := o.flagSet()
	var pf procFlags
	pf.define(fs, counted(cmd))
	if err := fs.Parse(getoptArgs(fs, rest)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.commandUsage(a.stdout, cmd, helpConduit(rest))
			return exitOK
		}
		return a.fail(usagef("%s", err), cmd.name)
	}
	if fs.NArg() > 0 {
		return a.fail(usagef("unexpected argument %q", fs.Arg(0)), cmd.name)
	}
	a.start = time.Now()
	a.flags = map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		o.given[f.Name] = true
		a.flags[f.Name] = f.Value.String()
	})
	o.rawArgs = rest
	if a.interrupt != nil {
		var cancel context.CancelFunc
		ctx, cancel = a.interrupt(ctx)
		defer cancel()
	}
	plots, err := pf.plotDefaults()
	if err != nil {
		return a.fail(err, cmd.name)
	}
	defer func(saved report.PlotSize) { report.PlotDefaults = saved }(report.PlotDefaults)
	// The memory ceiling --memory sets (applyMemoryBudget) ends with the
	// command.
	defer pgas.SetMemoryCeiling(0)
	report.PlotDefaults = plots
	stop, err := pf.start()
	if err == nil {
		if counted(cmd) {
			err = a.repeat(ctx, cmd, o, &pf)
		} else {
			err = cmd.run(a, ctx, o)
		}
		err = errors.Join(err, stop())
	}
	a.endProgress()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(a.stderr, "pgasbench %s: interrupted: the output holds what was measured before the interrupt (%s)\n", cmd.name, oneLine(err.Error()))
		return exitInterrupted
	}
	return a.fail(err, cmd.name)
}

// fail prints err as one line and returns its exit status.
func (a *app) fail(err error, cmd string) int {
	if err == nil {
		return exitOK
	}
	prefix := "pgasbench"
	if cmd != "" {
		prefix += " " + cmd
	}
	msg := err.Error()
	var pe *pgas.PanicError
	if errors.As(err, &pe) {
		// The stack follows the first line: a stack trace is for a
		// debugger, not for the user.
		msg, _, _ = strings.Cut(msg, "\n")
	}
	msg = oneLine(msg)
	var ue *usageError
	if errors.As(err, &ue) {
		if strings.Contains(msg, "(see '") {
			fmt.Fprintf(a.stderr, "%s: %s\n", prefix, msg)
			return exitUsage
		}
		hint := "pgasbench help"
		if cmd != "" {
			hint = "pgasbench " + cmd + " --help"
		}
		fmt.Fprintf(a.stderr, "%s: %s (see '%s')\n", prefix, msg, hint)
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "%s: %s\n", prefix, msg)
	return exitFailure
}

// oneLine joins the lines of a message (a wrapped error may carry a
// deadlock report or a stack) so that the error stays one line.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}

// progress shows a status line on stderr when it is a terminal.
func (a *app) progress(format string, args ...any) {
	if !a.terminal {
		return
	}
	a.progressMu.Lock()
	defer a.progressMu.Unlock()
	s := fmt.Sprintf(format, args...)
	pad := ""
	if n := a.progressLen - len(s); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(a.stderr, "\r%s%s", s, pad)
	a.progressLen = len(s)
}

// endProgress clears the status line.
func (a *app) endProgress() {
	if !a.terminal {
		return
	}
	a.progressMu.Lock()
	defer a.progressMu.Unlock()
	if a.progressLen > 0 {
		fmt.Fprintf(a.stderr, "\r%s\r", strings.Repeat(" ", a.progressLen))
		a.progressLen = 0
	}
}
