package simtest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Traffic is the shape of a synthetic load in the manner of a
// network simulator's benchmark traffic: every node (one PE each) posts
// Puts puts of Size bytes, each to a uniformly random other node, waiting
// an exponentially distributed gap of mean MeanGap before each (the PE's
// compute between posts), then waits for all of them to complete.
type Traffic struct {
	Nodes   int
	Puts    int
	Size    int
	MeanGap conduit.Time
	Seed    uint64
	Options map[string]string
	// Kernel, if set, is given the simulated job's kernel before it runs
	// (to observe its events).
	Kernel func(*sim.Kernel)
}

// TrafficResult is what a run of Traffic measured: the job's report, its
// wall time, and the heap allocations made while the job ran (after the
// machine was built).
type TrafficResult struct {
	Report        conduit.Report
	Wall, CPU     time.Duration // CPU: the process's, user and system
	Allocs, Bytes uint64
}

// cpuTime is the process's CPU time so far (zero where it cannot be read).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Run runs the traffic on a new job of backend name.
func (tr Traffic) Run(name string) (TrafficResult, error) {
	if tr.Nodes < 2 || tr.Puts < 0 || tr.Size <= 0 || tr.MeanGap < 0 {
		return TrafficResult{}, fmt.Errorf("simtest: traffic of %d nodes, %d puts of %d bytes, mean gap %v: bad shape", tr.Nodes, tr.Puts, tr.Size, tr.MeanGap)
	}
	job, err := conduit.Open(name, conduit.JobConfig{PEs: tr.Nodes, PEsPerNode: 1, SegmentBytes: 2 * int64(tr.Size),
		Ordering: conduit.OrderRelaxed, MailboxSlots: 1, PeerBurst: 1, Options: tr.Options})
	if err != nil {
		return TrafficResult{}, err
	}
	if tr.Kernel != nil {
		sj, ok := job.(*simnet.Job)
		if !ok {
			return TrafficResult{}, fmt.Errorf("simtest: backend %s's job is not simulated", name)
		}
		tr.Kernel(sj.K)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start, cpu0 := time.Now(), cpuTime()
	// Every PE's descriptors and completion counts, made at once: one
	// block of each rather than one per PE, which a size class would
	// round up (the full Aries system has 92,544 PEs).
	tj := &trafficJob{tr: &tr, descs: make([]conduit.PostDesc, tr.Nodes*tr.Puts), done: make([]completions, tr.Nodes)}
	// The PEs of a simulated job's kernel run one at a time, and a PE
	// does not yield between taking its completions into the buffer and
	// reading them (Ready), so they share one: a partitioned job has one
	// for each partition (whose PEs run on one worker at a time); others
	// have one for each PE.
	if sj, ok := job.(*simnet.Job); ok {
		tj.shared = make([][]conduit.Event, 1)
		if sj.Par != nil {
			tj.shared = make([][]conduit.Event, sj.Par.Partitions())
			tj.partOf = func(rank int) int { return sj.PartitionOf(sj.NodeOf(rank)) }
		}
		for i := range tj.shared {
			tj.shared[i] = make([]conduit.Event, pollBurst)
		}
	}
	err = job.Run(func(ep conduit.Endpoint) error {
		// On a simulated backend each PE's program runs on a stack of
		// its own, which keeps the size it starts with only while the
		// frames on it are small (docs/scale.md): the program is cut
		// into functions whose frames hold little at once.
		done := tj.start(ep)
		if err := tj.post(ep, done); err != nil {
			return err
		}
		return ep.WaitFor("puts", done)
	})
	wall, cpu := time.Since(start), cpuTime()-cpu0
	runtime.ReadMemStats(&after)
	if err != nil {
		return TrafficResult{}, err
	}
	return TrafficResult{Report: job.(conduit.Reporter).Report(), Wall: wall, CPU: cpu,
		Allocs: after.Mallocs - before.Mallocs, Bytes: after.TotalAlloc - before.TotalAlloc}, nil
}

// trafficJob is what the PEs of a run of Traffic share.
type trafficJob struct {
	tr    *Traffic
	descs []conduit.PostDesc // every PE's, Puts each
	done  []completions      // every PE's
	// shared is the PEs' completion buffers if they run one at a time:
	// by partition (partOf: a rank's, nil: all in one).
	shared [][]conduit.Event
	partOf func(rank int) int
}

// start makes ep's completion count, taking its completions into its
// kernel's shared buffer if the PEs run one at a time, or else into one of
// its own.
//
//go:noinline
func (tj *trafficJob) start(ep conduit.Endpoint) *completions {
	c := &tj.done[ep.Rank()]
	*c = completions{ep: ep, n: tj.tr.Puts}
	switch {
	case tj.shared == nil:
		c.evs = make([]conduit.Event, pollBurst)
	case tj.partOf != nil:
		c.evs = tj.shared[tj.partOf(ep.Rank())]
	default:
		c.evs = tj.shared[0]
	}
	return c
}

// post makes ep's puts, taking the completions that have come into done
// between them, as a program would between its posts.
func (tj *trafficJob) post(ep conduit.Endpoint, done *completions) error {
	rng := rand.New(rand.NewPCG(uint64(ep.Rank()), tj.tr.Seed))
	for i := range tj.tr.Puts {
		if err := ep.Post(tj.desc(ep, rng, i)); err != nil {
			return err
		}
		if _, err := done.Ready(); err != nil {
			return err
		}
	}
	return nil
}

// desc is ep's descriptor for its put i, to a random other node after a
// random gap. It is filled in place, field by field: a literal would be
// built on the PE's stack first.
//
//go:noinline
func (tj *trafficJob) desc(ep conduit.Endpoint, rng *rand.Rand, i int) *conduit.PostDesc {
	tr, rank := tj.tr, ep.Rank()
	if tr.MeanGap > 0 {
		ep.Charge(conduit.Time(rng.ExpFloat64() * float64(tr.MeanGap)))
	}
	target := rng.IntN(ep.Size() - 1)
	if target >= rank {
		target++
	}
	d := &tj.descs[rank*tr.Puts+i]
	*d = conduit.PostDesc{}
	d.Type, d.Mech, d.Target = conduit.Put, conduit.FMA, target
	d.Local, d.LocalMem = ep.Segment()[:tr.Size], ep.SegmentHandle(rank)
	d.Remote, d.RemoteOffset = ep.SegmentHandle(target), int64(tr.Size)
	return d
}

// pollBurst is how many completions a PE of the traffic takes at once.
const pollBurst = 16

// completions waits for n local completions on an endpoint, taking them
// into evs.
type completions struct {
	ep  conduit.Endpoint
	n   int
	evs []conduit.Event
}

func (c *completions) Ready() (bool, error) {
	for c.n > 0 {
		evs := c.evs
		k := c.ep.PollLocalCQ(evs)
		if k == 0 {
			return false, nil
		}
		for i := range evs[:k] {
			if s := evs[i].Status; s != conduit.StatusOK {
				return false, c.failed(s)
			}
		}
		c.n -= k
	}
	return true, nil
}

// failed is the error of a put that completed with status s, made apart
// from Ready, which runs on the PE's stack.
//
//go:noinline
func (c *completions) failed(s conduit.Status) error {
	return fmt.Errorf("PE %d: put completed with %v", c.ep.Rank(), s)
}

// SteadyAllocs is the heap allocations of the traffic in its steady
// state: the allocations and packets a run of the traffic with more puts
// per node adds to a run of it as it is, whose warm-up (the job's start,
// the free lists' and queues' first growth) they share. It returns the
// allocations and the packets they came with.
//
// The allocations are counted by the runtime's allocation profiler at a
// rate of 1 (every allocation, with its call stack), not by
// runtime.MemStats: MemStats also counts the goroutine descriptors the
// runtime makes as the PEs' coroutines start (runtime.malg), per PE and
// not per packet, whose number depends on how many the previous run left
// on the runtime's free lists; between two runs of this traffic they
// differed by up to 50 either way, more than the packet path's
// allocations in 60 more puts per node. Those are left out, and every
// other allocation is counted, reading the profile's own apart. What the
// runtime makes for itself otherwise (a thread, the list of all
// goroutines growing) still counts, a few either way: the first pair of
// a process measured -2 and -6 on Gemini, later ones 5. The caller sets
// runtime.MemProfileRate to 1 first (SteadyAllocs fails otherwise);
// BenchSteady does.
func (tr Traffic) SteadyAllocs(name string, more int) (allocs, packets int64, err error) {
	if runtime.MemProfileRate != 1 {
		return 0, 0, fmt.Errorf("simtest: steady allocations need runtime.MemProfileRate 1, not %d", runtime.MemProfileRate)
	}
	run := func(tr Traffic) (int64, int64, error) {
		before := profiledAllocs()
		r, err := tr.Run(name)
		return profiledAllocs() - before, r.Report.Counters["packets"], err
	}
	a0, p0, err := run(tr)
	if err != nil {
		return 0, 0, err
	}
	tr.Puts += more
	a1, p1, err := run(tr)
	if err != nil {
		return 0, 0, err
	}
	if p1 <= p0 {
		return 0, 0, fmt.Errorf("simtest: %d more puts per node made no more packets", more)
	}
	return a1 - a0, p1 - p0, nil
}

// profiledAllocs is the allocations the runtime's allocation profile has
// recorded so far, goroutine descriptors and its own apart (SteadyAllocs):
// reading the profile allocates, about once per record, and the records
// grow in number as runs reach new call stacks.
func profiledAllocs() int64 {
	// A cycle publishes the allocations made before it; two make sure
	// every one made before the call is in.
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, ok := runtime.MemProfile(nil, true)
	for !ok {
		// Records made since the count leave the slice as it was: count
		// again with room for them.
		recs = make([]runtime.MemProfileRecord, n+64)
		n, ok = runtime.MemProfile(recs, true)
	}
	var sum int64
	for _, r := range recs[:n] {
		if stack := r.Stack(); !madeBy(stack, "runtime.malg") && !madeBy(stack, ownName) {
			sum += r.AllocObjects
		}
	}
	return sum
}

// ownName is profiledAllocs' name as call stacks give it.
var ownName = reflect.TypeFor[Traffic]().PkgPath() + ".profiledAllocs"

// madeBy reports whether function fn is on the call stack.
func madeBy(stack []uintptr, fn string) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if f.Function == fn {
			return true
		}
		if !more {
			return false
		}
	}
}

