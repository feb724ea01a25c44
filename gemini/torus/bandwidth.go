package torus

// The whitepaper's bisection and global bandwidth (section 6.2).
const (
	// directionsPerConnection: Gemini links are bidirectional, so the
	// bisection bandwidth counts every crossing connection twice, "multiply
	// the worst case number of links by twice the link speed" (whitepaper
	// section 6.2.1).
	directionsPerConnection = 2

	// globalPerBisection: "The global bandwidth of a torus network is
	// twice its bisection" (whitepaper section 6.2.2).
	globalPerBisection = 2

	// cutsClosed and cutsOpen are the number of places a plane bisecting a
	// dimension crosses it: twice round a ring, once across a line. They
	// are the whitepaper's Cy (section 6.2.1), which applies to the
	// always-closed x and z as the factor 2 of Lz and Lx.
	cutsClosed = 2
	cutsOpen   = 1
)

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
		cuts := cutsOpen
		if t.Closed(dim) {
			cuts = cutsClosed
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
	return directionsPerConnection * float64(links) * BisectionConnectionBytesPerSecond
}

// GlobalBandwidth returns the global bandwidth in bytes per second, twice the
// bisection bandwidth (whitepaper section 6.2.2): the all-to-all or random
// traffic rate when half of the traffic crosses the bisection.
func (t *Torus) GlobalBandwidth() float64 {
	return globalPerBisection * t.BisectionBandwidth()
}
