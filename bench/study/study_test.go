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
	if rec.Schema != Schema || len(rec.SizeSweep) != 4 || len(rec.PPNSweep) != 4 || rec.SizeSweep[0].Points[1].BandwidthMBps != res.SizeCurves[0].Points[1].Bandwidth {
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
