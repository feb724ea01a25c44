package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/internal/jsonschema"
)

// cancelAfter is stderr that cancels the command's context once the
// progress line says n sizes are measured: an interrupt mid-sweep.
type cancelAfter struct {
	bytes.Buffer
	n      string
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), " "+w.n+" of ") && w.cancel != nil {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// An interrupt in the middle of a sweep stops it: the sizes measured
// before are printed, the run says it was interrupted, and the exit
// status is exitInterrupted.
func TestInterruptStopsSweep(t *testing.T) {
	var out bytes.Buffer
	errw := &cancelAfter{n: "3"}
	a := &app{stdout: &out, stderr: errw, terminal: true,
		lookupEnv: func(string) (string, bool) { return "", false },
		interrupt: func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			errw.cancel = cancel
			return ctx, cancel
		}}
	code := a.run(context.Background(), []string{"put_bw", "--conduit", "gemini", "-m", "1:64K", "-i", "2", "-x", "1", "--format", "csv"})
	assert.Equal(t, exitInterrupted, code, "stderr: %s", errw.String())
	assert.Contains(t, errw.String(), "put_bw: interrupted")
	assert.Contains(t, errw.String(), "context canceled")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	rows := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") && l != "" {
			rows++
		}
	}
	rows-- // the column names
	assert.GreaterOrEqual(t, rows, 3, "the sizes measured before the interrupt are missing:\n%s", out.String())
	assert.Less(t, rows, 17, "the sweep ran to its end")
}

// The profile flags write Go's profiles; a file that cannot be created is
// an error naming the flag.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu"), filepath.Join(dir, "mem"), filepath.Join(dir, "trace")
	r := pgasbench(t, nil, false, "put_latency", "--conduit", "gemini", "-m", "8:8", "-i", "2", "-x", "1",
		"--cpuprofile", cpu, "--memprofile", mem, "--exectrace", tr)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, p := range []string{cpu, mem, tr} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Positive(t, fi.Size(), p)
	}
	r = pgasbench(t, nil, false, "put_latency", "--conduit", "gemini", "-m", "8:8", "--cpuprofile", filepath.Join(dir, "no", "such"))
	assert.Equal(t, exitFailure, r.code)
	assert.Contains(t, r.stderr, "--cpuprofile")
	r = pgasbench(t, nil, false, "put_latency", "--count", "0")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "--count 0")
}

// The records of a real run conform to docs/schema and say what ran: the
// seed used (the default 1 when none was given), the environment's
// settings, the flags and the provenance.
func TestRecordsConform(t *testing.T) {
	env := map[string]string{"PGAS_NETWORKDEPTH": "8"}
	args := []string{"put_latency", "--conduit", "gemini", "-m", "8:16", "-i", "2", "-x", "1"}
	read := func(name string) *jsonschema.Schema { return docSchema(t, name) }
	r := pgasbench(t, env, false, append(args, "--format", "json")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, read("run.json").Validate([]byte(r.stdout)), r.stdout)
	rec, err := report.ReadJSON(strings.NewReader(r.stdout))
	require.NoError(t, err)
	assert.EqualValues(t, 1, rec.Setup.Seed, "the default seed")
	assert.Equal(t, "8", rec.Setup.Environment["PGAS_NETWORKDEPTH"])
	assert.Equal(t, "8:16", rec.Setup.Flags["m"])
	require.NotNil(t, rec.Provenance)
	assert.NotEmpty(t, rec.Provenance.GoVersion)

	r = pgasbench(t, env, false, append(args, "--format", "csv", "--count", "2")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+2*2, "one header row and two sizes of two runs")
	s := read("csv.json")
	for _, rec := range recs[1:] {
		row := map[string]any{}
		for j, c := range rec {
			row[recs[0][j]] = c
		}
		require.NoError(t, s.ValidateValue(row), "%v", rec)
	}

	// OMB's further columns: a -z list and -D's transmit size.
	args = []string{"latency", "--conduit", "gemini", "-m", "4K:4K", "-i", "4", "-x", "1", "-z50,95", "-D", "vect:2:1"}
	r = pgasbench(t, env, false, append(args, "--format", "json")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, read("run.json").Validate([]byte(r.stdout)), r.stdout)
	for _, field := range []string{`"transmit": 2048`, `"p95": `} {
		assert.Contains(t, r.stdout, field)
	}
	r = pgasbench(t, env, false, append(args, "--format", "csv")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	recs, err = csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	row := map[string]any{}
	for j, c := range recs[1] {
		row[recs[0][j]] = c
	}
	require.NoError(t, s.ValidateValue(row), "%v", recs)
	assert.Equal(t, "2048", row["transmit"])
}

// --count N on a simulated backend runs the seeds seed..seed+N-1 and
// prints N samples of each benchmark under one configuration, for
// benchstat; on smp it repeats the run.
func TestCount(t *testing.T) {
	r := pgasbench(t, nil, false, "put_latency", "--conduit", "gemini", "-m", "8:8", "-i", "2", "-x", "1", "--seed", "5", "--count", "3", "--format", "gobench")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stdout, "conduit: gemini"), r.stdout)
	assert.Contains(t, r.stdout, "seed: 5-7\n")
	assert.Equal(t, 3, strings.Count(r.stdout, "BenchmarkPutLatency/gemini/size=8 1 "), r.stdout)
	r = pgasbench(t, nil, false, "put_latency", "--conduit", "smp", "-m", "8:8", "-i", "2", "-x", "1", "--count", "2", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var seeds []uint64
	for dec.More() {
		var rec report.Record
		require.NoError(t, dec.Decode(&rec))
		seeds = append(seeds, rec.Setup.Seed)
		assert.Equal(t, 2, rec.Setup.Count)
	}
	assert.Equal(t, []uint64{1, 1}, seeds, "smp repeats the run with the same seed")
}

