package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/bench/study"
	"github.com/gopgas/gopgas/pgas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type result struct {
	code           int
	stdout, stderr string
}

// pgasbench runs the program in-process with env as its whole environment.
func pgasbench(t *testing.T, env map[string]string, terminal bool, args ...string) result {
	t.Helper()
	return runApp(&app{terminal: terminal, lookupEnv: envOf(env)}, args...)
}

// runApp runs a, its outputs captured.
func runApp(a *app, args ...string) result {
	var out, errb bytes.Buffer
	a.stdout, a.stderr = &out, &errb
	code := a.run(context.Background(), args)
	return result{code, out.String(), errb.String()}
}

// envOf is an environment of env's variables only.
func envOf(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := env[name]; return v, ok }
}

// osuTable parses OSU text: the "# " header lines (OSU's before the rows,
// pgasbench's own after them), the column names and the rows of numbers.
type osuTable struct {
	header  []string
	columns string
	sizes   []int
	values  [][]float64
}

func parseOSU(t *testing.T, text string) osuTable {
	t.Helper()
	var tab osuTable
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		if l == "" && len(tab.header) == 0 {
			continue // OSU's blank first line
		}
		if strings.HasPrefix(l, "# ") {
			tab.header = append(tab.header, l)
			if strings.HasPrefix(l, "# Size") {
				if len(tab.sizes) > 0 {
					t.Errorf("column header %q after the rows", l)
				}
				tab.columns = l
			}
			continue
		}
		if (len(l)-report.SizeWidth)%report.FieldWidth != 0 || len(l) <= report.SizeWidth {
			t.Fatalf("row %q is not %d + %d per column wide", l, report.SizeWidth, report.FieldWidth)
		}
		size, err := strconv.Atoi(strings.TrimRight(l[:report.SizeWidth], " "))
		if err != nil || l[0] == ' ' {
			t.Fatalf("row %q: size field %q", l, l[:report.SizeWidth])
		}
		var vals []float64
		for i := report.SizeWidth; i < len(l); i += report.FieldWidth {
			f := l[i : i+report.FieldWidth]
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || f[len(f)-1] == ' ' || !strings.Contains(f, ".") || len(f)-strings.Index(f, ".") != 3 {
				t.Fatalf("row %q: field %q is not %%18.2f", l, f)
			}
			vals = append(vals, v)
		}
		tab.sizes = append(tab.sizes, size)
		tab.values = append(tab.values, vals)
	}
	if tab.columns == "" || len(tab.header) < 3 || !strings.HasPrefix(tab.header[0], "# OSU gopgas ") {
		t.Fatalf("no OSU header in:\n%s", text)
	}
	return tab
}

func (tab osuTable) has(t *testing.T, line string) {
	t.Helper()
	for _, h := range tab.header {
		if h == line {
			return
		}
	}
	t.Errorf("no header line %q in %q", line, tab.header)
}

