package torus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Route is minimal, follows torus connections from src to dst, corrects the
// dimensions in the order x, y, z, and takes DirPlus on ties; NextStep is
// its first step from every Gemini on the way.
func TestRoute(t *testing.T) {
	for _, s := range [][4]int{{1, 1, 1, 1}, {2, 2, 2, 1}, {4, 3, 2, 1}, {4, 3, 2, 0}, {5, 6, 3, 0}, {1, 4, 4, 1}} {
		tor, err := NewTorus(s[0], s[1], s[2], s[3] == 1)
		require.NoError(t, err)
		for src := range tor.Geminis() {
			for dst := range tor.Geminis() {
				route := tor.Route(src, dst)
				require.Len(t, route, tor.Hops(src, dst), "%v: %d->%d", tor, src, dst)
				g := src
				for i, h := range route {
					msg := []any{"%v: %d->%d hop %d %+v", tor, src, dst, i, h}
					require.Equal(t, g, h.From, msg...)
					step, ok := tor.NextStep(g, dst)
					require.True(t, ok, msg...)
					require.Equal(t, step, h.Step, msg...)
					to, ok := tor.Neighbor(g, h.Dim, h.Dir)
					require.True(t, ok, msg...)
					require.Equal(t, to, h.To, msg...)
					if i > 0 {
						require.GreaterOrEqual(t, h.Dim, route[i-1].Dim, msg...)
					}
					if h.Tie {
						require.Equal(t, DirPlus, h.Dir, msg...)
					}
					g = h.To
				}
				require.Equal(t, dst, g, "%v: %d->%d", tor, src, dst)
				_, ok := tor.NextStep(dst, dst)
				require.False(t, ok)
			}
		}
	}
}

func TestRouteExample(t *testing.T) {
	tor, err := NewTorus(8, 5, 2, false)
	require.NoError(t, err)
	at := func(x, y, z int) int { return tor.Index(Coord{x, y, z}) }
	// x the short way round (wrapping), y along the open line, z across
	// the ring of 2 (a tie).
	assert.Equal(t, []Hop{
		{From: at(1, 3, 0), To: at(0, 3, 0), Step: Step{DimX, DirMinus, false}},
		{From: at(0, 3, 0), To: at(7, 3, 0), Step: Step{DimX, DirMinus, false}},
		{From: at(7, 3, 0), To: at(7, 2, 0), Step: Step{DimY, DirMinus, false}},
		{From: at(7, 2, 0), To: at(7, 2, 1), Step: Step{DimZ, DirPlus, true}},
	}, tor.Route(at(1, 3, 0), at(7, 2, 1)))
	assert.Empty(t, tor.Route(3, 3))
	assert.Panics(t, func() { tor.Route(0, tor.Geminis()) })
}
