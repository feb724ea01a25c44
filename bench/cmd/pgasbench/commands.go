package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
)

// OSU's default largest messages: 4 MiB point to point, 1 MiB for the
// collectives.
const (
	p2pMax  = 4 << 20
	collMax = 1 << 20
)

// benchFlags are the flags of a benchmark subcommand.
type benchFlags struct {
	lo, hi       int  // default -m range; hi 0: no -m
	window       int  // default -W; 0: no -W
	percentiles  bool // -z
	full         bool // -f
	validate     bool // -c
	ignoreSizes  bool // -m taken and ignored (OSU's barrier)
	unregistered bool
	op           bool // --op
	atomics      bool // --filter, --many-to-one
	plot         bool
	omb          ombSet // OSU 7.4's further options it takes
	// title is the OSU title -v prints.
	title string
}

func (bf benchFlags) define(o *options, fs *flag.FlagSet) {
	commonFlags(o, fs, "smp")
	mechanismFlag(o, fs)
	if bf.plot {
		plotFlag(o, fs)
	}
	switch {
	case bf.hi > 0:
		sizeFlag(o, fs, bf.lo, bf.hi)
	case bf.ignoreSizes:
		fs.StringVar(&o.sizes, "m", "", "accepted and ignored, as OSU's barrier test does")
		fs.StringVar(&o.sizes, "message-size", "", "same as -m")
	}
	osuFlags(o, fs, bf.full, bf.validate)
	if bf.window > 0 {
		windowFlag(o, fs, bf.window)
	}
	if bf.percentiles {
		percentileFlag(o, fs)
	}
	if bf.unregistered {
		unregisteredFlag(o, fs)
	}
	if bf.op {
		fs.StringVar(&o.op, "op", "get", "operation: get or put")
		fs.BoolVar(&o.twoSided, "two-sided", false, "the two-sided form instead ([ORDERING] Figure 2's POINT_TO_POINT_MESSAGES): each PE posts a window of Irecv from its partner, then a window of Isend to it, and waits for them all; buffers outside the segment, protocols per PGAS_MSG_*")
	}
	if bf.title != "" {
		ombFlags(o, fs, bf.omb)
	}
	if bf.atomics {
		fs.StringVar(&o.filter, "filter", "", "run only the operations whose name contains this (\"fadd\", \"int32\")")
		fs.IntVar(&o.manyToOne, "many-to-one", 0, "instead, the AMO-cache experiment: every PE off node 0 adds to `N` words of rank 0 (1: cache hits; 8192: misses); defaults 4 nodes x 24 PEs")
	}
}

// ombSets are the OSU 7.4 options each benchmark takes, as its OSU
// counterpart, and -b on the one-sided bandwidth tests (gopgas's: OSU's
// have only its single layout, the CLI's default there).
var ombSets = map[string]ombSet{
	"latency":     ombBuffers | ombValWarm | ombType | ombGraph | ombDDT,
	"bw":          ombBuffers | ombValWarm | ombType | ombGraph | ombDDT | ombTestCall,
	"bibw":        ombBuffers | ombValWarm | ombType | ombGraph | ombDDT | ombTestCall,
	"mbw_mr":      ombBuffers | ombValWarm | ombType | ombGraph | ombDDT | ombMBWMR,
	"multi_lat":   ombBuffers | ombValWarm | ombType | ombGraph | ombDDT,
	"put_latency": ombWindow | ombGraph,
	"get_latency": ombWindow | ombGraph,
	"put_bw":      ombBuffers | ombWindow | ombGraph,
	"get_bw":      ombBuffers | ombWindow | ombGraph,
	"put_bibw":    ombBuffers | ombWindow | ombGraph,
	"fop_latency": ombWindow | ombType | ombGraph,
	"cas_latency": ombWindow | ombType | ombGraph,
	"acc_latency": ombWindow | ombType | ombGraph,
	"barrier":     ombMemLimit | ombGPU | ombValWarm | ombGraph,
	"bcast":       ombMemLimit | ombGPU | ombValWarm | ombGraph | ombDDT | ombType,
	"allreduce":   ombMemLimit | ombGPU | ombValWarm | ombGraph | ombInPlace | ombType,
	"alltoall":    ombMemLimit | ombGPU | ombValWarm | ombGraph | ombInPlace | ombDDT | ombType,
}

func benchCommand(name, summary, about string, bf benchFlags) *command {
	bf.omb = ombSets[name]
	args := "[flags]"
	return &command{name: name, summary: summary, args: args, about: about,
		flags: bf.define, run: func(a *app, ctx context.Context, o *options) error {
			o.title = bf.title
			return runBench(a, ctx, o)
		}}
}

