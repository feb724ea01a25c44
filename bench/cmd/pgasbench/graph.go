package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gopgas/gopgas/bench/report"
)

// The size of -G tty's chart: columns of plot and rows of it.
const (
	graphCols = 64
	graphRows = 16
)

// writeGraphs draws -G tty's charts after the output: for every size, the
// per-iteration values (latency in us, or bandwidth in MB/s) against the
// iteration, a dot per value, under OSU's title "Size: N, Avg: X". OSU
// draws the same chart with gnuplot's dumb terminal.
func writeGraphs(w io.Writer, run *report.Run) {
	results := append([]*report.Run{run}, nil)[:1]
	for _, m := range run.More {
		results = append(results, &report.Run{Result: m})
	}
	for _, rr := range results {
		r := rr.Result
		ylabel := "Lat(us)"
		if r.Unit != "us" {
			ylabel = "BW(" + r.Unit + ")"
		}
		for _, p := range r.Points {
			writeChart(w, fmt.Sprintf("Size: %d, Avg:%.2f", p.Size, p.Value), ylabel, p.Samples)
		}
	}
}

// writeChart draws one chart of values against their index (1 up).
func writeChart(w io.Writer, title, ylabel string, values []float64) {
	fmt.Fprintf(w, "\n%*s\n", (graphCols+12+len(title))/2, title)
	if len(values) == 0 {
		fmt.Fprintf(w, "%12s(no per-iteration values)\n", "")
		return
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi == lo {
		hi = lo + 1
	}
	grid := make([][]byte, graphRows)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", graphCols))
	}
	for i, v := range values {
		x := 0
		if len(values) > 1 {
			x = i * (graphCols - 1) / (len(values) - 1)
		}
		y := int((v - lo) / (hi - lo) * float64(graphRows-1))
		grid[graphRows-1-y][x] = '.'
	}
	fmt.Fprintf(w, "%12s\n", ylabel)
	for i, row := range grid {
		label := ""
		switch i {
		case 0:
			label = fmt.Sprintf("%.2f", hi)
		case graphRows - 1:
			label = fmt.Sprintf("%.2f", lo)
		}
		fmt.Fprintf(w, "%11s |%s|\n", label, row)
	}
	fmt.Fprintf(w, "%11s +%s+\n", "", strings.Repeat("-", graphCols))
	fmt.Fprintf(w, "%12s1%*d\n", "", graphCols-1, len(values))
	fmt.Fprintf(w, "%*s\n", (graphCols+12+len("Iteration Count"))/2, "Iteration Count")
}
