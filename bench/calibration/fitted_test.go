package calibration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setFrom finds the row a constant's comment says it was set from.
var setFrom = regexp.MustCompile(`(?i)set\s+from\s+([AG]-[A-Z0-9-]*[A-Z0-9])`)

// fittedInSource reads a backend's params.go and returns, for every
// constant whose comment says "set from ROW", the rows its comment names
// (a comment before a group of constants applies to each of them).
func fittedInSource(t *testing.T, file string) map[string][]string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	require.NoError(t, err)
	out := map[string][]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		var doc string
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if v.Doc != nil {
				doc = v.Doc.Text()
			}
			var rows []string
			for _, m := range setFrom.FindAllStringSubmatch(doc, -1) {
				rows = append(rows, m[1])
			}
			if len(rows) == 0 {
				continue
			}
			for _, n := range v.Names {
				out[n.Name] = rows
			}
		}
	}
	return out
}

// The list of fitted parameters is the backends' own: every constant
// whose comment says it was set from a row is in it with that one row,
// the row exists, and no parameter is listed twice.
func TestFittedParamsAreDeclared(t *testing.T) {
	files := map[string]string{gem: "../../gemini/params.go", ari: "../../aries/params.go"}
	listed := map[string]Fitted{}
	for _, f := range FittedParams {
		key := f.Backend + "." + f.Param
		_, dup := listed[key]
		assert.False(t, dup, "%s listed twice", key)
		listed[key] = f
		found := false
		for _, r := range Rows(f.Backend) {
			found = found || r.ID == f.Row
		}
		assert.True(t, found, "%s: fitted to %s, which is not a %s row", key, f.Row, f.Backend)
	}
	for backend, file := range files {
		src := fittedInSource(t, file)
		for name, rows := range src {
			key := backend + "." + name
			f, ok := listed[key]
			if !assert.True(t, ok, "%s says it was set from %v but is not in FittedParams", key, rows) {
				continue
			}
			assert.Equal(t, []string{f.Row}, rows, "%s: its comment must name the one row it was fitted to", key)
		}
		for key, f := range listed {
			if f.Backend == backend {
				_, ok := src[f.Param]
				assert.True(t, ok, "%s is in FittedParams but its comment does not say it was set from %s", key, f.Row)
			}
		}
	}
}
