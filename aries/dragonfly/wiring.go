package dragonfly

import (
	"fmt"
	"slices"

	"github.com/gopgas/gopgas/internal/errs"
)

// The backplane's connectors (whitepaper, Dragonfly Implementation).
const (
	// bladesPerPair and pairsPerChassis: the backplane takes the
	// global links "from each pair of blades to five CXP connectors"
	// (whitepaper, Dragonfly Implementation).
	bladesPerPair   = 2
	pairsPerChassis = AriesPerChassis / bladesPerPair

	// linksPerBladePerCable is 2: each CXP connector of a blade pair
	// carries 4 links, modelled as two global ports from each blade (10
	// links per blade over 5 connectors).
	linksPerBladePerCable = LinksPerCable / bladesPerPair
)

// CablesBetween returns the number of cables between groups ga and gb: the
// bundle size between full groups, possibly fewer with a partial last
// group, 0 if ga == gb.
func (d *Dragonfly) CablesBetween(ga, gb int) (int, error) {
	if err := d.checkGroups("CablesBetween", ga, gb); err != nil {
		return 0, err
	}
	if ga == gb {
		return 0, nil
	}
	return d.cables(ga, gb), nil
}

// TotalCables returns the number of optical cables in the system, each
// counted once. With full groups it is the whitepaper's
// bundle x (groups - 1) x groups / 2 (TotalCables function).
func (d *Dragonfly) TotalCables() int {
	if d.lastChassis == ChassisPerGroup {
		return d.groups * (d.groups - 1) / 2 * d.bundle
	}
	// Bundles between the full groups, then the partial group's cables.
	full := d.groups - 1
	n := full * (full - 1) / 2 * d.bundle
	for g := range full {
		n += d.cables(g, full)
	}
	return n
}

// GlobalLink returns global link i (0 to LinksPerCable*CablesBetween-1)
// from group ga to group gb as a Hop from its end in ga to its end in gb:
// link i mod LinksPerCable of cable i / LinksPerCable of the bundle.
// GlobalLink(gb, ga, i) is the same link in the other direction.
func (d *Dragonfly) GlobalLink(ga, gb, i int) (Hop, error) {
	if err := d.checkGroups("GlobalLink", ga, gb); err != nil {
		return Hop{}, err
	}
	n := 0
	if ga != gb {
		n = LinksPerCable * d.cables(ga, gb)
	}
	if i < 0 || i >= n {
		return Hop{}, fmt.Errorf("aries: Dragonfly.GlobalLink: link %d between groups %d and %d outside [0,%d): %w",
			i, ga, gb, n, errs.Argument)
	}
	return d.globalHop(ga, gb, i), nil
}

// GlobalOwners returns, in ascending order and without repeats, the Aries
// of group ga that own a global link to group gb; empty if ga == gb.
func (d *Dragonfly) GlobalOwners(ga, gb int) ([]int, error) {
	if err := d.checkGroups("GlobalOwners", ga, gb); err != nil {
		return nil, err
	}
	if ga == gb {
		return []int{}, nil
	}
	n := LinksPerCable * d.cables(ga, gb)
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, d.linkOwner(ga, gb, i))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// peerIndex is r, the index of group h among the peers of group g
// (g != h); peerGroup is its inverse.
func (d *Dragonfly) peerIndex(g, h int) int { return (h - g - 1 + d.groups) % d.groups }

func (d *Dragonfly) peerGroup(g, r int) int { return (g + 1 + r) % d.groups }

// bundleMajor reports whether group g hosts all of its bundles, cable j
// of the bundle to peer r at connector r*bundle + j. Always true of a full
// group (bundle*(groups-1) <= MaxCablesPerGroup).
func (d *Dragonfly) bundleMajor(g int) bool {
	return d.bundle*(d.groups-1) <= CablesPerChassis*d.chassisIn(g)
}