// A command's --help lists its flags and points to the backends' options;
// with --conduit (before or after --help) it lists that backend's only.
func TestHelpPerBackend(t *testing.T) {
	r := pgasbench(t, nil, false, "put_bw", "--help")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "--conduit NAME' lists")
	assert.Contains(t, r.stdout, "--cpuprofile")
	assert.NotContains(t, r.stdout, "Backend options of")
	assert.Less(t, strings.Count(r.stdout, "\n"), 120, "the plain --help is long:\n%s", r.stdout)
	for _, args := range [][]string{{"put_bw", "--help", "--conduit", "aries"}, {"put_bw", "--conduit=aries", "--help"}} {
		r = pgasbench(t, nil, false, args...)
		require.Equal(t, exitOK, r.code)
		assert.Contains(t, r.stdout, "Backend options of aries")
		assert.Contains(t, r.stdout, "\n  valiant ")
		assert.NotContains(t, r.stdout, "Backend options of gemini")
		assert.NotContains(t, r.stdout, "\n  torus ", "a gemini option")
	}
	r = pgasbench(t, nil, false, "put_bw", "--help", "--conduit", "smp")
	assert.Contains(t, r.stdout, "no options of its own")
	r = pgasbench(t, nil, false, "ordering", "--help")
	assert.NotContains(t, r.stdout, "--count", "--count on a command it does not repeat")
}

// --plot-size and --plot-dpi size the plot; a bad size is a usage error;
// the process's default size is back after the command.
func TestPlotSizeFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bw.png")
	r := pgasbench(t, nil, false, "put_bw", "--conduit", "gemini", "-m", "1K:4K", "-i", "2", "-x", "1", "--plot", path, "--plot-size", "800x500", "--plot-dpi", "100")
	require.Equal(t, exitOK, r.code, r.stderr)
	f, err := os.Open(path)
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(f)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, []int{800, 500}, []int{cfg.Width, cfg.Height})
	assert.Equal(t, 150.0, report.PlotDefaults.DPI, "the flags outlived the command")
	for _, bad := range [][]string{{"--plot-size", "800"}, {"--plot-size", "10x10"}, {"--plot-dpi", "0"}} {
		r = pgasbench(t, nil, false, append([]string{"put_bw", "-m", "8:8"}, bad...)...)
		assert.Equal(t, exitUsage, r.code, "%v", bad)
		assert.Contains(t, r.stderr, bad[0])
	}
}

// docSchema reads a JSON Schema of docs/schema.
func docSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "schema", name))
	require.NoError(t, err)
	s, err := jsonschema.Parse(b)
	require.NoError(t, err, name)
	return s
}

// fixedProvenance is a provenance that does not change from run to run.
var fixedProvenance = &report.Provenance{Module: "github.com/gopgas/gopgas", ModuleVersion: "(devel)", GoVersion: "go1.26",
	GOOS: "linux", GOARCH: "amd64", CPU: "a CPU", Host: "host", Start: "2026-01-02T03:04:05Z"}

// runFixed runs the program with a fixed provenance.
func runFixed(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	return runApp(&app{provenance: fixedProvenance, lookupEnv: envOf(env)}, args...)
}

