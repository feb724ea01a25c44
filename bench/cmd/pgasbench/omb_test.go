package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/bench"
)

// ombCase is an OSU Micro-Benchmarks 7.4 output (testdata/omb) and the
// pgasbench command that gives the same kind of output.
type ombCase struct {
	file string
	args []string
	// exact: the preamble lines with these prefixes must be OSU's own
	// (what OSU names for the option's choice).
	exact []string
}

// ombNames are the preamble lines that name an option's choice.
var ombNames = []string{"# Datatype:", "# Window creation:", "# Synchronization:"}

// ombCases pair every captured OSU output with a pgasbench run, small and
// quick: a few iterations, no warm-up, the OSU run's sizes.
var ombCases = []ombCase{
	{"osu_latency", []string{"latency", "-m", "1:2"}, nil},
	{"osu_latency_z", []string{"latency", "-m1:2", "-z"}, nil},
	{"osu_latency_z2", []string{"latency", "-m", "1:2", "-z50,95"}, nil},
	{"osu_latency_c", []string{"latency", "--message-size=1:2", "-c"}, nil},
	{"osu_bw", []string{"bw", "-m", "1:2", "-W", "4"}, nil},
	{"osu_bw_z", []string{"bw", "-m", "1:2", "--window-size", "4", "--tail-lat"}, nil},
	{"osu_bw_c", []string{"bw", "-m", "1:2", "-W", "4", "--validation"}, nil},
	{"osu_bibw", []string{"bibw", "-m", "1:2", "-W", "4"}, nil},
	{"osu_mbw_mr", []string{"mbw_mr", "-m", "1:2"}, nil},
	{"osu_mbw_mr_z", []string{"mbw_mr", "-m", "1:2", "-z"}, nil},
	{"osu_mbw_mr_c", []string{"mbw_mr", "-m", "1:2", "-c"}, nil},
	{"osu_mbw_mr_R0", []string{"mbw_mr", "-m", "8:16", "-R", "0"}, nil},
	// OSU 7.4 runs -p 1 on four processes as two pairs (it resets -p to
	// half the processes): the layout is that of -p 2.
	{"osu_mbw_mr_p1", []string{"mbw_mr", "-m", "8:16", "-p", "2", "--nodes", "2", "--ppn", "2"}, nil},
	{"osu_multi_lat", []string{"multi_lat", "-m", "1:2"}, nil},
	{"osu_put_latency", []string{"put_latency", "-m", "1:2"}, nil},
	{"osu_get_latency", []string{"get_latency", "-m", "1:2"}, nil},
	{"osu_put_bw", []string{"put_bw", "-m", "1:2", "-W", "4"}, nil},
	{"osu_get_bw", []string{"get_bw", "-m", "1:2", "-W", "4"}, nil},
	{"osu_put_bibw", []string{"put_bibw", "-m", "1:2", "-W", "4"}, nil},
	{"osu_fop_latency", []string{"fop_latency"}, nil},
	{"osu_cas_latency", []string{"cas_latency"}, nil},
	{"osu_acc_latency", []string{"acc_latency"}, nil},
	{"osu_barrier", []string{"barrier", "-m", "4:8"}, nil},
	{"osu_barrier_f", []string{"barrier", "-f"}, nil},
	{"osu_barrier_z", []string{"barrier", "-z"}, nil},
	{"osu_bcast", []string{"bcast", "-m", "4:8"}, nil},
	{"osu_bcast_f", []string{"bcast", "-m", "4:8", "--full"}, nil},
	{"osu_allreduce", []string{"allreduce", "-m", "8:16"}, nil},
	{"osu_allreduce_f", []string{"allreduce", "-m", "8:16", "-f"}, nil},
	{"osu_allreduce_z", []string{"allreduce", "-m", "8:16", "-z"}, nil},
	{"osu_allreduce_fz", []string{"allreduce", "-m", "8:16", "-fz"}, nil},
	{"osu_allreduce_c", []string{"allreduce", "-m", "8:16", "-c"}, nil},
	{"osu_alltoall", []string{"alltoall", "-m", "4:8"}, nil},
	{"osu_alltoall_f", []string{"alltoall", "-m", "4:8", "-f"}, nil},
	// OSU 7.4's further options.
	{"osu_latency_Tint", []string{"latency", "-m", "1:8", "-T", "mpi_int"}, ombNames},
	{"osu_latency_Tall", []string{"latency", "-m", "1:8", "--type=all"}, ombNames},
	{"osu_bw_bmultiple", []string{"bw", "-m", "1:2", "-W", "4", "-b", "multiple"}, ombNames},
	{"osu_bw_Tfloat_c", []string{"bw", "-m", "4:8", "-W", "4", "-T", "mpi_float", "-c"}, ombNames},
	{"osu_put_bw_wcreate_slock", []string{"put_bw", "-m", "1:2", "-W", "4", "-w", "create", "-s", "lock"}, ombNames[1:]},
	{"osu_get_latency_wdynamic_spscw", []string{"get_latency", "-m", "1:2", "--win-options", "dynamic", "--sync-option=pscw"}, ombNames[1:]},
	{"osu_put_latency_sfence", []string{"put_latency", "-m", "1:2", "-s", "fence"}, ombNames[1:]},
	{"osu_get_bw_slockall", []string{"get_bw", "-m", "1:2", "-W", "4", "-s", "lock_all"}, ombNames[1:]},
	{"osu_put_bibw_sfence", []string{"put_bibw", "-m", "1:2", "-W", "4", "-s", "fence"}, ombNames[1:]},
	{"osu_put_bw_sflushlocal", []string{"put_bw", "-m", "1:2", "-W", "4", "-s", "flush_local"}, ombNames[1:]},
	{"osu_fop_latency_c", []string{"fop_latency", "-c"}, nil},
	{"osu_cas_latency_Tint_sfence", []string{"cas_latency", "-T", "mpi_int", "-s", "fence"}, ombNames},
	{"osu_acc_latency_wdynamic_spscw", []string{"acc_latency", "-w", "dynamic", "-s", "pscw"}, ombNames[1:]},
	{"osu_latency_Dvect", []string{"latency", "-m", "4:8", "-D", "vect:4:2"}, ombNames},
	{"osu_mbw_mr_Dcont", []string{"mbw_mr", "-m", "1:2", "-W", "4", "--ddt=cont"}, ombNames},
	{"osu_bw_Dindx", []string{"bw", "-m", "16:32", "-W", "4", "-D", "indx:" + filepath.Join("testdata", "ddt", "indexed.txt")}, ombNames},
	{"osu_allreduce_Tint", []string{"allreduce", "-m", "4:8", "-T", "mpi_int"}, ombNames},
	{"osu_bcast_Tfloat_c", []string{"bcast", "-m", "4:8", "-T", "mpi_float", "-c"}, ombNames},
	{"osu_alltoall_Tall", []string{"alltoall", "-m", "1:4", "-T", "all"}, ombNames},
	{"osu_allreduce_l", []string{"allreduce", "-m", "8:16", "-l"}, nil},
	{"osu_alltoall_l", []string{"alltoall", "-m", "4:8", "--in-place"}, nil},
	{"osu_latency_m0", []string{"latency", "-m", "0"}, ombNames},
}