// Bad flags and values: status 2 and one line on stderr, nothing on
// stdout.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frob"},
		{"latency", "--frob"},
		{"latency", "-W", "4"},
		{"put_bw", "extra"},
		{"put_bw", "--nodes", "-1"},
		{"put_bw", "--nodes", "x"},
		{"put_bw", "--conduit", "nope"},
		{"put_bw", "--ordering", "sideways"},
		{"put_bw", "--mechanism", "pigeon"},
		{"put_bw", "--format", "xml"},
		{"put_bw", "--plot", "out.pdf"},
		{"put_bw", "-m", "4X"},
		{"put_bw", "-m", "8:4"},
		{"put_bw", "-m", "2G"},
		{"put_bw", "-i", "0"},
		{"put_bw", "-x", "-3"},
		{"latency", "-m", "0:"},
		{"latency", "-m", "1:2:3"},
		{"latency", "-m", ":"},
		{"latency", "-z101"},
		{"latency", "--tail-lat=50,x"},
		{"latency", "-f"},
		{"latency", "-z", "50"},
		{"latency", "-clogs"},
		{"latency", "-b", "double"},
		{"latency", "-T", "mpi_double"},
		{"latency", "-u", "-1", "-c"},
		{"latency", "-G", "svg"},
		{"latency", "-D", "indx:no-such-file"},
		{"latency", "-P", "PAPI_TOT_INS"},
		{"latency", "-I"},
		{"latency", "-d", "cuda"},
		{"latency", "-w", "create"},
		{"put_bw", "-w", "shared"},
		{"put_bw", "-s", "none"},
		{"put_bibw", "-s", "lock"},
		{"put_bw", "-b", "double"},
		{"allreduce", "-a", "4"},
		{"allreduce", "-M", "x"},
		{"bcast", "-l"},
		{"put_latency", "-c"},
		{"barrier", "-c"},
		{"bw", "--window-size", "0"},
		{"put_bw", "--set", "PGAS_NOTHING=1"},
		{"put_bw", "--set", "PGAS_NUM_PD=5"},
		{"put_bw", "--set", "novalue"},
		{"put_bw", "--conduit", "gemini", "--option", "bogus=1"},
		{"mbw_mr", "--nodes", "3", "--ppn", "1", "-m", "8", "-i", "1", "-x", "1"},
		{"ordering_bw", "--op", "swap"},
		{"atomics", "--filter", "nosuchop", "-i", "1", "-x", "1"},
		{"atomics", "--many-to-one", "0"},
		{"ordering", "--orderings", "strict,odd"},
		{"ordering", "--ppn-list", "1,x"},
		{"ordering", "--sweep-sizes", "0"},
		{"ordering", "--twosided-ppn-list", "0"},
		{"ordering", "--twosided-sizes", ""},
		{"ordering", "--no-rendezvous-sizes", "2G"},
		{"ordering", "--plot-format", "gif"},
		{"ordering", "--size-sweep=false", "--ppn-sweep=false", "--put-sweep=false", "--onesided-sweep=false", "--twosided-sweep=false"},
		{"ordering_bw", "--two-sided", "--op", "put"},
		{"ordering_bw", "--two-sided", "--unregistered"},
		{"calibrate", "--conduit", "smp"},
		{"calibrate", "--rows", "G-NOPE"},
		{"calibrate", "--parallel", "-2"},
		{"help", "frob"},
	} {
		r := pgasbench(t, nil, false, args...)
		if r.code != exitUsage {
			t.Errorf("%q: status %d, want 2; stderr %q", args, r.code, r.stderr)
		}
		if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(args) > 0 && (len(lines) != 1 || !strings.HasPrefix(lines[0], "pgasbench")) {
			t.Errorf("%q: stderr is not one line: %q", args, r.stderr)
		}
		if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
			t.Errorf("%q: a stack trace: %q", args, r.stderr)
		}
		if len(args) > 0 && r.stdout != "" {
			t.Errorf("%q: output on stdout: %q", args, r.stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, h := range []string{"--help", "-h"} {
			r := pgasbench(t, nil, false, c.name, h)
			if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: pgasbench "+c.name) || !strings.Contains(r.stdout, "Flags:") {
				t.Errorf("%s %s: status %d, stderr %q, stdout:\n%s", c.name, h, r.code, r.stderr, r.stdout)
			}
		}
		if r := pgasbench(t, nil, false, "help", c.name); r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: pgasbench "+c.name) {
			t.Errorf("help %s: %d %q", c.name, r.code, r.stdout)
		}
	}
	r := pgasbench(t, nil, false, "put_bw", "--help")
	for _, want := range []string{"-m [MIN:]MAX", "--set PGAS_NAME=value", "help settings", "--help --conduit NAME", "--conduit", "-z"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("put_bw --help lacks %q", want)
		}
	}
	r = pgasbench(t, nil, false, "help")
	for _, c := range commands {
		if !strings.Contains(r.stdout, "  "+c.name+" ") {
			t.Errorf("help lacks %s", c.name)
		}
	}
	if r := pgasbench(t, nil, false, "help", "settings"); r.code != 0 || !strings.Contains(r.stdout, "PGAS_NETWORKDEPTH") || !strings.Contains(r.stdout, "allowed:") {
		t.Errorf("help settings: %d\n%s", r.code, r.stdout)
	}
	if r := pgasbench(t, nil, false); r.code != exitUsage || !strings.Contains(r.stderr, "Subcommands:") {
		t.Errorf("no arguments: %d %q", r.code, r.stderr)
	}
}

