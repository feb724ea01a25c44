package caltest

import (
	"sync"
	"testing"

	"github.com/gopgas/gopgas/bench/calibration"
	"github.com/gopgas/gopgas/internal/race"
)

// One calibration session per test binary, so that rows drawing on the
// same runs (the ordering study, the hop latencies) share them.
var (
	once    sync.Once
	session *calibration.Session
)

func shared() *calibration.Session {
	once.Do(func() { session = calibration.NewSession(calibration.Options{}) })
	return session
}

// CheckRows evaluates calibration rows, each as a subtest: a row that
// fails is an error, unless the row says why the model misses it, in which
// case the subtest is skipped with that reason and the simulated value.
func CheckRows(t *testing.T, ids ...string) {
	t.Helper()
	var rows []*calibration.Row
	for _, id := range ids {
		row, ok := calibration.Lookup(id)
		if !ok {
			t.Fatalf("no calibration row %s", id)
		}
		rows = append(rows, row)
	}
	// Evaluated together: the session runs their scenarios in parallel.
	Report(t, rows, shared().EvaluateAll(t.Context(), rows))
}

// Report judges evaluated rows, each as a subtest: a row that fails is an
// error, unless the row says why the model misses it, in which case the
// subtest is skipped with that reason and the simulated value.
func Report(t *testing.T, rows []*calibration.Row, outcomes []calibration.Outcome) {
	t.Helper()
	for i, row := range rows {
		id, o := row.ID, outcomes[i]
		t.Run(id, func(t *testing.T) {
			t.Logf("%s: published %s, simulated %s (ratio %s); conditions: %s", id, row.Published, o.Simulated(), o.Ratio(), row.Conditions)
			if o.Detail != "" {
				t.Logf("%s: %s", id, o.Detail)
			}
			switch o.Status {
			case calibration.Pass:
			case calibration.Fail:
				if row.Miss != "" {
					t.Skipf("%s: the model misses it (simulated %s, published %s): %s", id, o.Simulated(), row.Published, row.Miss)
				}
				t.Errorf("%s: simulated %s, published %s: outside %v", id, o.Simulated(), row.Published, row.Expect)
			default:
				t.Fatalf("%s: %s: %s", id, o.Status, o.Detail)
			}
		})
	}
}

// Long skips a test of a long study under -short, and under the race
// detector, which makes packet-exact simulations of many PEs take many
// minutes (the studies have no data race to find that the other tests do
// not reach).
func Long(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a long study: skipped with -short")
	}
	if race.Enabled {
		t.Skip("a long study: too slow under the race detector; run go test without -race, or pgasbench calibrate")
	}
}

// NotUnderRace skips a test of packet-level simulation at scale under the
// race detector, which makes it take minutes; CI runs every test again
// without it, where this one runs.
func NotUnderRace(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("a large simulation: run without -race (CI's second pass does)")
	}
}
