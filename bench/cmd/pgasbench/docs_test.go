package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// docCommands are the pgasbench command lines of docs/pgasbench.md's code
// blocks, as argument lists: prompts and line continuations resolved, an
// output redirection kept as the last two words (">", the file), synopsis
// lines with placeholders left out.
func docCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/pgasbench.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	in := false
	var cont string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			continue
		}
		if cont != "" {
			line, cont = cont+" "+strings.TrimSpace(line), ""
		}
		if strings.HasSuffix(line, "\\") {
			cont = strings.TrimSuffix(line, "\\")
			continue
		}
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		line = strings.TrimPrefix(line, "go run ./bench/cmd/pgasbench ")
		rest, ok := strings.CutPrefix(line, "pgasbench ")
		if !ok || strings.ContainsAny(rest, "[|") || strings.Contains(rest, "SUBCOMMAND") {
			continue // output, another program, or a synopsis
		}
		rest, file, redirected := strings.Cut(rest, ">")
		args := shellWords(rest)
		if redirected { // the output's file, kept as the last two words
			args = append(args, ">", strings.TrimSpace(file))
		}
		cmds = append(cmds, args)
	}
	return cmds
}

// shellWords splits s as a shell does for plain words and single quotes.
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	quoted, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, have = !quoted, true
		case !quoted && (r == ' ' || r == '\t'):
			if have {
				out = append(out, w.String())
				w.Reset()
				have = false
			}
		default:
			w.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, w.String())
	}
	return out
}

// small makes a documented command quick to run: few iterations and small
// sizes, the flags appended so that they win over the command's own; a
// calibration runs one quick row instead of those documented (every row
// runs in bench/calibration's TestSheetValues), by a prefix where the
// command selects by one.
func small(args []string) []string {
	out := slices.Clone(args)
	switch args[0] {
	case "ordering":
		return append(out, "-m", "8:64", "--ppn-list", "1,2", "--sweep-sizes", "64", "--nodes", "2", "--ppn", "2", "-i", "1", "-x", "1", "--put-sweep=false", "--onesided-sweep=false", "--twosided-sweep=false")
	case "calibrate":
		if !slices.Contains(out, "--rows") { // the whole report: a row of each backend
			out = append(out, "--rows", "G-CLK,A-FLITS")
		}
		for i := range args[:len(args)-1] {
			if args[i] == "--rows" {
				out[i+1] = "G-CLK"
				if strings.HasSuffix(args[i+1], "*") {
					out[i+1] = "G-CL*"
				}
			}
		}
		return out
	case "atomics":
		return append(out, "-i", "1", "-x", "1", "--nodes", "2", "--ppn", "2")
	}
	if slices.Contains(out, "-m") {
		out = append(out, "-m", "8:1K")
	}
	return append(out, "-i", "2", "-x", "1")
}

// TestDocsCommandsRun: every pgasbench command in docs/pgasbench.md runs as
// written (with small sizes): no usage error, no failure.
func TestDocsCommandsRun(t *testing.T) {
	cmds := docCommands(t)
	if len(cmds) < 10 {
		t.Fatalf("found %d commands in the docs, expected the examples' dozen", len(cmds))
	}
	t.Chdir(t.TempDir()) // plots and files the commands write
	for _, args := range cmds {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var file string
			if n := len(args); n > 2 && args[n-2] == ">" {
				args, file = args[:n-2], args[n-1]
			}
			run := small(args)
			r := pgasbench(t, nil, false, run...)
			if file != "" {
				if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			switch {
			case r.code == exitUsage:
				t.Fatalf("pgasbench %s: usage error:\n%s", strings.Join(run, " "), r.stderr)
			case r.code != exitOK && !(args[0] == "calibrate" && slices.Contains(args, "--check") && r.code == exitFailure):
				t.Fatalf("pgasbench %s: exit %d:\n%s", strings.Join(run, " "), r.code, r.stderr)
			case r.stdout == "":
				t.Fatalf("pgasbench %s printed nothing", strings.Join(run, " "))
			}
		})
	}
}
