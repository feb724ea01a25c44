package calibration

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Check is how a simulated value is judged.
type Check uint8

const (
	// Within: within Tol (default 10%) of Target.
	Within Check = iota
	// Below: greater than 0 and less than Target.
	Below
	// AtMost: greater than 0 and at most Target.
	AtMost
	// AtLeast: at least Target.
	AtLeast
	// Above: greater than Target.
	Above
	// InRange: from Lo to Hi inclusive.
	InRange
	// Exact: equal to Target (within 1e-9 relative).
	Exact
)

var checkNames = [...]string{"within", "below", "at_most", "at_least", "above", "in_range", "exact"}

// String names the check.
func (c Check) String() string {
	if int(c) < len(checkNames) {
		return checkNames[c]
	}
	return fmt.Sprintf("Check(%d)", uint8(c))
}

// DefaultTolerance is the sheet's tolerance where a row states none.
const DefaultTolerance = 0.10

// Expect is one published figure of a row and how to judge it.
type Expect struct {
	// Label names the figure when a row has several ("alone", "24
	// concurrent").
	Label string
	Check Check
	// Target is the published value (for InRange, the nominal one).
	Target float64
	// Lo and Hi bound InRange.
	Lo, Hi float64
	// Tol is Within's relative tolerance; 0 means DefaultTolerance.
	Tol float64
	// Unit of the value ("us", "GB/s", "M/s", "B", "" for a count).
	Unit string
}

// Pass judges v.
func (e Expect) Pass(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	switch e.Check {
	case Within:
		tol := e.Tol
		if tol == 0 {
			tol = DefaultTolerance
		}
		return math.Abs(v-e.Target) <= tol*math.Abs(e.Target)
	case Below:
		return v > 0 && v < e.Target
	case AtMost:
		return v > 0 && v <= e.Target
	case AtLeast:
		return v >= e.Target
	case Above:
		return v > e.Target
	case InRange:
		return v >= e.Lo && v <= e.Hi
	case Exact:
		return math.Abs(v-e.Target) <= 1e-9*math.Max(1, math.Abs(e.Target))
	}
	return false
}

// String is the expectation as the report prints it.
func (e Expect) String() string {
	u := unitSuffix(e.Unit)
	var s string
	switch e.Check {
	case Within:
		tol := e.Tol
		if tol == 0 {
			tol = DefaultTolerance
		}
		s = fmt.Sprintf("%s%s ±%.0f%%", num(e.Target), u, 100*tol)
	case Below:
		s = fmt.Sprintf("< %s%s", num(e.Target), u)
	case AtMost:
		s = fmt.Sprintf("<= %s%s", num(e.Target), u)
	case AtLeast:
		s = fmt.Sprintf(">= %s%s", num(e.Target), u)
	case Above:
		s = fmt.Sprintf("> %s%s", num(e.Target), u)
	case InRange:
		s = fmt.Sprintf("%s..%s%s", num(e.Lo), num(e.Hi), u)
	case Exact:
		s = fmt.Sprintf("= %s%s", num(e.Target), u)
	}
	if e.Label != "" {
		s = e.Label + " " + s
	}
	return s
}

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

// num prints a value compactly.
func num(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Measurement is what a row's scenario found.
type Measurement struct {
	// Values are the simulated figures, one per Expect of the row.
	Values []float64
	// Detail says more: the series behind the figure, counters.
	Detail string
}

// Row is one line of the calibration sheet.
type Row struct {
	// ID is the sheet's ID ("G-LAT-PUT").
	ID string
	// Backend is the simulated backend the row is about.
	Backend string
	// Figure is what the sheet says is measured.
	Figure string
	// Published is the sheet's published value, as it is written there.
	Published string
	// Source is the document and section.
	Source string
	// Expect are the figures judged: usually one.
	Expect []Expect
	// Conditions are the conditions the scenario uses, where the
	// publication leaves them open or the model needs them stated.
	Conditions string
	// Miss, when not empty, is why the model is known not to reach the row
	// (the tests skip the row with this reason when it fails).
	Miss string
	// measure runs the scenario.
	measure func(s *Session) (Measurement, error)
}

// Status is a row's verdict.
type Status string

const (
	Pass  Status = "PASS"
	Fail  Status = "FAIL"
	Skip  Status = "SKIP"
	Error Status = "ERROR"
)

// Outcome is a row's evaluation.
type Outcome struct {
	Row *Row
	// Values are the simulated figures.
	Values []float64
	// Ratios are simulated / published for each figure.
	Ratios []float64
	// Passed says which figures passed.
	Passed []bool
	Status Status
	// Detail is the scenario's account; for SKIP and ERROR, the reason.
	Detail string
	// Elapsed is the time the row's simulations ran (a run several rows
	// share is counted by the row that started it; waits for a free
	// slot are not counted).
	Elapsed time.Duration
}

// Simulated prints the simulated values.
func (o Outcome) Simulated() string {
	var parts []string
	for i, v := range o.Values {
		u := ""
		if i < len(o.Row.Expect) {
			u = unitSuffix(o.Row.Expect[i].Unit)
		}
		parts = append(parts, num(v)+u)
	}
	return strings.Join(parts, "; ")
}

// Ratio prints the ratios.
func (o Outcome) Ratio() string {
	var parts []string
	for _, r := range o.Ratios {
		parts = append(parts, fmt.Sprintf("%.2f", r))
	}
	return strings.Join(parts, "; ")
}
