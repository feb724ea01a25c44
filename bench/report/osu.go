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

// OMBVersion is the version of the OSU Micro-Benchmarks whose output
// pgasbench reproduces; it ends the title line as OSU's version does.
const OMBVersion = "7.4"

// The layouts of OSU's preambles.
type layout uint8

const (
	// layoutPt2pt: a blank line, the title, the datatype (osu_latency,
	// osu_bw, osu_bibw, osu_multi_lat).
	layoutPt2pt layout = iota
	// layoutMulti: the title, "[ pairs: N ] [ window size: W ]", the
	// datatype (osu_mbw_mr).
	layoutMulti
	// layoutOneSided: the title, the window creation, the
	// synchronization, the datatype (osu_put_latency, osu_fop_latency...).
	layoutOneSided
	// layoutCollective: a blank line, the title, the datatype (none for
	// the barrier).
	layoutCollective
)

func layoutOf(benchmark string) layout {
	switch benchmark {
	case "mbw_mr", "put_mbw_mr", "ordering_bw":
		return layoutMulti
	case "put_latency", "get_latency", "put_bw", "get_bw", "put_bibw", "fop_latency", "cas_latency", "acc_latency",
		"atomics", "atomics_many_to_one":
		return layoutOneSided
	case "barrier", "bcast", "allreduce", "alltoall":
		return layoutCollective
	}
	return layoutPt2pt
}

// Preamble is OSU's lines before the column header, each with its "# "
// (the blank line of the two-sided and collective tests is ""): the
// title with OSU's version, then what the test says of its set-up.
func Preamble(run *Run) []string {
	r := run.Result
	title := fmt.Sprintf("# %s v%s", r.Title, OMBVersion)
	// OSU's names of the element moved: bytes (MPI_CHAR, OSU's default),
	// the atomics' 64-bit word, the allreduce's float64 sums.
	datatype := "# Datatype: MPI_CHAR."
	switch r.Benchmark {
	case "fop_latency", "cas_latency", "acc_latency", "atomics", "atomics_many_to_one":
		datatype = "# Datatype: MPI_INT64_T."
	case "allreduce":
		datatype = "# Datatype: MPI_DOUBLE."
	}
	if r.Datatype != "" {
		// OSU's -T: OSU's name of the element type.
		datatype = "# Datatype: " + r.Datatype + "."
	}
	switch layoutOf(r.Benchmark) {
	case layoutMulti:
		pairs := max(run.pes()/2, 1)
		if r.Pairs > 0 {
			pairs = r.Pairs
		}
		if len(r.Windows) > 0 {
			// osu_mbw_mr -V: the matrix's title before the datatype.
			return []string{title, fmt.Sprintf("# [ pairs: %d ] [ window size: varied ]", pairs), "",
				"# Uni-directional Bandwidth (MB/sec)", datatype}
		}
		return []string{title, fmt.Sprintf("# [ pairs: %d ] [ window size: %d ]", pairs, r.Window), datatype}
	case layoutOneSided:
		// OSU's names of the -w and -s choices, when the test made them.
		win, sync := "symmetric segment (pgas.PE.Alloc)", syncText(r.Benchmark)
		if r.WinCreation != "" {
			win = r.WinCreation
		}
		if r.Sync != "" {
			sync = r.Sync
		}
		return []string{title, "# Window creation: " + win, "# Synchronization: " + sync, datatype}
	case layoutCollective:
		if r.Benchmark == "barrier" {
			return []string{"", title}
		}
		return []string{"", title, datatype}
	}
	return []string{"", title, datatype}
}

// syncText is how a one-sided test completes its operations.
func syncText(benchmark string) string {
	switch benchmark {
	case "put_latency", "get_latency", "fop_latency", "cas_latency", "acc_latency":
		return "blocking operation (complete at return)"
	case "atomics", "atomics_many_to_one":
		return "blocking operations; windows of non-blocking ones, WaitAll"
	}
	return "windows of non-blocking operations, WaitAll"
}

