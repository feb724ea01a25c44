package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// bwRun is a synthetic simulated put_bw run.
func bwRun() *Run {
	return &Run{
		Result: &bench.Result{
			Benchmark: "put_bw", Title: "OSU gopgas Put Bandwidth Test", Unit: "MB/s", Column: "Bandwidth (MB/s)",
			Conduit: "gemini", Nodes: 2, PPN: 1, Ordering: pgas.OrderStrict, Mechanism: bench.BTE, Window: 64, Simulated: true,
			Report: pgas.Report{Backend: "gemini", Simulated: true, End: 46110940225, Events: 71963065,
				Counters: map[string]int64{"torus_phits": 627850, "crc_retries": 0}},
			Points: []bench.Point{
				{Size: 1, Value: 3.14159, Rate: 3141590, P50: 3.1, P90: 3.2, P99: 3.3},
				{Size: 1024, Value: 4659.6549, Rate: 4550444.2},
				{Size: 4 << 20, Value: 123456.789, Rate: 29.43},
			},
		},
		Setup: Setup{Sizes: []int{1, 1024, 4 << 20}, Iterations: 5, Warmup: 1, Seed: 7,
			Options: map[string]string{"routing": "deterministic"}, Settings: map[string]string{"PGAS_FMA_RDMA_CUTOVER": "2048"},
			Args: []string{"put_bw", "--conduit", "gemini"}},
	}
}

func atomicsRun() *Run {
	return &Run{
		Result: &bench.Result{Benchmark: "atomics", Title: "OSU-style Atomic Operations Test", Unit: "Mops/s", Column: "Million ops/s",
			Conduit: "smp", Nodes: 2, PPN: 1, Ordering: pgas.OrderDefault, Window: 64},
		Atomics: []bench.AtomicRow{{Name: "add int64", Rate: 12.345, Latency: 0.5}, {Name: "fxor uint32", Rate: 1.5, Latency: 1.25}},
	}
}

// The OSU layout exactly: header lines, then "%-10d%18.2f" rows.
func TestOSUExact(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteOSU(&buf, bwRun()); err != nil {
		t.Fatal(err)
	}
	want := `# OSU gopgas Put Bandwidth Test v7.4
# Window creation: symmetric segment (pgas.PE.Alloc)
# Synchronization: windows of non-blocking operations, WaitAll
# Datatype: MPI_CHAR.
# Size      Bandwidth (MB/s)
1                       3.14
1024                 4659.65
4194304            123456.79
# gopgas pgasbench v0.1, put_bw (OSU Micro-Benchmarks 7.4 output)
# Backend: gemini (simulated network)
# Topology: 2 PEs on 2 nodes, 1 PE per node
# Ordering: strict
# Mechanism: bte (every transfer by block transfer)
# Window: 64
# Iterations: 5, warm-up 1
# Time base: simulated time
# Simulated: 46.11 ms of virtual time, 71,963,065 events
`
	if got := buf.String(); got != want {
		t.Errorf("OSU output:\n%s\nwant:\n%s", got, want)
	}
}

// Every row is 10 + 18 per column wide, the size left-justified and each
// value right-justified with two decimals, whatever the columns.
func TestOSUColumns(t *testing.T) {
	for _, tc := range []struct {
		name        string
		benchmark   string
		percentiles bool
		header      []string
	}{
		{"bandwidth", "put_bw", false, []string{"Bandwidth (MB/s)"}},
		{"percentiles", "put_bw", true, []string{"Bandwidth (MB/s)", "P50 Tail BW(MB/s)", "P90 Tail BW(MB/s)", "P99 Tail BW(MB/s)"}},
		{"message rate", "mbw_mr", false, []string{"Bandwidth (MB/s)", "Messages/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := bwRun()
			run.Result.Benchmark = tc.benchmark
			run.Setup.Percentiles = tc.percentiles
			var buf bytes.Buffer
			if err := WriteOSU(&buf, run); err != nil {
				t.Fatal(err)
			}
			rows, head := parseOSU(t, buf.String())
			wantHead := "# Size    "
			for _, h := range tc.header {
				wantHead += strings.Repeat(" ", FieldWidth-len(h)) + h
			}
			if head != wantHead {
				t.Errorf("column header %q, want %q", head, wantHead)
			}
			if len(rows) != len(run.Result.Points) {
				t.Fatalf("%d rows, want %d", len(rows), len(run.Result.Points))
			}
			for i, row := range rows {
				p := run.Result.Points[i]
				if len(row) != SizeWidth+FieldWidth*len(tc.header) {
					t.Errorf("row %q is %d wide, want %d", row, len(row), SizeWidth+FieldWidth*len(tc.header))
				}
				if got := strings.TrimRight(row[:SizeWidth], " "); got != strconv.Itoa(p.Size) || row[0] == ' ' {
					t.Errorf("row %q: size field %q, want %d left-justified", row, row[:SizeWidth], p.Size)
				}
				for c := range tc.header {
					field := row[SizeWidth+c*FieldWidth : SizeWidth+(c+1)*FieldWidth]
					if field[len(field)-1] == ' ' || !regexp.MustCompile(`^ *-?\d+\.\d\d$`).MatchString(field) {
						t.Errorf("row %q: field %q is not right-justified with 2 decimals", row, field)
					}
				}
				if v, _ := strconv.ParseFloat(strings.TrimSpace(row[SizeWidth:SizeWidth+FieldWidth]), 64); v != round2(p.Value) {
					t.Errorf("row %q: value %v, want %v", row, v, round2(p.Value))
				}
			}
		})
	}
}

