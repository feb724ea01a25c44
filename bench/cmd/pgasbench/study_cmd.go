package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/bench/study"
	"github.com/gopgas/gopgas/internal/units"
)

func studyCommand() *command {
	return &command{
		name:    "ordering",
		summary: "the ordering study ([ORDERING] section III)",
		args:    "[flags]",
		about: "For each ordering mode (strict, default, relaxed), measures the paper's Figure 2 benchmark (gets, one outstanding per PE): " +
			"bandwidth vs message size for FMA, block transfer (BTE) and automatic choice at 4 nodes x 24 PEs per node = 48 pairs (Figure 3), " +
			"and bandwidth vs PEs per node (1..24) for 16 KiB and 64 KiB with FMA and BTE (Figures 4 and 5). " +
			"Prints the tables and a summary (relaxed/strict ratio at each PEs per node, where each curve peaks, the FMA/BTE crossover per ordering). " +
			"Two more sweeps: FMA put bandwidth vs size (8 B..256 KiB) at 1, 2 and 4 PEs per node on 2 nodes, window 16, relaxed ([GEMINI-HOTI] Figure 8), " +
			"and gets at 8 B, 8 KiB, 256 KiB and 2 MiB vs PEs per node (1..24) and window (1, 2), relaxed, automatic mechanism, local buffers in the segment or not ([ORDERING] Figure 9); " +
			"their summary gives the smallest size reaching 90% of the put peak per PEs per node, the worst non-shared slowdown, and the shared bandwidth at 4 PEs per node over the best. " +
			"Section V ([ORDERING] Figure 11): the two-sided form of the Figure 2 benchmark (Isend/Irecv, relaxed data, strictly ordered matching) at 8 B, 8 KiB, 256 KiB and 2 MiB vs PEs per node (1, 2, 4, 8, 12, 16, 24) and window (1, 8, 64 up to 8 KiB; 1, 2 above), with rendezvous and, at 8 KiB and 256 KiB, without (PGAS_MSG_RNDV=off), beside one-sided gets into the segment at the same points; " +
			"its summary gives each size's protocol, the PEs per node each curve needs for 90% of its best, the two-sided/one-sided ratio per size and window, and where each two-sided curve peaks. " +
			"With --plot-dir, writes the plots. Points run in parallel (--parallel); iterations default to 10 up to 16 KiB, 5 up to 256 KiB, 3 above, " +
			"with one warm-up (the simulation is deterministic). The default study simulates sizes of 8 B..128 KiB on gemini (-m 8:1M extends Figure 3 at several times the cost); the put and shared vs non-shared sweeps iterate until each node moves about 4 MiB (2 to 100 iterations, at least 10 for puts, after 1 warm-up).",
		flags: func(o *options, fs *flag.FlagSet) {
			d := study.Default()
			conduitFlag(o, fs, "gemini")
			fs.IntVar(&o.nodes, "nodes", d.Nodes, "number of nodes")
			fs.IntVar(&o.ppn, "ppn", d.PPN, "PEs per node of the size sweep (Figure 3)")
			fs.StringVar(&o.orderings, "orderings", "strict,default,relaxed", "ordering modes studied, comma-separated")
			fs.StringVar(&o.mechanisms, "mechanisms", "fma,bte,auto", "mechanisms of the size sweep, comma-separated")
			fs.StringVar(&o.sweepMechs, "sweep-mechanisms", "fma,bte", "mechanisms of the PEs-per-node sweep, comma-separated")
			fs.StringVar(&o.ppnList, "ppn-list", "1,2,3,4,6,8,12,16,24", "PEs per node of the PEs-per-node sweep (Figures 4, 5), comma-separated")
			fs.StringVar(&o.sweepSizes, "sweep-sizes", "16K,64K", "message sizes of the PEs-per-node sweep, comma-separated")
			sizeFlag(o, fs, 8, study.DefaultMaxSize)
			iterFlags(o, fs, "10 up to 16 KiB, 5 up to 256 KiB, 3 above", "1")
			fs.StringVar(&o.op, "op", "get", "operation: get or put")
			fs.BoolVar(&o.sizeSweep, "size-sweep", true, "run the size sweep (Figure 3); --size-sweep=false skips it")
			fs.BoolVar(&o.ppnSweep, "ppn-sweep", true, "run the PEs-per-node sweep (Figures 4, 5); --ppn-sweep=false skips it")
			fs.BoolVar(&o.putSweep, "put-sweep", true, "run the FMA put sweep ([GEMINI-HOTI] Figure 8); --put-sweep=false skips it")
			fs.BoolVar(&o.oneSided, "onesided-sweep", true, "run the shared vs non-shared sweep ([ORDERING] Figure 9); --onesided-sweep=false skips it")
			fs.BoolVar(&o.twoSided, "twosided-sweep", true, "run the two-sided sweep and its one-sided counterparts ([ORDERING] section V, Figure 11); --twosided-sweep=false skips it")
			fs.StringVar(&o.twoSidedPPNs, "twosided-ppn-list", joinInts(d.TwoSidedPPNs), "PEs per node of the two-sided sweep, comma-separated")
			fs.StringVar(&o.twoSidedSizes, "twosided-sizes", joinSizes(d.TwoSidedSizes), "message sizes of the two-sided sweep, comma-separated")
			fs.StringVar(&o.noRndv, "no-rendezvous-sizes", joinSizes(d.NoRendezvousSizes), "sizes the two-sided sweep measures again without rendezvous, comma-separated (empty: none)")
			fs.IntVar(&o.parallel, "parallel", 0, "points run at once (0: GOMAXPROCS)")
			memoryFlag(o, fs, "points")
			fs.StringVar(&o.plotDir, "plot-dir", "", "write the plots to this `DIR` (created if missing)")
			fs.StringVar(&o.plotFormat, "plot-format", "svg", "image format of the plots: svg or png")
			settingFlags(o, fs)
			formatFlag(o, fs)
		},
		run: runStudy,
	}
}

