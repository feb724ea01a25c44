package calibration_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/bench/calibration"
	"github.com/gopgas/gopgas/bench/calibration/caltest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite docs/calibration.md: with TestSheetColumns its static columns, with TestSheetValues every column")

const (
	sheetPath      = "../../docs/calibration.md"
	referencesPath = "../../docs/references.md"
)

// TestSheetColumns keeps docs/calibration.md's static columns (every one
// but the simulated values) equal to the rows; -rewrite regenerates them
// and keeps the simulated values the document has.
func TestSheetColumns(t *testing.T) {
	doc := readSheet(t)
	values, err := parseSheetValues(doc)
	if err != nil {
		t.Fatalf("%s: %v", sheetPath, err)
	}
	checkSheet(t, doc, calibration.Markdown(values), "TestSheetColumns")
}

// TestSheetValues runs every row of every backend, judges each as the
// backends' calibration tests do (a subtest per row: a failure is an
// error unless the row names why the model misses it), and keeps
// docs/calibration.md's simulated values equal to what the models give;
// -rewrite regenerates the whole document.
func TestSheetValues(t *testing.T) {
	caltest.Long(t)
	doc := readSheet(t)
	values := map[string]calibration.SheetValue{}
	for _, b := range calibration.Backends() {
		// One backend at a time: the Aries rows' largest scenario needs
		// gigabytes when others run beside it.
		rows := calibration.Rows(b)
		outcomes := calibration.NewSession(calibration.Options{}).EvaluateAll(t.Context(), rows)
		caltest.Report(t, rows, outcomes)
		for _, o := range outcomes {
			values[o.Row.ID] = calibration.SheetValueOf(o)
		}
	}
	checkSheet(t, doc, calibration.Markdown(values), "TestSheetValues")
}

// TestSheetRows checks that the sheet has every row once, that the tables
// hold each row under its backend with a unique ID, that each row cites a
// source key of docs/references.md, and that the sheet shows no failure
// but the misses the rows explain.
func TestSheetRows(t *testing.T) {
	values, err := parseSheetValues(readSheet(t))
	if err != nil {
		t.Fatalf("%s: %v", sheetPath, err)
	}
	refs, err := os.ReadFile(referencesPath)
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`\[[A-Z][A-Z-]*\]`)
	seen := map[string]string{}
	for _, b := range calibration.Backends() {
		for _, r := range calibration.Rows(b) {
			if r.Backend != b {
				t.Errorf("%s: in the %s table, backend %q", r.ID, b, r.Backend)
			}
			if prev, dup := seen[r.ID]; dup {
				t.Errorf("%s: in the %s table and the %s table", r.ID, prev, b)
			}
			seen[r.ID] = b
			v, ok := values[r.ID]
			if !ok {
				t.Errorf("%s: not in %s", r.ID, sheetPath)
			}
			// The sheet may show a row failing only as a miss the row
			// explains.
			if ok && v.Verdict != string(calibration.Pass) && (v.Verdict != string(calibration.Fail)+" (known miss)" || r.Miss == "") {
				t.Errorf("%s: the sheet's verdict is %q: only PASS, or FAIL with the row's named miss", r.ID, v.Verdict)
			}
			keys := key.FindAllString(r.Source, -1)
			if len(keys) == 0 {
				t.Errorf("%s: source %q names no key of %s", r.ID, r.Source, referencesPath)
			}
			for _, k := range keys {
				if !strings.Contains(string(refs), "`"+k+"`") {
					t.Errorf("%s: source key %s is not in %s", r.ID, k, referencesPath)
				}
			}
			if row, ok := calibration.Lookup(strings.ToLower(r.ID)); !ok || row != r {
				t.Errorf("%s: Lookup does not find it", r.ID)
			}
		}
	}
	for id := range values {
		if _, ok := seen[id]; !ok {
			t.Errorf("%s: in %s but not a row", id, sheetPath)
		}
	}
}

func readSheet(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(sheetPath)
	if os.IsNotExist(err) && *rewrite {
		return "" // written afresh
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// checkSheet compares the document with want, or with -rewrite writes
// want.
func checkSheet(t *testing.T, doc, want, test string) {
	t.Helper()
	if doc == want {
		return
	}
	if *rewrite {
		if err := os.WriteFile(sheetPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, exp := strings.Split(doc, "\n"), strings.Split(want, "\n")
	line := 0
	for line < min(len(got), len(exp)) && got[line] == exp[line] {
		line++
	}
	t.Errorf("%s is out of date from line %d: run go test ./bench/calibration -run %s -rewrite", sheetPath, line+1, test)
}

// parseSheetValues reads the simulated columns back from a sheet that
// calibration.Markdown wrote, by row ID.
func parseSheetValues(doc string) (map[string]calibration.SheetValue, error) {
	values := map[string]calibration.SheetValue{}
	n := len(calibration.SheetColumns)
	doc, _, _ = strings.Cut(doc, calibration.FittedHeading)
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != n {
			return nil, fmt.Errorf("line %d: %d cells, want %d", i+1, len(cells), n)
		}
		if cells[0] == calibration.SheetColumns[0] || cells[0] == "---" {
			continue
		}
		values[cells[0]] = calibration.SheetValue{Simulated: cells[n-3], Ratio: cells[n-2], Verdict: cells[n-1]}
	}
	return values, nil
}

// splitRow splits a table row into its cells, unescaping '|'.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case strings.HasPrefix(line[i:], " | "):
			cells = append(cells, cur.String())
			cur.Reset()
			i += 2
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, cur.String())
}
