package gemini

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/internal/errs"
)

// topoTestGB is a decimal gigabyte, the unit of the whitepaper's GB/s.
const topoTestGB = 1e9

// Whitepaper sections 1, 3.1, 5 and 6.2: the constants and how they relate.
func TestTopoConstants(t *testing.T) {
	assert.Equal(t, 96, NodesPerCabinet, "section 5: 96 nodes per cabinet")
	assert.Equal(t, NodesPerBlade, GeminisPerBlade*NodesPerGemini, "a blade's pair of Geminis hosts its nodes")
	// Figure 2: 10 torus connections per Gemini, 4 in x, 4 in z, 2 in y.
	assert.Equal(t, 10, 2*(2*ConnectionsPerNeighborXZ+ConnectionsPerNeighborY))
	// Section 1: "8 links connecting each Gemini to its neighbors in the
	// 'x' and 'z' directions and 4 links in the 'y' dimension", per
	// neighbour; and 40 network tiles, "10 groups of 4".
	assert.Equal(t, 8, ConnectionsPerNeighborXZ*LinksPerConnection)
	assert.Equal(t, 4, ConnectionsPerNeighborY*LinksPerConnection)
	assert.Equal(t, 40, 2*(2*ConnectionsPerNeighborXZ+ConnectionsPerNeighborY)*LinksPerConnection)
	// Section 6.2: 12 lanes per direction at 3.125 Gb/s.
	assert.Equal(t, 12, LinksPerConnection*LanesPerLink)
	assert.Equal(t, 4.6875e9, float64(ConnectionRawBytesPerSecond))
	assert.Equal(t, 4.68, math.Floor(ConnectionRawBytesPerSecond/topoTestGB*100)/100,
		"the whitepaper's 4.68 GB/s is the raw rate truncated")
	assert.Equal(t, 65536, MaxGeminis)
}