// ombTitle is an OSU title as pgasbench words it: gopgas for MPI.
func ombTitle(l string) string {
	l = strings.Replace(l, "# OSU MPI_", "# OSU gopgas ", 1)
	return strings.Replace(l, "# OSU MPI ", "# OSU gopgas ", 1)
}

// ombLines splits OSU text into its preamble (up to the column header),
// its column header and its rows; what follows the rows is the trailer.
func ombLines(text string) (preamble []string, columns string, rows, trailer []string) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	i := 0
	for ; i < len(lines) && (lines[i] == "" || strings.HasPrefix(lines[i], "#")); i++ {
	}
	// The column header is the last "#" line before the rows.
	preamble, columns = lines[:i-1], lines[i-1]
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
		rows = append(rows, lines[i])
	}
	return preamble, columns, rows, lines[i:]
}

// fieldEnds are the positions where the fields of a row end: OSU's
// right-justified columns end at fixed places.
func fieldEnds(row string) []int {
	var ends []int
	for i := range len(row) {
		if row[i] != ' ' && (i+1 == len(row) || row[i+1] == ' ') {
			ends = append(ends, i+1)
		}
	}
	return ends
}

// The OSU layout, compared with OSU 7.4's own output: the same preamble
// lines (the title with gopgas for MPI, the same kinds of set-up lines),
// the same column header, rows with as many fields ending at the same
// places; pgasbench's own description comes after the rows, as "# " lines.
func TestOMBStructure(t *testing.T) {
	for _, tc := range ombCases {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "omb", tc.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{}, tc.args...), "--conduit", "smp", "-i", "2", "-x", "0")
			if strings.HasPrefix(tc.file, "osu_barrier") || strings.HasPrefix(tc.file, "osu_bcast") ||
				strings.HasPrefix(tc.file, "osu_allreduce") || strings.HasPrefix(tc.file, "osu_alltoall") {
				args = append(args, "--nodes", "2", "--ppn", "2")
			}
			r := pgasbench(t, nil, false, args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("pgasbench %s: status %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
			}
			if strings.HasSuffix(tc.file, "_m0") {
				// No rows: OSU's lines are the preamble and the header.
				olines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
				glines := strings.Split(r.stdout, "\n")
				for i, o := range olines {
					if g := glines[i]; ombTitle(o) != g && !(strings.HasPrefix(o, "# OSU") && strings.HasPrefix(g, "# OSU")) {
						t.Errorf("line %d %q, OSU's %q", i, g, o)
					}
				}
				if !strings.HasPrefix(glines[len(olines)], "# gopgas") {
					t.Errorf("after the header %q, not the description", glines[len(olines)])
				}
				return
			}
			op, oc, orows, otail := ombLines(string(want))
			gp, gc, grows, trailer := ombLines(r.stdout)
			// Further tables (-T all): a "# Datatype:" line, the header,
			// the rows, each as OSU's.
			for len(otail) > 0 {
				var odt, gdt, oh, gh string
				var or, gr []string
				odt, oh, or, otail = nextTable(otail)
				gdt, gh, gr, trailer = nextTable(trailer)
				if gdt != odt || gh != oh || len(gr) != len(or) {
					t.Fatalf("table %q %q with %d rows, OSU's %q %q with %d", gdt, gh, len(gr), odt, oh, len(or))
				}
			}
			if len(gp) != len(op) {
				t.Fatalf("preamble %q, OSU's %q", gp, op)
			}
			for i := range op {
				o, g := op[i], gp[i]
				switch {
				case strings.HasPrefix(o, "# OSU "):
					if ombTitle(o) != g {
						t.Errorf("title %q, OSU's %q (with gopgas for MPI: %q)", g, o, ombTitle(o))
					}
				case strings.HasPrefix(o, "# [ pairs"):
					if g != o {
						t.Errorf("line %q, OSU's %q", g, o)
					}
				case slicesHasPrefix(tc.exact, o):
					if g != o {
						t.Errorf("line %q, OSU's %q", g, o)
					}
				default:
					// The same kind of line: blank, or the same "# Name:".
					ok, _, _ := strings.Cut(o, ":")
					gk, _, _ := strings.Cut(g, ":")
					if ok != gk {
						t.Errorf("preamble line %d %q, OSU's %q", i, g, o)
					}
				}
			}
			if gc != oc {
				t.Errorf("column header\n%q, OSU's\n%q", gc, oc)
			}
			if len(grows) == 0 || len(orows) == 0 {
				t.Fatalf("rows %q, OSU's %q", grows, orows)
			}
			// The size is left-justified: the other fields' ends count.
			for _, g := range grows {
				ge, oe := fieldEnds(g), fieldEnds(orows[0])
				if _, sized := strings.CutPrefix(oc, "# Size"); sized && len(ge) > 0 && len(oe) > 0 {
					ge, oe = ge[1:], oe[1:]
				}
				if !slicesEqual(ge, oe) {
					t.Errorf("row %q has fields ending at %v, OSU's %q at %v", g, ge, orows[0], oe)
				}
			}
			if len(trailer) == 0 {
				t.Errorf("no description after the rows")
			}
			for _, l := range trailer {
				if !strings.HasPrefix(l, "# ") {
					t.Errorf("trailer line %q is not a \"# \" line", l)
				}
			}
		})
	}
}

