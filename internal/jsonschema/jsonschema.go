// Package jsonschema checks JSON documents against the subset of JSON
// Schema (draft 2020-12) that the project's schemas in docs/schema use:
// type (a name or a list), const, enum, properties, required,
// patternProperties, additionalProperties (a boolean or a schema), items, pattern, minimum,
// oneOf, and $ref to "#/$defs/NAME". Other keywords are rejected, so that
// a schema never says more than is checked. Documents are decoded with
// numbers as json.Number.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// Schema is a compiled schema.
type Schema struct {
	root map[string]any
}

// known are the keywords the checker understands; the annotations are
// read and ignored.
var known = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "title": true, "description": true,
	"type": true, "const": true, "enum": true, "properties": true, "required": true,
	"patternProperties": true, "additionalProperties": true, "items": true, "pattern": true, "minimum": true, "oneOf": true, "$ref": true,
}

// Parse reads a schema and checks that it uses only the subset.
func Parse(b []byte) (*Schema, error) {
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("jsonschema: the schema is not an object")
	}
	s := &Schema{root: root}
	if err := s.lint(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func (s *Schema) lint(node map[string]any, at string) error {
	for k, v := range node {
		if !known[k] {
			return fmt.Errorf("jsonschema: %s: keyword %q is not supported", at, k)
		}
		var subs []any
		switch k {
		case "$defs", "properties":
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("jsonschema: %s/%s: not an object", at, k)
			}
			for _, sub := range m {
				subs = append(subs, sub)
			}
		case "patternProperties":
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("jsonschema: %s/%s: not an object", at, k)
			}
			for p, sub := range m {
				if _, err := regexp.Compile(p); err != nil {
					return fmt.Errorf("jsonschema: %s/patternProperties: %w", at, err)
				}
				subs = append(subs, sub)
			}
		case "items":
			subs = []any{v}
		case "additionalProperties":
			if _, isBool := v.(bool); !isBool {
				subs = []any{v}
			}
		case "oneOf":
			l, ok := v.([]any)
			if !ok {
				return fmt.Errorf("jsonschema: %s/oneOf: not a list", at)
			}
			subs = l
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return fmt.Errorf("jsonschema: %s/pattern: not a string", at)
			}
			if _, err := regexp.Compile(p); err != nil {
				return fmt.Errorf("jsonschema: %s/pattern: %w", at, err)
			}
		case "$ref":
			if _, err := s.resolve(v); err != nil {
				return fmt.Errorf("jsonschema: %s: %w", at, err)
			}
		}
		for _, sub := range subs {
			m, ok := sub.(map[string]any)
			if !ok {
				return fmt.Errorf("jsonschema: %s/%s: a subschema is not an object", at, k)
			}
			if err := s.lint(m, at+"/"+k); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Schema) resolve(ref any) (map[string]any, error) {
	r, _ := ref.(string)
	name, ok := strings.CutPrefix(r, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only #/$defs/NAME", r)
	}
	defs, _ := s.root["$defs"].(map[string]any)
	d, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q: no such definition", r)
	}
	return d, nil
}

// Validate checks one JSON document against the schema; the error names
// the first place that does not conform.
func (s *Schema) Validate(doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return fmt.Errorf("jsonschema: the document: %w", err)
	}
	return s.ValidateValue(v)
}

// ValidateValue checks a decoded value (json.Number for numbers, or
// float64).
func (s *Schema) ValidateValue(v any) error { return s.check(s.root, v, "$") }

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, ok := new(big.Int).SetString(x.String(), 10); ok {
			return "integer"
		}
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func hasType(want any, got string) bool {
	var names []string
	switch w := want.(type) {
	case string:
		names = []string{w}
	case []any:
		for _, n := range w {
			s, _ := n.(string)
			names = append(names, s)
		}
	}
	return slices.Contains(names, got) || (got == "integer" && slices.Contains(names, "number"))
}

func number(v any) (*big.Float, bool) {
	switch x := v.(type) {
	case json.Number:
		f, ok := new(big.Float).SetString(x.String())
		return f, ok
	case float64:
		return big.NewFloat(x), true
	}
	return nil, false
}

// equal compares JSON values: numbers by value.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x.Cmp(y) == 0
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func (s *Schema) check(node map[string]any, v any, at string) error {
	if ref, ok := node["$ref"]; ok {
		d, err := s.resolve(ref)
		if err != nil {
			return err
		}
		if err := s.check(d, v, at); err != nil {
			return err
		}
	}
	if t, ok := node["type"]; ok && !hasType(t, typeOf(v)) {
		return fmt.Errorf("%s: %s, want type %v", at, typeOf(v), t)
	}
	if c, ok := node["const"]; ok && !equal(c, v) {
		return fmt.Errorf("%s: %v, want %v", at, v, c)
	}
	if e, ok := node["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return equal(x, v) }) {
		return fmt.Errorf("%s: %v is not one of %v", at, v, e)
	}
	if p, ok := node["pattern"].(string); ok {
		if str, isStr := v.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", at, str, p)
		}
	}
	if m, ok := node["minimum"]; ok {
		min, _ := number(m)
		if x, isNum := number(v); isNum && x.Cmp(min) < 0 {
			return fmt.Errorf("%s: %v is below the minimum %v", at, v, m)
		}
	}
	if l, ok := node["oneOf"].([]any); ok {
		n := 0
		for _, sub := range l {
			if s.check(sub.(map[string]any), v, at) == nil {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf's %d schemas, want 1", at, n, len(l))
		}
	}
	if arr, ok := v.([]any); ok {
		if items, ok := node["items"].(map[string]any); ok {
			for i, x := range arr {
				if err := s.check(items, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if req, ok := node["required"].([]any); ok {
		for _, r := range req {
			if _, has := obj[r.(string)]; !has {
				return fmt.Errorf("%s: lacks %q", at, r)
			}
		}
	}
	props, _ := node["properties"].(map[string]any)
	patterns, _ := node["patternProperties"].(map[string]any)
	patternKeys := slices.Sorted(maps.Keys(patterns))
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first error is the same every time
	for _, k := range keys {
		if sub, ok := props[k].(map[string]any); ok {
			if err := s.check(sub, obj[k], at+"."+k); err != nil {
				return err
			}
			continue
		}
		// A property a pattern matches is checked against every such
		// pattern's schema and is not an additional one.
		matched := false
		for _, p := range patternKeys {
			if !regexp.MustCompile(p).MatchString(k) {
				continue
			}
			matched = true
			if sub, ok := patterns[p].(map[string]any); ok {
				if err := s.check(sub, obj[k], at+"."+k); err != nil {
					return err
				}
			}
		}
		if matched {
			continue
		}
		switch ap := node["additionalProperties"].(type) {
		case bool:
			if !ap {
				return fmt.Errorf("%s: unexpected property %q", at, k)
			}
		case map[string]any:
			if err := s.check(ap, obj[k], at+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}
