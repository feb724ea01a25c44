package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/units"
	"github.com/gopgas/gopgas/pgas"
)

// options are every flag's value; each command defines the flags it takes.
type options struct {
	cmd     *command
	given   map[string]bool // flags given on the command line
	rawArgs []string        // the command line after the subcommand

	// Common.
	conduit, ordering, mechanism, format, plot string
	nodes, ppn                                 int
	options, sets                              kvList
	seed                                       uint64

	// OSU.
	sizes                  string // -m
	iters, warmup, window  int    // -i, -x, -W
	percentiles            bool   // -z
	unregistered           bool
	op                     string
	filter                 string
	manyToOne              int
	sizeMin, sizeMax       int // default -m range
	parallel               int
	memory                 string
	orderings, mechanisms  string
	sweepMechs, ppnList    string
	sweepSizes, plotDir    string
	plotFormat             string
	sizeSweep, ppnSweep    bool
	putSweep, oneSided     bool
	twoSided               bool // ordering_bw --two-sided; ordering --twosided-sweep
	rows                   string
	jsonOut, check, timing bool
}

func newOptions(cmd *command) *options {
	return &options{cmd: cmd, given: map[string]bool{}}
}

func (o *options) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(o.cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	o.cmd.flags(o, fs)
	return fs
}

// kvList is a repeatable key=value flag.
type kvList struct {
	keys []string
	vals map[string]string
}

func (l *kvList) String() string {
	var parts []string
	for _, k := range l.keys {
		parts = append(parts, k+"="+l.vals[k])
	}
	return strings.Join(parts, ",")
}

func (l *kvList) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	if l.vals == nil {
		l.vals = map[string]string{}
	}
	if _, dup := l.vals[k]; !dup {
		l.keys = append(l.keys, k)
	}
	l.vals[k] = v
	return nil
}

func (l *kvList) Map() map[string]string { return maps.Clone(l.vals) }

// Flag groups.

func commonFlags(o *options, fs *flag.FlagSet, defaultConduit string) {
	conduitFlag(o, fs, defaultConduit)
	fs.IntVar(&o.nodes, "nodes", 0, "number of nodes (0: the benchmark's default)")
	fs.IntVar(&o.ppn, "ppn", 0, "PEs per node (0: the benchmark's default)")
	fs.StringVar(&o.ordering, "ordering", "", "network ordering mode: strict, default or relaxed (PGAS_ORDERING; default default)")
	settingFlags(o, fs)
	formatFlag(o, fs)
}

func conduitFlag(o *options, fs *flag.FlagSet, def string) {
	o.conduit = def
	usage := "the backend: " + backendList()
	if def == "smp" {
		usage += " (without the flag, PGAS_CONDUIT)"
	}
	fs.StringVar(&o.conduit, "conduit", def, usage)
}

func settingFlags(o *options, fs *flag.FlagSet) {
	fs.Var(&o.options, "option", "backend option `key=value` (repeatable; merged over PGAS_OPTIONS); see the list below")
	fs.Var(&o.sets, "set", "runtime setting `PGAS_NAME=value` (repeatable), as if in the environment; see the list below")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of a simulated backend's random choices (PGAS_SEED; default 1)")
}

func formatFlag(o *options, fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "osu", "output format: osu, csv, json or gobench")
}

func mechanismFlag(o *options, fs *flag.FlagSet) {
	fs.StringVar(&o.mechanism, "mechanism", "auto", "transfer mechanism: auto (by the runtime's cutover), fma or bte")
}

func plotFlag(o *options, fs *flag.FlagSet) {
	fs.StringVar(&o.plot, "plot", "", "also draw the results to `FILE` (.svg or .png)")
}

func sizeFlag(o *options, fs *flag.FlagSet, lo, hi int) {
	o.sizeMin, o.sizeMax = lo, hi
	fs.StringVar(&o.sizes, "m", "", fmt.Sprintf("message sizes `[MIN:]MAX`, doubling from MIN (default %d:%s); K, M, G (also Ki, KiB...) are binary, kB, MB, GB decimal", lo, report.SizeLabel(int64(hi))))
}

// iterFlags defines -i and -x; defaults describes their defaults.
func iterFlags(o *options, fs *flag.FlagSet, iterDefault, warmupDefault string) {
	fs.IntVar(&o.iters, "i", 0, "timed iterations for every size (default: "+iterDefault+")")
	fs.IntVar(&o.warmup, "x", 0, "warm-up iterations for every size, at least 1 (default: "+warmupDefault+")")
}

