package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

type recorder struct {
	Source
	k   *Kernel
	log []string
}

func (r *recorder) Fire(code int32, data any) {
	r.log = append(r.log, fmt.Sprintf("%d:%d:%v", int64(r.k.Now()), code, data))
}

func TestEventsInTimeOrder(t *testing.T) {
	k := New(1)
	r := &recorder{k: k}
	k.At(30, r, 1, "a")
	k.At(10, r, 2, "b")
	k.At(30, r, 3, "c")
	k.At(20, r, 4, "d")
	k.At(10, r, 5, "e")
	for k.Step() {
	}
	require.Len(t, r.log, 5)
	require.ElementsMatch(t, []string{"10:2:b", "10:5:e"}, r.log[:2])
	require.Equal(t, "20:4:d", r.log[2])
	require.ElementsMatch(t, []string{"30:1:a", "30:3:c"}, r.log[3:])
	require.EqualValues(t, 5, k.Events())
}

// TestRebase: events far apart in time keep their order when the queue's
// base moves forward.
func TestRebase(t *testing.T) {
	k := New(1)
	var times []Time
	a := actorFunc(func(int32, any) { times = append(times, k.Now()) })
	step := Time(1) << (timeBits - 2)
	for i := range 6 {
		k.At(Time(i)*step, a, 0, nil)
		k.At(Time(i)*step+step/2, a, 0, nil)
		k.Step()
	}
	for k.Step() {
	}
	require.Len(t, times, 12)
	for i := 1; i < len(times); i++ {
		require.LessOrEqual(t, times[i-1], times[i])
	}
	require.Equal(t, 5*step+step/2, times[11])
}

func TestHeapOrderUnderRandomLoad(t *testing.T) {
	k := New(7)
	var last Time
	n := 0
	var a actorFunc
	a = func(code int32, data any) {
		if k.Now() < last {
			t.Fatalf("time went back from %v to %v", last, k.Now())
		}
		last = k.Now()
		n++
		if n < 20000 {
			k.After(Time(k.Rand().IntN(1000)), a, 0, nil)
		}
	}
	for i := range 1000 {
		k.At(Time(i*7919%1000), a, 0, nil)
	}
	for k.Step() {
	}
	require.Equal(t, 20999, n)
}

type actorFunc func(code int32, data any)

func (f actorFunc) Fire(code int32, data any) { f(code, data) }

// funcSeq is the count of events every actorFunc has scheduled: they
// share origin 0 with the kernel's set-up (tests of one kernel at a time).
var funcSeq uint32

func (f actorFunc) Origin() (uint32, *uint32) { return 0, &funcSeq }

func TestRunUntil(t *testing.T) {
	k := New(1)
	r := &recorder{k: k}
	k.At(5, r, 1, nil)
	k.At(15, r, 2, nil)
	k.RunUntil(10)
	require.Len(t, r.log, 1)
	require.Equal(t, Time(10), k.Now())
	require.Panics(t, func() { k.At(9, r, 3, nil) }, "scheduling in the past")
}

// TestProcsAdvanceAndSync: a PE's Sync lets the events before its clock
// happen first.
func TestProcsAdvanceAndSync(t *testing.T) {
	k := New(1)
	r := &recorder{k: k}
	var seen []int
	k.At(100, r, 1, nil)
	k.At(300, r, 2, nil)
	k.Spawn(func(p *Proc) error {
		p.Advance(200)
		if err := p.Sync(); err != nil {
			return err
		}
		seen = append(seen, len(r.log))
		require.Equal(t, Time(200), p.Clock())
		p.Advance(200)
		if err := p.Sync(); err != nil {
			return err
		}
		seen = append(seen, len(r.log))
		return nil
	})
	require.NoError(t, k.Run())
	require.Equal(t, []int{1, 2}, seen)
}

// TestBlockAndWake: a PE blocked until an event wakes it resumes at the
// event's time.
func TestBlockAndWake(t *testing.T) {
	k := New(1)
	var p0 *Proc
	var woke Time
	p0 = k.Spawn(func(p *Proc) error {
		if err := p.Block("a signal"); err != nil {
			return err
		}
		woke = p.Clock()
		return nil
	})
	k.At(500, actorFunc(func(int32, any) { p0.Wake() }), 0, nil)
	require.NoError(t, k.Run())
	require.Equal(t, Time(500), woke)
}

