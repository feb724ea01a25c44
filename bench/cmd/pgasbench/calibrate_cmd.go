package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gopgas/gopgas/bench/calibration"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/bench/study"
	"github.com/gopgas/gopgas/pgas"
)

func calibrateCommand() *command {
	return &command{
		name:    "calibrate",
		summary: "the calibration report: every calibration row of a simulated backend",
		args:    "[flags]",
		about: "Runs the scenario of each calibration row of a simulated backend (docs/calibration.md) and prints one line per row ID: " +
			"the published value, the simulated value, their ratio, PASS/FAIL/SKIP/ERROR against the row's tolerance, and the conditions the scenario used; " +
			"the scenario's details and, for rows the model is known to miss, why, follow as indented lines. " +
			"Rows run in parallel (--parallel) and share the runs several rows draw on. " +
			"With --check the exit status is 1 when a row fails or errs. " +
			"--conduit takes a comma-separated list (or all): the reports follow one another. " +
			"--html FILE also writes the calibration page, one self-contained HTML file with every row's band, the misses explained, the fitted parameters " +
			"and, with --study, the ordering study's figures (from its --format json records) beside the paper's account of them.",
		flags: func(o *options, fs *flag.FlagSet) {
			def := "gemini"
			if bs := calibration.Backends(); len(bs) > 0 && !slices.Contains(bs, def) {
				def = bs[0]
			}
			o.conduit = def
			fs.StringVar(&o.conduit, "conduit", def, "the simulated backends whose rows run, comma-separated, or all: "+strings.Join(calibration.Backends(), ", "))
			fs.StringVar(&o.htmlOut, "html", "", "also write the calibration page to this file (HTML)")
			fs.StringVar(&o.studyJSON, "study", "", "with --html: ordering-study JSON records (pgasbench ordering --format json), comma-separated, whose figures the page draws")
			fs.StringVar(&o.rows, "rows", "", "only these row IDs, comma-separated; an ID ending in * matches a prefix (G-ORD*)")
			fs.BoolVar(&o.jsonOut, "json", false, "print the outcomes as JSON")
			fs.BoolVar(&o.check, "check", false, "exit with status 1 when a row fails (FAIL or ERROR)")
			fs.IntVar(&o.parallel, "parallel", 0, "scenarios run at once (0: GOMAXPROCS)")
			memoryFlag(o, fs, "scenarios")
			fs.Uint64Var(&o.seed, "seed", 0, "seed of the simulations (0: the default)")
			fs.BoolVar(&o.timing, "times", false, "also print the wall time of each row (not reproducible)")
		},
		run: runCalibrate,
	}
}