func TestTopoStrings(t *testing.T) {
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

func TestTopoNewTorus(t *testing.T) {
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

// Whitepaper section 5, Table 1 (and section 6.2.1 for the 40-cabinet
// example, section 5 for Jaguar).
func TestTopoForCabinetsTable1(t *testing.T) {
	cases := []struct {
		name         string
		perRow, rows int
		class        Class
		nodes        [3]int // Table 1 geometry, y in nodes
		geminis      [3]int
	}{
		{"1 cabinet", 1, 1, Class0, [3]int{3, 4, 8}, [3]int{3, 2, 8}},
		{"2 cabinets", 2, 1, Class0, [3]int{6, 4, 8}, [3]int{6, 2, 8}},
		{"3 cabinets", 3, 1, Class0, [3]int{9, 4, 8}, [3]int{9, 2, 8}},
		{"4 in one row", 4, 1, Class1, [3]int{4, 12, 8}, [3]int{4, 6, 8}},
		{"10 in one row", 10, 1, Class1, [3]int{10, 12, 8}, [3]int{10, 6, 8}},
		{"16 in one row", 16, 1, Class1, [3]int{16, 12, 8}, [3]int{16, 6, 8}},
		{"16 in two rows", 8, 2, Class2, [3]int{8, 12, 16}, [3]int{8, 6, 16}},
		{"24 in two rows", 12, 2, Class2, [3]int{12, 12, 16}, [3]int{12, 6, 16}},
		{"48 in two rows", 24, 2, Class2, [3]int{24, 12, 16}, [3]int{24, 6, 16}},
		{"50 in two rows", 25, 2, Class3, [3]int{25, 8, 24}, [3]int{25, 4, 24}},
		{"14 in two rows", 7, 2, Class3, [3]int{7, 8, 24}, [3]int{7, 4, 24}},
		{"40 as 4 rows of 10", 10, 4, Class3, [3]int{10, 16, 24}, [3]int{10, 8, 24}},
		{"32 as 4 rows of 8 (Figure 8)", 8, 4, Class3, [3]int{8, 16, 24}, [3]int{8, 8, 24}},
		{"3 rows of 20", 20, 3, Class3, [3]int{20, 12, 24}, [3]int{20, 6, 24}},
		{"Jaguar, 8 rows of 25", 25, 8, Class3, [3]int{25, 32, 24}, [3]int{25, 16, 24}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tor, class, err := ForCabinets(c.perRow, c.rows)
			require.NoError(t, err)
			assert.Equal(t, c.class, class)
			x, y, z := tor.NodeGeometry()
			assert.Equal(t, c.nodes, [3]int{x, y, z})
			assert.Equal(t, c.geminis, [3]int{tor.GX, tor.GY, tor.GZ})
			assert.True(t, tor.YClosed)
			assert.Equal(t, NodesPerCabinet*c.perRow*c.rows, tor.Nodes())
		})
	}
}

// Every valid layout in every class holds 96 nodes per cabinet.
func TestTopoForCabinetsNodesPerCabinet(t *testing.T) {
	seen := map[Class]bool{}
	for rows := 1; rows <= 12; rows++ {
		for perRow := 1; perRow <= 40; perRow++ {
			tor, class, err := ForCabinets(perRow, rows)
			if rows == 1 && perRow > 16 {
				require.Error(t, err, "%d in one row", perRow)
				continue
			}
			require.NoError(t, err, "%d rows of %d", rows, perRow)
			seen[class] = true
			require.Equal(t, NodesPerCabinet*perRow*rows, tor.Nodes(), "%d rows of %d (%v)", rows, perRow, class)
		}
	}
	assert.Equal(t, map[Class]bool{Class0: true, Class1: true, Class2: true, Class3: true}, seen)
}

func TestTopoForCabinetsRejected(t *testing.T) {
	cases := []struct {
		perRow, rows int
		want         []string // substrings naming the bad values
	}{
		{0, 1, []string{"0 cabinets"}},
		{-3, 1, []string{"-3 cabinets"}},
		{4, 0, []string{"0 rows"}},
		{4, -2, []string{"-2 rows"}},
		{17, 1, []string{"17 cabinets", "16"}},
		{100, 1, []string{"100 cabinets"}},
		{1 << 20, 3, []string{strconv.Itoa(1 << 20)}},
		{3000, 4, []string{"3000"}}, // 3000x8x24 Geminis is over MaxGeminis
	}
	for _, c := range cases {
		tor, _, err := ForCabinets(c.perRow, c.rows)
		require.Error(t, err, "%d rows of %d", c.rows, c.perRow)
		assert.Nil(t, tor)
		assert.ErrorIs(t, err, errs.Argument)
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w)
		}
	}
}

// Whitepaper section 5.1: m-series 2D tori, x of size 1.
func TestTopoMSeries(t *testing.T) {
	cases := []struct {
		cabinets, single int
		nodes            [3]int
	}{
		{1, 4, [3]int{1, 4, 8}},
		{1, 8, [3]int{1, 8, 8}},
		{1, 12, [3]int{1, 12, 8}},
		{2, 0, [3]int{1, 8, 24}},
		{3, 99, [3]int{1, 12, 24}}, // singleCabinetY ignored
		{6, 4, [3]int{1, 24, 24}},
	}
	for _, c := range cases {
		tor, err := MSeries(c.cabinets, c.single)
		require.NoError(t, err, "%d cabinets", c.cabinets)
		x, y, z := tor.NodeGeometry()
		assert.Equal(t, c.nodes, [3]int{x, y, z}, "%d cabinets, %d", c.cabinets, c.single)
		assert.True(t, tor.YClosed)
		assert.Equal(t, 0, tor.Connections(DimX), "2D: no x links")
		if c.cabinets > 1 {
			assert.Equal(t, NodesPerCabinet*c.cabinets, tor.Nodes())
		}
	}
	full, err := MSeries(1, 12)
	require.NoError(t, err)
	assert.Equal(t, NodesPerCabinet, full.Nodes(), "12x8 is a full cabinet")

	for _, bad := range [][2]int{{0, 4}, {-1, 4}, {7, 4}, {1, 0}, {1, 5}, {1, 16}, {1, -4}} {
		_, err := MSeries(bad[0], bad[1])
		require.Error(t, err, "%v", bad)
		assert.ErrorIs(t, err, errs.Argument)
		if bad[0] == 1 {
			assert.Contains(t, err.Error(), fmt.Sprintf("%dx8", bad[1]))
		} else {
			assert.Contains(t, err.Error(), fmt.Sprintf("%d cabinets", bad[0]))
		}
	}
}