func TestDeadlockNamesEachPE(t *testing.T) {
	k := New(1)
	k.Spawn(func(p *Proc) error { return p.Block("the moon") })
	k.Spawn(func(p *Proc) error { return nil })
	k.Spawn(func(p *Proc) error { p.Advance(50); return p.Block("the tide") })
	err := k.Run()
	var d *conduit.DeadlockError
	require.ErrorAs(t, err, &d)
	require.Equal(t, map[int]string{0: "the moon", 2: "the tide"}, d.Waiting)
	require.Equal(t, []int{1}, d.Finished)
	require.Contains(t, err.Error(), "PE 0 waits for the moon")
}

func TestFirstFailureAbortsTheOthers(t *testing.T) {
	k := New(1)
	boom := errors.New("boom")
	var other error
	k.Spawn(func(p *Proc) error {
		other = p.Block("forever")
		return other
	})
	k.Spawn(func(p *Proc) error { p.Advance(10); _ = p.Sync(); return boom })
	err := k.Run()
	require.ErrorIs(t, err, boom)
	require.ErrorIs(t, other, conduit.ErrJobAborted)
	require.Contains(t, other.Error(), "PE 1 failed: boom")
}

func TestPanicInsideAPEIsAnError(t *testing.T) {
	k := New(1)
	k.Spawn(func(p *Proc) error { panic("model bug") })
	err := k.Run()
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "model bug"))
}

// TestDeterministic: the same program and seed give the same trace.
func TestDeterministic(t *testing.T) {
	run := func() []string {
		k := New(42)
		var log []string
		for i := range 4 {
			k.Spawn(func(p *Proc) error {
				for j := range 50 {
					p.Advance(Time(k.Rand().IntN(100) + 1))
					if err := p.Sync(); err != nil {
						return err
					}
					log = append(log, fmt.Sprintf("%d/%d@%v", i, j, p.Clock()))
				}
				return nil
			})
		}
		require.NoError(t, k.Run())
		return log
	}
	require.Equal(t, run(), run())
}

// TestWakeWhileSyncingIsNotLost: a wake that arrives while the PE is
// letting events happen (not blocked) makes its next Block return at once.
func TestWakeWhileSyncingIsNotLost(t *testing.T) {
	k := New(1)
	var p0 *Proc
	arrived := false
	var blockedAfter bool
	p0 = k.Spawn(func(p *Proc) error {
		p.Advance(100)
		if err := p.Sync(); err != nil { // the event at 50 arrives now
			return err
		}
		if err := p.Block("something already here"); err != nil {
			return err
		}
		blockedAfter = arrived
		return nil
	})
	k.At(50, actorFunc(func(int32, any) { arrived = true; p0.Wake() }), 0, nil)
	require.NoError(t, k.Run())
	require.True(t, blockedAfter)
}

// TestFreeSlotsLastFreedFirst: the slab's slots are reused last freed
// first (the one freed last is the likeliest in cache; the order of
// simultaneous events does not depend on it), and a kernel that keeps the
// same number of events pending allocates nothing.
func TestFreeSlotsLastFreedFirst(t *testing.T) {
	k := New(1)
	var a actorFunc = func(int32, any) {}
	for i := range 4 {
		k.At(Time(i), a, 0, nil) // slots 0..3, fired in that order
	}
	for k.Step() {
	}
	for i := range 4 {
		k.At(Time(10+i), a, 0, nil)
	}
	// The first event scheduled (the earliest) took the slot freed last.
	for want := 3; want >= 0; want-- {
		require.EqualValues(t, want, k.queue.pop()&slotMask)
	}

	k = New(1)
	for i := range 5000 {
		k.At(Time(i), a, 0, nil)
	}
	require.LessOrEqual(t, k.queue.room(), 3*5000, "the queue's room is that of its pending keys")
	allocs := testing.AllocsPerRun(100, func() {
		k.Step()
		k.After(5000, a, 0, nil)
	})
	require.Zero(t, allocs)
}

// TestBeforePE: the kernel calls the BeforePE hook each time before it
// runs a PE's code (its start and every resume), while no PE runs.
func TestBeforePE(t *testing.T) {
	k := New(1)
	calls, running := 0, 0
	k.BeforePE(func() {
		calls++
		if k.Running() != nil {
			running++
		}
	})
	k.Spawn(func(p *Proc) error {
		require.Equal(t, 1, calls)
		p.Advance(100)
		k.At(50, &recorder{k: k}, 1, nil)
		if err := p.Sync(); err != nil {
			return err
		}
		require.Equal(t, 2, calls, "called again before the PE resumed")
		return nil
	})
	require.NoError(t, k.Run())
	require.Equal(t, 2, calls)
	require.Zero(t, running)
}

