package pgas_test

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/internal/units"
	"github.com/gopgas/gopgas/pgas"
)

// boundsRE reads the range out of a setting's Allowed text: "an integer in
// [1, 4096]" or "bytes in [64KiB, 1GiB] ...".
var boundsRE = regexp.MustCompile(`in \[([0-9A-Za-z]+), ([0-9A-Za-z]+)\]`)

// FuzzSettings: whatever a PGAS_* variable says, resolving the
// configuration does not panic; a value accepted is in the range the
// setting documents, and its text (Setting.Text) reads back as the same
// value.
func FuzzSettings(f *testing.F) {
	settings := pgas.Settings()
	for i, s := range settings {
		for _, v := range []string{s.Default, "0", "1", "-1", "4K", "2KiB", "64M", "off", "on", "strict", "relaxed",
			"10s", "1h", "200us", "nan", "1e9", "9999999999999999999", " 7 ", "smp", "gemini", "routing=adaptive", "exclude=3,7-9,routing=deterministic", ""} {
			f.Add(uint8(i), v)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		s := settings[int(which)%len(settings)]
		if s.Env == "PGAS_PES" || s.Env == "PGAS_PES_PER_NODE" {
			return // they depend on each other and on the backend: TestConfig*
		}
		env := map[string]string{s.Env: value}
		c, err := pgas.Config{PEs: 1, Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}.Resolve()
		if err != nil {
			return
		}
		field := reflect.ValueOf(c).FieldByName(s.Field)
		if m := boundsRE.FindStringSubmatch(s.Allowed); m != nil && value != "" {
			lo, hi := bound(t, m[1]), bound(t, m[2])
			var v int64
			switch field.Kind() {
			case reflect.Int, reflect.Int64:
				v = field.Int()
			default:
				t.Fatalf("%s: a range for a %v", s.Env, field.Kind())
			}
			off := v < 0 && strings.HasSuffix(s.Allowed, "or off")
			if !off && (v < lo || v > hi) {
				t.Fatalf("%s=%q gave %d, outside [%d, %d]", s.Env, value, v, lo, hi)
			}
		}
		text := s.Text(c)
		env[s.Env] = text
		back, err := pgas.Config{PEs: 1, Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}.Resolve()
		if err != nil {
			t.Fatalf("%s=%q gave %v, written %q, which is refused: %v", s.Env, value, field.Interface(), text, err)
		}
		got := reflect.ValueOf(back).FieldByName(s.Field)
		if field.Kind() == reflect.Map && field.Len() == 0 && got.Len() == 0 {
			return // no options, nil or empty
		}
		if !reflect.DeepEqual(got.Interface(), field.Interface()) {
			t.Fatalf("%s=%q gave %v; its text %q gives %v", s.Env, value, field.Interface(), text, got.Interface())
		}
	})
}

// bound reads one end of a documented range: an integer or a size.
func bound(t *testing.T, s string) int64 {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	n, err := units.ParseBytes(s)
	if err != nil {
		t.Fatalf("bound %q: %v", s, err)
	}
	return n
}
