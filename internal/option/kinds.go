package option

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/internal/units"
)

// The kinds' constructors. Each takes the option's name, its help text,
// the kind's range, and set, which stores a parsed value in a T.

// Int is an integer in [lo, hi], written in decimal with an optional sign.
func Int[T any](name, help string, lo, hi int, set func(*T, int)) Option[T] {
	allowed := fmt.Sprintf("an integer in [%d, %d]", lo, hi)
	check := func(v any) error {
		if n := v.(int); n < lo || n > hi {
			return fmt.Errorf("%d is not in [%d, %d]", n, lo, hi)
		}
		return nil
	}
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(int)) }, k: kind{
		parse: func(s string) (any, error) {
			n, err := strconv.Atoi(s)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return nil, errors.New("out of range")
				}
				return nil, errors.New("not an integer")
			}
			if n < lo || n > hi {
				return nil, errors.New("out of range")
			}
			return n, nil
		},
		format:  func(v any) string { return strconv.Itoa(v.(int)) },
		check:   check,
		allowed: allowed,
	}}
}

// IntOf is an integer that is one of values.
func IntOf[T any](name, help string, values []int, set func(*T, int)) Option[T] {
	values = slices.Clone(values)
	texts := make([]string, len(values))
	for i, v := range values {
		texts[i] = strconv.Itoa(v)
	}
	allowed := orList(texts)
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(int)) }, k: kind{
		parse: func(s string) (any, error) {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, errors.New("not an integer")
			}
			if !slices.Contains(values, n) {
				return nil, errors.New("not one of the values allowed")
			}
			return n, nil
		},
		format: func(v any) string { return strconv.Itoa(v.(int)) },
		check: func(v any) error {
			if !slices.Contains(values, v.(int)) {
				return fmt.Errorf("%d is not %s", v, allowed)
			}
			return nil
		},
		allowed: allowed,
	}}
}

// Bool is true or false, in any form strconv.ParseBool reads (1, t, T,
// TRUE, true, True and their opposites).
func Bool[T any](name, help string, set func(*T, bool)) Option[T] {
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(bool)) }, k: kind{
		parse: func(s string) (any, error) {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, errors.New("not true or false")
			}
			return b, nil
		},
		format:  func(v any) string { return strconv.FormatBool(v.(bool)) },
		check:   func(any) error { return nil },
		allowed: "true or false",
	}}
}

// Float is a finite number in [lo, hi), in any form strconv.ParseFloat
// reads; NaN and the infinities are rejected.
func Float[T any](name, help string, lo, hi float64, set func(*T, float64)) Option[T] {
	allowed := fmt.Sprintf("a number in [%s, %s)", FormatFloat(lo), FormatFloat(hi))
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(float64)) }, k: kind{
		parse: func(s string) (any, error) {
			f, err := strconv.ParseFloat(s, 64)
			switch {
			case err != nil && !errors.Is(err, strconv.ErrRange):
				return nil, errors.New("not a number")
			case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
				return nil, errors.New("not a finite number")
			case f < lo || f >= hi:
				return nil, errors.New("out of range")
			}
			return f, nil
		},
		format: func(v any) string { return FormatFloat(v.(float64)) },
		check: func(v any) error {
			if f := v.(float64); math.IsNaN(f) || math.IsInf(f, 0) || f < lo || f >= hi {
				return fmt.Errorf("%v is not %s", f, allowed)
			}
			return nil
		},
		allowed: allowed,
	}}
}

// FormatFloat writes f in the shortest form that strconv.ParseFloat reads
// back as f.
func FormatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Enum is one of names, matched exactly; values[i] is the value of
// names[i]. names and values must have the same length.
func Enum[T any, E comparable](name, help string, names []string, values []E, set func(*T, E)) Option[T] {
	if len(names) != len(values) || len(names) == 0 {
		panic(fmt.Sprintf("option: enum %q: %d names for %d values", name, len(names), len(values)))
	}
	names, values = slices.Clone(names), slices.Clone(values)
	allowed := orList(names)
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(E)) }, k: kind{
		parse: func(s string) (any, error) {
			if i := slices.Index(names, s); i >= 0 {
				return values[i], nil
			}
			return nil, errors.New("not a value allowed")
		},
		format: func(v any) string {
			if i := slices.Index(values, v.(E)); i >= 0 {
				return names[i]
			}
			return fmt.Sprint(v)
		},
		check: func(v any) error {
			if !slices.Contains(values, v.(E)) {
				return fmt.Errorf("%v is not %s", v, allowed)
			}
			return nil
		},
		allowed: allowed,
	}}
}

