package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gopgas/gopgas/pgas"
)

// Mechanism chooses how transfers move.
type Mechanism uint8

const (
	// Auto lets the runtime choose by size (its FMA/RDMA cutover).
	Auto Mechanism = iota
	// FMA sends every transfer by fast memory access.
	FMA
	// BTE sends every transfer of more than one byte by the block-transfer
	// engine (RDMA).
	BTE
)

func (m Mechanism) String() string {
	switch m {
	case Auto:
		return "auto"
	case FMA:
		return "fma"
	case BTE:
		return "bte"
	}
	return fmt.Sprintf("Mechanism(%d)", uint8(m))
}

// ParseMechanism parses "auto", "fma" or "bte" (also "rdma", "block").
func ParseMechanism(s string) (Mechanism, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return Auto, nil
	case "fma":
		return FMA, nil
	case "bte", "rdma", "block":
		return BTE, nil
	}
	return Auto, fmt.Errorf("bench: mechanism %q: not auto, fma or bte", s)
}

// Setup is what a benchmark runs on. Zero fields take the defaults noted.
type Setup struct {
	// Config is the base job configuration: backend, ordering, runtime
	// settings, backend options, seed. Its PEs and PEsPerNode are set from
	// Nodes and PPN. The segment is sized to what the benchmark needs,
	// unless Config.SegmentBytes or PGAS_SEGMENT_SIZE chose a size, which
	// is raised to the need when smaller.
	Config pgas.Config
	// Nodes is the number of nodes; 0 means the benchmark's own default
	// (2 for the point-to-point ones).
	Nodes int
	// PPN is the number of PEs per node; 0 means the benchmark's default
	// (1 for the point-to-point ones).
	PPN int
	// Mechanism chooses FMA, block transfer or automatic by size.
	Mechanism Mechanism
	// Window is the number of operations in flight per PE in the
	// bandwidth and rate benchmarks; 0 means 64.
	Window int
	// Iterations and Warmup override the OSU defaults for every size when
	// positive; a Warmup of NoWarmup asks for none.
	Iterations, Warmup int
	// Unregistered puts the bandwidth benchmarks' local buffers in
	// ordinary memory outside the segment, so that the runtime bounces
	// small transfers and registers large ones for each transfer
	// (G-BOUNCE, G-DYNREG); by default they lie in the registered segment.
	Unregistered bool
	// Percentiles asks for percentiles of the per-iteration figures
	// (OSU's -z): those of Tail, or P50, P90 and P99 when Tail is empty.
	// The clock is read around every iteration only then (and under
	// Validate); otherwise the loop is timed as a whole.
	Percentiles bool
	// Tail lists the percentiles (0 to 100) -z asks for; empty means 50,
	// 90 and 99.
	Tail []int
	// Full asks the collectives for the minimum and maximum over PEs of
	// their average latency, beside the average (OSU's -f).
	Full bool
	// Validate checks the data the two-sided and collective benchmarks
	// receive (OSU's -c); each point then counts the errors found.
	Validate bool
	// Datatype is OSU's -T: the element type of the two-sided benchmarks
	// and the collectives (Char, bytes, by default); see Datatype.
	Datatype Datatype
	// Typed says Datatype was chosen (OSU's -T): the collectives then
	// move and check its elements (allreduce sums them: int8 for Char,
	// int32, float32) instead of their own (bytes; float64 sums).
	Typed bool
	// Buffers chooses the two-sided benchmarks' buffers (OSU's -b).
	Buffers Buffers
	// ValidationWarmup is OSU's -u: under Validate, every iteration runs
	// this many times untimed before its timed run (OSU's default is
	// DefaultValidationWarmup; the zero Setup runs none).
	ValidationWarmup int
	// ValidationLog, when not empty, is OSU's -c log:DIR: every buffer
	// that fails validation is described in DIR/log-RANK.log.
	ValidationLog string
	// Win and Sync are OSU's one-sided -w and -s: how the window's memory
	// is made and how its operations complete (see WinKind, SyncKind).
	Win  WinKind
	Sync SyncKind
	// InPlace is OSU's -l: the collective's result overwrites its input
	// (MPI_IN_PLACE).
	InPlace bool
	// Layout, when not nil, is OSU's -D for the two-sided tests: the
	// messages carry the layout's bytes, packed and unpacked by the
	// benchmark in the time (see Layout). It excludes Validate, as OSU's.
	Layout *Layout
	// Pairs is osu_mbw_mr's -p: PE i < Pairs sends to PE i + Pairs, and
	// the PEs from 2 x Pairs on only join the barriers; 0 means half the
	// PEs.
	Pairs int
	// VaryWindow is osu_mbw_mr's -V: every size is measured with each of
	// VariedWindows in turn (Result.Windows, Point.ByWindow).
	VaryWindow bool
	// Graph keeps every per-iteration figure in Point.Samples (OSU's -G);
	// the clock is then read around every iteration.
	Graph bool
	// Progress, when not nil, is called after each size is measured.
	Progress func(done, total int)
	// Context, when not nil, stops the job when it ends (pgas.RunContext):
	// the benchmark then returns the points measured so far with an error
	// wrapping the context's.
	Context context.Context
}

