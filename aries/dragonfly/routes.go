package dragonfly

import (
	"fmt"
	"slices"

	"github.com/gopgas/gopgas/internal/errs"
)

// Route choices and candidates.
const (
	// MaxCandidates is the size of a buffer of candidate global links
	// (CandidateLinks): the global ports of an Aries and of its one-hop
	// neighbours in a full group (nearPorts).
	MaxCandidates = nearPorts

	// nearPorts is the number of global ports of an Aries and its green
	// and black neighbours in a full group.
	nearPorts = (1 + GreenLinksPerAries + ChassisPerGroup - 1) * GlobalLinksPerAries

	// scanLinks bounds the number of global links between two groups
	// that Minimal scans directly for the ones nearest the source; above
	// it, Minimal looks at the ports of the source and its neighbours
	// instead. It is also the size of the candidate buffer, which must hold
	// the global ports of the source and its one-hop neighbours
	// (nearPorts).
	scanLinks = MaxCandidates

	// segmentChoices is the number of ways to route one local segment:
	// 2 orders (green or black first) x BlackLinksPerPeer lanes.
	orders         = 2
	segmentChoices = orders * BlackLinksPerPeer
)

// MinimalChoices returns the number of distinct values of choice that
// Minimal(src, dst, choice) tells apart; any choice is valid, and choice is
// taken modulo this number. Between groups it is 36 times the number of
// candidate global links (see Minimal); within a group it is 6 (two orders
// of the green and black hops, three black lanes); 1 when src == dst.
// Choices that differ only in a digit a path does not use (an order when
// there is only one hop, a lane when there is no black hop) give the same
// path.
func (d *Dragonfly) MinimalChoices(src, dst int) (int, error) {
	if err := d.checkPair("MinimalChoices", src, dst); err != nil {
		return 0, err
	}
	switch gs, gd := src/AriesPerGroup, dst/AriesPerGroup; {
	case src == dst:
		return 1, nil
	case gs == gd:
		return segmentChoices, nil
	default:
		var buf [scanLinks]int
		n, _ := d.candidates(src, gs, gd, &buf)
		return n * segmentChoices * segmentChoices, nil
	}
}

// Minimal returns a minimal route from Aries src to Aries dst (whitepaper,
// Cray XC Routing): within a group at most one green and one black hop;
// between groups at most one green and one black hop in each of the source
// and destination groups and exactly one global hop. It has at most
// MaxMinimalHops hops, and none when src == dst.
//
// Between groups the global link is one of the candidates nearest src:
// those of src itself if it has any to dst's group, else those of its green
// and black neighbours, else all of the links between the groups, as the
// Aries minimal route tables are modelled here. The whitepaper supports
// this reading: with six groups and 48-cable bundles "each Aries will be
// directly connected to all of the other groups, reducing the minimal path
// length to three" (Cray XC Routing). Every global link between the groups
// also gives a minimal path, through MinimalVia.
//
// choice selects among the minimal routes, as a mixed-radix number read
// from its least significant digit: the candidate global link (in
// ascending link index, see GlobalLink), then for the source segment the
// order (green first or black first) and the black lane (0..2), then the
// same two for the destination segment; within a group only the order and
// lane. Uniformly random choices give uniformly random routes among the
// MinimalChoices(src, dst) combinations.
func (d *Dragonfly) Minimal(src, dst int, choice uint64) (Path, error) {
	if err := d.checkPair("Minimal", src, dst); err != nil {
		return nil, err
	}
	return d.appendMinimal(make(Path, 0, MaxMinimalHops), src, dst, choice), nil
}

// MinimalVia returns the minimal route from Aries src to Aries dst, in
// different groups, through global link link (0 to
// LinksPerCable*CablesBetween-1 of the two groups, as GlobalLink numbers
// them). choice selects the order and lane of the source segment and then
// of the destination segment, as for Minimal.
func (d *Dragonfly) MinimalVia(src, dst, link int, choice uint64) (Path, error) {
	if err := d.checkPair("MinimalVia", src, dst); err != nil {
		return nil, err
	}
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	if gs == gd {
		return nil, fmt.Errorf("aries: Dragonfly.MinimalVia: Aries %d and %d are both in group %d: no global link to route through: %w",
			src, dst, gs, errs.Argument)
	}
	if n := LinksPerCable * d.cables(gs, gd); link < 0 || link >= n {
		return nil, fmt.Errorf("aries: Dragonfly.MinimalVia: link %d between groups %d and %d outside [0,%d): %w",
			link, gs, gd, n, errs.Argument)
	}
	ch := chooser(choice)
	return d.appendVia(make(Path, 0, MaxMinimalHops), src, dst, d.globalHop(gs, gd, link), &ch), nil
}

