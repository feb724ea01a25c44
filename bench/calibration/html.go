package calibration

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/bench/study"
)

// The calibration page: one self-contained HTML document (styles, inline
// SVG and a few lines of script; nothing fetched from a network) with each
// row's published and simulated values and the band the row's check
// accepts, grouped by backend and by block of rows, the misses explained,
// the fitted parameters, and the ordering study's figures beside what the
// paper says of each. `pgasbench calibrate --html FILE` writes it.
//
// The page checks itself when a browser opens it: a script counts the
// rows, bands and figures drawn against the counts written into the page
// and sets the body's data-rendered attribute to "ok" or to what differs,
// and records script errors in data-errors; .ci/calibration-page opens the
// page in headless Chromium and reads both.

// Page is what the calibration page shows.
type Page struct {
	// Seed is the simulations' seed (0: the default).
	Seed uint64
	// Backends are the outcomes of each backend's rows, in page order.
	Backends []PageBackend
	// Studies are ordering studies whose figures the page draws (a study's
	// JSON record read back with study.ReadJSON); none leaves the section
	// out.
	Studies []*study.Results
}

// PageBackend is one backend's evaluated rows.
type PageBackend struct {
	Backend  string
	Outcomes []Outcome
}

// blocks group a backend's rows on the page, by the part of the ID after
// the backend's letter: the first block whose prefixes match takes the
// row.
var blocks = []struct {
	title    string
	prefixes []string
}{
	{"Clocks, links, packets and host interfaces", []string{"CLK", "PHIT", "FLITS", "LINK", "EFF", "TILE", "NIC-BW", "PCIE", "HT-", "SYM"}},
	{"Latency and hops", []string{"LAT", "HOP"}},
	{"Bandwidth and message rates", []string{"P2P", "BW-", "HALF", "RATE", "OUTST", "MSG"}},
	{"Topology and global traffic", []string{"BISECT", "TOPO", "GROUP", "MINHOPS", "GLOBAL", "GREEN"}},
	{"Atomics and the collective engine", []string{"AMO", "CE"}},
	{"NIC engines: FMA and block transfers", []string{"BTE", "XOVER", "FMA", "1S-"}},
	{"Registration", []string{"REG", "DYNREG", "IOMMU", "NONSHARED", "BOUNCE"}},
	{"Ordering", []string{"ORD", "PUT-GET"}},
	{"Two-sided messaging", []string{"MPI"}},
}

// blockOf is the index in blocks of row id's block (len(blocks): other).
func blockOf(id string) int {
	rest := id
	if i := strings.IndexByte(id, '-'); i >= 0 {
		rest = id[i+1:]
	}
	for b, bl := range blocks {
		for _, p := range bl.prefixes {
			if strings.HasPrefix(rest, p) {
				return b
			}
		}
	}
	return len(blocks)
}

func blockTitle(b int) string {
	if b < len(blocks) {
		return blocks[b].title
	}
	return "Other rows"
}

// figureNotes say what the paper shows in each of the study's figures (by
// the start of the figure's name, study.NamedFigure).
var figureNotes = []struct{ prefix, note string }{
	{"size-", "[ORDERING] III, Figure 3: aggregate get bandwidth of the Figure 2 benchmark (48 pairs on 4 nodes, one get outstanding each) against message size. In the paper FMA is best for small messages and the block-transfer engine beyond about 4 KB (G-XOVER); default ordering is never better than relaxed nor worse than strict, and generally closer to strict (G-ORD-DEF)."},
	{"ppn-", "[ORDERING] III.A, Figures 4 and 5: bandwidth against PEs per node. Under strict ordering block transfers do best with 4 cores per node and lose 2-5x with more, up to 4.6x below the best (G-ORD-PEAK, G-ORD-RATIO); under relaxed ordering bandwidth rises with concurrency until it saturates (G-ORD-MONO), and large FMA transfers slow down with concurrency even when relaxed (G-FMA-BIG)."},
	{"orderings-", "[ORDERING] III.A: the concurrency sweep of one mechanism and size with the three orderings side by side; the paper expects strict <= default <= relaxed (G-ORD-DEF)."},
	{"fma-put", "[GEMINI-HOTI] V.A, Figure 8: FMA put bandwidth against size with 1, 2 and 4 PEs per node. One core storing into the FMA window reaches the plateau late; with four cores it is reached early (G-FMA-PPN)."},
	{"onesided-", "[ORDERING] Figure 9: one-sided get bandwidth against PEs per node and window, with local buffers inside the registered segment (shared) or outside it (non-shared). Small messages gain from more messages in flight either way; large non-shared transfers pay for registering their buffers (G-NONSHARED), and the network saturates with about 4 PEs per node (G-1S-SAT)."},
	{"ratio", "[ORDERING] III.A: relaxed over strict bandwidth against PEs per node; in the paper the gain grows with concurrency, up to 4.6x for block transfers (G-ORD-RATIO), and medium sizes gain up to 20% even at low concurrency (G-ORD-LOWC). The model has no such gain: with 1, 2 and 4 PEs per node, relaxed block-transfer gets of 4-16 KiB come within 2.5% of strict ones, mostly below them, the links limiting both from 2 PEs per node; the paper does not say what slows strict there."},
}

