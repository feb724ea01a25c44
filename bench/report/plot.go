package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gopgas/gopgas/bench"
)

// Series is one curve of a Figure.
type Series struct {
	// Name is the legend entry.
	Name string
	// X and Y are the points, of equal length.
	X, Y []float64
	// Lo and Hi, when as long as X, are a band around the curve (the
	// smallest and largest of several runs, Y their median), drawn
	// shaded in the curve's colour behind it.
	Lo, Hi []float64
}

// Bar is one bar of a bar chart. Bars with a Group are drawn grouped:
// one group per Label, one bar per Group in each, with a legend of the
// groups.
type Bar struct {
	Label string
	Group string
	Value float64
	// Lo and Hi, when Hi > Lo, are a range drawn as a whisker across the
	// bar (the smallest and largest of several runs, Value their
	// median).
	Lo, Hi float64
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
	// Ratio draws a dashed line at y = 1 and keeps it in view: the
	// figure's values are ratios. A YLabel that mentions a ratio sets it
	// too.
	Ratio bool
	// Width and Height are the image size in inches and DPI the dots per
	// inch of a PNG (an SVG is vector); 0 takes PlotDefaults'.
	Width, Height, DPI float64
}

// PlotSize is the size of the figures that do not set theirs.
type PlotSize struct {
	// Width and Height in inches; DPI the dots per inch of a PNG, whose
	// pixels are Width x DPI by Height x DPI.
	Width, Height, DPI float64
}

// PlotDefaults is the size of a figure whose Width, Height or DPI is 0:
// 8 x 5 inches at 150 DPI, a 1200 x 750 PNG. pgasbench's --plot-size and
// --plot-dpi set it for the process.
var PlotDefaults = PlotSize{Width: 8, Height: 5, DPI: 150}

// size is the figure's size with the defaults filled in.
func (f *Figure) size() PlotSize {
	pick := func(v, def float64) float64 {
		if v > 0 {
			return v
		}
		return def
	}
	return PlotSize{Width: pick(f.Width, PlotDefaults.Width), Height: pick(f.Height, PlotDefaults.Height), DPI: pick(f.DPI, PlotDefaults.DPI)}
}

// ratio says whether the figure's values are ratios (Ratio).
func (f *Figure) ratio() bool {
	return f.Ratio || strings.Contains(strings.ToLower(f.YLabel), "ratio")
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

// WriteTo draws the figure as format ("svg" or "png") to w, with its
// legend to the right of the data, outside it.
func (f *Figure) WriteTo(w io.Writer, format string) (err error) {
	if format != "svg" && format != "png" {
		return fmt.Errorf("report: plot format %q: not svg or png", format)
	}
	sz := f.size()
	if sz.Width*sz.DPI > maxPlotPixels || sz.Height*sz.DPI > maxPlotPixels {
		return fmt.Errorf("report: plot %q: %gx%g inches at %g DPI is over %d pixels a side", f.Title, sz.Width, sz.Height, sz.DPI, maxPlotPixels)
	}
	p, err := f.plot()
	if err != nil {
		return err
	}
	// The plotting library panics on data it cannot draw; a plot is never
	// worth a crash.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: drawing %q: %v", f.Title, r)
		}
	}()
	wd, ht := vg.Length(sz.Width)*vg.Inch, vg.Length(sz.Height)*vg.Inch
	var c vg.CanvasWriterTo
	if format == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(int(sz.DPI)))}
	} else {
		c = vgsvg.New(wd, ht)
	}
	drawBeside(p, draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// maxPlotPixels bounds a PNG's side, so that a mistyped size cannot ask
// for gigabytes.
const maxPlotPixels = 20000

// drawBeside draws p with its legend in a column to the right of the
// plot, level with the top of the data, so that no curve or bar is
// hidden under it.
func drawBeside(p *plot.Plot, c draw.Canvas) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	lw := leg.Rectangle(c).Size().X
	if lw <= 0 {
		p.Draw(c)
		return
	}
	gap := vg.Points(12)
	p.Draw(draw.Crop(c, 0, -(lw + 2*gap), 0, 0))
	top := vg.Length(0)
	if p.Title.Text != "" {
		top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	leg.Top, leg.Left = true, true
	leg.XOffs, leg.YOffs = 0, 0
	leg.Draw(draw.Crop(c, c.Size().X-lw-gap, 0, 0, -top))
}

func (f *Figure) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Add(plotter.NewGrid())
	if len(f.Bars) > 0 {
		return f.bars(p)
	}
	var args []any
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	drawable := func(x, y float64) bool {
		return !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0) && (!f.XLog2 || x > 0) && (!f.YLog || y > 0)
	}
	for _, s := range f.Series {
		var xys, lo, hi plotter.XYs
		banded := len(s.Lo) == len(s.X) && len(s.Hi) == len(s.X)
		for i := range min(len(s.X), len(s.Y)) {
			x, y := s.X[i], s.Y[i]
			if !drawable(x, y) {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			if banded && drawable(x, s.Lo[i]) && drawable(x, s.Hi[i]) {
				lo, hi = append(lo, plotter.XY{X: x, Y: s.Lo[i]}), append(hi, plotter.XY{X: x, Y: s.Hi[i]})
				ymin, ymax = math.Min(ymin, s.Lo[i]), math.Max(ymax, s.Hi[i])
			}
		}
		if len(xys) == 0 {
			continue
		}
		if len(lo) > 1 {
			// The band: along the lows, back along the highs, in the
			// colour AddLinePoints gives this curve, mostly transparent.
			slices.Reverse(hi)
			band, err := plotter.NewPolygon(append(lo, hi...))
			if err != nil {
				return nil, fmt.Errorf("report: plot %q: %w", f.Title, err)
			}
			r, g, b, _ := plotutil.Color(len(args) / 2).RGBA()
			band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: bandAlpha}
			band.LineStyle.Width = 0
			p.Add(band)
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
	if f.ratio() {
		ymin, ymax = math.Min(ymin, 1), math.Max(ymax, 1)
		one, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: 1}, {X: xmax, Y: 1}})
		if err != nil {
			return nil, fmt.Errorf("report: plot %q: %w", f.Title, err)
		}
		one.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		one.LineStyle.Color = color.Gray{Y: 0x60}
		p.Add(one)
		p.Legend.Add("1 (equal)", one)
	}
	if f.YLog {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = ymin/1.5, ymax*1.5
	} else {
		p.Y.Min = math.Min(0, ymin)
		top := math.Max(ymax, p.Y.Min+1e-9)
		p.Y.Max = p.Y.Min + (top-p.Y.Min)*1.08
	}
	return p, nil
}

