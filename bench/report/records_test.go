package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/jsonschema"
)

// loadSchema reads a schema of docs/schema.
func loadSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", name))
	require.NoError(t, err)
	s, err := jsonschema.Parse(b)
	require.NoError(t, err, name)
	return s
}

// recordRuns are runs with everything a record can carry: provenance,
// flags, the environment, --count, percentiles, a NaN and an infinity.
func recordRuns() []*Run {
	prov := NewProvenance(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	bw := bwRun()
	bw.Setup.Percentiles = true
	bw.Setup.Provenance = prov
	bw.Setup.Flags = map[string]string{"i": "5", "option": "fail=1:2;3:4"}
	bw.Setup.Environment = map[string]string{"PGAS_NETWORKDEPTH": "8"}
	bw.Result.Points[1].Value, bw.Result.Points[2].P90 = math.NaN(), math.Inf(1)
	at := atomicsRun()
	at.Setup.Index, at.Setup.Count = 0, 3
	at.Atomics[0].Rate = math.NaN()
	bare := bwRun() // no provenance: a record written outside pgasbench
	return []*Run{bw, at, bare}
}

// Every JSON record conforms to docs/schema/run.json; non-finite figures
// are null; the record reads back.
func TestJSONSchema(t *testing.T) {
	s := loadSchema(t, "run.json")
	for i, run := range recordRuns() {
		var buf bytes.Buffer
		require.NoError(t, WriteJSON(&buf, run))
		require.NoError(t, s.Validate(buf.Bytes()), "run %d:\n%s", i, buf.String())
		_, err := ReadJSON(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, recordRuns()[0]))
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec))
	points := rec["points"].([]any)
	assert.Nil(t, points[1].(map[string]any)["value"], "NaN is not null")
	assert.Nil(t, points[2].(map[string]any)["p90"], "+Inf is not null")
	prov := rec["provenance"].(map[string]any)
	assert.Equal(t, "2026-01-02T03:04:05Z", prov["start_time"])
	assert.NotEmpty(t, prov["go_version"])
	// The schema is not a formality: a wrong record fails it.
	bad := strings.Replace(buf.String(), `"seed": 7`, `"seed": "7"`, 1)
	assert.Error(t, s.Validate([]byte(bad)))
}

// Every CSV row conforms to docs/schema/csv.json; non-finite figures are
// empty cells; --count's later runs have no header row.
func TestCSVSchema(t *testing.T) {
	s := loadSchema(t, "csv.json")
	for i, run := range recordRuns() {
		var buf bytes.Buffer
		require.NoError(t, WriteCSV(&buf, run))
		recs, err := csv.NewReader(&buf).ReadAll()
		require.NoError(t, err)
		head := recs[0]
		for _, rec := range recs[1:] {
			row := map[string]any{}
			for j, c := range rec {
				row[head[j]] = c
			}
			require.NoError(t, s.ValidateValue(row), "run %d row %v", i, rec)
		}
	}
	run := recordRuns()[0]
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, run))
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	col := func(name string) int {
		for j, h := range recs[0] {
			if h == name {
				return j
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	assert.Equal(t, "", recs[2][col("value")], "NaN")
	assert.Equal(t, "", recs[3][col("p90")], "+Inf")
	assert.Equal(t, "7", recs[1][col("seed")])
	assert.Equal(t, "i=5;option=fail=1:2%3B3:4", recs[1][col("flags")])
	assert.Equal(t, "PGAS_NETWORKDEPTH=8", recs[1][col("environment")])
	run.Setup.Index, run.Setup.Count = 1, 2
	buf.Reset()
	require.NoError(t, WriteCSV(&buf, run))
	assert.False(t, strings.HasPrefix(buf.String(), "benchmark,"), "a header row in a later run of --count")
}

// The gobench record: the seed (a range under --count on a simulated
// backend), the machine's keys, the environment's settings, the flags,
// the build as configuration, the host and start time as comments; a non-finite figure is left out; later runs of
// --count print no configuration.
func TestGoBenchRecord(t *testing.T) {
	run := recordRuns()[0]
	run.Setup.Count = 10
	var buf bytes.Buffer
	require.NoError(t, WriteGoBench(&buf, run))
	out := buf.String()
	for _, want := range []string{"seed: 7-16\n", "goos: ", "goarch: ", "pgas_networkdepth: 8\n", "flag-i: 5\n",
		"# start_time: 2026-01-02T03:04:05Z\n", "go_version: go", "pkg: github.com/gopgas/gopgas/bench\n"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "flag-option", "a flag with a line of its own")
	assert.Contains(t, out, "BenchmarkPutBW/gemini/size=1024 1 219.76 ns/op 0.00 p50-MB/s", "the NaN bandwidth is not left out")
	assert.Contains(t, out, "123456.79 MB/s 0.00 p50-MB/s 0.00 p99-MB/s\n", "the infinite p90 is not left out")
	run.Setup.Index = 1
	buf.Reset()
	require.NoError(t, WriteGoBench(&buf, run))
	assert.True(t, strings.HasPrefix(buf.String(), "BenchmarkPutBW/"), "configuration in a later run:\n%s", buf.String())
}

// Figures: the default PNG is 1200 pixels wide, --plot-size and DPI
// change it; a ratio figure has its y = 1 line; latency against size is
// drawn on a log axis; the atomics chart groups the types of each
// operation, with the types in the legend.
func TestPlotLayout(t *testing.T) {
	dir := t.TempDir()
	pngSize := func(path string) (int, int) {
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		require.NoError(t, err)
		return cfg.Width, cfg.Height
	}
	bw := filepath.Join(dir, "bw.png")
	require.NoError(t, ResultFigure(bwRun().Result).Save(bw))
	w, h := pngSize(bw)
	assert.Equal(t, 1200, w)
	assert.Equal(t, 750, h)
	small := ResultFigure(bwRun().Result)
	small.Width, small.Height, small.DPI = 4, 3, 100
	require.NoError(t, small.Save(bw))
	w, h = pngSize(bw)
	assert.Equal(t, []int{400, 300}, []int{w, h})
	small.Width = 1000
	assert.ErrorContains(t, small.Save(bw), "pixels a side")

	lat := bwRun().Result
	lat.Unit, lat.Column = "us", "Latency (us)"
	assert.True(t, ResultFigure(lat).YLog, "values over three decades on a linear axis")

	ratio := &Figure{Title: "r", XLabel: "PEs per node", YLabel: "Bandwidth ratio, relaxed / strict",
		Series: []Series{{Name: "64K", X: []float64{1, 2, 4}, Y: []float64{1.2, 1.5, 1.4}}}}
	var svg bytes.Buffer
	require.NoError(t, ratio.WriteTo(&svg, "svg"))
	assert.Contains(t, svg.String(), "1 (equal)")
	p, err := ratio.plot()
	require.NoError(t, err)
	assert.LessOrEqual(t, p.Y.Min, 1.0, "y = 1 out of view")

	at := atomicsRun()
	fig := AtomicsFigure(at.Result, at.Atomics)
	assert.Equal(t, []Bar{{Label: "add", Group: "int64", Value: 12.345}, {Label: "fxor", Group: "uint32", Value: 1.5}}, fig.Bars)
	svg.Reset()
	require.NoError(t, fig.WriteTo(&svg, "svg"))
	for _, want := range []string{"int64", "uint32", "add", "fxor"} {
		assert.Contains(t, svg.String(), ">"+want+"<")
	}
}
