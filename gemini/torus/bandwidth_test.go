package torus

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gigabyte is a decimal gigabyte, the unit of the whitepaper's GB/s.
const gigabyte = 1e9

// Whitepaper sections 6.2.1 and 6.2.2: the 40-cabinet example.
func TestBisectionWhitepaperExample(t *testing.T) {
	tor, class, err := ForCabinets(10, 4)
	require.NoError(t, err)
	require.Equal(t, Class3, class)
	x, y, z := tor.NodeGeometry()
	require.Equal(t, [3]int{10, 16, 24}, [3]int{x, y, z})

	links, d := tor.BisectionLinks()
	assert.Equal(t, 320, links)
	assert.Equal(t, DimZ, d)
	// The whitepaper's three products agree with the per-dimension counts.
	assert.Equal(t, x*y*2, cutProduct(tor, DimZ)) // Lz = 320
	assert.Equal(t, x*z*2, cutProduct(tor, DimY)) // Ly = 480
	assert.Equal(t, y*z*2, cutProduct(tor, DimX)) // Lx = 768
	assert.Equal(t, [3]int{320, 480, 768}, [3]int{cutProduct(tor, DimZ), cutProduct(tor, DimY), cutProduct(tor, DimX)})

	assert.InDelta(t, 2995.2e9, tor.BisectionBandwidth(), 1)
	assert.Equal(t, 2995.0, math.Round(tor.BisectionBandwidth()/gigabyte))
	assert.Equal(t, 5990.0, math.Round(tor.GlobalBandwidth()/gigabyte))
}

// cutProduct is the whitepaper's product for cutting d (section 6.2.1),
// computed in node terms: Lz = X*Y*2, Ly = X*Z*Cy, Lx = Y*Z*2.
func cutProduct(tor *Torus, d Dim) int {
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

func TestBisectionOpenY(t *testing.T) {
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
	assert.Equal(t, 5616.0, math.Round(tor.BisectionBandwidth()/gigabyte))
	assert.Equal(t, 11232.0, math.Round(tor.GlobalBandwidth()/gigabyte))

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
func TestBisectionMatchesFormula(t *testing.T) {
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
						if n := cutProduct(tor, d); first || n < want {
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
