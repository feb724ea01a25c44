package calibration

import (
	"fmt"
	"slices"
	"strings"
)

// registry holds every row, by backend: the tables of gemini.go and
// aries.go.
var registry = map[string][]*Row{gem: geminiRows, ari: ariesRows}

// Backends lists the backends with rows, in the sheet's order (Gemini,
// then Aries, the machines' order).
func Backends() []string {
	bs := make([]string, 0, len(sheetTitles))
	for _, s := range sheetTitles {
		bs = append(bs, s.backend)
	}
	return bs
}

// Rows returns the rows of a backend in sheet order.
func Rows(backend string) []*Row { return slices.Clone(registry[backend]) }

// Lookup finds a row by ID (case-insensitive).
func Lookup(id string) (*Row, bool) {
	for _, rows := range registry {
		for _, r := range rows {
			if strings.EqualFold(r.ID, id) {
				return r, true
			}
		}
	}
	return nil, false
}

// Select returns the rows of a backend whose IDs match any of patterns (a
// pattern ending in '*' matches a prefix; none means all), or an error
// naming a pattern that matches nothing.
func Select(backend string, patterns []string) ([]*Row, error) {
	rows := Rows(backend)
	if len(rows) == 0 {
		return nil, fmt.Errorf("calibration: no rows for backend %q (have: %s)", backend, strings.Join(Backends(), ", "))
	}
	if len(patterns) == 0 {
		return rows, nil
	}
	var out []*Row
	for _, p := range patterns {
		found := false
		for _, r := range rows {
			if match(p, r.ID) && !slices.Contains(out, r) {
				out = append(out, r)
				found = true
			} else if match(p, r.ID) {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("calibration: no %s row matches %q", backend, p)
		}
	}
	return out, nil
}

func match(pattern, id string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return len(id) >= len(prefix) && strings.EqualFold(id[:len(prefix)], prefix)
	}
	return strings.EqualFold(pattern, id)
}
