// Package report prints benchmark results of package bench in the formats
// of the pgasbench command and draws their plots.
//
// Four formats (see Format) print one Run, a benchmark's Result together
// with what was asked of it (its Setup):
//
//   - OSU: the text of the OSU Micro-Benchmarks 7.x, so that scripts
//     that parse OSU output read it: "# " header lines (a title line, then
//     descriptive lines: backend, topology, ordering, mechanism, window,
//     iterations, time base), the column header line "# Size" and the
//     value column names, then rows formatted "%-10d%18.2f" (size
//     left-justified in 10 columns, each value right-justified in 18 with
//     2 decimals). MB/s means 10^6 bytes per second; latency is in
//     microseconds.
//   - CSV: one header row, then one row per size (or atomic operation),
//     with the OSU table's further columns (-f, -c, -z), each ending with
//     the run's record (seed, settings, provenance); docs/schema/csv.json
//     is the schema of a row.
//   - JSON: one Record object, whose schema docs/pgasbench.md documents
//     field by field and docs/schema/run.json states.
//   - GoBench: the text format of `go test -bench`, which benchstat reads:
//     configuration lines ("conduit: gemini", the build's provenance),
//     the host and start time as comment lines, then one line per size
//     (docs/schema/gobench.md is the grammar), as
//     "BenchmarkPutBW/gemini/size=4096 1 2345 ns/op 1746.58 MB/s".
//
// Every record carries the seed the run used, every setting that differs
// from its default (Setup's Flags, Options, Settings and Environment; the
// Invocation the study's and calibration report's records embed too) and
// the Provenance (NewProvenance: module version, VCS revision, Go
// version, GOOS/GOARCH, CPU, host, start time). A figure that is NaN or
// infinite is null in JSON, an empty cell in CSV and left out of its
// gobench line. Setup's Index and Count place a run in a series of
// repetitions (pgasbench --count): CSV and gobench print their headers
// once, before the first.
//
// Figure draws line plots (one Series per curve) and bar charts, grouped
// or not, with gonum.org/v1/plot, as SVG or PNG by the file's extension,
// PlotDefaults' size unless the figure has its own, with the legend
// beside the axes, a log2 size axis for size sweeps and a y = 1 line on
// ratio figures; ResultFigure and AtomicsFigure build the figures of one
// run, RunsFigure the figure of the N runs of --count (the median of each
// point with its min-to-max band).
//
// # Usage
//
//	r, err := bench.PutBW(setup, bench.Sizes(1, 1<<20))
//	...
//	run := &report.Run{Result: r, Setup: report.Setup{Sizes: sizes}}
//	if err := report.Write(os.Stdout, report.OSU, run); err != nil { ... }
//	if err := report.ResultFigure(r).Save("put_bw.svg"); err != nil { ... }
package report
