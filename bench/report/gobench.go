package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
)

// WriteGoBench prints run in the text format of `go test -bench`, which
// benchstat (golang.org/x/perf/cmd/benchstat) reads: first configuration
// lines "key: value" (conduit, time base, topology, ordering, mechanism,
// window, op, and every --option and --set given), then one benchmark line
// per size:
//
//	BenchmarkPutBW/gemini/size=4096 1 2345.60 ns/op 1746.58 MB/s
//
// The name is "Benchmark", the benchmark in CamelCase, the backend and the
// size; the iteration count is 1 (each line is one measurement). Latency
// benchmarks report ns/op; bandwidth ones ns/op (the time per message,
// from the message rate) and MB/s (10^6 bytes per second); mbw_mr adds
// msgs/s; the percentiles, when asked for, add p50-ns/op... or
// p50-MB/s... The atomics benchmark prints one line per operation
// (".../op=fadd_int64 1 <latency> ns/op <rate> Mops/s").
//
// Runs that differ only in configuration keep the same benchmark names,
// so benchstat compares them: `benchstat -col ordering strict.txt
// relaxed.txt`.
func WriteGoBench(w io.Writer, run *Run) error {
	if err := run.check(); err != nil {
		return err
	}
	r := run.Result
	b := bufio.NewWriter(w)
	for _, kv := range GoBenchConfig(run) {
		fmt.Fprintf(b, "%s: %s\n", kv[0], kv[1])
	}
	base := "Benchmark" + camel(r.Benchmark) + "/" + nameSafe(r.Conduit)
	switch kindOf(r.Benchmark) {
	case kindAtomics:
		for _, a := range run.Atomics {
			fmt.Fprintf(b, "%s/op=%s 1 %s ns/op %s Mops/s\n", base, nameSafe(opName(a.Name)), num(a.Latency*1e3), num(a.Rate))
		}
	case kindManyToOne:
		for _, p := range r.Points {
			fmt.Fprintf(b, "%s/vars=%d 1 %s ns/op %s Mops/s\n", base, run.Setup.Variables, num(perOp(p.Rate)), num(p.Value))
		}
	default:
		for _, p := range r.Points {
			name := fmt.Sprintf("%s/size=%d", base, p.Size)
			if r.Benchmark == "barrier" {
				name = base
			}
			fmt.Fprintf(b, "%s 1", name)
			if r.Unit == "us" {
				fmt.Fprintf(b, " %s ns/op", num(p.Value*1e3))
				if run.Setup.Percentiles {
					fmt.Fprintf(b, " %s p50-ns/op %s p90-ns/op %s p99-ns/op", num(p.P50*1e3), num(p.P90*1e3), num(p.P99*1e3))
				}
			} else {
				ns := perOp(p.Rate)
				if p.Rate <= 0 && p.Value > 0 {
					ns = float64(p.Size) / (p.Value * 1e6) * 1e9
				}
				fmt.Fprintf(b, " %s ns/op %s %s", num(ns), num(p.Value), unitSafe(r.Unit))
				if hasRate(r) {
					fmt.Fprintf(b, " %s msgs/s", num(p.Rate))
				}
				if run.Setup.Percentiles {
					u := unitSafe(r.Unit)
					fmt.Fprintf(b, " %s p50-%s %s p90-%s %s p99-%s", num(p.P50), u, num(p.P90), u, num(p.P99), u)
				}
			}
			b.WriteByte('\n')
		}
	}
	return b.Flush()
}

// GoBenchConfig are the configuration lines of a gobench run, as key and
// value: keys are lower case without spaces, as benchfmt requires.
func GoBenchConfig(run *Run) [][2]string {
	r := run.Result
	cfg := [][2]string{
		{"pgasbench", Version},
		{"conduit", r.Conduit},
		{"timebase", strings.Fields(r.TimeBase())[0]},
		{"pes", itoa(run.pes())},
		{"nodes", itoa(r.Nodes)},
		{"ppn", itoa(r.PPN)},
		{"ordering", r.Ordering.String()},
		{"mechanism", r.Mechanism.String()},
	}
	if windowed(r.Benchmark) {
		cfg = append(cfg, [2]string{"window", itoa(r.Window)})
	}
	if run.Op != "" {
		cfg = append(cfg, [2]string{"op", run.Op})
	}
	for _, k := range slices.Sorted(maps.Keys(run.Setup.Options)) {
		cfg = append(cfg, [2]string{"option-" + keySafe(k), oneWord(run.Setup.Options[k])})
	}
	for _, k := range slices.Sorted(maps.Keys(run.Setup.Settings)) {
		cfg = append(cfg, [2]string{keySafe(k), oneWord(run.Setup.Settings[k])})
	}
	return cfg
}

// perOp is nanoseconds per operation at rate operations per second.
func perOp(rate float64) float64 {
	if rate <= 0 {
		return 0
	}
	return 1e9 / rate
}

// num prints a gobench value: two decimals as OSU, more significant
// digits for small values.
func num(v float64) string {
	v = Finite(v)
	if v != 0 && math.Abs(v) < 0.01 {
		return fmt.Sprintf("%.4g", v)
	}
	return fmt.Sprintf("%.2f", v)
}

var notKey = regexp.MustCompile(`[^a-z0-9_.\-]+`)

// keySafe makes a configuration key: lower case, no spaces or colons.
func keySafe(k string) string { return notKey.ReplaceAllString(strings.ToLower(k), "_") }

// oneWord makes a configuration value one line.
func oneWord(v string) string { return strings.Join(strings.Fields(v), " ") }

// nameSafe makes a part of a benchmark name: no spaces or slashes.
func nameSafe(s string) string {
	return strings.Map(func(c rune) rune {
		if c == ' ' || c == '/' || c == '\t' {
			return '_'
		}
		return c
	}, s)
}

// unitSafe makes a unit one word.
func unitSafe(u string) string {
	if u == "" {
		return "value"
	}
	return strings.ReplaceAll(u, " ", "_")
}
