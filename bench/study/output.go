package study

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

// Title is the study's title line.
const Title = "Ordering study: the message-ordering paper [ORDERING], sections III to V"

// mechName is a mechanism as the tables name it.
func mechName(m bench.Mechanism) string {
	switch m {
	case bench.FMA:
		return "FMA"
	case bench.BTE:
		return "BTE"
	}
	return m.String()
}

func bytesText(n float64) string { return humanize.IBytes(uint64(math.Round(n))) }

// bwText prints MB/s as a rate in SI units ("7.45 GB/s").
func bwText(mbps float64) string { return humanize.SIWithDigits(mbps*1e6, 2, "B/s") }

func (r *Results) pairs(ppn int) int { return r.Config.Nodes * ppn / 2 }

func (r *Results) timeBase() string {
	if r.Simulated {
		return "simulated time"
	}
	return "wall-clock time"
}

// iterationsText describes the iterations the points ran.
func (c *Config) iterationsText() string {
	it := "10 up to 16 KiB, 5 up to 256 KiB, 3 above"
	wit := "4 MiB per node over size x window x PEs per node, 2 to 100 (put: 10 to 100)"
	if c.Iterations > 0 {
		it = strconv.Itoa(c.Iterations)
		wit = it
	}
	w, ww := 1, WindowWarmup
	if c.Warmup > 0 {
		w, ww = c.Warmup, c.Warmup
	}
	s := fmt.Sprintf("%s; warm-up %d", it, w)
	if len(c.PutPPNs) > 0 || len(c.OneSidedPPNs) > 0 {
		s += fmt.Sprintf(" (put and shared/non-shared sweeps: %s; warm-up %d)", wit, ww)
	}
	return s
}

// WriteText prints the study as OSU-style tables (every line that is not
// a table row starts with "# ") followed by the summary.
func (r *Results) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	c := &r.Config
	hdr := func(format string, args ...any) {
		fmt.Fprintln(b, strings.TrimRight("# "+fmt.Sprintf(format, args...), " "))
	}
	backend := "(real)"
	if r.Simulated {
		backend = "(simulated network)"
	}
	hdr("%s (%s v%s)", Title, report.Tool, report.Version)
	hdr("Backend: %s %s", r.Conduit, backend)
	hdr("Benchmark: the paper's Figure 2, %v, one operation outstanding per PE (window 1), %d nodes", c.Op, c.Nodes)
	hdr("Iterations: %s", c.iterationsText())
	hdr("Time base: %s", r.timeBase())
	row := func(x int, vals []float64) {
		fmt.Fprintf(b, "%-*d", report.SizeWidth, x)
		for _, v := range vals {
			fmt.Fprintf(b, "%*.*f", report.FieldWidth, report.FloatPrecision, v)
		}
		b.WriteByte('\n')
	}
	head := func(first string, cols []string) {
		fmt.Fprintf(b, "%-*s", report.SizeWidth, first)
		for _, col := range cols {
			fmt.Fprintf(b, "%*s", report.FieldWidth, col)
		}
		b.WriteByte('\n')
	}
	for _, o := range c.Orderings {
		curves := r.curvesOf(r.SizeCurves, o, 0)
		if len(curves) == 0 {
			continue
		}
		hdr("")
		hdr("Figure 3: bandwidth vs message size, %v ordering, %d PEs per node (%d pairs)", o, c.PPN, r.pairs(c.PPN))
		var cols []string
		for _, cv := range curves {
			cols = append(cols, mechName(cv.Mechanism)+" (MB/s)")
		}
		head("# Size", cols)
		for i, s := range c.Sizes {
			row(s, column(curves, i))
		}
	}
	for _, o := range c.Orderings {
		for _, size := range c.SweepSizes {
			curves := r.curvesOf(r.PPNCurves, o, size)
			if len(curves) == 0 {
				continue
			}
			hdr("")
			hdr("Figures 4 and 5: bandwidth vs PEs per node, %v ordering, %s (%d B)", o, bytesText(float64(size)), size)
			var cols []string
			for _, cv := range curves {
				cols = append(cols, mechName(cv.Mechanism)+" (MB/s)")
			}
			head("# PEs/node", cols)
			for i, p := range c.PPNs {
				row(p, column(curves, i))
			}
		}
	}
	if len(r.PutCurves) > 0 {
		hdr("")
		hdr("[GEMINI-HOTI] Figure 8: FMA put bandwidth vs message size, %d nodes (node 0's PEs put to node 1's), window %d, relaxed ordering", putNodes, c.PutWindow)
		var cols []string
		for _, cv := range r.PutCurves {
			cols = append(cols, ppnName(cv.PPN)+" (MB/s)")
		}
		head("# Size", cols)
		for i, s := range c.PutSizes {
			row(s, column(r.PutCurves, i))
		}
	}
	for _, size := range c.OneSidedSizes {
		curves := r.oneSidedOf(size)
		if len(curves) == 0 {
			continue
		}
		hdr("")
		hdr("[ORDERING] Figure 9: %v bandwidth vs PEs per node, %s (%d B), %d nodes, relaxed ordering, automatic mechanism; local buffers in the segment (shared) or not (non-shared)",
			c.Op, bytesText(float64(size)), size, c.Nodes)
		var cols []string
		for _, cv := range curves {
			cols = append(cols, oneSidedName(cv))
		}
		head("# PEs/node", cols)
		for i, p := range c.OneSidedPPNs {
			row(p, column(curves, i))
		}
	}
	r.writeTwoSidedTables(hdr, head, row)
	r.writeSummary(b, Summarize(r), hdr, head, row)
	return b.Flush()
}

