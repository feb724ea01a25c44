package study

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tiny is a study small enough for the race detector: 2 nodes, 2 sizes,
// PEs per node 1 and 2, strict and relaxed, FMA and BTE.
func tiny(parallel int) Config {
	return Config{
		Base:            pgas.Config{Conduit: "gemini", Seed: 3},
		Op:              bench.Get,
		Nodes:           2,
		Orderings:       []pgas.Ordering{pgas.OrderStrict, pgas.OrderRelaxed},
		PPN:             2,
		Sizes:           []int{8, 1024},
		Mechanisms:      []bench.Mechanism{bench.FMA, bench.BTE},
		PPNs:            []int{1, 2},
		SweepSizes:      []int{1024},
		SweepMechanisms: []bench.Mechanism{bench.FMA, bench.BTE},
		Iterations:      1,
		Warmup:          1,
		Parallel:        parallel,
	}
}

// A tiny study on the simulated Gemini runs, fills every point, and does
// not depend on how many points run at once.
func TestTinyStudy(t *testing.T) {
	var calls []int
	cfg := tiny(2)
	cfg.Progress = func(done, total int) {
		calls = append(calls, done)
		if total != 12 {
			t.Errorf("progress total %d, want 12 distinct points", total)
		}
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 12 || calls[len(calls)-1] != 12 {
		t.Errorf("progress calls %v, want 1..12", calls)
	}
	if res.Conduit != "gemini" || !res.Simulated {
		t.Errorf("conduit %q simulated %v", res.Conduit, res.Simulated)
	}
	if len(res.SizeCurves) != 4 || len(res.PPNCurves) != 4 {
		t.Fatalf("%d size curves, %d PEs-per-node curves; want 4 and 4", len(res.SizeCurves), len(res.PPNCurves))
	}
	for _, c := range append(append([]Curve{}, res.SizeCurves...), res.PPNCurves...) {
		if len(c.Points) != 2 {
			t.Fatalf("curve %v %v has %d points", c.Ordering, c.Mechanism, len(c.Points))
		}
		for _, p := range c.Points {
			if p.Ordering != c.Ordering || p.Mechanism != c.Mechanism || !(p.Bandwidth > 0) || !(p.Rate > 0) || p.Events == 0 {
				t.Errorf("point %+v of curve %v %v", p, c.Ordering, c.Mechanism)
			}
			if got := p.Bandwidth * 1e6 / p.Rate; math.Abs(got-float64(p.Size)) > 1e-6*float64(p.Size) {
				t.Errorf("point %+v: bandwidth / rate = %v bytes, want the size", p, got)
			}
		}
	}
	// The shared point (PEs per node 2, 1 KiB) is the same in both sweeps.
	s, _ := res.sizeCurve(pgas.OrderStrict, bench.BTE)
	p, _ := res.ppnCurve(pgas.OrderStrict, bench.BTE, 1024)
	if s.Points[1] != p.Points[1] {
		t.Errorf("shared point differs: %+v vs %+v", s.Points[1], p.Points[1])
	}
	// Bigger messages move more bytes per second at this scale.
	for _, c := range res.SizeCurves {
		if c.Points[1].Bandwidth <= c.Points[0].Bandwidth {
			t.Errorf("%v %v: %v MB/s at 1 KiB, not above %v at 8 B", c.Ordering, c.Mechanism, c.Points[1].Bandwidth, c.Points[0].Bandwidth)
		}
	}
	seq, err := Run(context.Background(), tiny(1))
	if err != nil {
		t.Fatal(err)
	}
	seq.Config.Parallel = res.Config.Parallel
	seq.Config.Progress, res.Config.Progress = nil, nil
	if !reflect.DeepEqual(seq, res) {
		t.Error("the results depend on the parallelism")
	}

	// Every format prints it.
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Figure 3: bandwidth vs message size, strict ordering, 2 PEs per node (2 pairs)",
		"# Figures 4 and 5: bandwidth vs PEs per node, relaxed ordering, 1.0 KiB (1024 B)", "# Summary", "# Time base: simulated time"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(text.String()), "\n") {
		if !strings.HasPrefix(l, "#") && len(l) != report.SizeWidth+2*report.FieldWidth {
			t.Errorf("table row %q is not %d wide", l, report.SizeWidth+2*report.FieldWidth)
		}
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(js.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Schema != Schema || len(rec.SizeSweep) != 4 || len(rec.PPNSweep) != 4 || *rec.SizeSweep[0].Points[1].BandwidthMBps != res.SizeCurves[0].Points[1].Bandwidth {
		t.Errorf("JSON record: %+v", rec)
	}
	var cs bytes.Buffer
	if err := res.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil || len(recs) != 1+16 {
		t.Errorf("CSV: %d records, %v", len(recs), err)
	}
	var gb bytes.Buffer
	if err := res.WriteGoBench(&gb); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(gb.String(), "\nBenchmarkOrderingStudy/"); n != 16 {
		t.Errorf("%d gobench lines, want 16:\n%s", n, gb.String())
	}
	dir := t.TempDir()
	paths, err := res.SavePlots(dir, "svg")
	if err != nil {
		t.Fatal(err)
	}
	// size and ppn per ordering, orderings per sweep mechanism, ratio.
	if len(paths) != 2*2+2+1 {
		t.Errorf("plots %v", paths)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Size() < 1000 {
			t.Errorf("plot %s: %v", p, err)
		}
	}
}

func TestRunChecks(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"odd":          func(c *Config) { c.Nodes, c.PPN = 1, 3 },
		"no orderings": func(c *Config) { c.Orderings = nil },
		"nothing":      func(c *Config) { c.Sizes, c.PPNs = nil, nil },
		"size 0":       func(c *Config) { c.Sizes = []int{0} },
		"no mechanism": func(c *Config) { c.Mechanisms = nil },
	} {
		cfg := tiny(1)
		mod(&cfg)
		if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: %v, want ErrBadConfig", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, tiny(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// synthetic builds results from tables: bandwidth by size for FMA and BTE
// (strict), and by PEs per node for BTE at 64 KiB (strict and relaxed).
func synthetic() *Results {
	sizes := []int{1024, 2048, 4096, 8192}
	ppns := []int{1, 2, 4, 8}
	curve := func(o pgas.Ordering, m bench.Mechanism, xs []int, bw []float64, bySize bool) Curve {
		c := Curve{Ordering: o, Mechanism: m}
		for i, x := range xs {
			p := Point{Ordering: o, Mechanism: m, Bandwidth: bw[i]}
			if bySize {
				p.Size, p.PPN, c.PPN = x, 24, 24
			} else {
				p.Size, p.PPN, c.Size = 64<<10, x, 64<<10
			}
			c.Points = append(c.Points, p)
		}
		return c
	}
	return &Results{
		Config: Config{Nodes: 4, PPN: 24, Op: bench.Get, Orderings: []pgas.Ordering{pgas.OrderStrict, pgas.OrderRelaxed},
			Sizes: sizes, Mechanisms: []bench.Mechanism{bench.FMA, bench.BTE}, PPNs: ppns, SweepSizes: []int{64 << 10},
			SweepMechanisms: []bench.Mechanism{bench.BTE}},
		Conduit: "gemini", Simulated: true,
		SizeCurves: []Curve{
			curve(pgas.OrderStrict, bench.FMA, sizes, []float64{100, 200, 300, 400}, true),
			curve(pgas.OrderStrict, bench.BTE, sizes, []float64{50, 150, 450, 350}, true),
			curve(pgas.OrderRelaxed, bench.FMA, sizes, []float64{100, 200, 300, 400}, true),
			curve(pgas.OrderRelaxed, bench.BTE, sizes, []float64{10, 20, 30, 400}, true), // a tie at 8 KiB: FMA keeps the lead
		},
		PPNCurves: []Curve{
			curve(pgas.OrderStrict, bench.BTE, ppns, []float64{10, 30, 40, 20}, false),
			curve(pgas.OrderRelaxed, bench.BTE, ppns, []float64{10, 30, 40, 80}, false),
		},
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize(synthetic())
	if len(s.Ratios) != 1 {
		t.Fatalf("ratios %+v", s.Ratios)
	}
	ra := s.Ratios[0]
	if ra.Mechanism != bench.BTE || ra.Size != 64<<10 || !reflect.DeepEqual(ra.PPN, []int{1, 2, 4, 8}) || !reflect.DeepEqual(ra.Ratio, []float64{1, 1, 1, 4}) {
		t.Errorf("ratio %+v", ra)
	}
	if v, ppn := ra.Max(); v != 4 || ppn != 8 {
		t.Errorf("largest ratio %v at %d, want 4 at 8", v, ppn)
	}
	wantPeaks := []Peak{
		{Ordering: pgas.OrderStrict, Mechanism: bench.BTE, Size: 64 << 10, PPN: 4, Bandwidth: 40, LastPPN: 8, LastBandwidth: 20},
		{Ordering: pgas.OrderRelaxed, Mechanism: bench.BTE, Size: 64 << 10, PPN: 8, Bandwidth: 80, LastPPN: 8, LastBandwidth: 80},
	}
	if !reflect.DeepEqual(s.Peaks, wantPeaks) {
		t.Errorf("peaks %+v, want %+v", s.Peaks, wantPeaks)
	}
	if s.Peaks[0].Drop() != 2 || s.Peaks[1].Drop() != 1 {
		t.Errorf("drops %v, %v", s.Peaks[0].Drop(), s.Peaks[1].Drop())
	}
	if len(s.Crossovers) != 2 {
		t.Fatalf("crossovers %+v", s.Crossovers)
	}
	// Strict: BTE - FMA is -50, -50, +150, -50: BTE takes the lead a
	// quarter of the way (in log size) from 2 KiB to 4 KiB, FMA takes it
	// back three quarters of the way from 4 KiB to 8 KiB.
	x := s.Crossovers[0]
	if x.Ordering != pgas.OrderStrict || x.First != bench.FMA || x.Lo != 1024 || x.Hi != 8192 || x.PPN != 24 || len(x.Changes) != 2 {
		t.Fatalf("strict crossover %+v", x)
	}
	want := []Change{{Size: 2048 * math.Pow(2, 0.25), Below: 2048, Above: 4096, Leader: bench.BTE},
		{Size: 4096 * math.Pow(2, 0.75), Below: 4096, Above: 8192, Leader: bench.FMA}}
	for i, ch := range x.Changes {
		w := want[i]
		if math.Abs(ch.Size-w.Size) > 1e-9 || ch.Below != w.Below || ch.Above != w.Above || ch.Leader != w.Leader {
			t.Errorf("change %d: %+v, want %+v", i, ch, w)
		}
	}
	if got, want := x.Text(), "BTE overtakes FMA near 2.4 KiB (between 2.0 KiB and 4.0 KiB); FMA overtakes BTE near 6.7 KiB (between 4.0 KiB and 8.0 KiB)"; got != want {
		t.Errorf("crossover text %q, want %q", got, want)
	}
	if x := s.Crossovers[1]; len(x.Changes) != 0 || x.First != bench.FMA || x.Text() != "FMA ahead at every size" {
		t.Errorf("relaxed crossover %+v: %q", x, x.Text())
	}

	// The text summary says the same.
	var b bytes.Buffer
	if err := synthetic().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Largest relaxed/strict ratio, BTE 64 KiB: 4.00x at 8 PEs per node",
		"#   strict   BTE 64 KiB: best at 4 PEs per node (40 MB/s); at 8 PEs per node 20 MB/s, 2.00x lower",
		"#   relaxed  BTE 64 KiB: best at 8 PEs per node (80 MB/s), the most measured",
		"#   strict:  BTE overtakes FMA near 2.4 KiB",
		"8                       4.00\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// A strict bandwidth of 0 gives no ratio, and JSON null.
	r := synthetic()
	r.PPNCurves[0].Points[0].Bandwidth = 0
	if v := Summarize(r).Ratios[0].Ratio[0]; !math.IsNaN(v) {
		t.Errorf("ratio over 0 = %v, want NaN", v)
	}
	if rr := r.NewRecord().Summary.Ratios[0].Ratio; rr[0] != nil || *rr[3] != 4 {
		t.Errorf("JSON ratios %v", rr)
	}
}

// A tiny study of the put and shared vs non-shared sweeps alone runs,
// fills their points with the right settings and prints them.
func TestTinyAddedSweeps(t *testing.T) {
	cfg := Config{Base: pgas.Config{Conduit: "gemini", Seed: 3}, Op: bench.Get, Nodes: 2,
		PutPPNs: []int{1, 2}, PutSizes: []int{64, 4096}, PutWindow: 4,
		OneSidedPPNs: []int{1, 2}, OneSidedSizes: []int{8 << 10}, OneSidedWindows: []int{1, 2},
		Iterations: 2, Warmup: 1, Parallel: 2}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.SizeCurves)+len(res.PPNCurves) != 0 || len(res.PutCurves) != 2 || len(res.OneSidedCurves) != 4 {
		t.Fatalf("%d put curves, %d shared/non-shared curves; want 2 and 4", len(res.PutCurves), len(res.OneSidedCurves))
	}
	for i, c := range res.PutCurves {
		for j, p := range c.Points {
			if p.PPN != cfg.PutPPNs[i] || p.Size != cfg.PutSizes[j] || p.Window != 4 || p.Mechanism != bench.FMA || p.Ordering != pgas.OrderRelaxed || !(p.Bandwidth > 0) {
				t.Errorf("put point %+v", p)
			}
		}
	}
	for i, c := range res.OneSidedCurves {
		if c.Unregistered != (i%2 == 1) || c.Window != cfg.OneSidedWindows[i/2] {
			t.Errorf("curve %d: window %d, unregistered %v", i, c.Window, c.Unregistered)
		}
		for j, p := range c.Points {
			if p.PPN != cfg.OneSidedPPNs[j] || p.Window != c.Window || p.Unregistered != c.Unregistered || p.Mechanism != bench.Auto || !(p.Bandwidth > 0) {
				t.Errorf("shared/non-shared point %+v", p)
			}
		}
	}
	s := Summarize(res)
	if s.Saturation == nil || len(s.Saturation.Size) != 2 || len(s.NonShared) != 2 || len(s.FewCores) != 0 {
		t.Errorf("summary %+v", s)
	}
	text, recs, rec := outputs(t, res)
	for _, want := range []string{"# [GEMINI-HOTI] Figure 8: FMA put bandwidth vs message size, 2 nodes (node 0's PEs put to node 1's), window 4",
		"# Size      1 PE/node (MB/s) 2 PEs/node (MB/s)\n64 ",
		"# [ORDERING] Figure 9: get bandwidth vs PEs per node, 8.0 KiB (8192 B)",
		"# PEs/node         shared W1     non-shared W1         shared W2     non-shared W2\n1 ",
		"# FMA put saturation (Figure 8)", "# Non-shared slowdown (Figure 9)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	if len(recs) != 1+4+8 || recs[1][0] != "put" || recs[1][3] != "put" || recs[1][12] != "4" || recs[5][0] != "onesided" || recs[len(recs)-1][13] != "true" {
		t.Errorf("CSV: %v", recs)
	}
	if len(rec.PutSweep) != 2 || len(rec.OneSidedSweep) != 4 || rec.Summary.Saturation == nil || len(rec.Summary.NonShared) != 2 || !rec.OneSidedSweep[1].Unregistered {
		t.Errorf("JSON record %+v", rec)
	}
	var gb bytes.Buffer
	if err := res.WriteGoBench(&gb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nBenchmarkOrderingStudy/put/mech=fma/ppn=2/window=4/size=4096 1 ", "\nBenchmarkOrderingStudy/onesided/unregistered=true/size=8192/window=2/ppn=1 1 "} {
		if !strings.Contains(gb.String(), want) {
			t.Errorf("gobench lacks %q:\n%s", want, gb.String())
		}
	}
	paths, err := res.SavePlots(t.TempDir(), "svg")
	if err != nil || len(paths) != 2 {
		t.Errorf("plots %v, %v", paths, err)
	}
}

func TestWindowIterations(t *testing.T) {
	for _, c := range []struct{ size, window, ppn, want int }{
		{8, 1, 24, 100}, {8 << 10, 1, 1, 100}, {8 << 10, 1, 24, 22}, {8 << 10, 4, 8, 16}, {64 << 10, 16, 1, 4}, {256 << 10, 1, 4, 4},
		{2 << 20, 4, 1, 2}, {1, 0, 0, 100}} {
		if got := WindowIterations(c.size, c.window, c.ppn); got != c.want {
			t.Errorf("WindowIterations(%d, %d, %d) = %d, want %d", c.size, c.window, c.ppn, got, c.want)
		}
	}
	if PutIterations(1<<20, 16, 4) != PutMinIterations || PutIterations(8, 16, 1) != 100 {
		t.Errorf("PutIterations: %d at 1 MiB, %d at 8 B", PutIterations(1<<20, 16, 4), PutIterations(8, 16, 1))
	}
}

func TestSaturationSize(t *testing.T) {
	sizes := []int{1024, 2048, 4096, 8192}
	// 90 is reached a third of the way (in bandwidth) from 2 KiB to 4 KiB.
	if got, want := SaturationSize(sizes, []float64{10, 60, 150, 200}, 90), 2048*math.Pow(2, 1.0/3); math.Abs(got-want) > 1e-9 {
		t.Errorf("interpolated %v, want %v", got, want)
	}
	if got := SaturationSize(sizes, []float64{95, 60, 150, 200}, 90); got != 1024 {
		t.Errorf("at the first size: %v", got)
	}
	if got := SaturationSize(sizes, []float64{10, 20, 30, 89}, 90); !math.IsInf(got, 1) {
		t.Errorf("never reached: %v, want +Inf", got)
	}
	// A curve that dips and comes back: the first crossing counts.
	if got := SaturationSize(sizes, []float64{10, 90, 50, 100}, 90); got != 2048 {
		t.Errorf("first crossing %v, want 2048", got)
	}
	for _, c := range []struct {
		xs   []float64
		want int
	}{{[]float64{8, 4, 2}, 0}, {[]float64{8, 8, 2}, 1}, {[]float64{2, 4, 8}, 2}, {[]float64{8, math.NaN(), 2}, 2}, {[]float64{math.Inf(1), 8, 2}, 0}, {[]float64{math.Inf(1), math.Inf(1), 2}, 1}, {nil, 0}} {
		if got := StrictFallViolations(c.xs); got != c.want {
			t.Errorf("StrictFallViolations(%v) = %d, want %d", c.xs, got, c.want)
		}
	}
}

// putAndOneSided builds results of the added sweeps from tables.
func putAndOneSided() *Results {
	sizes := []int{1024, 2048, 4096}
	ppns := []int{1, 2, 4, 8}
	put := func(ppn int, bw []float64) Curve {
		c := Curve{Ordering: pgas.OrderRelaxed, Mechanism: bench.FMA, PPN: ppn, Window: 16}
		for i, s := range sizes {
			c.Points = append(c.Points, Point{Ordering: pgas.OrderRelaxed, Mechanism: bench.FMA, Size: s, PPN: ppn, Window: 16, Bandwidth: bw[i]})
		}
		return c
	}
	one := func(size, w int, unreg bool, bw []float64) Curve {
		c := Curve{Ordering: pgas.OrderRelaxed, Mechanism: bench.Auto, Size: size, Window: w, Unregistered: unreg}
		for i, p := range ppns {
			c.Points = append(c.Points, Point{Ordering: pgas.OrderRelaxed, Mechanism: bench.Auto, Size: size, PPN: p, Window: w, Unregistered: unreg, Bandwidth: bw[i]})
		}
		return c
	}
	return &Results{
		Config: Config{Nodes: 4, Op: bench.Get, PutPPNs: []int{1, 2, 4}, PutSizes: sizes, PutWindow: 16,
			OneSidedPPNs: ppns, OneSidedSizes: []int{8192}, OneSidedWindows: []int{1, 4}},
		Conduit: "gemini", Simulated: true,
		PutCurves: []Curve{put(1, []float64{10, 50, 80}), put(2, []float64{20, 90, 100}), put(4, []float64{90, 95, 100})},
		OneSidedCurves: []Curve{
			one(8192, 1, false, []float64{100, 200, 380, 400}), one(8192, 1, true, []float64{100, 190, 380, 360}),
			one(8192, 4, false, []float64{300, 400, 300, 200}), one(8192, 4, true, []float64{330, 400, 300, 200}),
		},
	}
}

func TestSummarizeAddedSweeps(t *testing.T) {
	s := Summarize(putAndOneSided())
	sat := s.Saturation
	if sat == nil || sat.Peak != 100 || sat.PeakPPN != 2 || sat.PeakSize != 4096 || !reflect.DeepEqual(sat.PPN, []int{1, 2, 4}) {
		t.Fatalf("saturation %+v", sat)
	}
	// Level 90: never at 1 PE per node, 2 KiB at 2, 1 KiB at 4: falls.
	if !math.IsInf(sat.Size[0], 1) || sat.Size[1] != 2048 || sat.Size[2] != 1024 || sat.Violations() != 0 {
		t.Errorf("saturation sizes %v, %d violations", sat.Size, sat.Violations())
	}
	if len(s.NonShared) != 2 || len(s.FewCores) != 2 {
		t.Fatalf("non-shared %+v, few cores %+v", s.NonShared, s.FewCores)
	}
	if sd := s.NonShared[0]; sd.Size != 8192 || sd.Window != 1 || !reflect.DeepEqual(sd.Percent, []float64{0, 5, 0, 10}) {
		t.Errorf("slowdown %+v", sd)
	}
	if pct, ppn := s.NonShared[0].Worst(); pct != 10 || ppn != 8 {
		t.Errorf("worst %v at %d", pct, ppn)
	}
	if pct, ppn := s.NonShared[1].Worst(); pct != 0 || ppn != 2 {
		t.Errorf("worst of a curve the non-shared beats at 1 PE per node: %v at %d", pct, ppn)
	}
	if f := s.FewCores[0]; f.At != 380 || f.Best != 400 || f.BestPPN != 8 || f.Ratio() != 0.95 {
		t.Errorf("few cores %+v", f)
	}
	if f := s.FewCores[1]; f.At != 300 || f.Best != 400 || f.BestPPN != 2 || f.Ratio() != 0.75 {
		t.Errorf("few cores %+v", f)
	}
	if _, ok := FewCoresOf([]int{1, 2}, []float64{1, 2}, 4); ok {
		t.Error("FewCoresOf found 4 PEs per node among 1 and 2")
	}
	if v := SlowdownPercent(0, 5); !math.IsNaN(v) {
		t.Errorf("slowdown over 0 = %v", v)
	}
	var b bytes.Buffer
	if err := putAndOneSided().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#   1 PE/node never up to 4.0 KiB, 2 PEs/node 2.0 KiB, 4 PEs/node 1.0 KiB; falls strictly with more PEs per node",
		"#   8.0 KiB W1: 10.0% at 8 PEs per node",
		"#   8.0 KiB W4: 0.750 (300 MB/s; best 400 MB/s at 2 PEs per node)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	rec := putAndOneSided().NewRecord()
	if rs := rec.Summary.Saturation; rs == nil || rs.Size[0] != nil || *rs.Size[1] != 2048 || rs.Violations != 0 || rs.Level != SaturationLevel {
		t.Errorf("JSON saturation %+v", rs)
	}
	if fc := rec.Summary.FewCores; len(fc) != 2 || *fc[1].Ratio != 0.75 || fc[1].PPN != FewCoresPPN {
		t.Errorf("JSON few cores %+v", fc)
	}
}

// Points with large buffers run apart: spreadBig puts one that is not
// between two that are, while there are, and keeps the order otherwise.
func TestSpreadBig(t *testing.T) {
	cfg := Default()
	if !cfg.big(key{kind: figOneSided, size: 2 << 20, ppn: 24, window: 2}) || cfg.big(key{kind: figOneSided, size: 2 << 20, ppn: 8, window: 2}) ||
		cfg.big(key{kind: figPut, size: 1 << 20, ppn: 4, window: 16}) {
		t.Error("big points misjudged")
	}
	k := func(n int) key { return key{size: n} }
	isBig := func(k key) bool { return k.size >= 100 }
	got := spreadBig([]key{k(300), k(200), k(100), k(5), k(4)}, isBig)
	if want := []key{k(300), k(5), k(200), k(4), k(100)}; !reflect.DeepEqual(got, want) {
		t.Errorf("spreadBig = %v, want %v", got, want)
	}
	got = spreadBig([]key{k(7), k(300), k(5), k(4)}, isBig)
	if want := []key{k(300), k(7), k(5), k(4)}; !reflect.DeepEqual(got, want) {
		t.Errorf("spreadBig = %v, want %v", got, want)
	}
}
