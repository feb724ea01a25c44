package torus

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

// Whitepaper sections 1, 3.1, 5 and 6.2: the constants and how they relate.
func TestConstants(t *testing.T) {
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
	assert.Equal(t, 4.68, math.Floor(ConnectionRawBytesPerSecond/gigabyte*100)/100,
		"the whitepaper's 4.68 GB/s is the raw rate truncated")
	assert.Equal(t, 65536, MaxGeminis)
}

// Whitepaper section 5, Table 1 (and section 6.2.1 for the 40-cabinet
// example, section 5 for Jaguar).
func TestForCabinetsTable1(t *testing.T) {
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
func TestForCabinetsNodesPerCabinet(t *testing.T) {
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

func TestForCabinetsRejected(t *testing.T) {
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
func TestMSeries(t *testing.T) {
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

func TestErrorsAreArgument(t *testing.T) {
	_, _, err := ForCabinets(17, 1)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errs.Argument))
}
