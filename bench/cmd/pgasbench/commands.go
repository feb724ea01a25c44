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
	unregistered bool
	op           bool // --op
	atomics      bool // --filter, --many-to-one
	plot         bool
}

func (bf benchFlags) define(o *options, fs *flag.FlagSet) {
	commonFlags(o, fs, "smp")
	mechanismFlag(o, fs)
	if bf.plot {
		plotFlag(o, fs)
	}
	if bf.hi > 0 {
		sizeFlag(o, fs, bf.lo, bf.hi)
	}
	iterFlags(o, fs, "OSU's, by size", "OSU's, by size")
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
	if bf.atomics {
		fs.StringVar(&o.filter, "filter", "", "run only the operations whose name contains this (\"fadd\", \"int32\")")
		fs.IntVar(&o.manyToOne, "many-to-one", 0, "instead, the AMO-cache experiment: every PE off node 0 adds to `N` words of rank 0 (1: cache hits; 8192: misses); defaults 4 nodes x 24 PEs")
	}
}

func benchCommand(name, summary, about string, bf benchFlags) *command {
	args := "[flags]"
	return &command{name: name, summary: summary, args: args, about: about,
		flags: bf.define, run: runBench}
}

var commands []*command

func init() {
	p2p := benchFlags{lo: 1, hi: p2pMax, plot: true}
	lat := p2p
	lat.percentiles = true
	bw := p2p
	bw.window, bw.percentiles, bw.unregistered = bench.DefaultWindow, true, true
	commands = []*command{
		benchCommand("latency", "active-message ping-pong latency (half the round trip)",
			"Rank 0 sends an active-message request with a payload of each size (Short for 0 bytes, Medium up to the largest Medium, Long beyond) to rank n/2, whose handler replies with as much; the figure is half the round trip in microseconds (osu_latency on active messages). Defaults: 2 nodes, 1 PE per node, sizes 0..4 MiB, OSU's iterations (10000, 1000 above 8 KiB; warm-up 100, 10).",
			benchFlags{lo: 0, hi: p2pMax, percentiles: true, plot: true}),
		benchCommand("put_latency", "blocking put latency",
			"Rank 0 puts each size to rank n/2 with a blocking put (returns when the data is delivered at the target); microseconds per put. Defaults: 2 nodes, 1 PE per node, sizes 1 B..4 MiB.", lat),
		benchCommand("get_latency", "blocking get latency",
			"Rank 0 gets each size from rank n/2 with a blocking get; microseconds per get. Defaults: 2 nodes, 1 PE per node, sizes 1 B..4 MiB.", lat),
		benchCommand("put_bw", "put bandwidth (window of non-blocking puts)",
			"Rank 0 posts a window of non-blocking puts of each size to distinct slots of rank n/2, then waits for them all, repeatedly; MB/s (10^6 bytes per second). Defaults: 2 nodes, 1 PE per node, window 64, OSU's iterations (100, 20 above 8 KiB; warm-up 10, 2).", bw),
		benchCommand("get_bw", "get bandwidth (window of non-blocking gets)",
			"As put_bw with gets from rank n/2.", bw),
		benchCommand("bibw", "bidirectional put bandwidth",
			"As put_bw in both directions at once: rank 0 and rank n/2 put to each other; the figure is the total.", bw),
		benchCommand("am_bw", "active-message bandwidth",
			"Rank 0 sends windows of active-message requests (Medium up to the largest Medium, Long beyond) to rank n/2, which acknowledges each window with a Short reply; MB/s. Defaults: 2 nodes, 1 PE per node, window 64.",
			benchFlags{lo: 1, hi: p2pMax, window: bench.DefaultWindow, plot: true}),
		benchCommand("mbw_mr", "multi-pair bandwidth and message rate",
			"OSU's multiple bandwidth / message rate test on puts: PE i of the first half sends windows of non-blocking puts to PE i + n/2; aggregate MB/s and messages per second. Defaults: 2 nodes, 1 PE per node (use --ppn for more pairs), window 64.",
			benchFlags{lo: 1, hi: p2pMax, window: bench.DefaultWindow, unregistered: true, plot: true}),
		benchCommand("ordering_bw", "the ordering paper's bidirectional multi-pair benchmark (Figure 2)",
			"The benchmark of [ORDERING], Figure 2: with n PEs, every PE's target is (rank + n/2) mod n; each iteration every PE posts a window of non-blocking gets (or puts, --op put) and waits for them; aggregate MB/s. Defaults: 4 nodes x 24 PEs per node (48 pairs), window 1, as the paper's Figure 3. "+
				"--two-sided runs its two-sided form (the paper's Figure 11): a window of non-blocking receives from the partner, then a window of non-blocking sends to it, then wait for all; the message protocols are the runtime's (PGAS_MSG_RNDV=off disables rendezvous, as Figure 11 right).",
			benchFlags{lo: 1, hi: p2pMax, window: 1, unregistered: true, op: true, plot: true}),
		benchCommand("atomics", "atomic operations: rate and latency per operation and type",
			"Rank 0 runs every atomic operation of the runtime on every type (int64, uint64, int32, uint32, float64) on a word of rank n/2: the latency of a blocking operation (us) and the rate of windows of non-blocking ones (million ops/s), as osu_oshm_atomics. --many-to-one N runs the AMO-cache experiment of [GEMINI-HOTI] Figure 9 instead.",
			benchFlags{window: bench.DefaultWindow, atomics: true, plot: true}),
		benchCommand("barrier", "barrier latency",
			"The world team's barrier on every PE; the average over iterations of the slowest PE, in microseconds. Defaults: 2 nodes x 4 PEs per node, 1000 iterations.",
			benchFlags{}),
		benchCommand("bcast", "broadcast latency by size",
			"Rank 0 broadcasts each size to every PE; latency of the slowest PE in microseconds. Defaults: 2 nodes x 4 PEs per node, sizes 1 B..1 MiB, 1000 iterations (100 above 8 KiB).",
			benchFlags{lo: 1, hi: collMax, plot: true}),
		benchCommand("allreduce", "allreduce latency by size (float64 sum)",
			"A sum of size/8 float64s over every PE; latency of the slowest PE in microseconds. Defaults: 2 nodes x 4 PEs per node, sizes 8 B..1 MiB.",
			benchFlags{lo: 8, hi: collMax, plot: true}),
		benchCommand("alltoall", "all-to-all latency by size",
			"Every PE sends each size to every PE; latency of the slowest PE in microseconds. Defaults: 2 nodes x 4 PEs per node, sizes 1 B..1 MiB.",
			benchFlags{lo: 1, hi: collMax, plot: true}),
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
func runBench(a *app, _ context.Context, o *options) error {
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
	if o.sizeMax > 0 {
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
	run := &report.Run{Setup: report.Setup{Sizes: sizes, Iterations: o.iters, Warmup: o.warmup, Percentiles: o.percentiles,
		Unregistered: o.unregistered, Filter: o.filter, Variables: o.manyToOne, Seed: o.seed,
		Options: o.options.Map(), Settings: o.settingsGiven(), Args: append([]string{o.cmd.name}, o.args()...)}}
	var r *bench.Result
	switch o.cmd.name {
	case "latency":
		r, err = bench.Latency(s, sizes)
	case "put_latency":
		r, err = bench.PutLatency(s, sizes)
	case "get_latency":
		r, err = bench.GetLatency(s, sizes)
	case "put_bw":
		r, err = bench.PutBW(s, sizes)
	case "get_bw":
		r, err = bench.GetBW(s, sizes)
	case "bibw":
		r, err = bench.BiBW(s, sizes)
	case "am_bw":
		r, err = bench.AMBW(s, sizes)
	case "mbw_mr":
		r, err = bench.MBWMR(s, sizes)
	case "ordering_bw":
		if o.twoSided {
			run.Op = "send/recv"
			r, err = bench.MsgBW(s, sizes)
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
		return fmt.Errorf("no benchmark %q", o.cmd.name)
	}
	a.endProgress()
	if err != nil {
		if errors.Is(err, bench.ErrBadSetup) {
			return usagef("%v", err)
		}
		return err
	}
	if !r.Rank0 {
		return nil // another process of an MPI launch: rank 0's prints
	}
	run.Result = r
	if err := report.Write(a.stdout, f, run); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	if o.plot != "" {
		var fig *report.Figure
		switch {
		case run.Atomics != nil:
			fig = report.AtomicsFigure(r, run.Atomics)
		case o.manyToOne > 0:
			fig = &report.Figure{Title: fmt.Sprintf("%s (%s, %s)", r.Title, r.Conduit, r.TimeBase()),
				XLabel: "Variables", YLabel: "Million operations per second (Mops/s)",
				Bars: []report.Bar{{Label: fmt.Sprint(o.manyToOne), Value: r.Points[0].Value}}}
		default:
			fig = report.ResultFigure(r)
			fig.Title = fmt.Sprintf("%s (%s, %s)", r.Title, r.Conduit, r.TimeBase())
		}
		if err := fig.Save(o.plot); err != nil {
			return err
		}
	}
	return nil
}

// args is the command line the options came from, for the record.
func (o *options) args() []string { return o.rawArgs }