// The AM ping-pong on the real backend parses as OSU output, with sane
// numbers.
func TestLatencySMP(t *testing.T) {
	r := pgasbench(t, nil, false, "latency", "--conduit", "smp", "-m", "8", "-i", "10", "-x", "1")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("status %d, stderr %q", r.code, r.stderr)
	}
	tab := parseOSU(t, r.stdout)
	if want := "# Size       Avg Latency(us)"; tab.columns != want {
		t.Errorf("columns %q, want %q", tab.columns, want)
	}
	tab.has(t, "# Backend: smp (real)")
	tab.has(t, "# Time base: wall-clock time")
	tab.has(t, "# Iterations: 10, warm-up 1")
	if want := []int{1, 2, 4, 8}; !slicesEqual(tab.sizes, want) {
		t.Errorf("sizes %v, want %v", tab.sizes, want)
	}
	for i, v := range tab.values {
		if len(v) != 1 || !(v[0] > 0) || v[0] > 1e6 {
			t.Errorf("size %d: latency %v us", tab.sizes[i], v)
		}
	}
}

// Put bandwidth on the real backend: positive, and far higher for large
// messages than for one byte (it rises with size, then plateaus).
func TestPutBWSMP(t *testing.T) {
	r := pgasbench(t, nil, false, "put_bw", "-m", "1:64K", "-i", "10", "-x", "2", "-W", "16", "-z")
	if r.code != 0 {
		t.Fatalf("status %d, stderr %q", r.code, r.stderr)
	}
	tab := parseOSU(t, r.stdout)
	if want := "# Size      Bandwidth (MB/s) P50 Tail BW(MB/s) P90 Tail BW(MB/s) P99 Tail BW(MB/s)"; tab.columns != want {
		t.Errorf("columns %q, want %q", tab.columns, want)
	}
	if len(tab.sizes) != 17 {
		t.Fatalf("%d sizes, want 1 B..64 KiB", len(tab.sizes))
	}
	// Wall-clock figures: the test checks that they are figures (finite,
	// not negative, percentiles in order), not how large they are, which
	// depends on the machine and its load (a stall can round a 1-byte
	// bandwidth to 0.00).
	for i, v := range tab.values {
		for _, x := range v {
			if !(x >= 0) || math.IsInf(x, 0) {
				t.Errorf("size %d: %v", tab.sizes[i], v)
			}
		}
		if v[1] > v[2] || v[2] > v[3] {
			t.Errorf("size %d: percentiles %v not ordered", tab.sizes[i], v[1:])
		}
	}
}

// Put bandwidth on the simulated Gemini as JSON: one documented object.
func TestPutBWGeminiJSON(t *testing.T) {
	r := pgasbench(t, nil, false, "put_bw", "--conduit", "gemini", "-m", "1K:4K", "-i", "2", "-x", "1", "--format", "json")
	if r.code != 0 {
		t.Fatalf("status %d, stderr %q", r.code, r.stderr)
	}
	rec, err := report.ReadJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Benchmark != "put_bw" || rec.Conduit != "gemini" || !rec.Simulated || rec.TimeBase != "simulated time" || rec.Window != 64 ||
		rec.Nodes != 2 || rec.PPN != 1 || rec.Ordering != "default" || rec.Unit != "MB/s" {
		t.Errorf("record %+v", rec)
	}
	if len(rec.Points) != 3 || rec.Points[0].Size != 1024 || rec.Points[2].Size != 4096 {
		t.Fatalf("points %+v", rec.Points)
	}
	for _, p := range rec.Points {
		if p.Value == nil || p.Rate == nil || !(*p.Value > 0) || !(*p.Rate > 0) || p.P50 != nil {
			t.Errorf("point %+v", p)
		}
	}
	if rec.Report.EndPs <= 0 || rec.Report.Events == 0 || len(rec.Report.Counters) == 0 || rec.Setup.Iterations != 2 {
		t.Errorf("report %+v, setup %+v", rec.Report, rec.Setup)
	}
	// The same run is the same (simulated time), in any format.
	r2 := pgasbench(t, nil, false, "put_bw", "--conduit", "gemini", "-m", "1K:4K", "-i", "2", "-x", "1", "--format", "gobench")
	if r2.code != 0 {
		t.Fatalf("gobench: %d %q", r2.code, r2.stderr)
	}
	line := regexp.MustCompile(`(?m)^BenchmarkPutBW/gemini/size=(\d+) 1 (\S+) ns/op (\S+) MB/s$`)
	ms := line.FindAllStringSubmatch(r2.stdout, -1)
	if len(ms) != 3 {
		t.Fatalf("gobench lines:\n%s", r2.stdout)
	}
	for i, m := range ms {
		if v, _ := strconv.ParseFloat(m[3], 64); m[1] != strconv.Itoa(rec.Points[i].Size) || v != round2(*rec.Points[i].Value) {
			t.Errorf("gobench %q, JSON %+v", m[0], rec.Points[i])
		}
	}
}

