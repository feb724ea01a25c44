package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/pgas"
)

func version() string { return report.Version }

// backendOptions are the options of each backend that documents them.
var backendOptions = map[string]map[string]string{
	"aries":  aries.OptionNames,
	"gemini": gemini.OptionNames,
}

const helpWidth = 78

func (a *app) generalUsage(w io.Writer) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	fmt.Fprintf(b, "pgasbench %s: gopgas's benchmarks, the ordering study and the calibration report.\n\n", version())
	fmt.Fprintf(b, "Usage:\n  pgasbench SUBCOMMAND [flags]\n  pgasbench SUBCOMMAND --help\n  pgasbench help [SUBCOMMAND | settings]\n\nSubcommands:\n")
	for _, c := range commands {
		fmt.Fprintf(b, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(b, "  %-12s %s\n", "help", "this text; help SUBCOMMAND: its flags; help settings: every PGAS_* setting and backend option")
	fmt.Fprint(b, `
Common flags of the benchmarks: --conduit (smp, gemini, aries), --nodes, --ppn,
--ordering, --mechanism, --format (osu, csv, json, gobench), --plot FILE,
--option key=value, --set PGAS_NAME=value, --seed, and OMB's flags
-m/--message-size [MIN:]MAX, -i/--iterations, -x/--warmup, -W/--window-size,
-z/--tail-lat[=LIST], -f/--full, -c/--validation[=log:DIR], -v/--version, and
where the OMB test takes them -b/--buffer-num, -u/--validation-warmup,
-T/--type, -w/--win-options, -s/--sync-option, -l/--in-place, -M/--mem-limit,
-t/--num-test-calls, -G/--graph, -D/--ddt, and mbw_mr's -p/--num-pairs,
-R/--print-rate, -V/--vary-window. Not applicable, refused with the
reason: -d/--accelerator, -a/--array-size, -P/--papi, -I/--session.

Output is the OSU Micro-Benchmarks 7.4's text by default; a simulated backend
reports simulated time, the smp backend wall-clock time, and the lines after
the rows say which.
Exit status: 0 on success, 1 when a run fails, 2 for bad flags or values,
130 when an interrupt (Ctrl-C) stopped it after printing what was measured.
See docs/pgasbench.md.
`)
}

func (a *app) help(args []string) int {
	switch {
	case len(args) == 0:
		a.generalUsage(a.stdout)
		return exitOK
	case len(args) > 1:
		return a.fail(usagef("help takes one topic, not %d", len(args)), "")
	case args[0] == "settings" || args[0] == "options":
		b := bufio.NewWriter(a.stdout)
		writeSettings(b, true)
		b.Flush()
		return exitOK
	}
	cmd := lookup(args[0])
	if cmd == nil {
		return a.fail(usagef("help: unknown subcommand %q", args[0]), "")
	}
	a.commandUsage(a.stdout, cmd, "")
	return exitOK
}

// commandUsage is a command's --help; backend, when not empty, asks for
// that backend's options.
func (a *app) commandUsage(w io.Writer, cmd *command, backend string) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	fmt.Fprintf(b, "Usage: pgasbench %s %s\n\n", cmd.name, cmd.args)
	for _, l := range wrap(cmd.about, helpWidth) {
		fmt.Fprintln(b, l)
	}
	fmt.Fprintf(b, "\nFlags:\n")
	o := newOptions(cmd)
	fs := o.flagSet()
	new(procFlags).define(fs, counted(cmd))
	hasSet := false
	// OSU's long names ("same as -x") go on their short flag's line.
	long := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if short, ok := strings.CutPrefix(f.Usage, "same as -"); ok && len(short) == 1 && fs.Lookup(short) != nil {
			long[short] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "set" {
			hasSet = true
		}
		if short, ok := strings.CutPrefix(f.Usage, "same as -"); ok && long[short] == f.Name {
			return
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		valName, usage := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if valName != "" {
			line += " " + valName
		}
		if l := long[f.Name]; l != "" {
			line += ", --" + l
		}
		fmt.Fprintln(b, line)
		if def := f.DefValue; def != "" && def != "0" && def != "false" && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		for _, l := range wrap(usage, helpWidth-8) {
			fmt.Fprintf(b, "        %s\n", l)
		}
	})
	if hasSet {
		fmt.Fprintln(b)
		writeBackendHelp(b, cmd.name, backend)
	}
}

// writeSettings lists the backend options and the PGAS_* settings; full
// adds each setting's allowed values.
func writeSettings(b *bufio.Writer, full bool) {
	for _, backend := range slices.Sorted(maps.Keys(backendOptions)) {
		opts := backendOptions[backend]
		fmt.Fprintf(b, "Backend options of %s (--option key=value, or PGAS_OPTIONS=key=value,...\nwhere an item without = continues the previous value: exclude=3,7-9):\n", backend)
		for _, k := range slices.Sorted(maps.Keys(opts)) {
			writeItem(b, k, opts[k])
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b, "Runtime settings (--set NAME=value, or the environment variable; --set wins):")
	for _, s := range pgas.Settings() {
		text := fmt.Sprintf("%s (default %s)", s.Doc, s.Default)
		if full {
			text += "; allowed: " + s.Allowed
		}
		writeItem(b, s.Env, text)
	}
	fmt.Fprintln(b, "A benchmark's topology comes from --nodes and --ppn, not PGAS_PES or PGAS_PES_PER_NODE;")
	fmt.Fprintln(b, "--mechanism fma or bte overrides PGAS_FMA_RDMA_CUTOVER.")
}

func writeItem(b *bufio.Writer, name, text string) {
	const indent = 24
	lines := wrap(text, helpWidth-indent)
	if len(name) > indent-4 {
		fmt.Fprintf(b, "  %s\n", name)
		for _, l := range lines {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", indent), l)
		}
		return
	}
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintf(b, "  %-*s%s\n", indent-2, name, l)
		} else {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", indent), l)
		}
	}
}
