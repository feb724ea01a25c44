package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/bench"
)

// WriteGoBench prints run in the text format of `go test -bench`, which
// benchstat (golang.org/x/perf/cmd/benchstat) reads; docs/schema/gobench.md
// states its grammar. First come configuration lines "key: value"
// (GoBenchConfig: what ran, the seed, the settings that differ from their
// defaults and the build), then comment lines "# key: value" with what
// differs from run to run of the same build and must not split
// benchstat's tables (the host, the start time), then one benchmark line
// per size:
//
//	BenchmarkPutBW/gemini/size=4096 1 2345.60 ns/op 1746.58 MB/s
//
// The name is "Benchmark", the benchmark in CamelCase, the backend and the
// size; the iteration count is 1 (each line is one measurement). Latency
// benchmarks report ns/op; bandwidth ones ns/op (the time per message,
// from the message rate) and MB/s (10^6 bytes per second); mbw_mr adds
// msgs/s; -f adds min-ns/op and max-ns/op (the minimum and maximum over
// PEs); the percentiles, when asked for, add p50-ns/op... or p50-MB/s...,
// one per percentile of -z's list. The atomics benchmark prints one line
// per operation (".../op=fadd_int64 1 <latency> ns/op <rate> Mops/s"). A
// figure that is NaN or infinite is left out of its line, and a line left
// with none is left out.
//
// With --count N the configuration comes once, before the first run's
// lines, and its seed is the range of seeds the runs used ("seed: 1-10"
// on a simulated backend): benchstat then sees N samples of each
// benchmark. Runs that differ only in configuration keep the same
// benchmark names, so benchstat compares them: `benchstat -col ordering
// strict.txt relaxed.txt`; runs of two builds differ in vcs_revision:
// `benchstat -col vcs_revision old.txt new.txt`.
func WriteGoBench(w io.Writer, run *Run) error {
	if err := run.check(); err != nil {
		return err
	}
	r := run.Result
	b := bufio.NewWriter(w)
	if run.Setup.Index == 0 {
		for _, kv := range GoBenchConfig(run) {
			fmt.Fprintf(b, "%s: %s\n", kv[0], kv[1])
		}
		for _, kv := range goBenchComments(run.Setup.Provenance) {
			fmt.Fprintf(b, "# %s: %s\n", kv[0], kv[1])
		}
	}
	base := "Benchmark" + camel(r.Benchmark) + "/" + nameSafe(r.Conduit)
	line := func(name string, metrics ...any) {
		var m strings.Builder
		for i := 0; i+1 < len(metrics); i += 2 {
			v := metrics[i].(float64)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			fmt.Fprintf(&m, " %s %s", num(v), metrics[i+1].(string))
		}
		if m.Len() > 0 {
			fmt.Fprintf(b, "%s 1%s\n", name, m.String())
		}
	}
	switch kindOf(r.Benchmark) {
	case kindAtomics:
		for _, a := range run.Atomics {
			line(fmt.Sprintf("%s/op=%s", base, nameSafe(opName(a.Name))), a.Latency*1e3, "ns/op", a.Rate, "Mops/s")
		}
	case kindManyToOne:
		for _, p := range r.Points {
			line(fmt.Sprintf("%s/vars=%d", base, run.Setup.Variables), perOp(p.Rate), "ns/op", p.Value, "Mops/s")
		}
	default:
		for _, p := range r.Points {
			name := fmt.Sprintf("%s/size=%d", base, p.Size)
			if r.Benchmark == "barrier" {
				name = base
			}
			var ms []any
			// scale and unit turn a figure of the size table into a
			// metric: latencies in ns/op, other figures in their unit.
			scale, unit := 1.0, unitSafe(r.Unit)
			if r.Unit == "us" {
				ms = append(ms, p.Value*1e3, "ns/op")
				scale, unit = 1e3, "ns/op"
			} else {
				ns := perOp(p.Rate)
				if p.Rate <= 0 && p.Value > 0 {
					ns = float64(p.Size) / (p.Value * 1e6) * 1e9
				}
				ms = append(ms, ns, "ns/op", p.Value, unit)
				if hasRate(r) {
					ms = append(ms, p.Rate, "msgs/s")
				}
			}
			for _, c := range Columns(run) {
				switch {
				case c.Key == "min" || c.Key == "max":
					ms = append(ms, c.Value(p)*1e3, c.Key+"-ns/op")
				case tailColumn.MatchString(c.Key):
					ms = append(ms, c.Value(p)*scale, c.Key+"-"+unit)
				}
			}
			line(name, ms...)
		}
	}
	return b.Flush()
}

