package report

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/gopgas/gopgas/bench"
)

// Version is the version of the pgasbench output, printed in OSU title
// lines and JSON records.
const Version = "0.1"

// Tool names the program in OSU title lines and JSON records.
const Tool = "gopgas pgasbench"

// Run is one benchmark run and what was asked of it: the input of every
// format.
type Run struct {
	// Result is what the benchmark measured. For the atomics benchmark it
	// says what ran (backend, topology) and Atomics holds the rows.
	Result *bench.Result
	// Atomics are the rows of the atomics benchmark (bench.Atomics); nil
	// for the others.
	Atomics []bench.AtomicRow
	// Op is the operation of ordering_bw ("get" or "put"); empty for the
	// others.
	Op string
	// Setup is what was asked.
	Setup Setup
	// More are the further results of OSU's -T all (one per element type
	// after the first): WriteOSU prints each as its own "# Datatype:"
	// line, column header and rows after Result's.
	More []*bench.Result
}

// Setup is what a run asked for, as the command line gave it. Zero fields
// mean the benchmark's defaults.
type Setup struct {
	// Sizes are the message sizes asked for, in bytes.
	Sizes []int
	// Iterations and Warmup override the OSU defaults when positive.
	Iterations, Warmup int
	// Percentiles: P50, P90 and P99 were asked for (OSU's -z).
	Percentiles bool
	// Unregistered: local buffers outside the registered segment.
	Unregistered bool
	// Filter is the atomics benchmark's operation filter.
	Filter string
	// Variables is the many-to-one atomics benchmark's number of words.
	Variables int
	// Seed is the seed the run used: --seed, PGAS_SEED or the default.
	Seed uint64
	// Options are the backend options given (Config.Options).
	Options map[string]string
	// Settings are the PGAS_* settings given on the command line, by
	// variable name.
	Settings map[string]string
	// Environment are the PGAS_* variables of the environment the run
	// saw, by name (a --set of the same name overrides them).
	Environment map[string]string
	// Flags are the flags given on the command line, by name without
	// dashes, with their values.
	Flags map[string]string
	// Args is the command line, without the program name.
	Args []string
	// Index and Count: the run is run Index (from 0) of Count runs of
	// the same benchmark (--count); Count 0 means 1. Seed is then the
	// seed of this run; on a simulated backend run i used the first
	// run's seed plus i.
	Index, Count int
	// Provenance says what program ran where and when; nil leaves it
	// out.
	Provenance *Provenance
}

// Provenance is what program ran, on what and when: the fields every
// record carries so that a figure can be traced to its build and machine.
type Provenance struct {
	// Module is the main module's path and ModuleVersion its version
	// ("(devel)" for a build from a work tree).
	Module        string `json:"module"`
	ModuleVersion string `json:"module_version"`
	// VCSRevision is the commit the program was built from, VCSTime its
	// time, and VCSModified says the work tree had changes; empty and
	// false when the build did not record them.
	VCSRevision string `json:"vcs_revision"`
	VCSTime     string `json:"vcs_time"`
	VCSModified bool   `json:"vcs_modified"`
	// GoVersion is the toolchain that built the program, GOOS and GOARCH
	// its target.
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	// CPU is the processor's model name, as the processor reports it
	// (CPUID), or "" when it cannot say.
	CPU string `json:"cpu"`
	// Host is the machine's host name.
	Host string `json:"host"`
	// Start is when the run started, RFC 3339 in UTC.
	Start string `json:"start_time"`
}

// Invocation is what a command line and its environment asked beyond the
// output's own fields: every setting that differs from its default. The
// JSON records embed it (the benchmark record's setup, the study's setup,
// the calibration report), so that they name these fields alike.
type Invocation struct {
	// Settings are the PGAS_* settings given on the command line (--set,
	// and --seed as PGAS_SEED), by variable name.
	Settings map[string]string `json:"settings"`
	// Environment are the PGAS_* variables of the environment the run
	// saw, by name (a --set of the same name overrides them).
	Environment map[string]string `json:"environment"`
	// Flags are the flags given on the command line, by name without
	// dashes, with their values.
	Flags map[string]string `json:"flags"`
	// Args is the command line, without the program name.
	Args []string `json:"args"`
}

