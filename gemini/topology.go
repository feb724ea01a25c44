package gemini

// The 3D torus that Gemini ASICs are wired into: its geometry, the packaging
// rules that decide the geometry from a cabinet layout (Table 1 and the
// m-series), coordinates, neighbours, minimal hop counts, and the
// whitepaper's bisection and global bandwidth.
//
// References: "whitepaper" is gemini-network-whitepaper.txt and
// "interconnect paper" is gemini-system-interconnect-paper.txt, both under
// /work/shared/reference.
//
// Two counting conventions meet here. The torus is built from Geminis, and
// everything in this file that is indexed (Coord, Index, Neighbor, Delta,
// Hops) counts Geminis. Table 1 and section 6.2.1 of the whitepaper count
// nodes: a blade is a 1x4x1 element of the torus holding two Geminis stacked
// in y, so the two nodes of a Gemini are counted along y and a node geometry
// X x Y x Z is the Gemini torus X x Y/2 x Z. NodeGeometry converts.

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/errs"
)

// Packaging (whitepaper section 5).
const (
	// NodesPerGemini is the number of nodes one Gemini ASIC connects: it has
	// two NICs, each with its own HyperTransport 3 host interface (whitepaper
	// section 1; interconnect paper section I). Node n is attached to
	// Gemini n/NodesPerGemini.
	NodesPerGemini = 2

	// NodesPerBlade is the number of nodes on a blade card (whitepaper
	// section 5). The blade is a 1x4x1 element of the torus: its nodes are
	// counted along y.
	NodesPerBlade = 4

	// GeminisPerBlade is the number of Gemini ASICs on a blade's network
	// mezzanine card, "a pair of Gemini ASICs" (whitepaper section 5).
	GeminisPerBlade = 2

	// BladesPerChassis is the number of blades in a chassis (whitepaper
	// section 5). The chassis backplane connects them in z, so a chassis is
	// a 1x4x8 element of the torus.
	BladesPerChassis = 8

	// ChassisPerCabinet is the number of chassis in a cabinet (whitepaper
	// section 5).
	ChassisPerCabinet = 3

	// NodesPerCabinet is 96: four nodes per blade, eight blades per chassis,
	// three chassis per cabinet (whitepaper section 5).
	NodesPerCabinet = NodesPerBlade * BladesPerChassis * ChassisPerCabinet
)

