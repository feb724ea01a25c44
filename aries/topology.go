package aries

// The Dragonfly network that Aries ASICs are wired into on a Cray XC system:
// its packaging constants and link rates, the Dragonfly built from a number
// of groups, cabinets or chassis, addressing of Aries and nodes, the green,
// black and global neighbours of an Aries, minimal and non-minimal (Valiant)
// routes as sequences of hops, and the whitepaper's bisection and global
// bandwidth.
//
// References: "whitepaper" is aries-xc-network-whitepaper.txt under
// /work/shared/reference. It has no section numbers, so sections are cited
// by their titles: "Aries", "Aries Router", "Dragonfly Implementation" (for
// "Dragonfly Implementation for the Cray XC Series"), "Cray XC Routing",
// "Aries Performance" and "Cray XC Series Configuration".
//
// Nothing here is a table over the links of the system. A Dragonfly is three
// integers; neighbours, the owner of every global port and every route are
// computed arithmetically, so the largest system (241 groups, 92,544 nodes)
// costs no more memory than the smallest.
//
// # Model
//
// A group is six chassis of sixteen Aries (one per blade), four nodes per
// Aries. Within a chassis every Aries has one green link to each of the 15
// others; within a group every Aries has BlackLinksPerPeer black links to the
// Aries in the same slot of each other chassis. Between groups, global links
// travel in cables of LinksPerCable links; the cables from each group are
// divided into bundles of equal size, one bundle to each other group
// (whitepaper, Cray XC Series Configuration).
//
// Only the last group may be partial, holding 1 to 5 chassis (whitepaper,
// Cray XC Series Configuration: "All groups except the last must be full").
// Aries ids are therefore dense: Aries (group, chassis, slot) is
// (group*ChassisPerGroup + chassis)*AriesPerChassis + slot, and node
// (group, chassis, slot, nic) is that times NodesPerAries plus nic.
//
// The port numbering is documented at FirstGreenPort and the wiring of the
// global links at Dragonfly.
//
// # Routing
//
// Routes are computed whole at the source, as paths of hops over named
// ports. Minimal routes take the global links nearest the source (see
// Minimal), which is what makes most non-minimal (Valiant) routes through
// a uniformly random intermediate Aries six or seven hops long on systems
// of 6 to 16 groups, as the whitepaper says, and longer on the largest
// systems, where only 4 links join each pair of groups (Cray XC Routing;
// the tests log the distributions).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gopgas/gopgas/internal/errs"
)

// Packaging (whitepaper, Dragonfly Implementation, and Table 1 "Cray XC
// component counts").
const (
	// NodesPerAries is the number of nodes one Aries connects: "A single
	// Aries device provides the network connectivity for all four nodes on
	// a Cray XC blade" (whitepaper, Aries). NIC n of an Aries serves its
	// node n.
	NodesPerAries = 4

	// AriesPerChassis is the number of blades, each with one Aries, in a
	// chassis: "Each chassis has 16 such 64-node blades" (whitepaper,
	// Dragonfly Implementation; the 64 is nodes per chassis).
	AriesPerChassis = 16

	// ChassisPerCabinet: "each cabinet has three chassis (192 nodes)"
	// (whitepaper, Dragonfly Implementation).
	ChassisPerCabinet = 3

	// CabinetsPerGroup: the network "is constructed from two-cabinet
	// electrical groups with 384 nodes per group" (whitepaper, Dragonfly
	// Implementation).
	CabinetsPerGroup = 2

	// ChassisPerGroup is 6, "the six chassis housed in two adjacent
	// cabinets" (whitepaper, Dragonfly Implementation).
	ChassisPerGroup = ChassisPerCabinet * CabinetsPerGroup

	// AriesPerGroup is 96 (whitepaper, Table 1).
	AriesPerGroup = AriesPerChassis * ChassisPerGroup

	// NodesPerChassis is 64 (whitepaper, Dragonfly Implementation).
	NodesPerChassis = NodesPerAries * AriesPerChassis

	// NodesPerCabinet is 192 (whitepaper, Dragonfly Implementation).
	NodesPerCabinet = NodesPerChassis * ChassisPerCabinet

	// NodesPerGroup is 384 (whitepaper, Dragonfly Implementation and Cray
	// XC Series Configuration).
	NodesPerGroup = NodesPerChassis * ChassisPerGroup
)

// Links of one Aries (whitepaper, Aries Router and Dragonfly
// Implementation).
const (
	// GreenLinksPerAries is 15: "The chassis backplane provides
	// connectivity in the rank-1 (green) dimension; each Aries is connected
	// to each of the other 15 Aries in the chassis" (whitepaper, Dragonfly
	// Implementation). One link to each.
	GreenLinksPerAries = AriesPerChassis - 1

	// BlackLinksPerPeer is 3: "The rank-2 (black) dimension is formed by
	// connecting three links from each Aries to its peer in each of the
	// other chassis making up the group" (whitepaper, Dragonfly
	// Implementation). Table 1's "9X copper cable" is one such set of 3
	// links of 3 lanes.
	BlackLinksPerPeer = 3

	// BlackLinksPerAries is 15, BlackLinksPerPeer to each of the 5 other
	// chassis of a full group (whitepaper, Dragonfly Implementation).
	BlackLinksPerAries = BlackLinksPerPeer * (ChassisPerGroup - 1)

	// GlobalLinksPerAries: "Each Aries provides 10 global links"
	// (whitepaper, Dragonfly Implementation).
	GlobalLinksPerAries = 10

	// NetworkPortsPerAries is 40: "Forty of the tiles, referred to as
	// 'network tiles,' connect to the SerDes linking devices together"
	// (whitepaper, Aries Router), and 15 + 15 + 10 = 40.
	NetworkPortsPerAries = GreenLinksPerAries + BlackLinksPerAries + GlobalLinksPerAries

	// ProcessorPortsPerAries is 8: "Eight of the tiles, called 'processor
	// tiles' connect to the Netlink block and hence the Aries NICs"
	// (whitepaper, Aries Router).
	ProcessorPortsPerAries = 8

	// TileRows and TileColumns: "The router tiles are arranged in a 6 × 8
	// matrix" (whitepaper, Aries Router), 48 tiles, 40 network and 8
	// processor.
	TileRows    = 6
	TileColumns = 8
)

// TileOfPort is the router tile that serves network port port: tile t is
// in row t / TileColumns and column t % TileColumns, the network ports
// fill the first 40 tiles in order and the processor tiles are the last
// eight, the sixth row. The whitepaper does not give the layout; assumed.
func TileOfPort(port int) int { return port }

