package aries

import "github.com/gopgas/gopgas/aries/dragonfly"

// The Dragonfly's names in this package. The topology lives in the
// dragonfly subpackage, which knows nothing of the simulator; each name
// below is the same as the dragonfly name it stands for (types as aliases,
// constants of the same value and type, functions that call it), so that
// users of the backend reach the topology through aries (aries.NewDragonfly,
// aries.NodesPerGroup, aries.Path, ...) and the rest of this package uses
// it unqualified. See the dragonfly package for what each means.

// The topology's types.
type (
	// Dragonfly is dragonfly.Dragonfly, a Cray XC system's network.
	Dragonfly = dragonfly.Dragonfly
	// LinkClass is dragonfly.LinkClass: green, black or global.
	LinkClass = dragonfly.LinkClass
	// AriesLoc is dragonfly.AriesLoc, the position of an Aries.
	AriesLoc = dragonfly.AriesLoc
	// NodeLoc is dragonfly.NodeLoc, the position of a node.
	NodeLoc = dragonfly.NodeLoc
	// Hop is dragonfly.Hop, one router-to-router step.
	Hop = dragonfly.Hop
	// Path is dragonfly.Path, a route as its hops.
	Path = dragonfly.Path
)

// The link classes (dragonfly.LinkGreen, ...).
const (
	LinkGreen      = dragonfly.LinkGreen
	LinkBlack      = dragonfly.LinkBlack
	LinkGlobal     = dragonfly.LinkGlobal
	LinkClassCount = dragonfly.LinkClassCount
)

// Packaging (dragonfly.NodesPerAries, ...).
const (
	NodesPerAries     = dragonfly.NodesPerAries
	AriesPerChassis   = dragonfly.AriesPerChassis
	ChassisPerCabinet = dragonfly.ChassisPerCabinet
	CabinetsPerGroup  = dragonfly.CabinetsPerGroup
	ChassisPerGroup   = dragonfly.ChassisPerGroup
	AriesPerGroup     = dragonfly.AriesPerGroup
	NodesPerChassis   = dragonfly.NodesPerChassis
	NodesPerCabinet   = dragonfly.NodesPerCabinet
	NodesPerGroup     = dragonfly.NodesPerGroup
)

// Links and ports of one Aries (dragonfly.GreenLinksPerAries, ...).
const (
	GreenLinksPerAries   = dragonfly.GreenLinksPerAries
	BlackLinksPerPeer    = dragonfly.BlackLinksPerPeer
	BlackLinksPerAries   = dragonfly.BlackLinksPerAries
	GlobalLinksPerAries  = dragonfly.GlobalLinksPerAries
	NetworkPortsPerAries = dragonfly.NetworkPortsPerAries
	FirstGreenPort       = dragonfly.FirstGreenPort
	FirstBlackPort       = dragonfly.FirstBlackPort
	FirstGlobalPort      = dragonfly.FirstGlobalPort
)

// The global network (dragonfly.LinksPerCable, ...).
const (
	LinksPerCable       = dragonfly.LinksPerCable
	GlobalLinksPerGroup = dragonfly.GlobalLinksPerGroup
	MaxCablesPerGroup   = dragonfly.MaxCablesPerGroup
	CablesPerChassis    = dragonfly.CablesPerChassis
	MaxGroups           = dragonfly.MaxGroups
	MaxNodes            = dragonfly.MaxNodes
	MaxChassis          = dragonfly.MaxChassis
	MaxCabinets         = dragonfly.MaxCabinets
	MaxAries            = dragonfly.MaxAries
)

// Link rates and the link layer (dragonfly.LanesPerLink, ...).
const (
	LanesPerLink                    = dragonfly.LanesPerLink
	ElectricalLaneBitsPerSecond     = dragonfly.ElectricalLaneBitsPerSecond
	OpticalLaneBitsPerSecond        = dragonfly.OpticalLaneBitsPerSecond
	ElectricalLinkBytesPerSecond    = dragonfly.ElectricalLinkBytesPerSecond
	OpticalLinkBytesPerSecond       = dragonfly.OpticalLinkBytesPerSecond
	LanesPerCable                   = dragonfly.LanesPerCable
	CableBytesPerSecond             = dragonfly.CableBytesPerSecond
	FlitBits                        = dragonfly.FlitBits
	FlitBytes                       = dragonfly.FlitBytes
	LCBFlitsPerSet                  = dragonfly.LCBFlitsPerSet
	LCBDataFlitsPerSet              = dragonfly.LCBDataFlitsPerSet
	PeakGlobalBytesPerSecondPerNode = dragonfly.PeakGlobalBytesPerSecondPerNode
)

// Route lengths (dragonfly.MaxLocalMinimalHops, ...).
const (
	MaxLocalMinimalHops = dragonfly.MaxLocalMinimalHops
	MaxMinimalHops      = dragonfly.MaxMinimalHops
	MaxNonMinimalHops   = dragonfly.MaxNonMinimalHops
)

// NewDragonfly is dragonfly.NewDragonfly: groups full groups joined by
// bundles of bundle cables.
func NewDragonfly(groups, bundle int) (*Dragonfly, error) {
	return dragonfly.NewDragonfly(groups, bundle)
}

// ForCabinets is dragonfly.ForCabinets: the system of cabinets cabinets.
func ForCabinets(cabinets, bundle int) (*Dragonfly, error) {
	return dragonfly.ForCabinets(cabinets, bundle)
}

// ForChassis is dragonfly.ForChassis: the system of chassis chassis.
func ForChassis(chassis, bundle int) (*Dragonfly, error) {
	return dragonfly.ForChassis(chassis, bundle)
}

// PortClass is dragonfly.PortClass: the class of a network port.
func PortClass(port int) (LinkClass, bool) { return dragonfly.PortClass(port) }

// MaxBundle is dragonfly.MaxBundle: the largest bundle between groups
// groups.
func MaxBundle(groups int) (int, error) { return dragonfly.MaxBundle(groups) }

// TotalCables is dragonfly.TotalCables: the optical cables of groups full
// groups.
func TotalCables(groups, bundle int) (int, error) { return dragonfly.TotalCables(groups, bundle) }

// BisectionCables is dragonfly.BisectionCables: the cables crossing the
// worst-case bisection.
func BisectionCables(groups, bundle int) (int, error) {
	return dragonfly.BisectionCables(groups, bundle)
}

// BisectionBandwidth is dragonfly.BisectionBandwidth, in bytes per second.
func BisectionBandwidth(groups, bundle int) (float64, error) {
	return dragonfly.BisectionBandwidth(groups, bundle)
}

// GroupBisectionLinks is dragonfly.GroupBisectionLinks: the links crossing
// a group's bisection in green and in black.
func GroupBisectionLinks(chassis int) (green, black int, err error) {
	return dragonfly.GroupBisectionLinks(chassis)
}

// GroupBisectionBandwidth is dragonfly.GroupBisectionBandwidth, in bytes
// per second.
func GroupBisectionBandwidth(chassis int) (float64, error) {
	return dragonfly.GroupBisectionBandwidth(chassis)
}

// PayloadEfficiency is dragonfly.PayloadEfficiency: the share of a link's
// raw bandwidth that carries payload.
func PayloadEfficiency(payloadBytes, flits int) (float64, error) {
	return dragonfly.PayloadEfficiency(payloadBytes, flits)
}