// TrafficBench accumulates runs of Traffic for a benchmark's metrics.
type TrafficBench struct {
	Packets, Events, Allocs, Bytes int64
	Hops                           int64 // packets across links between routers
	Wall, CPU                      time.Duration
	End                            conduit.Time // the last run's end on the simulated clock
}

// Bench runs the traffic on backend name in b's loop and reports its
// figures (Report); it returns them for the caller's own.
func (tr Traffic) Bench(b *testing.B, name string) *TrafficBench {
	var sum TrafficBench
	for b.Loop() {
		r, err := tr.Run(name)
		if err != nil {
			b.Fatal(err)
		}
		sum.Add(r)
	}
	sum.Report(b.ReportMetric)
	return &sum
}

// BenchSteady reports the traffic's steady-state allocations per packet,
// their count and the packets they came with, on backend name
// (SteadyAllocs with more puts per node).
// It sets runtime.MemProfileRate to 1 for the benchmark.
func (tr Traffic) BenchSteady(b *testing.B, name string, more int) {
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = rate }()
	var allocs, packets int64
	for b.Loop() {
		a, p, err := tr.SteadyAllocs(name, more)
		if err != nil {
			b.Fatal(err)
		}
		allocs, packets = a, p
	}
	b.ReportMetric(float64(allocs)/float64(packets), "steady-allocs/packet")
	b.ReportMetric(float64(allocs), "steady-allocs")
	b.ReportMetric(float64(packets), "steady-packets")
}