// Whitepaper sections 6.2.1 and 6.2.2: the 40-cabinet example.
func TestTopoBisectionWhitepaperExample(t *testing.T) {
	tor, class, err := ForCabinets(10, 4)
	require.NoError(t, err)
	require.Equal(t, Class3, class)
	x, y, z := tor.NodeGeometry()
	require.Equal(t, [3]int{10, 16, 24}, [3]int{x, y, z})

	links, d := tor.BisectionLinks()
	assert.Equal(t, 320, links)
	assert.Equal(t, DimZ, d)
	// The whitepaper's three products agree with the per-dimension counts.
	assert.Equal(t, x*y*2, topoTestCut(tor, DimZ)) // Lz = 320
	assert.Equal(t, x*z*2, topoTestCut(tor, DimY)) // Ly = 480
	assert.Equal(t, y*z*2, topoTestCut(tor, DimX)) // Lx = 768
	assert.Equal(t, [3]int{320, 480, 768}, [3]int{topoTestCut(tor, DimZ), topoTestCut(tor, DimY), topoTestCut(tor, DimX)})

	assert.InDelta(t, 2995.2e9, tor.BisectionBandwidth(), 1)
	assert.Equal(t, 2995.0, math.Round(tor.BisectionBandwidth()/topoTestGB))
	assert.Equal(t, 5990.0, math.Round(tor.GlobalBandwidth()/topoTestGB))
}

// topoTestCut is the whitepaper's product for cutting d (section 6.2.1),
// computed in node terms: Lz = X*Y*2, Ly = X*Z*Cy, Lx = Y*Z*2.
func topoTestCut(tor *Torus, d Dim) int {
	x, y, z := tor.NodeGeometry()
	cy := 1
	if tor.YClosed {
		cy = 2
	}
	switch d {
	case DimZ:
		return x * y * 2
	case DimY:
		return x * z * cy
	}
	return y * z * 2
}

func TestTopoBisectionOpenY(t *testing.T) {
	// Jaguar's geometry: y wins even closed, and halves when opened.
	tor, _, err := ForCabinets(25, 8)
	require.NoError(t, err)
	links, d := tor.BisectionLinks()
	assert.Equal(t, 25*24*2, links)
	assert.Equal(t, DimY, d)
	tor.YClosed = false
	links, d = tor.BisectionLinks()
	assert.Equal(t, 25*24*1, links) // Ly = X*Z*1 = 600 < Lx = 1536 < Lz = 1600
	assert.Equal(t, DimY, d)
	assert.Equal(t, 5616.0, math.Round(tor.BisectionBandwidth()/topoTestGB))
	assert.Equal(t, 11232.0, math.Round(tor.GlobalBandwidth()/topoTestGB))

	// The 40-cabinet example with y open: Ly = 10*24 = 240 now beats Lz = 320.
	tor, _, err = ForCabinets(10, 4)
	require.NoError(t, err)
	tor.YClosed = false
	links, d = tor.BisectionLinks()
	assert.Equal(t, 240, links)
	assert.Equal(t, DimY, d)
}

