package dragonfly

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/errs"
)

// GlobalBandwidth returns the system's global bandwidth in bytes per
// second: every cabled global link's OpticalLinkBytesPerSecond, counted at
// each of its two groups, the whitepaper's "link bandwidth × global links
// per group × groups" (Cost-Effective, High-Bandwidth Networks). It is 0
// for a single group.
func (d *Dragonfly) GlobalBandwidth() float64 {
	return directions * float64(d.TotalCables()) * CableBytesPerSecond
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
	if err := checkConfig("TotalCables", groups, bundle); err != nil {
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
	if err := checkConfig("BisectionCables", groups, bundle); err != nil {
		return 0, err
	}
	return bisectionCables(groups, bundle), nil
}

// bisectionCables is BisectionCables without the checks.
func bisectionCables(groups, bundle int) int { return groups / 2 * ((groups + 1) / 2) * bundle }

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
	if err := checkConfig("BisectionBandwidth", groups, bundle); err != nil {
		return 0, err
	}
	return directions * float64(bisectionCables(groups, bundle)) * CableBytesPerSecond, nil
}

// greenGroupCut is the slots on each side of a chassis cut in two.
const greenGroupCut = AriesPerChassis / 2

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
	green = chassis * greenGroupCut * (AriesPerChassis - greenGroupCut)
	black = chassis / 2 * ((chassis + 1) / 2) * BlackLinksPerPeer * AriesPerChassis
	return green, black, nil
}

// GroupBisectionBandwidth returns the bisection bandwidth in bytes per
// second within a group of chassis chassis: both directions at
// ElectricalLinkBytesPerSecond of the smaller of GroupBisectionLinks's cuts
// (the green one alone for a single chassis). A full group gives the
// whitepaper's "384 × 5.25 × 2 = 4032 GB/s" (Aries Performance;
// calibration row A-GREEN). The error wraps errs.Argument.
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
	return directions * float64(links) * ElectricalLinkBytesPerSecond, nil
}

// PayloadEfficiency returns the fraction of a link's raw bandwidth that
// carries payload when payloadBytes of data take flits flits, request and
// response together, and the LCB uses one flit in LCBFlitsPerSet: the
// whitepaper's "(64 bytes/15 flits) × (9 flits/60 bytes) = 64 percent" for
// a 64-byte put (14 request flits + 1 response) or get (3 + 12) (Aries
// Performance; calibration row A-EFF). payloadBytes must be 1 to
// flits*FlitBytes. The error wraps errs.Argument.
func PayloadEfficiency(payloadBytes, flits int) (float64, error) {
	if flits < 1 || payloadBytes < 1 || payloadBytes > flits*FlitBytes {
		return 0, fmt.Errorf("aries: PayloadEfficiency: %d bytes in %d flits: need at least one flit and 1 to %d bytes per flit: %w",
			payloadBytes, flits, FlitBytes, errs.Argument)
	}
	return float64(payloadBytes) / float64(flits*FlitBytes) *
		float64(LCBDataFlitsPerSet) / float64(LCBFlitsPerSet), nil
}

// checkConfig validates groups full groups and bundles of bundle
// cables for the pure functions named fn.
func checkConfig(fn string, groups, bundle int) error {
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
