package dragonfly

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
)

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
	ElectricalLinkBytesPerSecond = LanesPerLink * ElectricalLaneBitsPerSecond / bitsPerByte

	// OpticalLinkBytesPerSecond is a global link's raw rate, 3 lanes x 12.5
	// Gb/s = 4.6875 GB/s, the low end of "rates of 4.7 to 5.25 GB/s per
	// direction per port" (whitepaper, Aries).
	OpticalLinkBytesPerSecond = LanesPerLink * OpticalLaneBitsPerSecond / bitsPerByte

	// LanesPerCable is 12, a 12X active optical cable (whitepaper,
	// Dragonfly Implementation).
	LanesPerCable = LinksPerCable * LanesPerLink

	// CableBytesPerSecond is 18.75 GB/s: "each AOC provides a peak
	// bandwidth of 18.75 GB/s in each direction between a pair of groups"
	// (whitepaper, Aries Performance).
	CableBytesPerSecond = LanesPerCable * OpticalLaneBitsPerSecond / bitsPerByte

	// FlitBits is the width of a flit: the LCB "transfers data in sets of
	// ten 48-bit flits" (whitepaper, Aries Router).
	FlitBits = 48

	// FlitBytes is 6.
	FlitBytes = FlitBits / bitsPerByte

	// LCBFlitsPerSet and LCBDataFlitsPerSet: the LCB sends sets of ten
	// flits, "the tenth flit is also used to carry global clock and network
	// load information", so "LCB overheads are 1 flit in 10" (whitepaper,
	// Aries Router; Aries Performance).
	LCBFlitsPerSet     = 10
	LCBDataFlitsPerSet = LCBFlitsPerSet - 1

	// PeakGlobalBytesPerSecondPerNode is 11.72 GB/s: GlobalLinksPerAries
	// optical links shared by the NodesPerAries nodes of an Aries, "Peak
	// global bandwidth is 11.7 GB/s per node for a full network"
	// (whitepaper, Aries Performance; calibration row A-GLOBAL).
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

// Unit conversions.
const (
	// bitsPerByte converts lane bit rates to byte rates.
	bitsPerByte = 8

	// directions: a cable or link carries its rate in each direction,
	// and the whitepaper's bisection figures count both ("384 × 5.25 × 2 =
	// 4032 GB/s", Aries Performance).
	directions = 2
)
