// Command tracepng draws a window of a trace written by the simulated
// backends' trace option (docs/trace.md) as a PNG or SVG picture: a row
// per thread of the trace (a PE's waits, a NIC pipeline, a channel) and
// per lane of a PE's transactions, each slice a box, each packet's flow a
// line through the slices it crossed. It reads the trace-event JSON only,
// so it draws what Perfetto would be given.
//
// Usage:
//
//	tracepng [-from µs] [-to µs] [-width in] -o trace.png trace.json
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

type event struct {
	Ph   string          `json:"ph"`
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	ID   json.RawMessage `json:"id"`
	Args map[string]any  `json:"args"`
}

type box struct {
	row        int
	start, end float64
	name       string
}

type thread struct{ pid, tid int }

func main() {
	from := flag.Float64("from", 0, "start of the window, simulated µs")
	to := flag.Float64("to", math.Inf(1), "end of the window, simulated µs")
	width := flag.Float64("width", 12, "picture width, inches (at 150 dpi for PNG)")
	out := flag.String("o", "trace.png", "the picture (.png or .svg)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tracepng [-from µs] [-to µs] [-width in] -o trace.png trace.json")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *from, *to, *width); err != nil {
		fmt.Fprintln(os.Stderr, "tracepng:", err)
		os.Exit(1)
	}
}

