package option

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/gopgas/gopgas/internal/errs"
)

// An Option is one declared option of a backend whose options are a T.
// Build one with a kind's constructor (Int, Bool, ...); the zero Option
// is not usable.
type Option[T any] struct {
	name, help string
	allowEmpty bool
	k          kind
	set        func(*T, any)
}

// kind is what a constructor declares: how to read a value, write it back,
// check it against the declared range, and describe that range.
type kind struct {
	// parse reads a value from text already trimmed of surrounding
	// whitespace; its error says what is wrong without the option's name.
	parse func(string) (any, error)
	// format writes a value parse accepted back as text; nil if the kind
	// has no text form (a Custom option declared without one).
	format func(any) string
	// check reports whether a value is in the declared range, by the
	// declaration alone (not by parsing): the fuzz tests hold parse to it.
	check func(any) error
	// allowed describes the values allowed, for help and errors.
	allowed string
}

// Name is the option's name.
func (o Option[T]) Name() string { return o.name }

// Help is the option's help text as declared.
func (o Option[T]) Help() string { return o.help }

// Allowed describes the values the option allows ("an integer in [1, 6]").
func (o Option[T]) Allowed() string { return o.k.allowed }

// AllowEmpty returns the option changed to accept an empty value (after
// trimming), which its kind's parse function then reads like any other.
func (o Option[T]) AllowEmpty() Option[T] {
	o.allowEmpty = true
	return o
}

// Parse reads a value of the option from s, ignoring whitespace around
// it. The error says what is wrong and what the option allows, without
// naming the option (Table.Parse adds that). The value's dynamic type is
// the kind's: int, bool, float64, []int, string, the Enum's or Bytes'
// type parameter, or a Custom option's V.
func (o Option[T]) Parse(s string) (any, error) {
	t := strings.TrimSpace(s)
	if t == "" && !o.allowEmpty {
		return nil, fmt.Errorf("empty (want %s)", o.k.allowed)
	}
	v, err := o.k.parse(t)
	if err != nil {
		return nil, fmt.Errorf("%v (want %s)", err, o.k.allowed)
	}
	return v, nil
}

// Format writes v, a value Parse returned, as text that Parse reads back
// as the same value. ok is false if the option has no text form.
func (o Option[T]) Format(v any) (s string, ok bool) {
	if o.k.format == nil {
		return "", false
	}
	return o.k.format(v), true
}

// Check reports whether v, a value of the option's type, lies in the
// declared range. Parse never returns a value Check rejects.
func (o Option[T]) Check(v any) error { return o.k.check(v) }

// Lift makes an option declared for a U one of a T that holds that U
// where field says: the shared fabric options lifted into each backend's
// options.
func Lift[T, U any](o Option[U], field func(*T) *U) Option[T] {
	return Option[T]{name: o.name, help: o.help, allowEmpty: o.allowEmpty, k: o.k,
		set: func(t *T, v any) { o.set(field(t), v) }}
}

// A Table is the options of one backend and the rules between them. Build
// it with New and the rule methods while the program starts; Parse may then
// be called from any goroutine.
type Table[T any] struct {
	backend string
	opts    map[string]Option[T]
	rules   []rule
}

type rule struct {
	atMostOne []string // at most one of these
	name      string   // or: name only with one of needs
	needs     []string
}

// New declares the options of the backend named backend. Declaring a name
// twice is a mistake in the program, not in its input: New panics.
func New[T any](backend string, opts ...Option[T]) *Table[T] {
	t := &Table[T]{backend: backend, opts: make(map[string]Option[T], len(opts))}
	for _, o := range opts {
		if o.k.parse == nil || o.set == nil {
			panic(fmt.Sprintf("option: %s option %q is not built by a kind's constructor", backend, o.name))
		}
		if _, dup := t.opts[o.name]; dup {
			panic(fmt.Sprintf("option: %s option %q declared twice", backend, o.name))
		}
		t.opts[o.name] = o
	}
	return t
}

// AtMostOne declares that at most one of names may be given (the options
// that each choose the whole system, say). It panics if a name is not
// declared.
func (t *Table[T]) AtMostOne(names ...string) *Table[T] {
	t.mustHave(names...)
	t.rules = append(t.rules, rule{atMostOne: slices.Sorted(slices.Values(names))})
	return t
}

// Requires declares that name may be given only with at least one of
// needs (an option that refines another). It panics if a name is not
// declared.
func (t *Table[T]) Requires(name string, needs ...string) *Table[T] {
	t.mustHave(name)
	t.mustHave(needs...)
	t.rules = append(t.rules, rule{name: name, needs: slices.Clone(needs)})
	return t
}

func (t *Table[T]) mustHave(names ...string) {
	for _, n := range names {
		if _, ok := t.opts[n]; !ok {
			panic(fmt.Sprintf("option: %s has no option %q", t.backend, n))
		}
	}
}

// Backend is the name of the backend the table belongs to.
func (t *Table[T]) Backend() string { return t.backend }

// Option returns the option called name.
func (t *Table[T]) Option(name string) (Option[T], bool) {
	o, ok := t.opts[name]
	return o, ok
}

// Known lists the options' names, sorted.
func (t *Table[T]) Known() []string { return slices.Sorted(maps.Keys(t.opts)) }

// Names describes each option by name: its help text, the values it
// allows, and the rules that involve it.
func (t *Table[T]) Names() map[string]string {
	out := make(map[string]string, len(t.opts))
	for name, o := range t.opts {
		text := o.help + "; allowed: " + o.k.allowed
		for _, r := range t.rules {
			switch {
			case slices.Contains(r.atMostOne, name):
				text += "; at most one of " + strings.Join(r.atMostOne, ", ")
			case r.name == name:
				text += "; only with " + orList(r.needs)
			}
		}
		out[name] = text
	}
	return out
}