// ppnName is a put curve's column name.
func ppnName(ppn int) string {
	if ppn == 1 {
		return "1 PE/node"
	}
	return strconv.Itoa(ppn) + " PEs/node"
}

// oneSidedName is a shared vs non-shared curve's column name.
func oneSidedName(cv Curve) string {
	what := "shared"
	if cv.Unregistered {
		what = "non-shared"
	}
	return fmt.Sprintf("%s W%d", what, cv.Window)
}

// oneSidedOf are the shared vs non-shared sweep's curves of size.
func (r *Results) oneSidedOf(size int) []Curve {
	var out []Curve
	for _, cv := range r.OneSidedCurves {
		if cv.Size == size {
			out = append(out, cv)
		}
	}
	return out
}

// curvesOf are the curves of ordering o (and, for the concurrency sweep,
// of size), in the Config's order.
func (r *Results) curvesOf(cs []Curve, o pgas.Ordering, size int) []Curve {
	var out []Curve
	for _, cv := range cs {
		if cv.Ordering == o && cv.Size == size {
			out = append(out, cv)
		}
	}
	return out
}

func column(curves []Curve, i int) []float64 {
	vals := make([]float64, len(curves))
	for k, cv := range curves {
		if i < len(cv.Points) {
			vals[k] = cv.Points[i].Bandwidth
		}
	}
	return vals
}

func (r *Results) writeSummary(b *bufio.Writer, s Summary, hdr func(string, ...any), head func(string, []string), row func(int, []float64)) {
	hdr("")
	hdr("Summary")
	if len(s.Ratios) > 0 {
		hdr("Relaxed/strict bandwidth ratio by PEs per node (%d nodes, %v):", r.Config.Nodes, r.Config.Op)
		var cols []string
		for _, ra := range s.Ratios {
			cols = append(cols, mechName(ra.Mechanism)+" "+report.SizeLabel(int64(ra.Size)))
		}
		head("# PEs/node", cols)
		for i, p := range r.Config.PPNs {
			vals := make([]float64, len(s.Ratios))
			for k, ra := range s.Ratios {
				vals[k] = math.NaN()
				if i < len(ra.Ratio) {
					vals[k] = ra.Ratio[i]
				}
			}
			row(p, vals)
		}
		for _, ra := range s.Ratios {
			v, ppn := ra.Max()
			hdr("Largest relaxed/strict ratio, %s %s: %.2fx at %d PEs per node", mechName(ra.Mechanism), bytesText(float64(ra.Size)), v, ppn)
		}
	}
	if len(s.Peaks) > 0 {
		hdr("Best PEs per node of each curve, and how far the most PEs per node fall below it:")
		for _, pk := range s.Peaks {
			head := fmt.Sprintf("  %-8s %s %-7s best at %d PEs per node (%s)", pk.Ordering.String(), mechName(pk.Mechanism), bytesText(float64(pk.Size))+":", pk.PPN, bwText(pk.Bandwidth))
			switch {
			case pk.PPN == pk.LastPPN:
				hdr("%s, the most measured", head)
			case pk.Drop() < 1.01:
				hdr("%s; at %d PEs per node %s, within 1%%", head, pk.LastPPN, bwText(pk.LastBandwidth))
			default:
				hdr("%s; at %d PEs per node %s, %.2fx lower", head, pk.LastPPN, bwText(pk.LastBandwidth), pk.Drop())
			}
		}
	}
	if len(s.Crossovers) > 0 {
		x0 := s.Crossovers[0]
		hdr("FMA/BTE crossover (%d PEs per node, %s..%s):", x0.PPN, bytesText(float64(x0.Lo)), bytesText(float64(x0.Hi)))
		for _, x := range s.Crossovers {
			hdr("  %-8s %s", x.Ordering.String()+":", x.Text())
		}
	}
	if sat := s.Saturation; sat != nil {
		hdr("FMA put saturation (Figure 8): smallest size reaching %.0f%% of the peak, the best over every PEs per node (%s, %s at %d PEs per node); interpolated geometrically:",
			100*SaturationLevel, bwText(sat.Peak), bytesText(float64(sat.PeakSize)), sat.PeakPPN)
		var parts []string
		for i, p := range sat.PPN {
			v := "never"
			if len(r.Config.PutSizes) > 0 {
				v += " up to " + bytesText(float64(slices.Max(r.Config.PutSizes)))
			}
			if !math.IsInf(sat.Size[i], 0) && !math.IsNaN(sat.Size[i]) {
				v = bytesText(sat.Size[i])
			}
			parts = append(parts, fmt.Sprintf("%s %s", ppnName(p), v))
		}
		verdict := "falls strictly with more PEs per node"
		if n := sat.Violations(); n > 0 {
			verdict = fmt.Sprintf("does not fall strictly with more PEs per node (%d of %d steps)", n, len(sat.PPN)-1)
		}
		hdr("  %s; %s", strings.Join(parts, ", "), verdict)
	}
	if len(s.NonShared) > 0 {
		hdr("Non-shared slowdown (Figure 9), worst over PEs per node, in %% of the shared bandwidth:")
		for _, sd := range s.NonShared {
			pct, ppn := sd.Worst()
			hdr("  %-7s W%d: %.1f%% at %d PEs per node", bytesText(float64(sd.Size)), sd.Window, pct, ppn)
		}
	}
	if len(s.FewCores) > 0 {
		hdr("Shared bandwidth at %d PEs per node over the best over PEs per node (Figure 9):", FewCoresPPN)
		for _, f := range s.FewCores {
			hdr("  %-7s W%d: %.3f (%s; best %s at %d PEs per node)", bytesText(float64(f.Size)), f.Window, f.Ratio(), bwText(f.At), bwText(f.Best), f.BestPPN)
		}
	}
	if s.TwoSided != nil {
		writeTwoSidedSummary(s.TwoSided, hdr)
	}
}