// The study's JSON record conforms to docs/schema/ordering-study.json and
// says what ran: the seed used (the default 1), the flags, the
// environment's settings and the provenance; with the provenance fixed,
// two runs print the same bytes.
func TestStudyRecordConforms(t *testing.T) {
	args := []string{"ordering", "--nodes", "2", "--ppn", "2", "-m", "8:16", "--ppn-list", "1,2", "--sweep-sizes", "1K",
		"--orderings", "strict,relaxed", "--mechanisms", "fma", "--sweep-mechanisms", "fma", "-i", "1", "-x", "1",
		"--put-sweep=false", "--onesided-sweep=false", "--twosided-sweep=false", "--format", "json"}
	env := map[string]string{"PGAS_NETWORKDEPTH": "8"}
	r := pgasbench(t, env, false, args...)
	require.Equal(t, exitOK, r.code, r.stderr)
	s := docSchema(t, "ordering-study.json")
	require.NoError(t, s.Validate([]byte(r.stdout)), r.stdout)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rec))
	setup := rec["setup"].(map[string]any)
	assert.EqualValues(t, 1, setup["seed"], "the default seed")
	assert.Equal(t, "8:16", setup["flags"].(map[string]any)["m"])
	assert.Equal(t, "8", setup["environment"].(map[string]any)["PGAS_NETWORKDEPTH"])
	assert.Equal(t, "ordering", setup["args"].([]any)[0])
	prov, ok := rec["provenance"].(map[string]any)
	require.True(t, ok, "no provenance")
	assert.NotEmpty(t, prov["go_version"])
	assert.Error(t, s.Validate([]byte(strings.Replace(r.stdout, `"seed": 1`, `"seed": -1`, 1))), "the schema checks the seed")

	first := runFixed(t, env, append(args, "--seed", "5")...)
	second := runFixed(t, env, append(args, "--seed", "5")...)
	require.Equal(t, exitOK, first.code, first.stderr)
	assert.Equal(t, first.stdout, second.stdout, "the same study with a fixed provenance")
	assert.Contains(t, first.stdout, `"seed": 5,`)
	assert.Contains(t, first.stdout, `"start_time": "2026-01-02T03:04:05Z"`)
}

// The calibration report's JSON conforms to docs/schema/calibration.json
// and records the seed the simulations used (1, the default, when no
// --seed is given), the flags and the provenance.
func TestCalibrationRecordConforms(t *testing.T) {
	r := pgasbench(t, nil, false, "calibrate", "--rows", "G-CLK,G-PHIT", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	s := docSchema(t, "calibration.json")
	require.NoError(t, s.Validate([]byte(r.stdout)), r.stdout)
	var rec calibrationRecord
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rec))
	assert.EqualValues(t, 1, rec.Seed, "the default seed, not 0")
	assert.Equal(t, "G-CLK,G-PHIT", rec.Flags["rows"])
	require.NotNil(t, rec.Provenance)
	assert.NotEmpty(t, rec.Provenance.GoVersion)
	r = runFixed(t, nil, "calibrate", "--rows", "G-CLK", "--json", "--seed", "9")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, s.Validate([]byte(r.stdout)), r.stdout)
	assert.Contains(t, r.stdout, `"seed": 9,`)
	assert.Contains(t, r.stdout, `"host": "host"`)
	assert.Contains(t, r.stdout, `"PGAS_SEED": "9"`, "--seed among the settings")
}

// grammar is docs/schema/gobench.md's block: line kinds by name.
type grammar struct {
	lines                       map[string]*regexp.Regexp
	required, build, commentKey []string
}

func readGrammar(t *testing.T) grammar {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "schema", "gobench.md"))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(b), "```grammar\n")
	require.True(t, ok, "no grammar block")
	block, _, _ = strings.Cut(block, "```")
	g := grammar{lines: map[string]*regexp.Regexp{}}
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		name, def, ok := strings.Cut(l, " = ")
		require.True(t, ok, "grammar line %q", l)
		name, def = strings.TrimSpace(name), strings.TrimSpace(def)
		switch name {
		case "required":
			g.required = strings.Fields(def)
		case "build":
			g.build = strings.Fields(def)
		case "comments":
			g.commentKey = strings.Fields(def)
		default:
			g.lines[name] = regexp.MustCompile(def)
		}
	}
	for _, k := range []string{"config", "comment", "benchmark", "value", "unit"} {
		require.Contains(t, g.lines, k, "grammar lacks %s", k)
	}
	return g
}

// check parses out by the grammar: configuration, then comments, then
// benchmark lines; the required keys; each benchmark line's values and
// units. It returns the configuration and the number of benchmark lines.
func (g grammar) check(t *testing.T, out string) (map[string]string, int) {
	t.Helper()
	config, comments := map[string]string{}, map[string]bool{}
	benchmarks := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case g.lines["benchmark"].MatchString(l):
			f := strings.Fields(l)
			for i := 2; i+1 < len(f); i += 2 {
				assert.Regexp(t, g.lines["value"], f[i], l)
				assert.Regexp(t, g.lines["unit"], f[i+1], l)
			}
			benchmarks++
		case g.lines["comment"].MatchString(l):
			require.Zero(t, benchmarks, "a comment after the benchmarks: %q", l)
			k, _, _ := strings.Cut(strings.TrimPrefix(l, "# "), ":")
			comments[k] = true
		case g.lines["config"].MatchString(l):
			require.Zero(t, benchmarks, "configuration after the benchmarks: %q", l)
			require.Empty(t, comments, "configuration after the comments: %q", l)
			k, v, _ := strings.Cut(l, ": ")
			config[k] = v
		default:
			t.Errorf("line %q is none of the grammar's", l)
		}
	}
	for _, k := range append(append([]string{}, g.required...), g.build...) {
		assert.Contains(t, config, k, "configuration key")
	}
	for _, k := range g.commentKey {
		assert.True(t, comments[k], "comment %s", k)
	}
	return config, benchmarks
}

