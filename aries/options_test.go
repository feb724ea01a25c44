package aries_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/pgas"
)

// optCase is a job's options and what its error must say.
type optCase struct {
	opts map[string]string
	want []string
}

// badValue is the option name given value, perhaps with other options
// (pairs of name and value); the error must name the option and the value
// as given, and say detail.
func badValue(name, value, detail string, others ...string) optCase {
	opts := map[string]string{name: value}
	for i := 0; i+1 < len(others); i += 2 {
		opts[others[i]] = others[i+1]
	}
	return optCase{opts, []string{"aries: option " + name + "=" + strconv.Quote(value) + ": ", detail}}
}

// ariesBadOptions are bad values of every option, and the combinations
// the options forbid.
var ariesBadOptions = []optCase{
	badValue("groups", "0", "out of range (want an integer in [1, 241])"),
	badValue("groups", "-1", "out of range"),
	badValue("groups", "242", "out of range"),
	badValue("groups", "x", "not an integer"),
	badValue("groups", "", "empty"),
	badValue("chassis", "0", "out of range (want an integer in [1, 1446])"),
	badValue("chassis", "1447", "out of range"),
	badValue("cabinets", "0", "out of range (want an integer in [1, 482])"),
	badValue("cabinets", "483", "out of range"),
	badValue("bundle", "0", "out of range (want an integer in [1, 240])"),
	badValue("bundle", "241", "out of range"),
	badValue("bias", "1048577", "out of range (want an integer in [-1048576, 1048576])"),
	badValue("bias", "-1048577", "out of range"),
	badValue("bias", "99999999999999999999", "out of range"),
	badValue("bias", "1.5", "not an integer"),
	badValue("valiant", "yes", "not true or false"),
	badValue("progressive", "2", "not true or false"),
	badValue("ce", "on", "not true or false"),
	badValue("fail", "", "empty (want aries:port[:lanes][@time] separated by ';' (port 0 to 39, lanes 1 to 2))"),
	badValue("fail", "0:1@later", "not a duration"),
	badValue("reroute_pause", "", "empty"),
	badValue("reroute_pause", "1", "not a duration"),
	badValue("reroute_pause", "-5us", "negative"),
	badValue("reroute_pause", "1h", "more than 1s"),
	badValue("fail", " ", "empty"),
	badValue("fail", ";", "no link"),
	badValue("fail", " ; ; ", "no link"),
	badValue("fail", "0:40", `port "40" is not 0 to 39`),
	badValue("page_bytes", "8192", "out of range (want 4KiB or 2MiB)"),
	badValue("page_bytes", "4097", "out of range"),
	badValue("page_bytes", "-4096", "not a size"),
	badValue("page_bytes", "huge", "not a size"),
	badValue("exclude", "", "empty"),
	badValue("exclude", "1,,2", "empty item"),
	badValue("exclude", "1,", "empty item"),
	badValue("exclude", "5-2", `item "5-2": reversed range`),
	badValue("exclude", "-3", `item "-3" is not a node or a range of nodes`),
	badValue("exclude", "3-", `item "3-" is not a node`),
	badValue("exclude", "92544", "node 92544 is more than 92543"),
	badValue("exclude", "0-99999999999999999999", "is more than 92543"),
	badValue("exclude", "x", "not a node"),
	badValue("routing", "sideways", "(want adaptive, deterministic or by-order)"),
	badValue("hash_address", "2", "not true or false"),
	badValue("crc_error_rate", "NaN", "not a finite number (want a number in [0, 1))"),
	badValue("crc_error_rate", "+Inf", "not a finite number"),
	badValue("crc_error_rate", "1", "out of range"),
	badValue("crc_error_rate", "-1e-9", "out of range"),
	badValue("trace", "", "empty"),
	badValue("trace", "a\x00b", "contains a NUL byte"),
	badValue("hazards", "", "empty"),
	badValue("hazards", "Log", "(want off, log or fail)"),
	badValue("workers", "-1", "out of range (want an integer in [0, 1024])"),
	badValue("workers", "1025", "out of range"),
	badValue("coarse_bytes", "-1", "not a size"),
	badValue("coarse_bytes", "1025G", "out of range (want bytes in [0, 1TiB]"),
	badValue("coarse_packets", "0", "out of range (want an integer in [1, 65536])"),
	badValue("coarse_packets", "1e3", "not an integer"),
	{map[string]string{"groups": "2", "chassis": "6"}, []string{`aries: options chassis="6" and groups="2": give at most one of cabinets, chassis, groups`}},
	{map[string]string{"groups": "2", "cabinets": "4"}, []string{`options cabinets="4" and groups="2": give at most one`}},
	{map[string]string{"chassis": "6", "cabinets": "2"}, []string{`options cabinets="2" and chassis="6": give at most one`}},
	{map[string]string{"groups": "2", "chassis": "6", "cabinets": "4"}, []string{`options cabinets="4", chassis="6" and groups="2": give at most one`}},
	{map[string]string{"torus": "4x2x4"}, []string{`aries: unknown option "torus" (known: bias, bundle, cabinets, ce, chassis, coarse_bytes, coarse_packets, crc_error_rate, exclude, fail, groups, hash_address, hazards, page_bytes, progressive, reroute_pause, routing, trace, valiant, workers)`}},
	{map[string]string{"groups": "1", "groups ": "1"}, []string{`option "groups" given twice`}},
	{map[string]string{"exclude": "9-7", "crc_error_rate": "NaN", "bias": "x"},
		[]string{`aries: option bias="x": not an integer (want an integer in [-1048576, 1048576]); option crc_error_rate="NaN": `, `; option exclude="9-7": item "9-7": reversed range`}},
}

