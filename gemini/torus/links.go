package torus

import "iter"

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
	ConnectionRawBytesPerSecond = LinksPerConnection * LanesPerLink * LaneBitsPerSecond / bitsPerByte

	// BisectionConnectionBytesPerSecond is the per-connection, per-direction
	// bandwidth that the whitepaper's bisection formula uses, "bandwidth =
	// 2 x links x 4.68 GB/s" (whitepaper section 6.2.1). It is the rounded
	// form of ConnectionRawBytesPerSecond; BisectionBandwidth uses it so that
	// the 10x16x24 example gives the whitepaper's 2995 GB/s.
	BisectionConnectionBytesPerSecond = 4.68e9
)

// bitsPerByte converts lane bit rates to byte rates.
const bitsPerByte = 8

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

// Connection is one torus connection, in one direction of data flow: the
// Index-th of the Connections(Dim) parallel connections from Gemini From
// towards its neighbour To along Dim in direction Dir.
type Connection struct {
	From, To int
	Dim      Dim
	Dir      Dir
	Index    int
}

// Wiring yields every torus connection of t, in a fixed order: by Gemini
// From, then along x, y and z, then DirPlus before DirMinus, then by Index.
// A port with no neighbour (a dimension of size 1, the ends of an open y)
// yields nothing; each end of a connection between two Geminis is its own
// Connection, one per direction of data flow.
func (t *Torus) Wiring() iter.Seq[Connection] {
	return func(yield func(Connection) bool) {
		for g := range t.Geminis() {
			for _, d := range dims {
				for _, dir := range [2]Dir{DirPlus, DirMinus} {
					to, ok := t.Neighbor(g, d, dir)
					if !ok {
						continue
					}
					for i := range t.Connections(d) {
						if !yield(Connection{From: g, To: to, Dim: d, Dir: dir, Index: i}) {
							return
						}
					}
				}
			}
		}
	}
}
