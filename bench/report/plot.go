package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gopgas/gopgas/bench"
)

// Series is one curve of a Figure.
type Series struct {
	// Name is the legend entry.
	Name string
	// X and Y are the points, of equal length.
	X, Y []float64
}

// Bar is one bar of a bar chart.
type Bar struct {
	Label string
	Value float64
}

// Figure is a plot: curves (Series) or bars (Bars), with labelled axes.
type Figure struct {
	Title string
	// XLabel and YLabel name the axes with their units.
	XLabel, YLabel string
	// XLog2 draws x on a log scale with ticks at powers of two labelled in
	// binary units (1K = 1024): the size axis of size sweeps. Points with
	// x <= 0 (the 0-byte ping-pong) are left out.
	XLog2 bool
	// YLog draws y on a log10 scale; points with y <= 0 are left out.
	YLog bool
	// XTicks, when not empty, are the only labelled x ticks (PEs per
	// node).
	XTicks []float64
	Series []Series
	// Bars, when not empty, make the figure a bar chart of them (Series
	// are then ignored).
	Bars []Bar
	// Width and Height are the image size in inches; 0 means 7 x 4.5.
	Width, Height float64
}

// PlotFormat is the image format of a plot file by its extension: "svg" or
// "png".
func PlotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("plot file %q: the name must end in .svg or .png", path)
	}
}

// Save writes the figure to path, as SVG or PNG by its extension. The
// file is written whole or not at all.
func (f *Figure) Save(path string) error {
	format, err := PlotFormat(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := f.WriteTo(&buf, format); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report: writing the plot: %w", err)
	}
	return nil
}

// WriteTo draws the figure as format ("svg" or "png") to w.
func (f *Figure) WriteTo(w io.Writer, format string) (err error) {
	if format != "svg" && format != "png" {
		return fmt.Errorf("report: plot format %q: not svg or png", format)
	}
	p, err := f.plot()
	if err != nil {
		return err
	}
	width, height := f.Width, f.Height
	if width <= 0 {
		width = 7
	}
	if height <= 0 {
		height = 4.5
	}
	// The plotting library panics on data it cannot draw; a plot is never
	// worth a crash.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: drawing %q: %v", f.Title, r)
		}
	}()
	wt, err := p.WriterTo(vg.Length(width)*vg.Inch, vg.Length(height)*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("report: drawing %q: %w", f.Title, err)
	}
	_, err = wt.WriteTo(w)
	return err
}

func (f *Figure) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	if len(f.Bars) > 0 {
		return f.bars(p)
	}
	var args []any
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		var xys plotter.XYs
		for i := range min(len(s.X), len(s.Y)) {
			x, y := s.X[i], s.Y[i]
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) ||
				(f.XLog2 && x <= 0) || (f.YLog && y <= 0) {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
		if len(xys) == 0 {
			continue
		}
		args = append(args, s.Name, xys)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("report: plot %q: no points to draw", f.Title)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, fmt.Errorf("report: plot %q: %w", f.Title, err)
	}
	if f.XLog2 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pow2Ticks{}
		p.X.Min, p.X.Max = xmin/1.2, xmax*1.2
	} else if len(f.XTicks) > 0 {
		var ticks plot.ConstantTicks
		for _, t := range f.XTicks {
			ticks = append(ticks, plot.Tick{Value: t, Label: trimFloat(t)})
		}
		p.X.Tick.Marker = ticks
	}
	// Leave room at the top for the legend, drawn over the data area's
	// top-left corner.
	height := f.Height
	if height <= 0 {
		height = 4.5
	}
	room := math.Min(0.5, (float64(len(args)/2)*14+16)/(height*72*0.7))
	if f.YLog {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		lo, hi := math.Log(ymin/1.5), math.Log(ymax*1.2)
		p.Y.Min, p.Y.Max = math.Exp(lo), math.Exp(lo+(hi-lo)/(1-room))
	} else {
		p.Y.Min = math.Min(0, ymin)
		top := math.Max(ymax, p.Y.Min+1e-9)
		p.Y.Max = p.Y.Min + (top-p.Y.Min)*1.05/(1-room)
	}
	p.Legend.XOffs = vg.Points(10)
	return p, nil
}

func (f *Figure) bars(p *plot.Plot) (*plot.Plot, error) {
	vals := make(plotter.Values, len(f.Bars))
	names := make([]string, len(f.Bars))
	for i, b := range f.Bars {
		vals[i], names[i] = Finite(b.Value), b.Label
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(max(4, 300/float64(len(vals)))))
	if err != nil {
		return nil, fmt.Errorf("report: plot %q: %w", f.Title, err)
	}
	bc.Color = plotutil.Color(0)
	bc.LineStyle.Width = 0
	p.Add(bc)
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5
	p.Y.Min = 0
	return p, nil
}

// pow2Ticks marks powers of two, labelling at most about 12 of them.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 {
		lo = 1
	}
	first := int(math.Ceil(math.Log2(lo)))
	last := int(math.Floor(math.Log2(hi)))
	step := max(1, (last-first+12)/12)
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		t := plot.Tick{Value: math.Exp2(float64(e))}
		if (e-first)%step == 0 {
			t.Label = SizeLabel(int64(t.Value))
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// SizeLabel prints a size compactly in binary units: 512, 1K, 64K, 4M.
func SizeLabel(b int64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{40, "T"}, {30, "G"}, {20, "M"}, {10, "K"}} {
		if b >= 1<<u.shift && b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", b>>u.shift, u.suffix)
		}
	}
	return fmt.Sprint(b)
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}

// SizeAxis is the label of a size axis.
const SizeAxis = "Message size (bytes; K = 1024)"

// ResultFigure is the figure of one or more results of the same benchmark:
// value against size on a log2 axis, one curve per result (named by its
// backend, ordering and mechanism). The y
// axis is logarithmic when the values span more than two decades. The
// many-to-one atomics benchmark has one point per run and no size axis:
// use a bar chart of its results instead.
func ResultFigure(results ...*bench.Result) *Figure {
	f := &Figure{XLabel: SizeAxis, XLog2: true}
	if len(results) == 0 {
		return f
	}
	r0 := results[0]
	f.Title = r0.Title
	f.YLabel = r0.Column
	if r0.Column == "MB/s" {
		f.YLabel = "Bandwidth (MB/s)"
	}
	lo, hi := math.Inf(1), 0.0
	for _, r := range results {
		s := Series{Name: fmt.Sprintf("%s, %s, %s", r.Conduit, r.Ordering, r.Mechanism)}
		for _, p := range r.Points {
			s.X = append(s.X, float64(p.Size))
			s.Y = append(s.Y, p.Value)
			if p.Value > 0 && p.Size > 0 {
				lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
			}
		}
		f.Series = append(f.Series, s)
	}
	f.YLog = hi > 0 && hi/lo > 100
	return f
}

// AtomicsFigure is a bar chart of the atomics benchmark's rates.
func AtomicsFigure(r *bench.Result, rows []bench.AtomicRow) *Figure {
	f := &Figure{YLabel: "Million operations per second (Mops/s)", XLabel: "Operation"}
	if r != nil {
		f.Title = fmt.Sprintf("%s (%s, %s)", r.Title, r.Conduit, r.TimeBase())
	}
	for _, a := range rows {
		f.Bars = append(f.Bars, Bar{Label: a.Name, Value: a.Rate})
	}
	return f
}
