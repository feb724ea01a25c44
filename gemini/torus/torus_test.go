package torus

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/errs"
)

func TestStrings(t *testing.T) {
	assert.Equal(t, "x", DimX.String())
	assert.Equal(t, "y", DimY.String())
	assert.Equal(t, "z", DimZ.String())
	assert.Equal(t, "Dim(7)", Dim(7).String())
	assert.Equal(t, "+", DirPlus.String())
	assert.Equal(t, "-", DirMinus.String())
	assert.Equal(t, "0", Dir(0).String())
	assert.Equal(t, "Dir(3)", Dir(3).String())
	assert.Equal(t, "class 0", Class0.String())
	assert.Equal(t, "class 3", Class3.String())
	assert.Equal(t, "m-series", ClassM.String())
	assert.Equal(t, "Class(9)", Class(9).String())
	assert.Equal(t, "(1,2,3)", Coord{1, 2, 3}.String())

	tor, err := NewTorus(10, 8, 24, true)
	require.NoError(t, err)
	assert.Equal(t, "10x8x24 Geminis (10x16x24 nodes), y closed", tor.String())
	tor.YClosed = false
	assert.Equal(t, "10x8x24 Geminis (10x16x24 nodes), y open", tor.String())
}

func TestNewTorus(t *testing.T) {
	tor, err := NewTorus(3, 2, 5, false)
	require.NoError(t, err)
	assert.Equal(t, 30, tor.Geminis())
	assert.Equal(t, 60, tor.Nodes())
	x, y, z := tor.NodeGeometry()
	assert.Equal(t, [3]int{3, 4, 5}, [3]int{x, y, z})
	assert.Equal(t, [3]int{3, 2, 5}, [3]int{tor.Size(DimX), tor.Size(DimY), tor.Size(DimZ)})
	assert.False(t, tor.YClosed)

	for _, bad := range [][3]int{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {-2, 4, 4}, {4, 4, -1}} {
		_, err := NewTorus(bad[0], bad[1], bad[2], true)
		require.Error(t, err, "%v", bad)
		assert.ErrorIs(t, err, errs.Argument)
		assert.Contains(t, err.Error(), fmt.Sprintf("%dx%dx%d", bad[0], bad[1], bad[2]))
	}
	// Section 3: a 16-bit Gemini id addresses at most 65536 Geminis.
	_, err = NewTorus(64, 32, 32, true)
	require.NoError(t, err)
	for _, big := range [][3]int{{64, 32, 33}, {1 << 40, 1 << 40, 1 << 40}, {MaxGeminis + 1, 1, 1}} {
		_, err = NewTorus(big[0], big[1], big[2], true)
		require.Error(t, err, "%v", big)
		assert.ErrorIs(t, err, errs.Argument)
		assert.Contains(t, err.Error(), strconv.Itoa(big[0]))
	}
}

func TestCoordIndexRoundTrip(t *testing.T) {
	for _, s := range [][3]int{{1, 1, 1}, {2, 3, 4}, {5, 1, 2}, {10, 8, 24}} {
		tor, err := NewTorus(s[0], s[1], s[2], true)
		require.NoError(t, err)
		seen := map[Coord]bool{}
		for g := 0; g < tor.Geminis(); g++ {
			c := tor.Coord(g)
			require.False(t, seen[c], "duplicate %v", c)
			seen[c] = true
			require.True(t, c.X >= 0 && c.X < tor.GX && c.Y >= 0 && c.Y < tor.GY && c.Z >= 0 && c.Z < tor.GZ, "%v", c)
			require.Equal(t, g, tor.Index(c))
		}
		// x varies fastest.
		if tor.GX > 1 {
			assert.Equal(t, Coord{1, 0, 0}, tor.Coord(1))
		}
	}
	tor, err := NewTorus(2, 3, 4, true)
	require.NoError(t, err)
	assert.PanicsWithValue(t, "gemini: Gemini 24 outside the 2x3x4 Geminis (2x6x4 nodes), y closed torus [0,24)",
		func() { tor.Coord(24) })
	assert.Panics(t, func() { tor.Coord(-1) })
	assert.Panics(t, func() { tor.Index(Coord{2, 0, 0}) })
	assert.Panics(t, func() { tor.Index(Coord{0, -1, 0}) })
}