// Text describes the lead changes in prose.
func (x Crossover) Text() string {
	if len(x.Changes) == 0 {
		return fmt.Sprintf("%s ahead at every size", mechName(x.First))
	}
	var parts []string
	for _, ch := range x.Changes {
		other := bench.FMA
		if ch.Leader == bench.FMA {
			other = bench.BTE
		}
		parts = append(parts, fmt.Sprintf("%s overtakes %s near %s (between %s and %s)", mechName(ch.Leader), mechName(other),
			bytesText(ch.Size), bytesText(float64(ch.Below)), bytesText(float64(ch.Above))))
	}
	return strings.Join(parts, "; ")
}

// sweeps are the results' sweeps by name: "size", "ppn", "put" and
// "onesided".
func (r *Results) sweeps() []sweep {
	return []sweep{{"size", r.SizeCurves}, {"ppn", r.PPNCurves}, {"put", r.PutCurves}, {"onesided", r.OneSidedCurves},
		{"twosided", r.TwoSidedCurves}, {"counterpart", r.CounterpartCurves}}
}

type sweep struct {
	name   string
	curves []Curve
}

// sweepGeometry is the op, nodes and pairs of a point of sweep name.
func (r *Results) sweepGeometry(name string, ppn int) (op string, nodes, pairs int) {
	switch name {
	case "put":
		return bench.Put.String(), putNodes, ppn
	case "twosided":
		return "send/recv", r.Config.Nodes, r.pairs(ppn)
	case "counterpart":
		return bench.Get.String(), r.Config.Nodes, r.pairs(ppn)
	}
	return r.Config.Op.String(), r.Config.Nodes, r.pairs(ppn)
}

