// Package examples_test builds the example programs once and runs them as
// real processes: on several PE counts, on the runtime's network paths
// (PGAS_DIRECT=off, PGAS_REQUIRE_REGISTRATION=on), and with bad
// configuration, checking exit status and output.
//
// When the test binary is built with -race, so are the examples, and a
// data race in the runtime makes an example exit non-zero.
package examples_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

var examples = []string{"hello", "ring", "histogram", "jacobi", "integrity"}

// runTimeout bounds one run of an example; a healthy run takes well under
// a second even with -race.
const runTimeout = 60 * time.Second

var (
	tmpDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gopgas-examples-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples_test: creating a directory for the binaries:", err)
		os.Exit(2)
	}
	tmpDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// goTool finds the go command.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the go command is neither on PATH nor in $GOROOT/bin")
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// build compiles every example into tmpDir with one go build.
func build() error {
	gocmd, err := goTool()
	if err != nil {
		return err
	}
	out, err := exec.Command(gocmd, "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return errors.New("go env GOMOD: not inside the module")
	}
	args := []string{"build"}
	if raceEnabled() {
		args = append(args, "-race")
	}
	args = append(args, "-o", tmpDir+string(filepath.Separator))
	for _, name := range examples {
		args = append(args, "./examples/"+name)
	}
	cmd := exec.Command(gocmd, args...)
	cmd.Dir = filepath.Dir(gomod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// binary returns the path of an example's executable, building all of
// them on first use.
func binary(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() { buildErr = build() })
	if buildErr != nil {
		t.Fatalf("building the examples: %v", buildErr)
	}
	return filepath.Join(tmpDir, name)
}

type result struct {
	stdout, stderr string
	code           int // exit status
}

// run runs an example with the given PGAS_* settings; every PGAS_*
// variable of the test's own environment is dropped, so that the runs do
// not depend on it.
func run(t *testing.T, name string, env []string, args ...string) result {
	t.Helper()
	path := binary(t, name)
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	// A race-enabled binary sleeps a second at exit unless told not to;
	// the examples join every goroutine before they exit, so the sleep
	// would find nothing more.
	gorace := "atexit_sleep_ms=0"
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "PGAS_"):
		case strings.HasPrefix(kv, "GORACE="):
			gorace += " " + strings.TrimPrefix(kv, "GORACE=")
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GORACE="+gorace)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %v with %v: still running after %v\nstdout:\n%s\nstderr:\n%s", name, args, env, runTimeout, r.stdout, r.stderr)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", name, err)
	}
	return r
}

// lines splits output into lines, without the final newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// check verifies a successful run's output for n PEs.
type check func(t *testing.T, n int, stdout string)

var helloLine = regexp.MustCompile(`^hello from PE (\d+) of (\d+) \(node (\d+)\)$`)

// checkHello wants exactly n greetings in rank order, then the summary.
func checkHello(t *testing.T, n int, stdout string) {
	ls := lines(stdout)
	if len(ls) != n+1 {
		t.Fatalf("got %d lines, want %d greetings and a summary:\n%s", len(ls), n, stdout)
	}
	for r, l := range ls[:n] {
		m := helloLine.FindStringSubmatch(l)
		if m == nil || m[1] != fmt.Sprint(r) || m[2] != fmt.Sprint(n) {
			t.Fatalf("line %d is %q, want PE %d's greeting (of %d):\n%s", r, l, r, n, stdout)
		}
	}
	if want := fmt.Sprintf("hello: %d PEs on ", n); !strings.HasPrefix(ls[n], want) {
		t.Fatalf("last line is %q, want a summary starting %q", ls[n], want)
	}
}

// wantLine returns a check for a single success line on stdout.
func wantLine(pattern func(n int) string) check {
	return func(t *testing.T, n int, stdout string) {
		re := regexp.MustCompile("^" + pattern(n) + "$")
		ls := lines(stdout)
		if len(ls) != 1 || !re.MatchString(ls[0]) {
			t.Fatalf("stdout is\n%s\nwant one line matching %s", stdout, re)
		}
	}
}

const (
	ringLaps      = 50
	histValues    = 3000
	histBins      = 13
	jacobiPoints  = 101
	jacobiIters   = 300
	jacobiPattern = `jacobi: %d points, %d iterations on %d PEs in \S+: max residual \S+: matches the serial computation exactly: ok`
	integrityMax  = 65536
	integrityAdds = 8
)

// integritySizes are the block sizes of integrity -max integrityMax: 8
// bytes in steps of 8, and the largest.
var integritySizes = []int{8, 64, 512, 4096, 32768, integrityMax}