// Add counts one run.
func (b *TrafficBench) Add(r TrafficResult) {
	b.Packets += r.Report.Counters["packets"]
	b.Events += int64(r.Report.Events)
	b.Allocs += int64(r.Allocs)
	b.Bytes += int64(r.Bytes)
	b.Hops += r.Report.Counters["link_packets"]
	b.Wall += r.Wall
	b.CPU += r.CPU
	b.End = r.Report.End
}

// Report reports the runs' figures (testing.B.ReportMetric): packets
// (through the NICs' transmit pipelines) per wall second, events per
// packet, and heap allocations and bytes per packet while the jobs ran;
// and packets per second of the process's CPU time, the figure to compare
// on a machine other work shares.
func (b *TrafficBench) Report(metric func(float64, string)) {
	if b.Packets == 0 || b.Wall <= 0 {
		return
	}
	p := float64(b.Packets)
	metric(p/b.Wall.Seconds(), "packets/s")
	metric(float64(b.Events)/p, "events/packet")
	metric(float64(b.Allocs)/p, "allocs/packet")
	metric(float64(b.Bytes)/p, "B/packet")
	if b.CPU > 0 {
		metric(p/b.CPU.Seconds(), "packets/cpu-s")
	}
}

// The benchmark traffic's shape: 30 puts of 64 bytes per node, the
// workload the simulator's speed is stated for (a synthetic uniform
// random load as network simulators run it). The mean gap is assumed: 1
// us between a node's posts keeps the network lightly loaded, as such
// speed measurements are, so that the figure is the cost per packet, not
// of congestion.
const (
	BookSimPuts    = 30
	BookSimSize    = 64
	BookSimMeanGap = conduit.Time(1_000_000)
)

