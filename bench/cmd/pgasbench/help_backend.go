package main

import (
	"bufio"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gopgas/gopgas/conduit"
)

// helpConduit is the backend a --help asks about: the value of a
// --conduit among args, wherever it is (flag parsing stops at --help), or
// "".
func helpConduit(args []string) string {
	backend := ""
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "conduit" {
			continue
		}
		switch {
		case hasValue:
			backend = value
		case i+1 < len(args):
			backend = args[i+1]
		}
	}
	return strings.TrimSpace(backend)
}

// writeBackendHelp ends a command's --help: without a backend, where the
// backends' options and the runtime settings are listed; with one, its
// options.
func writeBackendHelp(b *bufio.Writer, cmd, backend string) {
	documented := slices.Sorted(maps.Keys(backendOptions))
	settings := "Runtime settings (--set PGAS_NAME=value, or the environment): 'pgasbench help settings'\nlists them with their defaults and allowed values.\n"
	if backend == "" {
		fmt.Fprintf(b, "Backend options (--option key=value): 'pgasbench %s --help --conduit NAME' lists\nthose of one backend (%s have options).\n%s", cmd, strings.Join(documented, " and "), settings)
		return
	}
	opts, ok := backendOptions[backend]
	if !ok {
		if _, err := conduit.Lookup(backend); err != nil {
			fmt.Fprintf(b, "No backend %q (have %s).\n%s", backend, strings.Join(conduit.Backends(), ", "), settings)
		} else {
			fmt.Fprintf(b, "The %s backend has no options of its own (--option).\n%s", backend, settings)
		}
		return
	}
	fmt.Fprintf(b, "Backend options of %s (--option key=value, or PGAS_OPTIONS=key=value,...\nwhere an item without = continues the previous value: exclude=3,7-9):\n", backend)
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		writeItem(b, k, opts[k])
	}
	fmt.Fprintf(b, "\n%s", settings)
}
