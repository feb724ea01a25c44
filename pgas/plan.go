package pgas

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sync/semaphore"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/segmem"
	"github.com/gopgas/gopgas/internal/sysmem"
	"github.com/gopgas/gopgas/internal/transport"
	"github.com/gopgas/gopgas/internal/units"
)

// Plan is what a job is expected to need before it starts (Config.Plan):
// the memory it will hold resident, which Run compares with the memory
// limit (PGAS_MEMORY_LIMIT) before it starts anything.
type Plan struct {
	// Config is the resolved configuration the job would run with.
	Config Config
	// Nodes is the number of nodes the job spans.
	Nodes int
	// PerPEBytes is the resident memory of one PE: the runtime's state,
	// the backend's, the PE's stack, and the segment pages the runtime
	// itself touches (all of the segment where segments are not mapped on
	// demand), and the program's own Config.ProgramBytes.
	PerPEBytes int64
	// NetworkBytes is the backend's memory whatever the number of PEs: a
	// simulated network's routers, links and NICs.
	NetworkBytes int64
	// TotalBytes is PEs x PerPEBytes + NetworkBytes.
	TotalBytes int64
	// LimitBytes is the memory limit the job is held to; 0 means none.
	LimitBytes int64
	// Detail says what the backend counted, or is empty.
	Detail string
	// limitSource names where LimitBytes came from.
	limitSource string
}

// Fits reports whether the job's estimate is within the limit.
func (p Plan) Fits() bool { return p.LimitBytes == 0 || p.TotalBytes <= p.LimitBytes }

// String is the estimate in one line.
func (p Plan) String() string {
	s := fmt.Sprintf("%d PEs x %s", p.Config.PEs, units.HumanBytes(p.PerPEBytes))
	if p.NetworkBytes > 0 {
		s += " + network " + units.HumanBytes(p.NetworkBytes)
		if p.Detail != "" {
			s += " (" + p.Detail + ")"
		}
	}
	return units.HumanBytes(p.TotalBytes) + ": " + s
}

// runtimePEBytes is the runtime's own memory per PE on a job of size PEs:
// the PE, its transport engine and active-message layer with the tables
// they make at start-up, the first descriptors and their registered
// bounce buffers, and the reserved segment pages the barrier flags and the
// first allocations touch.
func runtimePEBytes(c Config, size int) int64 {
	const touchedPages = 2 * 4096
	b := int64(unsafe.Sizeof(PE{})) + int64(unsafe.Sizeof(transport.Engine{})) + int64(unsafe.Sizeof(am.Endpoint{}))
	b += int64(c.PollBurst) * int64(unsafe.Sizeof(conduit.Event{}))
	b += int64(c.SmsgBurst) * int64(unsafe.Sizeof(conduit.Message{}))
	b += int64((size+4095)/4096) * 8 // the top level of am's table of peers
	b += 2 * 512                     // its peer tables for a few neighbours
	b += 32 * 32                     // the handler table of the runtime's handlers
	b += transport.PoolBytes(c.PDBounceBytes)
	b += 4096 // handles, teams, collectives' bookkeeping, maps
	if segmem.Lazy() {
		b += touchedPages
	} else {
		b += c.SegmentBytes
	}
	return b
}

// PoolBytes is the memory a PE of the resolved configuration c makes
// whole the first time it needs it, which Plan cannot know a program will
// and does not count; a program that will need it adds it to
// Config.ProgramBytes. With messages, the two-sided messages' internal
// send buffer (msgSlots slots of MsgEagerBuffer bytes); with unregistered,
// the bounce-buffer pool (BounceBytes in buffers of the bounce cutover),
// which a transfer from or to memory outside the segment up to the cutover
// goes through (two-sided messages' buffers are such memory).
func PoolBytes(c Config, messages, unregistered bool) int64 {
	var b int64
	if messages {
		b += msgSlots * max(c.MsgEagerBuffer, 0)
	}
	if unregistered {
		b += transport.BouncePoolBytes(c.BounceBytes, c.BounceRegisterCutover)
	}
	return b
}