// nextTable splits a further table (OSU's -T all) off lines: its
// "# Datatype:" line, its column header, its rows, and what follows.
func nextTable(lines []string) (datatype, header string, rows, rest []string) {
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "# Datatype:") {
		return "", "", nil, lines
	}
	i := 2
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
	}
	return lines[0], lines[1], lines[2:i], lines[i:]
}

// slicesHasPrefix says whether l starts with one of prefixes.
func slicesHasPrefix(prefixes []string, l string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// -G tty: after the output, a chart per size of its per-iteration values,
// titled as OSU's.
func TestOMBGraphTTY(t *testing.T) {
	r := pgasbench(t, nil, false, "bw", "-m", "1:2", "-W", "2", "-i", "6", "-x", "0", "--graph", "tty", "--conduit", "gemini")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("status %d, stderr %q", r.code, r.stderr)
	}
	_, rest, ok := strings.Cut(r.stdout, "# Time base:")
	if !ok {
		t.Fatalf("no description: %q", r.stdout)
	}
	for _, want := range []string{"Size: 1, Avg:", "Size: 2, Avg:", "BW(MB/s)", "Iteration Count"} {
		if !strings.Contains(rest, want) {
			t.Errorf("no %q after the rows:\n%s", want, rest)
		}
	}
	// A dot per iteration at most (two may share a cell), at least one.
	if dots := strings.Count(rest, "."); dots < 2 {
		t.Errorf("%d dots in the charts:\n%s", dots, rest)
	}
}

