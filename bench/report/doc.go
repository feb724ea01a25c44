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
//   - CSV: one header row, then one row per size (or atomic operation).
//   - JSON: one Record object, whose schema docs/pgasbench.md documents
//     field by field.
//   - GoBench: the text format of `go test -bench`, which benchstat reads:
//     configuration lines ("conduit: gemini") then one line per size, as
//     "BenchmarkPutBW/gemini/size=4096 1 2345 ns/op 1746.58 MB/s".
//
// Figure draws line plots (one Series per curve) with gonum.org/v1/plot,
// as SVG or PNG by the file's extension, with a log2 size axis for size
// sweeps; ResultFigure and AtomicsFigure build the figures of one run.
//
// # Usage
//
//	r, err := bench.PutBW(setup, bench.Sizes(1, 1<<20))
//	...
//	run := &report.Run{Result: r, Setup: report.Setup{Sizes: sizes}}
//	if err := report.Write(os.Stdout, report.OSU, run); err != nil { ... }
//	if err := report.ResultFigure(r).Save("put_bw.svg"); err != nil { ... }
package report