// WriteOSU prints run as the OSU Micro-Benchmarks 7.4 print theirs: OSU's
// preamble, column header and rows, so that a script written for OSU's
// output reads it. What OSU's output does not say (backend, topology,
// ordering, mechanism, iterations, time base) follows the rows as "# "
// lines.
func WriteOSU(w io.Writer, run *Run) error {
	if err := run.check(); err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	for _, l := range Preamble(run) {
		fmt.Fprintln(b, l)
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
		if len(r.Windows) > 0 {
			writeMatrix(b, r)
			break
		}
		writeTable(b, run)
		for _, m := range run.More {
			fmt.Fprintf(b, "# Datatype: %s.\n", m.Datatype)
			writeTable(b, &Run{Result: m, Setup: run.Setup})
		}
	}
	for _, l := range HeaderLines(run) {
		fmt.Fprintf(b, "# %s\n", l)
	}
	return b.Flush()
}

// writeTable prints a size table: the column header and the rows.
func writeTable(b *bufio.Writer, run *Run) {
	r := run.Result
	{
		cols := Columns(run)
		sized := r.Benchmark != "barrier"
		for i, c := range cols {
			switch {
			case i == 0 && sized:
				fmt.Fprintf(b, "%-*s%*s", SizeWidth, "# Size", c.Width, c.Name)
			case i == 0:
				// OSU's barrier: no size column; "# " then the header.
				fmt.Fprintf(b, "# %s", c.Name)
			default:
				fmt.Fprintf(b, "%*s", c.Width, c.Name)
			}
		}
		b.WriteByte('\n')
		for _, p := range r.Points {
			for i, c := range cols {
				switch {
				case i == 0 && sized:
					fmt.Fprintf(b, "%-*d%*s", SizeWidth, p.Size, c.Width, c.Text(p))
				case i == 0:
					fmt.Fprintf(b, "%*s", BarrierWidth, c.Text(p))
				default:
					fmt.Fprintf(b, "%*s", c.Width, c.Text(p))
				}
			}
			b.WriteByte('\n')
		}
	}
}

// The widths of osu_mbw_mr -V's matrix: the size column, left-justified,
// then a column per window, right-justified after two spaces.
const (
	matrixSizeWidth = 7
	matrixWidth     = 10
)

// writeMatrix prints osu_mbw_mr -V's matrices: the bandwidth of every
// size (a row) with every window (a column), then, unless -R 0, a blank
// line and the message rates in the same layout.
func writeMatrix(b *bufio.Writer, r *bench.Result) {
	matrix := func(v func(p bench.Point) []float64) {
		fmt.Fprintf(b, "%-*s", matrixSizeWidth, "#")
		for _, w := range r.Windows {
			fmt.Fprintf(b, "  %*d", matrixWidth, w)
		}
		b.WriteByte('\n')
		for _, p := range r.Points {
			fmt.Fprintf(b, "%-*d", matrixSizeWidth, p.Size)
			for _, x := range v(p) {
				fmt.Fprintf(b, "  %*.*f", matrixWidth, FloatPrecision, x)
			}
			b.WriteByte('\n')
		}
	}
	matrix(func(p bench.Point) []float64 { return p.ByWindow })
	if !r.NoRate {
		fmt.Fprint(b, "\n# Message Rate Profile\n")
		matrix(func(p bench.Point) []float64 { return p.RateByWindow })
	}
}

// BarrierWidth is the width of OSU's barrier value, which has no size
// column: the header "# Avg Latency(us)" is 17 characters.
const BarrierWidth = 17

// IterationsWidth is the width of OSU's -f Iterations column.
const IterationsWidth = 12

// Column is one value column of a size table.
type Column struct {
	// Name is the OSU column header ("Bandwidth (MB/s)").
	Name string
	// Key is the CSV and JSON name ("value", "rate", "p50").
	Key string
	// Width is the column's width (FieldWidth but for OSU's Iterations).
	Width int
	// Value picks the column's figure from a point (0 for Validation).
	Value func(p bench.Point) float64
	// Text prints the column's cell.
	Text func(p bench.Point) string
}