// WriteCSV prints every point as CSV, one header row then one row per
// point of each sweep: figure ("size", "ppn", "put", "onesided",
// "twosided" or "counterpart", the two-sided sweep's one-sided
// counterparts), ordering, mechanism, op, nodes, ppn, pairs, size_bytes,
// bandwidth_mbps, rate_per_s, iterations, warmup, window, unregistered,
// no_rendezvous, protocol (two-sided only).
func (r *Results) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"figure", "ordering", "mechanism", "op", "nodes", "ppn", "pairs", "size_bytes", "bandwidth_mbps", "rate_per_s", "iterations", "warmup",
		"window", "unregistered", "no_rendezvous", "protocol"}); err != nil {
		return err
	}
	for _, sw := range r.sweeps() {
		for _, c := range sw.curves {
			for _, p := range c.Points {
				op, nodes, pairs := r.sweepGeometry(sw.name, p.PPN)
				err := cw.Write([]string{sw.name, p.Ordering.String(), p.Mechanism.String(), op,
					strconv.Itoa(nodes), strconv.Itoa(p.PPN), strconv.Itoa(pairs), strconv.Itoa(p.Size),
					ftoa(p.Bandwidth), ftoa(p.Rate), strconv.Itoa(p.Iterations), strconv.Itoa(p.Warmup),
					strconv.Itoa(max(p.Window, 1)), strconv.FormatBool(p.Unregistered), strconv.FormatBool(p.NoRendezvous), p.Protocol})
				if err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func ftoa(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// WriteGoBench prints every point in the `go test -bench` format for
// benchstat: configuration lines, then
//
//	BenchmarkOrderingStudy/size/ordering=strict/mech=fma/ppn=24/size=4096 1 <ns/op> ns/op <MB/s> MB/s
//	BenchmarkOrderingStudy/ppn/ordering=strict/mech=bte/size=65536/ppn=4 1 ...
//	BenchmarkOrderingStudy/put/mech=fma/ppn=2/window=16/size=4096 1 ...
//	BenchmarkOrderingStudy/onesided/unregistered=true/size=8192/window=4/ppn=8 1 ...
//	BenchmarkOrderingStudy/twosided/rendezvous=true/size=8192/window=8/ppn=8 1 ...
//	BenchmarkOrderingStudy/counterpart/size=8192/window=8/ppn=8 1 ...
//
// where ns/op is the aggregate time per operation (1e9 over the rate).
func (r *Results) WriteGoBench(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "pgasbench: %s\nconduit: %s\ntimebase: %s\nnodes: %d\nop: %v\n",
		report.Version, r.Conduit, strings.Fields(r.timeBase())[0], r.Config.Nodes, r.Config.Op)
	line := func(name string, p Point) {
		ns := 0.0
		if p.Rate > 0 {
			ns = 1e9 / p.Rate
		}
		fmt.Fprintf(b, "BenchmarkOrderingStudy/%s 1 %.2f ns/op %.2f MB/s\n", name, ns, p.Bandwidth)
	}
	for _, c := range r.SizeCurves {
		for _, p := range c.Points {
			line(fmt.Sprintf("size/ordering=%v/mech=%v/ppn=%d/size=%d", p.Ordering, p.Mechanism, p.PPN, p.Size), p)
		}
	}
	for _, c := range r.PPNCurves {
		for _, p := range c.Points {
			line(fmt.Sprintf("ppn/ordering=%v/mech=%v/size=%d/ppn=%d", p.Ordering, p.Mechanism, p.Size, p.PPN), p)
		}
	}
	for _, c := range r.PutCurves {
		for _, p := range c.Points {
			line(fmt.Sprintf("put/mech=%v/ppn=%d/window=%d/size=%d", p.Mechanism, p.PPN, p.Window, p.Size), p)
		}
	}
	for _, c := range r.OneSidedCurves {
		for _, p := range c.Points {
			line(fmt.Sprintf("onesided/unregistered=%v/size=%d/window=%d/ppn=%d", p.Unregistered, p.Size, p.Window, p.PPN), p)
		}
	}
	for _, c := range r.TwoSidedCurves {
		for _, p := range c.Points {
			line(fmt.Sprintf("twosided/rendezvous=%v/size=%d/window=%d/ppn=%d", !p.NoRendezvous, p.Size, p.Window, p.PPN), p)
		}
	}
	for _, c := range r.CounterpartCurves {
		for _, p := range c.Points {
			line(fmt.Sprintf("counterpart/size=%d/window=%d/ppn=%d", p.Size, p.Window, p.PPN), p)
		}
	}
	return b.Flush()
}

// Schema identifies the study's JSON record.
const Schema = "gopgas/pgasbench/ordering-study/v2"

// Record is the study's JSON object; docs/pgasbench.md documents it and
// docs/schema/ordering-study.json is its JSON Schema. A figure that is
// NaN or infinite is null.
type Record struct {
	report.Header
	Conduit   string        `json:"conduit"`
	Simulated bool          `json:"simulated"`
	TimeBase  string        `json:"time_base"`
	Op        string        `json:"op"`
	Nodes     int           `json:"nodes"`
	Setup     SetupRecord   `json:"setup"`
	SizeSweep []CurveRecord `json:"size_sweep"`
	PPNSweep  []CurveRecord `json:"ppn_sweep"`
	// PutSweep ([GEMINI-HOTI] Figure 8) runs puts on 2 nodes whatever Op
	// and Nodes say.
	PutSweep      []CurveRecord `json:"put_sweep"`
	OneSidedSweep []CurveRecord `json:"onesided_sweep"`
	// TwoSidedSweep ([ORDERING] Figure 11) and its one-sided
	// counterparts (Counterparts, in the same order as its curves with
	// rendezvous).
	TwoSidedSweep []CurveRecord `json:"twosided_sweep"`
	Counterparts  []CurveRecord `json:"twosided_counterparts"`
	Summary       SummaryRecord `json:"summary"`
	// Provenance is what ran where and when (Results.Provenance); null
	// when not recorded.
	Provenance *report.Provenance `json:"provenance"`
}

// SetupRecord is the study's configuration in a Record.
type SetupRecord struct {
	Orderings       []string `json:"orderings"`
	PPN             int      `json:"ppn"`
	Sizes           []int    `json:"sizes"`
	Mechanisms      []string `json:"mechanisms"`
	PPNs            []int    `json:"ppns"`
	SweepSizes      []int    `json:"sweep_sizes"`
	SweepMechanisms []string `json:"sweep_mechanisms"`
	PutPPNs         []int    `json:"put_ppns"`
	PutSizes        []int    `json:"put_sizes"`
	PutWindow       int      `json:"put_window"`
	OneSidedPPNs    []int    `json:"onesided_ppns"`
	OneSidedSizes   []int    `json:"onesided_sizes"`
	OneSidedWindows []int    `json:"onesided_windows"`
	TwoSidedPPNs    []int    `json:"twosided_ppns"`
	TwoSidedSizes   []int    `json:"twosided_sizes"`
	// TwoSidedWindows apply up to TwoSidedSmallMax bytes,
	// TwoSidedLargeWindows above.
	TwoSidedWindows      []int `json:"twosided_windows"`
	TwoSidedLargeWindows []int `json:"twosided_large_windows"`
	TwoSidedSmallMax     int   `json:"twosided_small_max"`
	NoRendezvousSizes    []int `json:"no_rendezvous_sizes"`
	Iterations           int   `json:"iterations"`
	Warmup               int   `json:"warmup"`
	// Seed is the seed the study's jobs used.
	Seed    uint64            `json:"seed"`
	Options map[string]string `json:"options"`
	// The settings, environment, flags and command line
	// (Results.Invocation).
	report.Invocation
}

// CurveRecord is a Curve in a Record.
type CurveRecord struct {
	Ordering  string `json:"ordering"`
	Mechanism string `json:"mechanism"`
	PPN       int    `json:"ppn,omitempty"`
	Size      int    `json:"size,omitempty"`
	Window    int    `json:"window"`
	// Unregistered: local buffers outside the segment (non-shared).
	Unregistered bool `json:"unregistered"`
	// NoRendezvous: two-sided with rendezvous disabled.
	NoRendezvous bool          `json:"no_rendezvous,omitempty"`
	Points       []PointRecord `json:"points"`
}

// PointRecord is a Point in a Record.
type PointRecord struct {
	Size          int      `json:"size"`
	PPN           int      `json:"ppn"`
	Pairs         int      `json:"pairs"`
	BandwidthMBps *float64 `json:"bandwidth_mbps"`
	Rate          *float64 `json:"rate"`
	Iterations    int      `json:"iterations"`
	Warmup        int      `json:"warmup"`
	Events        uint64   `json:"events"`
	// Protocol is the two-sided protocol of the point's messages.
	Protocol string `json:"protocol,omitempty"`
}

// SummaryRecord is the Summary in a Record.
type SummaryRecord struct {
	Ratios     []RatioRecord     `json:"ratios"`
	Peaks      []PeakRecord      `json:"peaks"`
	Crossovers []CrossoverRecord `json:"crossovers"`
	// Saturation is null without the put sweep.
	Saturation *SaturationRecord `json:"saturation"`
	NonShared  []SlowdownRecord  `json:"nonshared"`
	FewCores   []FewCoresRecord  `json:"few_cores"`
	// TwoSided is null without the two-sided sweep.
	TwoSided *TwoSidedRecord `json:"two_sided"`
}

// SaturationRecord is a Saturation in a Record; a size no measured size
// reaches is null.
type SaturationRecord struct {
	Level      float64    `json:"level"`
	PeakMBps   *float64   `json:"peak_mbps"`
	PeakPPN    int        `json:"peak_ppn"`
	PeakSize   int        `json:"peak_size"`
	PPN        []int      `json:"ppn"`
	Size       []*float64 `json:"size"`
	Violations int        `json:"violations"`
}

// SlowdownRecord is a Slowdown in a Record (percent; null where the
// shared bandwidth is 0).
type SlowdownRecord struct {
	Size    int        `json:"size"`
	Window  int        `json:"window"`
	PPN     []int      `json:"ppn"`
	Percent []*float64 `json:"percent"`
}

// FewCoresRecord is a FewCores in a Record.
type FewCoresRecord struct {
	Size     int      `json:"size"`
	Window   int      `json:"window"`
	PPN      int      `json:"ppn"`
	AtMBps   *float64 `json:"at_mbps"`
	BestMBps *float64 `json:"best_mbps"`
	BestPPN  int      `json:"best_ppn"`
	Ratio    *float64 `json:"ratio"`
}

// RatioRecord is a Ratio in a Record; a ratio that cannot be computed (a
// strict bandwidth of 0) is null.
type RatioRecord struct {
	Mechanism string     `json:"mechanism"`
	Size      int        `json:"size"`
	PPN       []int      `json:"ppn"`
	Ratio     []*float64 `json:"ratio"`
}

// PeakRecord is a Peak in a Record.
type PeakRecord struct {
	Ordering          string   `json:"ordering"`
	Mechanism         string   `json:"mechanism"`
	Size              int      `json:"size"`
	PPN               int      `json:"ppn"`
	BandwidthMBps     *float64 `json:"bandwidth_mbps"`
	LastPPN           int      `json:"last_ppn"`
	LastBandwidthMBps *float64 `json:"last_bandwidth_mbps"`
}

// CrossoverRecord is a Crossover in a Record.
type CrossoverRecord struct {
	Ordering string         `json:"ordering"`
	PPN      int            `json:"ppn"`
	First    string         `json:"first"`
	Lo       int            `json:"lo"`
	Hi       int            `json:"hi"`
	Changes  []ChangeRecord `json:"changes"`
	Text     string         `json:"text"`
}

// ChangeRecord is a Change in a Record.
type ChangeRecord struct {
	Size   float64 `json:"size"`
	Below  int     `json:"below"`
	Above  int     `json:"above"`
	Leader string  `json:"leader"`
}

// NewRecord builds the study's Record.
func (r *Results) NewRecord() *Record {
	c := &r.Config
	names := func(ms []bench.Mechanism) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, m.String())
		}
		return out
	}
	rec := &Record{Header: report.NewHeader(Schema), Conduit: r.Conduit, Simulated: r.Simulated,
		TimeBase: r.timeBase(), Op: c.Op.String(), Nodes: c.Nodes,
		Setup: SetupRecord{Orderings: []string{}, PPN: c.PPN, Sizes: orEmpty(c.Sizes), Mechanisms: names(c.Mechanisms), PPNs: orEmpty(c.PPNs),
			SweepSizes: orEmpty(c.SweepSizes), SweepMechanisms: names(c.SweepMechanisms),
			PutPPNs: orEmpty(c.PutPPNs), PutSizes: orEmpty(c.PutSizes), PutWindow: c.PutWindow,
			OneSidedPPNs: orEmpty(c.OneSidedPPNs), OneSidedSizes: orEmpty(c.OneSidedSizes), OneSidedWindows: orEmpty(c.OneSidedWindows),
			TwoSidedPPNs: orEmpty(c.TwoSidedPPNs), TwoSidedSizes: orEmpty(c.TwoSidedSizes), TwoSidedWindows: orEmpty(c.TwoSidedWindows),
			TwoSidedLargeWindows: orEmpty(c.TwoSidedLargeWindows), TwoSidedSmallMax: c.TwoSidedSmallMax, NoRendezvousSizes: orEmpty(c.NoRendezvousSizes),
			Iterations: c.Iterations, Warmup: c.Warmup, Seed: c.Base.Seed, Options: c.Base.Options, Invocation: r.Invocation.Filled()},
		SizeSweep: []CurveRecord{}, PPNSweep: []CurveRecord{}, PutSweep: []CurveRecord{}, OneSidedSweep: []CurveRecord{},
		Summary: SummaryRecord{Ratios: []RatioRecord{}, Peaks: []PeakRecord{}, Crossovers: []CrossoverRecord{},
			NonShared: []SlowdownRecord{}, FewCores: []FewCoresRecord{}},
		Provenance: r.Provenance}
	if rec.Setup.Options == nil {
		rec.Setup.Options = map[string]string{}
	}
	for _, o := range c.Orderings {
		rec.Setup.Orderings = append(rec.Setup.Orderings, o.String())
	}
	curves := func(name string, cs []Curve) []CurveRecord {
		out := []CurveRecord{}
		for _, cv := range cs {
			cr := CurveRecord{Ordering: cv.Ordering.String(), Mechanism: cv.Mechanism.String(), PPN: cv.PPN, Size: cv.Size,
				Window: max(cv.Window, 1), Unregistered: cv.Unregistered, NoRendezvous: cv.NoRendezvous, Points: []PointRecord{}}
			for _, p := range cv.Points {
				_, _, pairs := r.sweepGeometry(name, p.PPN)
				cr.Points = append(cr.Points, PointRecord{Size: p.Size, PPN: p.PPN, Pairs: pairs, BandwidthMBps: report.Null(p.Bandwidth),
					Rate: report.Null(p.Rate), Iterations: p.Iterations, Warmup: p.Warmup, Events: p.Events, Protocol: p.Protocol})
			}
			out = append(out, cr)
		}
		return out
	}
	rec.SizeSweep = curves("size", r.SizeCurves)
	rec.PPNSweep = curves("ppn", r.PPNCurves)
	rec.PutSweep = curves("put", r.PutCurves)
	rec.OneSidedSweep = curves("onesided", r.OneSidedCurves)
	rec.TwoSidedSweep = curves("twosided", r.TwoSidedCurves)
	rec.Counterparts = curves("counterpart", r.CounterpartCurves)
	s := Summarize(r)
	rec.Summary.TwoSided = twoSidedRecord(s.TwoSided)
	sr := &rec.Summary
	for _, ra := range s.Ratios {
		sr.Ratios = append(sr.Ratios, RatioRecord{Mechanism: ra.Mechanism.String(), Size: ra.Size, PPN: ra.PPN, Ratio: report.Nullable(ra.Ratio)})
	}
	for _, pk := range s.Peaks {
		sr.Peaks = append(sr.Peaks, PeakRecord{pk.Ordering.String(), pk.Mechanism.String(), pk.Size, pk.PPN, report.Null(pk.Bandwidth), pk.LastPPN, report.Null(pk.LastBandwidth)})
	}
	for _, x := range s.Crossovers {
		xr := CrossoverRecord{Ordering: x.Ordering.String(), PPN: x.PPN, First: x.First.String(), Lo: x.Lo, Hi: x.Hi, Changes: []ChangeRecord{}, Text: x.Text()}
		for _, ch := range x.Changes {
			xr.Changes = append(xr.Changes, ChangeRecord{ch.Size, ch.Below, ch.Above, ch.Leader.String()})
		}
		sr.Crossovers = append(sr.Crossovers, xr)
	}
	if sat := s.Saturation; sat != nil {
		sr.Saturation = &SaturationRecord{Level: SaturationLevel, PeakMBps: report.Null(sat.Peak), PeakPPN: sat.PeakPPN, PeakSize: sat.PeakSize,
			PPN: orEmpty(sat.PPN), Size: report.Nullable(sat.Size), Violations: sat.Violations()}
	}
	for _, sd := range s.NonShared {
		sr.NonShared = append(sr.NonShared, SlowdownRecord{Size: sd.Size, Window: sd.Window, PPN: orEmpty(sd.PPN), Percent: report.Nullable(sd.Percent)})
	}
	for _, f := range s.FewCores {
		sr.FewCores = append(sr.FewCores, FewCoresRecord{Size: f.Size, Window: f.Window, PPN: FewCoresPPN, AtMBps: report.Null(f.At),
			BestMBps: report.Null(f.Best), BestPPN: f.BestPPN, Ratio: report.Null(f.Ratio())})
	}
	return rec
}

