package dragonfly

import (
	"fmt"
	"strings"

	"github.com/gopgas/gopgas/internal/errs"
)

// minGroupsCabled is the fewest groups that have global cables: a single
// group has none.
const minGroupsCabled = 2

// Dragonfly is the network of a Cray XC system: Groups() groups, all full
// (ChassisPerGroup chassis) but possibly the last, and a bundle of Bundle()
// cables from each group to each other group (fewer to a partial last
// group that lacks the connectors).
//
// Build one with NewDragonfly, ForCabinets or ForChassis; the zero
// Dragonfly has no Aries. A Dragonfly is immutable and safe for concurrent
// use. Its methods return an error, wrapping errs.Argument, for an Aries,
// node, group or port out of range, but for the unchecked forms a
// simulator's routing uses (AppendMinimal, AppendMinimalVia and
// CandidateLinks).
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
	return build("NewDragonfly", groups*ChassisPerGroup, bundle)
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
	return build("ForCabinets", cabinets*ChassisPerCabinet, bundle)
}

// ForChassis returns the system of chassis chassis (1 to MaxChassis),
// ChassisPerGroup to a group, the last group holding what remains, with
// bundles of bundle cables as for NewDragonfly. Systems smaller than a
// group are a single partial group: one chassis has green links only.
//
// A partial last group of c chassis has CablesPerChassis*c connectors. When
// they cannot host every bundle, its bundles are cut short (see
// Dragonfly); they must still hold at least one cable to each other group,
// so the number of other groups must not exceed CablesPerChassis*c. The
// whitepaper's configurations always satisfy this: partial groups exist
// only up to 64 cabinets (Cray XC Series Configuration). The error wraps
// errs.Argument.
func ForChassis(chassis, bundle int) (*Dragonfly, error) {
	if chassis < 1 || chassis > MaxChassis {
		return nil, fmt.Errorf("aries: ForChassis: %d chassis: must be 1 to %d: %w", chassis, MaxChassis, errs.Argument)
	}
	return build("ForChassis", chassis, bundle)
}

// build builds the system of chassis chassis (already in range) for the
// constructor fn, validating bundle.
func build(fn string, chassis, bundle int) (*Dragonfly, error) {
	groups := (chassis + ChassisPerGroup - 1) / ChassisPerGroup
	d := &Dragonfly{groups: groups, lastChassis: chassis - (groups-1)*ChassisPerGroup, bundle: bundle}
	if bundle < 0 {
		return nil, fmt.Errorf("aries: %s: bundles of %d cables: must not be negative: %w", fn, bundle, errs.Argument)
	}
	if groups < minGroupsCabled {
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
	if groups < minGroupsCabled {
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
	if err := d.checkGroup("ChassisInGroup", "group", g); err != nil {
		return 0, err
	}
	return d.chassisIn(g), nil
}

// chassisIn returns the chassis of group g.
func (d *Dragonfly) chassisIn(g int) int {
	if g == d.groups-1 {
		return d.lastChassis
	}
	return ChassisPerGroup
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
	case d.groups < minGroupsCabled:
	case d.bundle == 1:
		b.WriteString(", bundles of 1 cable")
	default:
		fmt.Fprintf(&b, ", bundles of %d cables", d.bundle)
	}
	return b.String()
}

// checkAries reports whether a is an Aries id of the system, naming the
// method fn and the argument's role in the error.
func (d *Dragonfly) checkAries(fn, role string, a int) error {
	if a < 0 || a >= d.Aries() {
		return fmt.Errorf("aries: Dragonfly.%s: %s %d outside [0,%d): %w", fn, role, a, d.Aries(), errs.Argument)
	}
	return nil
}

// checkPair checks a source and a destination Aries.
func (d *Dragonfly) checkPair(fn string, src, dst int) error {
	if err := d.checkAries(fn, "source Aries", src); err != nil {
		return err
	}
	return d.checkAries(fn, "destination Aries", dst)
}

// checkGroup reports whether g is a group of the system.
func (d *Dragonfly) checkGroup(fn, role string, g int) error {
	if g < 0 || g >= d.groups {
		return fmt.Errorf("aries: Dragonfly.%s: %s %d outside [0,%d): %w", fn, role, g, d.groups, errs.Argument)
	}
	return nil
}

// checkGroups checks two groups.
func (d *Dragonfly) checkGroups(fn string, ga, gb int) error {
	if err := d.checkGroup(fn, "group", ga); err != nil {
		return err
	}
	return d.checkGroup(fn, "group", gb)
}
