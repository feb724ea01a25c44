package calibration

import (
	"fmt"
	"strings"
)

// The calibration sheet as a Markdown document (docs/calibration.md): the
// rows' static columns come from the tables, the simulated ones from an
// evaluation. The package's tests keep the document equal to what
// Markdown writes.

// sheetTitles are the headings of the backends' tables, in the sheet's
// order.
var sheetTitles = []struct{ backend, title string }{
	{gem, "Gemini (Cray XE6, 3D torus)"},
	{ari, "Aries (Cray XC, Dragonfly)"},
}

// SheetValue is what the sheet prints of a row's evaluation.
type SheetValue struct {
	// Simulated and Ratio are as the report prints them.
	Simulated, Ratio string
	// Verdict is the status, with "(known miss)" after a FAIL of a row
	// that says why the model misses it.
	Verdict string
}

// SheetValueOf is an outcome's simulated columns.
func SheetValueOf(o Outcome) SheetValue {
	v := SheetValue{Simulated: o.Simulated(), Ratio: strings.ReplaceAll(o.Ratio(), "NaN", "-"), Verdict: string(o.Status)}
	if o.Status == Fail && o.Row.Miss != "" {
		v.Verdict += " (known miss)"
	}
	return v
}

// SheetColumns are the headings of each backend's table; the last three
// are the simulated columns (SheetValue).
var SheetColumns = []string{"ID", "Figure", "Published", "Source", "Passes when", "Conditions", "Simulated", "Ratio", "Verdict"}

// sheetHeader opens the document.
const sheetHeader = `# Calibration sheet

<!-- Generated from the bench/calibration package by its tests: do not edit by hand; the next section says how to rewrite it. -->

Every published figure the simulated networks must reproduce, one row
each: what is measured, the published value, its source (a key of
[references.md](references.md) with the section, figure or table), the
check that judges the simulated value (Passes when), the conditions of the
scenario that measures it, and what the models give today. Nothing is
scaled to match: a row the model misses fails, and where the miss is
understood the row says why (below each table). The simulations are
deterministic: ` + "`pgasbench calibrate --conduit gemini`" + ` (or ` + "`aries`" + `) prints the
same values, and the tests ` + "`calibration_*_test.go`" + ` of each backend check the
same rows.

## Keeping it true

This document is generated from the rows of the ` + "`bench/calibration`" + `
package, and that package's tests check it: ` + "`TestSheetColumns`" + ` (a short
test) every column but Simulated, Ratio and Verdict, and ` + "`TestSheetValues`" + `
(a long test: it runs every row, so it is skipped with ` + "`-short`" + ` and under
the race detector) those three. After a change to a row or to a model,
rewrite it with the test's ` + "`-rewrite`" + ` flag:

` + "```sh" + `
go test ./bench/calibration -run TestSheetColumns -rewrite   # the static columns; keeps the simulated ones
go test ./bench/calibration -run TestSheetValues -rewrite    # every column: runs every row (minutes)
` + "```" + `

The runtime's R-* rows (the GASNet gemini-conduit defaults it adopts,
[GASNET-GEMINI]) are settings, not measurements: the README's settings
table lists them.
`

// Markdown writes the calibration sheet: a table per backend of every row,
// with the simulated columns of values (by row ID; a row without one
// prints "-"), then the rows the model is known to miss and why.
func Markdown(values map[string]SheetValue) string {
	var b strings.Builder
	b.WriteString(sheetHeader)
	for _, s := range sheetTitles {
		rows := Rows(s.backend)
		fmt.Fprintf(&b, "\n## %s\n\n%d rows.\n\n", s.title, len(rows))
		writeMarkdownRow(&b, SheetColumns)
		seps := make([]string, len(SheetColumns))
		for i := range seps {
			seps[i] = "---"
		}
		writeMarkdownRow(&b, seps)
		for _, r := range rows {
			v, ok := values[r.ID]
			if !ok {
				v = SheetValue{Simulated: "-", Ratio: "-", Verdict: "-"}
			}
			var expect []string
			for _, e := range r.Expect {
				expect = append(expect, e.String())
			}
			writeMarkdownRow(&b, []string{r.ID, r.Figure, r.Published, r.Source, strings.Join(expect, "; "), r.Conditions, v.Simulated, v.Ratio, v.Verdict})
		}
		var misses []*Row
		for _, r := range rows {
			if r.Miss != "" {
				misses = append(misses, r)
			}
		}
		if len(misses) > 0 {
			fmt.Fprintf(&b, "\nKnown misses of the model:\n\n")
			for _, r := range misses {
				fmt.Fprintf(&b, "- %s: %s.\n", r.ID, r.Miss)
			}
		}
	}
	b.WriteString(fittedMarkdown())
	return b.String()
}

// writeMarkdownRow writes one table row; a '|' in a cell is written as
// a backslash and '|'.
func writeMarkdownRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
	}
	b.WriteString("\n")
}
