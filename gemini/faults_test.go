package gemini

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/gemini/torus"
)

// The fail option with times: a fault with @time fails at that time of
// the run, one without from the start; bad times are errors naming the
// option and the item.
func TestParseTimedFaults(t *testing.T) {
	fs, err := parseFaults("0:x:+:0@20us;3:z:-:1:2@1.5ms;2:y:+:0;1:x:-:1@0s")
	require.NoError(t, err)
	assert.Equal(t, []linkFault{
		{gemini: 0, dim: torus.DimX, dir: torus.DirPlus, conn: 0, timed: true, at: 20 * us},
		{gemini: 3, dim: torus.DimZ, dir: torus.DirMinus, conn: 1, links: 2, timed: true, at: 1500 * us},
		{gemini: 2, dim: torus.DimY, dir: torus.DirPlus, conn: 0},
		{gemini: 1, dim: torus.DimX, dir: torus.DirMinus, conn: 1, timed: true},
	}, fs)
	assert.Equal(t, "0:x:+:0@20µs;3:z:-:1:2@1.5ms;2:y:+:0;1:x:-:1@0s", formatFaults(fs))
	for _, bad := range []string{"0:x:+:0@", "0:x:+:0@-5us", "0:x:+:0@20", "0:x:+:0@soon", "0:x:+:0@20us@30us", "0:x:+:0@1e9h", "-1:x:+:0", "0:x:+@20us"} {
		_, err := parseFaults(bad)
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), bad, "the error names the item")
		}
		_, err = parseOptions(map[string]string{"fail": bad})
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "option fail=", bad)
		}
	}
	for _, bad := range []string{"", "-1ms", "2s3", "x"} {
		_, err := parseOptions(map[string]string{"reroute_pause": bad})
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "option reroute_pause=", bad)
		}
	}
	o, err := parseOptions(map[string]string{"reroute_pause": "250us"})
	require.NoError(t, err)
	assert.Equal(t, 250*us, o.reroutePause)
	o, err = parseOptions(nil)
	require.NoError(t, err)
	assert.Equal(t, ReroutePause, o.reroutePause)
}

// FuzzParseFaults: the fail option never panics; what it accepts is in
// range, and formats back to a specification that parses to the same
// faults.
func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"0:x:+:0", "0:x:+:1:1", "0:x:+:0@20us", "5:y:-:0:4@1ms;1:z:+:1@0s", "0:x:+:0@", "0:x:+:0@-1us",
		"0:w:+:0", "0:x:+:0:5", "99:x:+:0;", "0:x:+:0@1.5us", "0:x:+:0@1h", "0:x:+:0@3µs", "+1:x:+:+0:+2@+4ns", ":::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := parseFaults(s)
		if err != nil {
			return
		}
		for _, x := range fs {
			if x.gemini < 0 || x.dim >= torus.DimCount || (x.dir != torus.DirPlus && x.dir != torus.DirMinus) || x.conn < 0 ||
				x.links < 0 || x.links > torus.LinksPerConnection || x.at < 0 || (!x.timed && x.at != 0) {
				t.Fatalf("%q: out of range: %+v", s, x)
			}
		}
		again, err := parseFaults(formatFaults(fs))
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", s, formatFaults(fs), err)
		}
		if !assert.Equal(t, fs, again) {
			t.Fatalf("%q formats as %q", s, formatFaults(fs))
		}
	})
}