func round2(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return f
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Settings layer: --set over the environment, flags over both.
func TestSettingsLayers(t *testing.T) {
	args := []string{"put_latency", "-m", "8:8", "-i", "2", "-x", "1"}
	ordering := func(env map[string]string, extra ...string) string {
		t.Helper()
		r := pgasbench(t, env, false, append(append([]string{}, args...), extra...)...)
		if r.code != 0 {
			t.Fatalf("%v: %d %q", extra, r.code, r.stderr)
		}
		for _, l := range parseOSU(t, r.stdout).header {
			if o, ok := strings.CutPrefix(l, "# Ordering: "); ok {
				return o
			}
		}
		t.Fatal("no ordering line")
		return ""
	}
	if o := ordering(nil); o != "default" {
		t.Errorf("default ordering %q", o)
	}
	env := map[string]string{"PGAS_ORDERING": "strict"}
	if o := ordering(env); o != "strict" {
		t.Errorf("PGAS_ORDERING=strict gave %q", o)
	}
	if o := ordering(env, "--set", "PGAS_ORDERING=relaxed"); o != "relaxed" {
		t.Errorf("--set over the environment gave %q", o)
	}
	if o := ordering(env, "--set", "pgas_ordering=relaxed", "--ordering", "default"); o != "default" {
		t.Errorf("--ordering over --set gave %q", o)
	}
	// A bad value in the environment is a usage error too.
	if r := pgasbench(t, map[string]string{"PGAS_NETWORKDEPTH": "0"}, false, args...); r.code != exitUsage || !strings.Contains(r.stderr, "PGAS_NETWORKDEPTH") {
		t.Errorf("bad environment: %d %q", r.code, r.stderr)
	}
	// PGAS_CONDUIT picks the backend when --conduit is not given.
	r := pgasbench(t, map[string]string{"PGAS_CONDUIT": "gemini"}, false, args...)
	if r.code != 0 || !strings.Contains(r.stdout, "# Backend: gemini (simulated network)") {
		t.Errorf("PGAS_CONDUIT=gemini: %d %q\n%s", r.code, r.stderr, r.stdout)
	}
}

func TestOtherBenchmarks(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"get_latency", "-m", "4:8", "-i", "5", "-x", "1", "--format", "csv"}, []string{"benchmark,conduit,time_base", "\nget_latency,smp,wall-clock time,2,2,1,default,auto,"}},
		{[]string{"bibw", "-m", "64:128", "-i", "3", "-x", "1", "-W", "4", "--plot", filepath.Join(dir, "bibw.png")}, []string{"# Size      Bandwidth (MB/s)\n64 "}},
		{[]string{"am_bw", "-m", "1K", "-i", "2", "-x", "1", "-W", "4"}, []string{"# Window: 4\n", "\n1024 "}},
		{[]string{"mbw_mr", "--ppn", "2", "-m", "8:16", "-i", "2", "-x", "1", "-W", "4"}, []string{"# Size                  MB/s        Messages/s\n8 "}},
		{[]string{"ordering_bw", "--conduit", "gemini", "--nodes", "2", "--ppn", "2", "--op", "put", "-m", "64", "-i", "2", "-x", "1"}, []string{"# Operation: put\n", "# Window: 1\n", "\n64 "}},
		{[]string{"ordering_bw", "--two-sided", "--conduit", "gemini", "--nodes", "2", "--ppn", "1", "-m", "8:16K", "-i", "2", "-x", "1"}, []string{"# Multi-pair two-sided bandwidth", "# Operation: send/recv\n", "\n16384 "}},
		{[]string{"atomics", "--filter", "fadd int64", "-i", "5", "-x", "1", "-W", "4", "--plot", filepath.Join(dir, "atomics.svg")}, []string{"# Operation              Million ops/s      Latency (us)\nfadd_int64 "}},
		{[]string{"atomics", "--conduit", "gemini", "--nodes", "2", "--ppn", "2", "--many-to-one", "8", "-i", "2", "-x", "1", "-W", "4", "--format", "gobench"}, []string{"\nBenchmarkAtomicsManyToOne/gemini/vars=8 1 "}},
		{[]string{"barrier", "-i", "5", "-x", "1"}, []string{"\n# OSU gopgas Barrier Latency Test v7.4\n# Avg Latency(us)\n "}},
		{[]string{"put_bibw", "-m", "64:128", "-i", "3", "-x", "1", "-W", "4"}, []string{"# OSU gopgas Put Bi-directional Bandwidth Test v7.4\n", "\n64 "}},
		{[]string{"put_mbw_mr", "--ppn", "2", "-m", "8", "-i", "2", "-x", "1", "-W", "4"}, []string{"# [ pairs: 2 ] [ window size: 4 ]\n", "# Size                  MB/s        Messages/s\n1 ", "\n8 "}},
		{[]string{"am_latency", "-m", "0:8", "-i", "5", "-x", "0"}, []string{"# Size          Latency (us)\n0 ", "warm-up 0\n"}},
		{[]string{"multi_lat", "--ppn", "2", "-m", ":4", "-i", "5", "-x", "1"}, []string{"\n1 ", "\n4 "}},
		{[]string{"mbw_mr", "--ppn", "2", "-m", "8", "-i", "2", "-x", "1", "-W", "4", "-c"}, []string{"# [ pairs: 2 ] [ window size: 4 ]\n", "Pass\n"}},
		{[]string{"fop_latency", "-i", "5", "-x", "1"}, []string{"# OSU gopgas Fetch_and_op latency Test v7.4\n", "\n8 "}},
		{[]string{"cas_latency", "-i", "5", "-x", "1", "--format", "csv"}, []string{"\ncas_latency,smp,"}},
		{[]string{"acc_latency", "-i", "5", "-x", "1", "--format", "json"}, []string{"\"benchmark\": \"acc_latency\""}},
		{[]string{"put_latency", "-m", "1M:", "--iterations", "1", "--warmup=0"}, []string{"\n1048576 ", "\n4194304 "}},
		{[]string{"latency", "-v"}, []string{"# OSU gopgas Latency Test v7.4\n"}},
		{[]string{"bcast", "-m", "8", "-i", "2", "-x", "1", "--ppn", "2", "--nodes", "1"}, []string{"# Size       Avg Latency(us)\n1 ", "\n8 "}},
		{[]string{"allreduce", "-m", "8", "-i", "2", "-x", "1", "--ppn", "2", "--nodes", "1"}, []string{"\n8 "}},
		{[]string{"alltoall", "-m", "2:4", "-i", "2", "-x", "1", "--ppn", "2", "--nodes", "1"}, []string{"\n2 ", "\n4 "}},
	} {
		r := pgasbench(t, nil, false, tc.args...)
		if r.code != 0 {
			t.Errorf("%q: status %d, stderr %q", tc.args, r.code, r.stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%q: output lacks %q:\n%s", tc.args, w, r.stdout)
			}
		}
	}
	for _, f := range []string{"bibw.png", "atomics.svg"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() < 1000 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}

