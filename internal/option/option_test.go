package option

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/errs"
)

// testOpts is a backend's options struct with one option of every kind.
type testOpts struct {
	n, each  int
	on       bool
	rate     float64
	mode     string
	size     int64
	page     int
	dims     []int
	nodes    []int
	path     string
	custom   [2]int
	a, b, c  int
	sub      int
	optional string
}

func testTable() *Table[testOpts] {
	return New("test",
		Int("n", "a count", 1, 6, func(o *testOpts, n int) { o.n = n }),
		IntOf("each", "one of three", []int{4, 8, 12}, func(o *testOpts, n int) { o.each = n }),
		Bool("on", "a switch", func(o *testOpts, b bool) { o.on = b }),
		Float("rate", "a probability", 0, 1, func(o *testOpts, f float64) { o.rate = f }),
		Enum("mode", "a mode", []string{"off", "log", "fail"}, []string{"off", "log", "fail"}, func(o *testOpts, s string) { o.mode = s }),
		Bytes("size", "a size", int64(0), int64(1<<40), func(o *testOpts, n int64) { o.size = n }),
		BytesOf("page", "a page", []int{4096, 2 << 20}, func(o *testOpts, n int) { o.page = n }),
		Dims("dims", "a torus", 3, 100, 1000, func(o *testOpts, d []int) { o.dims = d }),
		NodeList("nodes", "some nodes", 99, func(o *testOpts, l []int) { o.nodes = l }),
		String("path", "a file", 16, func(o *testOpts, s string) { o.path = s }),
		Custom("custom", "a pair", "A:B", parsePair, formatPair, func(o *testOpts, p [2]int) { o.custom = p }),
		Custom("noformat", "a pair without a text form", "A:B", parsePair, nil, func(o *testOpts, p [2]int) { o.custom = p }),
		Int("a", "one system", 1, 9, func(o *testOpts, n int) { o.a = n }),
		Int("b", "another", 1, 9, func(o *testOpts, n int) { o.b = n }),
		Int("c", "a third", 1, 9, func(o *testOpts, n int) { o.c = n }),
		Int("sub", "refines a or b", 1, 9, func(o *testOpts, n int) { o.sub = n }),
		String("optional", "may be empty", 8, func(o *testOpts, s string) { o.optional = s }).AllowEmpty(),
	).AtMostOne("c", "a", "b").Requires("sub", "a", "b")
}

func parsePair(s string) ([2]int, error) {
	a, b, ok := strings.Cut(s, ":")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return [2]int{}, errors.New("not A:B")
	}
	return [2]int{x, y}, nil
}

func formatPair(p [2]int) string { return strconv.Itoa(p[0]) + ":" + strconv.Itoa(p[1]) }

// Good values of every kind, with the whitespace around names and values
// dropped, land in the struct.
func TestParseGood(t *testing.T) {
	var o testOpts
	err := testTable().Parse(&o, map[string]string{
		" n ": " 6", "each": "12", "on": "T", "rate": "0.25", "mode": "log", "size": "4K", "page": " 2M ",
		"dims": "4x 2 x4", "nodes": "9, 3,7-8,3 ,0-1", "path": " a b ", "custom": "3:-4", "b": "2", "sub": "1", "optional": " ",
	})
	require.NoError(t, err)
	assert.Equal(t, testOpts{n: 6, each: 12, on: true, rate: 0.25, mode: "log", size: 4096, page: 2 << 20,
		dims: []int{4, 2, 4}, nodes: []int{0, 1, 3, 7, 8, 9}, path: "a b", custom: [2]int{3, -4}, b: 2, sub: 1}, o)
}