// Values parses opts, names and values trimmed of surrounding whitespace,
// checks every value and every rule, and returns the values by (trimmed)
// name. Its error is an *Error listing every problem.
func (t *Table[T]) Values(opts map[string]string) (map[string]any, error) {
	e := &Error{Backend: t.backend}
	raw := make(map[string]string, len(opts))  // given value by trimmed name
	keys := make(map[string]string, len(opts)) // given name by trimmed name
	vals := make(map[string]any, len(opts))
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		name := strings.TrimSpace(k)
		if first, dup := keys[name]; dup {
			e.add([]string{name}, fmt.Sprintf("option %q given twice, as %q and %q", name, first, k))
			continue
		}
		keys[name], raw[name] = k, opts[k]
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		o, ok := t.opts[name]
		if !ok {
			e.add([]string{name}, fmt.Sprintf("unknown option %q (known: %s)", name, strings.Join(t.Known(), ", ")))
			continue
		}
		v, err := o.Parse(raw[name])
		if err != nil {
			e.add([]string{name}, fmt.Sprintf("option %s=%q: %v", name, raw[name], err))
			continue
		}
		vals[name] = v
	}
	// The options' own problems sorted by name; the rules' follow, in
	// their order of declaration.
	slices.SortStableFunc(e.Problems, func(a, b Problem) int { return strings.Compare(a.Options[0], b.Options[0]) })
	for _, r := range t.rules {
		if r.atMostOne != nil {
			var given []string
			for _, n := range r.atMostOne {
				if _, ok := raw[n]; ok {
					given = append(given, n)
				}
			}
			if len(given) > 1 {
				e.add(given, fmt.Sprintf("options %s: give at most one of %s", t.quoted(given, raw), strings.Join(r.atMostOne, ", ")))
			}
			continue
		}
		if _, ok := raw[r.name]; !ok {
			continue
		}
		if !slices.ContainsFunc(r.needs, func(n string) bool { _, ok := raw[n]; return ok }) {
			e.add([]string{r.name}, fmt.Sprintf("option %s: only with %s", t.quoted([]string{r.name}, raw), orList(r.needs)))
		}
	}
	if len(e.Problems) > 0 {
		return nil, e
	}
	return vals, nil
}

// Parse parses opts as Values does and, if every option and rule is
// right, stores each value in dst, which holds the defaults. On error dst
// is unchanged.
func (t *Table[T]) Parse(dst *T, opts map[string]string) error {
	vals, err := t.Values(opts)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		t.opts[name].set(dst, vals[name])
	}
	return nil
}

func (t *Table[T]) quoted(names []string, raw map[string]string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%q", n, raw[n])
	}
	return andList(parts)
}

// Error is every problem with a backend's options.
type Error struct {
	// Backend names the backend ("gemini").
	Backend string
	// Problems are the problems in the order Table.Values documents.
	Problems []Problem
}

// Problem is one problem: the options it concerns and what is wrong.
type Problem struct {
	Options []string
	Msg     string // "option torus=\"0x0x0\": ..."
}

func (e *Error) add(opts []string, msg string) {
	e.Problems = append(e.Problems, Problem{Options: opts, Msg: msg})
}

// Error is the backend's name and the problems separated by "; ":
// `gemini: option torus="0x0x0": ...; option rows="2": only with cabinets`.
func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Msg
	}
	return e.Backend + ": " + strings.Join(msgs, "; ")
}

// Unwrap returns errs.Argument: bad options are bad arguments.
func (e *Error) Unwrap() error { return errs.Argument }

// Errorf is an *Error of one problem concerning opts, for the checks a
// backend makes after Table.Parse.
func Errorf(backend string, opts []string, format string, args ...any) error {
	return &Error{Backend: backend, Problems: []Problem{{Options: opts, Msg: fmt.Sprintf(format, args...)}}}
}

// andList joins "a", "a and b", "a, b and c".
func andList(items []string) string { return joinLast(items, " and ") }

// orList joins "a", "a or b", "a, b or c".
func orList(items []string) string { return joinLast(items, " or ") }

func joinLast(items []string, last string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}

// Set parses s as Parse does and stores the value in dst; on error dst is
// unchanged.
func (o Option[T]) Set(dst *T, s string) error {
	v, err := o.Parse(s)
	if err != nil {
		return err
	}
	o.set(dst, v)
	return nil
}

// RoundTrip checks what the options' fuzz tests hold a table to: every
// value Values accepts from opts lies in its option's declared range, and
// its text (Option.Format) parses back to the same value. It returns the
// options written back as text, which the caller parses again and compares
// with the first parse.
func (t *Table[T]) RoundTrip(opts map[string]string) (map[string]string, error) {
	vals, err := t.Values(opts)
	if err != nil {
		return nil, err
	}
	back := make(map[string]string, len(vals))
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		o, v := t.opts[name], vals[name]
		if err := o.Check(v); err != nil {
			return nil, fmt.Errorf("option %s: accepted value %v out of range: %v", name, v, err)
		}
		text, ok := o.Format(v)
		if !ok {
			return nil, fmt.Errorf("option %s has no text form", name)
		}
		again, err := o.Parse(text)
		if err != nil || !reflect.DeepEqual(v, again) {
			return nil, fmt.Errorf("option %s: %v written %q reads back as %v, %v", name, v, text, again, err)
		}
		back[name] = text
	}
	return back, nil
}