// Bad values of OSU's further options name the option and the value;
// the options that cannot apply say why.
func TestOMBOptionErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"latency", "-b", "double"}, "-b double: want single or multiple"},
		{[]string{"bw", "--buffer-num=few"}, "-b few"},
		{[]string{"latency", "-T", "mpi_double"}, "-T mpi_double"},
		{[]string{"put_bw", "-w", "shared"}, "-w shared"},
		{[]string{"put_latency", "--sync-option", "none"}, "-s none"},
		{[]string{"put_bibw", "-s", "flush"}, "-s flush: put_bibw takes pscw or fence"},
		{[]string{"latency", "-G", "svg"}, "-G svg"},
		{[]string{"latency", "-u", "-2", "-c"}, "-u -2"},
		{[]string{"allreduce", "-M", "lots"}, "-M lots"},
		{[]string{"latency", "-P", "PAPI_TOT_INS"}, "-P PAPI_TOT_INS: does not apply to gopgas"},
		{[]string{"latency", "--accelerator", "cuda"}, "-d cuda: does not apply to gopgas"},
		{[]string{"allreduce", "-a", "16"}, "-a 16: does not apply to gopgas"},
		{[]string{"latency", "-I"}, "-I: does not apply to gopgas"},
		{[]string{"latency", "-D", "vect:4"}, "-D vect:4: layout"},
		{[]string{"bw", "-D", "cont", "-c"}, "-D cont: a derived datatype does not support validation"},
		{[]string{"latency", "-clog:" + dir}, "already exists"},
		{[]string{"latency", "--validation=foo"}, "want log or log:DIR"},
		{[]string{"latency", "-T", "all", "--format", "csv"}, "-T all: one table per type"},
		{[]string{"latency", "-G", "tty", "--format", "json"}, "-G tty: the chart follows"},
		{[]string{"mbw_mr", "-R", "2"}, "-R 2: want 0 or 1"},
		{[]string{"mbw_mr", "--print-rate=-1"}, "-R -1: want 0 or 1"},
		{[]string{"mbw_mr", "-p", "0"}, "-p 0: want at least 1 pair"},
		{[]string{"mbw_mr", "-p", "3", "--ppn", "2"}, "-p 3: more pairs than half the 4 PEs"},
		{[]string{"mbw_mr", "--num-pairs", "2"}, "-p 2: more pairs than half the 2 PEs"},
		{[]string{"mbw_mr", "-V", "-c"}, "-V: prints OSU's matrices"},
		{[]string{"mbw_mr", "-V", "--format", "csv"}, "-V: the matrices are OSU's text"},
		{[]string{"bw", "-R", "0"}, "-R"},
	} {
		r := pgasbench(t, nil, false, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: status %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// -c log:DIR writes nothing when every buffer passes (OSU logs failures
// only), and -m 0 runs no size.
func TestOMBValidationLogClean(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	r := pgasbench(t, nil, false, "latency", "-m", "1:4", "-i", "2", "-x", "0", "-T", "mpi_int", "--validation=log:"+dir)
	if r.code != 0 || !strings.Contains(r.stdout, "Pass") {
		t.Fatalf("status %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s made though every buffer passed: %v", dir, err)
	}
}

// -G png and pdf: files named as OSU's in the current directory.
func TestOMBGraphFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, g := range []struct {
		format string
		files  []string
	}{
		{"png", []string{"osu_put_latency-1.png", "osu_put_latency-2.png"}},
		{"pdf", []string{"osu_put_latency.pdf"}},
	} {
		r := pgasbench(t, nil, false, "put_latency", "-m", "1:2", "-i", "4", "-x", "0", "-G", g.format, "--conduit", "gemini")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("-G %s: status %d, stderr %q", g.format, r.code, r.stderr)
		}
		for _, f := range g.files {
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				t.Errorf("-G %s: %s: %v", g.format, f, err)
			}
		}
	}
}