// NoWarmup as Setup.Warmup runs no warm-up iterations.
const NoWarmup = -1

// DefaultWindow is the window of the bandwidth benchmarks (OSU's -W).
const DefaultWindow = 64

// OSU's iteration counts: bandwidth 100 (warm-up 10), above LargeSize 20
// (2); latency 10000 (100), above LargeSize 1000 (10).
const (
	LargeSize          = 8192
	bwIters, bwSkip    = 100, 10
	bwItersL, bwSkipL  = 20, 2
	latIters, latSkip  = 10000, 100
	latItersL, latSkiL = 1000, 10
)

// iterations is the number of timed iterations and of warm-up ones for a
// size: the Setup's if it sets them, else OSU's.
func (s Setup) iterations(size int, latency bool) (iters, skip int) {
	switch {
	case latency && size > LargeSize:
		iters, skip = latItersL, latSkiL
	case latency:
		iters, skip = latIters, latSkip
	case size > LargeSize:
		iters, skip = bwItersL, bwSkipL
	default:
		iters, skip = bwIters, bwSkip
	}
	if s.Iterations > 0 {
		iters = s.Iterations
	}
	switch {
	case s.Warmup > 0:
		skip = s.Warmup
	case s.Warmup == NoWarmup:
		skip = 0
	}
	return iters, skip
}

func (s Setup) window() int {
	if s.Window > 0 {
		return s.Window
	}
	return DefaultWindow
}

// Point is one message size's figures.
type Point struct {
	// Size is the message size in bytes.
	Size int
	// Value is the benchmark's figure in its Result's unit.
	Value float64
	// Rate is operations (messages) per second, for the benchmarks that
	// count them; 0 otherwise.
	Rate float64
	// P50, P90 and P99 are percentiles of the per-iteration figures, when
	// Setup.Percentiles asked for them.
	P50, P90, P99 float64
	// Tails are the percentiles of Result.Tail, in its order.
	Tails []float64
	// Min and Max are the smallest and largest over PEs of their average
	// (the collectives; Value is the average over PEs, as OSU's).
	Min, Max float64
	// Iterations is the number of timed iterations of the point.
	Iterations int
	// Errors counts the received buffers that failed validation, when
	// Result.Validated.
	Errors int
	// Transmit is the bytes a message carried under Setup.Layout (OSU's
	// Transmit Size).
	Transmit int
	// ByWindow and RateByWindow are the figure and the message rate with
	// each of Result.Windows (osu_mbw_mr's -V).
	ByWindow, RateByWindow []float64
	// Samples are the per-iteration figures, in order, when Setup.Graph
	// asked for them (rank 0's).
	Samples []float64
	// Protocol is the two-sided protocol the size took (OrderingMsgBW only).
	Protocol string
}