// The count always equals the whitepaper's products, minimised over the
// dimensions that can be cut, on a spread of tori.
func TestTopoBisectionMatchesFormula(t *testing.T) {
	for gx := 1; gx <= 5; gx++ {
		for gy := 1; gy <= 5; gy++ {
			for gz := 1; gz <= 5; gz++ {
				for _, yc := range []bool{true, false} {
					tor, err := NewTorus(gx, gy, gz, yc)
					require.NoError(t, err)
					want, wantDim := 0, DimZ
					first := true
					for _, d := range []Dim{DimZ, DimY, DimX} {
						if tor.Size(d) < 2 {
							continue
						}
						if n := topoTestCut(tor, d); first || n < want {
							want, wantDim, first = n, d, false
						}
					}
					links, d := tor.BisectionLinks()
					require.Equal(t, want, links, "%v", tor)
					require.Equal(t, wantDim, d, "%v", tor)
				}
			}
		}
	}
	one, err := NewTorus(1, 1, 1, true)
	require.NoError(t, err)
	links, _ := one.BisectionLinks()
	assert.Equal(t, 0, links)
	assert.Equal(t, 0.0, one.BisectionBandwidth())
}

func TestTopoCoordIndexRoundTrip(t *testing.T) {
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

func TestTopoGeminiOfNode(t *testing.T) {
	tor, err := NewTorus(2, 2, 2, true)
	require.NoError(t, err)
	for n := 0; n < tor.Nodes(); n++ {
		assert.Equal(t, n/2, tor.GeminiOfNode(n))
	}
	assert.Panics(t, func() { tor.GeminiOfNode(tor.Nodes()) })
	assert.Panics(t, func() { tor.GeminiOfNode(-1) })
}

func TestTopoConnections(t *testing.T) {
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

func TestTopoNeighbor(t *testing.T) {
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

// topoTestBFS returns the hop distance from src to every Gemini, walking
// Neighbor along the given dimensions only.
func topoTestBFS(tor *Torus, src int, dims []Dim) []int {
	dist := make([]int, tor.Geminis())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int{src}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		for _, d := range dims {
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

// topoTestWalk follows Neighbor n times from g; ok is false if it fell off.
func topoTestWalk(tor *Torus, g int, d Dim, dir Dir, n int) (int, bool) {
	for range n {
		var ok bool
		if g, ok = tor.Neighbor(g, d, dir); !ok {
			return -1, false
		}
	}
	return g, true
}

// Delta and Hops against brute force over Neighbor.
func TestTopoDeltaHopsBFS(t *testing.T) {
	shapes := [][3]int{
		{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 2}, {3, 3, 3},
		{4, 1, 3}, {1, 5, 2}, {5, 4, 3}, {6, 2, 4}, {3, 6, 5},
	}
	for _, s := range shapes {
		for _, yc := range []bool{true, false} {
			tor, err := NewTorus(s[0], s[1], s[2], yc)
			require.NoError(t, err)
			for a := 0; a < tor.Geminis(); a++ {
				all := topoTestBFS(tor, a, topoDims[:])
				for b := 0; b < tor.Geminis(); b++ {
					require.Equal(t, all[b], tor.Hops(a, b), "%v: %d->%d", tor, a, b)
				}
				for _, d := range topoDims {
					line := topoTestBFS(tor, a, []Dim{d})
					for b := 0; b < tor.Geminis(); b++ {
						// The Gemini with b's position along d and a's elsewhere.
						tgt := tor.Index(topoCoordWith(tor.Coord(a), d, topoCoordAt(tor.Coord(b), d)))
						n, dir, tie := tor.Delta(a, b, d)
						msg := fmt.Sprintf("%v: %v->%v along %v", tor, tor.Coord(a), tor.Coord(b), d)
						require.Equal(t, line[tgt], n, msg)
						if n == 0 {
							require.Equal(t, Dir(0), dir, msg)
							require.False(t, tie, msg)
							continue
						}
						got, ok := topoTestWalk(tor, a, d, dir, n)
						require.True(t, ok, msg)
						require.Equal(t, tgt, got, msg)
						other, ok := topoTestWalk(tor, a, d, -dir, n)
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

func TestTopoDeltaExamples(t *testing.T) {
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

func TestTopoErrorsAreArgument(t *testing.T) {
	_, _, err := ForCabinets(17, 1)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errs.Argument))
}
