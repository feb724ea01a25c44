package torus

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/errs"
)

// Gemini addressing (whitepaper section 3).
const (
	// GeminiIDBits is the width of a Gemini's unique identifier, the
	// destination field of every packet (whitepaper section 3; interconnect
	// paper section III).
	GeminiIDBits = 16

	// MaxGeminis is the largest number of Geminis one network can address,
	// 2^GeminiIDBits. NewTorus rejects larger tori.
	MaxGeminis = 1 << GeminiIDBits
)

// Torus is the Gemini-level 3D torus: GX x GY x GZ Geminis, each hosting
// NodesPerGemini nodes. x and z are always closed rings, as in the
// whitepaper's standard configurations (section 6.2.1); y is a ring if
// YClosed and a line otherwise.
//
// Gemini g has the coordinate Coord(g), with x varying fastest:
// g = X + GX*(Y + GY*Z). Node n is attached to Gemini n/NodesPerGemini.
//
// Build a Torus with NewTorus, ForCabinets or MSeries; the methods assume the
// sizes were validated and are not changed afterwards (YClosed may be).
type Torus struct {
	GX, GY, GZ int // Geminis along each dimension
	YClosed    bool
}

// NewTorus returns a gx x gy x gz torus of Geminis with y closed or open.
// Each size must be at least 1, and the torus at most MaxGeminis Geminis.
// The error wraps errs.Argument.
func NewTorus(gx, gy, gz int, yClosed bool) (*Torus, error) {
	if gx < 1 || gy < 1 || gz < 1 {
		return nil, fmt.Errorf("gemini: torus %dx%dx%d Geminis: every size must be at least 1: %w",
			gx, gy, gz, errs.Argument)
	}
	// Bound each factor first so that the product cannot overflow.
	if gx > MaxGeminis || gy > MaxGeminis || gz > MaxGeminis || gx*gy*gz > MaxGeminis {
		return nil, fmt.Errorf("gemini: torus %dx%dx%d Geminis: more than the %d a %d-bit Gemini id can address: %w",
			gx, gy, gz, MaxGeminis, GeminiIDBits, errs.Argument)
	}
	return &Torus{GX: gx, GY: gy, GZ: gz, YClosed: yClosed}, nil
}

// Geminis returns the number of Geminis, GX*GY*GZ.
func (t *Torus) Geminis() int { return t.GX * t.GY * t.GZ }

// Nodes returns the number of nodes, NodesPerGemini per Gemini.
func (t *Torus) Nodes() int { return t.Geminis() * NodesPerGemini }

// NodeGeometry returns the geometry as Table 1 and section 6.2.1 of the
// whitepaper write it, with y counted in nodes: GX x NodesPerGemini*GY x GZ.
func (t *Torus) NodeGeometry() (x, y, z int) {
	return t.GX, t.GY * NodesPerGemini, t.GZ
}

// Size returns the number of Geminis along d. It panics if d is not DimX,
// DimY or DimZ.
func (t *Torus) Size(d Dim) int {
	// The sizes read as the coordinate of the far corner, one past the last.
	return Coord{X: t.GX, Y: t.GY, Z: t.GZ}.At(d)
}

// Coord returns Gemini g's coordinate. It panics if g is not in
// [0, Geminis()).
func (t *Torus) Coord(g int) Coord {
	if g < 0 || g >= t.Geminis() {
		panic(fmt.Sprintf("gemini: Gemini %d outside the %v torus [0,%d)", g, t, t.Geminis()))
	}
	return Coord{X: g % t.GX, Y: g / t.GX % t.GY, Z: g / (t.GX * t.GY)}
}

// Index returns the Gemini at c, the inverse of Coord. It panics if a
// component of c is outside [0, size).
func (t *Torus) Index(c Coord) int {
	if c.X < 0 || c.X >= t.GX || c.Y < 0 || c.Y >= t.GY || c.Z < 0 || c.Z >= t.GZ {
		panic(fmt.Sprintf("gemini: coordinate %v outside the %v torus", c, t))
	}
	return c.X + t.GX*(c.Y+t.GY*c.Z)
}