// Every bad value is an error naming the backend, the option, the value
// as given, and what the option allows.
func TestParseBad(t *testing.T) {
	for _, c := range []struct {
		name, value, want string
	}{
		{"n", "0", "out of range (want an integer in [1, 6])"},
		{"n", "7", "out of range"},
		{"n", "-1", "out of range"},
		{"n", "99999999999999999999", "out of range"},
		{"n", "2.0", "not an integer"},
		{"n", "", "empty (want an integer in [1, 6])"},
		{"n", "   ", "empty"},
		{"each", "5", "want 4, 8 or 12"},
		{"each", "x", "not an integer"},
		{"on", "maybe", "not true or false (want true or false)"},
		{"rate", "NaN", "not a finite number (want a number in [0, 1))"},
		{"rate", "nan", "not a finite number"},
		{"rate", "Inf", "not a finite number"},
		{"rate", "-Inf", "not a finite number"},
		{"rate", "+infinity", "not a finite number"},
		{"rate", "1e400", "not a finite number"},
		{"rate", "1", "out of range"},
		{"rate", "-0.5", "out of range"},
		{"rate", "half", "not a number"},
		{"mode", "Log", "want off, log or fail"},
		{"mode", "sometimes", "not a value allowed"},
		{"size", "-1", "not a size (want bytes in [0, 1TiB]"},
		{"size", "2T", "out of range"},
		{"size", "4194305T", "out of range"},
		{"size", "1.5M", "not a size"},
		{"page", "8K", "out of range (want 4KiB or 2MiB)"},
		{"dims", "0x0x0", `size "0" is not positive`},
		{"dims", "-2x2x2", `size "-2" is not a positive integer`},
		{"dims", "2x2x2x2", "4 sizes separated by x, not 3"},
		{"dims", "2x2", "2 sizes"},
		{"dims", "2x2x", `size "" is not a positive integer`},
		{"dims", "4X2X4", "1 sizes"},
		{"dims", "101x1x1", `size "101" is more than 100`},
		{"dims", "99999999999999999999x1x1", "more than 100"},
		{"dims", "20x20x3", "more than 1000 in all"},
		{"dims", "+2x2x2", "not a positive integer"},
		{"nodes", "1,,2", "empty item"},
		{"nodes", "1,", "empty item"},
		{"nodes", "9-7", `item "9-7": reversed range`},
		{"nodes", "-3", `item "-3" is not a node`},
		{"nodes", "3-", `item "3-" is not a node`},
		{"nodes", "1--3", "not a node"},
		{"nodes", "100", "node 100 is more than 99"},
		{"nodes", "0-99999999999999999999", "is more than 99"},
		{"nodes", "x", "not a node"},
		{"path", "", "empty"},
		{"path", "a\x00b", "contains a NUL byte"},
		{"path", strings.Repeat("p", 17), "too long"},
		{"custom", "3", "not A:B (want A:B)"},
		{"optional", "123456789", "too long"},
	} {
		var o testOpts
		err := testTable().Parse(&o, map[string]string{c.name: c.value})
		if assert.Error(t, err, "%s=%q", c.name, c.value) {
			assert.Contains(t, err.Error(), "test: option "+c.name+"="+strconv.Quote(c.value)+": ", "%s=%q", c.name, c.value)
			assert.Contains(t, err.Error(), c.want, "%s=%q", c.name, c.value)
			assert.ErrorIs(t, err, errs.Argument)
		}
		assert.Equal(t, testOpts{}, o, "%s=%q: an error leaves the options as they were", c.name, c.value)
	}
}

// Several problems are all reported, in the order of the options' names,
// then the rules'.
func TestParseSeveral(t *testing.T) {
	tab := testTable()
	opts := map[string]string{"rate": "NaN", "dims": "0x0x0", "zzz": "1", "n": "9", "a": "1", "c": "2", "sub": "3"}
	var first string
	for i := range 20 {
		var o testOpts
		err := tab.Parse(&o, opts)
		require.Error(t, err)
		if i == 0 {
			first = err.Error()
		}
		require.Equal(t, first, err.Error(), "the same order every time")
	}
	var e *Error
	require.ErrorAs(t, tab.Parse(new(testOpts), opts), &e)
	var got [][]string
	for _, p := range e.Problems {
		got = append(got, p.Options)
	}
	assert.Equal(t, [][]string{{"dims"}, {"n"}, {"rate"}, {"zzz"}, {"a", "c"}}, got)
	assert.True(t, strings.HasPrefix(first, `test: option dims="0x0x0": `), first)
	assert.Contains(t, first, `; option n="9": `)
	assert.Contains(t, first, `; options a="1" and c="2": give at most one of a, b, c`)
	assert.Contains(t, first, `unknown option "zzz" (known: a, b, c, custom, dims, each, mode, n, nodes, noformat, on, optional, page, path, rate, size, sub)`)
}

// The rules: at most one of a, b, c; sub only with a or b.
func TestRules(t *testing.T) {
	tab := testTable()
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"a": "1", "b": "2", "c": "3"}, `options a="1", b="2" and c="3": give at most one of a, b, c`},
		{map[string]string{"b": "2", "c": "3"}, `options b="2" and c="3": give at most one of a, b, c`},
		{map[string]string{"sub": "2"}, `option sub="2": only with a or b`},
		{map[string]string{"sub": "2", "c": "1"}, `option sub="2": only with a or b`},
	} {
		err := tab.Parse(new(testOpts), c.opts)
		if assert.Error(t, err, "%v", c.opts) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
	for _, good := range []map[string]string{{"a": "1"}, {"c": "1"}, {"sub": "1", "a": "1"}, {"sub": "1", "b": "1"}, {}} {
		assert.NoError(t, tab.Parse(new(testOpts), good), "%v", good)
	}
}

