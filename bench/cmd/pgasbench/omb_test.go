package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ombCase is an OSU Micro-Benchmarks 7.4 output (testdata/omb) and the
// pgasbench command that gives the same kind of output.
type ombCase struct {
	file string
	args []string
}

// ombCases pair every captured OSU output with a pgasbench run, small and
// quick: a few iterations, no warm-up, the OSU run's sizes.
var ombCases = []ombCase{
	{"osu_latency", []string{"latency", "-m", "1:2"}},
	{"osu_latency_z", []string{"latency", "-m1:2", "-z"}},
	{"osu_latency_z2", []string{"latency", "-m", "1:2", "-z50,95"}},
	{"osu_latency_c", []string{"latency", "--message-size=1:2", "-c"}},
	{"osu_bw", []string{"bw", "-m", "1:2", "-W", "4"}},
	{"osu_bw_z", []string{"bw", "-m", "1:2", "--window-size", "4", "--tail-lat"}},
	{"osu_bw_c", []string{"bw", "-m", "1:2", "-W", "4", "--validation"}},
	{"osu_bibw", []string{"bibw", "-m", "1:2", "-W", "4"}},
	{"osu_mbw_mr", []string{"mbw_mr", "-m", "1:2"}},
	{"osu_mbw_mr_z", []string{"mbw_mr", "-m", "1:2", "-z"}},
	{"osu_mbw_mr_c", []string{"mbw_mr", "-m", "1:2", "-c"}},
	{"osu_multi_lat", []string{"multi_lat", "-m", "1:2"}},
	{"osu_put_latency", []string{"put_latency", "-m", "1:2"}},
	{"osu_get_latency", []string{"get_latency", "-m", "1:2"}},
	{"osu_put_bw", []string{"put_bw", "-m", "1:2", "-W", "4"}},
	{"osu_get_bw", []string{"get_bw", "-m", "1:2", "-W", "4"}},
	{"osu_put_bibw", []string{"put_bibw", "-m", "1:2", "-W", "4"}},
	{"osu_fop_latency", []string{"fop_latency"}},
	{"osu_cas_latency", []string{"cas_latency"}},
	{"osu_acc_latency", []string{"acc_latency"}},
	{"osu_barrier", []string{"barrier", "-m", "4:8"}},
	{"osu_barrier_f", []string{"barrier", "-f"}},
	{"osu_barrier_z", []string{"barrier", "-z"}},
	{"osu_bcast", []string{"bcast", "-m", "4:8"}},
	{"osu_bcast_f", []string{"bcast", "-m", "4:8", "--full"}},
	{"osu_allreduce", []string{"allreduce", "-m", "8:16"}},
	{"osu_allreduce_f", []string{"allreduce", "-m", "8:16", "-f"}},
	{"osu_allreduce_z", []string{"allreduce", "-m", "8:16", "-z"}},
	{"osu_allreduce_fz", []string{"allreduce", "-m", "8:16", "-fz"}},
	{"osu_allreduce_c", []string{"allreduce", "-m", "8:16", "-c"}},
	{"osu_alltoall", []string{"alltoall", "-m", "4:8"}},
	{"osu_alltoall_f", []string{"alltoall", "-m", "4:8", "-f"}},
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
			op, oc, orows, _ := ombLines(string(want))
			gp, gc, grows, trailer := ombLines(r.stdout)
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