// number is a column of a figure with OSU's two decimals.
func number(name, key string, v func(p bench.Point) float64) Column {
	return Column{Name: name, Key: key, Width: FieldWidth, Value: v,
		Text: func(p bench.Point) string { return fmt.Sprintf("%.*f", FloatPrecision, v(p)) }}
}

// Columns are the value columns of a run's size table, in OSU's order:
// the value; the message rate for the multi-pair tests; with -f (the
// collectives) the minimum and maximum over PEs and the iterations; with
// -c the validation's Pass or Fail; with -z one column per percentile;
// with -D the Transmit Size.
func Columns(run *Run) (cols []Column) {
	r := run.Result
	cols = []Column{number(r.Column, "value", func(p bench.Point) float64 { return p.Value })}
	if hasRate(r) {
		cols = append(cols, number("Messages/s", "rate", func(p bench.Point) float64 { return p.Rate }))
	}
	if r.Full {
		cols = append(cols,
			number("Min Latency(us)", "min", func(p bench.Point) float64 { return p.Min }),
			number("Max Latency(us)", "max", func(p bench.Point) float64 { return p.Max }),
			Column{Name: "Iterations", Key: "iterations", Width: IterationsWidth,
				Value: func(p bench.Point) float64 { return float64(p.Iterations) },
				Text:  func(p bench.Point) string { return fmt.Sprint(p.Iterations) }})
	}
	if r.Validated {
		cols = append(cols, Column{Name: "Validation", Key: "validation", Width: FieldWidth,
			Value: func(p bench.Point) float64 { return float64(p.Errors) },
			Text: func(p bench.Point) string {
				if p.Errors == 0 {
					return "Pass"
				}
				return "Fail"
			}})
	}
	defer func() {
		if r.DDT {
			// OSU's -D: the bytes a message carried, last.
			cols = append(cols, Column{Name: "Transmit Size", Key: "transmit", Width: FieldWidth,
				Value: func(p bench.Point) float64 { return float64(p.Transmit) },
				Text:  func(p bench.Point) string { return fmt.Sprint(p.Transmit) }})
		}
	}()
	tail := "Tail BW(" + r.Unit + ")"
	if r.Unit == "us" {
		tail = "Tail Lat(us)"
	}
	tails := r.Tail
	if len(tails) == 0 && run.Setup.Percentiles {
		tails = bench.DefaultTail
	}
	for i, q := range tails {
		cols = append(cols, number(fmt.Sprintf("P%d %s", q, tail), fmt.Sprintf("p%d", q), func(p bench.Point) float64 {
			if i < len(p.Tails) {
				return p.Tails[i]
			}
			switch q {
			case 50:
				return p.P50
			case 90:
				return p.P90
			case 99:
				return p.P99
			}
			return 0
		}))
	}
	return cols
}

// HeaderLines are the descriptive lines OSU's output does not have,
// without the leading "# ": the program and its version, the backend,
// topology, ordering, mechanism, window, operation, iterations, time base
// and, on a simulated backend, the simulated span and events. WriteOSU
// prints them after the rows.
func HeaderLines(run *Run) []string {
	r := run.Result
	lines := []string{fmt.Sprintf("%s v%s, %s (OSU Micro-Benchmarks %s output)", Tool, Version, r.Benchmark, OMBVersion)}
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
	switch {
	case len(r.Windows) > 0:
		lines = append(lines, fmt.Sprintf("Window: varied (%v, a job each)", r.Windows))
	case windowed(r.Benchmark):
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
		switch {
		case s.Warmup > 0:
			wl, wr = s.Warmup, s.Warmup
		case s.Warmup == bench.NoWarmup:
			wl, wr = 0, 0
		}
		return fmt.Sprintf("%d blocking operations (warm-up %d), %d windows (warm-up %d)", lat, wl, rate, wr)
	default:
		it, sk = pair{100, 20}, pair{10, 2}
	}
	if s.Iterations > 0 {
		it = pair{s.Iterations, s.Iterations}
	}
	switch {
	case s.Warmup > 0:
		sk = pair{s.Warmup, s.Warmup}
	case s.Warmup == bench.NoWarmup:
		sk = pair{0, 0}
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