// Torus connections (whitepaper sections 1, 3.1 and 6.2).
//
// A torus connection is what the whitepaper calls a "torus link" in sections
// 1 and 6.2 and a "3D Torus link" in 3.1: the bundle of Gemini links between
// two neighbouring Geminis in one direction of one dimension. Each Gemini has
// 10 of them (whitepaper section 1, Figure 2): 4 in x and 4 in z (2 towards
// each neighbour) and 2 in y (1 towards each neighbour).
const (
	// ConnectionsPerNeighborXZ is the number of torus connections from a
	// Gemini to each of its neighbours in x, and to each of its neighbours
	// in z: "4 each in two of the dimension ('x' and 'z')" counts both
	// neighbours, and "8 links connecting each Gemini to its neighbors in
	// the 'x' and 'z' directions" is 2 connections of LinksPerConnection
	// Gemini links to each neighbour (whitepaper section 1).
	ConnectionsPerNeighborXZ = 2

	// ConnectionsPerNeighborY is the number of torus connections from a
	// Gemini to each of its neighbours in y: "2 in the third dimension
	// ('y')" counts both neighbours, and "4 links in the 'y' dimension" is
	// one connection of LinksPerConnection Gemini links to each neighbour
	// (whitepaper section 1).
	ConnectionsPerNeighborY = 1

	// LinksPerConnection is the number of Gemini links that make up one torus
	// connection: "Each 3D Torus link is made up of 4 Gemini links"
	// (whitepaper section 3.1; interconnect paper section IV). The router's
	// 40 network tiles are "10 groups of 4" (whitepaper section 1).
	LinksPerConnection = 4

	// LanesPerLink is the number of lanes in one Gemini link, per
	// direction: a torus connection "comprises 4 groups of 3 lanes"
	// (whitepaper section 1; interconnect paper section I).
	LanesPerLink = 3

	// LaneBitsPerSecond is the raw signalling rate of one lane, per
	// direction: the link SERDES runs at 3.125 GHz (whitepaper sections 6.1
	// and 6.2). The interconnect paper (section V) gives 3.125 to 6.25 GHz;
	// we model the whitepaper's rate.
	LaneBitsPerSecond = 3.125e9

	// ConnectionRawBytesPerSecond is the raw bandwidth of one torus
	// connection per direction, 12 lanes x 3.125 Gb/s = 4.6875 GB/s
	// (whitepaper section 6.2, which rounds it to 4.68 GB/s), before any
	// packet or link protocol overhead.
	ConnectionRawBytesPerSecond = LinksPerConnection * LanesPerLink * LaneBitsPerSecond / topoBitsPerByte

	// BisectionConnectionBytesPerSecond is the per-connection, per-direction
	// bandwidth that the whitepaper's bisection formula uses, "bandwidth =
	// 2 x links x 4.68 GB/s" (whitepaper section 6.2.1). It is the rounded
	// form of ConnectionRawBytesPerSecond; BisectionBandwidth uses it so that
	// the 10x16x24 example gives the whitepaper's 2995 GB/s.
	BisectionConnectionBytesPerSecond = 4.68e9
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

// Unexported model parameters.
const (
	// topoBitsPerByte converts lane bit rates to byte rates.
	topoBitsPerByte = 8

	// topoDirectionsPerConnection: Gemini links are bidirectional, so the
	// bisection bandwidth counts every crossing connection twice, "multiply
	// the worst case number of links by twice the link speed" (whitepaper
	// section 6.2.1).
	topoDirectionsPerConnection = 2

	// topoGlobalPerBisection: "The global bandwidth of a torus network is
	// twice its bisection" (whitepaper section 6.2.2).
	topoGlobalPerBisection = 2

	// topoCutsClosed and topoCutsOpen are the number of places a plane
	// bisecting a dimension crosses it: twice round a ring, once across a
	// line. They are the whitepaper's Cy (section 6.2.1), which applies to
	// the always-closed x and z as the factor 2 of Lz and Lx.
	topoCutsClosed = 2
	topoCutsOpen   = 1

	// Table 1 of the whitepaper (section 5): the cabinet counts that bound
	// each class.
	topoClass0MaxCabinets = 3  // class 0: 1-3 cabinets, one row
	topoClass1MaxCabinets = 16 // class 1: 4-16 cabinets in one row
	topoClass2Rows        = 2  // class 2: 16-48 cabinets in two rows
	topoClass2MinCabinets = 16
	topoClass2MaxCabinets = 48

	// topoMSeriesMaxCabinets: m-series systems are "a single row of 1-6
	// cabinets" (whitepaper section 5.1).
	topoMSeriesMaxCabinets = 6

	// topoMSeriesGX is the size, in Geminis, of the dimension an m-series
	// 2D torus does not use. We put it in x, so that the whitepaper's two
	// factors (4Nx24, 12x8, ...) land on y and z, where they land in Table 1
	// (y from blades and chassis, z from blades in a chassis).
	topoMSeriesGX = 1
)

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

// topoDims lists the dimensions in index order.
var topoDims = [DimCount]Dim{DimX, DimY, DimZ}

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

// Coord is a Gemini's position in the torus, in Geminis along each
// dimension, each in [0, size).
type Coord struct{ X, Y, Z int }

// String returns "(x,y,z)".
func (c Coord) String() string { return fmt.Sprintf("(%d,%d,%d)", c.X, c.Y, c.Z) }

// topoCoordAt returns c's component along d.
func topoCoordAt(c Coord, d Dim) int {
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

// topoCoordWith returns c with its component along d set to v.
func topoCoordWith(c Coord, d Dim, v int) Coord {
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

// Class is a packaging class: the whitepaper's Table 1 classes 0 to 3
// (section 5), plus ClassM for the m-series 2D tori (section 5.1).
type Class uint8

// The packaging classes. Class0 to Class3 have the values of their Table 1
// numbers.
const (
	// Class0 is 1-3 cabinets in one row: 3N x 4 x 8 nodes, x between
	// chassis, y and z within a chassis.
	Class0 Class = iota
	// Class1 is 4-16 cabinets in one row: N x 12 x 8 nodes, x between
	// cabinets, y within a cabinet, z within a chassis.
	Class1
	// Class2 is 16-48 cabinets in two rows of N: N x 12 x 16 nodes, x
	// between the cabinets of a row, y within a cabinet, z connects the
	// rows.
	Class2
	// Class3 is R rows of N cabinets otherwise: N x 4R x 24 nodes, x between
	// the cabinets of a row, y between rows, z within a cabinet.
	Class3
	// ClassM is an m-series system: one row of 1-6 cabinets in a 2D torus
	// (whitepaper section 5.1).
	ClassM
)

// String returns "class 0" to "class 3", or "m-series".
func (c Class) String() string {
	switch c {
	case Class0, Class1, Class2, Class3:
		return fmt.Sprintf("class %d", uint8(c))
	case ClassM:
		return "m-series"
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

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

// topoFromNodes builds the torus for a node geometry x x y x z (y counted in
// nodes, as in Table 1).
func topoFromNodes(x, y, z int, yClosed bool) (*Torus, error) {
	if y%NodesPerGemini != 0 {
		return nil, fmt.Errorf("gemini: node geometry %dx%dx%d: y must be a multiple of %d nodes per Gemini: %w",
			x, y, z, NodesPerGemini, errs.Argument)
	}
	return NewTorus(x, y/NodesPerGemini, z, yClosed)
}

// ForCabinets returns the torus of the whitepaper's Table 1 (section 5) for
// rows rows of perRow cabinets each, and its class. y is closed. The class is
// decided from the layout:
//
//   - one row of 1-3 cabinets: class 0, 3N x 4 x 8 nodes;
//   - one row of 4-16 cabinets: class 1, N x 12 x 8 nodes;
//   - two rows of 8-24 cabinets (16-48 in all): class 2, N x 12 x 16 nodes;
//   - any other layout of two or more rows: class 3, N x 4R x 24 nodes.
//
// Class 3 is the geometry of every multi-row layout outside class 2, not only
// of more than 48 cabinets: the whitepaper's own 40-cabinet example, 4 rows of
// 10, is 10x16x24 (section 6.2.1), and Jaguar's 8 rows of 25 is 25x32x24.
// Table 1 has no class for one row of more than 16 cabinets, so that is
// rejected, as are counts below 1 and tori over MaxGeminis. An even number of
// rows is "strongly preferred" (section 5) but not required. The error wraps
// errs.Argument; the class is meaningless when the error is not nil.
func ForCabinets(perRow, rows int) (*Torus, Class, error) {
	if perRow < 1 || rows < 1 {
		return nil, 0, fmt.Errorf("gemini: %d rows of %d cabinets: need at least one row of at least one cabinet: %w",
			rows, perRow, errs.Argument)
	}
	if perRow > MaxGeminis || rows > MaxGeminis {
		// Cannot fit, and bounding here keeps the products below from
		// overflowing.
		return nil, 0, fmt.Errorf("gemini: %d rows of %d cabinets: more than the %d Geminis a %d-bit id can address: %w",
			rows, perRow, MaxGeminis, GeminiIDBits, errs.Argument)
	}
	var (
		class   Class
		x, y, z int
	)
	cabinets := perRow * rows
	switch {
	case rows == 1 && perRow <= topoClass0MaxCabinets:
		class = Class0
		x, y, z = ChassisPerCabinet*perRow, NodesPerBlade, BladesPerChassis
	case rows == 1 && perRow <= topoClass1MaxCabinets:
		class = Class1
		x, y, z = perRow, NodesPerBlade*ChassisPerCabinet, BladesPerChassis
	case rows == 1:
		return nil, 0, fmt.Errorf("gemini: one row of %d cabinets: Table 1 allows at most %d cabinets in one row (class 1); use two or more rows: %w",
			perRow, topoClass1MaxCabinets, errs.Argument)
	case rows == topoClass2Rows && cabinets >= topoClass2MinCabinets && cabinets <= topoClass2MaxCabinets:
		class = Class2
		x, y, z = perRow, NodesPerBlade*ChassisPerCabinet, topoClass2Rows*BladesPerChassis
	default:
		class = Class3
		x, y, z = perRow, NodesPerBlade*rows, BladesPerChassis*ChassisPerCabinet
	}
	t, err := topoFromNodes(x, y, z, true)
	if err != nil {
		return nil, 0, fmt.Errorf("gemini: %d rows of %d cabinets (%v): %w", rows, perRow, class, err)
	}
	return t, class, nil
}

// MSeries returns the 2D torus of an m-series system of cabinets cabinets in
// one row (whitepaper section 5.1), 1 to 6. The whitepaper's 2D geometries
// count nodes and are placed on y and z, with x of size 1 (Closed(DimX) stays
// true, but x has no neighbours). y is closed.
//
//   - One cabinet: singleCabinetY x 8 nodes, singleCabinetY being 4, 8 or 12
//     (the whitepaper's "4x8, 8x8 or 12x8": one, two or three chassis of
//     4-node blades stacked in y, the 8 blades of a chassis in z). That is
//     1 x 2 x 8, 1 x 4 x 8 or 1 x 6 x 8 Geminis.
//   - N > 1 cabinets: 4N x 24 nodes, 1 x 2N x 24 Geminis (y across the
//     cabinets, z the 24 blades of a cabinet). singleCabinetY is ignored.
//
// The error wraps errs.Argument.
func MSeries(cabinets int, singleCabinetY int) (*Torus, error) {
	if cabinets < 1 || cabinets > topoMSeriesMaxCabinets {
		return nil, fmt.Errorf("gemini: m-series of %d cabinets: must be 1 to %d: %w",
			cabinets, topoMSeriesMaxCabinets, errs.Argument)
	}
	if cabinets > 1 {
		return topoFromNodes(topoMSeriesGX, NodesPerBlade*cabinets, BladesPerChassis*ChassisPerCabinet, true)
	}
	chassis := singleCabinetY / NodesPerBlade
	if singleCabinetY%NodesPerBlade != 0 || chassis < 1 || chassis > ChassisPerCabinet {
		return nil, fmt.Errorf("gemini: single-cabinet m-series %dx%d: the first size must be one of %v: %w",
			singleCabinetY, BladesPerChassis, topoMSeriesSingleSizes(), errs.Argument)
	}
	return topoFromNodes(topoMSeriesGX, singleCabinetY, BladesPerChassis, true)
}

// topoMSeriesSingleSizes lists the y sizes, in nodes, of a single-cabinet
// m-series torus: one blade's NodesPerBlade for each populated chassis.
func topoMSeriesSingleSizes() []int {
	sizes := make([]int, 0, ChassisPerCabinet)
	for chassis := 1; chassis <= ChassisPerCabinet; chassis++ {
		sizes = append(sizes, chassis*NodesPerBlade)
	}
	return sizes
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
	switch d {
	case DimX:
		return t.GX
	case DimY:
		return t.GY
	case DimZ:
		return t.GZ
	}
	panic(fmt.Sprintf("gemini: invalid dimension %v", d))
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

// Connections returns the number of torus connections from a Gemini to each
// of its neighbours along d, in each direction of data flow:
// ConnectionsPerNeighborXZ for x and z, ConnectionsPerNeighborY for y, and 0
// along a dimension of size 1. Each connection carries
// ConnectionRawBytesPerSecond per direction.
//
// The count is per port direction (DirPlus or DirMinus), as the hardware
// cables them. In a closed ring of size 2 both ports lead to the same, only
// neighbour, so the pair is joined by 2*Connections(d) connections: Neighbor
// returns that neighbour for both directions and Delta reports the move as a
// tie, leaving a router free to use both port sets. At the ends of an open
// y, a Gemini has connections on one side only.
// It panics if d is not DimX, DimY or DimZ.
func (t *Torus) Connections(d Dim) int {
	if t.Size(d) == 1 {
		return 0
	}
	if d == DimY {
		return ConnectionsPerNeighborY
	}
	return ConnectionsPerNeighborXZ
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
	p := topoCoordAt(c, d) + int(dir)
	if p < 0 || p >= size {
		if !t.Closed(d) {
			return -1, false
		}
		p = (p + size) % size
	}
	return t.Index(topoCoordWith(c, d, p)), true
}

// Delta returns the minimal number of hops along d from Gemini a's position
// to Gemini b's (ignoring the other dimensions), the direction that achieves
// it, and whether the other direction is minimal too (tie), which happens
// half-way round a closed ring of even size, including next door in a ring
// of size 2. On a tie dir is DirPlus. When the positions along d are equal
// n is 0, dir is 0 and tie is false. Along an open y there is only one way,
// never a tie. It panics if a or b is out of range or d is not a dimension.
func (t *Torus) Delta(a, b int, d Dim) (n int, dir Dir, tie bool) {
	from, to := topoCoordAt(t.Coord(a), d), topoCoordAt(t.Coord(b), d)
	if from == to {
		return 0, 0, false
	}
	if !t.Closed(d) {
		if to > from {
			return to - from, DirPlus, false
		}
		return from - to, DirMinus, false
	}
	size := t.Size(d)
	up := (to - from + size) % size
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
	for _, d := range topoDims {
		n, _, _ := t.Delta(a, b, d)
		h += n
	}
	return h
}

// BisectionLinks returns the number of torus connections crossing the worst
// case bisection, and the dimension it cuts (whitepaper section 6.2.1). For
// each dimension of size at least 2 the count is the number of Geminis in a
// plane across it times Connections times the places a cut crosses it (2
// round a ring, 1 across an open y); in the whitepaper's node terms these
// are Lz = X*Y*2, Ly = X*Z*Cy and Lx = Y*Z*2. The smallest wins, ties going
// to z, then y, then x, the whitepaper's order. Odd sizes cannot be halved
// exactly; the formula is applied as it stands. A single Gemini has no
// dimension to cut: BisectionLinks returns 0 and DimZ.
func (t *Torus) BisectionLinks() (links int, d Dim) {
	links, d = -1, DimZ
	for _, dim := range [DimCount]Dim{DimZ, DimY, DimX} {
		size := t.Size(dim)
		if size < 2 {
			continue
		}
		cuts := topoCutsOpen
		if t.Closed(dim) {
			cuts = topoCutsClosed
		}
		n := t.Geminis() / size * t.Connections(dim) * cuts
		if links < 0 || n < links {
			links, d = n, dim
		}
	}
	if links < 0 {
		return 0, DimZ
	}
	return links, d
}

// BisectionBandwidth returns the bisection bandwidth in bytes per second,
// 2 x BisectionLinks x BisectionConnectionBytesPerSecond, both directions of
// every crossing connection at the whitepaper's 4.68 GB/s (section 6.2.1).
// The 40-cabinet 10x16x24 example gives 2995.2e9.
func (t *Torus) BisectionBandwidth() float64 {
	links, _ := t.BisectionLinks()
	return topoDirectionsPerConnection * float64(links) * BisectionConnectionBytesPerSecond
}

// GlobalBandwidth returns the global bandwidth in bytes per second, twice the
// bisection bandwidth (whitepaper section 6.2.2): the all-to-all or random
// traffic rate when half of the traffic crosses the bisection.
func (t *Torus) GlobalBandwidth() float64 {
	return topoGlobalPerBisection * t.BisectionBandwidth()
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