func orEmpty(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// WriteJSON prints the study's Record, indented.
func (r *Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.NewRecord())
}

// Write prints the study in format f.
func (r *Results) Write(w io.Writer, f report.Format) error {
	switch f {
	case report.OSU:
		return r.WriteText(w)
	case report.CSV:
		return r.WriteCSV(w)
	case report.JSON:
		return r.WriteJSON(w)
	case report.GoBench:
		return r.WriteGoBench(w)
	}
	return fmt.Errorf("study: unknown format %v", f)
}

// NamedFigure is a figure and the base name of its file.
type NamedFigure struct {
	Name   string
	Figure *report.Figure
}

// Figures are the study's plots: per ordering, bandwidth vs size
// ("size-strict") and vs PEs per node ("ppn-strict"); per sweep
// mechanism and size, the orderings compared ("orderings-bte-64K"); the
// FMA put sweep ("fma-put"); per size of the shared vs non-shared sweep,
// its curves ("onesided-8K"); and the relaxed/strict ratio vs PEs per
// node ("ratio").
func (r *Results) Figures() []NamedFigure {
	c := &r.Config
	var out []NamedFigure
	where := fmt.Sprintf("%s, %d nodes", r.Conduit, c.Nodes)
	for _, o := range c.Orderings {
		if curves := r.curvesOf(r.SizeCurves, o, 0); len(curves) > 0 {
			f := &report.Figure{Title: fmt.Sprintf("%v bandwidth vs size, %v ordering, %d PEs per node (%s)", c.Op, o, c.PPN, where),
				XLabel: report.SizeAxis, YLabel: "Aggregate bandwidth (MB/s)", XLog2: true, YLog: true}
			for _, cv := range curves {
				f.Series = append(f.Series, bySize(mechName(cv.Mechanism), cv))
			}
			out = append(out, NamedFigure{"size-" + o.String(), f})
		}
		f := &report.Figure{Title: fmt.Sprintf("%v bandwidth vs PEs per node, %v ordering (%s)", c.Op, o, where),
			XLabel: "PEs per node", YLabel: "Aggregate bandwidth (MB/s)", XTicks: ppnTicks(c.PPNs)}
		for _, size := range c.SweepSizes {
			for _, cv := range r.curvesOf(r.PPNCurves, o, size) {
				f.Series = append(f.Series, byPPN(mechName(cv.Mechanism)+" "+report.SizeLabel(int64(size)), cv))
			}
		}
		if len(f.Series) > 0 {
			out = append(out, NamedFigure{"ppn-" + o.String(), f})
		}
	}
	for _, size := range c.SweepSizes {
		for _, m := range c.SweepMechanisms {
			f := &report.Figure{Title: fmt.Sprintf("%v %s %s bandwidth vs PEs per node by ordering (%s)", c.Op, mechName(m), bytesText(float64(size)), where),
				XLabel: "PEs per node", YLabel: "Aggregate bandwidth (MB/s)", XTicks: ppnTicks(c.PPNs)}
			for _, o := range c.Orderings {
				if cv, ok := r.ppnCurve(o, m, size); ok {
					f.Series = append(f.Series, byPPN(o.String(), cv))
				}
			}
			if len(f.Series) > 1 {
				out = append(out, NamedFigure{fmt.Sprintf("orderings-%v-%s", m, report.SizeLabel(int64(size))), f})
			}
		}
	}
	if len(r.PutCurves) > 0 {
		f := &report.Figure{Title: fmt.Sprintf("FMA put bandwidth vs size, window %d, relaxed ordering (%s, %d nodes)", c.PutWindow, r.Conduit, putNodes),
			XLabel: report.SizeAxis, YLabel: "Aggregate bandwidth (MB/s)", XLog2: true, YLog: true}
		for _, cv := range r.PutCurves {
			f.Series = append(f.Series, bySize(ppnName(cv.PPN), cv))
		}
		out = append(out, NamedFigure{"fma-put", f})
	}
	for _, size := range c.OneSidedSizes {
		curves := r.oneSidedOf(size)
		if len(curves) == 0 {
			continue
		}
		f := &report.Figure{Title: fmt.Sprintf("%v %s bandwidth vs PEs per node, shared vs non-shared, relaxed (%s)", c.Op, bytesText(float64(size)), where),
			XLabel: "PEs per node", YLabel: "Aggregate bandwidth (MB/s)", XTicks: ppnTicks(c.OneSidedPPNs)}
		for _, cv := range curves {
			f.Series = append(f.Series, byPPN(oneSidedName(cv), cv))
		}
		out = append(out, NamedFigure{"onesided-" + report.SizeLabel(int64(size)), f})
	}
	out = append(out, r.twoSidedFigures(where)...)
	if s := Summarize(r); len(s.Ratios) > 0 {
		f := &report.Figure{Title: fmt.Sprintf("Relaxed / strict %v bandwidth vs PEs per node (%s)", c.Op, where),
			XLabel: "PEs per node", YLabel: "Bandwidth ratio, relaxed / strict", XTicks: ppnTicks(c.PPNs)}
		for _, ra := range s.Ratios {
			xs := make([]float64, len(ra.PPN))
			for i, p := range ra.PPN {
				xs[i] = float64(p)
			}
			f.Series = append(f.Series, report.Series{Name: mechName(ra.Mechanism) + " " + report.SizeLabel(int64(ra.Size)), X: xs, Y: ra.Ratio})
		}
		out = append(out, NamedFigure{"ratio", f})
	}
	return out
}