// bandAlpha is the opacity of a curve's band: light enough that the
// curves and the bands of others show through.
const bandAlpha = 0x40

// bars draws a bar chart, grouped when the bars have groups. The bars'
// width is set from the figure's width so that every bar is inside the
// axes, and the y axis reaches above the tallest.
func (f *Figure) bars(p *plot.Plot) (*plot.Plot, error) {
	var labels, groups []string
	for _, b := range f.Bars {
		if !slices.Contains(labels, b.Label) {
			labels = append(labels, b.Label)
		}
		if !slices.Contains(groups, b.Group) {
			groups = append(groups, b.Group)
		}
	}
	// The data area is at least 60% of the figure's width (the rest: the
	// y axis and the legend); a category takes 1/len(labels) of it and
	// its group of bars 80% of that.
	area := vg.Length(f.size().Width) * vg.Inch * 0.6
	width := area / vg.Length(len(labels)) * 0.8 / vg.Length(len(groups))
	top := 0.0
	for g, name := range groups {
		vals := make(plotter.Values, len(labels))
		for i := range vals {
			vals[i] = math.NaN()
		}
		for _, b := range f.Bars {
			if b.Group == name {
				vals[slices.Index(labels, b.Label)] = b.Value
			}
		}
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				vals[i] = 0 // no bar
			}
			top = math.Max(top, vals[i])
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("report: plot %q: %w", f.Title, err)
		}
		bc.Color = plotutil.Color(g)
		bc.LineStyle.Width = 0
		bc.Offset = (vg.Length(g) - vg.Length(len(groups)-1)/2) * width
		p.Add(bc)
		w := &whiskers{offset: bc.Offset, cap: width / 4}
		for _, b := range f.Bars {
			if b.Group == name && b.Hi > b.Lo && !math.IsInf(b.Hi, 0) && !math.IsNaN(b.Lo) && b.Lo >= 0 {
				w.x = append(w.x, float64(slices.Index(labels, b.Label)))
				w.lo, w.hi = append(w.lo, b.Lo), append(w.hi, b.Hi)
				top = math.Max(top, b.Hi)
			}
		}
		if len(w.x) > 0 {
			p.Add(w)
		}
		if name != "" {
			p.Legend.Add(name, bc)
		}
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	chars := 0
	for _, l := range labels {
		chars += len(l) + 2
	}
	if vg.Length(chars)*p.X.Tick.Label.Font.Size*0.6 > area {
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.08, 1e-9)
	return p, nil
}

// whiskers draws a bar group's ranges: a vertical line from lo to hi with
// caps, across the bar at category x shifted by offset.
type whiskers struct {
	x, lo, hi   []float64
	offset, cap vg.Length
}

func (w *whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	style := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for i, x := range w.x {
		cx := trX(x) + w.offset
		lo, hi := trY(w.lo[i]), trY(w.hi[i])
		c.StrokeLine2(style, cx, lo, cx, hi)
		c.StrokeLine2(style, cx-w.cap, lo, cx+w.cap, lo)
		c.StrokeLine2(style, cx-w.cap, hi, cx+w.cap, hi)
	}
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
// axis is logarithmic when the values span a decade or more (latency
// and bandwidth against size). The
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
	f.YLog = hi > 0 && hi/lo >= 10
	return f
}

// AtomicsFigure is a bar chart of the atomics benchmark's rates, grouped
// by operation with a bar per type ("fadd int64": operation fadd, type
// int64).
func AtomicsFigure(r *bench.Result, rows []bench.AtomicRow) *Figure {
	f := &Figure{YLabel: "Million operations per second (Mops/s)", XLabel: "Operation"}
	if r != nil {
		f.Title = fmt.Sprintf("%s (%s, %s)", r.Title, r.Conduit, r.TimeBase())
	}
	for _, a := range rows {
		op, typ := a.Name, ""
		if i := strings.LastIndexByte(a.Name, ' '); i > 0 {
			op, typ = a.Name[:i], a.Name[i+1:]
		}
		f.Bars = append(f.Bars, Bar{Label: op, Group: typ, Value: a.Rate})
	}
	return f
}
