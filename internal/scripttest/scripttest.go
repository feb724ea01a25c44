package scripttest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// outputMark separates a command from its expected output.
const outputMark = "----"

// scriptCase is one command of a script and the output it must print.
type scriptCase struct {
	line int      // the command's line in the file, from 1
	cmd  string   // the command line as written
	want []string // the expected output, one entry a line
	got  []string // what the command printed
}

// scriptPart is either verbatim text (comments and blank lines) or a case.
type scriptPart struct {
	text string
	c    *scriptCase
}

// parseScript splits a script into its parts. A line that is neither
// blank nor a comment must be a command, followed by outputMark; its
// output runs to the next blank line or the end of the file.
func parseScript(name, src string) ([]scriptPart, error) {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	var parts []scriptPart
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			parts = append(parts, scriptPart{text: l})
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != outputMark {
			return nil, fmt.Errorf("%s:%d: command %q is not followed by a %q line", name, i+1, l, outputMark)
		}
		c := &scriptCase{line: i + 1, cmd: l}
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			c.want = append(c.want, lines[i])
		}
		i-- // the blank line, if any, is text
		parts = append(parts, scriptPart{c: c})
	}
	return parts, nil
}

// formatScript writes the parts back, each case with the output it printed.
func formatScript(parts []scriptPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.c == nil {
			b.WriteString(p.text + "\n")
			continue
		}
		b.WriteString(p.c.cmd + "\n" + outputMark + "\n")
		for _, l := range p.c.got {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Run runs every testdata/*.txt file as a subtest, each with a fresh
// interpreter from newRun, and compares (or, when rewrite, replaces) the
// outputs. The interpreter returns the output lines of one command, or an
// error when the command itself is malformed or the answers it checks
// disagree.
func Run(t *testing.T, rewrite bool, newRun func(t *testing.T) func(cmd Command) ([]string, error)) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := parseScript(file, string(src))
			if err != nil {
				t.Fatal(err)
			}
			run := newRun(t)
			for _, p := range parts {
				if p.c == nil {
					continue
				}
				where := fmt.Sprintf("%s:%d: %s", file, p.c.line, p.c.cmd)
				p.c.got, err = run(parseCommand(p.c.cmd))
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				for _, l := range p.c.got {
					if strings.TrimSpace(l) == "" {
						t.Fatalf("%s: the output has a blank line, which would end it", where)
					}
				}
				if !rewrite {
					assert.Equal(t, strings.Join(p.c.want, "\n"), strings.Join(p.c.got, "\n"), where)
				}
			}
			if rewrite {
				if err := os.WriteFile(file, []byte(formatScript(parts)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Command is a parsed command line: its name, then positional arguments and
// key=value arguments in any order.
type Command struct {
	Name string
	Pos  []string
	KV   map[string]string
}

func parseCommand(line string) Command {
	words := strings.Fields(line)
	c := Command{Name: words[0], KV: map[string]string{}}
	for _, w := range words[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			c.KV[k] = v
		} else {
			c.Pos = append(c.Pos, w)
		}
	}
	return c
}

// Expect reports an error unless the command has n positional arguments
// and no keys but the given ones.
func (c Command) Expect(n int, keys ...string) error {
	if len(c.Pos) != n {
		return fmt.Errorf("%s takes %d positional arguments, has %d", c.Name, n, len(c.Pos))
	}
	for k := range c.KV {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("%s takes no %s= (only %v)", c.Name, k, keys)
		}
	}
	return nil
}

// Ints reads the integer arguments named by the keys of into; an absent
// one keeps the value its target holds.
func (c Command) Ints(into map[string]*int) error { return Scan(c, into, strconv.Atoi) }

// Scan reads with parse the arguments named by the keys of into; an
// absent one keeps the value its target holds.
func Scan[T any](c Command, into map[string]*T, parse func(string) (T, error)) error {
	for k, target := range into {
		v, ok := c.KV[k]
		if !ok {
			continue
		}
		x, err := parse(v)
		if err != nil {
			return fmt.Errorf("%s=%s: %v", k, v, err)
		}
		*target = x
	}
	return nil
}