// Result is one benchmark run.
type Result struct {
	// Benchmark is the benchmark's name (as the CLI's subcommand).
	Benchmark string
	// Title is the OSU-style title.
	Title string
	// Unit is the unit of Point.Value: "us", "MB/s", "Mops/s".
	Unit string
	// Column is the name of the value column ("Latency (us)").
	Column string
	// Conduit, Nodes, PPN, Ordering and Mechanism are what ran.
	Conduit   string
	Nodes     int
	PPN       int
	Ordering  pgas.Ordering
	Mechanism Mechanism
	Window    int
	// Simulated: the times are simulated, not wall-clock.
	Simulated bool
	// Report is the backend's report of the job (simulated end time,
	// events, model counters).
	Report pgas.Report
	// Tail lists the percentiles of Point.Tails (empty without -z).
	Tail []int
	// Full: the points carry Min, Max and Iterations (OSU's -f).
	Full bool
	// Validated: the received data was checked and Point.Errors counts
	// the failures (OSU's -c).
	Validated bool
	// DDT: the points carry Transmit (OSU's -D).
	DDT bool
	// Datatype, WinCreation and Sync are what OSU's preamble says of the
	// element type ("MPI_CHAR"), the window's creation and its
	// synchronization ("MPI_Win_flush"), when the benchmark has them.
	Datatype, WinCreation, Sync string
	// Pairs is the number of sender/receiver pairs of the multi-pair
	// tests (osu_mbw_mr's -p); 0 when not set.
	Pairs int
	// Windows are the windows of Point.ByWindow (osu_mbw_mr's -V).
	Windows []int
	// NoRate leaves the message rate out of the output (osu_mbw_mr's
	// -R 0).
	NoRate bool
	// Points are the figures by size.
	Points []Point
	// Rank0 says this process ran rank 0, which measures and fills the
	// figures. It is false only in the other processes of an MPI launch
	// (the mpi backend runs one PE per process), whose Result holds no
	// figures and should not be printed.
	Rank0 bool
}

// TimeBase says how the result was timed.
func (r *Result) TimeBase() string {
	if r.Simulated {
		return "simulated time"
	}
	return "wall-clock time"
}

// Sizes are the sizes from lo to hi doubling (lo 0 gives 0, 1, 2, 4, ...).
func Sizes(lo, hi int) []int {
	var out []int
	if lo <= 0 {
		out = append(out, 0)
		lo = 1
	}
	for s := lo; s <= hi && s > 0; s *= 2 {
		out = append(out, s)
	}
	return out
}

// ErrBadSetup wraps the errors of setups a benchmark cannot run.
var ErrBadSetup = errors.New("bench: bad setup")

// job describes a benchmark's job for run.
type job struct {
	name, title, unit, column string
	nodes, ppn                int  // defaults
	minPEs                    int  // at least
	even                      bool // an even number of PEs
	all                       bool // every PE of the first half pairs with one of the second
	pairs                     int  // with all: the pairs (PE i < pairs with i + pairs); 0: n/2
	sizes                     []int
	segment                   int64 // bytes per PE beyond the reserved part
	private                   int64 // bytes per PE the program touches outside its segment
	messages                  bool  // two-sided: sends and receives from private buffers
}

