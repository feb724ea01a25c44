package torus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ParseDim and ParseDir read back what String writes, and nothing else.
func TestParseDimDir(t *testing.T) {
	for _, d := range dims {
		got, ok := ParseDim(d.String())
		assert.True(t, ok, "%v", d)
		assert.Equal(t, d, got)
	}
	for _, dir := range []Dir{DirPlus, DirMinus} {
		got, ok := ParseDir(dir.String())
		assert.True(t, ok, "%v", dir)
		assert.Equal(t, dir, got)
	}
	for _, bad := range []string{"", "w", "X", " x", "xy", "Dim(3)"} {
		_, ok := ParseDim(bad)
		assert.False(t, ok, "%q", bad)
	}
	for _, bad := range []string{"", "0", "++", " +", "plus"} {
		_, ok := ParseDir(bad)
		assert.False(t, ok, "%q", bad)
	}
}

func TestDirIndex(t *testing.T) {
	assert.Equal(t, 0, DirPlus.Index())
	assert.Equal(t, 1, DirMinus.Index())
	assert.Equal(t, 0, Dir(0).Index())
}

func TestCoordAtWith(t *testing.T) {
	c := Coord{1, 2, 3}
	assert.Equal(t, [3]int{1, 2, 3}, [3]int{c.At(DimX), c.At(DimY), c.At(DimZ)})
	assert.Equal(t, Coord{7, 2, 3}, c.With(DimX, 7))
	assert.Equal(t, Coord{1, 7, 3}, c.With(DimY, 7))
	assert.Equal(t, Coord{1, 2, 7}, c.With(DimZ, 7))
	assert.Equal(t, Coord{1, 2, 3}, c, "With returns a copy")
	assert.PanicsWithValue(t, "gemini: invalid dimension Dim(3)", func() { c.At(Dim(3)) })
	assert.PanicsWithValue(t, "gemini: invalid dimension Dim(4)", func() { c.With(Dim(4), 0) })
}
