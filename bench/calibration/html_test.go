package calibration

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The page holds every row with one band per expectation, escapes the
// rows' text, opens the misses, writes the counts its script checks, and
// draws a band for each kind of check (including a missing value).
func TestWritePage(t *testing.T) {
	rows := Rows(gem)
	var outs []Outcome
	for i, r := range rows {
		o := Outcome{Row: r, Status: Pass}
		for _, e := range r.Expect {
			v := e.Target
			if e.Check == InRange {
				v = (e.Lo + e.Hi) / 2
			}
			switch i % 3 {
			case 1:
				v *= 3
				o.Status = Fail
			case 2:
				v = math.NaN()
				o.Status = Error
			}
			o.Values = append(o.Values, v)
			o.Passed = append(o.Passed, e.Pass(v))
		}
		o.Detail = "detail <of> " + r.ID
		outs = append(outs, o)
	}
	var buf bytes.Buffer
	if err := WritePage(&buf, Page{Seed: 7, Backends: []PageBackend{{Backend: gem, Outcomes: outs}}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	bands := 0
	for _, r := range rows {
		bands += len(r.Expect)
		if !strings.Contains(page, `id="`+r.ID+`"`) {
			t.Errorf("row %s is not on the page", r.ID)
		}
	}
	if want := fmt.Sprintf(`data-expect="rows=%d bands=%d figures=0"`, len(rows), bands); !strings.Contains(page, want) {
		t.Errorf("the page does not say %s", want)
	}
	if got := strings.Count(page, `<tr class="row `); got != len(rows) {
		t.Errorf("%d rows drawn, want %d", got, len(rows))
	}
	if got := strings.Count(page, `<svg class="band"`); got != bands {
		t.Errorf("%d bands drawn, want %d", got, bands)
	}
	if strings.Contains(page, "detail <of>") || !strings.Contains(page, "detail &lt;of&gt;") {
		t.Error("the rows' text is not escaped")
	}
	if !strings.Contains(page, "no value") {
		t.Error("a missing value is not shown")
	}
	for _, want := range []string{"<details open>", "Why the model misses it", "Fitted parameters", "seed 7", "</html>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("the page refers to the network")
	}
}

func TestBlocks(t *testing.T) {
	for id, want := range map[string]string{
		"G-LAT-PUT": "Latency and hops", "A-HOP": "Latency and hops", "G-ORD-DEF": "Ordering", "G-PUT-GET": "Ordering",
		"G-FMA-BIG": "NIC engines: FMA and block transfers", "G-REG-LIMIT": "Registration", "G-MPI-RATE": "Two-sided messaging",
		"A-CE-SHAPE": "Atomics and the collective engine", "X-NEW": "Other rows",
	} {
		if got := blockTitle(blockOf(id)); got != want {
			t.Errorf("%s is in block %q, want %q", id, got, want)
		}
	}
	for _, be := range Backends() {
		for _, r := range Rows(be) {
			if blockOf(r.ID) == len(blocks) {
				t.Errorf("row %s belongs to no block", r.ID)
			}
		}
	}
}

func TestBandLimits(t *testing.T) {
	for _, c := range []struct {
		e      Expect
		lo, hi float64
	}{
		{Expect{Check: Within, Target: 100}, 90, 110},
		{Expect{Check: Within, Target: 100, Tol: 0.2}, 80, 120},
		{Expect{Check: Below, Target: 5}, 0, 5},
		{Expect{Check: AtLeast, Target: 5}, 5, math.Inf(1)},
		{Expect{Check: InRange, Lo: 2, Hi: 8, Target: 4}, 2, 8},
		{Expect{Check: Exact, Target: 3}, 3, 3},
	} {
		lo, hi := bandLimits(c.e)
		if math.Abs(lo-c.lo) > 1e-9 || (math.Abs(hi-c.hi) > 1e-9 && !(math.IsInf(hi, 1) && math.IsInf(c.hi, 1))) {
			t.Errorf("%v: band %v..%v, want %v..%v", c.e, lo, hi, c.lo, c.hi)
		}
	}
}

// Backends lists every backend with rows once, in the sheet's order.
func TestBackendsInSheetOrder(t *testing.T) {
	got := Backends()
	if want := []string{gem, ari}; !slices.Equal(got, want) {
		t.Errorf("Backends() = %v, want %v", got, want)
	}
	if len(got) != len(registry) {
		t.Errorf("Backends() = %v, the registry has %d backends", got, len(registry))
	}
	for _, b := range got {
		if len(registry[b]) == 0 {
			t.Errorf("backend %s has no rows", b)
		}
	}
}
