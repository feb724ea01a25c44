package fabric_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/pgas"
)

// traced runs a window of non-blocking puts and gets between two nodes of
// backend with the trace option and returns the trace file's bytes.
func traced(t *testing.T, backend string) []byte {
	t.Helper()
	return tracedOn(t, backend, 2, 1, nil)
}

// tracedOn is traced on a job of pes PEs, a node each, with the puts and
// gets from PE 0 to PE to, with the options opts besides the trace.
func tracedOn(t *testing.T, backend string, pes, to int, opts map[string]string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.json")
	opts = maps.Clone(opts)
	if opts == nil {
		opts = map[string]string{}
	}
	opts["trace"] = path
	const window, size = 8, 4096
	err := pgas.Run(pgas.Config{Conduit: backend, PEs: pes, PEsPerNode: 1, Options: opts},
		func(pe *pgas.PE) error {
			buf, err := pe.Alloc(window*size, 64)
			if err != nil {
				return err
			}
			if pe.Rank() == 0 {
				src := make([]byte, size)
				var hs []pgas.Handle
				for i := range window {
					h, err := pe.PutNB(to, int64(buf)+int64(i*size), src)
					if err != nil {
						return err
					}
					hs = append(hs, h)
				}
				for i := range window {
					h, err := pe.GetNB(to, int64(buf)+int64(i*size), make([]byte, size))
					if err != nil {
						return err
					}
					hs = append(hs, h)
				}
				if err := pgas.WaitAll(hs...); err != nil {
					return err
				}
			}
			return pe.Barrier()
		})
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

type traceEvent struct {
	Ph   string          `json:"ph"`
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Ts   *float64        `json:"ts"`
	Dur  *float64        `json:"dur"`
	ID   json.RawMessage `json:"id"`
	BP   string          `json:"bp"`
	Args map[string]any  `json:"args"`
}

// ns is a trace time (microseconds) in nanoseconds.
func traceNS(us float64) int64 { return int64(math.Round(us * 1000)) }

// checkTrace checks the trace-event format's structural rules on a trace:
// valid JSON; X slices of one thread never partly overlap; b/e events
// balance per category and id, each e after its b; a flow has one s
// first and one f last, and each of its events lies in a slice of its
// thread; every thread and process with events is named. It returns the
// events by phase.
func checkTrace(t *testing.T, b []byte) map[string]int {
	t.Helper()
	var tr struct {
		TraceEvents []traceEvent   `json:"traceEvents"`
		Metadata    map[string]any `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &tr), "the trace is not valid JSON")
	phases := map[string]int{}
	type thread struct{ pid, tid int }
	type span struct{ start, end int64 }
	slices := map[thread][]span{}
	threadNames, procNames := map[thread]bool{}, map[int]bool{}
	type asyncKey struct {
		cat string
		id  string
	}
	open := map[asyncKey]int64{}
	type flowEv struct {
		ph  string
		at  thread
		ts  int64
		seq int
	}
	flows := map[string][]flowEv{}
	for i, e := range tr.TraceEvents {
		phases[e.Ph]++
		at := thread{e.Pid, e.Tid}
		if e.Ph != "M" {
			require.NotNil(t, e.Ts, "event %d (%s) has no ts", i, e.Ph)
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "thread_name":
				threadNames[at] = true
			case "process_name":
				procNames[e.Pid] = true
			}
		case "X":
			require.NotNil(t, e.Dur, "slice %d has no dur", i)
			require.GreaterOrEqual(t, *e.Dur, 0.0, "slice %d", i)
			s := traceNS(*e.Ts)
			slices[at] = append(slices[at], span{s, s + traceNS(*e.Dur)})
		case "b", "e":
			k := asyncKey{e.Cat, string(e.ID)}
			require.NotEmpty(t, e.ID, "async event %d has no id", i)
			if e.Ph == "b" {
				_, dup := open[k]
				require.False(t, dup, "async id %s begins twice", e.ID)
				open[k] = traceNS(*e.Ts)
				continue
			}
			s, ok := open[k]
			require.True(t, ok, "async id %s ends without a begin", e.ID)
			require.GreaterOrEqual(t, traceNS(*e.Ts), s, "async id %s ends before it begins", e.ID)
			delete(open, k)
		case "s", "t", "f":
			id := e.Cat + "/" + string(e.ID)
			flows[id] = append(flows[id], flowEv{e.Ph, at, traceNS(*e.Ts), i})
		default:
			t.Fatalf("event %d has phase %q", i, e.Ph)
		}
		if e.Ph != "M" {
			assert.True(t, procNames[e.Pid], "event %d's process %d is not named before it", i, e.Pid)
		}
		if e.Ph == "X" {
			assert.True(t, threadNames[at], "slice %d's thread %v is not named before it", i, at)
		}
	}
	assert.Empty(t, open, "async slices without an end")
	for at, ss := range slices {
		// Sorted by start, longest first: each slice must end within the
		// innermost open one that it starts in.
		sort.Slice(ss, func(i, j int) bool {
			return ss[i].start < ss[j].start || ss[i].start == ss[j].start && ss[i].end > ss[j].end
		})
		var stack []span
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				require.LessOrEqual(t, s.end, stack[len(stack)-1].end, "thread %v: slice %v partly overlaps %v", at, s, stack[len(stack)-1])
			}
			stack = append(stack, s)
		}
	}
	for id, evs := range flows {
		require.GreaterOrEqual(t, len(evs), 2, "flow %s has one event", id)
		for i, f := range evs {
			want := "t"
			switch i {
			case 0:
				want = "s"
			case len(evs) - 1:
				want = "f"
			}
			require.Equal(t, want, f.ph, "flow %s event %d", id, i)
			if i > 0 {
				require.GreaterOrEqual(t, f.ts, evs[i-1].ts, "flow %s goes back in time", id)
			}
			in := false
			for _, s := range slices[f.at] {
				in = in || s.start <= f.ts && f.ts <= s.end
			}
			require.True(t, in, "flow %s event %d at %v %dns is in no slice", id, i, f.at, f.ts)
		}
	}
	assert.EqualValues(t, 0, tr.Metadata["dropped_slices"])
	return phases
}

// The trace of a window of puts and gets keeps the trace-event format's
// rules, which Perfetto relies on, and has each kind of event; the same
// run writes the same trace.
func TestTraceIsWellFormed(t *testing.T) {
	for _, backend := range []string{"gemini", "aries"} {
		t.Run(backend, func(t *testing.T) {
			b := traced(t, backend)
			phases := checkTrace(t, b)
			for _, ph := range []string{"X", "b", "e", "s", "t", "f", "M"} {
				assert.Positive(t, phases[ph], "no %q events", ph)
			}
			assert.Equal(t, phases["b"], phases["e"])
			if !testing.Short() {
				assert.Equal(t, b, traced(t, backend), "the same run traced differently")
			}
		})
	}
}

// TestTracePartitioned: a partitioned run (the workers option) is traced,
// each partition's tracer merged at the end: the puts and gets from PE 0
// to a PE in another partition (Aries: another group; Gemini: the other X
// plane of a 2x1x1 torus) give a well-formed trace, byte for byte the same
// on 1 and 2 workers, in which every packet's flow runs whole from the
// NIC that sent it to the one that received it across the partitions:
// one flow for each slice of the NICs' transmit pipelines, as in one
// kernel's trace (were a flow cut where its packet crossed, there would be
// more).
func TestTracePartitioned(t *testing.T) {
	for _, c := range []struct {
		backend string
		pes, to int
		opts    map[string]string
	}{
		{"aries", 2, 1, map[string]string{"groups": "2", "exclude": "1-383"}},
		{"gemini", 4, 2, map[string]string{"torus": "2x1x1"}},
	} {
		t.Run(c.backend, func(t *testing.T) {
			one := tracedOn(t, c.backend, c.pes, c.to, c.opts)
			runs := make([][]byte, 2)
			for w := range runs {
				opts := maps.Clone(c.opts)
				opts["workers"] = fmt.Sprint(w + 1)
				runs[w] = tracedOn(t, c.backend, c.pes, c.to, opts)
			}
			require.Equal(t, runs[0], runs[1], "1 worker against 2")
			for _, b := range [][]byte{one, runs[0]} {
				phases := checkTrace(t, b)
				require.Positive(t, phases["s"])
				require.Equal(t, transmitted(t, b), phases["s"], "flows against packets transmitted")
			}
		})
	}
}

// transmitted counts the slices of the NICs' transmit pipelines in a
// trace.
func transmitted(t *testing.T, b []byte) int {
	var tr struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &tr))
	type thread struct{ pid, tid int }
	tx := map[thread]bool{}
	n := 0
	for _, e := range tr.TraceEvents {
		at := thread{e.Pid, e.Tid}
		switch {
		case e.Ph == "M" && e.Name == "thread_name":
			name, _ := e.Args["name"].(string)
			tx[at] = strings.Contains(name, ": transmit")
		case e.Ph == "X" && tx[at]:
			n++
		}
	}
	return n
}
