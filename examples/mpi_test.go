//go:build mpi

package examples_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The examples built with -tags mpi and launched by mpiexec: one PE per
// process, on 2 and 4 processes, on the direct and network paths, and a
// bad setting.

var (
	mpiBuildOnce sync.Once
	mpiBuildErr  error
	mpiDir       string
)

// mpiBinary builds the examples with the tag mpi, once.
func mpiBinary(t *testing.T, name string) string {
	t.Helper()
	mpiBuildOnce.Do(func() {
		mpiDir = filepath.Join(tmpDir, "mpi")
		gocmd, err := goTool()
		if err != nil {
			mpiBuildErr = err
			return
		}
		args := []string{"build", "-tags", "mpi", "-o", mpiDir + string(filepath.Separator)}
		if raceEnabled() {
			args = append(args, "-race")
		}
		for _, e := range examples {
			if mpiReady[e] {
				args = append(args, "./examples/"+e)
			}
		}
		cmd := exec.Command(gocmd, args...)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			mpiBuildErr = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	})
	if mpiBuildErr != nil {
		t.Fatalf("building the examples with -tags mpi: %v", mpiBuildErr)
	}
	return filepath.Join(mpiDir, name)
}

func mpiexecPath(t *testing.T) string {
	if p := os.Getenv("MPIEXEC"); p != "" {
		return p
	}
	p, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("no mpiexec on PATH (set MPIEXEC)")
	}
	return p
}

// mpiRun runs `mpiexec -n n example args` with the PGAS_* settings env.
func mpiRun(t *testing.T, n int, name string, env []string, args ...string) result {
	t.Helper()
	bin := mpiBinary(t, name)
	ctx, cancel := context.WithTimeout(t.Context(), 3*runTimeout)
	defer cancel()
	full := []string{"-n", fmt.Sprint(n)}
	if extra := os.Getenv("MPIEXEC_ARGS"); extra != "" {
		full = append(full, strings.Fields(extra)...)
	}
	full = append(full, bin)
	cmd := exec.CommandContext(ctx, mpiexecPath(t), append(full, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PGAS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("mpiexec -n %d %s %v with %v: still running after %v\nstdout:\n%s\nstderr:\n%s", n, name, args, env, 3*runTimeout, r.stdout, r.stderr)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running mpiexec: %v", err)
	}
	return r
}

// mpiReady are the examples written for one PE per process: each checks
// its answer inside the job. (integrity gathers its totals in the
// process's memory, which under mpiexec holds one PE's.)
var mpiReady = map[string]bool{"hello": true, "ring": true, "histogram": true, "jacobi": true}

func TestExamplesUnderMPIExec(t *testing.T) {
	for _, n := range []int{2, 4} {
		for _, env := range [][]string{nil, {"PGAS_DIRECT=off"}, {"PGAS_DIRECT=off", "PGAS_OPTIONS=amo=mpi", "PGAS_ACCESS=strict"}} {
			for _, c := range cases {
				if !mpiReady[c.name] {
					continue
				}
				t.Run(fmt.Sprintf("%s/n=%d/%s", c.name, n, strings.Join(env, ",")), func(t *testing.T) {
					r := mpiRun(t, n, c.name, env, c.args...)
					if r.code != 0 {
						t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
					}
					if c.name == "hello" {
						checkHelloAnyOrder(t, n, r.stdout)
						return
					}
					c.check(t, n, r.stdout)
				})
			}
		}
	}
}

// checkHelloAnyOrder wants every PE's greeting once and the summary:
// the barriers order the PEs' writes, but each process's output reaches
// mpiexec through a pipe of its own, and mpiexec interleaves them in the
// order they arrive.
func checkHelloAnyOrder(t *testing.T, n int, stdout string) {
	ls := lines(stdout)
	seen := map[string]bool{}
	for _, l := range ls {
		seen[l] = true
	}
	for r := range n {
		if want := fmt.Sprintf("hello from PE %d of %d (node 0)", r, n); !seen[want] {
			t.Errorf("no line %q", want)
		}
	}
	if want := fmt.Sprintf("hello: %d PEs on 1 node(s), mpi backend", n); !seen[want] {
		t.Errorf("no summary %q", want)
	}
	if len(ls) != n+1 {
		t.Errorf("%d lines, want %d", len(ls), n+1)
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", stdout)
	}
}

// A PE count other than the launch's is refused by every process, each
// printing one line that says what to do. The launcher may abort the job
// as soon as the first process exits non-zero (Open MPI does), killing
// the other before it prints, so at least one line and at most one per
// process.
func TestExamplesUnderMPIExecBadSetting(t *testing.T) {
	r := mpiRun(t, 2, "hello", []string{"PGAS_PES=3"})
	if r.code == 0 {
		t.Fatalf("PGAS_PES=3 under mpiexec -n 2 succeeded:\n%s", r.stdout)
	}
	const want = "mpi: PEs=3, but the MPI launch has 2 processes and runs one PE in each: leave PGAS_PES unset or set it to 2"
	if got := strings.Count(r.stderr, want); got < 1 || got > 2 {
		t.Fatalf("stderr has %d lines %q, want one per process that was not aborted (1 or 2):\n%s", got, want, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty:\n%s", r.stdout)
	}
}