// Router port numbering. The whitepaper gives the port counts (40 network
// tiles: 15 green, 15 black, 10 global) but not which tile serves which
// link. This model numbers the network ports of every Aries as follows:
//
//   - 0..14 (FirstGreenPort + q): the green link to slot q of the same
//     chassis, counting slots without the Aries's own, so q is the peer's
//     slot if it is below the own slot and the slot minus one otherwise;
//   - 15..29 (FirstBlackPort + 3q + lane): lane 0..2 of the black links to
//     the Aries in the same slot of chassis q of the group, counting chassis
//     without the own in the same way;
//   - 30..39 (FirstGlobalPort + p): global port p, wired as described at
//     Dragonfly.
const (
	FirstGreenPort  = 0
	FirstBlackPort  = FirstGreenPort + GreenLinksPerAries
	FirstGlobalPort = FirstBlackPort + BlackLinksPerAries
)

// The global network (whitepaper, Dragonfly Implementation and Cray XC
// Series Configuration).
const (
	// LinksPerCable is 4: the global links "are combined in sets of four"
	// (whitepaper, Dragonfly Implementation), each set being one 12X active
	// optical cable of 4 links x LanesPerLink lanes.
	LinksPerCable = 4

	// GlobalLinksPerGroup is 960, "a total of 960 per group" (whitepaper,
	// Dragonfly Implementation).
	GlobalLinksPerGroup = GlobalLinksPerAries * AriesPerGroup

	// MaxCablesPerGroup is 240: "The maximum number of optical cables per
	// group is 240" (whitepaper, Aries Performance and Cray XC Series
	// Configuration), 960 links in sets of 4. It counts cable ends (a
	// group's connectors): a cable joining two groups counts once in each.
	MaxCablesPerGroup = GlobalLinksPerGroup / LinksPerCable

	// CablesPerChassis is 40, the optical connectors of one chassis: Table
	// 1 counts (40×6)/2 = 120 optical cables per group; the backplane takes
	// the 10 global links of each pair of blades to five CXP connectors
	// (whitepaper, Dragonfly Implementation).
	CablesPerChassis = MaxCablesPerGroup / ChassisPerGroup

	// MaxGroups is 241: combining the global links in sets of four
	// "restrict[s] the maximum system size to 241 groups" (whitepaper,
	// Dragonfly Implementation), one cable to each of 240 other groups.
	MaxGroups = MaxCablesPerGroup + 1

	// MaxNodes is 92,544, "systems with up to 92,544 nodes" (whitepaper,
	// Introduction): MaxGroups full groups.
	MaxNodes = MaxGroups * NodesPerGroup

	// MaxChassis and MaxCabinets are the chassis and cabinets of MaxGroups
	// full groups.
	MaxChassis  = MaxGroups * ChassisPerGroup
	MaxCabinets = MaxGroups * CabinetsPerGroup

	// MaxAries is the number of Aries in the largest system.
	MaxAries = MaxGroups * AriesPerGroup
)

// Link rates and the link layer (whitepaper, Aries Performance, Aries
// Router and Dragonfly Implementation). Rates are per direction.
const (
	// LanesPerLink: "Links are three lanes wide in each direction"
	// (whitepaper, Aries Performance).
	LanesPerLink = 3

	// ElectricalLaneBitsPerSecond: "All connections within a group are
	// electrical and operate at 14 Gbps per lane" (whitepaper, Dragonfly
	// Implementation).
	ElectricalLaneBitsPerSecond = 14e9

	// OpticalLaneBitsPerSecond: the global links use "12X active optical
	// cables (AOCs) operating at 12.5 Gbps" (whitepaper, Dragonfly
	// Implementation; Aries Performance).
	OpticalLaneBitsPerSecond = 12.5e9

	// ElectricalLinkBytesPerSecond is a green or black link's raw rate,
	// 3 lanes x 14 Gb/s = 5.25 GB/s: "Their raw bandwidth is 5.25 GB/s"
	// (whitepaper, Aries Performance).
	ElectricalLinkBytesPerSecond = LanesPerLink * ElectricalLaneBitsPerSecond / topoBitsPerByte

	// OpticalLinkBytesPerSecond is a global link's raw rate, 3 lanes x 12.5
	// Gb/s = 4.6875 GB/s, the low end of "rates of 4.7 to 5.25 GB/s per
	// direction per port" (whitepaper, Aries).
	OpticalLinkBytesPerSecond = LanesPerLink * OpticalLaneBitsPerSecond / topoBitsPerByte

	// LanesPerCable is 12, a 12X active optical cable (whitepaper,
	// Dragonfly Implementation).
	LanesPerCable = LinksPerCable * LanesPerLink

	// CableBytesPerSecond is 18.75 GB/s: "each AOC provides a peak
	// bandwidth of 18.75 GB/s in each direction between a pair of groups"
	// (whitepaper, Aries Performance).
	CableBytesPerSecond = LanesPerCable * OpticalLaneBitsPerSecond / topoBitsPerByte

	// FlitBits is the width of a flit: the LCB "transfers data in sets of
	// ten 48-bit flits" (whitepaper, Aries Router).
	FlitBits = 48

	// FlitBytes is 6.
	FlitBytes = FlitBits / topoBitsPerByte

	// TileClockHz is the router clock: "Each processor tile can inject a
	// 48-bit flit per clock cycle — at 875 MHz" (whitepaper, Aries
	// Performance).
	TileClockHz = 875e6

	// TileBytesPerSecond is 5.25 GB/s, one flit per cycle (whitepaper, Aries
	// Performance; CALIBRATION.md A-TILE).
	TileBytesPerSecond = FlitBytes * TileClockHz

	// LCBFlitsPerSet and LCBDataFlitsPerSet: the LCB sends sets of ten
	// flits, "the tenth flit is also used to carry global clock and network
	// load information", so "LCB overheads are 1 flit in 10" (whitepaper,
	// Aries Router; Aries Performance).
	LCBFlitsPerSet     = 10
	LCBDataFlitsPerSet = LCBFlitsPerSet - 1

	// PeakGlobalBytesPerSecondPerNode is 11.72 GB/s: GlobalLinksPerAries
	// optical links shared by the NodesPerAries nodes of an Aries, "Peak
	// global bandwidth is 11.7 GB/s per node for a full network"
	// (whitepaper, Aries Performance; CALIBRATION.md A-GLOBAL).
	PeakGlobalBytesPerSecondPerNode = GlobalLinksPerAries * OpticalLinkBytesPerSecond / NodesPerAries
)

