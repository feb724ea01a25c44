package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
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
	tail                   tailList
	full, validate         bool // -f, -c
	showVersion            bool // -v
	title                  string
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
	twoSided               bool   // ordering_bw --two-sided; ordering --twosided-sweep
	twoSidedPPNs           string // ordering --twosided-ppn-list
	twoSidedSizes, noRndv  string // ordering --twosided-sizes, --no-rendezvous-sizes
	rows                   string
	jsonOut, check, timing bool
	htmlOut, studyJSON     string // calibrate --html, --study
	valLog                 string // -c log:DIR
	omb                    ombExtra
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
	fs.Uint64Var(&o.seed, "seed", 0, "seed of a simulated backend's random choices and of the order of its simultaneous events (PGAS_SEED; default 1)")
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
	fs.StringVar(&o.sizes, "m", "", fmt.Sprintf("message sizes `[MIN:]MAX`, doubling from MIN: MAX, MIN:MAX, MIN: or :MAX as OSU's (default %d:%s); K, M, G (also Ki, KiB...) are binary", lo, report.SizeLabel(int64(hi))))
	fs.StringVar(&o.sizes, "message-size", "", "same as -m")
}

// iterFlags defines -i and -x; defaults describes their defaults.
func iterFlags(o *options, fs *flag.FlagSet, iterDefault, warmupDefault string) {
	fs.IntVar(&o.iters, "i", 0, "timed iterations for every size (default: "+iterDefault+")")
	fs.IntVar(&o.warmup, "x", 0, "warm-up iterations for every size, at least 1 (default: "+warmupDefault+")")
}

func windowFlag(o *options, fs *flag.FlagSet, def int) {
	fs.IntVar(&o.window, "W", def, "window: operations in flight per PE")
	fs.IntVar(&o.window, "window-size", def, "same as -W")
}

func percentileFlag(o *options, fs *flag.FlagSet) {
	o.tail.on = &o.percentiles
	usage := "tail latencies (bandwidths): a column per percentile of the per-iteration figures, -z for OSU's P50, P90 and P99, -z`LIST` (-z50,95 or --tail-lat=50,95) for others, each 0 to 100; the clock is then read around every iteration (meaningful on the real backend)"
	fs.Var(&o.tail, "z", usage)
	fs.Var(&o.tail, "tail-lat", "same as -z")
}

// tailList is -z: a flag without a value (OSU's list) or with a list of
// percentiles attached (-z50,95, --tail-lat=50,95), as OSU's optional
// argument.
type tailList struct {
	on   *bool
	list []int
}

func (t *tailList) String() string {
	if t == nil || t.on == nil || !*t.on {
		return ""
	}
	var parts []string
	for _, q := range t.list {
		parts = append(parts, fmt.Sprint(q))
	}
	return strings.Join(parts, ",")
}

func (t *tailList) IsBoolFlag() bool { return true }

func (t *tailList) Set(v string) error {
	switch v {
	case "true":
		*t.on, t.list = true, nil
		return nil
	case "false":
		*t.on, t.list = false, nil
		return nil
	}
	var list []int
	for _, item := range strings.Split(v, ",") {
		q, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || q < 0 || q > 100 {
			return fmt.Errorf("percentile %q: want an integer from 0 to 100", item)
		}
		list = append(list, q)
	}
	*t.on, t.list = true, list
	return nil
}

// osuFlags defines OSU's own flags that apply to a benchmark, each by its
// short and long name: -i/--iterations, -x/--warmup, and when asked
// -f/--full and -c/--validation; -v/--version always.
func osuFlags(o *options, fs *flag.FlagSet, full, validate bool) {
	fs.IntVar(&o.iters, "i", 0, "timed iterations for every size (default: OSU's, by size)")
	fs.IntVar(&o.iters, "iterations", 0, "same as -i")
	fs.IntVar(&o.warmup, "x", 0, "warm-up iterations for every size, 0 for none (default: OSU's, by size)")
	fs.IntVar(&o.warmup, "warmup", 0, "same as -x")
	if full {
		fs.BoolVar(&o.full, "f", false, "also the minimum and maximum over PEs of their average latency, and the iterations (OSU's full format)")
		fs.BoolVar(&o.full, "full", false, "same as -f")
	}
	if validate {
		validationLogFlag(o, fs)
	}
	fs.BoolVar(&o.showVersion, "v", false, "print the test's OSU title line with the OSU version and exit")
	fs.BoolVar(&o.showVersion, "version", false, "same as -v")
}