// NonMinimal returns the non-minimal (Valiant) route from Aries src to
// Aries dst through Aries via: the minimal route from src to via chosen by
// up, then the minimal route from via to dst chosen by down (whitepaper,
// Cray XC Routing: a global non-minimal path routes "up" to an
// intermediate Aries anywhere in the system and then "down" to the
// destination using a minimal path; within a group the intermediate is the
// "root"). It has at most MaxNonMinimalHops hops; with src, dst and via in
// one group, at most two green and two black. The hardware picks via at
// random, from the whole system for a global route and from the group for
// a local one; any via is accepted here.
func (d *Dragonfly) NonMinimal(src, dst, via int, up, down uint64) (Path, error) {
	if err := d.checkPair("NonMinimal", src, dst); err != nil {
		return nil, err
	}
	if err := d.checkAries("NonMinimal", "intermediate Aries", via); err != nil {
		return nil, err
	}
	p := d.appendMinimal(make(Path, 0, MaxNonMinimalHops), src, via, up)
	return d.appendMinimal(p, via, dst, down), nil
}

// The unchecked forms below serve a simulator's routing, which routes a
// packet at every Aries it crosses: they take ids the caller knows to be
// in range (an Aries of d, a group of d other than the source's) and do not
// check them, and they append to a path instead of allocating one.

// AppendMinimal appends Minimal(src, dst, choice) to p: src and dst must be
// Aries of d.
func (d *Dragonfly) AppendMinimal(p Path, src, dst int, choice uint64) Path {
	return d.appendMinimal(p, src, dst, choice)
}

// AppendMinimalVia appends MinimalVia(src, dst, link, choice) to p: src and
// dst must be Aries of d in different groups, and link one of the links
// between their groups.
func (d *Dragonfly) AppendMinimalVia(p Path, src, dst, link int, choice uint64) Path {
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	ch := chooser(choice)
	return d.appendVia(p, src, dst, d.globalHop(gs, gd, link), &ch)
}

// AppendMinimalViaHead appends to p the hops of MinimalVia(src, dst,
// link, choice) up to and including its global hop, as AppendMinimalVia
// makes them: what a source Aries weighs of a candidate route, made
// without its destination segment.
func (d *Dragonfly) AppendMinimalViaHead(p Path, src, dst, link int, choice uint64) Path {
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	ch := chooser(choice)
	h := d.globalHop(gs, gd, link)
	return append(d.appendLocal(p, src, h.From, &ch), h)
}

// CandidateLinks stores in buf, ascending, the indexes (as GlobalLink
// numbers them) of Minimal's candidate global links from Aries src to group
// gd, those whose end in src's group is nearest src, and returns how many
// and whether that is all of the links between the groups (then buf may be
// left unfilled and index i stands for link i). src must be an Aries of d
// and gd another group than src's.
func (d *Dragonfly) CandidateLinks(src, gd int, buf *[MaxCandidates]int) (n int, all bool) {
	return d.candidates(src, src/AriesPerGroup, gd, buf)
}

// GreenFirst returns the choice, for MinimalVia and AppendMinimalVia, of
// the route whose local segments both take their green hop first, the
// source segment on black lane srcLane and the destination segment on
// dstLane (0..BlackLinksPerPeer-1). For Minimal within a group,
// GreenFirst(lane, 0) chooses the green-first route on lane lane.
func GreenFirst(srcLane, dstLane uint64) uint64 {
	return orders * (srcLane + BlackLinksPerPeer*orders*dstLane)
}

// LocalDistance is the number of hops of a minimal route between two
// Aries of one group: one if they differ in chassis, one if in slot.
func LocalDistance(a, b int) int {
	_, ca, sa := coords(a)
	_, cb, sb := coords(b)
	n := 0
	if ca != cb {
		n++
	}
	if sa != sb {
		n++
	}
	return n
}

// candidates stores in buf, ascending, the indexes of the global links
// from group gs to group gd (gs != gd) whose gs end is nearest Aries src
// (of gs), and returns how many and whether that is all of the links (then
// buf may be left unfilled and index i stands for link i). It scans the
// links when there are few, and otherwise looks only at the global ports of
// src and its neighbours; both give the same answer.
func (d *Dragonfly) candidates(src, gs, gd int, buf *[scanLinks]int) (n int, all bool) {
	if links := LinksPerCable * d.cables(gs, gd); links <= scanLinks {
		return d.scanCandidates(src, gs, gd, buf)
	}
	return d.nearCandidates(src, gs, gd, buf)
}