// Progress goes to stderr only when it is a terminal.
func TestProgress(t *testing.T) {
	args := []string{"put_latency", "-m", "1:4", "-i", "2", "-x", "1"}
	if r := pgasbench(t, nil, false, args...); r.code != 0 || r.stderr != "" {
		t.Errorf("not a terminal: stderr %q", r.stderr)
	}
	r := pgasbench(t, nil, true, args...)
	if r.code != 0 || !strings.Contains(r.stderr, "put_latency: 3 of 3 measured") || !strings.HasSuffix(r.stderr, "\r") {
		t.Errorf("terminal: stderr %q", r.stderr)
	}
	if strings.Contains(r.stdout, " measured") {
		t.Errorf("progress on stdout")
	}
}

// A tiny ordering study through the command line.
func TestOrderingStudy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	args := []string{"ordering", "--nodes", "2", "--ppn", "2", "-m", "8:16", "--ppn-list", "1,2", "--sweep-sizes", "1K",
		"--orderings", "strict,relaxed", "--mechanisms", "fma,bte", "-i", "1", "-x", "1", "--put-sweep=false", "--onesided-sweep=false", "--twosided-sweep=false"}
	r := pgasbench(t, nil, false, append(args, "--plot-dir", dir, "--plot-format", "png")...)
	if r.code != 0 {
		t.Fatalf("status %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"# Ordering study", "# Backend: gemini (simulated network)", "# Figure 3: bandwidth vs message size, strict ordering, 2 PEs per node (2 pairs)",
		"# Size            FMA (MB/s)        BTE (MB/s)\n8 ", "# Relaxed/strict bandwidth ratio by PEs per node", "# FMA/BTE crossover", "# Plots: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("study output lacks %q:\n%s", want, r.stdout)
		}
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 7 {
		t.Errorf("plot directory: %v, %v", ents, err)
	}
	r = pgasbench(t, nil, false, append(args, "--format", "json", "--ppn-sweep=false")...)
	var rec study.Record
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != 0 {
		t.Fatalf("JSON: %v, %d %q", err, r.code, r.stderr)
	}
	if rec.Schema != study.Schema || len(rec.SizeSweep) != 4 || len(rec.PPNSweep) != 0 || rec.Nodes != 2 || rec.Conduit != "gemini" {
		t.Errorf("JSON record %+v", rec)
	}
	// The two-sided sweep at the points its flags name: one size with
	// rendezvous (windows 1, 8, 64 up to 8 KiB), one without, at 1 PE per
	// node.
	r = pgasbench(t, nil, false, "ordering", "--nodes", "2", "--size-sweep=false", "--ppn-sweep=false", "--put-sweep=false", "--onesided-sweep=false",
		"--twosided-ppn-list", "1", "--twosided-sizes", "8", "--no-rendezvous-sizes", "1K", "-i", "1", "-x", "1", "--format", "json")
	rec = study.Record{}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != 0 {
		t.Fatalf("two-sided JSON: %v, %d %q", err, r.code, r.stderr)
	}
	var curves []string
	for _, c := range rec.TwoSidedSweep {
		curves = append(curves, fmt.Sprintf("%d/%d/%v:%d", c.Size, c.Window, c.NoRendezvous, len(c.Points)))
	}
	if got := strings.Join(curves, " "); got != "8/1/false:1 8/8/false:1 8/64/false:1 1024/1/true:1 1024/8/true:1 1024/64/true:1" ||
		!slices.Equal(rec.Setup.TwoSidedPPNs, []int{1}) || !slices.Equal(rec.Setup.NoRendezvousSizes, []int{1024}) {
		t.Errorf("two-sided sweep: curves %s, setup %+v", got, rec.Setup)
	}
	r = pgasbench(t, nil, false, append(args, "--format", "csv", "--size-sweep=false")...)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 1+2*2*2 || recs[1][0] != "ppn" {
		t.Errorf("CSV: %v, %v", recs, err)
	}
}

