package dragonfly

import (
	"fmt"
	"strings"

	"github.com/gopgas/gopgas/internal/errs"
)

// LinkClass is the kind of a network link: green (within a chassis), black
// (between the chassis of a group) or global (between groups).
type LinkClass uint8

// The link classes (whitepaper, Dragonfly Implementation).
const (
	// LinkGreen is a rank-1 link on the chassis backplane, electrical.
	LinkGreen LinkClass = iota
	// LinkBlack is a rank-2 link on copper cables between chassis of a
	// group, electrical.
	LinkBlack
	// LinkGlobal is a link between groups, optical.
	LinkGlobal
)

// LinkClassCount is the number of link classes.
const LinkClassCount = 3

// String returns "green", "black" or "global".
func (c LinkClass) String() string {
	switch c {
	case LinkGreen:
		return "green"
	case LinkBlack:
		return "black"
	case LinkGlobal:
		return "global"
	}
	return fmt.Sprintf("LinkClass(%d)", uint8(c))
}

// PortClass returns the class of network port port in this model's
// numbering, and false if port is not in [0, NetworkPortsPerAries).
func PortClass(port int) (LinkClass, bool) {
	switch {
	case port < FirstGreenPort || port >= NetworkPortsPerAries:
		return 0, false
	case port < FirstBlackPort:
		return LinkGreen, true
	case port < FirstGlobalPort:
		return LinkBlack, true
	}
	return LinkGlobal, true
}

// AriesLoc is the position of an Aries: its group, its chassis in the group
// (0..ChassisPerGroup-1) and its slot (blade) in the chassis
// (0..AriesPerChassis-1).
type AriesLoc struct{ Group, Chassis, Slot int }

// String returns "g<group>c<chassis>s<slot>", e.g. "g3c2s15".
func (l AriesLoc) String() string { return fmt.Sprintf("g%dc%ds%d", l.Group, l.Chassis, l.Slot) }

// NodeLoc is the position of a node: its Aries and the NIC of that Aries
// (0..NodesPerAries-1) that serves it.
type NodeLoc struct{ Group, Chassis, Slot, NIC int }

// Aries returns the position of the node's Aries.
func (l NodeLoc) Aries() AriesLoc { return AriesLoc{l.Group, l.Chassis, l.Slot} }

// String returns "g<group>c<chassis>s<slot>n<nic>", e.g. "g3c2s15n1".
func (l NodeLoc) String() string { return fmt.Sprintf("%vn%d", l.Aries(), l.NIC) }

// Hop is one router-to-router step: over a link of class Class, leaving
// Aries From by network port FromPort and entering Aries To by port ToPort
// (ports numbered as at FirstGreenPort).
type Hop struct {
	Class          LinkClass
	From, FromPort int
	To, ToPort     int
}

// String returns e.g. "12:31 -global-> 4000:35".
func (h Hop) String() string {
	return fmt.Sprintf("%d:%d -%v-> %d:%d", h.From, h.FromPort, h.Class, h.To, h.ToPort)
}

// Path is a route as its hops in order. The empty path routes an Aries to
// itself (two nodes of one Aries talk through it without a hop).
type Path []Hop

// Count returns the number of hops of class c.
func (p Path) Count(c LinkClass) int {
	n := 0
	for _, h := range p {
		if h.Class == c {
			n++
		}
	}
	return n
}