// Every bad value of every option, and every forbidden combination, is an
// error naming the options and their values.
func TestOptionErrors(t *testing.T) {
	for _, c := range ariesBadOptions {
		err := pgas.Run(pgas.Config{Conduit: "aries", PEs: 2, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Options: c.opts},
			func(*pgas.PE) error { return nil })
		if !assert.Error(t, err, "%q", c.opts) {
			continue
		}
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w, "%q", c.opts)
		}
		assert.ErrorIs(t, err, pgas.ErrArgument, "%q", c.opts)
	}
	tried := map[string]bool{}
	for _, c := range ariesBadOptions {
		for k := range c.opts {
			tried[strings.TrimSpace(k)] = true
		}
	}
	for name := range aries.OptionNames {
		assert.True(t, tried[name], "no bad value of %s", name)
	}
}

// envOptions is a configuration whose backend options come from
// PGAS_OPTIONS=s.
func envOptions(s string, pes int) pgas.Config {
	return pgas.Config{Conduit: "aries", PEs: pes, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Env: func(name string) (string, bool) {
		if name == "PGAS_OPTIONS" {
			return s, true
		}
		return "", false
	}}
}

// The same errors through PGAS_OPTIONS, where items without '=' continue
// a value.
func TestOptionErrorsFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		pes  int
		want string
	}{
		{"exclude=3,9-7,routing=adaptive", 2, `aries: option exclude="3,9-7": item "9-7": reversed range`},
		{"exclude=3,,4", 2, `aries: option exclude="3,,4": empty item`},
		{"crc_error_rate=NaN", 2, `aries: option crc_error_rate="NaN": not a finite number`},
		{"fail=,routing=adaptive", 2, `aries: option fail="": empty`},
		{"groups=1,chassis=2", 2, `aries: options chassis="2" and groups="1": give at most one`},
		// The whole list, not its first item: 7 nodes around the 58
		// excluded do not fit one chassis of 64.
		{"chassis=1,exclude=3,7-9,10-63", 7, "the job's 7 nodes around 58 excluded ones need 65"},
		{"exclude", 2, `PGAS_OPTIONS="exclude": item "exclude" is not key=value`},
	} {
		err := pgas.Run(envOptions(c.env, c.pes), func(*pgas.PE) error { return nil })
		if assert.Error(t, err, c.env) {
			assert.Contains(t, err.Error(), c.want, c.env)
		}
	}
}

// Good values still run: a list through PGAS_OPTIONS and the options map,
// and values with whitespace and units.
func TestGoodOptions(t *testing.T) {
	work := func(pe *pgas.PE) error {
		a, err := pgas.NewArray[byte](pe, 8)
		if err != nil {
			return err
		}
		if err := a.Put((pe.Rank()+1)%pe.Size(), 0, []byte{byte(pe.Rank())}); err != nil {
			return err
		}
		return pe.Barrier()
	}
	require.NoError(t, pgas.Run(envOptions("exclude=3,7-9,routing=adaptive", 8), work))
	require.NoError(t, pgas.Run(envOptions("chassis=1, exclude=3,7-9,10-63 ,valiant=true", 6), work))
	for _, opts := range []map[string]string{
		{"exclude": " 3, 7-9 ", "page_bytes": "4K", "bias": "-4"},
		{" groups ": " 2 ", "bundle": "4", "progressive": "false", "ce": "false"},
		{"cabinets": "1", "coarse_bytes": "1M", "coarse_packets": "4", "crc_error_rate": "0.001"},
		{"fail": "0:1;1:2:1", "routing": "adaptive", "page_bytes": "2MiB"},
	} {
		err := pgas.Run(pgas.Config{Conduit: "aries", PEs: 4, PEsPerNode: 1, SegmentBytes: pgas.MinSegmentBytes, Options: opts}, work)
		assert.NoError(t, err, "%q", opts)
	}
}

// The help of every option says what it allows.
func TestOptionNames(t *testing.T) {
	for name, text := range aries.OptionNames {
		assert.Contains(t, text, "; allowed: ", name)
	}
	assert.Contains(t, aries.OptionNames["groups"], "at most one of cabinets, chassis, groups")
}
