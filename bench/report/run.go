package report

import (
	"fmt"
	"strings"

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
	// Seed is the seed given (0: the default or PGAS_SEED).
	Seed uint64
	// Options are the backend options given (Config.Options).
	Options map[string]string
	// Settings are the PGAS_* settings given on the command line, by
	// variable name.
	Settings map[string]string
	// Args is the command line, without the program name.
	Args []string
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
func hasRate(r *bench.Result) bool { return r.Benchmark == "mbw_mr" || r.Benchmark == "put_mbw_mr" }

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