// Names that differ only by surrounding whitespace are one option given
// twice.
func TestGivenTwice(t *testing.T) {
	err := testTable().Parse(new(testOpts), map[string]string{"n": "1", " n": "2"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `option "n" given twice, as " n" and "n"`)
}

// An option that allows an empty value reads it; the others do not.
func TestAllowEmpty(t *testing.T) {
	o := testOpts{optional: "x"}
	require.NoError(t, testTable().Parse(&o, map[string]string{"optional": ""}))
	assert.Equal(t, "", o.optional)
}

// The help: each option's text, what it allows, and its rules.
func TestNames(t *testing.T) {
	names := testTable().Names()
	assert.Equal(t, "a count; allowed: an integer in [1, 6]", names["n"])
	assert.Equal(t, "one system; allowed: an integer in [1, 9]; at most one of a, b, c", names["a"])
	assert.Equal(t, "refines a or b; allowed: an integer in [1, 9]; only with a or b", names["sub"])
	assert.Equal(t, "a torus; allowed: 3 sizes as XxYxZ, each in [1, 100], at most 1000 in all", names["dims"])
	assert.Len(t, names, 17)
}

// Declaring an option twice, or a rule on an undeclared one, is a mistake
// in the program.
func TestDeclarationMistakes(t *testing.T) {
	one := Int("n", "", 1, 2, func(*testOpts, int) {})
	assert.Panics(t, func() { New("test", one, one) })
	assert.Panics(t, func() { New("test", one).AtMostOne("n", "m") })
	assert.Panics(t, func() { New("test", one).Requires("m", "n") })
	assert.Panics(t, func() { New("test", Option[testOpts]{}) })
	assert.Panics(t, func() { Enum("e", "", []string{"a"}, []int{1, 2}, func(*testOpts, int) {}) })
}

// Lift moves an option of a part of the options into the whole.
func TestLift(t *testing.T) {
	type whole struct {
		x    int
		part testOpts
	}
	n, _ := testTable().Option("n")
	tab := New("whole", Lift(n, func(w *whole) *testOpts { return &w.part }))
	w := whole{x: 7}
	require.NoError(t, tab.Parse(&w, map[string]string{"n": "3"}))
	assert.Equal(t, 3, w.part.n)
	assert.Equal(t, 7, w.x, "the rest of the whole is untouched")
	assert.Equal(t, []string{"n"}, tab.Known())
}

// Format writes what Parse reads back as the same value, except where the
// option has no text form.
func TestFormat(t *testing.T) {
	tab := testTable()
	for name, in := range map[string]string{"n": " 05", "each": "8", "on": "T", "rate": "2.5e-1", "mode": "fail", "size": "1048576",
		"page": "4096", "dims": "4 x2x04", "nodes": "9,3,7-8,4", "path": "x", "custom": "+1:2"} {
		o, _ := tab.Option(name)
		v, err := o.Parse(in)
		require.NoError(t, err, name)
		s, ok := o.Format(v)
		require.True(t, ok, name)
		again, err := o.Parse(s)
		require.NoError(t, err, "%s: %q", name, s)
		assert.Equal(t, v, again, name)
		assert.NoError(t, o.Check(v))
	}
	o, _ := tab.Option("nodes")
	v, _ := o.Parse("9,3,7-8,4")
	s, _ := o.Format(v)
	assert.Equal(t, "3-4,7-9", s)
	o, _ = tab.Option("size")
	v, _ = o.Parse("1048576")
	s, _ = o.Format(v)
	assert.Equal(t, "1MiB", s)
	o, _ = tab.Option("noformat")
	v, err := o.Parse("1:2")
	require.NoError(t, err)
	_, ok := o.Format(v)
	assert.False(t, ok)
}

// Check holds values to the declared ranges on its own.
func TestCheck(t *testing.T) {
	tab := testTable()
	for name, v := range map[string]any{"n": 7, "each": 5, "rate": 1.0, "mode": "x", "size": int64(-1), "page": 8192,
		"dims": []int{1, 2}, "nodes": []int{3, 3}, "path": "a\x00"} {
		o, _ := tab.Option(name)
		assert.Error(t, o.Check(v), name)
	}
	o, _ := tab.Option("nodes")
	assert.Error(t, o.Check([]int{}))
	assert.Error(t, o.Check([]int{100}))
	o, _ = tab.Option("dims")
	assert.Error(t, o.Check([]int{10, 10, 11}))
	assert.NoError(t, o.Check([]int{10, 10, 10}))
}
