package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/gopgas/gopgas/bench"
)

// RunsFigure is the figure of the runs of one benchmark that pgasbench
// --count made (seeds seed..seed+N-1 on a simulated backend, repeats on
// a real one), in the run's own kind: value against size, the atomics'
// rates by operation, the many-to-one rate. Each point (bar) is the
// median over the runs with a band (whisker) from the smallest to the
// largest run: the median is what a paper reports of repeated runs, as
// it does not move with one outlier, and with the few runs --count makes
// the range is the honest spread (percentiles of 3 or 10 runs would say
// no more than it). One run draws as it always did, without band; a
// figure a run does not have (NaN, an interrupted run's missing sizes) is
// left out of that point's median and range.
func RunsFigure(runs []*Run) (*Figure, error) {
	if len(runs) == 0 || runs[0] == nil || runs[0].Result == nil {
		return nil, fmt.Errorf("report: no run to plot")
	}
	r := runs[0].Result
	title := fmt.Sprintf("%s (%s, %s)", r.Title, r.Conduit, r.TimeBase())
	if len(runs) > 1 {
		title = fmt.Sprintf("%s (%s, %s; median of %d runs, band: min to max)", r.Title, r.Conduit, r.TimeBase(), len(runs))
	}
	switch {
	case runs[0].Atomics != nil:
		var names []string
		by := map[string][]float64{}
		for _, run := range runs {
			for _, a := range run.Atomics {
				if !slices.Contains(names, a.Name) {
					names = append(names, a.Name)
				}
				by[a.Name] = append(by[a.Name], a.Rate)
			}
		}
		rows := make([]bench.AtomicRow, len(names))
		for i, n := range names {
			rows[i] = bench.AtomicRow{Name: n, Rate: Spread(by[n]).Median}
		}
		f := AtomicsFigure(r, rows)
		for i := range f.Bars {
			sp := Spread(by[names[i]])
			f.Bars[i].Lo, f.Bars[i].Hi = sp.Min, sp.Max
		}
		f.Title = title
		return f, nil
	case r.Benchmark == "atomics_many_to_one":
		var vals []float64
		for _, run := range runs {
			for _, p := range run.Result.Points {
				vals = append(vals, p.Value)
			}
		}
		sp := Spread(vals)
		return &Figure{Title: title, XLabel: "Variables", YLabel: "Million operations per second (Mops/s)",
			Bars: []Bar{{Label: fmt.Sprint(runs[0].Setup.Variables), Value: sp.Median, Lo: sp.Min, Hi: sp.Max}}}, nil
	}
	// Value against size: the runs' points by size, in the order of
	// their first appearance.
	var sizes []int
	by := map[int][]float64{}
	for _, run := range runs {
		for _, p := range run.Result.Points {
			if _, ok := by[p.Size]; !ok {
				sizes = append(sizes, p.Size)
			}
			by[p.Size] = append(by[p.Size], p.Value)
		}
	}
	med := *r
	med.Points = make([]bench.Point, len(sizes))
	for i, size := range sizes {
		med.Points[i] = bench.Point{Size: size, Value: Spread(by[size]).Median}
	}
	f := ResultFigure(&med)
	f.Title = title
	if len(runs) > 1 && len(f.Series) == 1 {
		s := &f.Series[0]
		for _, size := range sizes {
			sp := Spread(by[size])
			s.Lo, s.Hi = append(s.Lo, sp.Min), append(s.Hi, sp.Max)
		}
	}
	return f, nil
}

// SpreadOf is the median, the smallest and the largest of a figure over
// runs; NaN when no run has a finite figure.
type SpreadOf struct{ Median, Min, Max float64 }

// Spread is the SpreadOf of vs, leaving out NaN and infinities; the
// median of an even count is the mean of the middle two.
func Spread(vs []float64) SpreadOf {
	var ok []float64
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return SpreadOf{math.NaN(), math.NaN(), math.NaN()}
	}
	slices.Sort(ok)
	n := len(ok)
	m := ok[n/2]
	if n%2 == 0 {
		m = (ok[n/2-1] + ok[n/2]) / 2
	}
	return SpreadOf{Median: m, Min: ok[0], Max: ok[n-1]}
}