// Bytes is a byte size in [lo, hi] in the one size syntax (internal/units:
// 4K is 4096 bytes). lo and hi must lie in [0, units.MaxBytes].
func Bytes[T any, N ~int | ~int64](name, help string, lo, hi N, set func(*T, N)) Option[T] {
	allowed := fmt.Sprintf("bytes in [%s, %s] (K, M, G, T binary: 4K = 4096)", units.FormatBytes(int64(lo)), units.FormatBytes(int64(hi)))
	return bytesOption(name, help, allowed, func(n int64) bool { return n >= int64(lo) && n <= int64(hi) }, set)
}

// BytesOf is a byte size (as Bytes) that is one of sizes.
func BytesOf[T any, N ~int | ~int64](name, help string, sizes []N, set func(*T, N)) Option[T] {
	sizes = slices.Clone(sizes)
	texts := make([]string, len(sizes))
	for i, n := range sizes {
		texts[i] = units.FormatBytes(int64(n))
	}
	return bytesOption(name, help, orList(texts), func(n int64) bool { return slices.Contains(sizes, N(n)) }, set)
}

func bytesOption[T any, N ~int | ~int64](name, help, allowed string, in func(int64) bool, set func(*T, N)) Option[T] {
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(N)) }, k: kind{
		parse: func(s string) (any, error) {
			n, err := units.ParseBytes(s)
			if err != nil {
				if errors.Is(err, units.ErrSyntax) {
					return nil, errors.New("not a size")
				}
				return nil, errors.New("out of range")
			}
			if !in(n) {
				return nil, errors.New("out of range")
			}
			return N(n), nil
		},
		format: func(v any) string { return units.FormatBytes(int64(v.(N))) },
		check: func(v any) error {
			if n := int64(v.(N)); !in(n) {
				return fmt.Errorf("%d is not %s", n, allowed)
			}
			return nil
		},
		allowed: allowed,
	}}
}

// Dims is n sizes separated by 'x' ("4x2x4"), each an integer in [1,
// maxEach] written in decimal digits, whose product is at most maxProduct.
// The value is a []int of length n.
func Dims[T any](name, help string, n, maxEach, maxProduct int, set func(*T, []int)) Option[T] {
	allowed := fmt.Sprintf("%d sizes as %s, each in [1, %d], at most %d in all", n, dimsExample(n), maxEach, maxProduct)
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, slices.Clone(v.([]int))) }, k: kind{
		parse: func(s string) (any, error) {
			d, err := ParseDims(s, n, maxEach, maxProduct)
			if err != nil {
				return nil, err
			}
			return d, nil
		},
		format: func(v any) string { return FormatDims(v.([]int)) },
		check: func(v any) error {
			d := v.([]int)
			if len(d) != n {
				return fmt.Errorf("%v: not %d sizes", d, n)
			}
			p := 1
			for _, x := range d {
				if x < 1 || x > maxEach || p > maxProduct/x {
					return fmt.Errorf("%v is not %s", d, allowed)
				}
				p *= x
			}
			return nil
		},
		allowed: allowed,
	}}
}

func dimsExample(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = string(rune('X' + i%3))
	}
	return strings.Join(parts, "x")
}

// ParseDims parses n sizes separated by 'x' (see Dims). Whitespace
// around each size is ignored.
func ParseDims(s string, n, maxEach, maxProduct int) ([]int, error) {
	parts := strings.Split(s, "x")
	if len(parts) != n {
		return nil, fmt.Errorf("%d sizes separated by x, not %d", len(parts), n)
	}
	d := make([]int, n)
	p := 1
	for i, part := range parts {
		t := strings.TrimSpace(part)
		if t == "" || strings.Trim(t, "0123456789") != "" {
			return nil, fmt.Errorf("size %q is not a positive integer", part)
		}
		x, err := strconv.Atoi(t)
		switch {
		case err != nil || x > maxEach:
			return nil, fmt.Errorf("size %q is more than %d", part, maxEach)
		case x < 1:
			return nil, fmt.Errorf("size %q is not positive", part)
		case p > maxProduct/x:
			return nil, fmt.Errorf("more than %d in all", maxProduct)
		}
		p *= x
		d[i] = x
	}
	return d, nil
}

// FormatDims writes sizes as ParseDims reads them: "4x2x4".
func FormatDims(d []int) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, "x")
}

