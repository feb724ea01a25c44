package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, provenance: fixedProvenance,
		lookupEnv: func(name string) (string, bool) { v, ok := env[name]; return v, ok }}
	code := a.run(context.Background(), args)
	return result{code, out.String(), errb.String()}
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
