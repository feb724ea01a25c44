package gemini_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/pgas"
)

// optCase is a job's options and what its error must say.
type optCase struct {
	opts map[string]string
	want []string
}

// badValue is the option name given value, perhaps with other options
// (pairs of name and value) that make it meaningful; the error must name
// the option and the value as given, and say detail.
func badValue(name, value, detail string, others ...string) optCase {
	opts := map[string]string{name: value}
	for i := 0; i+1 < len(others); i += 2 {
		opts[others[i]] = others[i+1]
	}
	return optCase{opts, []string{"gemini: option " + name + "=" + strconv.Quote(value) + ": ", detail}}
}

// geminiBadOptions are bad values of every option, and the combinations
// the options forbid.
var geminiBadOptions = []optCase{
	badValue("torus", "0x0x0", `size "0" is not positive`),
	badValue("torus", "-2x2x2", `size "-2" is not a positive integer`),
	badValue("torus", "2x2x2x2", "4 sizes separated by x, not 3"),
	badValue("torus", "3x", "2 sizes"),
	badValue("torus", "4X2X4", "1 sizes"),
	badValue("torus", "65537x1x1", "more than 65536"),
	badValue("torus", "256x256x2", "more than 65536 in all"),
	badValue("torus", "", "empty (want 3 sizes as XxYxZ, each in [1, 65536], at most 65536 in all)"),
	badValue("cabinets", "-1", "out of range (want an integer in [1, 1365])"),
	badValue("cabinets", "0", "out of range"),
	badValue("cabinets", "1366", "out of range"),
	badValue("cabinets", "two", "not an integer"),
	badValue("rows", "-3", "out of range (want an integer in [1, 1365])", "cabinets", "2"),
	badValue("rows", "0", "out of range", "cabinets", "2"),
	badValue("rows", "1.5", "not an integer", "cabinets", "2"),
	badValue("mseries", "-1", "out of range (want an integer in [1, 6])"),
	badValue("mseries", "0", "out of range"),
	badValue("mseries", "7", "out of range"),
	badValue("mseries", "x", "not an integer"),
	badValue("mseries_y", "5", "(want 4, 8 or 12)", "mseries", "1"),
	badValue("mseries_y", "0", "(want 4, 8 or 12)", "mseries", "1"),
	badValue("y_open", "maybe", "not true or false"),
	badValue("y_open", "", "empty"),
	badValue("fail", "", "empty"),
	badValue("fail", "  ", "empty"),
	badValue("fail", "0:w:+:0", `dimension "w"`),
	badValue("fail", "0:x:+:0@", "no time after '@'"),
	badValue("fail", "0:x:+:0@-1us", "negative"),
	badValue("reroute_pause", "", "empty"),
	badValue("reroute_pause", "soon", "not a duration"),
	badValue("reroute_pause", "-1ms", "negative"),
	badValue("reroute_pause", "2s", "more than 1s"),
	badValue("routing", "sideways", "(want adaptive, deterministic or by-order)"),
	badValue("routing", "Adaptive", "not a value allowed"),
	badValue("hash_address", "2", "not true or false"),
	badValue("crc_error_rate", "NaN", "not a finite number (want a number in [0, 1))"),
	badValue("crc_error_rate", "Inf", "not a finite number"),
	badValue("crc_error_rate", "-Inf", "not a finite number"),
	badValue("crc_error_rate", "1", "out of range"),
	badValue("crc_error_rate", "1.5", "out of range"),
	badValue("crc_error_rate", "-0.1", "out of range"),
	badValue("crc_error_rate", "often", "not a number"),
	badValue("trace", "", "empty"),
	badValue("trace", "a\x00b", "contains a NUL byte"),
	badValue("hazards", "sometimes", "(want off, log or fail)"),
	badValue("workers", "-1", "out of range (want an integer in [0, 1024])"),
	badValue("workers", "x", "not an integer"),
	badValue("coarse_bytes", "-1", "not a size"),
	badValue("coarse_bytes", "2T", "out of range (want bytes in [0, 1TiB]"),
	badValue("coarse_bytes", "1.5K", "not a size"),
	badValue("coarse_packets", "0", "out of range (want an integer in [1, 65536])"),
	badValue("coarse_packets", "65537", "out of range"),
	{map[string]string{"torus": "4x2x4", "cabinets": "2"}, []string{`gemini: options cabinets="2" and torus="4x2x4": give at most one of cabinets, mseries, torus`}},
	{map[string]string{"torus": "4x2x4", "mseries": "2"}, []string{`options mseries="2" and torus="4x2x4": give at most one`}},
	{map[string]string{"cabinets": "2", "mseries": "2"}, []string{`options cabinets="2" and mseries="2": give at most one`}},
	{map[string]string{"rows": "2"}, []string{`gemini: option rows="2": only with cabinets`}},
	{map[string]string{"rows": "2", "torus": "4x2x4"}, []string{`option rows="2": only with cabinets`}},
	{map[string]string{"mseries_y": "8"}, []string{`option mseries_y="8": only with mseries`}},
	{map[string]string{"mseries": "2", "mseries_y": "8"}, []string{`options mseries="2" and mseries_y="8": mseries_y is for a one-cabinet m-series system (mseries=1) only`}},
	{map[string]string{"mseries": "1"}, []string{`option mseries="1": a one-cabinet m-series system needs mseries_y (4, 8 or 12)`}},
	{map[string]string{"nonsense": "1"}, []string{`gemini: unknown option "nonsense" (known: cabinets, coarse_bytes, coarse_packets, crc_error_rate, fail, hash_address, hazards, mseries, mseries_y, reroute_pause, routing, rows, torus, trace, workers, y_open)`}},
	{map[string]string{"torus": "4x2x4", " torus ": "4x2x4"}, []string{`option "torus" given twice`}},
	{map[string]string{"torus": "0x0x0", "crc_error_rate": "NaN", "mseries": "-1"},
		[]string{`gemini: option crc_error_rate="NaN": not a finite number (want a number in [0, 1)); option mseries="-1": out of range (want an integer in [1, 6]); option torus="0x0x0": `,
			`; options mseries="-1" and torus="0x0x0": give at most one of cabinets, mseries, torus`}},
}

