package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/dustin/go-humanize"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/conduit"
)

// The OSU Micro-Benchmarks' layout (util/osu_util.h): the size column is
// 10 wide, left-justified; every value column FieldWidth wide,
// right-justified, with FloatPrecision decimals; the atomics benchmark's
// operation column is OpWidth wide.
const (
	SizeWidth      = 10
	FieldWidth     = 18
	FloatPrecision = 2
	OpWidth        = 20
)

// WriteOSU prints run as the OSU Micro-Benchmarks 7.x print theirs.
func WriteOSU(w io.Writer, run *Run) error {
	if err := run.check(); err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	for _, l := range HeaderLines(run) {
		fmt.Fprintf(b, "# %s\n", l)
	}
	r := run.Result
	switch kindOf(r.Benchmark) {
	case kindAtomics:
		fmt.Fprintf(b, "%-*s%*s%*s\n", OpWidth, "# Operation", FieldWidth, "Million ops/s", FieldWidth, "Latency (us)")
		for _, a := range run.Atomics {
			fmt.Fprintf(b, "%-*s%*.*f%*.*f\n", OpWidth, opName(a.Name), FieldWidth, FloatPrecision, a.Rate, FieldWidth, FloatPrecision, a.Latency)
		}
	case kindManyToOne:
		fmt.Fprintf(b, "%-*s%*s\n", SizeWidth, "# Vars", FieldWidth, r.Column)
		for _, p := range r.Points {
			fmt.Fprintf(b, "%-*d%*.*f\n", SizeWidth, run.Setup.Variables, FieldWidth, FloatPrecision, p.Value)
		}
	default:
		cols := Columns(run)
		fmt.Fprintf(b, "%-*s", SizeWidth, "# Size")
		for _, c := range cols {
			fmt.Fprintf(b, "%*s", FieldWidth, c.Name)
		}
		b.WriteByte('\n')
		for _, p := range r.Points {
			fmt.Fprintf(b, "%-*d", SizeWidth, p.Size)
			for _, c := range cols {
				fmt.Fprintf(b, "%*.*f", FieldWidth, FloatPrecision, c.Value(p))
			}
			b.WriteByte('\n')
		}
	}
	return b.Flush()
}

// Column is one value column of a size table.
type Column struct {
	// Name is the OSU column header ("Bandwidth (MB/s)").
	Name string
	// Key is the CSV and JSON name ("value", "rate", "p50").
	Key string
	// Value picks the column's figure from a point.
	Value func(p bench.Point) float64
}

// Columns are the value columns of a run's size table: the value, the
// message rate for mbw_mr, and the percentiles when asked for.
func Columns(run *Run) []Column {
	r := run.Result
	cols := []Column{{Name: r.Column, Key: "value", Value: func(p bench.Point) float64 { return p.Value }}}
	if hasRate(r) {
		cols = append(cols, Column{Name: "Messages/s", Key: "rate", Value: func(p bench.Point) float64 { return p.Rate }})
	}
	if run.Setup.Percentiles {
		tail := "Tail BW(" + r.Unit + ")"
		if r.Unit == "us" {
			tail = "Tail Lat(us)"
		}
		cols = append(cols,
			Column{Name: "P50 " + tail, Key: "p50", Value: func(p bench.Point) float64 { return p.P50 }},
			Column{Name: "P90 " + tail, Key: "p90", Value: func(p bench.Point) float64 { return p.P90 }},
			Column{Name: "P99 " + tail, Key: "p99", Value: func(p bench.Point) float64 { return p.P99 }})
	}
	return cols
}