func figureNote(name string) string {
	for _, n := range figureNotes {
		if strings.HasPrefix(name, n.prefix) {
			return n.note
		}
	}
	return ""
}

// WritePage writes the calibration page.
func WritePage(w io.Writer, p Page) error {
	b := bufio.NewWriter(w)
	var rows, bands, figures int
	var body bytes.Buffer
	for _, be := range p.Backends {
		r, bd := writePageBackend(&body, be)
		rows += r
		bands += bd
	}
	if len(p.Studies) > 0 {
		n, err := writePageStudies(&body, p.Studies)
		if err != nil {
			return err
		}
		figures = n
	}
	writePageFitted(&body)

	fmt.Fprintf(b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Calibration of the simulated Cray networks</title>
<script>
window.addEventListener("error", function (e) {
  document.documentElement.dataset.errors = (document.documentElement.dataset.errors || "") + e.message + "; ";
});
</script>
<style>%s</style>
</head>
<body data-expect="rows=%d bands=%d figures=%d">
<h1>Calibration of the simulated Cray networks</h1>
<p class="lead">Each row is a published figure the simulated networks must reproduce
(docs/calibration.md lists the conditions and sources in full). The bar beside each
value is the range the row's check accepts (green), the published value (black tick)
and the simulated value (a dot: green when it passes, red when it fails). Nothing is
scaled to match: a row the model misses fails, and where the miss is understood the
row says why. %s, seed %s.</p>
`, pageStyle, rows, bands, figures, html.EscapeString(report.Tool+" "+report.Version), seedText(p.Seed))
	writePageSummary(b, p)
	b.Write(body.Bytes())
	fmt.Fprint(b, pageScript)
	fmt.Fprint(b, "</body>\n</html>\n")
	return b.Flush()
}

func seedText(s uint64) string {
	if s == 0 {
		return "the default"
	}
	return fmt.Sprint(s)
}

func writePageSummary(b *bufio.Writer, p Page) {
	fmt.Fprint(b, "<table class=\"summary\">\n<tr><th>Backend</th><th>Rows</th><th>PASS</th><th>FAIL</th><th>SKIP</th><th>ERROR</th></tr>\n")
	for _, be := range p.Backends {
		counts := map[Status]int{}
		for _, o := range be.Outcomes {
			counts[o.Status]++
		}
		fmt.Fprintf(b, "<tr><td><a href=\"#%s\">%s</a></td><td>%d</td><td class=\"pass\">%d</td><td class=\"fail\">%d</td><td>%d</td><td>%d</td></tr>\n",
			be.Backend, html.EscapeString(backendTitle(be.Backend)), len(be.Outcomes), counts[Pass], counts[Fail], counts[Skip], counts[Error])
	}
	fmt.Fprint(b, "</table>\n")
}

func backendTitle(backend string) string {
	for _, s := range sheetTitles {
		if s.backend == backend {
			return s.title
		}
	}
	return backend
}

// writePageBackend writes one backend's section and returns the rows and
// bands it drew.
func writePageBackend(b *bytes.Buffer, be PageBackend) (rows, bands int) {
	fmt.Fprintf(b, "<section id=\"%s\">\n<h2>%s</h2>\n", be.Backend, html.EscapeString(backendTitle(be.Backend)))
	for blk := 0; blk <= len(blocks); blk++ {
		var outs []Outcome
		for _, o := range be.Outcomes {
			if blockOf(o.Row.ID) == blk {
				outs = append(outs, o)
			}
		}
		if len(outs) == 0 {
			continue
		}
		fmt.Fprintf(b, "<h3>%s</h3>\n<table class=\"rows\">\n<colgroup><col class=\"c-id\"><col class=\"c-what\"><col class=\"c-pub\"><col class=\"c-check\"><col class=\"c-sim\"><col class=\"c-band\"><col class=\"c-verdict\"></colgroup>\n<tr><th>ID</th><th>What is measured</th><th>Published</th><th>Passes when</th><th>Simulated</th><th>Band</th><th>Verdict</th></tr>\n",
			html.EscapeString(blockTitle(blk)))
		for _, o := range outs {
			rows++
			r := o.Row
			status := strings.ToLower(string(o.Status))
			var expect, bandSVG []string
			for i, e := range r.Expect {
				expect = append(expect, html.EscapeString(e.String()))
				v, passed := math.NaN(), false
				if i < len(o.Values) {
					v = o.Values[i]
				}
				if i < len(o.Passed) {
					passed = o.Passed[i]
				}
				bandSVG = append(bandSVG, band(e, v, passed))
				bands++
			}
			verdict := string(o.Status)
			if o.Status == Fail && r.Miss != "" {
				verdict += " (known miss)"
			}
			fmt.Fprintf(b, "<tr class=\"row %s\" id=\"%s\"><td class=\"id\">%s</td><td>%s<div class=\"src\">%s</div></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"verdict\">%s</td></tr>\n",
				status, r.ID, r.ID, html.EscapeString(r.Figure), html.EscapeString(r.Source), html.EscapeString(r.Published),
				strings.Join(expect, "<br>"), html.EscapeString(o.Simulated()), strings.Join(bandSVG, ""), html.EscapeString(verdict))
			var more strings.Builder
			if r.Conditions != "" {
				fmt.Fprintf(&more, "<p><b>Conditions:</b> %s</p>", html.EscapeString(r.Conditions))
			}
			if o.Detail != "" {
				fmt.Fprintf(&more, "<p><b>Detail:</b> %s</p>", html.EscapeString(o.Detail))
			}
			if r.Miss != "" && o.Status != Pass {
				fmt.Fprintf(&more, "<p class=\"miss\"><b>Why the model misses it:</b> %s</p>", html.EscapeString(r.Miss))
			}
			if more.Len() > 0 {
				open := ""
				if o.Status != Pass {
					open = " open"
				}
				fmt.Fprintf(b, "<tr class=\"more\"><td></td><td colspan=\"6\"><details%s><summary>conditions and details</summary>%s</details></td></tr>\n", open, more.String())
			}
		}
		fmt.Fprint(b, "</table>\n")
	}
	fmt.Fprint(b, "</section>\n")
	return rows, bands
}

// Geometry of a band.
const (
	bandWidth  = 240
	bandHeight = 30
	bandPad    = 8
)

// bandLimits are the values e accepts, from lo to hi (either may be
// infinite).
func bandLimits(e Expect) (lo, hi float64) {
	switch e.Check {
	case Within:
		tol := e.Tol
		if tol == 0 {
			tol = DefaultTolerance
		}
		lo, hi = e.Target*(1-tol), e.Target*(1+tol)
		if lo > hi {
			lo, hi = hi, lo
		}
	case Below, AtMost:
		lo, hi = 0, e.Target
	case AtLeast, Above:
		lo, hi = e.Target, math.Inf(1)
	case InRange:
		lo, hi = e.Lo, e.Hi
	default:
		lo, hi = e.Target, e.Target
	}
	return lo, hi
}

// band draws one expectation: the accepted range, the published value and
// the simulated one v (NaN: none).
func band(e Expect, v float64, passed bool) string {
	lo, hi := bandLimits(e)
	dmin, dmax := math.Inf(1), math.Inf(-1)
	for _, x := range []float64{lo, hi, e.Target, v} {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			dmin, dmax = min(dmin, x), max(dmax, x)
		}
	}
	if dmin == dmax {
		d := math.Max(math.Abs(dmin)*0.5, 1)
		dmin, dmax = dmin-d, dmax+d
	}
	logScale := dmin > 0 && dmax/dmin > 100
	pos := func(x float64) float64 {
		if math.IsInf(x, -1) {
			return 0
		}
		if math.IsInf(x, 1) {
			return bandWidth
		}
		var f float64
		if logScale {
			f = (math.Log(x) - math.Log(dmin)) / (math.Log(dmax) - math.Log(dmin))
		} else {
			f = (x - dmin) / (dmax - dmin)
		}
		return bandPad + f*(bandWidth-2*bandPad)
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="band" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, bandWidth, bandHeight, bandWidth, bandHeight, html.EscapeString(e.String()))
	fmt.Fprintf(&s, `<line x1="0" y1="12" x2="%d" y2="12" stroke="#bbb"/>`, bandWidth)
	x0, x1 := pos(lo), pos(hi)
	if x1-x0 < 3 {
		x0, x1 = (x0+x1)/2-1.5, (x0+x1)/2+1.5
	}
	fmt.Fprintf(&s, `<rect x="%.1f" y="5" width="%.1f" height="14" fill="#b9e3b9"/>`, x0, x1-x0)
	if e.Check != InRange || e.Target != 0 {
		fmt.Fprintf(&s, `<line x1="%.1f" y1="3" x2="%.1f" y2="21" stroke="#000" stroke-width="1.5"/>`, pos(e.Target), pos(e.Target))
	}
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		fill := "#c62828"
		if passed {
			fill = "#2e7d32"
		}
		fmt.Fprintf(&s, `<circle cx="%.1f" cy="12" r="5" fill="%s" stroke="#fff"/>`, pos(v), fill)
	} else {
		fmt.Fprintf(&s, `<text x="%d" y="16" font-size="10" text-anchor="middle" fill="#c62828">no value</text>`, bandWidth/2)
	}
	scale := ""
	if logScale {
		scale = " (log)"
	}
	fmt.Fprintf(&s, `<text x="%d" y="29" font-size="9" fill="#555">%s</text><text x="%d" y="29" font-size="9" fill="#555" text-anchor="end">%s%s</text></svg>`,
		bandPad, html.EscapeString(num(dmin)), bandWidth-bandPad, html.EscapeString(num(dmax)), scale)
	return s.String()
}

// writePageStudies draws every figure of the studies with the paper's
// account of it and returns how many.
func writePageStudies(b *bytes.Buffer, studies []*study.Results) (int, error) {
	n := 0
	fmt.Fprint(b, "<section id=\"study\">\n<h2>The ordering study</h2>\n<p>The figures of <code>pgasbench ordering</code>, each beside what the paper reports for it.</p>\n")
	for _, r := range studies {
		fmt.Fprintf(b, "<h3>%s, %d nodes</h3>\n", html.EscapeString(backendTitle(r.Conduit)), r.Config.Nodes)
		for _, nf := range r.Figures() {
			var svg bytes.Buffer
			if err := nf.Figure.WriteTo(&svg, "svg"); err != nil {
				return 0, fmt.Errorf("calibration page: the study's figure %s: %w", nf.Name, err)
			}
			s := svg.String()
			if i := strings.Index(s, "<svg"); i > 0 {
				s = s[i:]
			}
			note := figureNote(nf.Name)
			fmt.Fprintf(b, "<figure class=\"study\" id=\"%s-%s\">%s<figcaption>%s</figcaption></figure>\n",
				r.Conduit, nf.Name, s, html.EscapeString(note))
			n++
		}
	}
	fmt.Fprint(b, "</section>\n")
	return n, nil
}

// writePageFitted lists the fitted parameters.
func writePageFitted(b *bytes.Buffer) {
	fmt.Fprint(b, "<section id=\"fitted\">\n<h2>Fitted parameters</h2>\n<p>Parameters no document gives, each set so that one row comes out right (that row is then a check of consistency, not a prediction); none is re-fitted for a second row.</p>\n<table class=\"fitted\">\n<tr><th>Backend</th><th>Parameter</th><th>Row</th><th>What the row fixes</th></tr>\n")
	for _, f := range FittedParams {
		fmt.Fprintf(b, "<tr><td>%s</td><td><code>%s</code></td><td><a href=\"#%s\">%s</a></td><td>%s</td></tr>\n",
			html.EscapeString(f.Backend), html.EscapeString(f.Param), f.Row, f.Row, html.EscapeString(f.What))
	}
	fmt.Fprint(b, "</table>\n</section>\n")
}

const pageStyle = `
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; line-height: 1.35; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ddd; margin-top: 2em; } h3 { margin-top: 1.5em; }
p.lead { max-width: 60em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 4px 8px; text-align: left; vertical-align: top; font-size: 0.9em; }
th { background: #f4f4f4; }
table.summary td.pass { color: #2e7d32; font-weight: bold; } table.summary td.fail { color: #c62828; font-weight: bold; }
td.id { font-family: monospace; white-space: nowrap; }
div.src { color: #666; font-size: 0.85em; }
tr.row.pass td.verdict { color: #2e7d32; font-weight: bold; }
tr.row.fail td.verdict, tr.row.error td.verdict { color: #c62828; font-weight: bold; }
tr.row.skip td.verdict { color: #8a6d00; }
tr.more td { border-bottom: 1px solid #ccc; font-size: 0.85em; }
p.miss { background: #fff4f4; padding: 4px; }
svg.band { display: block; }
table.rows { width: 100%; table-layout: fixed; }
col.c-id { width: 9em; } col.c-pub, col.c-check, col.c-sim { width: 13%; } col.c-band { width: 256px; } col.c-verdict { width: 9em; }
td { overflow-wrap: anywhere; }
figure.study { margin: 1.5em 0; max-width: 900px; }
figure.study svg { width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #333; margin-top: 0.3em; }
`

const pageScript = `<script>
document.addEventListener("DOMContentLoaded", function () {
  var got = "rows=" + document.querySelectorAll("tr.row").length +
    " bands=" + document.querySelectorAll("svg.band").length +
    " figures=" + document.querySelectorAll("figure.study svg").length;
  var empty = 0;
  document.querySelectorAll("svg").forEach(function (s) {
    var r = s.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) { empty++; }
  });
  var want = document.body.dataset.expect;
  document.body.dataset.rendered = (got === want && empty === 0) ? "ok" : "drawn " + got + ", " + empty + " empty, want " + want;
});
</script>
`
