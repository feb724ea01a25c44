package simnet

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
)

// Job is a simulated job: the kernel, the network model and the endpoints.
type Job struct {
	name string
	K    *sim.Kernel
	Net  Network
	Cfg  conduit.JobConfig

	eps     []*Endpoint
	perNode int
	nodes   int
	caps    conduit.Caps
	costs   Costs
	// Tracer, when not nil, receives the PEs' waits.
	Tracer Tracer
	// Offload, when not nil, is the network's collective engine: the
	// Endpoints hand their offloaded collectives to it (offload.go). The
	// Network sets it in Start.
	Offload Offloader
	done    int
	started bool
	cqFree  cqFree // the blocks of the PEs' completion queues (cq.go)

	// A partitioned job (Partition): the run, each node's partition, and
	// the workers to run it on. doneBy counts each partition's PEs done;
	// done is their sum as of the last window's end. cqFrees are each
	// partition's blocks.
	Par     *sim.Parallel
	partOf  []int
	workers int
	doneBy  []int
	cqFrees []cqFree
	slots   slotReturns // mailbox slots released to another partition's PEs
}

// NewJob builds a job of cfg.PEs endpoints on net for the backend named
// name. perNode is used when cfg.PEsPerNode is 0.
func NewJob(name string, cfg conduit.JobConfig, net Network, perNode int) (*Job, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.PEsPerNode > 0 {
		perNode = cfg.PEsPerNode
	}
	if perNode < 1 {
		return nil, fmt.Errorf("simnet: %d PEs per node", perNode)
	}
	j := &Job{
		name:    name,
		K:       sim.New(cfg.Seed),
		Net:     net,
		Cfg:     cfg,
		perNode: perNode,
		nodes:   (cfg.PEs + perNode - 1) / perNode,
		costs:   net.Costs(),
	}
	j.K.SetLimits(cfg.SimTimeLimit, cfg.WallTimeLimit)
	j.caps = net.Caps()
	j.caps.Simulated = true
	j.caps.MessageCost = j.costs.PerMessage
	j.caps.DirectAccess = false
	if cfg.RequireRegisteredLocal {
		j.caps.NeedsRegisteredLocal = true
	}
	j.eps = make([]*Endpoint, cfg.PEs)
	for r := range j.eps {
		ep, err := newEndpoint(j, r)
		if err != nil {
			j.freeSegments()
			return nil, err
		}
		j.eps[r] = ep
	}
	if err := net.Start(j); err != nil {
		j.freeSegments()
		return nil, err
	}
	return j, nil
}

// Partition makes the job a partitioned run (sim.Parallel,
// docs/parallel-kernel.md) of n partitions with lookahead L, node in
// partition part(node), run on workers workers: K becomes partition 0's
// kernel, and each PE runs on its node's. The network calls it in Start,
// before it numbers its actors or schedules anything.
func (j *Job) Partition(n int, lookahead Time, part func(node int) int, workers int) error {
	if j.started || j.K.Events() > 0 || j.K.Pending() > 0 || j.K.NewOrigins(0) != 1 {
		return fmt.Errorf("%s: a job made partitioned once it has begun", j.name)
	}
	if workers < 1 {
		return fmt.Errorf("%s: %d workers for a partitioned run: at least 1", j.name, workers)
	}
	r, err := sim.NewParallel(j.Cfg.Seed, n, lookahead)
	if err != nil {
		return fmt.Errorf("%s: %w", j.name, err)
	}
	j.partOf = make([]int, j.nodes)
	for node := range j.partOf {
		p := part(node)
		if p < 0 || p >= n {
			return fmt.Errorf("%s: node %d in partition %d of %d", j.name, node, p, n)
		}
		j.partOf[node] = p
	}
	r.SetLimits(j.Cfg.SimTimeLimit, j.Cfg.WallTimeLimit)
	r.Between(j.between)
	j.Par, j.K, j.workers = r, r.Partition(0), workers
	j.doneBy = make([]int, n)
	j.cqFrees = make([]cqFree, n)
	for _, ep := range j.eps {
		ep.cqf = &j.cqFrees[j.partOf[ep.node]]
	}
	return nil
}

// KernelOf is the kernel rank's PE runs on: its partition's in a
// partitioned job.
func (j *Job) KernelOf(rank int) *sim.Kernel {
	if j.Par == nil {
		return j.K
	}
	return j.Par.Partition(j.partOf[j.NodeOf(rank)])
}

// PartitionOf is node's partition (0 in a job that is not partitioned).
func (j *Job) PartitionOf(node int) int {
	if j.Par == nil {
		return 0
	}
	return j.partOf[node]
}

// between publishes, at a window's end, the count of PEs done; the last
// PE's Done wakes every PE then.
func (j *Job) between(end Time) {
	n := 0
	for _, d := range j.doneBy {
		n += d
	}
	if n == j.done {
		return
	}
	j.done = n
	if n == len(j.eps) {
		for _, ep := range j.eps {
			if ep.proc != nil {
				ep.proc.WakeAt(end)
			}
		}
	}
}

// Endpoint returns rank's endpoint.
func (j *Job) Endpoint(rank int) *Endpoint { return j.eps[rank] }

// Size is the number of PEs.
func (j *Job) Size() int { return len(j.eps) }

// Nodes is the number of nodes.
func (j *Job) Nodes() int { return j.nodes }

// PEsPerNode is the number of consecutive ranks on a node.
func (j *Job) PEsPerNode() int { return j.perNode }

// NodeOf is the node of a rank.
func (j *Job) NodeOf(rank int) int { return rank / j.perNode }

// Run runs main on every PE under the kernel and returns the job's first
// failure.
func (j *Job) Run(main func(conduit.Endpoint) error) error {
	if j.started {
		return fmt.Errorf("simnet: Run called twice on one job")
	}
	j.started = true
	for _, ep := range j.eps {
		ep.proc = j.KernelOf(ep.rank).Spawn(func(p *sim.Proc) error {
			err := main(ep)
			ep.Done()
			return err
		})
	}
	var err error
	if j.Par != nil {
		err = j.Par.Run(j.workers)
	} else {
		err = j.K.Run()
	}
	if ferr := j.Net.Finish(j, err); err == nil {
		err = ferr
	}
	j.freeSegments()
	return err
}

// freeSegments returns the segments' memory: the job has ended (or never
// started), and nothing reads or writes them any more.
func (j *Job) freeSegments() {
	for _, ep := range j.eps {
		if ep != nil && ep.segMem != nil {
			ep.segMem.Free()
			ep.segMem, ep.seg = nil, nil
			ep.regions[0].Buf = nil
		}
	}
}

// Report tells of the finished job: its end in simulated time, the events
// it took, and the network's counters.
func (j *Job) Report() conduit.Report {
	r := conduit.Report{Backend: j.name, Simulated: true, End: conduit.Time(j.K.Now()), Events: j.K.Events()}
	if j.Par != nil {
		r.End, r.Events = j.Par.End(), j.Par.Events()
	}
	if c, ok := j.Net.(Counter); ok {
		r.Counters = c.Counters()
	}
	return r
}