// tailColumn matches the key of a percentile's column ("p95").
var tailColumn = regexp.MustCompile(`^p[0-9]`)

// GoBenchConfig are the configuration lines of a gobench run, as key and
// value: keys are lower case without spaces, as benchfmt requires. They
// are what ran (pgasbench's version, conduit, time base, topology,
// ordering, mechanism, window, op), the seed, benchfmt's standard pkg,
// goos, goarch and cpu, the build (module, module_version, vcs_revision,
// vcs_time, vcs_modified, go_version: the same for every run of one
// program, so they group runs by build), every --option (option-NAME),
// every PGAS_* setting given by --set or the environment (pgas_NAME),
// and every other flag given that changes what is measured
// (flag-NAME).
func GoBenchConfig(run *Run) [][2]string {
	r := run.Result
	s := &run.Setup
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
	seed := strconv.FormatUint(s.Seed, 10)
	if s.Count > 1 && r.Simulated {
		seed += "-" + strconv.FormatUint(s.Seed+uint64(s.Count-1), 10)
	}
	cfg = append(cfg, [2]string{"seed", seed})
	cfg = append(cfg, [2]string{"pkg", reflect.TypeFor[bench.Result]().PkgPath()})
	if p := s.Provenance; p != nil {
		cfg = append(cfg, [2]string{"goos", p.GOOS}, [2]string{"goarch", p.GOARCH})
		if p.CPU != "" {
			cfg = append(cfg, [2]string{"cpu", oneWord(p.CPU)})
		}
		for _, kv := range [][2]string{{"module", p.Module}, {"module_version", p.ModuleVersion}, {"vcs_revision", p.VCSRevision},
			{"vcs_time", p.VCSTime}, {"go_version", p.GoVersion}} {
			if v := oneWord(kv[1]); v != "" {
				cfg = append(cfg, [2]string{kv[0], v})
			}
		}
		if p.VCSRevision != "" {
			cfg = append(cfg, [2]string{"vcs_modified", strconv.FormatBool(p.VCSModified)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Options)) {
		cfg = append(cfg, [2]string{"option-" + keySafe(k), oneWord(s.Options[k])})
	}
	settings := maps.Clone(s.Environment)
	if settings == nil {
		settings = map[string]string{}
	}
	maps.Copy(settings, s.Settings)
	delete(settings, "PGAS_SEED") // the seed line
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		cfg = append(cfg, [2]string{keySafe(k), oneWord(settings[k])})
	}
	for _, k := range slices.Sorted(maps.Keys(s.Flags)) {
		if !keyedFlags[k] {
			cfg = append(cfg, [2]string{"flag-" + keySafe(k), oneWord(s.Flags[k])})
		}
	}
	return cfg
}

// keyedFlags are the flags a configuration line of their own already
// says (conduit, ordering, ...) or that do not change what is measured
// (the output's format and files, --count).
var keyedFlags = map[string]bool{
	"conduit": true, "nodes": true, "ppn": true, "ordering": true, "mechanism": true, "W": true, "op": true,
	"seed": true, "option": true, "set": true, "format": true, "plot": true, "count": true,
	"cpuprofile": true, "memprofile": true, "exectrace": true, "plot-size": true, "plot-dpi": true,
}

// goBenchComments are the provenance lines benchstat ignores: the host
// and the start time, which differ from run to run of one build, so that
// as configuration they would put every file in a table of its own.
func goBenchComments(p *Provenance) [][2]string {
	if p == nil {
		return nil
	}
	return [][2]string{{"host", oneWord(p.Host)}, {"start_time", p.Start}}
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