func TestGeminiOfNode(t *testing.T) {
	tor, err := NewTorus(2, 2, 2, true)
	require.NoError(t, err)
	for n := 0; n < tor.Nodes(); n++ {
		assert.Equal(t, n/2, tor.GeminiOfNode(n))
	}
	assert.Panics(t, func() { tor.GeminiOfNode(tor.Nodes()) })
	assert.Panics(t, func() { tor.GeminiOfNode(-1) })
}
func TestNeighbor(t *testing.T) {
	tor, err := NewTorus(4, 3, 2, true)
	require.NoError(t, err)
	at := func(x, y, z int) int { return tor.Index(Coord{x, y, z}) }
	nb := func(g int, d Dim, dir Dir) int {
		n, ok := tor.Neighbor(g, d, dir)
		require.True(t, ok, "%v %v%v", tor.Coord(g), d, dir)
		return n
	}
	// Closed dimensions wrap.
	assert.Equal(t, at(0, 1, 1), nb(at(3, 1, 1), DimX, DirPlus))
	assert.Equal(t, at(3, 1, 1), nb(at(0, 1, 1), DimX, DirMinus))
	assert.Equal(t, at(2, 0, 0), nb(at(2, 2, 0), DimY, DirPlus))
	assert.Equal(t, at(2, 2, 0), nb(at(2, 0, 0), DimY, DirMinus))
	assert.Equal(t, at(1, 1, 1), nb(at(1, 1, 0), DimZ, DirPlus))
	// Size-2 ring: both directions lead to the other Gemini.
	assert.Equal(t, at(1, 1, 1), nb(at(1, 1, 0), DimZ, DirMinus))
	assert.Equal(t, at(1, 1, 0), nb(at(1, 1, 1), DimZ, DirPlus))
	assert.Equal(t, at(1, 1, 0), nb(at(1, 1, 1), DimZ, DirMinus))

	// Open y stops at its ends.
	tor.YClosed = false
	_, ok := tor.Neighbor(at(2, 2, 0), DimY, DirPlus)
	assert.False(t, ok)
	_, ok = tor.Neighbor(at(2, 0, 0), DimY, DirMinus)
	assert.False(t, ok)
	assert.Equal(t, at(2, 1, 0), nb(at(2, 2, 0), DimY, DirMinus))
	assert.Equal(t, at(2, 1, 0), nb(at(2, 0, 0), DimY, DirPlus))
	assert.Equal(t, at(0, 1, 1), nb(at(3, 1, 1), DimX, DirPlus), "x still wraps")

	// A dimension of size 1 has no neighbours.
	flat, err := NewTorus(1, 4, 4, true)
	require.NoError(t, err)
	for _, dir := range []Dir{DirPlus, DirMinus} {
		n, ok := flat.Neighbor(5, DimX, dir)
		assert.False(t, ok)
		assert.Equal(t, -1, n)
	}
	assert.Panics(t, func() { flat.Neighbor(0, DimX, 0) })
	assert.Panics(t, func() { flat.Neighbor(0, DimX, 2) })
	assert.Panics(t, func() { flat.Neighbor(0, Dim(5), DirPlus) })
	assert.Panics(t, func() { flat.Neighbor(flat.Geminis(), DimY, DirPlus) })
}

// bfs returns the hop distance from src to every Gemini, walking
// Neighbor along the given dimensions only.
func bfs(tor *Torus, src int, along []Dim) []int {
	dist := make([]int, tor.Geminis())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int{src}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		for _, d := range along {
			for _, dir := range []Dir{DirPlus, DirMinus} {
				if n, ok := tor.Neighbor(g, d, dir); ok && dist[n] < 0 {
					dist[n] = dist[g] + 1
					queue = append(queue, n)
				}
			}
		}
	}
	return dist
}

