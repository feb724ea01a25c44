package study

import (
	"fmt"
	"strings"

	"github.com/gopgas/gopgas/bench/report"
)

// twoSidedName is a two-sided sweep curve's column name.
func twoSidedName(cv Curve) string {
	if cv.NoRendezvous {
		return fmt.Sprintf("no-rndv W%d", cv.Window)
	}
	return fmt.Sprintf("2-sided W%d", cv.Window)
}

// twoSidedOf are the two-sided curves of size and their counterparts.
func (r *Results) twoSidedOf(size int) (two, one []Curve) {
	for _, cv := range r.TwoSidedCurves {
		if cv.Size == size {
			two = append(two, cv)
		}
	}
	for _, cv := range r.CounterpartCurves {
		if cv.Size == size {
			one = append(one, cv)
		}
	}
	return two, one
}

// twoSidedSizes are the sizes of the two-sided sweep, with rendezvous
// first, then those measured only without.
func (c *Config) twoSidedSizes() []int {
	out := append([]int(nil), c.TwoSidedSizes...)
	for _, s := range c.NoRendezvousSizes {
		found := false
		for _, t := range out {
			found = found || t == s
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

// writeTwoSidedTables prints Figure 11: per size, the two-sided curves
// and their one-sided counterparts by PEs per node.
func (r *Results) writeTwoSidedTables(hdr func(string, ...any), head func(string, []string), row func(int, []float64)) {
	c := &r.Config
	for _, size := range c.twoSidedSizes() {
		two, one := r.twoSidedOf(size)
		if len(two) == 0 {
			continue
		}
		proto := ""
		if len(two[0].Points) > 0 && two[0].Points[0].Protocol != "" {
			proto = ", " + two[0].Points[0].Protocol
		}
		hdr("")
		hdr("[ORDERING] Figure 11: two-sided (Isend/Irecv) bandwidth vs PEs per node, %s (%d B%s), %d nodes, relaxed data, strictly ordered matching; 1-sided: %v in the segment, same window",
			bytesText(float64(size)), size, proto, c.Nodes, c.Op)
		var cols []string
		curves := append(append([]Curve(nil), two...), one...)
		for _, cv := range two {
			cols = append(cols, twoSidedName(cv))
		}
		for _, cv := range one {
			cols = append(cols, fmt.Sprintf("1-sided W%d", cv.Window))
		}
		head("# PEs/node", cols)
		for i, p := range c.TwoSidedPPNs {
			row(p, column(curves, i))
		}
	}
}

// writeTwoSidedSummary prints section V's reading of the sweep.
func writeTwoSidedSummary(t *TwoSided, hdr func(string, ...any)) {
	hdr("Two-sided protocols by size (with rendezvous / without):")
	for _, p := range t.Protocols {
		without := p.NoRendezvous
		if without == "" {
			without = "-"
		}
		with := p.Rendezvous
		if with == "" {
			with = "-"
		}
		hdr("  %-7s %s / %s", bytesText(float64(p.Size)), with, without)
	}
	hdr("PEs per node each curve needs for %.0f%% of its own best (Figures 9 and 11):", 100*SaturationLevel)
	for _, s := range t.Saturation {
		at := "never"
		if s.PPN > 0 {
			at = fmt.Sprint(s.PPN)
		}
		hdr("  %-24s %-7s W%-2d: %s (best %s at %d PEs per node)", s.Kind, bytesText(float64(s.Size)), s.Window, at, bwText(s.Best), s.BestPPN)
	}
	hdr("Two-sided / one-sided bandwidth, same size, window and PEs per node (lowest..highest over PEs per node; best over best):")
	for _, sr := range t.Ratios {
		lo, hi := sr.Range()
		hdr("  %-7s W%-2d: %.2f..%.2f; best/best %.2f", bytesText(float64(sr.Size)), sr.Window, lo, hi, sr.BestRatio)
	}
	hdr("Two-sided peaks over PEs per node:")
	var parts []string
	for i, pk := range t.Peaks {
		parts = append(parts, fmt.Sprintf("%s at %d (%s; %s at %d)", bytesText(float64(pk.Size)), pk.PPN, bwText(pk.Bandwidth), bwText(pk.LastBandwidth), pk.LastPPN))
		if i%2 == 1 || i == len(t.Peaks)-1 {
			hdr("  %s", strings.Join(parts, "; "))
			parts = parts[:0]
		}
	}
}

// TwoSidedRecord is a TwoSided in a Record.
type TwoSidedRecord struct {
	Level      float64               `json:"level"`
	Saturation []PPNSaturationRecord `json:"saturation"`
	Ratios     []SideRatioRecord     `json:"ratios"`
	Peaks      []PeakRecord          `json:"peaks"`
	Protocols  []ProtocolRecord      `json:"protocols"`
}

// PPNSaturationRecord is a PPNSaturation in a Record; PPN 0: no PEs per
// node reached the level.
type PPNSaturationRecord struct {
	Kind     string   `json:"kind"`
	Size     int      `json:"size"`
	Window   int      `json:"window"`
	PPN      int      `json:"ppn"`
	BestMBps *float64 `json:"best_mbps"`
	BestPPN  int      `json:"best_ppn"`
}

// SideRatioRecord is a SideRatio in a Record.
type SideRatioRecord struct {
	Size      int        `json:"size"`
	Window    int        `json:"window"`
	PPN       []int      `json:"ppn"`
	Ratio     []*float64 `json:"ratio"`
	BestRatio *float64   `json:"best_ratio"`
}

// ProtocolRecord is a ProtocolAt in a Record.
type ProtocolRecord struct {
	Size         int    `json:"size"`
	Rendezvous   string `json:"rendezvous"`
	NoRendezvous string `json:"no_rendezvous"`
}

func twoSidedRecord(t *TwoSided) *TwoSidedRecord {
	if t == nil {
		return nil
	}
	rec := &TwoSidedRecord{Level: SaturationLevel, Saturation: []PPNSaturationRecord{}, Ratios: []SideRatioRecord{}, Peaks: []PeakRecord{}, Protocols: []ProtocolRecord{}}
	for _, s := range t.Saturation {
		rec.Saturation = append(rec.Saturation, PPNSaturationRecord{s.Kind, s.Size, s.Window, s.PPN, report.Null(s.Best), s.BestPPN})
	}
	for _, sr := range t.Ratios {
		rec.Ratios = append(rec.Ratios, SideRatioRecord{Size: sr.Size, Window: sr.Window, PPN: orEmpty(sr.PPN), Ratio: report.Nullable(sr.Ratio),
			BestRatio: report.Null(sr.BestRatio)})
	}
	for _, pk := range t.Peaks {
		rec.Peaks = append(rec.Peaks, PeakRecord{pk.Ordering.String(), pk.Mechanism.String(), pk.Size, pk.PPN, report.Null(pk.Bandwidth), pk.LastPPN, report.Null(pk.LastBandwidth)})
	}
	for _, p := range t.Protocols {
		rec.Protocols = append(rec.Protocols, ProtocolRecord(p))
	}
	return rec
}

// twoSidedFigures are Figure 11's plots, one per size ("twosided-8K"):
// the two-sided curves and their one-sided counterparts.
func (r *Results) twoSidedFigures(where string) []NamedFigure {
	c := &r.Config
	var out []NamedFigure
	for _, size := range c.twoSidedSizes() {
		two, one := r.twoSidedOf(size)
		if len(two) == 0 {
			continue
		}
		f := &report.Figure{Title: fmt.Sprintf("Two-sided vs one-sided %s bandwidth vs PEs per node (%s)", bytesText(float64(size)), where),
			XLabel: "PEs per node", YLabel: "Aggregate bandwidth (MB/s)", XTicks: ppnTicks(c.TwoSidedPPNs)}
		for _, cv := range two {
			f.Series = append(f.Series, byPPN(twoSidedName(cv), cv))
		}
		for _, cv := range one {
			f.Series = append(f.Series, byPPN(fmt.Sprintf("1-sided W%d", cv.Window), cv))
		}
		out = append(out, NamedFigure{"twosided-" + report.SizeLabel(int64(size)), f})
	}
	return out
}