var cases = []struct {
	name  string
	args  []string
	check check
}{
	{"hello", nil, checkHello},
	{"ring", []string{"-laps", fmt.Sprint(ringLaps)}, wantLine(func(n int) string {
		return regexp.QuoteMeta(fmt.Sprintf("ring: token made %d laps of %d PEs (%d hops): %d, want %d: ok", ringLaps, n, ringLaps*n, ringLaps*n, ringLaps*n))
	})},
	{"histogram", []string{"-n", fmt.Sprint(histValues), "-bins", fmt.Sprint(histBins)}, wantLine(func(n int) string {
		return regexp.QuoteMeta(fmt.Sprintf("histogram: %d values from %d PEs in %d bins, %d PEs checked: matches the serial histogram: ok", histValues*n, n, histBins, n))
	})},
	{"jacobi", []string{"-n", fmt.Sprint(jacobiPoints), "-iters", fmt.Sprint(jacobiIters)}, wantLine(func(n int) string {
		return fmt.Sprintf(jacobiPattern, jacobiPoints, jacobiIters, n)
	})},
	{"integrity", []string{"-max", fmt.Sprint(integrityMax), "-adds", fmt.Sprint(integrityAdds)}, wantLine(func(n int) string {
		sum := 0
		for _, s := range integritySizes {
			sum += s
		}
		return regexp.QuoteMeta(fmt.Sprintf("integrity: %d PEs: %d puts and gets of 8 to %d bytes, %d bytes checked; %d fetch-adds, totals and fetched values checked: ok",
			n, 2*n*n*len(integritySizes), integrityMax, 2*n*n*sum, integrityAdds*n*n))
	})},
}

// TestExamples runs every example on 1 to 5 PEs (5 does not divide the
// grids and bins evenly either), on 3 PEs over the runtime's network
// and bounce-buffer paths, and on the simulated Gemini in each ordering
// mode.
func TestExamples(t *testing.T) {
	type variant struct {
		pes int
		env []string
	}
	var variants []variant
	for pes := 1; pes <= 5; pes++ {
		variants = append(variants, variant{pes: pes})
	}
	for _, env := range [][]string{
		{"PGAS_DIRECT=off"},
		{"PGAS_REQUIRE_REGISTRATION=on"},
		{"PGAS_DIRECT=off", "PGAS_REQUIRE_REGISTRATION=on"},
		{"PGAS_DIRECT=off", "PGAS_ACCESS=strict", "PGAS_ORDERING=relaxed"},
	} {
		variants = append(variants, variant{pes: 3, env: env})
	}
	// The same programs on the simulated Gemini give the same answers.
	variants = append(variants,
		variant{pes: 4, env: []string{"PGAS_CONDUIT=gemini", "PGAS_PES_PER_NODE=2"}},
		variant{pes: 5, env: []string{"PGAS_CONDUIT=gemini", "PGAS_PES_PER_NODE=2", "PGAS_ORDERING=relaxed", "PGAS_ACCESS=strict"}},
		variant{pes: 3, env: []string{"PGAS_CONDUIT=gemini", "PGAS_PES_PER_NODE=1", "PGAS_ORDERING=strict"}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range variants {
				env := append([]string{fmt.Sprintf("PGAS_PES=%d", v.pes)}, v.env...)
				t.Run(strings.Join(env, ","), func(t *testing.T) {
					t.Parallel()
					r := run(t, c.name, env, c.args...)
					if r.code != 0 || r.stderr != "" {
						t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
					}
					c.check(t, v.pes, r.stdout)
				})
			}
		})
	}
}

// TestBadArguments checks that an example refuses arguments it cannot
// work with: non-zero exit, one line on stderr saying why.
func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"ring", []string{"-laps", "0"}, "-laps 0: must be at least 1"},
		{"histogram", []string{"-bins", "0"}, "-bins 0: must be at least 1"},
		{"jacobi", []string{"-n", "3"}, "-n 3: the grid needs at least one point per PE (4 PEs)"},
		{"integrity", []string{"-factor", "1"}, "the step between block sizes, 1: must be at least 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, c.name, []string{"PGAS_PES=4"}, c.args...)
			ls := lines(r.stderr)
			if r.code == 0 || len(ls) != 1 || !strings.Contains(ls[0], c.want) {
				t.Fatalf("exit status %d, stderr:\n%s\nwant a non-zero exit and one line containing %q", r.code, r.stderr, c.want)
			}
		})
	}
}

// TestConfigErrors checks the configuration error path through real
// binaries: a bad PGAS_* value makes the program exit non-zero before it
// starts, with one line on stderr naming the variable, the value and the
// allowed range.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		variable, value string
		bound           string // the allowed range's upper end, which the message must state
	}{
		{"PGAS_NETWORKDEPTH", "0", "4096"},
		{"PGAS_NUM_PD", "abc", "16777216"},
		{"PGAS_BOUNCE_REGISTER_CUTOVER", "65536", "32KiB"},
	} {
		for _, name := range examples {
			t.Run(c.variable+"/"+name, func(t *testing.T) {
				t.Parallel()
				r := run(t, name, []string{"PGAS_PES=2", c.variable + "=" + c.value})
				if r.code == 0 {
					t.Fatalf("exit status 0 with %s=%s\nstdout:\n%s", c.variable, c.value, r.stdout)
				}
				if r.stdout != "" {
					t.Errorf("stdout is not empty:\n%s", r.stdout)
				}
				ls := lines(r.stderr)
				if len(ls) != 1 {
					t.Fatalf("stderr has %d lines, want 1:\n%s", len(ls), r.stderr)
				}
				for _, want := range []string{c.variable, c.value, "must", c.bound} {
					if !strings.Contains(ls[0], want) {
						t.Errorf("stderr line %q does not contain %q", ls[0], want)
					}
				}
			})
		}
	}
}