// hosted returns how many cables of its bundle to peer r group g hosts:
// all of them in bundle-major order, the first ceil((40c - r)/(G-1)) in
// peer-major order (cable j at connector j*(G-1) + r < 40c).
func (d *Dragonfly) hosted(g, r int) int {
	if d.bundleMajor(g) {
		return d.bundle
	}
	room := CablesPerChassis*d.chassisIn(g) - r
	if room <= 0 {
		return 0
	}
	return min(d.bundle, (room+d.groups-2)/(d.groups-1))
}

// cables is the number of cables between groups g != h: the bundle
// indexes both ends host.
func (d *Dragonfly) cables(g, h int) int {
	return min(d.hosted(g, d.peerIndex(g, h)), d.hosted(h, d.peerIndex(h, g)))
}

// connector is the connector of group g holding cable j of the bundle
// to peer r (j below hosted).
func (d *Dragonfly) connector(g, r, j int) int {
	if d.bundleMajor(g) {
		return r*d.bundle + j
	}
	return j*(d.groups-1) + r
}

// connectorCable is the inverse of connector: the peer index and
// cable index for connector k of group g, and whether the connector is
// assigned at all (the cable may still be missing at the other end).
func (d *Dragonfly) connectorCable(g, k int) (r, j int, ok bool) {
	if d.bundle == 0 {
		return 0, 0, false
	}
	if d.bundleMajor(g) {
		r, j = k/d.bundle, k%d.bundle
		return r, j, r < d.groups-1
	}
	r, j = k%(d.groups-1), k/(d.groups-1)
	return r, j, j < d.bundle
}

// connectorEnd returns the Aries and network port of group g that
// carry link l (0..LinksPerCable-1) of connector k.
func (d *Dragonfly) connectorEnd(g, k, l int) (aries, port int) {
	c := d.chassisIn(g)
	chassis, m := k%c, k/c
	pair, conn := m%pairsPerChassis, m/pairsPerChassis
	slot := bladesPerPair*pair + l/linksPerBladePerCable
	port = FirstGlobalPort + linksPerBladePerCable*conn + l%linksPerBladePerCable
	return fromCoords(g, chassis, slot), port
}

// portConnector is the inverse of connectorEnd: the connector and
// link position of global port p (0..GlobalLinksPerAries-1) of (g, c, s).
func (d *Dragonfly) portConnector(g, c, s, p int) (k, l int) {
	pair, half := s/bladesPerPair, s%bladesPerPair
	conn := p / linksPerBladePerCable
	l = linksPerBladePerCable*half + p%linksPerBladePerCable
	m := pair + pairsPerChassis*conn
	return m*d.chassisIn(g) + c, l
}

// portLink returns the group h that global port p of (g, c, s) leads
// to and the index of its link among those from g to h, or false if the
// port is not cabled.
func (d *Dragonfly) portLink(g, c, s, p int) (h, i int, ok bool) {
	k, l := d.portConnector(g, c, s, p)
	r, j, ok := d.connectorCable(g, k)
	if !ok {
		return 0, 0, false
	}
	h = d.peerGroup(g, r)
	if j >= d.cables(g, h) {
		return 0, 0, false
	}
	return h, LinksPerCable*j + l, true
}

// linkOwner is the Aries of group g at link i from g to h.
func (d *Dragonfly) linkOwner(g, h, i int) int {
	a, _ := d.connectorEnd(g, d.connector(g, d.peerIndex(g, h), i/LinksPerCable), i%LinksPerCable)
	return a
}

// globalHop is link i from group g to group h as a hop.
func (d *Dragonfly) globalHop(g, h, i int) Hop {
	j, l := i/LinksPerCable, i%LinksPerCable
	from, fromPort := d.connectorEnd(g, d.connector(g, d.peerIndex(g, h), j), l)
	to, toPort := d.connectorEnd(h, d.connector(h, d.peerIndex(h, g), j), l)
	return Hop{Class: LinkGlobal, From: from, FromPort: fromPort, To: to, ToPort: toPort}
}