// scanCandidates is candidates by scanning every link between the
// groups; there must be at most scanLinks.
func (d *Dragonfly) scanCandidates(src, gs, gd int, buf *[scanLinks]int) (n int, all bool) {
	links := LinksPerCable * d.cables(gs, gd)
	best := MaxLocalMinimalHops + 1
	for i := range links {
		dist := LocalDistance(src, d.linkOwner(gs, gd, i))
		if dist < best {
			best, n = dist, 0
		}
		if dist == best {
			buf[n] = i
			n++
		}
	}
	return n, n == links
}

// nearCandidates is candidates by looking at the global ports of
// src, then of its one-hop neighbours: at most nearPorts ports, all
// distinct links. If none leads to gd, every link is two hops away.
func (d *Dragonfly) nearCandidates(src, gs, gd int, buf *[scanLinks]int) (n int, all bool) {
	n = d.nearLinks(src, gd, buf, 0)
	if n == 0 {
		_, c, s := coords(src)
		for t := range AriesPerChassis {
			if t != s {
				n = d.nearLinks(fromCoords(gs, c, t), gd, buf, n)
			}
		}
		for e := range d.chassisIn(gs) {
			if e != c {
				n = d.nearLinks(fromCoords(gs, e, s), gd, buf, n)
			}
		}
	}
	links := LinksPerCable * d.cables(gs, gd)
	if n == 0 || n == links {
		return links, true
	}
	slices.Sort(buf[:n])
	return n, false
}

// nearLinks appends to buf[n:] the indexes of the links from a's group
// to group gd that leave by a's global ports, and returns the new count.
func (d *Dragonfly) nearLinks(a, gd int, buf *[scanLinks]int, n int) int {
	g, c, s := coords(a)
	for p := range GlobalLinksPerAries {
		if h, i, ok := d.portLink(g, c, s, p); ok && h == gd {
			buf[n] = i
			n++
		}
	}
	return n
}

// chooser reads a route choice as a mixed-radix number, least
// significant digit first.
type chooser uint64

// pick returns the next digit, in [0, n).
func (c *chooser) pick(n int) int {
	v := uint64(*c)
	*c = chooser(v / uint64(n))
	return int(v % uint64(n))
}

// appendMinimal appends Minimal's route from src to dst to p.
func (d *Dragonfly) appendMinimal(p Path, src, dst int, choice uint64) Path {
	ch := chooser(choice)
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	if gs == gd {
		return d.appendLocal(p, src, dst, &ch)
	}
	var buf [scanLinks]int
	n, all := d.candidates(src, gs, gd, &buf)
	i := ch.pick(n)
	if !all {
		i = buf[i]
	}
	return d.appendVia(p, src, dst, d.globalHop(gs, gd, i), &ch)
}

// appendVia appends the route from src to dst through the global hop
// link, the order and lane of each segment read from ch.
func (d *Dragonfly) appendVia(p Path, src, dst int, link Hop, ch *chooser) Path {
	p = d.appendLocal(p, src, link.From, ch)
	p = append(p, link)
	return d.appendLocal(p, link.To, dst, ch)
}

// appendLocal appends a minimal route between two Aries of one group:
// a green hop to the destination's slot if they differ in slot, a black hop
// to its chassis if they differ in chassis; the order (digit 0 green
// first, 1 black first) and the black lane read from ch. Both digits are
// read whatever the hops, so that the digits of later segments keep their
// place.
func (d *Dragonfly) appendLocal(p Path, a, b int, ch *chooser) Path {
	order, lane := ch.pick(orders), ch.pick(BlackLinksPerPeer)
	g, ca, sa := coords(a)
	_, cb, sb := coords(b)
	switch {
	case a == b:
		return p
	case ca == cb:
		return append(p, d.greenHop(g, ca, sa, sb))
	case sa == sb:
		return append(p, d.blackHop(g, ca, sa, cb, lane))
	case order == 0:
		return append(p, d.greenHop(g, ca, sa, sb), d.blackHop(g, ca, sb, cb, lane))
	default:
		return append(p, d.blackHop(g, ca, sa, cb, lane), d.greenHop(g, cb, sa, sb))
	}
}