// tieActor records its events as "name:code:scheduler" and, on code 1,
// schedules code 2 for itself and then for other at once.
type tieActor struct {
	Source
	k     *Kernel
	name  string
	log   *[]string
	other *tieActor
}

func (a *tieActor) Fire(code int32, from any) {
	*a.log = append(*a.log, fmt.Sprintf("%s:%d:%v", a.name, code, from))
	if code == 1 {
		a.k.At(a.k.Now(), a, 2, a.name)
		a.k.At(a.k.Now(), a.other, 2, a.name)
	}
}

// Events at the same time run in the order of their tie-break, which
// depends on the seed, the actors that scheduled them and the time, not on
// the slots the slab gives them: a kernel whose slab has been churned, so
// that its free slots come in another order, runs them the same. An
// actor's events at one time run in the order it scheduled them, and the
// order among actors differs with the seed.
func TestSimultaneousEventsByOrigin(t *testing.T) {
	run := func(seed uint64, churn int) []string {
		k := New(seed)
		var log []string
		a := &tieActor{k: k, name: "a", log: &log}
		b := &tieActor{k: k, name: "b", log: &log, other: a}
		a.other = b
		a.Source.ID, b.Source.ID = k.NewOrigins(1), k.NewOrigins(1)
		noise := actorFunc(func(int32, any) {})
		for i := range churn {
			k.At(Time(i%7), noise, 0, nil)
		}
		for k.Step() {
		}
		k.At(100, b, 1, "setup")
		k.At(100, a, 1, "setup")
		for k.Step() {
		}
		return log
	}
	orders := map[string]bool{}
	for seed := range uint64(16) {
		want := run(seed, 0)
		require.Len(t, want, 6)
		for _, churn := range []int{1, 5, 100} {
			require.Equal(t, want, run(seed, churn), "seed %d, after %d events through the slab", seed, churn)
		}
		// Each scheduler's events in the order it scheduled them.
		for _, pair := range [][2]string{{"b:1:setup", "a:1:setup"}, {"a:2:a", "b:2:a"}, {"b:2:b", "a:2:b"}} {
			require.Less(t, slices.Index(want, pair[0]), slices.Index(want, pair[1]), "seed %d: %v", seed, want)
		}
		orders[strings.Join(want, " ")] = true
	}
	require.Greater(t, len(orders), 1, "the order among actors does not change with the seed")
}

// TestSortByTie checks the three sorts of a burst (insertion, the
// library's, radix) against a reference, on bursts whose tie-breaks are
// spread over every byte and on bursts that share their high bytes (one
// actor's events, or few actors), reusing the radix sort's buffer.
func TestSortByTie(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var spare []batchEntry
	for _, n := range []int{0, 1, 2, insertionMax, insertionMax + 1, 100, radixMin - 1, radixMin, radixMin + 1, 3000, 20000} {
		for _, shape := range []string{"spread", "one actor", "few actors"} {
			seen := map[uint64]bool{}
			r := make([]batchEntry, 0, n)
			for len(r) < n {
				var tie uint64
				switch shape {
				case "spread":
					tie = rng.Uint64()
				case "one actor":
					tie = 7<<32 | uint64(rng.IntN(4*n))
				default:
					tie = uint64(rng.IntN(5))<<32 | uint64(rng.IntN(4*n))
				}
				if !seen[tie] {
					seen[tie] = true
					r = append(r, batchEntry{tie: tie, slot: uint32(len(r))})
				}
			}
			want := slices.Clone(r)
			slices.SortFunc(want, func(a, b batchEntry) int { return cmp.Compare(a.tie, b.tie) })
			spare = sortByTie(r, spare)
			if !slices.Equal(r, want) {
				t.Errorf("%d events, %s: sorted wrongly", n, shape)
			}
		}
	}
}

// Run ends the job at the simulated time limit: the events up to it run,
// the first later one does not, and the error names the limit, the time
// of the last event run and what each PE was doing.
func TestRunStopsAtTheSimulatedTimeLimit(t *testing.T) {
	k := New(1)
	k.SetLimits(1000, 0)
	r := &recorder{k: k}
	for _, at := range []Time{500, 1000, 1001, 1500} {
		k.At(at, r, 0, nil)
	}
	k.Spawn(func(p *Proc) error { return p.Block("a packet") })
	err := k.Run()
	var le *conduit.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, "simulated time limit", le.Limit)
	require.Equal(t, Time(1000), le.At)
	require.Equal(t, []string{"500:0:<nil>", "1000:0:<nil>"}, r.log)
	require.Equal(t, 2, k.Pending(), "the later events are left pending")
	require.Contains(t, err.Error(), "a packet")
}
