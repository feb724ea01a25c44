package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/pgas"
)

// A real trace draws: a PNG of the asked width with a row per thread;
// an empty window or a bad one is an error.
func TestDrawsATrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.json")
	err := pgas.Run(pgas.Config{Conduit: "gemini", PEs: 2, PEsPerNode: 1, Options: map[string]string{"trace": trace}},
		func(pe *pgas.PE) error {
			buf, err := pe.Alloc(4096, 64)
			if err != nil {
				return err
			}
			if pe.Rank() == 0 {
				if err := pe.Put(1, buf, make([]byte, 4096)); err != nil {
					return err
				}
			}
			return pe.Barrier()
		})
	require.NoError(t, err)
	out := filepath.Join(dir, "t.png")
	require.NoError(t, run(trace, out, 0, 1e9, 6))
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	require.NoError(t, err)
	assert.Equal(t, 900, cfg.Width, "6 inches at 150 dpi")
	assert.Error(t, run(trace, out, 1e9, 2e9, 6), "an empty window")
	assert.Error(t, run(trace, out, 5, 1, 6), "a window backwards")
	assert.Error(t, run(filepath.Join(dir, "none.json"), out, 0, 1, 6))
}
