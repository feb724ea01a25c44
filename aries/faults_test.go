package aries

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fail option with times: a link with @time fails (or degrades) at
// that time of the run, one without from the start; bad times are errors
// naming the option and the item.
func TestParseTimedFaults(t *testing.T) {
	fs, err := parseFaults(" 12:3@50us; 7:0:2 @ 1ms ;3:31;0:1@0s")
	require.NoError(t, err)
	assert.Equal(t, []linkFault{
		{aries: 12, port: 3, timed: true, at: 50 * us},
		{aries: 7, port: 0, lanes: 2, timed: true, at: 1000 * us},
		{aries: 3, port: 31},
		{aries: 0, port: 1, timed: true},
	}, fs)
	assert.Equal(t, "12:3@50µs;7:0:2@1ms;3:31;0:1@0s", formatFaults(fs))
	for _, bad := range []string{"12:3@", "12:3@-50us", "12:3@50", "12:3@later", "12:3@1us@2us", "12:3@1e9h", "12@50us", "12:40@50us"} {
		_, err := parseFaults(bad)
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), bad, "the error names the link")
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
// links.
func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"0:0", "12:3@50us", "7:0:2", "7:0:2@1ms;3:31", " 3:31 ; 7:0:2;", "", ";;", "1:40", "1:2:3",
		"0:0@", "0:0@-1ns", "0:0@1.5us", "0:0@3µs", "+1:+2:+1@+4ns", "1: 2 :1 @ 5ms", "0:0@1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := parseFaults(s)
		if err != nil {
			return
		}
		for _, x := range fs {
			if x.aries < 0 || x.port < 0 || x.port >= NetworkPortsPerAries || x.lanes < 0 || x.lanes >= LanesPerLink ||
				x.at < 0 || (!x.timed && x.at != 0) {
				t.Fatalf("%q: out of range: %+v", s, x)
			}
		}
		again, err := parseFaults(formatFaults(fs))
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", s, formatFaults(fs), err)
		}
		if len(fs) == 0 {
			fs = nil
		}
		if !assert.Equal(t, fs, again) {
			t.Fatalf("%q formats as %q", s, formatFaults(fs))
		}
	})
}

// Bad fault specifications are errors naming the option and the value
// (network_test.go tries bad systems and faults outside them).
func TestNetworkBadOptions(t *testing.T) {
	for _, s := range []string{"1", "x:1", "1:40", "1:-1", "-1:3", "1:2:3", "1:2:0", "1:2:3:4", "1:a"} {
		_, err := parseFaults(s)
		assert.Error(t, err, s)
		if err != nil {
			assert.Contains(t, err.Error(), s, "the error names the bad link")
		}
		_, err = parseOptions(map[string]string{"fail": s})
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "fail")
		}
	}
	f, err := parseFaults(" 3:31 ; 7:0:2;")
	require.NoError(t, err)
	assert.Equal(t, []linkFault{{aries: 3, port: 31}, {aries: 7, port: 0, lanes: 2}}, f)
	f, err = parseFaults("")
	require.NoError(t, err)
	assert.Empty(t, f)

}