// Real gobench outputs follow docs/schema/gobench.md: a collective with
// OSU's -f and a -z list under --count, a bandwidth sweep, the atomics.
func TestGoBenchGrammar(t *testing.T) {
	g := readGrammar(t)
	r := pgasbench(t, map[string]string{"PGAS_NETWORKDEPTH": "8"}, false,
		"allreduce", "--conduit", "gemini", "-m", "8:16", "-i", "2", "-x", "1", "-f", "-z50,95", "--count", "2", "--format", "gobench")
	require.Equal(t, exitOK, r.code, r.stderr)
	cfg, n := g.check(t, r.stdout)
	assert.Equal(t, 2*2, n, "two sizes of two runs")
	assert.Equal(t, "1-2", cfg["seed"])
	assert.Equal(t, "8", cfg["pgas_networkdepth"])
	assert.Contains(t, r.stdout, " p95-ns/op")
	assert.Contains(t, r.stdout, " min-ns/op")
	for _, args := range [][]string{
		{"put_bw", "--conduit", "gemini", "-m", "1K:2K", "-i", "2", "-x", "1"},
		{"atomics", "--conduit", "gemini", "-i", "2", "-x", "1"},
	} {
		r = pgasbench(t, nil, false, append(args, "--format", "gobench")...)
		require.Equal(t, exitOK, r.code, r.stderr)
		_, n = g.check(t, r.stdout)
		assert.Positive(t, n, "%v", args)
	}
	// The grammar is not a formality: a broken line fails it.
	assert.False(t, g.lines["benchmark"].MatchString("BenchmarkPutBW/gemini/size=8 2 1.0 ns/op"), "an iteration count other than 1")
	assert.False(t, g.lines["config"].MatchString("Conduit: gemini"), "an upper-case key")
}

// The schemas define the provenance, a figure and a map of settings
// alike (a schema cannot refer to another file's definitions here).
func TestSchemasShareDefinitions(t *testing.T) {
	defs := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "schema", name))
		require.NoError(t, err)
		var s map[string]any
		require.NoError(t, json.Unmarshal(b, &s))
		return s["$defs"].(map[string]any)
	}
	run := defs("run.json")
	for _, name := range []string{"ordering-study.json", "calibration.json"} {
		d := defs(name)
		for _, k := range []string{"provenance", "figure", "strings"} {
			assert.Equal(t, run[k], d[k], "%s: $defs/%s differs from run.json's", name, k)
		}
	}
}

// --plot with --count draws one figure from every run (their median and
// range), once; without --count, the one run.
func TestPlotCountRuns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lat.svg")
	r := pgasbench(t, nil, false, "put_latency", "--conduit", "gemini", "-m", "8:64", "-i", "2", "-x", "1", "--count", "3", "--plot", path)
	require.Equal(t, exitOK, r.code, r.stderr)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "median of 3 runs")
	r = pgasbench(t, nil, false, "atomics", "--conduit", "gemini", "-i", "2", "-x", "1", "--plot", path)
	require.Equal(t, exitOK, r.code, r.stderr)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "median of", "one run")
	assert.Contains(t, string(b), "Atomic Operations")
}

// cancelOnWrite cancels a context at the first write to it.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}

// An interruption between two runs of --count still draws the plot of
// the runs done.
func TestPlotCountInterruptedBetweenRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lat.svg")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnWrite{cancel: cancel}
	var errb bytes.Buffer
	a := &app{lookupEnv: envOf(nil), stdout: out, stderr: &errb}
	code := a.run(ctx, []string{"put_latency", "--conduit", "gemini", "-m", "8:64", "-i", "2", "-x", "1", "--count", "3", "--plot", path})
	assert.NotEqual(t, exitOK, code, "interrupted")
	b, err := os.ReadFile(path)
	require.NoError(t, err, "the plot of the first run; stderr: %s", errb.String())
	assert.NotContains(t, string(b), "median of", "one run was done")
	assert.Equal(t, 1, strings.Count(out.String(), "# Size"), "one run printed")
}