func runCalibrate(a *app, ctx context.Context, o *options) error {
	if err := o.positive("parallel"); err != nil {
		return err
	}
	if err := o.applyMemoryBudget(); err != nil {
		return err
	}
	backends := calibration.Backends()
	if o.conduit != "all" {
		backends = splitList(o.conduit)
	}
	selected := make([][]*calibration.Row, len(backends))
	patterns := splitList(o.rows)
	for i, be := range backends {
		if !slices.Contains(calibration.Backends(), be) {
			return usagef("--conduit %s: no calibration rows (have: %s)", be, strings.Join(calibration.Backends(), ", "))
		}
		if len(backends) == 1 {
			rows, err := calibration.Select(be, patterns)
			if err != nil {
				return usagef("--rows: %s", strings.TrimPrefix(err.Error(), "calibration: "))
			}
			selected[i] = rows
			continue
		}
		// Several backends: each takes the patterns that match its rows.
		var mine []string
		for _, p := range patterns {
			if _, err := calibration.Select(be, []string{p}); err == nil {
				mine = append(mine, p)
			}
		}
		if len(patterns) == 0 || len(mine) > 0 {
			selected[i], _ = calibration.Select(be, mine)
		}
	}
	for _, p := range patterns {
		found := false
		for _, be := range backends {
			if _, err := calibration.Select(be, []string{p}); err == nil {
				found = true
			}
		}
		if !found {
			return usagef("--rows: no %s row matches %q", strings.Join(backends, " or "), p)
		}
	}
	if o.studyJSON != "" && o.htmlOut == "" {
		return usagef("--study: only with --html")
	}
	var studies []*study.Results
	for _, f := range splitList(o.studyJSON) {
		r, err := readStudy(f)
		if err != nil {
			return usagef("--study %s: %v", f, err)
		}
		studies = append(studies, r)
	}
	page := calibration.Page{Seed: o.seed, Studies: studies}
	var bad []string
	total := 0
	printed := false
	for i, be := range backends {
		if len(selected[i]) == 0 {
			continue
		}
		if printed && !o.jsonOut {
			fmt.Fprintln(a.stdout)
		}
		printed = true
		o.conduit = be
		outs, err := calibrateBackend(a, ctx, o, selected[i])
		if err != nil {
			return err
		}
		page.Backends = append(page.Backends, calibration.PageBackend{Backend: be, Outcomes: outs})
		total += len(outs)
		for _, out := range outs {
			if out.Status == calibration.Fail || out.Status == calibration.Error {
				bad = append(bad, out.Row.ID+" "+string(out.Status))
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	if o.htmlOut != "" {
		if err := writePage(o.htmlOut, page); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted")
	}
	if o.check && len(bad) > 0 {
		return &failedError{msg: fmt.Sprintf("--check: %d of %d rows failed: %s", len(bad), total, strings.Join(bad, ", "))}
	}
	return nil
}

// readStudy reads an ordering study's JSON record.
func readStudy(path string) (*study.Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return study.ReadJSON(f)
}

// writePage writes the calibration page to path, whole or not at all.
func writePage(path string, p calibration.Page) error {
	var buf bytes.Buffer
	if err := calibration.WritePage(&buf, p); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// calibrateBackend runs and prints rows of backend o.conduit.
func calibrateBackend(a *app, ctx context.Context, o *options, rows []*calibration.Row) ([]calibration.Outcome, error) {
	opts := calibration.Options{Seed: o.seed, Parallel: o.parallel}
	if a.terminal {
		var mu sync.Mutex
		running := map[string]bool{}
		done := 0
		opts.Progress = func(id string, finished bool) {
			mu.Lock()
			defer mu.Unlock()
			if finished {
				delete(running, id)
				done++
			} else {
				running[id] = true
			}
			ids := slices.Sorted(func(yield func(string) bool) {
				for k := range running {
					if !yield(k) {
						return
					}
				}
			})
			if len(ids) > 4 {
				ids = append(ids[:4], "...")
			}
			a.progress("calibrate: %s: %d/%d rows done; running %s", o.conduit, done, len(rows), strings.Join(ids, " "))
		}
	}
	var err error
	start := time.Now()
	outs := calibration.NewSession(opts).EvaluateAll(ctx, rows)
	wall := time.Since(start)
	a.endProgress()
	if o.jsonOut {
		err = a.writeCalibrationJSON(a.stdout, o, outs, wall)
	} else {
		err = writeCalibrationTable(a.stdout, o, outs, wall)
	}
	if err != nil {
		return nil, fmt.Errorf("writing the report: %w", err)
	}
	return outs, nil
}

// Widths of the report's columns; longer text wraps within its column.
const (
	publishedWidth  = 24
	simulatedWidth  = 22
	ratioWidth      = 10
	statusWidth     = 6
	conditionsWidth = 56
	noteWidth       = 100
	noteIndent      = 4
)

func writeCalibrationTable(w io.Writer, o *options, outs []calibration.Outcome, wall time.Duration) error {
	b := bufio.NewWriter(w)
	idWidth := len("ID")
	for _, out := range outs {
		idWidth = max(idWidth, len(out.Row.ID))
	}
	widths := []int{idWidth, publishedWidth, simulatedWidth, ratioWidth, statusWidth, conditionsWidth}
	fmt.Fprintf(b, "Calibration report: %s against docs/calibration.md, %d rows (%s v%s)\n\n", o.conduit, len(outs), report.Tool, report.Version)
	writeCells(b, widths, []string{"ID", "Published", "Simulated", "Ratio", "Status", "Conditions"})
	counts := map[calibration.Status]int{}
	for _, out := range outs {
		counts[out.Status]++
		ratio := strings.ReplaceAll(out.Ratio(), "NaN", "-")
		writeCells(b, widths, []string{out.Row.ID, out.Row.Published, out.Simulated(), ratio, string(out.Status), out.Row.Conditions})
		note := func(label, text string) {
			if text = strings.TrimSpace(text); text == "" {
				return
			}
			prefix := strings.Repeat(" ", noteIndent) + label + ": "
			for i, l := range wrap(text, noteWidth) {
				if i > 0 {
					prefix = strings.Repeat(" ", noteIndent+len(label)+2)
				}
				fmt.Fprintf(b, "%s%s\n", prefix, l)
			}
		}
		if len(out.Row.Expect) > 1 || out.Status == calibration.Fail {
			var parts []string
			for i, e := range out.Row.Expect {
				mark := ""
				if i < len(out.Passed) && !out.Passed[i] {
					mark = " (missed)"
				}
				parts = append(parts, e.String()+mark)
			}
			note("expect", strings.Join(parts, "; "))
		}
		note("detail", out.Detail)
		if out.Status != calibration.Pass {
			note("known miss", out.Row.Miss)
		}
	}
	fmt.Fprintf(b, "\n%d rows: %d PASS, %d FAIL, %d SKIP, %d ERROR\n", len(outs),
		counts[calibration.Pass], counts[calibration.Fail], counts[calibration.Skip], counts[calibration.Error])
	if o.timing {
		sorted := slices.Clone(outs)
		slices.SortStableFunc(sorted, func(x, y calibration.Outcome) int { return cmp.Compare(y.Elapsed, x.Elapsed) })
		var parts []string
		for _, out := range sorted {
			parts = append(parts, fmt.Sprintf("%s %v", out.Row.ID, out.Elapsed.Round(10*time.Millisecond)))
		}
		fmt.Fprintf(b, "Wall time %v; by row (shared runs count for the first row that needs them):\n", wall.Round(10*time.Millisecond))
		for _, l := range wrap(strings.Join(parts, ", "), noteWidth) {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", noteIndent), l)
		}
	}
	return b.Flush()
}

// writeCells prints one table row whose cells wrap within their widths;
// the last cell is not padded.
func writeCells(b *bufio.Writer, widths []int, cells []string) {
	cols := make([][]string, len(cells))
	height := 1
	for i, c := range cells {
		cols[i] = wrap(c, widths[i])
		height = max(height, len(cols[i]))
	}
	for line := range height {
		var sb strings.Builder
		for i := range cells {
			text := ""
			if line < len(cols[i]) {
				text = cols[i][line]
			}
			if i == len(cells)-1 {
				sb.WriteString(text)
			} else {
				fmt.Fprintf(&sb, "%-*s  ", widths[i], text)
			}
		}
		fmt.Fprintln(b, strings.TrimRight(sb.String(), " "))
	}
}

// wrap breaks text into lines of at most width characters at spaces,
// cutting words longer than a line.
func wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		for len(word) > width {
			if cur.Len() > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			lines = append(lines, word[:width])
			word = word[width:]
		}
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// calibrationRecord is the --json output; docs/pgasbench.md documents it
// and docs/schema/calibration.json is its JSON Schema.
type calibrationRecord struct {
	report.Header
	Backend string `json:"backend"`
	// Seed is the seed the simulations used: --seed, PGAS_SEED or the
	// default.
	Seed uint64 `json:"seed"`
	// The settings, environment, flags and command line.
	report.Invocation
	Rows        []calibrationRow `json:"rows"`
	Counts      map[string]int   `json:"counts"`
	WallSeconds float64          `json:"wall_seconds"`
	// Provenance is what ran where and when.
	Provenance *report.Provenance `json:"provenance"`
}

type calibrationRow struct {
	ID             string              `json:"id"`
	Figure         string              `json:"figure"`
	Published      string              `json:"published"`
	Source         string              `json:"source"`
	Conditions     string              `json:"conditions"`
	Miss           string              `json:"miss,omitempty"`
	Expect         []calibrationExpect `json:"expect"`
	Values         []*float64          `json:"values"`
	Ratios         []*float64          `json:"ratios"`
	Passed         []bool              `json:"passed"`
	Status         string              `json:"status"`
	Simulated      string              `json:"simulated"`
	Ratio          string              `json:"ratio"`
	Detail         string              `json:"detail"`
	ElapsedSeconds float64             `json:"elapsed_seconds"`
}

type calibrationExpect struct {
	Label string `json:"label,omitempty"`
	Check string `json:"check"`
	// Target is null when not finite; Lo, Hi and Tol are absent when
	// the expectation does not set them (0).
	Target *float64 `json:"target"`
	Lo     *float64 `json:"lo,omitempty"`
	Hi     *float64 `json:"hi,omitempty"`
	Tol    *float64 `json:"tol,omitempty"`
	Unit   string   `json:"unit,omitempty"`
	Text   string   `json:"text"`
}

// setOrNil is an expectation's optional bound for JSON: its value, or nil
// (absent) when 0, the expectation's "not set", or not finite.
func setOrNil(v float64) *float64 {
	if v == 0 {
		return nil
	}
	return report.Null(v)
}

// calibrationSchema identifies the calibrate --json record.
const calibrationSchema = "gopgas/pgasbench/calibration/v2"

func checkName(c calibration.Check) string {
	switch c {
	case calibration.Within:
		return "within"
	case calibration.Below:
		return "below"
	case calibration.AtMost:
		return "at_most"
	case calibration.AtLeast:
		return "at_least"
	case calibration.Above:
		return "above"
	case calibration.InRange:
		return "in_range"
	case calibration.Exact:
		return "exact"
	}
	return fmt.Sprintf("check(%d)", uint8(c))
}

func (a *app) writeCalibrationJSON(w io.Writer, o *options, outs []calibration.Outcome, wall time.Duration) error {
	// The scenarios' jobs resolve their seed from the process
	// environment (calibration.Options.Seed 0: PGAS_SEED or the default).
	seed := seedUsed(pgas.Config{Conduit: o.conduit, Seed: o.seed})
	rec := calibrationRecord{Header: report.NewHeader(calibrationSchema), Backend: o.conduit, Seed: seed, Invocation: a.invocation(o),
		Rows: []calibrationRow{}, Counts: map[string]int{"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}, WallSeconds: wall.Seconds(),
		Provenance: a.newProvenance()}
	for _, out := range outs {
		r := out.Row
		row := calibrationRow{ID: r.ID, Figure: r.Figure, Published: r.Published, Source: r.Source, Conditions: r.Conditions, Miss: r.Miss,
			Expect: []calibrationExpect{}, Values: report.Nullable(out.Values), Ratios: report.Nullable(out.Ratios), Passed: out.Passed,
			Status: string(out.Status), Simulated: out.Simulated(), Ratio: out.Ratio(), Detail: out.Detail, ElapsedSeconds: out.Elapsed.Seconds()}
		if row.Passed == nil {
			row.Passed = []bool{}
		}
		for _, e := range r.Expect {
			row.Expect = append(row.Expect, calibrationExpect{Label: e.Label, Check: checkName(e.Check), Target: report.Null(e.Target), Lo: setOrNil(e.Lo),
				Hi: setOrNil(e.Hi), Tol: setOrNil(e.Tol), Unit: e.Unit, Text: e.String()})
		}
		rec.Rows = append(rec.Rows, row)
		rec.Counts[string(out.Status)]++
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rec)
}