// config resolves the job's configuration.
func (s Setup) config(j *job) (pgas.Config, *Result, error) {
	nodes, ppn := s.Nodes, s.PPN
	if nodes <= 0 {
		nodes = j.nodes
	}
	if ppn <= 0 {
		ppn = j.ppn
	}
	pes := nodes * ppn
	if pes < j.minPEs {
		return pgas.Config{}, nil, fmt.Errorf("%w: %s needs at least %d PEs; %d nodes x %d PEs per node is %d", ErrBadSetup, j.name, j.minPEs, nodes, ppn, pes)
	}
	if j.pairs < 0 || j.pairs > pes/2 {
		return pgas.Config{}, nil, fmt.Errorf("%w: %s: %d pairs: want 1 to %d (half of %d PEs)", ErrBadSetup, j.name, j.pairs, pes/2, pes)
	}
	if j.even && pes%2 != 0 {
		return pgas.Config{}, nil, fmt.Errorf("%w: %s pairs PEs; %d nodes x %d PEs per node is %d, odd", ErrBadSetup, j.name, nodes, ppn, pes)
	}
	for _, sz := range j.sizes {
		if sz < 0 {
			return pgas.Config{}, nil, fmt.Errorf("%w: %s: message size %d", ErrBadSetup, j.name, sz)
		}
	}
	if s.Window < 0 || s.Iterations < 0 || s.Warmup < NoWarmup {
		return pgas.Config{}, nil, fmt.Errorf("%w: %s: window %d, iterations %d, warm-up %d", ErrBadSetup, j.name, s.Window, s.Iterations, s.Warmup)
	}
	for _, q := range s.Tail {
		if q < 0 || q > 100 {
			return pgas.Config{}, nil, fmt.Errorf("%w: %s: percentile %d is not between 0 and 100", ErrBadSetup, j.name, q)
		}
	}
	cfg, err := s.Config.Resolve()
	if err != nil {
		return pgas.Config{}, nil, fmt.Errorf("%w: %s: %v", ErrBadSetup, j.name, err)
	}
	cfg.PEs, cfg.PEsPerNode = pes, ppn
	if cfg.Conduit == "mpi" {
		// The launcher places the processes (mpiexec -n, -ppn).
		cfg.PEsPerNode = 0
	}
	switch s.Mechanism {
	case FMA:
		cfg.FMARDMACutover = 1 << 30
	case BTE:
		cfg.FMARDMACutover = 1
	}
	// The benchmark's data and 64 KiB for alignment and the runtime's
	// small allocations: a job of many PEs runs on small segments. A
	// segment size the user gave (Config.SegmentBytes or
	// PGAS_SEGMENT_SIZE) is kept when it is large enough.
	need := max(pgas.ReservedBytes+j.segment+64<<10, pgas.MinSegmentBytes)
	need = (need + 7) &^ 7
	if s.segmentGiven() {
		cfg.SegmentBytes = max(cfg.SegmentBytes, need)
	} else {
		cfg.SegmentBytes = need
	}
	// What each PE touches: its segment's areas, and a local buffer as
	// large again outside the segment when the setup asks for one.
	cfg.ProgramBytes = j.segment + j.private
	if s.Unregistered {
		cfg.ProgramBytes += j.segment / 2
	}
	// And the runtime's pools the program makes it fill (pgas.PoolBytes).
	cfg.ProgramBytes += pgas.PoolBytes(cfg, j.messages, j.messages || s.Unregistered)
	r := &Result{Benchmark: j.name, Title: j.title, Unit: j.unit, Column: j.column,
		Nodes: nodes, PPN: ppn, Mechanism: s.Mechanism, Window: s.window()}
	if s.Percentiles {
		r.Tail = s.tails()
	}
	return cfg, r, nil
}

// segmentGiven reports whether the user chose the segment size.
func (s Setup) segmentGiven() bool {
	if s.Config.SegmentBytes != 0 {
		return true
	}
	env := s.Config.Env
	if env == nil {
		env = os.LookupEnv
	}
	v, ok := env("PGAS_SEGMENT_SIZE")
	return ok && strings.TrimSpace(v) != ""
}