// Workers runs the traffic on backend name with each of the workers
// option's values given (the network in partitions, docs/parallel-kernel.md)
// and returns the reports, in order: what a test of a partitioned run
// compares.
func (tr Traffic) Workers(name string, workers ...int) ([]conduit.Report, error) {
	var reps []conduit.Report
	for _, w := range workers {
		t := tr
		t.Options = maps.Clone(tr.Options)
		if t.Options == nil {
			t.Options = map[string]string{}
		}
		t.Options["workers"] = fmt.Sprint(w)
		r, err := t.Run(name)
		if err != nil {
			return nil, fmt.Errorf("workers=%d: %w", w, err)
		}
		reps = append(reps, r.Report)
	}
	return reps, nil
}

// SameForAnyWorkers runs the traffic on backend name on one kernel
// (workers=0) and in partitions on each of workers, with the puts at once
// and with the BookSim-shaped gaps, and fails t unless every partitioned
// run gives the same report (every counter, the events and the end
// included) and the same packets and transactions as one kernel, and
// counter (packets crossing between routers) is positive.
func (tr Traffic) SameForAnyWorkers(t testing.TB, name, counter string, workers ...int) {
	t.Helper()
	for _, gap := range []conduit.Time{0, BookSimMeanGap} {
		tr.MeanGap = gap
		reps, err := tr.Workers(name, append([]int{0}, workers...)...)
		if err != nil {
			t.Fatalf("gap %v: %v", gap, err)
		}
		one, part := reps[0], reps[1]
		if part.Counters[counter] <= 0 {
			t.Errorf("gap %v: %s = %d", gap, counter, part.Counters[counter])
		}
		for i, r := range reps[2:] {
			if !reflect.DeepEqual(part, r) {
				t.Errorf("gap %v: %d workers against %d:\n%+v\n%+v", gap, workers[i+1], workers[0], r, part)
			}
		}
		for _, c := range []string{"packets", "transactions"} {
			if one.Counters[c] != part.Counters[c] {
				t.Errorf("gap %v: %s %d partitioned, %d on one kernel", gap, c, part.Counters[c], one.Counters[c])
			}
		}
	}
}
