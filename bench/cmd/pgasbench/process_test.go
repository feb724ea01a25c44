package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