func parseMechanisms(flagName, s string) ([]bench.Mechanism, error) {
	var out []bench.Mechanism
	for _, p := range splitList(s) {
		m, err := bench.ParseMechanism(p)
		if err != nil {
			return nil, usagef("--%s: mechanism %q: want fma, bte or auto", flagName, p)
		}
		out = append(out, m)
	}
	return out, nil
}

// maxListInt bounds the integers of --ppn-list: PEs per node, at most as
// many as PGAS_PES_PER_NODE allows.
const maxListInt = 1 << 20

func parseInts(flagName, s string) ([]int, error) {
	var out []int
	for _, p := range splitList(s) {
		v, err := strconv.Atoi(p)
		if err != nil || v < 1 || v > maxListInt {
			return nil, usagef("--%s: %q is not an integer from 1 to %d", flagName, p, maxListInt)
		}
		out = append(out, v)
	}
	return out, nil
}

// joinInts writes ns as --ppn-list reads them: 1,2,4.
func joinInts(ns []int) string { return joinList(ns, strconv.Itoa) }

// joinSizes writes sizes as --sweep-sizes reads them: 8,8KiB,2MiB.
func joinSizes(sizes []int) string {
	return joinList(sizes, func(n int) string { return units.FormatBytes(int64(n)) })
}

// joinList writes ns comma-separated, each as format writes it.
func joinList(ns []int, format func(int) string) string {
	text := make([]string, len(ns))
	for i, n := range ns {
		text[i] = format(n)
	}
	return strings.Join(text, ",")
}