// osuAliases are the long names of OSU's flags by their short name.
var osuAliases = [][2]string{{"i", "iterations"}, {"x", "warmup"}, {"W", "window-size"}, {"m", "message-size"},
	{"z", "tail-lat"}, {"f", "full"}, {"c", "validation"}, {"v", "version"}}

// mergeAliases marks a short flag given when its long name was.
func (o *options) mergeAliases() {
	for _, a := range append(osuAliases, ombAliases...) {
		if o.given[a[1]] {
			o.given[a[0]] = true
		}
	}
}

// getoptArgs rewrites the arguments OSU's getopt takes and Go's flag
// package does not: a short flag with its value attached ("-m1:16",
// "-x0", "-z50,95") becomes "-m=1:16", and bundled short flags ("-fz",
// "-fcz50") become separate ones, the first that takes a value taking
// the rest. An argument naming a flag itself ("-nodes"), one with "=",
// or one with a letter that is no flag is left as it is (the flag
// package then reports it), and so is everything after "--".
func getoptArgs(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' || strings.Contains(a, "=") || fs.Lookup(a[1:]) != nil {
			out = append(out, a)
			continue
		}
		out = append(out, splitShort(fs, a)...)
	}
	return out
}

// splitShort splits "-abc" getopt's way, or returns it whole when a
// letter names no flag.
func splitShort(fs *flag.FlagSet, a string) []string {
	var parts []string
	for j := 1; j < len(a); j++ {
		c := a[j : j+1]
		f := fs.Lookup(c)
		if f == nil {
			return []string{a}
		}
		if _, v := f.Value.(*validationFlag); v && !strings.HasPrefix(a[j+1:], "log") {
			// -c takes an attached value only when it is log[:DIR].
			parts = append(parts, "-"+c)
			continue
		}
		if plainBool(f) {
			parts = append(parts, "-"+c)
			continue
		}
		if j+1 < len(a) {
			return append(parts, "-"+c+"="+a[j+1:])
		}
		return append(parts, "-"+c)
	}
	return parts
}

// plainBool says whether f takes no value (-z takes an optional one).
func plainBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	_, tail := f.Value.(*tailList)
	_, val := f.Value.(*validationFlag)
	return ok && b.IsBoolFlag() && !tail && !val
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

// sizeList is the sizes of -m, with OSU's forms: MAX, MIN:MAX, MIN: (the
// default largest) and :MAX. As OSU's, a MIN of 0 in MIN:MAX keeps the
// default smallest size, and MIN: needs a MIN of at least 1.
func (o *options) sizeList() ([]int, error) {
	lo, hi := o.sizeMin, o.sizeMax
	if o.sizes != "" {
		a, b, ranged := strings.Cut(o.sizes, ":")
		parse := func(v string) (int, error) {
			n, err := parseSize(v)
			if err != nil {
				return 0, usagef("-m %s: %v", o.sizes, err)
			}
			return int(min(n, maxMessage+1)), nil
		}
		switch {
		case !ranged:
			h, err := parse(a)
			if err != nil {
				return nil, err
			}
			hi = h
		case strings.Contains(b, ":") || (a == "" && b == ""):
			return nil, usagef("-m %s: want MAX, MIN:MAX, MIN: or :MAX", o.sizes)
		default:
			if b != "" {
				h, err := parse(b)
				if err != nil {
					return nil, err
				}
				hi = h
			}
			if a != "" {
				l, err := parse(a)
				if err != nil {
					return nil, err
				}
				switch {
				case l == 0 && b == "":
					return nil, usagef("-m %s: MIN must be at least 1", o.sizes)
				case l > 0:
					lo = l
				}
			}
		}
	}
	switch {
	case hi == 0 && lo > 0:
		// OSU's -m 0 (or 0:0): the preamble and the column header, no rows.
		return nil, nil
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
	// grow as large again before it runs. A ceiling half the budget above
	// it makes the collector run sooner when the jobs are large, counting
	// the segment pages the jobs touch, which Go's own limit does not see
	// (unless GOMEMLIMIT chose a limit).
	if os.Getenv("GOMEMLIMIT") == "" {
		pgas.SetMemoryCeiling(n + n/2)
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
