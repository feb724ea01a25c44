package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
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
	read := func(name string) *jsonschema.Schema {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "schema", name))
		require.NoError(t, err)
		s, err := jsonschema.Parse(b)
		require.NoError(t, err)
		return s
	}
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