// NodeList is a list of node numbers in [0, maxNode] and ranges of them,
// separated by commas: "3,7-9". The value is the nodes, sorted, each once.
func NodeList[T any](name, help string, maxNode int, set func(*T, []int)) Option[T] {
	allowed := fmt.Sprintf("node numbers and ranges in [0, %d] separated by commas, as 3,7-9", maxNode)
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, slices.Clone(v.([]int))) }, k: kind{
		parse: func(s string) (any, error) {
			l, err := ParseNodeList(s, maxNode)
			if err != nil {
				return nil, err
			}
			return l, nil
		},
		format: func(v any) string { return FormatNodeList(v.([]int)) },
		check: func(v any) error {
			l := v.([]int)
			for i, n := range l {
				if n < 0 || n > maxNode || i > 0 && n <= l[i-1] {
					return fmt.Errorf("%v: not increasing nodes in [0, %d]", l, maxNode)
				}
			}
			if len(l) == 0 {
				return errors.New("no nodes")
			}
			return nil
		},
		allowed: allowed,
	}}
}

// ParseNodeList parses node numbers and ranges of them, "3,7-9", each in
// [0, maxNode], in decimal digits; whitespace around an item or a number
// is ignored. It rejects an empty list or item, a reversed range (9-7), a
// negative number and one above maxNode. The result is sorted and has each
// node once.
func ParseNodeList(s string, maxNode int) ([]int, error) {
	type span struct{ lo, hi int }
	var spans []span
	num := func(item, t string) (int, error) {
		t = strings.TrimSpace(t)
		if t == "" || strings.Trim(t, "0123456789") != "" {
			return 0, fmt.Errorf("item %q is not a node or a range of nodes N-M", item)
		}
		n, err := strconv.Atoi(t)
		if err != nil || n > maxNode {
			return 0, fmt.Errorf("item %q: node %s is more than %d", item, t, maxNode)
		}
		return n, nil
	}
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			return nil, errors.New("empty item")
		}
		a, b, isRange := strings.Cut(item, "-")
		lo, err := num(item, a)
		if err != nil {
			return nil, err
		}
		hi := lo
		if isRange {
			if hi, err = num(item, b); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, fmt.Errorf("item %q: reversed range", item)
			}
		}
		spans = append(spans, span{lo, hi})
	}
	// Merge the spans before expanding them, so that the work is bounded
	// by maxNode, however many items overlap.
	slices.SortFunc(spans, func(x, y span) int { return x.lo - y.lo })
	var out []int
	next := 0 // the first node not yet in out
	for _, sp := range spans {
		for n := max(sp.lo, next); n <= sp.hi; n++ {
			out = append(out, n)
		}
		next = max(next, sp.hi+1)
	}
	return out, nil
}

// FormatNodeList writes sorted distinct nodes as ParseNodeList reads them,
// runs of two or more as ranges: "3,7-9".
func FormatNodeList(nodes []int) string {
	var b strings.Builder
	for i := 0; i < len(nodes); {
		j := i
		for j+1 < len(nodes) && nodes[j+1] == nodes[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(nodes[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(nodes[j]))
		}
		i = j + 1
	}
	return b.String()
}

// String is text of at most maxLen bytes without a NUL byte (a file path,
// say).
func String[T any](name, help string, maxLen int, set func(*T, string)) Option[T] {
	allowed := fmt.Sprintf("text of at most %d bytes", maxLen)
	check := func(v any) error {
		if s := v.(string); len(s) > maxLen || strings.ContainsRune(s, 0) {
			return fmt.Errorf("%q is not %s without a NUL byte", s, allowed)
		}
		return nil
	}
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(string)) }, k: kind{
		parse: func(s string) (any, error) {
			switch {
			case len(s) > maxLen:
				return nil, errors.New("too long")
			case strings.ContainsRune(s, 0):
				return nil, errors.New("contains a NUL byte")
			}
			return s, nil
		},
		format:  func(v any) string { return v.(string) },
		check:   check,
		allowed: allowed,
	}}
}

// Custom is an option of the backend's own syntax: parse reads a value
// from text trimmed of surrounding whitespace and checks its range, its
// error saying what is wrong; allowed describes the syntax; format, which
// may be nil, writes a value back as text parse reads as the same value.
func Custom[T, V any](name, help, allowed string, parse func(string) (V, error), format func(V) string, set func(*T, V)) Option[T] {
	k := kind{
		parse: func(s string) (any, error) {
			v, err := parse(s)
			if err != nil {
				return nil, err
			}
			return v, nil
		},
		check:   func(v any) error { _ = v.(V); return nil },
		allowed: allowed,
	}
	if format != nil {
		k.format = func(v any) string { return format(v.(V)) }
	}
	return Option[T]{name: name, help: help, set: func(t *T, v any) { set(t, v.(V)) }, k: k}
}
