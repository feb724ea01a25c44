package study

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// A tiny two-sided sweep runs on the simulated Gemini, fills every point
// with its protocol, shares nothing between two-sided and one-sided
// points, and prints section V in every format.
func TestTinyTwoSidedSweep(t *testing.T) {
	cfg := Config{Base: pgas.Config{Conduit: "gemini", Seed: 3}, Op: bench.Get, Nodes: 2,
		TwoSidedPPNs: []int{1, 2}, TwoSidedSizes: []int{8, 16 << 10}, TwoSidedWindows: []int{1, 4}, TwoSidedLargeWindows: []int{1},
		TwoSidedSmallMax: 8 << 10, NoRendezvousSizes: []int{16 << 10}, Iterations: 2, Warmup: 1, Parallel: 2}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// 8 B: windows 1 and 4; 16 KiB: window 1, with and without rendezvous.
	if len(res.TwoSidedCurves) != 4 || len(res.CounterpartCurves) != 3 {
		t.Fatalf("%d two-sided curves, %d counterparts; want 4 and 3", len(res.TwoSidedCurves), len(res.CounterpartCurves))
	}
	wantProto := map[bool]map[int]string{false: {8: "eager-short", 16 << 10: "rendezvous-get"}, true: {16 << 10: "eager-buffered"}}
	for _, c := range res.TwoSidedCurves {
		for j, p := range c.Points {
			if p.PPN != cfg.TwoSidedPPNs[j] || p.Window != c.Window || p.NoRendezvous != c.NoRendezvous || !(p.Bandwidth > 0) || p.Protocol != wantProto[c.NoRendezvous][c.Size] {
				t.Errorf("two-sided point %+v", p)
			}
		}
	}
	for i, c := range res.CounterpartCurves {
		if c.Size != res.TwoSidedCurves[i].Size || c.Window != res.TwoSidedCurves[i].Window || c.Unregistered {
			t.Errorf("counterpart %d: %+v for %+v", i, c, res.TwoSidedCurves[i])
		}
		for _, p := range c.Points {
			if !(p.Bandwidth > 0) || p.Protocol != "" {
				t.Errorf("counterpart point %+v", p)
			}
		}
	}
	s := Summarize(res).TwoSided
	if s == nil || len(s.Saturation) != 7 || len(s.Ratios) != 3 || len(s.Peaks) != 4 || len(s.Protocols) != 2 {
		t.Fatalf("summary %+v", s)
	}
	if p := s.Protocols[1]; p.Size != 16<<10 || p.Rendezvous != "rendezvous-get" || p.NoRendezvous != "eager-buffered" {
		t.Errorf("protocols %+v", s.Protocols)
	}
	text, recs, rec := outputs(t, res)
	for _, want := range []string{"# [ORDERING] Figure 11: two-sided (Isend/Irecv) bandwidth vs PEs per node, 16 KiB (16384 B, rendezvous-get)",
		"# PEs/node        2-sided W1        no-rndv W1        1-sided W1\n1 ",
		"#   16 KiB  rendezvous-get / eager-buffered", "# PEs per node each curve needs for 90% of its own best", "# Two-sided / one-sided bandwidth"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	if len(recs) != 1+8+6 || recs[1][0] != "twosided" || recs[1][3] != "send/recv" || recs[1][15] != "eager-short" || recs[len(recs)-1][0] != "counterpart" {
		t.Errorf("CSV: %v", recs)
	}
	if len(rec.TwoSidedSweep) != 4 || len(rec.Counterparts) != 3 || rec.Summary.TwoSided == nil || !rec.TwoSidedSweep[3].NoRendezvous ||
		rec.TwoSidedSweep[0].Points[0].Protocol != "eager-short" {
		t.Errorf("JSON record %+v", rec)
	}
	paths, err := res.SavePlots(t.TempDir(), "svg")
	if err != nil || len(paths) != 2 {
		t.Errorf("plots %v, %v", paths, err)
	}
}

func TestSaturationPPN(t *testing.T) {
	ppns := []int{1, 2, 4, 8, 24}
	for _, c := range []struct {
		bw       []float64
		want, at int
	}{
		{[]float64{10, 50, 91, 100, 95}, 4, 8},
		{[]float64{100, 50, 50, 50, 50}, 1, 1},
		{[]float64{1, 2, 3, 4, 100}, 24, 24},
		{[]float64{0, 0, 0, 0, 0}, 0, 0},
	} {
		got, _, at := SaturationPPN(ppns, c.bw, SaturationLevel)
		if got != c.want || at != c.at {
			t.Errorf("%v: %d (best at %d), want %d (best at %d)", c.bw, got, at, c.want, c.at)
		}
	}
}

// The summary's ratios pair each two-sided curve with its counterpart
// point by point.
func TestSummarizeTwoSided(t *testing.T) {
	curve := func(size, w int, nolmt bool, proto string, bw ...float64) Curve {
		c := Curve{Size: size, Window: w, NoRendezvous: nolmt}
		for i, v := range bw {
			c.Points = append(c.Points, Point{Size: size, PPN: 1 << i, Window: w, Bandwidth: v, NoRendezvous: nolmt, Protocol: proto})
		}
		return c
	}
	r := &Results{
		TwoSidedCurves:    []Curve{curve(8, 1, false, "eager-short", 10, 30, 20), curve(8<<10, 1, true, "eager-buffered", 5, 6, 7)},
		CounterpartCurves: []Curve{curve(8, 1, false, "", 40, 60, 80)},
	}
	s := Summarize(r).TwoSided
	if len(s.Ratios) != 1 || math.Abs(s.Ratios[0].BestRatio-30.0/80) > 1e-12 {
		t.Fatalf("ratios %+v", s.Ratios)
	}
	if lo, hi := s.Ratios[0].Range(); lo != 0.25 || hi != 0.5 {
		t.Errorf("range %v..%v, want 0.25..0.5", lo, hi)
	}
	if s.Peaks[0].PPN != 2 || s.Peaks[0].LastPPN != 4 {
		t.Errorf("peak %+v", s.Peaks[0])
	}
	if p := s.Saturation; p[0].PPN != 2 || p[1].PPN != 4 || p[1].Kind != "two-sided, no rendezvous" || p[2].Kind != "one-sided" || p[2].PPN != 4 {
		t.Errorf("saturation %+v", p)
	}
	if len(s.Protocols) != 2 || s.Protocols[1].NoRendezvous != "eager-buffered" || s.Protocols[1].Rendezvous != "" {
		t.Errorf("protocols %+v", s.Protocols)
	}
}

// outputs are the results' text, CSV rows and JSON record.
func outputs(t *testing.T, res *Results) (string, [][]string, Record) {
	t.Helper()
	var text, cs, js bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(js.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	return text.String(), recs, rec
}
