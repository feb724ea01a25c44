package jsonschema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testSchema = `{
  "type": "object", "additionalProperties": false, "required": ["n", "s"],
  "properties": {
    "n": {"type": "integer", "minimum": 1},
    "s": {"type": "string", "pattern": "^a+$"},
    "f": {"$ref": "#/$defs/fig"},
    "e": {"enum": ["x", "y"]},
    "c": {"const": 3},
    "l": {"type": "array", "items": {"type": "boolean"}},
    "o": {"oneOf": [{"type": "null"}, {"type": "object", "additionalProperties": {"type": "string"}}]}
  },
  "patternProperties": {"^p[0-9]+$": {"type": "number"}},
  "$defs": {"fig": {"type": ["number", "null"]}}
}`

// Each keyword of the subset rejects what it should and accepts the rest.
func TestValidate(t *testing.T) {
	s, err := Parse([]byte(testSchema))
	require.NoError(t, err)
	assert.NoError(t, s.Validate([]byte(`{"n": 2, "s": "aa", "f": null, "e": "y", "c": 3.0, "l": [true], "o": {"k": "v"}}`)))
	assert.NoError(t, s.Validate([]byte(`{"n": 2, "s": "a", "f": 1.5, "o": null}`)))
	assert.NoError(t, s.Validate([]byte(`{"n": 2, "s": "a", "p95": 1.5, "p9": 0}`)), "patternProperties")
	for doc, want := range map[string]string{
		`{"n": 0, "s": "a"}`:                "minimum",
		`{"n": 1.5, "s": "a"}`:              "want type",
		`{"n": 1, "s": "b"}`:                "does not match",
		`{"n": 1}`:                          `lacks "s"`,
		`{"n": 1, "s": "a", "z": 1}`:        "unexpected property",
		`{"n": 1, "s": "a", "f": "x"}`:      "want type",
		`{"n": 1, "s": "a", "e": "z"}`:      "not one of",
		`{"n": 1, "s": "a", "c": 4}`:        "want 3",
		`{"n": 1, "s": "a", "l": [1]}`:      "$.l[0]",
		`{"n": 1, "s": "a", "o": {"k": 1}}`: "oneOf",
		`{"n": 1, "s": "a"} {"n": 1}`:       "more than one",
		`{"n": 1, "s": "a", "p95": "x"}`:    "$.p95",
		`{"n": 1, "s": "a", "p9x": 1}`:      "unexpected property",
		`[1]`:                               "want type object",
	} {
		err := s.Validate([]byte(doc))
		if assert.Error(t, err, doc) {
			assert.Contains(t, err.Error(), want, doc)
		}
	}
}

// A schema with a keyword outside the subset, a bad pattern or a dangling
// reference is refused.
func TestParseRefuses(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type": "object", "maxLength": 3}`: "maxLength",
		`{"pattern": "("}`:                   "pattern",
		`{"patternProperties": {"(": {}}}`:   "patternProperties",
		`{"$ref": "#/$defs/none"}`:           "no such definition",
		`{"properties": {"a": 1}}`:           "not an object",
		`[]`:                                 "not an object",
	} {
		_, err := Parse([]byte(schema))
		if assert.Error(t, err, schema) {
			assert.True(t, strings.Contains(err.Error(), want), "%s: %v", schema, err)
		}
	}
}