// Plan resolves the configuration as Run would, has the backend check it
// (options, topology) without starting the job, and estimates the memory
// the job will hold. It fails for an invalid configuration with the error
// Run would return.
func (cfg Config) Plan() (Plan, error) {
	c, err := cfg.resolve()
	if err != nil {
		return Plan{}, err
	}
	bp, err := conduit.PlanJob(c.Conduit, c.jobConfig())
	if err != nil {
		return Plan{}, fmt.Errorf("pgas: starting the %s backend: %w", c.Conduit, err)
	}
	p := Plan{Config: c, Nodes: bp.Nodes, NetworkBytes: bp.FixedBytes, Detail: bp.Detail}
	p.PerPEBytes = runtimePEBytes(c, c.PEs) + bp.PerPEBytes + max(c.ProgramBytes, 0)
	p.TotalBytes = int64(c.PEs)*p.PerPEBytes + p.NetworkBytes
	if c.MemoryLimit > 0 {
		p.LimitBytes = c.MemoryLimit
		p.limitSource = "the default PGAS_MEMORY_LIMIT: 90% of this machine's memory"
		if cfg.MemoryLimit != 0 {
			p.limitSource = "Config.MemoryLimit"
		} else if v, ok := c.lookupEnv("PGAS_MEMORY_LIMIT"); ok && v != "" {
			p.limitSource = "PGAS_MEMORY_LIMIT=" + v
		}
	}
	return p, nil
}

// defaultMemoryLimit is the default of PGAS_MEMORY_LIMIT: 90% of the memory
// the process may use, or none when the system does not say.
func defaultMemoryLimit() int64 {
	total, ok := sysmem.Total()
	if !ok {
		return -1
	}
	return total / 10 * 9
}

// Refusal is the error Run returns for a job that does not fit (Fits is
// false): one line naming the estimate and the limit.
func (p Plan) Refusal() error {
	return fmt.Errorf("pgas: a job of %d PEs on %s needs an estimated %s, more than the memory limit of %s (%s); use fewer PEs or raise the limit",
		p.Config.PEs, p.Config.Conduit, p, units.HumanBytes(p.LimitBytes), p.limitSource)
}

// The process's memory budget: jobs that run at once (a study's points,
// the calibration's scenarios, a program's concurrent Runs) are admitted
// by their estimates (Plan.TotalBytes) against it, so that what runs
// together fits, whatever the number of cores. A job whose estimate alone
// exceeds the budget runs when nothing else does.
var budget struct {
	sync.Mutex
	bytes int64
	sem   *semaphore.Weighted
}

// SetMemoryBudget sets the bytes of estimated memory the jobs running at
// once in this process may hold together; 0 or less restores the default,
// the memory limit's default (90% of the machine's memory, or no budget
// where the system does not say). Jobs already admitted keep their share;
// call it before starting jobs.
func SetMemoryBudget(bytes int64) {
	budget.Lock()
	defer budget.Unlock()
	if bytes <= 0 {
		bytes = defaultMemoryLimit()
	}
	budget.bytes = bytes
	budget.sem = nil
	if bytes > 0 {
		budget.sem = semaphore.NewWeighted(bytes)
	}
}

// MemoryBudget is the budget SetMemoryBudget set (or the default); 0 or
// less means none.
func MemoryBudget() int64 {
	budget.Lock()
	defer budget.Unlock()
	if budget.bytes == 0 {
		budget.bytes = defaultMemoryLimit()
		if budget.bytes > 0 {
			budget.sem = semaphore.NewWeighted(budget.bytes)
		}
	}
	return budget.bytes
}

// admit waits until the job's estimate fits in the budget beside the jobs
// running, and returns the function that gives its share back. Estimates
// can be low (a program's own memory it did not declare, pools made on
// first use), so the memory the running jobs are measured to hold counts
// too: while the live heap at the last collection and the resident memory
// outside Go's heap (memoryInUse), with the new job's estimate, exceed the
// budget, the job waits for one of them to end. A job that would run
// alone is never held.
func admit(est int64) func() {
	MemoryBudget()
	budget.Lock()
	sem, total := budget.sem, budget.bytes
	budget.Unlock()
	if sem == nil || est <= 0 {
		return func() {}
	}
	n := min(est, total)
	// Acquire fails only when its context is done: never with Background.
	_ = sem.Acquire(context.Background(), n)
	running.Lock()
	if running.ended == nil {
		running.ended = sync.NewCond(&running.Mutex)
	}
	for running.jobs > 0 && memoryInUse()+est > total {
		running.held++
		running.ended.Wait()
	}
	running.jobs++
	running.Unlock()
	return func() {
		running.Lock()
		running.jobs--
		running.ended.Broadcast()
		running.Unlock()
		sem.Release(n)
	}
}

// running counts the jobs admitted and not ended; ended signals an end.
// held counts the admissions that waited on measured memory (for tests).
var running struct {
	sync.Mutex
	ended *sync.Cond
	jobs  int
	held  int
}