var commands []*command

func init() {
	p2p := benchFlags{lo: 1, hi: p2pMax, plot: true}
	lat := p2p
	lat.percentiles = true
	bw := p2p
	bw.window, bw.percentiles, bw.unregistered = bench.DefaultWindow, true, true
	msgLat := lat
	msgLat.validate = true
	msgBW := p2p
	msgBW.window, msgBW.percentiles, msgBW.validate = bench.DefaultWindow, true, true
	coll := benchFlags{lo: 1, hi: collMax, plot: true, percentiles: true, full: true, validate: true}
	titled := func(bf benchFlags, title string) benchFlags {
		bf.title = title
		return bf
	}
	const omb = "OMB's options apply as in OMB 7.4 (-m, -i, -x, -z; see --help)."
	commands = []*command{
		benchCommand("latency", "two-sided ping-pong latency (osu_latency)",
			"osu_latency on pgas's two-sided messaging: rank 0 sends each size to rank n/2 (Send), which receives it (Recv) and sends it back; the figure is half the round trip in microseconds, the whole loop timed. Defaults: 2 nodes, 1 PE per node, sizes 1 B..4 MiB, OSU's iterations (10000, 1000 above 8 KiB; warm-up 100, 10). -c checks every received message. "+omb,
			titled(msgLat, "OSU gopgas Latency Test")),
		benchCommand("bw", "two-sided bandwidth (osu_bw)",
			"osu_bw on pgas's two-sided messaging: each iteration rank 0 starts a window of Isends of the size to rank n/2, which has started a window of Irecvs; both wait for the window (WaitAll) and rank n/2 acknowledges it with a 4-byte message; MB/s (10^6 bytes per second). Defaults: 2 nodes, 1 PE per node, window 64, OSU's iterations (100, 20 above 8 KiB; warm-up 10, 2). "+omb,
			titled(msgBW, "OSU gopgas Bandwidth Test")),
		benchCommand("bibw", "two-sided bidirectional bandwidth (osu_bibw)",
			"osu_bibw on pgas's two-sided messaging: rank 0 and rank n/2 each start a window of Irecvs and a window of Isends to the other and wait for both; the total of both directions, MB/s. Defaults as bw. "+omb,
			titled(msgBW, "OSU gopgas Bi-Directional Bandwidth Test")),
		benchCommand("mbw_mr", "two-sided multi-pair bandwidth and message rate (osu_mbw_mr)",
			"osu_mbw_mr on pgas's two-sided messaging: PE i of the first half runs osu_bw's loop with PE i + n/2 (-p N: PE i < N with PE i + N); aggregate MB/s and messages per second (-R 0: no rate; -V: a matrix over windows 1..128, as OSU's). Defaults: 2 nodes, 1 PE per node (use --ppn for more pairs), window 64. "+omb,
			titled(benchFlags{lo: 1, hi: p2pMax, window: bench.DefaultWindow, percentiles: true, validate: true, plot: true}, "OSU gopgas Multiple Bandwidth / Message Rate Test")),
		benchCommand("multi_lat", "two-sided multi-pair latency (osu_multi_lat)",
			"osu_multi_lat on pgas's two-sided messaging: PE i of the first half and PE i + n/2 run latency's ping-pong at once; the average over the pairs of half the round trip, us. Defaults: 2 nodes, 1 PE per node (use --ppn for more pairs). "+omb,
			titled(msgLat, "OSU gopgas Multi Latency Test")),
		benchCommand("am_latency", "active-message ping-pong latency (half the round trip)",
			"Rank 0 sends an active-message request with a payload of each size (Short for 0 bytes, Medium up to the largest Medium, Long beyond) to rank n/2, whose handler replies with as much; the figure is half the round trip in microseconds (osu_latency's loop on active messages). Defaults: 2 nodes, 1 PE per node, sizes 0..4 MiB, OSU's iterations (10000, 1000 above 8 KiB; warm-up 100, 10).",
			titled(benchFlags{lo: 0, hi: p2pMax, percentiles: true, plot: true}, "OSU gopgas Active Message Latency Test")),
		benchCommand("put_latency", "blocking put latency (osu_put_latency)",
			"Rank 0 puts each size to rank n/2 with a blocking put (returns when the data is delivered at the target); microseconds per put. Defaults: 2 nodes, 1 PE per node, sizes 1 B..4 MiB.", titled(lat, "OSU gopgas Put Latency Test")),
		benchCommand("get_latency", "blocking get latency (osu_get_latency)",
			"Rank 0 gets each size from rank n/2 with a blocking get; microseconds per get. Defaults: 2 nodes, 1 PE per node, sizes 1 B..4 MiB.", titled(lat, "OSU gopgas Get latency Test")),
		benchCommand("put_bw", "put bandwidth (osu_put_bw)",
			"Rank 0 posts a window of non-blocking puts of each size to distinct slots of rank n/2, then waits for them all, repeatedly; MB/s (10^6 bytes per second). Defaults: 2 nodes, 1 PE per node, window 64, OSU's iterations (100, 20 above 8 KiB; warm-up 10, 2).", titled(bw, "OSU gopgas Put Bandwidth Test")),
		benchCommand("get_bw", "get bandwidth (osu_get_bw)",
			"As put_bw with gets from rank n/2.", titled(bw, "OSU gopgas Get Bandwidth Test")),
		benchCommand("put_bibw", "bidirectional put bandwidth (osu_put_bibw)",
			"As put_bw in both directions at once: rank 0 and rank n/2 put to each other, each window an epoch synchronized as -s says (OMB's default pscw: post/start/complete/wait by flags the two raise at each other); the figure is the total.", titled(bw, "OSU gopgas Put Bi-directional Bandwidth Test")),
		benchCommand("put_mbw_mr", "one-sided multi-pair put bandwidth and message rate",
			"osu_mbw_mr's pattern on puts (OMB has no one-sided counterpart): PE i of the first half sends windows of non-blocking puts to PE i + n/2 and waits for each window; aggregate MB/s and messages per second, in mbw_mr's layout. Defaults: 2 nodes, 1 PE per node (use --ppn for more pairs), window 64.",
			titled(benchFlags{lo: 1, hi: p2pMax, window: bench.DefaultWindow, unregistered: true, plot: true}, "OSU gopgas Put Multiple Bandwidth / Message Rate Test")),
		benchCommand("am_bw", "active-message bandwidth",
			"Rank 0 sends windows of active-message requests (Medium up to the largest Medium, Long beyond) to rank n/2, which acknowledges each window with a Short reply; MB/s. Defaults: 2 nodes, 1 PE per node, window 64.",
			titled(benchFlags{lo: 1, hi: p2pMax, window: bench.DefaultWindow, plot: true}, "OSU gopgas Active Message Bandwidth Test")),
		benchCommand("ordering_bw", "the ordering paper's bidirectional multi-pair benchmark (Figure 2)",
			"The benchmark of [ORDERING], Figure 2: with n PEs, every PE's target is (rank + n/2) mod n; each iteration every PE posts a window of non-blocking gets (or puts, --op put) and waits for them; aggregate MB/s. Defaults: 4 nodes x 24 PEs per node (48 pairs), window 1, as the paper's Figure 3. "+
				"--two-sided runs its two-sided form (the paper's Figure 11): a window of non-blocking receives from the partner, then a window of non-blocking sends to it, then wait for all; the message protocols are the runtime's (PGAS_MSG_RNDV=off disables rendezvous, as Figure 11 right).",
			benchFlags{lo: 1, hi: p2pMax, window: 1, unregistered: true, op: true, plot: true}),
		benchCommand("fop_latency", "fetch-and-add latency (osu_fop_latency)",
			"Rank 0 runs a blocking fetching add on an int64 of rank n/2, repeatedly; microseconds per operation, one row of 8 bytes, OSU's latency iterations.",
			titled(benchFlags{plot: true, validate: true}, "OSU gopgas Fetch_and_op latency Test")),
		benchCommand("cas_latency", "compare-and-swap latency (osu_cas_latency)",
			"As fop_latency with a compare-and-swap.", titled(benchFlags{plot: true, validate: true}, "OSU gopgas Compare_and_swap latency Test")),
		benchCommand("acc_latency", "atomic add latency (osu_acc_latency)",
			"As fop_latency with a non-fetching atomic add (MPI_Accumulate's sum).", titled(benchFlags{plot: true, validate: true}, "OSU gopgas Accumulate latency Test")),
		benchCommand("atomics", "atomic operations: rate and latency per operation and type",
			"Rank 0 runs every atomic operation of the runtime on every type (int64, uint64, int32, uint32, float64) on a word of rank n/2: the latency of a blocking operation (us) and the rate of windows of non-blocking ones (million ops/s), as osu_oshm_atomics. --many-to-one N runs the AMO-cache experiment of [GEMINI-HOTI] Figure 9 instead.",
			benchFlags{window: bench.DefaultWindow, atomics: true, plot: true}),
		benchCommand("barrier", "barrier latency (osu_barrier)",
			"The world team's barrier on every PE; as osu_barrier, each PE's average over the iterations, averaged over PEs (-f adds the minimum and maximum over PEs), in microseconds. Defaults: 2 nodes x 4 PEs per node, 1000 iterations, warm-up 100. -m is accepted and ignored, as OSU's.",
			titled(benchFlags{percentiles: true, full: true, ignoreSizes: true}, "OSU gopgas Barrier Latency Test")),
		benchCommand("bcast", "broadcast latency by size (osu_bcast)",
			"Rank 0 broadcasts each size to every PE; as osu_bcast, each PE's average latency averaged over PEs, in microseconds. Defaults: 2 nodes x 4 PEs per node, sizes 1 B..1 MiB, 1000 iterations (100 above 8 KiB).",
			titled(coll, "OSU gopgas Broadcast Latency Test")),
		benchCommand("allreduce", "allreduce latency by size (osu_allreduce, float64 sum)",
			"A sum of size/8 float64s over every PE; each PE's average latency averaged over PEs, in microseconds. Defaults: 2 nodes x 4 PEs per node, sizes 8 B..1 MiB.",
			titled(func() benchFlags { c := coll; c.lo = 8; return c }(), "OSU gopgas Allreduce Latency Test")),
		benchCommand("alltoall", "all-to-all latency by size (osu_alltoall)",
			"Every PE sends each size to every PE; each PE's average latency averaged over PEs, in microseconds. Defaults: 2 nodes x 4 PEs per node, sizes 1 B..1 MiB.",
			titled(coll, "OSU gopgas All-to-All Personalized Exchange Latency Test")),
		studyCommand(),
		calibrateCommand(),
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// runBench runs a benchmark subcommand.
func runBench(a *app, ctx context.Context, o *options) error {
	o.mergeAliases()
	if o.showVersion {
		if o.title == "" {
			fmt.Fprintf(a.stdout, "# pgasbench %s %s\n", o.cmd.name, version())
		} else {
			fmt.Fprintf(a.stdout, "# %s v%s\n", o.title, report.OMBVersion)
		}
		return nil
	}
	// OSU's -x 0: no warm-up (positive() wants the others at least 1).
	noWarmup := o.given["x"] && o.warmup == 0
	if noWarmup {
		delete(o.given, "x")
	}
	f, err := o.formatOf()
	if err != nil {
		return err
	}
	if o.plot != "" {
		if _, err := report.PlotFormat(o.plot); err != nil {
			return usagef("--plot: %v", err)
		}
	}
	if err := o.positive("many-to-one"); err != nil {
		return err
	}
	var sizes []int
	if o.sizeMax > 0 && o.cmd.name != "barrier" {
		if sizes, err = o.sizeList(); err != nil {
			return err
		}
	}
	var op bench.Op
	if o.twoSided && (o.given["op"] || o.unregistered) {
		return usagef("--two-sided: --op and --unregistered are the one-sided form's (two-sided buffers are always outside the segment)")
	}
	if o.cmd.name == "ordering_bw" {
		switch o.op {
		case "get":
			op = bench.Get
		case "put":
			op = bench.Put
		default:
			return usagef("--op %s: want get or put", o.op)
		}
	}
	s, err := a.setup(o)
	if err != nil {
		return err
	}
	s.Tail, s.Full, s.Validate = o.tail.list, o.full, o.validate
	s.Context = ctx
	types, err := o.applyOMB(&s)
	if err != nil {
		return err
	}
	if o.omb.memLimit != "" || o.cmd.name == "alltoall" {
		var warnings []string
		if sizes, warnings, err = o.memLimited(sizes); err != nil {
			return err
		}
		for _, w := range warnings {
			fmt.Fprintf(a.stderr, "pgasbench %s: warning: %s\n", o.cmd.name, w)
		}
	}
	warmup := o.warmup
	if noWarmup {
		s.Warmup, warmup = bench.NoWarmup, bench.NoWarmup
	}
	run := &report.Run{Setup: report.Setup{Sizes: sizes, Iterations: o.iters, Warmup: warmup, Percentiles: o.percentiles,
		Unregistered: o.unregistered, Filter: o.filter, Variables: o.manyToOne, Seed: o.seed,
		Options: o.options.Map(), Settings: o.settingsGiven(), Args: append([]string{o.cmd.name}, o.args()...)}}
	a.record(s.Config, &run.Setup)
	var r *bench.Result
	var more []*bench.Result // -T all: the further types' results
	for ti, t := range types {
		s.Datatype = t
		if ti > 0 {
			more = append(more, r)
		}
		if r, err = runOne(s, o, run, sizes, op); err != nil {
			break
		}
	}
	if len(more) > 0 {
		// The first type's table first, as OSU prints them.
		run.More = append(more[1:], r)
		r = more[0]
	}
	if r != nil && o.omb.printRate == 0 && o.given["R"] {
		r.NoRate = true // osu_mbw_mr's -R 0
	}
	a.endProgress()
	var stopped error // interrupted: print the points measured, then say so
	if err != nil {
		if errors.Is(err, bench.ErrBadSetup) {
			return usagef("%v", err)
		}
		if r == nil || ctx.Err() == nil {
			return err
		}
		stopped = err
	}
	if !r.Rank0 {
		return nil // another process of an MPI launch: rank 0's prints
	}
	run.Result = r
	if err := report.Write(a.stdout, f, run); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	switch {
	case o.omb.graph == "tty":
		writeGraphs(a.stdout, run)
	case o.omb.graph != "":
		if _, err := saveGraphs(run, o.omb.graph); err != nil {
			return err
		}
	}
	if o.plot != "" {
		// With --count the plot is drawn once, after the last run (or
		// an interrupted one), from every run: their median and range.
		a.plotRuns = append(a.plotRuns, run)
		if a.index+1 >= max(a.count, 1) || stopped != nil {
			if err := a.drawRuns(o); err != nil {
				return err
			}
		}
	}
	return stopped
}

// drawRuns draws --plot from the runs so far (all of --count's, or those
// before an interruption) and forgets them.
func (a *app) drawRuns(o *options) error {
	runs := a.plotRuns
	a.plotRuns = nil
	if o.plot == "" || len(runs) == 0 {
		return nil
	}
	fig, err := report.RunsFigure(runs)
	if err == nil {
		err = fig.Save(o.plot)
	}
	return err
}

// runOne runs the benchmark once (one element type).
func runOne(s bench.Setup, o *options, run *report.Run, sizes []int, op bench.Op) (r *bench.Result, err error) {
	switch o.cmd.name {
	case "latency":
		r, err = bench.MsgLatency(s, sizes)
	case "bw":
		r, err = bench.MsgBW(s, sizes)
	case "bibw":
		r, err = bench.MsgBiBW(s, sizes)
	case "mbw_mr":
		r, err = bench.MsgMBWMR(s, sizes)
	case "multi_lat":
		r, err = bench.MsgMultiLat(s, sizes)
	case "am_latency":
		r, err = bench.Latency(s, sizes)
	case "fop_latency", "cas_latency", "acc_latency":
		r, err = bench.AtomicLatency(s, o.cmd.name)
	case "put_latency":
		r, err = bench.PutLatency(s, sizes)
	case "get_latency":
		r, err = bench.GetLatency(s, sizes)
	case "put_bw":
		r, err = bench.PutBW(s, sizes)
	case "get_bw":
		r, err = bench.GetBW(s, sizes)
	case "put_bibw":
		r, err = bench.BiBW(s, sizes)
	case "am_bw":
		r, err = bench.AMBW(s, sizes)
	case "put_mbw_mr":
		r, err = bench.MBWMR(s, sizes)
	case "ordering_bw":
		if o.twoSided {
			run.Op = "send/recv"
			r, err = bench.OrderingMsgBW(s, sizes)
			break
		}
		run.Op = op.String()
		r, err = bench.OrderingBW(s, sizes, op)
	case "atomics":
		if o.manyToOne > 0 {
			run.Setup.Filter = ""
			r, err = bench.ManyToOne(s, o.manyToOne)
		} else {
			run.Setup.Variables = 0
			run.Atomics, r, err = bench.Atomics(s, o.filter)
		}
	case "barrier":
		r, err = bench.Collectives(s, bench.Barrier, nil)
	case "bcast":
		r, err = bench.Collectives(s, bench.Broadcast, sizes)
	case "allreduce":
		r, err = bench.Collectives(s, bench.Allreduce, sizes)
	case "alltoall":
		r, err = bench.Collectives(s, bench.Alltoall, sizes)
	default:
		return nil, fmt.Errorf("no benchmark %q", o.cmd.name)
	}
	return r, err
}

// args is the command line the options came from, for the record.
func (o *options) args() []string { return o.rawArgs }