// GeminiOfNode returns the Gemini that node is attached to,
// node/NodesPerGemini. It panics if node is not in [0, Nodes()).
func (t *Torus) GeminiOfNode(node int) int {
	if node < 0 || node >= t.Nodes() {
		panic(fmt.Sprintf("gemini: node %d outside the %v torus [0,%d)", node, t, t.Nodes()))
	}
	return node / NodesPerGemini
}

// Closed reports whether d is a ring: always for x and z, YClosed for y.
// Whether or not it is closed, a dimension of size 1 has no neighbours.
// It panics if d is not DimX, DimY or DimZ.
func (t *Torus) Closed(d Dim) bool {
	switch d {
	case DimX, DimZ:
		return true
	case DimY:
		return t.YClosed
	}
	panic(fmt.Sprintf("gemini: invalid dimension %v", d))
}

// Neighbor returns the Gemini one hop from g along d in direction dir, and
// true; or -1 and false where there is none: along a dimension of size 1,
// or past either end of an open y. In a closed ring of size 2 both
// directions lead to the other Gemini (see Connections). It panics if g is
// out of range, d is not a dimension or dir is neither DirPlus nor DirMinus.
func (t *Torus) Neighbor(g int, d Dim, dir Dir) (int, bool) {
	if dir != DirPlus && dir != DirMinus {
		panic(fmt.Sprintf("gemini: invalid direction %v", dir))
	}
	c := t.Coord(g)
	size := t.Size(d)
	if size == 1 {
		return -1, false
	}
	p := c.At(d) + int(dir)
	if p < 0 || p >= size {
		if !t.Closed(d) {
			return -1, false
		}
		p = (p + size) % size
	}
	return t.Index(c.With(d, p)), true
}

// Delta returns the minimal number of hops along d from Gemini a's position
// to Gemini b's (ignoring the other dimensions), the direction that achieves
// it, and whether the other direction is minimal too (tie), which happens
// half-way round a closed ring of even size, including next door in a ring
// of size 2. On a tie dir is DirPlus. When the positions along d are equal
// n is 0, dir is 0 and tie is false. Along an open y there is only one way,
// never a tie. It panics if a or b is out of range or d is not a dimension.
func (t *Torus) Delta(a, b int, d Dim) (n int, dir Dir, tie bool) {
	return t.DeltaAt(t.Coord(a), t.Coord(b), d)
}

// DeltaAt is Delta between the Geminis at coordinates a and b, which must
// be in the torus: a router that asks along every dimension finds the two
// coordinates once (Coord divides by the torus's sizes).
func (t *Torus) DeltaAt(a, b Coord, d Dim) (n int, dir Dir, tie bool) {
	return RingDelta(a.At(d), b.At(d), t.Size(d), t.Closed(d))
}

// RingDelta is Delta along one dimension, from position from to position
// to, both in [0, size), of a ring (closed) or a line: the minimal number
// of hops, their direction and whether the other way is as short.
func RingDelta(from, to, size int, closed bool) (n int, dir Dir, tie bool) {
	if from == to {
		return 0, 0, false
	}
	if !closed {
		if to > from {
			return to - from, DirPlus, false
		}
		return from - to, DirMinus, false
	}
	up := to - from // (to - from) mod size, both being in [0, size)
	if up < 0 {
		up += size
	}
	down := size - up
	switch {
	case up < down:
		return up, DirPlus, false
	case down < up:
		return down, DirMinus, false
	}
	return up, DirPlus, true
}

// Hops returns the minimal number of router-to-router hops from Gemini a to
// Gemini b: the sum of Delta over the dimensions. It is 0 when a == b (two
// nodes on one Gemini talk through it without a hop). It panics if a or b is
// out of range.
func (t *Torus) Hops(a, b int) int {
	h := 0
	ca, cb := t.Coord(a), t.Coord(b)
	for _, d := range dims {
		n, _, _ := t.DeltaAt(ca, cb, d)
		h += n
	}
	return h
}

// String describes the torus, e.g. "10x8x24 Geminis (10x16x24 nodes), y
// closed".
func (t *Torus) String() string {
	x, y, z := t.NodeGeometry()
	yState := "open"
	if t.YClosed {
		yState = "closed"
	}
	return fmt.Sprintf("%dx%dx%d Geminis (%dx%dx%d nodes), y %s", t.GX, t.GY, t.GZ, x, y, z, yState)
}
