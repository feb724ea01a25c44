package dragonfly

// The internals the external tests reach.

// FromCoords is the id of the Aries in slot s of chassis c of group g.
func FromCoords(g, c, s int) int { return fromCoords(g, c, s) }

// ScanCandidates and NearCandidates are the two ways candidates finds
// the candidate links, which must agree.
func (d *Dragonfly) ScanCandidates(src, gs, gd int, buf *[MaxCandidates]int) (int, bool) {
	return d.scanCandidates(src, gs, gd, buf)
}

func (d *Dragonfly) NearCandidates(src, gs, gd int, buf *[MaxCandidates]int) (int, bool) {
	return d.nearCandidates(src, gs, gd, buf)
}