// String returns the Aries visited and the classes between them, e.g.
// "3 -green-> 5 -global-> 4021 -black-> 4053"; "empty" for no hops.
func (p Path) String() string {
	if len(p) == 0 {
		return "empty"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", p[0].From)
	for _, h := range p {
		fmt.Fprintf(&b, " -%v-> %d", h.Class, h.To)
	}
	return b.String()
}

// AriesAt returns the id of the Aries at l. The error wraps errs.Argument
// if l is not a position of the system.
func (d *Dragonfly) AriesAt(l AriesLoc) (int, error) {
	if l.Group < 0 || l.Group >= d.groups || l.Chassis < 0 || l.Chassis >= d.chassisIn(l.Group) ||
		l.Slot < 0 || l.Slot >= AriesPerChassis {
		return 0, fmt.Errorf("aries: Dragonfly.AriesAt: %v: no such Aries in %v: %w", l, d, errs.Argument)
	}
	return fromCoords(l.Group, l.Chassis, l.Slot), nil
}

// AriesLocation returns the position of Aries a, the inverse of AriesAt.
func (d *Dragonfly) AriesLocation(a int) (AriesLoc, error) {
	if err := d.checkAries("AriesLocation", "Aries", a); err != nil {
		return AriesLoc{}, err
	}
	g, c, s := coords(a)
	return AriesLoc{g, c, s}, nil
}

// NodeAt returns the id of the node at l. The error wraps errs.Argument if
// l is not a position of the system.
func (d *Dragonfly) NodeAt(l NodeLoc) (int, error) {
	a, err := d.AriesAt(l.Aries())
	if err != nil || l.NIC < 0 || l.NIC >= NodesPerAries {
		return 0, fmt.Errorf("aries: Dragonfly.NodeAt: %v: no such node in %v: %w", l, d, errs.Argument)
	}
	return a*NodesPerAries + l.NIC, nil
}

// NodeLocation returns the position of node n, the inverse of NodeAt.
func (d *Dragonfly) NodeLocation(n int) (NodeLoc, error) {
	if n < 0 || n >= d.Nodes() {
		return NodeLoc{}, fmt.Errorf("aries: Dragonfly.NodeLocation: node %d outside [0,%d): %w", n, d.Nodes(), errs.Argument)
	}
	g, c, s := coords(n / NodesPerAries)
	return NodeLoc{g, c, s, n % NodesPerAries}, nil
}

// AriesOfNode returns the Aries that node n is attached to,
// n / NodesPerAries.
func (d *Dragonfly) AriesOfNode(n int) (int, error) {
	if n < 0 || n >= d.Nodes() {
		return 0, fmt.Errorf("aries: Dragonfly.AriesOfNode: node %d outside [0,%d): %w", n, d.Nodes(), errs.Argument)
	}
	return n / NodesPerAries, nil
}

// GreenNeighbors returns, in ascending order, the GreenLinksPerAries Aries
// that a has a green link to: the other Aries of its chassis.
func (d *Dragonfly) GreenNeighbors(a int) ([]int, error) {
	if err := d.checkAries("GreenNeighbors", "Aries", a); err != nil {
		return nil, err
	}
	g, c, s := coords(a)
	out := make([]int, 0, GreenLinksPerAries)
	for t := range AriesPerChassis {
		if t != s {
			out = append(out, fromCoords(g, c, t))
		}
	}
	return out, nil
}

// BlackNeighbors returns, in ascending order, the Aries that a has black
// links to (BlackLinksPerPeer to each): the Aries in the same slot of each
// other chassis of its group, 5 in a full group.
func (d *Dragonfly) BlackNeighbors(a int) ([]int, error) {
	if err := d.checkAries("BlackNeighbors", "Aries", a); err != nil {
		return nil, err
	}
	g, c, s := coords(a)
	n := d.chassisIn(g)
	out := make([]int, 0, n-1)
	for e := range n {
		if e != c {
			out = append(out, fromCoords(g, e, s))
		}
	}
	return out, nil
}

// Link returns the link that leaves Aries a by network port port (0 to
// NetworkPortsPerAries-1, numbered as at FirstGreenPort) as a Hop, and
// true; or the zero Hop and false if the port is not cabled: a black port
// towards a chassis a partial group lacks, or a global port left unused
// because the bundles do not fill the group's connectors.
func (d *Dragonfly) Link(a, port int) (Hop, bool, error) {
	if err := d.checkAries("Link", "Aries", a); err != nil {
		return Hop{}, false, err
	}
	class, ok := PortClass(port)
	if !ok {
		return Hop{}, false, fmt.Errorf("aries: Dragonfly.Link: port %d of Aries %d outside [0,%d): %w",
			port, a, NetworkPortsPerAries, errs.Argument)
	}
	g, c, s := coords(a)
	switch class {
	case LinkGreen:
		return d.greenHop(g, c, s, unskip(port-FirstGreenPort, s)), true, nil
	case LinkBlack:
		q, lane := (port-FirstBlackPort)/BlackLinksPerPeer, (port-FirstBlackPort)%BlackLinksPerPeer
		e := unskip(q, c)
		if e >= d.chassisIn(g) {
			return Hop{}, false, nil
		}
		return d.blackHop(g, c, s, e, lane), true, nil
	}
	h, i, ok := d.portLink(g, c, s, port-FirstGlobalPort)
	if !ok {
		return Hop{}, false, nil
	}
	return d.globalHop(g, h, i), true, nil
}

// coords splits an Aries id into group, chassis and slot. Ids are dense
// because only the last group may be partial.
func coords(a int) (g, c, s int) {
	return a / AriesPerGroup, a % AriesPerGroup / AriesPerChassis, a % AriesPerChassis
}

// fromCoords is the inverse of coords.
func fromCoords(g, c, s int) int { return (g*ChassisPerGroup+c)*AriesPerChassis + s }

// skip numbers peer among 0..n-1 without own: the index of a port
// towards peer. unskip is its inverse.
func skip(peer, own int) int {
	if peer > own {
		return peer - 1
	}
	return peer
}

func unskip(q, own int) int {
	if q >= own {
		return q + 1
	}
	return q
}

// greenHop is the green hop from (g, c, s) to slot t of the chassis.
func (d *Dragonfly) greenHop(g, c, s, t int) Hop {
	return Hop{
		Class: LinkGreen,
		From:  fromCoords(g, c, s), FromPort: FirstGreenPort + skip(t, s),
		To: fromCoords(g, c, t), ToPort: FirstGreenPort + skip(s, t),
	}
}

// blackHop is the black hop on lane lane from (g, c, s) to chassis e of
// the group.
func (d *Dragonfly) blackHop(g, c, s, e, lane int) Hop {
	return Hop{
		Class: LinkBlack,
		From:  fromCoords(g, c, s), FromPort: FirstBlackPort + BlackLinksPerPeer*skip(e, c) + lane,
		To: fromCoords(g, e, s), ToPort: FirstBlackPort + BlackLinksPerPeer*skip(c, e) + lane,
	}
}