func windowFlag(o *options, fs *flag.FlagSet, def int) {
	fs.IntVar(&o.window, "W", def, "window: operations in flight per PE")
}

func percentileFlag(o *options, fs *flag.FlagSet) {
	fs.BoolVar(&o.percentiles, "z", false, "add P50, P90 and P99 columns (tail figures of the iterations; meaningful on the real backend)")
}

func unregisteredFlag(o *options, fs *flag.FlagSet) {
	fs.BoolVar(&o.unregistered, "unregistered", false, "local buffers outside the registered segment (bounce buffers and per-transfer registration)")
}

// backendList is the registered backends, and aries when it is not yet.
func backendList() string {
	bs := conduit.Backends()
	if !slices.Contains(bs, "aries") {
		return strings.Join(bs, ", ") + " (aries when its backend is registered)"
	}
	return strings.Join(bs, ", ")
}

// Parsing of values.

// parseSize parses a byte count in the one size syntax of every setting
// and option (internal/units: K, M, G binary).
func parseSize(s string) (int64, error) { return units.ParseBytes(s) }

// maxMessage bounds -m: larger messages need segments of gigabytes.
const maxMessage = 1 << 30

// sizeList is the sizes of -m.
func (o *options) sizeList() ([]int, error) {
	lo, hi := o.sizeMin, o.sizeMax
	if o.sizes != "" {
		a, b, ranged := strings.Cut(o.sizes, ":")
		h, err := parseSize(b)
		if !ranged {
			h, err = parseSize(a)
		}
		if err != nil {
			return nil, usagef("-m %s: %v", o.sizes, err)
		}
		hi = int(min(h, maxMessage+1))
		if ranged {
			l, err := parseSize(a)
			if err != nil {
				return nil, usagef("-m %s: %v", o.sizes, err)
			}
			lo = int(min(l, maxMessage+1))
		}
	}
	switch {
	case hi > maxMessage:
		return nil, usagef("-m %s: the largest message may be %s", o.sizes, report.SizeLabel(maxMessage))
	case lo > hi:
		return nil, usagef("-m %s: MIN %d is larger than MAX %d", o.sizes, lo, hi)
	}
	return bench.Sizes(lo, hi), nil
}

// parseOrdering parses an ordering mode.
func parseOrdering(s string) (pgas.Ordering, error) {
	o, err := conduit.ParseOrdering(strings.ToLower(strings.TrimSpace(s)))
	if err != nil {
		return 0, fmt.Errorf("ordering %q: want strict, default or relaxed", s)
	}
	return o, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// positive checks that each named flag given is at least 1.
func (o *options) positive(names ...string) error {
	vals := map[string]int{"i": o.iters, "x": o.warmup, "W": o.window, "nodes": o.nodes, "ppn": o.ppn, "parallel": o.parallel, "many-to-one": o.manyToOne}
	for _, n := range names {
		if !o.given[n] {
			continue
		}
		if v := vals[n]; v < 1 {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			return usagef("%s%s %d: must be at least 1", dash, n, v)
		}
	}
	return nil
}

// DefaultMemoryBudget is the default of --memory: the estimated memory
// (pgas.Plan) of the jobs a study or the calibration runs at once. With the
// Go collector's headroom it keeps the command below 2 GiB resident
// whatever the number of cores.
const DefaultMemoryBudget = "1GiB"

// memoryFlag is --memory, the memory budget of parallel runs.
func memoryFlag(o *options, fs *flag.FlagSet, what string) {
	fs.StringVar(&o.memory, "memory", DefaultMemoryBudget, "memory budget: the estimated memory of the "+what+" run at once (K, M, G binary); a larger one runs alone")
}

// applyMemoryBudget sets the process's memory budget from --memory.
func (o *options) applyMemoryBudget() error {
	n, err := parseSize(o.memory)
	if err != nil {
		return usagef("--memory %s: %v", o.memory, err)
	}
	if n < 16<<20 {
		return usagef("--memory %s: at least 16MiB", o.memory)
	}
	pgas.SetMemoryBudget(n)
	// The budget counts what the jobs hold; the Go collector lets garbage
	// grow as large again before it runs. A soft limit half the budget
	// above it makes the collector run sooner when the jobs are large
	// (unless GOMEMLIMIT chose a limit).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(n + n/2)
	}
	return nil
}

// formatOf is the --format value.
func (o *options) formatOf() (report.Format, error) {
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return 0, usagef("--format: %v", err)
	}
	return f, nil
}