// bySize and byPPN are a curve's bandwidths against its points' message
// sizes or PEs per node.
func bySize(name string, cv Curve) report.Series {
	return bandwidths(name, cv, func(p Point) int { return p.Size })
}

func byPPN(name string, cv Curve) report.Series {
	return bandwidths(name, cv, func(p Point) int { return p.PPN })
}

// bandwidths is a curve's bandwidths against x of its points.
func bandwidths(name string, cv Curve, x func(Point) int) report.Series {
	s := report.Series{Name: name}
	for _, p := range cv.Points {
		s.X = append(s.X, float64(x(p)))
		s.Y = append(s.Y, p.Bandwidth)
	}
	return s
}

func ppnTicks(ppns []int) []float64 {
	out := make([]float64, len(ppns))
	for i, p := range ppns {
		out[i] = float64(p)
	}
	return out
}

// SavePlots writes every figure to dir (created if missing) as format
// ("svg" or "png") and returns the paths written.
func (r *Results) SavePlots(dir, format string) ([]string, error) {
	if format != "svg" && format != "png" {
		return nil, fmt.Errorf("study: plot format %q: not svg or png", format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("study: plot directory: %w", err)
	}
	var paths []string
	for _, nf := range r.Figures() {
		p := filepath.Join(dir, nf.Name+"."+format)
		if err := nf.Figure.Save(p); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