func parseSizes(flagName, s string) ([]int, error) {
	var out []int
	for _, p := range splitList(s) {
		v, err := parseSize(p)
		if err != nil || v < 1 || v > maxMessage {
			return nil, usagef("--%s: %q is not a size from 1 B to 1 GiB", flagName, p)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// studyConfig builds the study's configuration from the flags.
func (a *app) studyConfig(o *options) (study.Config, error) {
	c := study.Default()
	if err := o.positive("i", "x", "nodes", "ppn", "parallel"); err != nil {
		return c, err
	}
	if err := o.applyMemoryBudget(); err != nil {
		return c, err
	}
	c.Nodes, c.PPN, c.Iterations, c.Warmup, c.Parallel = o.nodes, o.ppn, o.iters, o.warmup, o.parallel
	switch o.op {
	case "get":
		c.Op = bench.Get
	case "put":
		c.Op = bench.Put
	default:
		return c, usagef("--op %s: want get or put", o.op)
	}
	c.Orderings = nil
	for _, p := range splitList(o.orderings) {
		ord, err := parseOrdering(p)
		if err != nil {
			return c, usagef("--orderings: %v", err)
		}
		c.Orderings = append(c.Orderings, ord)
	}
	if len(c.Orderings) == 0 {
		return c, usagef("--orderings: no ordering mode")
	}
	var err error
	if c.Mechanisms, err = parseMechanisms("mechanisms", o.mechanisms); err != nil {
		return c, err
	}
	if c.SweepMechanisms, err = parseMechanisms("sweep-mechanisms", o.sweepMechs); err != nil {
		return c, err
	}
	for _, l := range []struct {
		dst         *[]int
		parse       func(flagName, s string) ([]int, error)
		flag, value string
	}{
		{&c.PPNs, parseInts, "ppn-list", o.ppnList},
		{&c.SweepSizes, parseSizes, "sweep-sizes", o.sweepSizes},
		{&c.TwoSidedPPNs, parseInts, "twosided-ppn-list", o.twoSidedPPNs},
		{&c.TwoSidedSizes, parseSizes, "twosided-sizes", o.twoSidedSizes},
		{&c.NoRendezvousSizes, parseSizes, "no-rendezvous-sizes", o.noRndv},
	} {
		if *l.dst, err = l.parse(l.flag, l.value); err != nil {
			return c, err
		}
	}
	if c.Sizes, err = o.sizeList(); err != nil {
		return c, err
	}
	if len(c.Sizes) > 0 && c.Sizes[0] == 0 {
		c.Sizes = c.Sizes[1:]
	}
	if !o.sizeSweep {
		c.Sizes = nil
	}
	if !o.ppnSweep {
		c.PPNs = nil
	}
	if !o.putSweep {
		c.PutPPNs = nil
	}
	if !o.oneSided {
		c.OneSidedPPNs = nil
	}
	if !o.twoSided {
		c.TwoSidedPPNs = nil
	}
	switch {
	case len(c.Sizes) > 0 && len(c.Mechanisms) == 0:
		return c, usagef("--mechanisms: none for the size sweep")
	case len(c.PPNs) > 0 && (len(c.SweepMechanisms) == 0 || len(c.SweepSizes) == 0):
		return c, usagef("--sweep-mechanisms and --sweep-sizes: the PEs-per-node sweep needs both")
	case len(c.TwoSidedPPNs) > 0 && len(c.TwoSidedSizes) == 0:
		return c, usagef("--twosided-sizes: none for the two-sided sweep")
	case len(c.Sizes) == 0 && len(c.PPNs) == 0 && len(c.PutPPNs) == 0 && len(c.OneSidedPPNs) == 0 && len(c.TwoSidedPPNs) == 0:
		return c, usagef("nothing to measure: every sweep is off or empty")
	}
	// The job configuration: the ordering is the study's, per point.
	o.nodes, o.ppn = c.Nodes, 1
	base, err := a.jobConfig(o)
	if err != nil {
		return c, err
	}
	base.Ordering = 0
	c.Base = base
	if a.terminal {
		c.Progress = func(done, total int) { a.progress("ordering study: %d/%d points measured", done, total) }
	}
	return c, nil
}

func runStudy(a *app, ctx context.Context, o *options) error {
	f, err := o.formatOf()
	if err != nil {
		return err
	}
	if o.plotFormat != "svg" && o.plotFormat != "png" {
		return usagef("--plot-format %s: want svg or png", o.plotFormat)
	}
	cfg, err := a.studyConfig(o)
	if err != nil {
		return err
	}
	res, err := study.Run(ctx, cfg)
	a.endProgress()
	if err != nil {
		if errors.Is(err, study.ErrBadConfig) || errors.Is(err, bench.ErrBadSetup) {
			return usagef("%v", err)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted")
		}
		return err
	}
	// The record: the seed the jobs used, the command line, the
	// provenance.
	res.Config.Base.Seed = seedUsed(res.Config.Base)
	res.Invocation, res.Provenance = a.invocation(o), a.newProvenance()
	if err := res.Write(a.stdout, f); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	if o.plotDir != "" {
		paths, err := res.SavePlots(o.plotDir, o.plotFormat)
		if err != nil {
			return err
		}
		if f == report.OSU {
			fmt.Fprintf(a.stdout, "# Plots: %s\n", strings.Join(paths, ", "))
		}
	}
	return nil
}