// HeaderLines are the descriptive lines of an OSU header, without the
// leading "# ": the title with the version, then the backend, topology,
// ordering, mechanism, window, operation, iterations, time base and, on a
// simulated backend, the simulated span and events.
func HeaderLines(run *Run) []string {
	r := run.Result
	lines := []string{fmt.Sprintf("%s (%s v%s)", r.Title, Tool, Version)}
	if r.Simulated {
		lines = append(lines, fmt.Sprintf("Backend: %s (simulated network)", r.Conduit),
			fmt.Sprintf("Topology: %s on %s, %s per node", plural(run.pes(), "PE"), plural(r.Nodes, "node"), plural(r.PPN, "PE")))
	} else if r.Conduit == "mpi" {
		lines = append(lines, fmt.Sprintf("Backend: %s (real)", r.Conduit),
			fmt.Sprintf("PEs: %d (one per MPI process, placed by the launcher)", run.pes()))
	} else {
		lines = append(lines, fmt.Sprintf("Backend: %s (real)", r.Conduit),
			fmt.Sprintf("PEs: %d (one process, shared memory; nominally %s x %s per node)", run.pes(), plural(r.Nodes, "node"), plural(r.PPN, "PE")))
	}
	lines = append(lines, "Ordering: "+r.Ordering.String(), "Mechanism: "+mechanismText(r.Mechanism))
	if windowed(r.Benchmark) {
		lines = append(lines, fmt.Sprintf("Window: %d", r.Window))
	}
	if run.Op != "" {
		lines = append(lines, "Operation: "+run.Op)
	}
	lines = append(lines, "Iterations: "+iterationsText(r.Benchmark, run.Setup), "Time base: "+r.TimeBase())
	if r.Simulated {
		lines = append(lines, fmt.Sprintf("Simulated: %s of virtual time, %s events", SimTime(r.Report.End), humanize.Comma(int64(r.Report.Events))))
	}
	return lines
}

// plural prints a count of things ("1 PE", "24 PEs").
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// SimTime prints a span of simulated time with four significant digits in
// the largest unit that keeps it at least 1 ("46.11 ms").
func SimTime(t conduit.Time) string {
	for _, u := range []struct {
		unit conduit.Time
		name string
	}{{conduit.Second, "s"}, {conduit.Millisecond, "ms"}, {conduit.Microsecond, "us"}, {conduit.Nanosecond, "ns"}} {
		if t >= u.unit {
			return fmt.Sprintf("%.4g %s", float64(t)/float64(u.unit), u.name)
		}
	}
	return fmt.Sprintf("%d ps", int64(t))
}

func mechanismText(m bench.Mechanism) string {
	switch m {
	case bench.Auto:
		return "auto (FMA up to the runtime's cutover, block transfer above)"
	case bench.FMA:
		return "fma (every transfer by FMA)"
	case bench.BTE:
		return "bte (every transfer by block transfer)"
	}
	return m.String()
}

// iterationsText describes the iterations and warm-up of a benchmark:
// the setup's where it sets them, else the OSU defaults of package bench.
func iterationsText(benchmark string, s Setup) string {
	type pair struct{ small, large int }
	var it, sk pair
	switch kindOf(benchmark) {
	case kindLatency:
		it, sk = pair{10000, 1000}, pair{100, 10}
	case kindCollective:
		it, sk = pair{1000, 100}, pair{100, 10}
	case kindAtomics:
		// Latency of blocking operations, then rate of windows.
		lat, rate := 10000, 100
		if s.Iterations > 0 {
			lat, rate = s.Iterations, s.Iterations
		}
		wl, wr := 100, 10
		if s.Warmup > 0 {
			wl, wr = s.Warmup, s.Warmup
		}
		return fmt.Sprintf("%d blocking operations (warm-up %d), %d windows (warm-up %d)", lat, wl, rate, wr)
	default:
		it, sk = pair{100, 20}, pair{10, 2}
	}
	if s.Iterations > 0 {
		it = pair{s.Iterations, s.Iterations}
	}
	if s.Warmup > 0 {
		sk = pair{s.Warmup, s.Warmup}
	}
	above := humanize.IBytes(bench.LargeSize)
	text := func(p pair) string {
		if p.small == p.large || kindOf(benchmark) == kindManyToOne {
			return fmt.Sprint(p.small)
		}
		return fmt.Sprintf("%d (%d above %s)", p.small, p.large, above)
	}
	return text(it) + ", warm-up " + text(sk)
}
