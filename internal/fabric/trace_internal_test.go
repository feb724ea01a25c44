package fabric

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Past its cap the trace keeps what it has, counts the rest, says so on
// the warning writer and in its metadata, and leaves no flow pointing at
// a dropped slice.
func TestTraceCapWarns(t *testing.T) {
	tr := newTracer(filepath.Join(t.TempDir(), "t.json"))
	tr.cap = 3
	var warn bytes.Buffer
	tr.warn = &warn
	p := &Packet{}
	for i := range 5 {
		tr.PESpan(0, "barrier", Time(i)*1000, Time(i)*1000+500)
		tr.step(p, tr.add(tr.track(traceKey{tracePIDLinks, 0, 0}, false, func() string { return "link" }), "put", Time(i)*1000, Time(i)*1000+800, argsNone, [4]int64{}))
	}
	require.NoError(t, tr.write("testnet"))
	assert.Contains(t, warn.String(), "testnet: the trace")
	assert.Contains(t, warn.String(), "first 3 slices; 7 more were dropped")
	b, err := os.ReadFile(tr.path)
	require.NoError(t, err)
	var out struct {
		Metadata    map[string]any   `json:"metadata"`
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &out))
	assert.EqualValues(t, 7, out.Metadata["dropped_slices"])
	var x, flow int
	for _, e := range out.TraceEvents {
		switch e["ph"] {
		case "X":
			x++
		case "s", "f":
			flow++
		}
	}
	assert.Equal(t, 3, x)
	assert.Equal(t, 0, flow, "a flow of one kept slice")
}

// Slices of one track that overlap go to separate lanes, and a slice
// that starts when another ends shares its lane.
func TestTraceLanes(t *testing.T) {
	tr := newTracer("")
	k := tr.track(traceKey{tracePIDNICs, 0, 0}, false, func() string { return "nic" })
	ns := Time(1000)
	tr.add(k, "a", 0, 10*ns, argsNone, [4]int64{})
	tr.add(k, "b", 5*ns, 20*ns, argsNone, [4]int64{})
	tr.add(k, "c", 10*ns, 12*ns, argsNone, [4]int64{})
	tr.add(k, "d", 12*ns, 30*ns, argsNone, [4]int64{})
	lane, count := tr.lanes()
	assert.Equal(t, []int32{0, 1, 0, 0}, lane)
	assert.Equal(t, []int32{2}, count)
}