// Invocation is what the setup says of the command line, with empty maps
// and lists for none (never null in JSON).
func (s *Setup) Invocation() Invocation {
	return Invocation{Settings: s.Settings, Environment: s.Environment, Flags: s.Flags, Args: s.Args}.Filled()
}

// Filled is inv with empty maps and lists for nil ones (never null in
// JSON).
func (inv Invocation) Filled() Invocation {
	return Invocation{Settings: mapOrEmpty(inv.Settings), Environment: mapOrEmpty(inv.Environment),
		Flags: mapOrEmpty(inv.Flags), Args: nonNil(inv.Args)}
}

// NewProvenance reads the build, the machine and the clock: start is the
// run's start.
func NewProvenance(start time.Time) *Provenance {
	p := &Provenance{GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPU: strings.TrimSpace(cpuid.CPU.BrandName), Start: start.UTC().Format(time.RFC3339)}
	if bi, ok := debug.ReadBuildInfo(); ok {
		p.Module, p.ModuleVersion = bi.Main.Path, bi.Main.Version
		if bi.GoVersion != "" {
			p.GoVersion = bi.GoVersion
		}
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				p.VCSRevision = kv.Value
			case "vcs.time":
				p.VCSTime = kv.Value
			case "vcs.modified":
				p.VCSModified = kv.Value == "true"
			}
		}
	}
	if h, err := os.Hostname(); err == nil {
		p.Host = h
	}
	return p
}

// Benchmark kinds, for the defaults the header describes.
type kind uint8

const (
	kindBandwidth kind = iota
	kindLatency
	kindCollective
	kindAtomics
	kindManyToOne
)

func kindOf(benchmark string) kind {
	switch benchmark {
	case "latency", "am_latency", "multi_lat", "put_latency", "get_latency", "fop_latency", "cas_latency", "acc_latency":
		return kindLatency
	case "barrier", "bcast", "allreduce", "alltoall":
		return kindCollective
	case "atomics":
		return kindAtomics
	case "atomics_many_to_one":
		return kindManyToOne
	}
	return kindBandwidth
}

// windowed says whether a benchmark keeps a window of operations in flight.
func windowed(benchmark string) bool {
	switch kindOf(benchmark) {
	case kindBandwidth, kindAtomics, kindManyToOne:
		return true
	}
	return false
}

// check reports a Run the formats cannot print.
func (run *Run) check() error {
	if run == nil || run.Result == nil {
		return fmt.Errorf("report: no result to print")
	}
	return nil
}

// pes is the number of PEs of the run.
func (run *Run) pes() int { return run.Result.Nodes * run.Result.PPN }

// hasRate says whether the points carry a message rate worth a column.
func hasRate(r *bench.Result) bool {
	return !r.NoRate && (r.Benchmark == "mbw_mr" || r.Benchmark == "put_mbw_mr")
}

// camel turns a benchmark name into the Go identifier of its gobench line
// ("put_bw" -> "PutBW").
func camel(name string) string {
	known := map[string]string{
		"latency": "Latency", "am_latency": "AMLatency", "multi_lat": "MultiLat", "put_latency": "PutLatency", "get_latency": "GetLatency",
		"put_bw": "PutBW", "get_bw": "GetBW", "bibw": "BiBW", "put_bibw": "PutBiBW", "am_bw": "AMBW", "mbw_mr": "MBWMR", "put_mbw_mr": "PutMBWMR",
		"fop_latency": "FopLatency", "cas_latency": "CasLatency", "acc_latency": "AccLatency",
		"ordering_bw": "OrderingBW", "atomics": "Atomics", "atomics_many_to_one": "AtomicsManyToOne",
		"barrier": "Barrier", "bcast": "Bcast", "allreduce": "Allreduce", "alltoall": "Alltoall",
	}
	if c, ok := known[name]; ok {
		return c
	}
	var b strings.Builder
	up := true
	for _, c := range name {
		switch {
		case c == '_' || c == '-' || c == ' ' || c == '/':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(c)))
			up = false
		default:
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "Run"
	}
	return b.String()
}

// opName is an atomic row's name as one word ("fadd int64" ->
// "fadd_int64"), so that whitespace-splitting parsers read the row.
func opName(name string) string { return strings.Join(strings.Fields(name), "_") }