func run(in, out string, from, to, width float64) error {
	if !(from < to) || width <= 0 {
		return fmt.Errorf("bad window %g..%g µs or width %g in", from, to, width)
	}
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var tr struct {
		TraceEvents []event `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	boxes, rows, flows := layout(tr.TraceEvents, from, to)
	if len(boxes) == 0 {
		return errors.New("no slices in the window")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %.3f-%.3f µs of simulated time", filepath.Base(in), from, math.Min(to, maxEnd(boxes)))
	p.Title.Padding = vg.Points(16) // room for the legend below it
	p.X.Label.Text = "simulated time (µs)"
	p.X.Min, p.X.Max = from, math.Min(to, maxEnd(boxes))
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	p.NominalY(rows...)
	p.Y.Tick.Label.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	p.Add(&chart{boxes: boxes, flows: flows})
	height := 0.8 + 0.16*float64(len(rows))
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(vg.Length(width)*vg.Inch, vg.Length(height)*vg.Inch), vgimg.UseDPI(150))}
	if strings.HasSuffix(out, ".svg") {
		return p.Save(vg.Length(width)*vg.Inch, vg.Length(height)*vg.Inch, out)
	}
	p.Draw(draw.New(c))
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func maxEnd(bs []box) float64 {
	m := 0.0
	for _, b := range bs {
		m = math.Max(m, b.end)
	}
	return m
}

// layout gives each named thread a row (top to bottom in the trace's
// order) and each PE's transactions rows of lanes, and keeps the slices
// and the flows' points in the window.
func layout(evs []event, from, to float64) (boxes []box, rows []string, flows [][][2]float64) {
	names := map[thread]string{}
	procs := map[int]string{}
	var order []thread
	for _, e := range evs {
		if e.Ph != "M" {
			continue
		}
		name, _ := e.Args["name"].(string)
		switch e.Name {
		case "thread_name":
			names[thread{e.Pid, e.Tid}] = name
			order = append(order, thread{e.Pid, e.Tid})
		case "process_name":
			procs[e.Pid] = name
		}
	}
	used := map[thread]bool{}
	in := func(s, e float64) bool { return e >= from && s <= to }
	for _, e := range evs {
		if e.Ph == "X" && in(e.Ts, e.Ts+e.Dur) {
			used[thread{e.Pid, e.Tid}] = true
		}
	}
	row := map[thread]int{}
	for _, t := range order {
		if used[t] {
			row[t] = len(rows)
			rows = append(rows, names[t])
		}
	}
	// Transactions: a b and its e make a slice; they go on lanes per PE.
	type open struct {
		pid   int
		start float64
		name  string
	}
	begun := map[string]open{}
	type txn struct {
		pid        int
		start, end float64
		name       string
	}
	var txns []txn
	for _, e := range evs {
		switch e.Ph {
		case "b":
			begun[e.Cat+string(e.ID)] = open{e.Pid, e.Ts, e.Name}
		case "e":
			if o, ok := begun[e.Cat+string(e.ID)]; ok && in(o.start, e.Ts) {
				txns = append(txns, txn{o.pid, o.start, e.Ts, o.name})
			}
		}
	}
	sort.SliceStable(txns, func(i, j int) bool {
		if txns[i].pid != txns[j].pid {
			return txns[i].pid < txns[j].pid
		}
		return txns[i].start < txns[j].start
	})
	var ends []float64
	first, pid := 0, -1
	for _, x := range txns {
		if x.pid != pid {
			pid, ends, first = x.pid, nil, len(rows)
		}
		l := 0
		for l < len(ends) && ends[l] > x.start {
			l++
		}
		if l == len(ends) {
			ends = append(ends, 0)
			rows = append(rows, fmt.Sprintf("%s (lane %d)", procs[x.pid], l+1))
		}
		ends[l] = x.end
		boxes = append(boxes, box{first + l, x.start, x.end, x.name})
	}
	for _, e := range evs {
		if e.Ph == "X" && in(e.Ts, e.Ts+e.Dur) {
			boxes = append(boxes, box{row[thread{e.Pid, e.Tid}], e.Ts, e.Ts + e.Dur, e.Name})
		}
	}
	byID := map[string][][2]float64{}
	var ids []string
	for _, e := range evs {
		switch e.Ph {
		case "s", "t", "f":
			r, ok := row[thread{e.Pid, e.Tid}]
			if !ok || !in(e.Ts, e.Ts) {
				continue
			}
			id := string(e.ID)
			if _, seen := byID[id]; !seen {
				ids = append(ids, id)
			}
			byID[id] = append(byID[id], [2]float64{e.Ts, float64(r)})
		}
	}
	for _, id := range ids {
		flows = append(flows, byID[id])
	}
	// Rows top to bottom: the nominal axis counts from the bottom.
	for i := range boxes {
		boxes[i].row = len(rows) - 1 - boxes[i].row
	}
	for _, f := range flows {
		for i := range f {
			f[i][1] = float64(len(rows)-1) - f[i][1]
		}
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return boxes, rows, flows
}

// chart draws the slices as boxes coloured by name and the flows as thin
// lines.
type chart struct {
	boxes []box
	flows [][][2]float64
}

var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0x59, 0xa1, 0x4f, 0xff}, {0xe1, 0x57, 0x59, 0xff},
	{0x76, 0xb7, 0xb2, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0x9c, 0x75, 0x5f, 0xff},
	{0xff, 0x9d, 0xa7, 0xff}, {0x1f, 0x3b, 0x5a, 0xff}, {0x8c, 0xd1, 0x7d, 0xff}, {0xba, 0xb0, 0xac, 0xff},
	{0x49, 0x98, 0x94, 0xff}, {0xd3, 0x72, 0x95, 0xff}, {0x86, 0xbc, 0xb6, 0xff}, {0xa0, 0xcb, 0xe8, 0xff},
}

func (c *chart) Plot(dc draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&dc)
	colours := map[string]color.Color{}
	var seen []string
	for _, b := range c.boxes {
		if _, ok := colours[b.name]; !ok {
			colours[b.name] = palette[len(seen)%len(palette)]
			seen = append(seen, b.name)
		}
	}
	for _, b := range c.boxes {
		x0, x1 := tx(math.Max(b.start, p.X.Min)), tx(math.Min(b.end, p.X.Max))
		if x1-x0 < 0.5 {
			x1 = x0 + 0.5
		}
		y0, y1 := ty(float64(b.row)-0.35), ty(float64(b.row)+0.35)
		dc.FillPolygon(colours[b.name], dc.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
	ls := draw.LineStyle{Color: color.RGBA{0x30, 0x30, 0x30, 0x60}, Width: vg.Points(0.4)}
	for _, f := range c.flows {
		pts := make([]vg.Point, len(f))
		for i, q := range f {
			pts[i] = vg.Point{X: tx(q[0]), Y: ty(q[1])}
		}
		dc.StrokeLines(ls, dc.ClipLinesXY(pts)...)
	}
	// A legend of the slice names, outside the rows: along the top.
	x := dc.Min.X
	sty := draw.TextStyle{Color: color.Black, Font: p.X.Label.TextStyle.Font, Handler: p.X.Label.TextStyle.Handler}
	sty.Font.Size = vg.Points(7)
	for _, n := range seen {
		y := dc.Max.Y + vg.Points(2)
		dc.FillPolygon(colours[n], []vg.Point{{X: x, Y: y}, {X: x + 8, Y: y}, {X: x + 8, Y: y + 6}, {X: x, Y: y + 6}})
		dc.FillText(sty, vg.Point{X: x + 10, Y: y}, n)
		x += 14 + sty.Width(n)
	}
}