// run runs program on the job and fills in what the job tells of itself.
func (s Setup) run(j *job, program func(pe *pgas.PE, r *Result) error) (*Result, error) {
	cfg, r, err := s.config(j)
	if err != nil {
		return nil, err
	}
	var rep pgas.Report
	cfg.Report = &rep
	ctx := s.Context
	if ctx == nil {
		ctx = context.Background()
	}
	err = pgas.RunContext(ctx, cfg, func(pe *pgas.PE) error {
		if pe.Rank() == 0 {
			r.Conduit, r.Ordering, r.Simulated = pe.Conduit(), pe.Ordering(), pe.Simulated()
			r.Rank0 = true
		}
		return program(pe, r)
	})
	if err != nil {
		err = fmt.Errorf("bench: %s: %w", j.name, err)
		if ctx.Err() != nil && r.Rank0 {
			r.Report = rep
			return r, err // stopped: the points measured so far
		}
		return nil, err
	}
	r.Report = rep
	return r, nil
}

// progress reports that i+1 of n sizes are done, from rank 0.
func (s Setup) progress(pe *pgas.PE, i, n int) {
	if s.Progress != nil && pe.Rank() == 0 {
		s.Progress(i+1, n)
	}
}

// perIteration says whether the clock is read around every iteration for
// the figures' distribution (-z, -G).
func (s Setup) perIteration() bool { return s.Percentiles || s.Graph }

// DefaultTail is OSU's list of percentiles for -z without a list.
var DefaultTail = []int{50, 90, 99}

// tails is the list of percentiles asked for.
func (s Setup) tails() []int {
	if len(s.Tail) == 0 {
		return DefaultTail
	}
	return s.Tail
}

// percentiles sets p's P50, P90 and P99 and its Tails (the percentiles of
// the setup's list) from samples (sorted in place). A percentile q is the
// sample of rank ceil(q/100 x n).
func (s Setup) percentiles(p *Point, samples []float64) {
	if len(samples) == 0 {
		return
	}
	if s.Graph {
		p.Samples = slices.Clone(samples)
	}
	slices.Sort(samples)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(samples)))) - 1
		return samples[max(0, min(i, len(samples)-1))]
	}
	p.P50, p.P90, p.P99 = at(0.50), at(0.90), at(0.99)
	for _, q := range s.tails() {
		p.Tails = append(p.Tails, at(float64(q)/100))
	}
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// mbps is bytes over d in MB/s (1e6 bytes per second, as OSU).
func mbps(bytes float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return bytes / d.Seconds() / 1e6
}

// slotBytes bounds the memory a window of distinct slots takes: beyond it
// the slots wrap.
const slotBytes = 64 << 20

// slots is how many distinct slots of size bytes a window uses.
func slots(window, size int) int {
	if size == 0 {
		return window
	}
	return max(1, min(window, slotBytes/size))
}

// maxSize is the largest of sizes.
func maxSize(sizes []int) int {
	m := 0
	for _, s := range sizes {
		m = max(m, s)
	}
	return m
}

// areas allocates two symmetric areas of n bytes (at least 8) and returns
// their offsets and the local buffer to move data from or into: the first
// area, or ordinary memory when the setup asks for unregistered buffers.
func (s Setup) areas(pe *pgas.PE, n int64) (src, dst int64, local []byte, err error) {
	if src, err = pe.Alloc(max(n, 8), 64); err != nil {
		return
	}
	if dst, err = pe.Alloc(max(n, 8), 64); err != nil {
		return
	}
	if s.Unregistered {
		return src, dst, make([]byte, n), nil
	}
	local, err = pe.Local(src, n)
	return
}

// touch fills the PE's own area of n bytes at off of its segment, and
// local, with a byte, as OSU fills its window and buffers when it makes
// them: the pages are the process's before the first transfer, so that no
// timed iteration pays for their first touch.
func touch(pe *pgas.PE, off, n int64, local []byte) error {
	mine, err := pe.Local(off, n)
	if err != nil {
		return err
	}
	for _, b := range [][]byte{mine, local} {
		for i := range b {
			b[i] = 'a'
		}
	}
	return nil
}