// Route lengths (whitepaper, Cray XC Routing and Aries Performance).
const (
	// MaxLocalMinimalHops is 2: "Minimal routing within a group will always
	// take at most one green and one black hop" (whitepaper, Cray XC
	// Routing).
	MaxLocalMinimalHops = 2

	// MaxMinimalHops is 5: at most one green and one black hop in each of
	// the source and destination groups and "exactly one global optical
	// hop" (whitepaper, Cray XC Routing); at about 100 ns a hop this is the
	// "maximum of 500ns for minimally routed packets" (Aries Performance).
	MaxMinimalHops = 2*MaxLocalMinimalHops + 1

	// MaxNonMinimalHops is 10: "The maximum path length of a global
	// non-minimal path is 10 hops" (whitepaper, Cray XC Routing), two
	// minimal paths end to end.
	MaxNonMinimalHops = 2 * MaxMinimalHops
)

// Unexported model parameters.
const (
	// topoBitsPerByte converts lane bit rates to byte rates.
	topoBitsPerByte = 8

	// topoDirections: a cable or link carries its rate in each direction,
	// and the whitepaper's bisection figures count both ("384 × 5.25 × 2 =
	// 4032 GB/s", Aries Performance).
	topoDirections = 2

	// topoBladesPerPair and topoPairsPerChassis: the backplane takes the
	// global links "from each pair of blades to five CXP connectors"
	// (whitepaper, Dragonfly Implementation).
	topoBladesPerPair   = 2
	topoPairsPerChassis = AriesPerChassis / topoBladesPerPair

	// topoLinksPerBladePerCable is 2: each CXP connector of a blade pair
	// carries 4 links, modelled as two global ports from each blade (10
	// links per blade over 5 connectors).
	topoLinksPerBladePerCable = LinksPerCable / topoBladesPerPair

	// topoScanLinks bounds the number of global links between two groups
	// that Minimal scans directly for the ones nearest the source; above
	// it, Minimal looks at the ports of the source and its neighbours
	// instead. It is also the size of the candidate buffer, which must hold
	// the global ports of the source and its one-hop neighbours
	// (topoNearPorts).
	topoScanLinks = topoNearPorts
	topoNearPorts = (1 + GreenLinksPerAries + ChassisPerGroup - 1) * GlobalLinksPerAries

	// topoSegmentChoices is the number of ways to route one local segment:
	// 2 orders (green or black first) x BlackLinksPerPeer lanes.
	topoOrders          = 2
	topoSegmentChoices  = topoOrders * BlackLinksPerPeer
	topoGreenGroupCut   = AriesPerChassis / 2 // slots each side of a chassis cut
	topoMinGroupsCabled = 2
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

// Dragonfly is the network of a Cray XC system: Groups() groups, all full
// (ChassisPerGroup chassis) but possibly the last, and a bundle of Bundle()
// cables from each group to each other group (fewer to a partial last
// group that lacks the connectors).
//
// Build one with NewDragonfly, ForCabinets or ForChassis; the zero
// Dragonfly has no Aries. A Dragonfly is immutable and safe for concurrent
// use. Its methods return an error, wrapping errs.Argument, for an Aries,
// node, group or port out of range.
//
// # Global wiring
//
// The whitepaper says that the chassis backplane "connects 10 global links
// from each pair of blades to five CXP connectors" and that the groups are
// joined by 12X active optical cables, 4 links of 3 lanes each (Dragonfly
// Implementation; Table 1 counts 40 cables per chassis). It does not say
// which peer group each connector is cabled to. This model wires them as
// follows, deterministically and so that every bundle is spread over the
// chassis and blades of its group:
//
//   - Connector m (0..39) of a chassis serves the blade pair m mod 8 (slots
//     2(m mod 8) and 2(m mod 8)+1); its 4 links are global ports 2(m/8) and
//     2(m/8)+1 of the even blade (links 0 and 1 of the cable), then the same
//     two ports of the odd blade (links 2 and 3). Cables join links
//     position for position.
//   - A group of c chassis numbers its 40c connectors k = m*c + chassis, so
//     consecutive connectors lie in consecutive chassis.
//   - A group's peers are numbered r = 0..G-2, peer r being group
//     (own + 1 + r) mod G. Cable j (0..bundle-1) of the bundle to peer r
//     takes connector k = r*bundle + j ("bundle-major"), when all of the
//     group's bundles fit; they always fit in a full group, which is what
//     the bundle limit is for. A partial last group that cannot host every
//     bundle takes k = j*(G-1) + r instead ("peer-major"), so that the first
//     cable of every bundle is placed before any second one; the cables
//     whose connector would be 40c or more are left out, on both ends.
//
// Each end of a cable therefore keeps the cables of a bundle whose index is
// below some bound, and the cables between two groups are exactly the
// indexes j below the smaller bound. Global link i between two groups
// (GlobalLink) is link i mod 4 of cable i/4.
type Dragonfly struct {
	groups      int // including a partial last group
	lastChassis int // chassis of the last group, 1..ChassisPerGroup
	bundle      int // cables per bundle; 0 for a single group
}

// NewDragonfly returns groups full groups (1 to MaxGroups) joined by bundles
// of bundle cables, one bundle between each pair of groups. bundle must be
// 1 to MaxBundle(groups) when there are two or more groups; for a single
// group, which has no global cables, it must be 0 or more and is ignored.
// The error wraps errs.Argument.
func NewDragonfly(groups, bundle int) (*Dragonfly, error) {
	if groups < 1 || groups > MaxGroups {
		return nil, fmt.Errorf("aries: NewDragonfly: %d groups: must be 1 to %d: %w", groups, MaxGroups, errs.Argument)
	}
	return topoNew("NewDragonfly", groups*ChassisPerGroup, bundle)
}

// ForCabinets returns the system of cabinets cabinets (1 to MaxCabinets),
// CabinetsPerGroup to a group, with bundles of bundle cables as for
// NewDragonfly. An odd number of cabinets leaves the last group half full
// (ChassisPerCabinet chassis); one cabinet is a single half group.
//
// The whitepaper's configuration rules (Cray XC Series Configuration) that
// bundles "should" be a multiple of six cables for 3 to 26 cabinets and of
// two for 27 to 64, that at least a quarter of the optical ports "should" be
// used, and that above 64 cabinets systems are whole groups, are advice and
// are not enforced: Table 3's own full 16-cabinet system has bundles of 34.
// The error wraps errs.Argument.
func ForCabinets(cabinets, bundle int) (*Dragonfly, error) {
	if cabinets < 1 || cabinets > MaxCabinets {
		return nil, fmt.Errorf("aries: ForCabinets: %d cabinets: must be 1 to %d: %w", cabinets, MaxCabinets, errs.Argument)
	}
	return topoNew("ForCabinets", cabinets*ChassisPerCabinet, bundle)
}

// ForChassis returns the system of chassis chassis (1 to MaxChassis),
// ChassisPerGroup to a group, the last group holding what remains, with
// bundles of bundle cables as for NewDragonfly. Systems smaller than a
// group are a single partial group: one chassis has green links only.
//
// A partial last group of c chassis has CablesPerChassis*c connectors. When
// they cannot host every bundle, its bundles are cut short (see Dragonfly); they must still hold at least one cable to each other group, so
// the number of other groups must not exceed CablesPerChassis*c. The
// whitepaper's configurations always satisfy this: partial groups exist
// only up to 64 cabinets (Cray XC Series Configuration). The error wraps
// errs.Argument.
func ForChassis(chassis, bundle int) (*Dragonfly, error) {
	if chassis < 1 || chassis > MaxChassis {
		return nil, fmt.Errorf("aries: ForChassis: %d chassis: must be 1 to %d: %w", chassis, MaxChassis, errs.Argument)
	}
	return topoNew("ForChassis", chassis, bundle)
}

// topoNew builds the system of chassis chassis (already in range) for the
// constructor fn, validating bundle.
func topoNew(fn string, chassis, bundle int) (*Dragonfly, error) {
	groups := (chassis + ChassisPerGroup - 1) / ChassisPerGroup
	d := &Dragonfly{groups: groups, lastChassis: chassis - (groups-1)*ChassisPerGroup, bundle: bundle}
	if bundle < 0 {
		return nil, fmt.Errorf("aries: %s: bundles of %d cables: must not be negative: %w", fn, bundle, errs.Argument)
	}
	if groups < topoMinGroupsCabled {
		d.bundle = 0
		return d, nil
	}
	maxBundle := MaxCablesPerGroup / (groups - 1)
	if bundle < 1 || bundle > maxBundle {
		return nil, fmt.Errorf("aries: %s: bundles of %d cables between %d groups: must be 1 to %d (%d cables per group over %d other groups): %w",
			fn, bundle, groups, maxBundle, MaxCablesPerGroup, groups-1, errs.Argument)
	}
	if ports := CablesPerChassis * d.lastChassis; groups-1 > ports {
		return nil, fmt.Errorf("aries: %s: last group of %d chassis has %d cable connectors, too few for one cable to each of the %d other groups: %w",
			fn, d.lastChassis, ports, groups-1, errs.Argument)
	}
	return d, nil
}

// MaxBundle returns the largest bundle of cables between each pair of
// groups of a system of groups full groups, FLOOR(240 / (groups - 1))
// (whitepaper, Cray XC Series Configuration): 48 for 6 groups, 34 for 8, 1
// for MaxGroups. A single group has no cables: MaxBundle(1) is 0. The error
// wraps errs.Argument.
func MaxBundle(groups int) (int, error) {
	if groups < 1 || groups > MaxGroups {
		return 0, fmt.Errorf("aries: MaxBundle: %d groups: must be 1 to %d: %w", groups, MaxGroups, errs.Argument)
	}
	if groups < topoMinGroupsCabled {
		return 0, nil
	}
	return MaxCablesPerGroup / (groups - 1), nil
}

// Groups returns the number of groups, a partial last group included.
func (d *Dragonfly) Groups() int { return d.groups }

// FullGroups returns the number of full groups, the whitepaper's G in its
// bisection formula (Aries Performance).
func (d *Dragonfly) FullGroups() int {
	if d.groups > 0 && d.lastChassis < ChassisPerGroup {
		return d.groups - 1
	}
	return d.groups
}

// Bundle returns the number of cables per bundle, 0 for a single group.
func (d *Dragonfly) Bundle() int { return d.bundle }

// Chassis returns the number of chassis.
func (d *Dragonfly) Chassis() int {
	if d.groups == 0 {
		return 0
	}
	return (d.groups-1)*ChassisPerGroup + d.lastChassis
}

// Aries returns the number of Aries; ids are 0 to Aries()-1.
func (d *Dragonfly) Aries() int { return d.Chassis() * AriesPerChassis }

// Nodes returns the number of nodes; ids are 0 to Nodes()-1.
func (d *Dragonfly) Nodes() int { return d.Aries() * NodesPerAries }

// ChassisInGroup returns the number of chassis of group g: ChassisPerGroup
// but for a partial last group.
func (d *Dragonfly) ChassisInGroup(g int) (int, error) {
	if err := d.topoCheckGroup("ChassisInGroup", "group", g); err != nil {
		return 0, err
	}
	return d.topoChassisIn(g), nil
}

// String describes the system, e.g. "8 groups (3072 nodes), bundles of 12
// cables" or "6 groups + 1 of 3 chassis (2496 nodes), bundles of 12
// cables".
func (d *Dragonfly) String() string {
	var b strings.Builder
	switch full := d.FullGroups(); {
	case full == 1 && d.groups == 1:
		b.WriteString("1 group")
	case full == d.groups:
		fmt.Fprintf(&b, "%d groups", full)
	case full == 0:
		fmt.Fprintf(&b, "1 group of %d chassis", d.lastChassis)
	default:
		fmt.Fprintf(&b, "%d groups + 1 of %d chassis", full, d.lastChassis)
	}
	fmt.Fprintf(&b, " (%d nodes)", d.Nodes())
	switch {
	case d.groups < topoMinGroupsCabled:
	case d.bundle == 1:
		b.WriteString(", bundles of 1 cable")
	default:
		fmt.Fprintf(&b, ", bundles of %d cables", d.bundle)
	}
	return b.String()
}

// AriesAt returns the id of the Aries at l. The error wraps errs.Argument
// if l is not a position of the system.
func (d *Dragonfly) AriesAt(l AriesLoc) (int, error) {
	if l.Group < 0 || l.Group >= d.groups || l.Chassis < 0 || l.Chassis >= d.topoChassisIn(l.Group) ||
		l.Slot < 0 || l.Slot >= AriesPerChassis {
		return 0, fmt.Errorf("aries: Dragonfly.AriesAt: %v: no such Aries in %v: %w", l, d, errs.Argument)
	}
	return topoID(l.Group, l.Chassis, l.Slot), nil
}

// AriesLocation returns the position of Aries a, the inverse of AriesAt.
func (d *Dragonfly) AriesLocation(a int) (AriesLoc, error) {
	if err := d.topoCheckAries("AriesLocation", "Aries", a); err != nil {
		return AriesLoc{}, err
	}
	g, c, s := topoLoc(a)
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
	g, c, s := topoLoc(n / NodesPerAries)
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
	if err := d.topoCheckAries("GreenNeighbors", "Aries", a); err != nil {
		return nil, err
	}
	g, c, s := topoLoc(a)
	out := make([]int, 0, GreenLinksPerAries)
	for t := range AriesPerChassis {
		if t != s {
			out = append(out, topoID(g, c, t))
		}
	}
	return out, nil
}

// BlackNeighbors returns, in ascending order, the Aries that a has black
// links to (BlackLinksPerPeer to each): the Aries in the same slot of each
// other chassis of its group, 5 in a full group.
func (d *Dragonfly) BlackNeighbors(a int) ([]int, error) {
	if err := d.topoCheckAries("BlackNeighbors", "Aries", a); err != nil {
		return nil, err
	}
	g, c, s := topoLoc(a)
	n := d.topoChassisIn(g)
	out := make([]int, 0, n-1)
	for e := range n {
		if e != c {
			out = append(out, topoID(g, e, s))
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
	if err := d.topoCheckAries("Link", "Aries", a); err != nil {
		return Hop{}, false, err
	}
	class, ok := PortClass(port)
	if !ok {
		return Hop{}, false, fmt.Errorf("aries: Dragonfly.Link: port %d of Aries %d outside [0,%d): %w",
			port, a, NetworkPortsPerAries, errs.Argument)
	}
	g, c, s := topoLoc(a)
	switch class {
	case LinkGreen:
		return d.topoGreenHop(g, c, s, topoUnskip(port-FirstGreenPort, s)), true, nil
	case LinkBlack:
		q, lane := (port-FirstBlackPort)/BlackLinksPerPeer, (port-FirstBlackPort)%BlackLinksPerPeer
		e := topoUnskip(q, c)
		if e >= d.topoChassisIn(g) {
			return Hop{}, false, nil
		}
		return d.topoBlackHop(g, c, s, e, lane), true, nil
	}
	h, i, ok := d.topoPortLink(g, c, s, port-FirstGlobalPort)
	if !ok {
		return Hop{}, false, nil
	}
	return d.topoGlobalHop(g, h, i), true, nil
}

// CablesBetween returns the number of cables between groups ga and gb: the
// bundle size between full groups, possibly fewer with a partial last
// group, 0 if ga == gb.
func (d *Dragonfly) CablesBetween(ga, gb int) (int, error) {
	if err := d.topoCheckGroups("CablesBetween", ga, gb); err != nil {
		return 0, err
	}
	if ga == gb {
		return 0, nil
	}
	return d.topoCables(ga, gb), nil
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
		n += d.topoCables(g, full)
	}
	return n
}

// GlobalLink returns global link i (0 to LinksPerCable*CablesBetween-1)
// from group ga to group gb as a Hop from its end in ga to its end in gb:
// link i mod LinksPerCable of cable i / LinksPerCable of the bundle.
// GlobalLink(gb, ga, i) is the same link in the other direction.
func (d *Dragonfly) GlobalLink(ga, gb, i int) (Hop, error) {
	if err := d.topoCheckGroups("GlobalLink", ga, gb); err != nil {
		return Hop{}, err
	}
	n := 0
	if ga != gb {
		n = LinksPerCable * d.topoCables(ga, gb)
	}
	if i < 0 || i >= n {
		return Hop{}, fmt.Errorf("aries: Dragonfly.GlobalLink: link %d between groups %d and %d outside [0,%d): %w",
			i, ga, gb, n, errs.Argument)
	}
	return d.topoGlobalHop(ga, gb, i), nil
}

// GlobalOwners returns, in ascending order and without repeats, the Aries
// of group ga that own a global link to group gb; empty if ga == gb.
func (d *Dragonfly) GlobalOwners(ga, gb int) ([]int, error) {
	if err := d.topoCheckGroups("GlobalOwners", ga, gb); err != nil {
		return nil, err
	}
	if ga == gb {
		return []int{}, nil
	}
	n := LinksPerCable * d.topoCables(ga, gb)
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, d.topoLinkOwner(ga, gb, i))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// MinimalChoices returns the number of distinct values of choice that
// Minimal(src, dst, choice) tells apart; any choice is valid, and choice is
// taken modulo this number. Between groups it is 36 times the number of
// candidate global links (see Minimal); within a group it is 6 (two orders
// of the green and black hops, three black lanes); 1 when src == dst.
// Choices that differ only in a digit a path does not use (an order when
// there is only one hop, a lane when there is no black hop) give the same
// path.
func (d *Dragonfly) MinimalChoices(src, dst int) (int, error) {
	if err := d.topoCheckPair("MinimalChoices", src, dst); err != nil {
		return 0, err
	}
	switch gs, gd := src/AriesPerGroup, dst/AriesPerGroup; {
	case src == dst:
		return 1, nil
	case gs == gd:
		return topoSegmentChoices, nil
	default:
		var buf [topoScanLinks]int
		n, _ := d.topoCandidates(src, gs, gd, &buf)
		return n * topoSegmentChoices * topoSegmentChoices, nil
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
	if err := d.topoCheckPair("Minimal", src, dst); err != nil {
		return nil, err
	}
	return d.topoAppendMinimal(make(Path, 0, MaxMinimalHops), src, dst, choice), nil
}

// MinimalVia returns the minimal route from Aries src to Aries dst, in
// different groups, through global link link (0 to
// LinksPerCable*CablesBetween-1 of the two groups, as GlobalLink numbers
// them). choice selects the order and lane of the source segment and then
// of the destination segment, as for Minimal.
func (d *Dragonfly) MinimalVia(src, dst, link int, choice uint64) (Path, error) {
	if err := d.topoCheckPair("MinimalVia", src, dst); err != nil {
		return nil, err
	}
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	if gs == gd {
		return nil, fmt.Errorf("aries: Dragonfly.MinimalVia: Aries %d and %d are both in group %d: no global link to route through: %w",
			src, dst, gs, errs.Argument)
	}
	if n := LinksPerCable * d.topoCables(gs, gd); link < 0 || link >= n {
		return nil, fmt.Errorf("aries: Dragonfly.MinimalVia: link %d between groups %d and %d outside [0,%d): %w",
			link, gs, gd, n, errs.Argument)
	}
	ch := topoChooser(choice)
	return d.topoAppendVia(make(Path, 0, MaxMinimalHops), src, dst, d.topoGlobalHop(gs, gd, link), &ch), nil
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
	if err := d.topoCheckPair("NonMinimal", src, dst); err != nil {
		return nil, err
	}
	if err := d.topoCheckAries("NonMinimal", "intermediate Aries", via); err != nil {
		return nil, err
	}
	p := d.topoAppendMinimal(make(Path, 0, MaxNonMinimalHops), src, via, up)
	return d.topoAppendMinimal(p, via, dst, down), nil
}

// GlobalBandwidth returns the system's global bandwidth in bytes per
// second: every cabled global link's OpticalLinkBytesPerSecond, counted at
// each of its two groups, the whitepaper's "link bandwidth × global links
// per group × groups" (Cost-Effective, High-Bandwidth Networks). It is 0
// for a single group.
func (d *Dragonfly) GlobalBandwidth() float64 {
	return topoDirections * float64(d.TotalCables()) * CableBytesPerSecond
}

// GlobalBandwidthPerNode returns GlobalBandwidth divided among the nodes:
// PeakGlobalBytesPerSecondPerNode when every group uses all of its
// MaxCablesPerGroup connectors (for example 241 groups with bundles of 1),
// less "for reduced bandwidth systems or systems in which the number of
// optical ports per group does not divide evenly into the number of other
// groups" (whitepaper, Aries Performance).
func (d *Dragonfly) GlobalBandwidthPerNode() float64 {
	return d.GlobalBandwidth() / float64(d.Nodes())
}

// TotalCables returns the number of optical cables of groups full groups
// joined by bundles of bundle cables, "optical cables = ½ (inter-group
// cables × (groups − 1) × groups)" (whitepaper, Cray XC Series
// Configuration; Table 2). groups is 1 to MaxGroups, bundle 0 to
// MaxBundle(groups). The error wraps errs.Argument.
func TotalCables(groups, bundle int) (int, error) {
	if err := topoCheckConfig("TotalCables", groups, bundle); err != nil {
		return 0, err
	}
	return bundle * (groups - 1) * groups / 2, nil
}

// BisectionCables returns the number of cables crossing the worst-case
// bisection of groups full groups joined by bundles of bundle cables:
// every bundle between the two halves, floor(groups/2) x ceil(groups/2) x
// bundle (whitepaper, Cray XC Series Configuration, Table 3: 108 for six
// groups with bundles of 12). The cut between groups is the worst case:
// each group's intra-group bisection (GroupBisectionBandwidth) is far
// larger than its cables. Arguments as for TotalCables.
func BisectionCables(groups, bundle int) (int, error) {
	if err := topoCheckConfig("BisectionCables", groups, bundle); err != nil {
		return 0, err
	}
	return topoBisectionCables(groups, bundle), nil
}

// topoBisectionCables is BisectionCables without the checks.
func topoBisectionCables(groups, bundle int) int { return groups / 2 * ((groups + 1) / 2) * bundle }

// BisectionBandwidth returns the peak bisection bandwidth in bytes per
// second of groups full groups joined by bundles of bundle cables: both
// directions of every crossing cable at CableBytesPerSecond. For an even
// number of groups this is the whitepaper's formula "18.75 × G/2(G − 1) ×
// optical cables per group × G", with bundle x (G-1) cables per group
// (Aries Performance), and reproduces Table 3. For an odd number the
// formula counts G²/4 crossing bundles, which no cut achieves; this
// function counts the floor(G/2) x ceil(G/2) that the best cut leaves.
// Arguments as for TotalCables.
func BisectionBandwidth(groups, bundle int) (float64, error) {
	if err := topoCheckConfig("BisectionBandwidth", groups, bundle); err != nil {
		return 0, err
	}
	return topoDirections * float64(topoBisectionCables(groups, bundle)) * CableBytesPerSecond, nil
}

// GroupBisectionLinks returns the number of links crossing the bisection
// of a group of chassis chassis (1 to ChassisPerGroup) in each dimension:
// in green, half the slots of every chassis against the other half,
// 8 x 8 links per chassis; in black, half the chassis against the other
// half, floor(c/2) x ceil(c/2) x BlackLinksPerPeer links per slot, 0 if
// there is a single chassis. A full group gives the whitepaper's "384 links
// cross the bisection in the green dimension and 432 cross in the black
// dimension" (Aries Performance). The error wraps errs.Argument.
func GroupBisectionLinks(chassis int) (green, black int, err error) {
	if chassis < 1 || chassis > ChassisPerGroup {
		return 0, 0, fmt.Errorf("aries: GroupBisectionLinks: %d chassis: must be 1 to %d: %w",
			chassis, ChassisPerGroup, errs.Argument)
	}
	green = chassis * topoGreenGroupCut * (AriesPerChassis - topoGreenGroupCut)
	black = chassis / 2 * ((chassis + 1) / 2) * BlackLinksPerPeer * AriesPerChassis
	return green, black, nil
}

// GroupBisectionBandwidth returns the bisection bandwidth in bytes per
// second within a group of chassis chassis: both directions at
// ElectricalLinkBytesPerSecond of the smaller of GroupBisectionLinks's cuts
// (the green one alone for a single chassis). A full group gives the
// whitepaper's "384 × 5.25 × 2 = 4032 GB/s" (Aries Performance;
// CALIBRATION.md A-GREEN). The error wraps errs.Argument.
func GroupBisectionBandwidth(chassis int) (float64, error) {
	if chassis < 1 || chassis > ChassisPerGroup {
		return 0, fmt.Errorf("aries: GroupBisectionBandwidth: %d chassis: must be 1 to %d: %w",
			chassis, ChassisPerGroup, errs.Argument)
	}
	green, black, _ := GroupBisectionLinks(chassis)
	links := green
	if black > 0 && black < links {
		links = black
	}
	return topoDirections * float64(links) * ElectricalLinkBytesPerSecond, nil
}

// PayloadEfficiency returns the fraction of a link's raw bandwidth that
// carries payload when payloadBytes of data take flits flits, request and
// response together, and the LCB uses one flit in LCBFlitsPerSet: the
// whitepaper's "(64 bytes/15 flits) × (9 flits/60 bytes) = 64 percent" for
// a 64-byte put (14 request flits + 1 response) or get (3 + 12) (Aries
// Performance; CALIBRATION.md A-EFF). payloadBytes must be 1 to
// flits*FlitBytes. The error wraps errs.Argument.
func PayloadEfficiency(payloadBytes, flits int) (float64, error) {
	if flits < 1 || payloadBytes < 1 || payloadBytes > flits*FlitBytes {
		return 0, fmt.Errorf("aries: PayloadEfficiency: %d bytes in %d flits: need at least one flit and 1 to %d bytes per flit: %w",
			payloadBytes, flits, FlitBytes, errs.Argument)
	}
	return float64(payloadBytes) / float64(flits*FlitBytes) *
		float64(LCBDataFlitsPerSet) / float64(LCBFlitsPerSet), nil
}

// topoCheckConfig validates groups full groups and bundles of bundle
// cables for the pure functions named fn.
func topoCheckConfig(fn string, groups, bundle int) error {
	if groups < 1 || groups > MaxGroups {
		return fmt.Errorf("aries: %s: %d groups: must be 1 to %d: %w", fn, groups, MaxGroups, errs.Argument)
	}
	maxBundle, _ := MaxBundle(groups)
	if bundle < 0 || bundle > maxBundle {
		return fmt.Errorf("aries: %s: bundles of %d cables between %d groups: must be 0 to %d: %w",
			fn, bundle, groups, maxBundle, errs.Argument)
	}
	return nil
}

// topoCheckAries reports whether a is an Aries id of the system, naming the
// method fn and the argument's role in the error.
func (d *Dragonfly) topoCheckAries(fn, role string, a int) error {
	if a < 0 || a >= d.Aries() {
		return fmt.Errorf("aries: Dragonfly.%s: %s %d outside [0,%d): %w", fn, role, a, d.Aries(), errs.Argument)
	}
	return nil
}

// topoCheckPair checks a source and a destination Aries.
func (d *Dragonfly) topoCheckPair(fn string, src, dst int) error {
	if err := d.topoCheckAries(fn, "source Aries", src); err != nil {
		return err
	}
	return d.topoCheckAries(fn, "destination Aries", dst)
}

// topoCheckGroup reports whether g is a group of the system.
func (d *Dragonfly) topoCheckGroup(fn, role string, g int) error {
	if g < 0 || g >= d.groups {
		return fmt.Errorf("aries: Dragonfly.%s: %s %d outside [0,%d): %w", fn, role, g, d.groups, errs.Argument)
	}
	return nil
}

// topoCheckGroups checks two groups.
func (d *Dragonfly) topoCheckGroups(fn string, ga, gb int) error {
	if err := d.topoCheckGroup(fn, "group", ga); err != nil {
		return err
	}
	return d.topoCheckGroup(fn, "group", gb)
}

// topoLoc splits an Aries id into group, chassis and slot. Ids are dense
// because only the last group may be partial.
func topoLoc(a int) (g, c, s int) {
	return a / AriesPerGroup, a % AriesPerGroup / AriesPerChassis, a % AriesPerChassis
}

// topoID is the inverse of topoLoc.
func topoID(g, c, s int) int { return (g*ChassisPerGroup+c)*AriesPerChassis + s }

// topoChassisIn returns the chassis of group g.
func (d *Dragonfly) topoChassisIn(g int) int {
	if g == d.groups-1 {
		return d.lastChassis
	}
	return ChassisPerGroup
}

// topoSkip numbers peer among 0..n-1 without own: the index of a port
// towards peer. topoUnskip is its inverse.
func topoSkip(peer, own int) int {
	if peer > own {
		return peer - 1
	}
	return peer
}

func topoUnskip(q, own int) int {
	if q >= own {
		return q + 1
	}
	return q
}

// topoGreenHop is the green hop from (g, c, s) to slot t of the chassis.
func (d *Dragonfly) topoGreenHop(g, c, s, t int) Hop {
	return Hop{
		Class: LinkGreen,
		From:  topoID(g, c, s), FromPort: FirstGreenPort + topoSkip(t, s),
		To: topoID(g, c, t), ToPort: FirstGreenPort + topoSkip(s, t),
	}
}

// topoBlackHop is the black hop on lane lane from (g, c, s) to chassis e of
// the group.
func (d *Dragonfly) topoBlackHop(g, c, s, e, lane int) Hop {
	return Hop{
		Class: LinkBlack,
		From:  topoID(g, c, s), FromPort: FirstBlackPort + BlackLinksPerPeer*topoSkip(e, c) + lane,
		To: topoID(g, e, s), ToPort: FirstBlackPort + BlackLinksPerPeer*topoSkip(c, e) + lane,
	}
}

// topoPeerIndex is r, the index of group h among the peers of group g
// (g != h); topoPeerGroup is its inverse.
func (d *Dragonfly) topoPeerIndex(g, h int) int { return (h - g - 1 + d.groups) % d.groups }

func (d *Dragonfly) topoPeerGroup(g, r int) int { return (g + 1 + r) % d.groups }

// topoBundleMajor reports whether group g hosts all of its bundles, cable j
// of the bundle to peer r at connector r*bundle + j. Always true of a full
// group (bundle*(groups-1) <= MaxCablesPerGroup).
func (d *Dragonfly) topoBundleMajor(g int) bool {
	return d.bundle*(d.groups-1) <= CablesPerChassis*d.topoChassisIn(g)
}

// topoHosted returns how many cables of its bundle to peer r group g hosts:
// all of them in bundle-major order, the first ceil((40c - r)/(G-1)) in
// peer-major order (cable j at connector j*(G-1) + r < 40c).
func (d *Dragonfly) topoHosted(g, r int) int {
	if d.topoBundleMajor(g) {
		return d.bundle
	}
	room := CablesPerChassis*d.topoChassisIn(g) - r
	if room <= 0 {
		return 0
	}
	return min(d.bundle, (room+d.groups-2)/(d.groups-1))
}

// topoCables is the number of cables between groups g != h: the bundle
// indexes both ends host.
func (d *Dragonfly) topoCables(g, h int) int {
	return min(d.topoHosted(g, d.topoPeerIndex(g, h)), d.topoHosted(h, d.topoPeerIndex(h, g)))
}

// topoConnector is the connector of group g holding cable j of the bundle
// to peer r (j below topoHosted).
func (d *Dragonfly) topoConnector(g, r, j int) int {
	if d.topoBundleMajor(g) {
		return r*d.bundle + j
	}
	return j*(d.groups-1) + r
}

// topoConnectorCable is the inverse of topoConnector: the peer index and
// cable index for connector k of group g, and whether the connector is
// assigned at all (the cable may still be missing at the other end).
func (d *Dragonfly) topoConnectorCable(g, k int) (r, j int, ok bool) {
	if d.bundle == 0 {
		return 0, 0, false
	}
	if d.topoBundleMajor(g) {
		r, j = k/d.bundle, k%d.bundle
		return r, j, r < d.groups-1
	}
	r, j = k%(d.groups-1), k/(d.groups-1)
	return r, j, j < d.bundle
}

// topoConnectorEnd returns the Aries and network port of group g that
// carry link l (0..LinksPerCable-1) of connector k.
func (d *Dragonfly) topoConnectorEnd(g, k, l int) (aries, port int) {
	c := d.topoChassisIn(g)
	chassis, m := k%c, k/c
	pair, conn := m%topoPairsPerChassis, m/topoPairsPerChassis
	slot := topoBladesPerPair*pair + l/topoLinksPerBladePerCable
	port = FirstGlobalPort + topoLinksPerBladePerCable*conn + l%topoLinksPerBladePerCable
	return topoID(g, chassis, slot), port
}

// topoPortConnector is the inverse of topoConnectorEnd: the connector and
// link position of global port p (0..GlobalLinksPerAries-1) of (g, c, s).
func (d *Dragonfly) topoPortConnector(g, c, s, p int) (k, l int) {
	pair, half := s/topoBladesPerPair, s%topoBladesPerPair
	conn := p / topoLinksPerBladePerCable
	l = topoLinksPerBladePerCable*half + p%topoLinksPerBladePerCable
	m := pair + topoPairsPerChassis*conn
	return m*d.topoChassisIn(g) + c, l
}

// topoPortLink returns the group h that global port p of (g, c, s) leads
// to and the index of its link among those from g to h, or false if the
// port is not cabled.
func (d *Dragonfly) topoPortLink(g, c, s, p int) (h, i int, ok bool) {
	k, l := d.topoPortConnector(g, c, s, p)
	r, j, ok := d.topoConnectorCable(g, k)
	if !ok {
		return 0, 0, false
	}
	h = d.topoPeerGroup(g, r)
	if j >= d.topoCables(g, h) {
		return 0, 0, false
	}
	return h, LinksPerCable*j + l, true
}

// topoLinkOwner is the Aries of group g at link i from g to h.
func (d *Dragonfly) topoLinkOwner(g, h, i int) int {
	a, _ := d.topoConnectorEnd(g, d.topoConnector(g, d.topoPeerIndex(g, h), i/LinksPerCable), i%LinksPerCable)
	return a
}

// topoGlobalHop is link i from group g to group h as a hop.
func (d *Dragonfly) topoGlobalHop(g, h, i int) Hop {
	j, l := i/LinksPerCable, i%LinksPerCable
	from, fromPort := d.topoConnectorEnd(g, d.topoConnector(g, d.topoPeerIndex(g, h), j), l)
	to, toPort := d.topoConnectorEnd(h, d.topoConnector(h, d.topoPeerIndex(h, g), j), l)
	return Hop{Class: LinkGlobal, From: from, FromPort: fromPort, To: to, ToPort: toPort}
}

// topoLocalDistance is the number of hops of a minimal route between two
// Aries of one group: one if they differ in chassis, one if in slot.
func topoLocalDistance(a, b int) int {
	_, ca, sa := topoLoc(a)
	_, cb, sb := topoLoc(b)
	n := 0
	if ca != cb {
		n++
	}
	if sa != sb {
		n++
	}
	return n
}

// topoCandidates stores in buf, ascending, the indexes of the global links
// from group gs to group gd (gs != gd) whose gs end is nearest Aries src
// (of gs), and returns how many and whether that is all of the links (then
// buf may be left unfilled and index i stands for link i). It scans the
// links when there are few, and otherwise looks only at the global ports of
// src and its neighbours; both give the same answer.
func (d *Dragonfly) topoCandidates(src, gs, gd int, buf *[topoScanLinks]int) (n int, all bool) {
	if links := LinksPerCable * d.topoCables(gs, gd); links <= topoScanLinks {
		return d.topoScanCandidates(src, gs, gd, buf)
	}
	return d.topoNearCandidates(src, gs, gd, buf)
}

// topoScanCandidates is topoCandidates by scanning every link between the
// groups; there must be at most topoScanLinks.
func (d *Dragonfly) topoScanCandidates(src, gs, gd int, buf *[topoScanLinks]int) (n int, all bool) {
	links := LinksPerCable * d.topoCables(gs, gd)
	best := MaxLocalMinimalHops + 1
	for i := range links {
		dist := topoLocalDistance(src, d.topoLinkOwner(gs, gd, i))
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

// topoNearCandidates is topoCandidates by looking at the global ports of
// src, then of its one-hop neighbours: at most topoNearPorts ports, all
// distinct links. If none leads to gd, every link is two hops away.
func (d *Dragonfly) topoNearCandidates(src, gs, gd int, buf *[topoScanLinks]int) (n int, all bool) {
	n = d.topoNearLinks(src, gd, buf, 0)
	if n == 0 {
		_, c, s := topoLoc(src)
		for t := range AriesPerChassis {
			if t != s {
				n = d.topoNearLinks(topoID(gs, c, t), gd, buf, n)
			}
		}
		for e := range d.topoChassisIn(gs) {
			if e != c {
				n = d.topoNearLinks(topoID(gs, e, s), gd, buf, n)
			}
		}
	}
	links := LinksPerCable * d.topoCables(gs, gd)
	if n == 0 || n == links {
		return links, true
	}
	slices.Sort(buf[:n])
	return n, false
}

// topoNearLinks appends to buf[n:] the indexes of the links from a's group
// to group gd that leave by a's global ports, and returns the new count.
func (d *Dragonfly) topoNearLinks(a, gd int, buf *[topoScanLinks]int, n int) int {
	g, c, s := topoLoc(a)
	for p := range GlobalLinksPerAries {
		if h, i, ok := d.topoPortLink(g, c, s, p); ok && h == gd {
			buf[n] = i
			n++
		}
	}
	return n
}

// topoChooser reads a route choice as a mixed-radix number, least
// significant digit first.
type topoChooser uint64

// pick returns the next digit, in [0, n).
func (c *topoChooser) pick(n int) int {
	v := uint64(*c)
	*c = topoChooser(v / uint64(n))
	return int(v % uint64(n))
}

// topoAppendMinimal appends Minimal's route from src to dst to p.
func (d *Dragonfly) topoAppendMinimal(p Path, src, dst int, choice uint64) Path {
	ch := topoChooser(choice)
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	if gs == gd {
		return d.topoAppendLocal(p, src, dst, &ch)
	}
	var buf [topoScanLinks]int
	n, all := d.topoCandidates(src, gs, gd, &buf)
	i := ch.pick(n)
	if !all {
		i = buf[i]
	}
	return d.topoAppendVia(p, src, dst, d.topoGlobalHop(gs, gd, i), &ch)
}

// topoAppendVia appends the route from src to dst through the global hop
// link, the order and lane of each segment read from ch.
func (d *Dragonfly) topoAppendVia(p Path, src, dst int, link Hop, ch *topoChooser) Path {
	p = d.topoAppendLocal(p, src, link.From, ch)
	p = append(p, link)
	return d.topoAppendLocal(p, link.To, dst, ch)
}

// topoAppendLocal appends a minimal route between two Aries of one group:
// a green hop to the destination's slot if they differ in slot, a black hop
// to its chassis if they differ in chassis; the order (digit 0 green
// first, 1 black first) and the black lane read from ch. Both digits are
// read whatever the hops, so that the digits of later segments keep their
// place.
func (d *Dragonfly) topoAppendLocal(p Path, a, b int, ch *topoChooser) Path {
	order, lane := ch.pick(topoOrders), ch.pick(BlackLinksPerPeer)
	g, ca, sa := topoLoc(a)
	_, cb, sb := topoLoc(b)
	switch {
	case a == b:
		return p
	case ca == cb:
		return append(p, d.topoGreenHop(g, ca, sa, sb))
	case sa == sb:
		return append(p, d.topoBlackHop(g, ca, sa, cb, lane))
	case order == 0:
		return append(p, d.topoGreenHop(g, ca, sa, sb), d.topoBlackHop(g, ca, sb, cb, lane))
	default:
		return append(p, d.topoBlackHop(g, ca, sa, cb, lane), d.topoGreenHop(g, cb, sa, sb))
	}
}