// Every bad value of every option, and every forbidden combination, is an
// error naming the options and their values.
func TestOptionErrors(t *testing.T) {
	for _, c := range geminiBadOptions {
		err := pgas.Run(gem(2, 1, 0, c.opts), func(*pgas.PE) error { return nil })
		if !assert.Error(t, err, "%q", c.opts) {
			continue
		}
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w, "%q", c.opts)
		}
		assert.ErrorIs(t, err, pgas.ErrArgument, "%q", c.opts)
	}
	// Every option has a bad value above.
	tried := map[string]bool{}
	for _, c := range geminiBadOptions {
		for k := range c.opts {
			tried[strings.TrimSpace(k)] = true
		}
	}
	for name := range gemini.OptionNames {
		assert.True(t, tried[name], "no bad value of %s", name)
	}
}

// envOptions is a configuration whose backend options come from
// PGAS_OPTIONS=s.
func envOptions(conduit, s string, pes int) pgas.Config {
	return pgas.Config{Conduit: conduit, PEs: pes, PEsPerNode: 1, Env: func(name string) (string, bool) {
		if name == "PGAS_OPTIONS" {
			return s, true
		}
		return "", false
	}}
}

// The same errors through PGAS_OPTIONS, where items without '=' continue
// a value.
func TestOptionErrorsFromEnv(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"torus=0x0x0", `gemini: option torus="0x0x0": size "0" is not positive`},
		{"routing=adaptive, crc_error_rate=NaN", `gemini: option crc_error_rate="NaN": not a finite number`},
		{"cabinets=-1,rows=-3", `gemini: option cabinets="-1": out of range (want an integer in [1, 1365]); option rows="-3": out of range`},
		{"torus=4x2x4,cabinets=2", `gemini: options cabinets="2" and torus="4x2x4": give at most one`},
		{"fail=0:x:+:0,9", `gemini: option fail="0:x:+:0,9": fault "0:x:+:0,9": connection "0,9"`},
		{"mseries=-1", `gemini: option mseries="-1": out of range`},
		{"routing", `PGAS_OPTIONS="routing": item "routing" is not key=value`},
		{"routing=adaptive,routing=deterministic", `item "routing=deterministic": option routing given twice`},
	} {
		err := pgas.Run(envOptions("gemini", c.env, 2), func(*pgas.PE) error { return nil })
		if assert.Error(t, err, c.env) {
			assert.Contains(t, err.Error(), c.want, c.env)
		}
	}
}

// Good values still run, from the options map and from PGAS_OPTIONS.
func TestGoodOptions(t *testing.T) {
	for _, opts := range []map[string]string{
		{"torus": "4x2x4", "routing": "by-order", "coarse_bytes": "64K", "coarse_packets": "8"},
		{"torus": " 2 x 2 x 2 ", " y_open ": " true "},
		{"cabinets": "2", "rows": "1", "crc_error_rate": "0.01", "hazards": "log"},
		{"mseries": "1", "mseries_y": "8", "hash_address": "1"},
		{"mseries": "2", "fail": "0:z:+:0:1"},
	} {
		err := pgas.Run(gem(4, 1, 0, opts), func(pe *pgas.PE) error { return pe.Barrier() })
		assert.NoError(t, err, "%q", opts)
	}
	err := pgas.Run(envOptions("gemini", "torus=4x2x4, routing=adaptive,fail=0:x:+:0;0:x:+:1:2", 4), func(pe *pgas.PE) error { return pe.Barrier() })
	assert.NoError(t, err)
}

// The help of every option says what it allows.
func TestOptionNames(t *testing.T) {
	for name, text := range gemini.OptionNames {
		assert.Contains(t, text, "; allowed: ", name)
	}
	assert.Contains(t, gemini.OptionNames["rows"], "only with cabinets")
}
