package torus

import "fmt"

// Dim is a torus dimension.
type Dim uint8

// The three torus dimensions. x and z have ConnectionsPerNeighborXZ
// connections to each neighbour, y has ConnectionsPerNeighborY.
const (
	DimX Dim = iota
	DimY
	DimZ
)

// DimCount is the number of torus dimensions.
const DimCount = 3

// dims lists the dimensions in index order.
var dims = [DimCount]Dim{DimX, DimY, DimZ}

// String returns "x", "y" or "z".
func (d Dim) String() string {
	switch d {
	case DimX:
		return "x"
	case DimY:
		return "y"
	case DimZ:
		return "z"
	}
	return fmt.Sprintf("Dim(%d)", uint8(d))
}

// ParseDim returns the dimension whose String is s ("x", "y" or "z"), and
// whether there is one.
func ParseDim(s string) (Dim, bool) {
	for _, d := range dims {
		if d.String() == s {
			return d, true
		}
	}
	return 0, false
}

// Dir is a direction along a dimension: DirPlus or DirMinus. Delta returns
// the zero Dir when no move is needed.
type Dir int8

// The two directions along a dimension.
const (
	DirPlus  Dir = 1
	DirMinus Dir = -1
)

// String returns "+" or "-" ("0" for the zero Dir).
func (d Dir) String() string {
	switch d {
	case DirPlus:
		return "+"
	case DirMinus:
		return "-"
	case 0:
		return "0"
	}
	return fmt.Sprintf("Dir(%d)", int8(d))
}

// ParseDir returns the direction whose String is s ("+" or "-"), and
// whether there is one.
func ParseDir(s string) (Dir, bool) {
	for _, d := range [...]Dir{DirPlus, DirMinus} {
		if d.String() == s {
			return d, true
		}
	}
	return 0, false
}

// Index numbers the two ports of a dimension for tables indexed by
// direction: 0 for DirPlus (and the zero Dir), 1 for DirMinus.
func (d Dir) Index() int {
	if d < 0 {
		return 1
	}
	return 0
}

// Coord is a Gemini's position in the torus, in Geminis along each
// dimension, each in [0, size).
type Coord struct{ X, Y, Z int }

// String returns "(x,y,z)".
func (c Coord) String() string { return fmt.Sprintf("(%d,%d,%d)", c.X, c.Y, c.Z) }

// At returns c's component along d. It panics if d is not DimX, DimY or
// DimZ.
func (c Coord) At(d Dim) int {
	switch d {
	case DimX:
		return c.X
	case DimY:
		return c.Y
	case DimZ:
		return c.Z
	}
	panic(fmt.Sprintf("gemini: invalid dimension %v", d))
}

// With returns c with its component along d set to v. It panics if d is
// not DimX, DimY or DimZ.
func (c Coord) With(d Dim, v int) Coord {
	switch d {
	case DimX:
		c.X = v
	case DimY:
		c.Y = v
	case DimZ:
		c.Z = v
	default:
		panic(fmt.Sprintf("gemini: invalid dimension %v", d))
	}
	return c
}