func TestCalibrate(t *testing.T) {
	r := pgasbench(t, nil, false, "calibrate", "--rows", "G-CLK,G-PHIT", "--check")
	if r.code != 0 {
		t.Fatalf("status %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	lines := strings.Split(r.stdout, "\n")
	var ids []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "G-") {
			ids = append(ids, f[0])
			if !strings.Contains(l, " PASS ") {
				t.Errorf("row line %q is not PASS", l)
			}
		}
	}
	if strings.Join(ids, ",") != "G-CLK,G-PHIT" {
		t.Errorf("row IDs %v in:\n%s", ids, r.stdout)
	}
	if !strings.Contains(r.stdout, "\n2 rows: 2 PASS, 0 FAIL, 0 SKIP, 0 ERROR\n") || !strings.Contains(r.stdout, "ID      Published") {
		t.Errorf("report:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "    expect: NIC = 650 MHz; router = 800 MHz; lane = 3.12 Gb/s") {
		t.Errorf("no expectation line:\n%s", r.stdout)
	}
	r = pgasbench(t, nil, false, "calibrate", "--rows", "G-CLK", "--json")
	var rec calibrationRecord
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != 0 {
		t.Fatalf("JSON: %v, %d\n%s", err, r.code, r.stdout)
	}
	if len(rec.Rows) != 1 || rec.Rows[0].ID != "G-CLK" || rec.Rows[0].Status != "PASS" || len(rec.Rows[0].Values) != 3 ||
		*rec.Rows[0].Values[0] != 650 || rec.Counts["PASS"] != 1 || rec.Rows[0].Expect[0].Check != "exact" {
		t.Errorf("JSON record %+v", rec)
	}
}

// A panic in a PE is reported in one line, without its stack.
func TestPanicOneLine(t *testing.T) {
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb}
	err := fmt.Errorf("bench: put_bw: %w", &pgas.PanicError{PE: 3, Value: "boom", Stack: []byte("goroutine 7 [running]:\nmain.f()\n")})
	if code := a.fail(err, "put_bw"); code != exitFailure {
		t.Errorf("status %d", code)
	}
	if got, want := errb.String(), "pgasbench put_bw: bench: put_bw: pgas: PE 3 panicked: boom\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aaa bbb ccc dddddddddd e", 7)
	want := []string{"aaa bbb", "ccc", "ddddddd", "ddd e"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap: %q, want %q", got, want)
	}
	if got := wrap("", 5); len(got) != 1 || got[0] != "" {
		t.Errorf("wrap empty: %q", got)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "4K": 4096, "4k": 4096, "4KiB": 4096, "4M": 4 << 20, "4MiB": 4 << 20, "4Mi": 4 << 20,
		"1G": 1 << 30, "4kB": 4096, "4MB": 4 << 20, "8B": 8, "0": 0} { // one syntax: binary everywhere
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "K", "4X", "-1", "1.5K", "99999999999999999999"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
	o := &options{sizeMin: 1, sizeMax: 4 << 20, sizes: "1K:4K"}
	if s, err := o.sizeList(); err != nil || !slicesEqual(s, []int{1024, 2048, 4096}) {
		t.Errorf("1K:4K: %v %v", s, err)
	}
	o.sizes = "8"
	if s, err := o.sizeList(); err != nil || !slicesEqual(s, []int{1, 2, 4, 8}) {
		t.Errorf("8: %v %v", s, err)
	}
}

