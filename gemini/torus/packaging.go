package torus

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

	// MSeriesMaxCabinets: m-series systems are "a single row of 1-6
	// cabinets" (whitepaper section 5.1).
	MSeriesMaxCabinets = 6
)

// Table 1 of the whitepaper (section 5): the cabinet counts that bound each
// class.
const (
	class0MaxCabinets = 3  // class 0: 1-3 cabinets, one row
	class1MaxCabinets = 16 // class 1: 4-16 cabinets in one row
	class2Rows        = 2  // class 2: 16-48 cabinets in two rows
	class2MinCabinets = 16
	class2MaxCabinets = 48
)

// mSeriesGX is the size, in Geminis, of the dimension an m-series 2D torus
// does not use. We put it in x, so that the whitepaper's two factors (4Nx24,
// 12x8, ...) land on y and z, where they land in Table 1 (y from blades and
// chassis, z from blades in a chassis).
const mSeriesGX = 1

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

// fromNodes builds the torus for a node geometry x x y x z (y counted in
// nodes, as in Table 1).
func fromNodes(x, y, z int, yClosed bool) (*Torus, error) {
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
	case rows == 1 && perRow <= class0MaxCabinets:
		class = Class0
		x, y, z = ChassisPerCabinet*perRow, NodesPerBlade, BladesPerChassis
	case rows == 1 && perRow <= class1MaxCabinets:
		class = Class1
		x, y, z = perRow, NodesPerBlade*ChassisPerCabinet, BladesPerChassis
	case rows == 1:
		return nil, 0, fmt.Errorf("gemini: one row of %d cabinets: Table 1 allows at most %d cabinets in one row (class 1); use two or more rows: %w",
			perRow, class1MaxCabinets, errs.Argument)
	case rows == class2Rows && cabinets >= class2MinCabinets && cabinets <= class2MaxCabinets:
		class = Class2
		x, y, z = perRow, NodesPerBlade*ChassisPerCabinet, class2Rows*BladesPerChassis
	default:
		class = Class3
		x, y, z = perRow, NodesPerBlade*rows, BladesPerChassis*ChassisPerCabinet
	}
	t, err := fromNodes(x, y, z, true)
	if err != nil {
		return nil, 0, fmt.Errorf("gemini: %d rows of %d cabinets (%v): %w", rows, perRow, class, err)
	}
	return t, class, nil
}

// MSeries returns the 2D torus of an m-series system of cabinets cabinets in
// one row (whitepaper section 5.1), 1 to MSeriesMaxCabinets. The
// whitepaper's 2D geometries count nodes and are placed on y and z, with x
// of size 1 (Closed(DimX) stays true, but x has no neighbours). y is
// closed.
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
	if cabinets < 1 || cabinets > MSeriesMaxCabinets {
		return nil, fmt.Errorf("gemini: m-series of %d cabinets: must be 1 to %d: %w",
			cabinets, MSeriesMaxCabinets, errs.Argument)
	}
	if cabinets > 1 {
		return fromNodes(mSeriesGX, NodesPerBlade*cabinets, BladesPerChassis*ChassisPerCabinet, true)
	}
	chassis := singleCabinetY / NodesPerBlade
	if singleCabinetY%NodesPerBlade != 0 || chassis < 1 || chassis > ChassisPerCabinet {
		return nil, fmt.Errorf("gemini: single-cabinet m-series %dx%d: the first size must be one of %v: %w",
			singleCabinetY, BladesPerChassis, MSeriesSingleCabinetSizes(), errs.Argument)
	}
	return fromNodes(mSeriesGX, singleCabinetY, BladesPerChassis, true)
}

// MSeriesSingleCabinetSizes lists the y sizes, in nodes, that MSeries
// accepts for a single cabinet: one blade's NodesPerBlade for each
// populated chassis (4, 8 and 12).
func MSeriesSingleCabinetSizes() []int {
	sizes := make([]int, 0, ChassisPerCabinet)
	for chassis := 1; chassis <= ChassisPerCabinet; chassis++ {
		sizes = append(sizes, chassis*NodesPerBlade)
	}
	return sizes
}
