package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"

	"github.com/gopgas/gopgas/bench"
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
	for _, r := range graphResults(run) {
		for _, p := range r.Points {
			writeChart(w, graphTitle(p), graphYLabel(r), p.Samples)
		}
	}
}

// graphResults are the tables of a run: one, or one per type (-T all).
func graphResults(run *report.Run) []*bench.Result {
	return append([]*bench.Result{run.Result}, run.More...)
}

// graphTitle is OSU's title of a size's chart.
func graphTitle(p bench.Point) string { return fmt.Sprintf("Size: %d, Avg:%.2f", p.Size, p.Value) }

// graphYLabel is OSU's y label: latency or bandwidth.
func graphYLabel(r *bench.Result) string {
	if r.Unit == "us" {
		return "Lat(us)"
	}
	return "BW(" + r.Unit + ")"
}

// saveGraphs writes -G png's or pdf's files into the current directory,
// named as OSU's: osu_NAME-SIZE.png, a file per size, or osu_NAME.pdf, a
// page per size (OSU joins its PNGs into it). The later tables of -T all
// replace the files of the earlier ones, as OSU's do. It returns the
// files written.
func saveGraphs(run *report.Run, format string) ([]string, error) {
	const wd, ht = 8 * vg.Inch, 5 * vg.Inch
	name := "osu_" + run.Result.Benchmark
	var pdf *vgpdf.Canvas
	if format == "pdf" {
		pdf = vgpdf.New(wd, ht)
	}
	var files []string
	page := 0
	for _, r := range graphResults(run) {
		for _, p := range r.Points {
			pl := plot.New()
			pl.Title.Text = graphTitle(p)
			pl.X.Label.Text = "Iteration Count"
			pl.Y.Label.Text = graphYLabel(r)
			pl.Add(plotter.NewGrid())
			xys := make(plotter.XYs, len(p.Samples))
			for i, v := range p.Samples {
				xys[i] = plotter.XY{X: float64(i + 1), Y: v}
			}
			if len(xys) > 0 {
				line, points, err := plotter.NewLinePoints(xys)
				if err != nil {
					return files, fmt.Errorf("-G %s: size %d: %w", format, p.Size, err)
				}
				pl.Add(line, points)
			}
			if pdf != nil {
				if page++; page > 1 {
					pdf.NextPage()
				}
				pl.Draw(draw.New(pdf))
				continue
			}
			c := vgimg.PngCanvas{Canvas: vgimg.New(wd, ht)}
			pl.Draw(draw.New(c))
			var buf bytes.Buffer
			if _, err := c.WriteTo(&buf); err != nil {
				return files, fmt.Errorf("-G png: size %d: %w", p.Size, err)
			}
			file := fmt.Sprintf("%s-%d.png", name, p.Size)
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				return files, fmt.Errorf("-G png: %w", err)
			}
			files = append(files, file)
		}
	}
	if pdf == nil || page == 0 {
		return files, nil
	}
	var buf bytes.Buffer
	if _, err := pdf.WriteTo(&buf); err != nil {
		return files, fmt.Errorf("-G pdf: %w", err)
	}
	file := name + ".pdf"
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return files, fmt.Errorf("-G pdf: %w", err)
	}
	return append(files, file), nil
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