// walk follows Neighbor n times from g; ok is false if it fell off.
func walk(tor *Torus, g int, d Dim, dir Dir, n int) (int, bool) {
	for range n {
		var ok bool
		if g, ok = tor.Neighbor(g, d, dir); !ok {
			return -1, false
		}
	}
	return g, true
}

// Delta and Hops against brute force over Neighbor.
func TestDeltaHopsBFS(t *testing.T) {
	shapes := [][3]int{
		{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 2}, {3, 3, 3},
		{4, 1, 3}, {1, 5, 2}, {5, 4, 3}, {6, 2, 4}, {3, 6, 5},
	}
	for _, s := range shapes {
		for _, yc := range []bool{true, false} {
			tor, err := NewTorus(s[0], s[1], s[2], yc)
			require.NoError(t, err)
			for a := 0; a < tor.Geminis(); a++ {
				all := bfs(tor, a, dims[:])
				for b := 0; b < tor.Geminis(); b++ {
					require.Equal(t, all[b], tor.Hops(a, b), "%v: %d->%d", tor, a, b)
				}
				for _, d := range dims {
					line := bfs(tor, a, []Dim{d})
					for b := 0; b < tor.Geminis(); b++ {
						// The Gemini with b's position along d and a's elsewhere.
						tgt := tor.Index(tor.Coord(a).With(d, tor.Coord(b).At(d)))
						n, dir, tie := tor.Delta(a, b, d)
						msg := fmt.Sprintf("%v: %v->%v along %v", tor, tor.Coord(a), tor.Coord(b), d)
						require.Equal(t, line[tgt], n, msg)
						if n == 0 {
							require.Equal(t, Dir(0), dir, msg)
							require.False(t, tie, msg)
							continue
						}
						got, ok := walk(tor, a, d, dir, n)
						require.True(t, ok, msg)
						require.Equal(t, tgt, got, msg)
						other, ok := walk(tor, a, d, -dir, n)
						require.Equal(t, tie, ok && other == tgt, msg)
						if tie {
							require.Equal(t, DirPlus, dir, msg)
							require.True(t, tor.Closed(d), msg)
							require.Equal(t, 0, tor.Size(d)%2, msg)
							require.Equal(t, tor.Size(d)/2, n, msg)
						}
					}
				}
			}
		}
	}
}

func TestDeltaExamples(t *testing.T) {
	tor, err := NewTorus(8, 5, 2, false)
	require.NoError(t, err)
	at := func(x, y, z int) int { return tor.Index(Coord{x, y, z}) }
	check := func(a, b int, d Dim, n int, dir Dir, tie bool) {
		t.Helper()
		gn, gdir, gtie := tor.Delta(a, b, d)
		assert.Equal(t, n, gn)
		assert.Equal(t, dir, gdir)
		assert.Equal(t, tie, gtie)
	}
	check(at(1, 0, 0), at(7, 0, 0), DimX, 2, DirMinus, false) // wrap is shorter
	check(at(1, 0, 0), at(4, 0, 0), DimX, 3, DirPlus, false)
	check(at(1, 0, 0), at(5, 0, 0), DimX, 4, DirPlus, true) // half-way round 8
	check(at(0, 4, 0), at(0, 0, 0), DimY, 4, DirMinus, false)
	check(at(0, 0, 0), at(0, 0, 1), DimZ, 1, DirPlus, true) // ring of 2
	check(at(3, 2, 1), at(3, 2, 1), DimX, 0, 0, false)
	tor.YClosed = true
	check(at(0, 4, 0), at(0, 0, 0), DimY, 1, DirPlus, false) // odd ring: never a tie
	assert.Equal(t, 2+1+1, tor.Hops(at(1, 0, 0), at(7, 4, 1)))
	assert.Panics(t, func() { tor.Delta(0, tor.Geminis(), DimX) })
}