// Backend options with lists: PGAS_OPTIONS continues a value over items
// without '=', --option keeps its whole value and wins over the variable,
// and a bad list is a usage error naming the option or the item.
func TestOptionLists(t *testing.T) {
	run := []string{"put_latency", "--conduit", "aries", "--nodes", "4", "-m", "8:8", "-i", "2", "-x", "1"}
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{map[string]string{"PGAS_OPTIONS": "exclude=3,7-9,routing=adaptive"}, nil},
		{nil, []string{"--option", "exclude=3,7-9", "--option", "routing=adaptive"}},
		{map[string]string{"PGAS_OPTIONS": "exclude=9-7,routing=sideways"}, []string{"--option", "exclude=3,7-9", "--option", "routing=deterministic"}},
	} {
		r := pgasbench(t, c.env, false, append(run, c.args...)...)
		if r.code != exitOK {
			t.Errorf("%v %q: status %d, stderr %q", c.env, c.args, r.code, r.stderr)
		}
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"PGAS_OPTIONS": "exclude=3,9-7"}, nil, `option exclude="3,9-7": item "9-7": reversed range`},
		{map[string]string{"PGAS_OPTIONS": "routing=adaptive,routing=deterministic"}, nil, `PGAS_OPTIONS="routing=adaptive,routing=deterministic": item "routing=deterministic": option routing given twice`},
		{map[string]string{"PGAS_OPTIONS": "3,exclude=4"}, nil, `item "3" is not key=value`},
		{nil, []string{"--option", "exclude=3,,4"}, `option exclude="3,,4": empty item`},
		{nil, []string{"--option", "crc_error_rate=NaN"}, `option crc_error_rate="NaN": not a finite number`},
		{nil, []string{"--option", "groups=1", "--option", "chassis=2"}, `options chassis="2" and groups="1": give at most one of cabinets, chassis, groups`},
	} {
		r := pgasbench(t, c.env, false, append(run, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v %q: status %d, stderr %q; want status 2 and %q", c.env, c.args, r.code, r.stderr, c.want)
		}
	}
}
