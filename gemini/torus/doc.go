// Package torus is the geometry of the 3D torus that Gemini ASICs are wired
// into on a Cray XE/XK system: the packaging rules that turn a cabinet
// layout into a torus (Table 1 and the m-series), the coordinates of the
// Geminis and the nodes they serve, the torus connections between
// neighbours, dimension-order routes as paths of hops, and the whitepaper's
// bisection and global bandwidth.
//
// It is arithmetic only: it knows nothing of packets, time or the
// simulator, and imports only the standard library and internal/errs. The
// gemini package builds its simulated routers and links from it.
//
// "The whitepaper" below is [GEMINI-WP] and "the interconnect paper"
// [GEMINI-HOTI] (docs/references.md); sections are theirs.
//
// # Counting Geminis and counting nodes
//
// Two counting conventions meet here. The torus is built from Geminis, and
// everything that is indexed (Coord, Index, Neighbor, Delta, Hops, routes)
// counts Geminis: Gemini g is at Coord(g), x varying fastest. Table 1 and
// section 6.2.1 of the whitepaper count nodes: a blade is a 1x4x1 element
// of the torus holding two Geminis stacked in y, so the two nodes of a
// Gemini are counted along y, and a node geometry X x Y x Z is the Gemini
// torus X x Y/2 x Z. Torus.NodeGeometry converts.
//
// # Where things are
//
//	geometry.go   dimensions (Dim), directions (Dir), coordinates (Coord)
//	torus.go      the Torus: sizes, Gemini ids and their 16-bit limit,
//	              node to Gemini mapping, neighbours, minimal distances
//	packaging.go  blades, chassis, cabinets; the Table 1 classes
//	              (ForCabinets) and the m-series 2D tori (MSeries)
//	links.go      torus connections: their number per neighbour, their
//	              Gemini links and lanes, raw bandwidth, the wiring table
//	route.go      dimension-order routing: the next step, whole routes
//	bandwidth.go  the whitepaper's bisection and global bandwidth
//
// Errors wrap errs.Argument and, like the panics on out-of-range
// arguments, begin with "gemini:": they are the Gemini backend's messages.
package torus
