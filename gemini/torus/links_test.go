package torus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConnections(t *testing.T) {
	tor, err := NewTorus(4, 3, 5, true)
	require.NoError(t, err)
	assert.Equal(t, 2, tor.Connections(DimX))
	assert.Equal(t, 1, tor.Connections(DimY))
	assert.Equal(t, 2, tor.Connections(DimZ))
	tor.YClosed = false
	assert.Equal(t, 1, tor.Connections(DimY), "open y still connects neighbours")

	// Size 1: nothing to connect to. Size 2: the one neighbour, both ports.
	tor, err = NewTorus(1, 2, 2, true)
	require.NoError(t, err)
	assert.Equal(t, 0, tor.Connections(DimX))
	assert.Equal(t, 1, tor.Connections(DimY))
	assert.Equal(t, 2, tor.Connections(DimZ))
	assert.Panics(t, func() { tor.Connections(Dim(3)) })
	assert.True(t, tor.Closed(DimX))
	assert.True(t, tor.Closed(DimZ))
	assert.True(t, tor.Closed(DimY))
	tor.YClosed = false
	assert.False(t, tor.Closed(DimY))
}

// Wiring yields each port's connections once, in its documented order, to
// the neighbour Neighbor names; a full torus has Figure 2's 10 per Gemini.
func TestWiring(t *testing.T) {
	for _, s := range [][4]int{{1, 1, 1, 1}, {2, 2, 2, 1}, {3, 4, 5, 1}, {3, 4, 5, 0}, {1, 2, 3, 0}, {4, 1, 2, 1}} {
		tor, err := NewTorus(s[0], s[1], s[2], s[3] == 1)
		require.NoError(t, err)
		want := 0
		for g := range tor.Geminis() {
			for _, d := range dims {
				for _, dir := range []Dir{DirPlus, DirMinus} {
					if _, ok := tor.Neighbor(g, d, dir); ok {
						want += tor.Connections(d)
					}
				}
			}
		}
		got := 0
		last := [4]int{-1, 0, 0, 0}
		for c := range tor.Wiring() {
			got++
			to, ok := tor.Neighbor(c.From, c.Dim, c.Dir)
			require.True(t, ok, "%v: %+v", tor, c)
			require.Equal(t, to, c.To, "%v: %+v", tor, c)
			require.Less(t, c.Index, tor.Connections(c.Dim), "%v: %+v", tor, c)
			key := [4]int{c.From, int(c.Dim), c.Dir.Index(), c.Index}
			require.True(t, lessKey(last, key), "%v: %+v after %v", tor, c, last)
			last = key
		}
		assert.Equal(t, want, got, "%v", tor)
		if s[0] > 1 && s[1] > 1 && s[2] > 1 && s[3] == 1 {
			assert.Equal(t, 10*tor.Geminis(), got, "%v", tor)
		}
	}
	// Stopping early stops the walk.
	tor, err := NewTorus(3, 3, 3, true)
	require.NoError(t, err)
	n := 0
	for range tor.Wiring() {
		if n++; n == 7 {
			break
		}
	}
	assert.Equal(t, 7, n)
}

// lessKey orders (Gemini, dimension, direction index, connection index).
func lessKey(a, b [4]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
