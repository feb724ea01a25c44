package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// fullRun is an allreduce run with OSU's -f, -c and -z50,95 (a custom
// percentile list), one of its figures NaN.
func fullRun() *Run {
	return &Run{
		Result: &bench.Result{Benchmark: "allreduce", Title: "OSU gopgas Allreduce Latency Test", Unit: "us", Column: "Avg Latency(us)",
			Conduit: "aries", Nodes: 4, PPN: 1, Ordering: pgas.OrderDefault, Simulated: true,
			Tail: []int{50, 95}, Full: true, Validated: true,
			Points: []bench.Point{
				{Size: 8, Value: 2.5, P50: 2.4, P90: 2.9, P99: 3.5, Tails: []float64{2.4, 3.1}, Min: 2.25, Max: 2.75, Iterations: 1000},
				{Size: 64, Value: 3.5, P50: 3.4, P90: 3.9, P99: 4.5, Tails: []float64{3.4, math.NaN()}, Min: 3.125, Max: 3.875, Iterations: 100, Errors: 2},
			},
		},
		Setup: Setup{Sizes: []int{8, 64}, Percentiles: true, Seed: 3},
	}
}

// -f, -c and a -z list reach CSV and JSON as columns and fields named as
// the OSU table's, with the numbers the OSU text prints; the JSON record
// rebuilds the run; gobench reports them as metrics.
func TestFullAndTailColumns(t *testing.T) {
	run := fullRun()
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, run))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	head := strings.Join(recs[0], ",")
	assert.Contains(t, head, ",size_bytes,value,unit,rate_per_s,p50,p90,p99,min,max,iterations,errors,p95,seed,")
	cell := func(row int, name string) string {
		for j, h := range recs[0] {
			if h == name {
				return recs[row][j]
			}
		}
		t.Fatalf("no column %s in %v", name, recs[0])
		return ""
	}
	assert.Equal(t, []string{"2.25", "2.75", "1000", "0", "3.1"}, []string{cell(1, "min"), cell(1, "max"), cell(1, "iterations"), cell(1, "errors"), cell(1, "p95")})
	assert.Equal(t, []string{"2", ""}, []string{cell(2, "errors"), cell(2, "p95")}, "NaN is an empty cell")
	s := loadSchema(t, "csv.json")
	for _, rec := range recs[1:] {
		row := map[string]any{}
		for j, c := range rec {
			row[recs[0][j]] = c
		}
		require.NoError(t, s.ValidateValue(row), "%v", rec)
	}
	// The same numbers as the OSU text's columns.
	var osu bytes.Buffer
	require.NoError(t, WriteOSU(&osu, run))
	assert.Contains(t, osu.String(), "P95 Tail Lat(us)")
	for _, c := range Columns(run) {
		if c.Key == "min" || c.Key == "p95" {
			v, err := strconv.ParseFloat(cell(1, c.Key), 64)
			require.NoError(t, err)
			assert.Equal(t, c.Text(run.Result.Points[0]), strconv.FormatFloat(v, 'f', FloatPrecision, 64), c.Key)
		}
	}

	buf.Reset()
	require.NoError(t, WriteJSON(&buf, run))
	require.NoError(t, loadSchema(t, "run.json").Validate(buf.Bytes()), buf.String())
	var raw map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &raw))
	pts := raw["points"].([]any)
	p0, p1 := pts[0].(map[string]any), pts[1].(map[string]any)
	assert.Equal(t, []any{2.25, 2.75, 1000.0, 0.0, 3.1}, []any{p0["min"], p0["max"], p0["iterations"], p0["errors"], p0["p95"]})
	assert.Contains(t, p1, "p95")
	assert.Nil(t, p1["p95"], "NaN is null")
	assert.Equal(t, []any{50.0, 95.0}, raw["tail"])
	assert.Less(t, strings.Index(buf.String(), `"p99"`), strings.Index(buf.String(), `"min"`), "the further fields after the fixed ones")

	rec, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	back, err := rec.Run()
	require.NoError(t, err)
	assert.Equal(t, run.Result.Tail, back.Result.Tail)
	assert.True(t, back.Result.Full && back.Result.Validated)
	assert.Equal(t, run.Result.Points[0], back.Result.Points[0])
	assert.Equal(t, 2, back.Result.Points[1].Errors)
	assert.True(t, math.IsNaN(back.Result.Points[1].Tails[1]))
	_, err = ReadJSON(strings.NewReader(strings.Replace(buf.String(), `"p95"`, `"q95"`, 1)))
	assert.ErrorContains(t, err, `"q95"`, "an unknown point field")

	buf.Reset()
	require.NoError(t, WriteGoBench(&buf, run))
	assert.Contains(t, buf.String(), "BenchmarkAllreduce/aries/size=8 1 2500.00 ns/op 2250.00 min-ns/op 2750.00 max-ns/op 2400.00 p50-ns/op 3100.00 p95-ns/op\n")
	assert.NotContains(t, buf.String(), "p90-ns/op", "a percentile not asked for")
}
