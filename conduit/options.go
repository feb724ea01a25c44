package conduit

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ParseOptions parses backend options written as one string, the syntax
// of PGAS_OPTIONS: items separated by commas, each key=value, where an item
// without '=' continues the previous item's value, comma included. So
// "exclude=3,7-9,routing=adaptive" is exclude="3,7-9" and
// routing="adaptive". A key is the text before an item's first '=', a
// value everything after it up to the next item with a '='; whitespace
// around keys and values is dropped. A blank s is no options.
//
// It is an error, naming the item (not s, which the caller names), for the
// first item to have no '=', for a key to be empty, or for a key to be
// given twice. Whether the keys and
// values mean anything is the backend's business (JobConfig.Options).
func ParseOptions(s string) (map[string]string, error) {
	out := make(map[string]string)
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	key := "" // the option the last item with a '=' began
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			if key == "" {
				return nil, fmt.Errorf("item %q is not key=value (an item without '=' continues the previous value)", item)
			}
			out[key] += "," + item
			continue
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, fmt.Errorf("item %q has no key", item)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("item %q: option %s given twice", item, k)
		}
		key, out[k] = k, v
	}
	for k, v := range out {
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// FormatOptions writes options as ParseOptions reads them, keys sorted:
// ParseOptions(FormatOptions(opts)) gives opts back. It is an error if that
// cannot be: an empty key, a key with a ',' or '=' or whitespace around
// it, a value with whitespace around it, or a value with a '=' after a
// ',' (which would begin another option).
func FormatOptions(opts map[string]string) (string, error) {
	items := make([]string, 0, len(opts))
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		v := opts[k]
		switch {
		case k == "" || k != strings.TrimSpace(k) || strings.ContainsAny(k, ",="):
			return "", fmt.Errorf("option key %q cannot be written as an option string", k)
		case v != strings.TrimSpace(v):
			return "", fmt.Errorf("option %s=%q: whitespace around the value cannot be written as an option string", k, v)
		}
		if _, rest, ok := strings.Cut(v, ","); ok && strings.Contains(rest, "=") {
			return "", fmt.Errorf("option %s=%q: a '=' after a ',' cannot be written as an option string", k, v)
		}
		items = append(items, k+"="+v)
	}
	return strings.Join(items, ","), nil
}