func round2(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return f
}

// parseOSU splits OSU text into data rows and the column header line,
// checking that every other line is a "# " line (pgasbench's own follow
// the rows) or OSU's blank first line.
func parseOSU(t *testing.T, text string) (rows []string, columnHeader string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(text))
	inData := false
	first := true
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "# "):
			if strings.HasPrefix(l, "# Size") {
				if inData {
					t.Errorf("column header %q after the data", l)
				}
				columnHeader = l
			}
		case l == "" && first:
		case l == "":
			t.Errorf("empty line in OSU output")
		default:
			if columnHeader == "" {
				t.Errorf("row %q before the column header", l)
			}
			inData = true
			rows = append(rows, l)
		}
		first = false
	}
	if columnHeader == "" {
		t.Errorf("no column header line in:\n%s", text)
	}
	return rows, columnHeader
}

func TestOSUAtomics(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteOSU(&buf, atomicsRun()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"# Operation              Million ops/s      Latency (us)",
		"add_int64                        12.35              0.50",
		"fxor_uint32                       1.50              1.25",
	}
	if got := lines[4:7]; !reflect.DeepEqual(got, want) {
		t.Errorf("atomics table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(buf.String(), "Topology") || !strings.Contains(buf.String(), "# Time base: wall-clock time") {
		t.Errorf("real-backend header wrong:\n%s", buf.String())
	}
}

func TestCSV(t *testing.T) {
	for _, percentiles := range []bool{false, true} {
		run := bwRun()
		run.Setup.Percentiles = percentiles
		var buf bytes.Buffer
		if err := WriteCSV(&buf, run); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		head := "benchmark,conduit,time_base,pes,nodes,ppn,ordering,mechanism,window,op,size_bytes,value,unit,rate_per_s,p50,p90,p99"
		if got := strings.Join(recs[0][:17], ","); got != head {
			t.Errorf("CSV header %s, want %s", got, head)
		}
		if len(recs) != 1+len(run.Result.Points) {
			t.Fatalf("%d CSV records, want %d", len(recs), 1+len(run.Result.Points))
		}
		for i, rec := range recs[1:] {
			p := run.Result.Points[i]
			if rec[0] != "put_bw" || rec[1] != "gemini" || rec[2] != "simulated time" || rec[6] != "strict" || rec[7] != "bte" || rec[10] != strconv.Itoa(p.Size) {
				t.Errorf("CSV row %v", rec)
			}
			if v, err := strconv.ParseFloat(rec[11], 64); err != nil || v != p.Value {
				t.Errorf("CSV value %q, want %v", rec[11], p.Value)
			}
			if v, err := strconv.ParseFloat(rec[13], 64); err != nil || v != p.Rate {
				t.Errorf("CSV rate %q, want %v", rec[13], p.Rate)
			}
			if percentiles {
				if v, err := strconv.ParseFloat(rec[14], 64); err != nil || v != p.P50 {
					t.Errorf("CSV p50 %q, want %v", rec[14], p.P50)
				}
			} else if rec[14] != "" {
				t.Errorf("CSV p50 %q without percentiles", rec[14])
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, atomicsRun()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][10] != "operation" || recs[1][10] != "add_int64" || recs[1][11] != "12.345" || recs[2][12] != "1.25" {
		t.Errorf("atomics CSV: %v", recs)
	}
}

// JSON round trip: the record rebuilds the run, Result and all.
func TestJSONRoundTrip(t *testing.T) {
	for _, run := range []*Run{bwRun(), atomicsRun()} {
		run.Setup.Percentiles = true
		var buf bytes.Buffer
		if err := WriteJSON(&buf, run); err != nil {
			t.Fatal(err)
		}
		rec, err := ReadJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%v in:\n%s", err, buf.String())
		}
		back, err := rec.Run()
		if err != nil {
			t.Fatal(err)
		}
		want := *run.Result
		if want.Report.Counters == nil {
			want.Report.Counters = map[string]int64{}
		}
		if !reflect.DeepEqual(*back.Result, want) {
			t.Errorf("round trip:\n%+v\nwant\n%+v", *back.Result, want)
		}
		if !reflect.DeepEqual(back.Atomics, run.Atomics) {
			t.Errorf("atomics round trip: %+v, want %+v", back.Atomics, run.Atomics)
		}
		if back.Setup.Seed != run.Setup.Seed || back.Setup.Iterations != run.Setup.Iterations || len(back.Setup.Sizes) != len(run.Setup.Sizes) {
			t.Errorf("setup round trip: %+v, want %+v", back.Setup, run.Setup)
		}
		if rec.TimeBase != run.Result.TimeBase() || rec.PEs != run.Result.Nodes*run.Result.PPN {
			t.Errorf("record time base %q, PEs %d", rec.TimeBase, rec.PEs)
		}
	}
	// The documented field names.
	var buf bytes.Buffer
	if err := WriteJSON(&buf, bwRun()); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"schema": "gopgas/pgasbench/run/v3"`, `"end_ps": 46110940225`, `"events": 71963065`, `"torus_phits": 627850`,
		`"size": 4194304`, `"ordering": "strict"`, `"mechanism": "bte"`, `"time_base": "simulated time"`} {
		if !strings.Contains(buf.String(), field) {
			t.Errorf("JSON lacks %s:\n%s", field, buf.String())
		}
	}
	if _, err := ReadJSON(strings.NewReader(`{"schema": "other"}`)); err == nil {
		t.Error("ReadJSON accepted another schema")
	}
}

// Every line of the gobench output is a configuration line or a benchmark
// line that benchstat parses: Benchmark<name> <n> (<value> <unit>)+.
func TestGoBench(t *testing.T) {
	benchLine := regexp.MustCompile(`^Benchmark[A-Z][^\s]* [1-9]\d*( -?\d+(\.\d+)?([eE][-+]?\d+)? [^\s]+)+$`)
	configLine := regexp.MustCompile(`^[a-z][^\s:A-Z]*: \S.*$`)
	for _, tc := range []struct {
		run   *Run
		lines []string
	}{
		{bwRun(), []string{
			"BenchmarkPutBW/gemini/size=1 1 318.31 ns/op 3.14 MB/s",
			"BenchmarkPutBW/gemini/size=1024 1 219.76 ns/op 4659.65 MB/s",
			"BenchmarkPutBW/gemini/size=4194304 1 33978933.06 ns/op 123456.79 MB/s",
		}},
		{atomicsRun(), []string{
			"BenchmarkAtomics/smp/op=add_int64 1 500.00 ns/op 12.35 Mops/s",
			"BenchmarkAtomics/smp/op=fxor_uint32 1 1250.00 ns/op 1.50 Mops/s",
		}},
	} {
		var buf bytes.Buffer
		if err := WriteGoBench(&buf, tc.run); err != nil {
			t.Fatal(err)
		}
		var benches []string
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			switch {
			case benchLine.MatchString(l):
				benches = append(benches, l)
			case configLine.MatchString(l):
			default:
				t.Errorf("gobench line %q is neither a benchmark nor a configuration line", l)
			}
		}
		if !reflect.DeepEqual(benches, tc.lines) {
			t.Errorf("benchmark lines:\n%s\nwant:\n%s", strings.Join(benches, "\n"), strings.Join(tc.lines, "\n"))
		}
	}
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, bwRun()); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"conduit: gemini\n", "ordering: strict\n", "option-routing: deterministic\n", "pgas_fma_rdma_cutover: 2048\n"} {
		if !strings.Contains(buf.String(), l) {
			t.Errorf("gobench output lacks %q:\n%s", l, buf.String())
		}
	}
	// Latency: ns/op from microseconds, percentiles as units.
	run := bwRun()
	run.Result.Benchmark, run.Result.Unit, run.Setup.Percentiles = "put_latency", "us", true
	buf.Reset()
	if err := WriteGoBench(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "BenchmarkPutLatency/gemini/size=1 1 3141.59 ns/op 3100.00 p50-ns/op 3200.00 p90-ns/op 3300.00 p99-ns/op\n") {
		t.Errorf("latency gobench:\n%s", buf.String())
	}
}

func TestFormatsParse(t *testing.T) {
	for _, f := range Formats {
		g, err := ParseFormat(f.String())
		if err != nil || g != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), g, err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, f, bwRun()); err != nil || buf.Len() == 0 {
			t.Errorf("Write %v: %v, %d bytes", f, err, buf.Len())
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat accepted xml")
	}
	if err := WriteOSU(&bytes.Buffer{}, &Run{}); err == nil {
		t.Error("WriteOSU accepted a run without a result")
	}
}

func TestPlots(t *testing.T) {
	dir := t.TempDir()
	r := bwRun().Result
	lat := *r
	lat.Points = append([]bench.Point{{Size: 0, Value: 1}}, r.Points...) // size 0 is left off the log axis
	for _, tc := range []struct {
		name string
		fig  *Figure
	}{
		{"bw.svg", ResultFigure(r)},
		{"bw.png", ResultFigure(r, &lat)},
		{"atomics.png", AtomicsFigure(atomicsRun().Result, atomicsRun().Atomics)},
		{"ppn.svg", &Figure{Title: "by PEs per node", XLabel: "PEs per node", YLabel: "MB/s", XTicks: []float64{1, 2, 4},
			Series: []Series{{Name: "a", X: []float64{1, 2, 4}, Y: []float64{1, 3, 2}}}}},
		{"one.svg", &Figure{XLog2: true, YLog: true, Series: []Series{{Name: "one point", X: []float64{1}, Y: []float64{5}}}}},
	} {
		path := filepath.Join(dir, tc.name)
		if err := tc.fig.Save(path); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(path) {
		case ".png":
			if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("%s: no PNG signature", tc.name)
			}
		case ".svg":
			if !bytes.Contains(data[:min(len(data), 512)], []byte("<svg")) || !bytes.Contains(data, []byte("</svg>")) {
				t.Errorf("%s: not an SVG document", tc.name)
			}
		}
		if len(data) < 1000 {
			t.Errorf("%s: only %d bytes", tc.name, len(data))
		}
	}
	// The axis labels with units are in the drawing.
	svg, _ := os.ReadFile(filepath.Join(dir, "bw.svg"))
	for _, label := range []string{"Bandwidth (MB/s)", "Message size (bytes; K = 1024)", "4M", "1K"} {
		if !bytes.Contains(svg, []byte(label)) {
			t.Errorf("bw.svg lacks %q", label)
		}
	}
	if err := ResultFigure(r).Save(filepath.Join(dir, "bw.pdf")); err == nil {
		t.Error("Save accepted a .pdf name")
	}
	if err := (&Figure{XLog2: true, Series: []Series{{X: []float64{0}, Y: []float64{1}}}}).Save(filepath.Join(dir, "empty.svg")); err == nil {
		t.Error("Save drew a figure without points")
	}
}

func TestSizeLabel(t *testing.T) {
	for in, want := range map[int64]string{1: "1", 512: "512", 1024: "1K", 1536: "1536", 64 << 10: "64K", 4 << 20: "4M", 1 << 30: "1G"} {
		if got := SizeLabel(in); got != want {
			t.Errorf("SizeLabel(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestSimTime(t *testing.T) {
	for in, want := range map[conduit.Time]string{
		1500: "1.5 ns", 46110940225: "46.11 ms", 2 * conduit.Second: "2 s", 999: "999 ps", 1234 * conduit.Microsecond: "1.234 ms",
	} {
		if got := SimTime(in); got != want {
			t.Errorf("SimTime(%d) = %q, want %q", in, got, want)
		}
	}
}
