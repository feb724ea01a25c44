package calibration

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

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
