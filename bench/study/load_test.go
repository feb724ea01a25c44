package study

import (
	"bytes"
	"strings"
	"testing"
)

// A record read back writes the same record, and draws the same figures.
func TestReadJSONRoundTrip(t *testing.T) {
	for name, r := range map[string]*Results{"synthetic": synthetic(), "put and one-sided": putAndOneSided()} {
		var first bytes.Buffer
		if err := r.WriteJSON(&first); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var second bytes.Buffer
		if err := back.WriteJSON(&second); err != nil {
			t.Fatal(err)
		}
		if first.String() != second.String() {
			t.Errorf("%s: the record read back writes\n%s\nwant\n%s", name, second.String(), first.String())
		}
		if got, want := len(back.Figures()), len(r.Figures()); got != want || want == 0 {
			t.Errorf("%s: %d figures read back, %d written", name, got, want)
		}
	}
}

func TestReadJSONRejects(t *testing.T) {
	for _, bad := range []string{
		``,
		`{"schema":"gopgas.bench.v1"}`,
		`{"schema":"` + Schema + `","op":"swap"}`,
		`{"schema":"` + Schema + `","op":"get","setup":{"orderings":["sloppy"]}}`,
		`{"schema":"` + Schema + `","op":"get","size_sweep":[{"ordering":"strict","mechanism":"warp"}]}`,
	} {
		if _, err := ReadJSON(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadJSON(%q) succeeded", bad)
		}
	}
}
