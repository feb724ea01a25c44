package aries

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/internal/fabric"
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

// OptionNames lists the backend options and what they mean.
var OptionNames = optionNames()

func optionNames() map[string]string {
	return fabric.OptionNames(params, map[string]string{
		"groups":        "Dragonfly groups of the system (default: the smallest system holding the job)",
		"chassis":       "build a system of this many chassis (6 per group)",
		"cabinets":      "build a system of this many cabinets (2 per group)",
		"bundle":        "optical cables between each pair of groups (default: the most that fit)",
		"bias":          fmt.Sprintf("adaptive routing bias toward minimal routes, in flits of load (default %d; negative favours non-minimal)", DefaultBias),
		"valiant":       "true: route every adaptive packet non-minimally through a random intermediate group",
		"progressive":   "false: adaptive routes are chosen at the source Aries only, not again at the next Aries of the source group",
		"fail":          "failed links: aries:port[:lanes][@time] separated by ';' (lanes working, 1 or 2, degrades instead of failing; @time, a duration such as 50us, fails or degrades it that far into the run instead of from the start)",
		"reroute_pause": fmt.Sprintf("how long the HSS quiesces the network for new routing tables after a link fails in the run under deterministic routing, a duration (default %v)", fabric.FormatFaultTime(ReroutePause)),
		"page_bytes":    fmt.Sprintf("page size of registered memory: %d (two-level translation) or %d (default, one level)", SmallPageBytes, HugePageBytes),
		"ce":            "false: no collective engine; barriers and allreduces run in software",
		"exclude":       "system nodes the job may not use (failed, or other jobs'), as 3,7-9: the job's nodes map around them",
	})
}

func parseOptions(o map[string]string) (options, error) {
	opts := options{Options: fabric.DefaultOptions(params), pageBytes: PageBytes, bias: DefaultBias, progressive: true, reroutePause: ReroutePause}
	for _, k := range slices.Sorted(maps.Keys(o)) {
		v := o[k]
		var err error
		switch k {
		case "groups":
			opts.groups, err = positive(v)
		case "chassis":
			opts.chassis, err = positive(v)
		case "cabinets":
			opts.cabinets, err = positive(v)
		case "bundle":
			opts.bundle, err = positive(v)
		case "bias":
			opts.bias, err = strconv.Atoi(v)
		case "valiant":
			opts.valiant, err = strconv.ParseBool(v)
		case "progressive":
			opts.progressive, err = strconv.ParseBool(v)
		case "fail":
			opts.faults, err = parseFaults(v)
		case "reroute_pause":
			opts.reroutePause, err = fabric.ParseFaultTime(v)
		case "page_bytes":
			opts.pageBytes, err = strconv.ParseInt(v, 10, 64)
			if err == nil && opts.pageBytes != SmallPageBytes && opts.pageBytes != HugePageBytes {
				err = fmt.Errorf("not %d or %d", SmallPageBytes, HugePageBytes)
			}
		case "exclude":
			opts.excluded, err = parseNodeList(v)
		case "ce":
			var on bool
			on, err = strconv.ParseBool(v)
			opts.noCE = !on
		default:
			var known bool
			if known, err = opts.Set(k, v); !known {
				return opts, fmt.Errorf("aries: unknown option %q (known: %s)", k, strings.Join(slices.Sorted(maps.Keys(OptionNames)), ", "))
			}
		}
		if err != nil {
			return opts, fmt.Errorf("aries: option %s=%q: %v", k, v, err)
		}
	}
	set := 0
	for _, n := range []int{opts.groups, opts.chassis, opts.cabinets} {
		if n > 0 {
			set++
		}
	}
	if set > 1 {
		return opts, fmt.Errorf("aries: options groups, chassis and cabinets: give at most one")
	}
	return opts, nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err == nil && n < 1 {
		err = fmt.Errorf("not positive")
	}
	return n, err
}
