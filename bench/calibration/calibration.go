// Package calibration runs the scenarios of the calibration sheet
// (CALIBRATION.md: every published figure the simulated networks must
// reproduce) on the models and judges each against its published value.
//
// A Row is one line of the sheet: its ID, the published figure, the check
// (within 10%, below a bound, in a range, exact) and the scenario that
// measures it: a pgas program run on the simulated backend under the
// row's conditions, or for the few figures no program can observe (a
// NIC's internal pipeline rate, packet sizes, topology tables) a
// measurement of the model's part in isolation. Nothing is scaled to
// match: a row the model misses fails, and where the miss is understood
// the row says why (Row.Miss).
//
// A Session evaluates rows, sharing the runs that several rows draw on
// (the ordering study feeds four rows) and running independent scenarios
// in parallel.
package calibration

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
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

// Options tune a Session.
type Options struct {
	// Seed seeds the simulations (0 is a fine seed).
	Seed uint64
	// Parallel is how many scenarios run at once; 0 means GOMAXPROCS.
	Parallel int
	// Progress, when not nil, is told when a row starts and ends (from
	// several goroutines: it must be safe for concurrent use).
	Progress func(id string, done bool)
}

// Session evaluates rows, running each distinct scenario once.
type Session struct {
	*core
	// work, for a row's view of the session, adds up the time its
	// scenarios' runs took (not their waits for a slot).
	work *atomic.Int64
}

type core struct {
	opts Options
	mu   sync.Mutex
	memo map[string]*memoEntry
	sem  chan struct{}
}

type memoEntry struct {
	once sync.Once
	val  any
	err  error
}

// NewSession starts a session.
func NewSession(o Options) *Session {
	p := o.Parallel
	if p <= 0 {
		p = runtime.GOMAXPROCS(0)
	}
	return &Session{core: &core{opts: o, memo: map[string]*memoEntry{}, sem: make(chan struct{}, p)}}
}

// shared runs f once per key in the session and returns its result to
// every caller.
func shared[T any](s *Session, key string, f func() (T, error)) (T, error) {
	s.mu.Lock()
	e := s.memo[key]
	if e == nil {
		e = &memoEntry{}
		s.memo[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		v, err := f()
		e.val, e.err = v, err
	})
	v, _ := e.val.(T)
	return v, e.err
}

// parallel runs fs at most Options.Parallel at a time across the session
// and returns the first error.
func (s *Session) parallel(fs ...func() error) error {
	var g errgroup.Group
	for _, f := range fs {
		g.Go(func() error {
			s.sem <- struct{}{}
			defer func() { <-s.sem }()
			start := time.Now()
			defer func() {
				if s.work != nil {
					s.work.Add(int64(time.Since(start)))
				}
			}()
			return f()
		})
	}
	return g.Wait()
}

// runOne runs f in one of the session's parallel slots.
func runOne[T any](s *Session, f func() (T, error)) (T, error) {
	var v T
	err := s.parallel(func() error {
		var err error
		v, err = f()
		return err
	})
	return v, err
}

// Evaluate runs a row's scenario and judges it.
func (s *Session) Evaluate(r *Row) Outcome {
	if s.opts.Progress != nil {
		s.opts.Progress(r.ID, false)
		defer s.opts.Progress(r.ID, true)
	}
	var work atomic.Int64
	m, err := r.measure(&Session{core: s.core, work: &work})
	o := Outcome{Row: r, Elapsed: time.Duration(work.Load()), Detail: m.Detail}
	if err != nil {
		o.Status, o.Detail = Error, err.Error()
		return o
	}
	if len(m.Values) != len(r.Expect) {
		o.Status, o.Detail = Error, fmt.Sprintf("the scenario gave %d values for %d figures", len(m.Values), len(r.Expect))
		return o
	}
	o.Values = m.Values
	o.Status = Pass
	for i, e := range r.Expect {
		v := m.Values[i]
		ok := e.Pass(v)
		o.Passed = append(o.Passed, ok)
		o.Ratios = append(o.Ratios, ratio(v, e))
		if !ok {
			o.Status = Fail
		}
	}
	return o
}

func ratio(v float64, e Expect) float64 {
	t := e.Target
	if e.Check == InRange && t == 0 {
		t = (e.Lo + e.Hi) / 2
	}
	if t == 0 {
		return math.NaN()
	}
	return v / t
}

// EvaluateAll evaluates rows concurrently, in the order given.
func (s *Session) EvaluateAll(ctx context.Context, rows []*Row) []Outcome {
	out := make([]Outcome, len(rows))
	var wg sync.WaitGroup
	for i, r := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				out[i] = Outcome{Row: r, Status: Skip, Detail: "cancelled"}
				return
			}
			out[i] = s.Evaluate(r)
		}()
	}
	wg.Wait()
	return out
}

// registry holds every row, by backend.
var registry = map[string][]*Row{}

func register(rows ...*Row) {
	for _, r := range rows {
		registry[r.Backend] = append(registry[r.Backend], r)
	}
}

// Backends lists the backends with rows.
func Backends() []string { return slices.Sorted(maps.Keys(registry)) }

// Rows returns the rows of a backend in sheet order.
func Rows(backend string) []*Row { return slices.Clone(registry[backend]) }

// Lookup finds a row by ID (case-insensitive).
func Lookup(id string) (*Row, bool) {
	for _, rows := range registry {
		for _, r := range rows {
			if strings.EqualFold(r.ID, id) {
				return r, true
			}
		}
	}
	return nil, false
}

// Select returns the rows of a backend whose IDs match any of patterns (a
// pattern ending in '*' matches a prefix; none means all), or an error
// naming a pattern that matches nothing.
func Select(backend string, patterns []string) ([]*Row, error) {
	rows := Rows(backend)
	if len(rows) == 0 {
		return nil, fmt.Errorf("calibration: no rows for backend %q (have: %s)", backend, strings.Join(Backends(), ", "))
	}
	if len(patterns) == 0 {
		return rows, nil
	}
	var out []*Row
	for _, p := range patterns {
		found := false
		for _, r := range rows {
			if match(p, r.ID) && !slices.Contains(out, r) {
				out = append(out, r)
				found = true
			} else if match(p, r.ID) {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("calibration: no %s row matches %q", backend, p)
		}
	}
	return out, nil
}

func match(pattern, id string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return len(id) >= len(prefix) && strings.EqualFold(id[:len(prefix)], prefix)
	}
	return strings.EqualFold(pattern, id)
}
