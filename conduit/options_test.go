package conduit_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

// An item without '=' continues the previous value; keys and values are
// trimmed.
func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
	}{
		{"", map[string]string{}},
		{"  ", map[string]string{}},
		{"routing=adaptive", map[string]string{"routing": "adaptive"}},
		{"exclude=3,7-9,routing=adaptive", map[string]string{"exclude": "3,7-9", "routing": "adaptive"}},
		{"routing=adaptive, hazards=log", map[string]string{"routing": "adaptive", "hazards": "log"}},
		{" exclude = 3 , 7-9 ", map[string]string{"exclude": "3 , 7-9"}},
		{"trace=a=b,c", map[string]string{"trace": "a=b,c"}},
		{"a=,b=", map[string]string{"a": "", "b": ""}},
		{"a=1,,2", map[string]string{"a": "1,,2"}},
		{"a=1,", map[string]string{"a": "1,"}},
		{"fail=0:x:+:0;1:y:-:0,torus=4x2x4", map[string]string{"fail": "0:x:+:0;1:y:-:0", "torus": "4x2x4"}},
	} {
		got, err := conduit.ParseOptions(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

// A leading item without '=', an empty key and a key given twice are
// errors naming the item.
func TestParseOptionsBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"routing", `item "routing" is not key=value`},
		{"3,exclude=4", `item "3" is not key=value`},
		{",a=1", `item "" is not key=value`},
		{"=adaptive", `item "=adaptive" has no key`},
		{"a=1, =2", `item " =2" has no key`},
		{"a=1,a=2", `item "a=2": option a given twice`},
		{"a=1, a =2", `item " a =2": option a given twice`},
	} {
		m, err := conduit.ParseOptions(c.in)
		if assert.Error(t, err, c.in) {
			assert.Contains(t, err.Error(), c.want, c.in)
		}
		assert.Nil(t, m, c.in)
	}
}

func TestFormatOptions(t *testing.T) {
	s, err := conduit.FormatOptions(map[string]string{"routing": "adaptive", "exclude": "3,7-9", "trace": "a=b"})
	require.NoError(t, err)
	assert.Equal(t, "exclude=3,7-9,routing=adaptive,trace=a=b", s)
	for _, bad := range []map[string]string{{"": "1"}, {" a": "1"}, {"a,b": "1"}, {"a=b": "1"}, {"a": " 1"}, {"a": "1,b=2"}} {
		_, err := conduit.FormatOptions(bad)
		assert.Error(t, err, "%q", bad)
	}
	s, err = conduit.FormatOptions(nil)
	require.NoError(t, err)
	assert.Equal(t, "", s)
}

// FuzzParseOptions: whatever the text, ParseOptions does not panic; what
// it accepts has trimmed, non-empty keys without ',' or '=' and trimmed
// values, each key's value is in the text, and FormatOptions writes it back
// as text that parses to the same options.
func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{"", "routing=adaptive", "exclude=3,7-9,routing=adaptive", "routing", "=x", "a=1,a=2", " a = 1 , b= 2,3 ",
		"a=b=c,d", ",", "a=,", "a=1,,=2", "trace=/tmp/x,y=z", "k=\t,\n", "a=1, a=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := conduit.ParseOptions(s)
		if err != nil {
			if m != nil {
				t.Fatalf("%q: error %v with options %q", s, err, m)
			}
			return
		}
		for k, v := range m {
			if k == "" || k != strings.TrimSpace(k) || strings.ContainsAny(k, ",=") || v != strings.TrimSpace(v) {
				t.Fatalf("%q: option %q=%q", s, k, v)
			}
			if !strings.Contains(s, k) || !strings.Contains(s, v) {
				t.Fatalf("%q: option %q=%q is not in the text", s, k, v)
			}
		}
		text, err := conduit.FormatOptions(m)
		if err != nil {
			t.Fatalf("%q: options %q cannot be written: %v", s, m, err)
		}
		again, err := conduit.ParseOptions(text)
		if err != nil || !maps.Equal(m, again) {
			t.Fatalf("%q: options %q written %q parse to %q, %v", s, m, text, again, err)
		}
	})
}
