package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/option"
	"github.com/gopgas/gopgas/internal/units"
)

// options are a job's backend options (OptionNames).
type options struct {
	fabric.Options
	// The system: groups (with bundle cables between each pair of groups,
	// 0 for the most that fit), or a system of chassis or cabinets.
	groups, chassis, cabinets, bundle int
	// bias is the adaptive routing's bias: how much more load a
	// non-minimal candidate may have and still lose to a minimal one (in
	// flits; negative favours non-minimal).
	bias int
	// valiant routes every adaptive packet non-minimally.
	valiant bool
	// progressive lets the adaptive routing choose again at the Aries
	// after the source while a packet is on a minimal route in its source
	// group (default); false: at the source only.
	progressive bool
	// faults are failed or degraded links; reroutePause is how long the
	// network is quiesced for new tables after one fails in the run.
	faults       []linkFault
	reroutePause Time
	// pageBytes is the page size of registered memory (the IOMMU).
	pageBytes int64
	// noCE turns the collective engine off: barriers and allreduces run
	// in software.
	noCE bool
	// excluded are the system's nodes the job may not use, sorted: its
	// virtual nodes map around them.
	excluded []int
}

// maxBias bounds the bias option either way, in flits of load: far beyond
// any link's load, and far from overflowing a route's cost.
const maxBias = 1 << 20

// optionTable declares the backend options (OptionNames). groups, chassis
// and cabinets each choose the system and exclude each other; bundle
// applies to whichever system the job gets.
var optionTable = option.New(Name, append(fabric.DeclareOptions(params, func(o *options) *fabric.Options { return &o.Options }),
	option.Int("groups", "Dragonfly groups of the system (default: the smallest system holding the job)", 1, MaxGroups,
		func(o *options, n int) { o.groups = n }),
	option.Int("chassis", fmt.Sprintf("build a system of this many chassis (%d per group)", ChassisPerGroup), 1, MaxChassis,
		func(o *options, n int) { o.chassis = n }),
	option.Int("cabinets", fmt.Sprintf("build a system of this many cabinets (%d per group)", CabinetsPerGroup), 1, MaxCabinets,
		func(o *options, n int) { o.cabinets = n }),
	option.Int("bundle", "optical cables between each pair of groups (default: the most that fit)", 1, MaxCablesPerGroup,
		func(o *options, n int) { o.bundle = n }),
	option.Int("bias", fmt.Sprintf("adaptive routing bias toward minimal routes, in flits of load (default %d; negative favours non-minimal)", DefaultBias),
		-maxBias, maxBias, func(o *options, n int) { o.bias = n }),
	option.Bool("valiant", "true: route every adaptive packet non-minimally through a random intermediate group",
		func(o *options, b bool) { o.valiant = b }),
	option.Bool("progressive", "false: adaptive routes are chosen at the source Aries only, not again at the next Aries of the source group",
		func(o *options, b bool) { o.progressive = b }),
	option.Custom("fail", "failed links (lanes working, 1 or 2, degrades instead of failing; @time, a duration such as 50us, fails or degrades it that far into the run instead of from the start)",
		fmt.Sprintf("aries:port[:lanes][@time] separated by ';' (port 0 to %d, lanes 1 to %d)", NetworkPortsPerAries-1, LanesPerLink-1),
		parseFailOption, formatFaults, func(o *options, f []linkFault) { o.faults = f }),
	fabric.ReroutePauseOption("how long the HSS quiesces the network for new routing tables after a link fails in the run under deterministic routing",
		ReroutePause, func(o *options, t Time) { o.reroutePause = t }),
	option.BytesOf("page_bytes", fmt.Sprintf("page size of registered memory: %s (two-level translation) or %s (default, one level)", units.FormatBytes(SmallPageBytes), units.FormatBytes(HugePageBytes)),
		[]int64{SmallPageBytes, HugePageBytes}, func(o *options, n int64) { o.pageBytes = n }),
	option.Bool("ce", "false: no collective engine; barriers and allreduces run in software",
		func(o *options, b bool) { o.noCE = !b }),
	option.NodeList("exclude", "system nodes the job may not use (failed, or other jobs'): the job's nodes map around them", MaxNodes-1,
		func(o *options, l []int) { o.excluded = l }),
)...).AtMostOne("groups", "chassis", "cabinets")

// system returns the Dragonfly the options ask for, or the smallest that
// holds nodes nodes, with the largest bundles that fit unless the bundle
// option says otherwise. Its error names the options.
func (o *options) system(nodes int) (*Dragonfly, error) {
	bundleFor := func(chassis int) int {
		if o.bundle > 0 {
			return o.bundle
		}
		groups := (chassis + ChassisPerGroup - 1) / ChassisPerGroup
		bundle, _ := MaxBundle(groups)
		return bundle
	}
	var d *Dragonfly
	var err error
	var named string // the options that chose the system
	switch {
	case o.groups > 0:
		named = fmt.Sprintf("option groups=%d", o.groups)
		d, err = NewDragonfly(o.groups, bundleFor(o.groups*ChassisPerGroup))
	case o.cabinets > 0:
		named = fmt.Sprintf("option cabinets=%d", o.cabinets)
		d, err = ForCabinets(o.cabinets, bundleFor(o.cabinets*ChassisPerCabinet))
	case o.chassis > 0:
		named = fmt.Sprintf("option chassis=%d", o.chassis)
		d, err = ForChassis(o.chassis, bundleFor(o.chassis))
	case nodes > MaxNodes:
		return nil, fmt.Errorf("aries: a job of %d nodes: more than the %d nodes of the largest system", nodes, MaxNodes)
	default:
		named = fmt.Sprintf("a job of %d nodes", nodes)
		chassis := max(1, (nodes+NodesPerChassis-1)/NodesPerChassis)
		if d, err = ForChassis(chassis, bundleFor(chassis)); err != nil && o.bundle == 0 {
			// A partial last group too small to reach every other group:
			// the system is whole groups (Cray XC Series Configuration:
			// above 64 cabinets systems are built of whole groups).
			chassis = (chassis + ChassisPerGroup - 1) / ChassisPerGroup * ChassisPerGroup
			d, err = ForChassis(chassis, bundleFor(chassis))
		}
	}
	if err != nil {
		if o.bundle > 0 {
			named += fmt.Sprintf(", option bundle=%d", o.bundle)
		}
		return nil, fmt.Errorf("aries: the system for %s: %w", named, err)
	}
	return d, nil
}

// OptionNames lists the backend options and what they mean.
var OptionNames = optionTable.Names()

// parseOptions parses the backend options of a job (optionTable).
func parseOptions(o map[string]string) (options, error) {
	opts := options{Options: fabric.DefaultOptions(params), pageBytes: PageBytes, bias: DefaultBias, progressive: true, reroutePause: ReroutePause}
	err := optionTable.Parse(&opts, o)
	return opts, err
}