// Options OSU accepts with no effect here, or with a warning: -t on the
// blocking bandwidth tests, -M lowering alltoall's largest message.
func TestOMBAcceptedOptions(t *testing.T) {
	r := pgasbench(t, nil, false, "bw", "-m", "1:2", "-i", "2", "-x", "0", "-t", "4")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "\n2 ") {
		t.Errorf("bw -t 4: status %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	// 2 MiB over 8 PEs: 256 KiB at most.
	r = pgasbench(t, nil, false, "alltoall", "-m", "128K:1M", "-i", "1", "-x", "0", "-M", "2M", "--conduit", "smp")
	if r.code != 0 || !strings.Contains(r.stderr, "limiting the largest message to 262144 bytes") ||
		!strings.Contains(r.stdout, "\n262144 ") || strings.Contains(r.stdout, "\n524288 ") {
		t.Errorf("alltoall -M 2M: status %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	r = pgasbench(t, nil, false, "allreduce", "-m", "8:16", "-i", "1", "-x", "0", "-M", "4K")
	if r.code != 0 || !strings.Contains(r.stderr, "too low, using 1048576") {
		t.Errorf("allreduce -M 4K: status %d, stderr %q", r.code, r.stderr)
	}
}

// osu_mbw_mr -V: OSU's matrices line for line (the same "#" and blank
// lines, a row per size with a value per window ending where OSU's end),
// then pgasbench's description.
func TestOMBVaryWindow(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "omb", "osu_mbw_mr_V.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rate := range []string{"1", "0"} {
		r := pgasbench(t, nil, false, "mbw_mr", "-V", "-m", "8:64", "-R", rate, "-i", "2", "-x", "0", "--conduit", "gemini")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("-R %s: status %d, stderr %q", rate, r.code, r.stderr)
		}
		olines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
		if rate == "0" {
			// Without the rate: up to the blank line before its matrix.
			olines = olines[:slices.Index(olines[5:], "")+5]
		}
		glines := strings.Split(r.stdout, "\n")
		for i, o := range olines {
			g := glines[i]
			switch {
			case strings.HasPrefix(o, "# OSU"):
				if ombTitle(o) != g {
					t.Errorf("-R %s: title %q, OSU's %q", rate, g, o)
				}
			case o == "" || strings.HasPrefix(o, "#"):
				if g != o {
					t.Errorf("-R %s: line %d %q, OSU's %q", rate, i, g, o)
				}
			default:
				// A value per window, ending where OSU's end.
				if ge, oe := fieldEnds(g), fieldEnds(o); !slicesEqual(ge[1:], oe[1:]) || len(ge) != 1+len(bench.VariedWindows) {
					t.Errorf("-R %s: row %q has fields ending at %v, OSU's %q at %v", rate, g, ge, o, oe)
				}
			}
		}
		if !strings.HasPrefix(glines[len(olines)], "# gopgas") {
			t.Errorf("-R %s: after the matrices %q, not the description", rate, glines[len(olines)])
		}
	}
}

// osu_mbw_mr -p: on four PEs, -p 1 runs one pair (PE 0 to PE 2; PEs 1
// and 3 only join the barriers), -p 2 two, which move twice the bytes;
// -R 0 drops the Messages/s column.
func TestOMBPairs(t *testing.T) {
	bw := map[string]float64{}
	for _, p := range []string{"1", "2"} {
		r := pgasbench(t, nil, false, "mbw_mr", "-p", p, "--nodes", "2", "--ppn", "2", "-m", "4096:4096", "-i", "4", "-x", "0", "-R", "0", "--conduit", "gemini")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("-p %s: status %d, stderr %q", p, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, "# [ pairs: "+p+" ] [ window size: 64 ]\n") || strings.Contains(r.stdout, "Messages/s") {
			t.Fatalf("-p %s -R 0: %q", p, r.stdout)
		}
		_, row, _ := strings.Cut(r.stdout, "\n4096 ")
		f := strings.Fields(row)
		if len(f) == 0 {
			t.Fatalf("-p %s: no row: %q", p, r.stdout)
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		bw[p] = v
	}
	// The aggregate counts the pairs' bytes: one pair's is well below
	// two pairs'.
	if !(bw["2"] > 1.5*bw["1"]) {
		t.Errorf("-p 1: %.2f MB/s, -p 2: %.2f MB/s; want -p 2's well above one pair's", bw["1"], bw["2"])
	}
}