// timed runs f iters+skip times on one PE and returns the mean time of the
// last iters runs in microseconds, divided by div (2 for half a round
// trip), and with keep each run's time likewise (see timedRuns).
func timed(pe *pgas.PE, iters, skip int, keep bool, div float64, prep func(k int) error, f func() error, post func(k int) error) (mean float64, samples []float64, err error) {
	sum, each, err := timedRuns(pe, iters, skip, keep, prep, f, post)
	if err != nil {
		return 0, nil, err
	}
	for _, d := range each {
		samples = append(samples, us(d)/div)
	}
	return us(sum) / float64(iters) / div, samples, nil
}

// timedRuns runs f iters+skip times on one PE and returns the time of the
// last iters runs. As OSU, the timed runs are timed as a whole: the clock
// is read around each run only when keep is set (-z, -c, -G), and then
// their times are returned too and the total is their sum. prep and post,
// when not nil, run before and after each run (run k), outside the time
// when keep is set (the validation's fill and check).
func timedRuns(pe *pgas.PE, iters, skip int, keep bool, prep func(k int) error, f func() error, post func(k int) error) (sum time.Duration, each []time.Duration, err error) {
	var start time.Duration
	for k := range iters + skip {
		if prep != nil {
			if err := prep(k); err != nil {
				return 0, nil, err
			}
		}
		if k == skip {
			start = pe.Now()
		}
		var t0 time.Duration
		if keep {
			t0 = pe.Now()
		}
		if err := f(); err != nil {
			return 0, nil, err
		}
		if keep && k >= skip {
			d := pe.Now() - t0
			sum += d
			each = append(each, d)
		}
		if post != nil {
			if err := post(k); err != nil {
				return 0, nil, err
			}
		}
	}
	if !keep {
		sum = pe.Now() - start
	}
	return sum, each, nil
}

// together runs body iters+skip times on every PE, the active ones
// calling it, with a barrier before the first and before the first timed
// iteration, and returns when the timed iterations started on this PE.
func together(pe *pgas.PE, iters, skip int, active bool, body func() error) (time.Duration, error) {
	var start time.Duration
	for k := range iters + skip {
		if k == skip || k == 0 {
			if err := pe.Barrier(); err != nil {
				return 0, err
			}
			start = pe.Now()
		}
		if !active {
			continue
		}
		if err := body(); err != nil {
			return 0, err
		}
	}
	return start, nil
}

// window posts len(hs) non-blocking puts (or gets) of size bytes between
// slots of local and of the target's segment at dst (slot x at x mod
// slots), and waits for them all.
func window(pe *pgas.PE, put bool, target int, dst int64, local []byte, size, slots int, hs []pgas.Handle) error {
	if err := issueWindow(pe, put, target, dst, local, size, slots, hs); err != nil {
		return err
	}
	return pgas.WaitAll(hs...)
}

// issueWindow posts window's operations, their handles in hs.
func issueWindow(pe *pgas.PE, put bool, target int, dst int64, local []byte, size, slots int, hs []pgas.Handle) error {
	var err error
	for x := range hs {
		off := int64(x%slots) * int64(size)
		b := local[off : off+int64(size)]
		traceBuffer(size, b)
		if put {
			hs[x], err = pe.PutNB(target, dst+off, b)
		} else {
			hs[x], err = pe.GetNB(target, dst+off, b)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// windowNBI posts n implicit-handle puts (or gets) as window's.
func windowNBI(pe *pgas.PE, put bool, target int, dst int64, local []byte, size, slots, n int) error {
	for x := range n {
		off := int64(x%slots) * int64(size)
		b := local[off : off+int64(size)]
		traceBuffer(size, b)
		var err error
		if put {
			err = pe.PutNBI(target, dst+off, b)
		} else {
			err = pe.GetNBI(target, dst+off, b)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
