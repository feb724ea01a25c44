package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// WriteGoBench prints run in the text format of `go test -bench`, which
// benchstat (golang.org/x/perf/cmd/benchstat) reads: first configuration
// lines "key: value" (conduit, time base, topology, ordering, mechanism,
// window, op, the seed, goos, goarch and cpu, every --option, every
// PGAS_* setting given by --set or the environment, and every other flag
// given, as flag-NAME), then comment lines "# key: value" with what
// differs from run to run and must not split benchstat's tables (the
// module's version and revision, the Go version, the host, the start
// time), then one benchmark line per size:
//
//	BenchmarkPutBW/gemini/size=4096 1 2345.60 ns/op 1746.58 MB/s
//
// The name is "Benchmark", the benchmark in CamelCase, the backend and the
// size; the iteration count is 1 (each line is one measurement). Latency
// benchmarks report ns/op; bandwidth ones ns/op (the time per message,
// from the message rate) and MB/s (10^6 bytes per second); mbw_mr adds
// msgs/s; the percentiles, when asked for, add p50-ns/op... or
// p50-MB/s... The atomics benchmark prints one line per operation
// (".../op=fadd_int64 1 <latency> ns/op <rate> Mops/s"). A figure that is
// NaN or infinite is left out of its line, and a line left with none is
// left out.
//
// With --count N the configuration comes once, before the first run's
// lines, and its seed is the range of seeds the runs used ("seed: 1-10"
// on a simulated backend): benchstat then sees N samples of each
// benchmark. Runs that differ only in configuration keep the same
// benchmark names, so benchstat compares them: `benchstat -col ordering
// strict.txt relaxed.txt`.
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
			if r.Unit == "us" {
				ms = append(ms, p.Value*1e3, "ns/op")
				if run.Setup.Percentiles {
					ms = append(ms, p.P50*1e3, "p50-ns/op", p.P90*1e3, "p90-ns/op", p.P99*1e3, "p99-ns/op")
				}
			} else {
				ns := perOp(p.Rate)
				if p.Rate <= 0 && p.Value > 0 {
					ns = float64(p.Size) / (p.Value * 1e6) * 1e9
				}
				u := unitSafe(r.Unit)
				ms = append(ms, ns, "ns/op", p.Value, u)
				if hasRate(r) {
					ms = append(ms, p.Rate, "msgs/s")
				}
				if run.Setup.Percentiles {
					ms = append(ms, p.P50, "p50-"+u, p.P90, "p90-"+u, p.P99, "p99-"+u)
				}
			}
			line(name, ms...)
		}
	}
	return b.Flush()
}

// GoBenchConfig are the configuration lines of a gobench run, as key and
// value: keys are lower case without spaces, as benchfmt requires.
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
	if p := s.Provenance; p != nil {
		cfg = append(cfg, [2]string{"goos", p.GOOS}, [2]string{"goarch", p.GOARCH})
		if p.CPU != "" {
			cfg = append(cfg, [2]string{"cpu", oneWord(p.CPU)})
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

// goBenchComments are the provenance lines benchstat ignores.
func goBenchComments(p *Provenance) [][2]string {
	if p == nil {
		return nil
	}
	out := [][2]string{{"module", p.Module + " " + p.ModuleVersion}, {"go", p.GoVersion}}
	if p.VCSRevision != "" {
		rev := p.VCSRevision + " " + p.VCSTime
		if p.VCSModified {
			rev += " modified"
		}
		out = append(out, [2]string{"vcs_revision", rev})
	}
	return append(out, [2]string{"host", p.Host}, [2]string{"start_time", p.Start})
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
