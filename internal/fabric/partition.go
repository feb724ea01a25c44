package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/simnet"
)

// A partitioned machine (the workers option; docs/parallel-kernel.md).
// The backend cuts the built network into partitions (Config.Partitioning:
// Aries by group, Gemini by X plane) that share no mutable state but by
// packets crossing links whose flight and router pipeline are at least the
// lookahead. The machine becomes one Machine per partition: the built one
// is partition 0's, and each other is a shallow copy of it, sharing what
// is read-only once the network is built (parameters, topology, the lists
// of routers, channels and NICs) and what is kept by node or rank (each
// entry touched only by its node's partition), with its own kernel (the
// partition's of the job's sim.Parallel), free lists and counters. Every
// router, channel and NIC points to its partition's Machine, so the
// packet path's code is the same as on one kernel; a channel whose far
// router is in another partition sends the packet there with Post.
//
// Transactions are shared by their source and target partitions: the
// target only reads what the source set before the first request left, or
// writes what the source reads only after a packet from the target
// arrived, which crosses a window's end. Each side counts the references
// of the packets it makes and frees in a field of its own (txn.refs,
// refsT), and whether a transaction between two partitions is free is
// decided at the window's end, while no partition runs (releaseShared);
// it goes back to its source's free list.
//
// Link faults: every partition replays the network's list of faults, the
// owner of a channel (its sending router's partition) taking it out of
// service, and every partition quiescing its own routers and channels and
// putting its own copy of the new tables into effect at the same times;
// a router of any partition judges a channel failed by its failure time
// (Channel.FailedAt), known before the run (fault.go). The hazard checker
// judges at the windows' ends (hazard.go); the trace is each partition's,
// merged at the end (trace_parts.go). The backend's own actors (the Aries collective engine) are
// made per partition by its Cut hook. Messages between partitions travel as between any two nodes;
// the mailbox slot a message held is released to its sender in another
// partition by an event the lookahead after the target's poll
// (simnet.Endpoint.release).

// Partitioning is how a backend cuts its built network into partitions
// for the workers option: n partitions, router id in part(id), and the
// least time from a packet's leaving a router of one partition to its
// being routed at a router of another (a link's flight and the router
// pipeline).
type Partitioning struct {
	N         int
	Part      func(router int) int
	Lookahead Time
	// Cut, if set, is given every partition's Machine once they are
	// made, by partition: for the backend's own state per partition.
	Cut func(parts []*Machine)
}

// partition makes the job partitioned (Options.Workers) once Build has
// made the network, before anything numbers the kernel's actors; cut
// makes the partitions' Machines at the end of Start.
func (m *Machine) partition(j *simnet.Job) error {
	refuse := func(why string) error {
		return fmt.Errorf("%s: option workers=%q: %s", m.name, fmt.Sprint(m.opts.Workers), why)
	}
	switch {
	case m.cfg.Partitioning == nil:
		return refuse("this network cannot be run in partitions")
	}
	pt := m.cfg.Partitioning(m)
	m.cutHook = pt.Cut
	if pt.N < 1 || pt.Part == nil || pt.Lookahead <= 0 {
		return fmt.Errorf("%s: partitions of the network: %d, lookahead %v", m.name, pt.N, pt.Lookahead)
	}
	part := make([]int, len(m.routers))
	for i := range part {
		if part[i] = pt.Part(i); part[i] < 0 || part[i] >= pt.N {
			return fmt.Errorf("%s: router %d in partition %d of %d", m.name, i, part[i], pt.N)
		}
	}
	if err := j.Partition(pt.N, pt.Lookahead, func(node int) int { return part[m.topo.RouterOf(node)] }, m.opts.Workers); err != nil {
		return err
	}
	m.routerPart = part
	m.k = j.Par.Partition(0)
	return nil
}

// cut makes the partitions' Machines once Start has made everything
// else, and points every router, channel and NIC at its partition's, and
// has each partition's kernel stock its free transactions before its PEs
// run.
func (m *Machine) cut() {
	j := m.job
	n := j.Par.Partitions()
	m.parts = make([]*Machine, n)
	m.parts[0] = m
	for i := 1; i < n; i++ {
		c := *m // parts included
		c.k = j.Par.Partition(i)
		c.part = i
		c.freePkts, c.chanSlab, c.vcSlab = nil, nil, nil
		c.returnSlab, c.returnFree, c.freeReturnLists, c.returnLists, c.returnListsMade = nil, nil, 0, nil, 0
		c.freeTxns, c.freeTxnCount, c.freeBufs = nil, 0, stack[[]byte]{}
		c.stats = Stats{}
		c.txnSeq = uint64(i) << 48
		c.faults.m = &c
		c.held, c.stalled, c.failSeen = nil, nil, nil
		m.parts[i] = &c
	}
	for _, r := range m.routers {
		r.m = m.parts[m.routerPart[r.ID]]
	}
	for _, c := range m.channels {
		r := c.from
		if r == nil {
			r = c.to
		}
		c.m = r.m
	}
	for _, nc := range m.nics {
		nc.m = nc.r.m
	}
	for _, p := range m.parts {
		p.k.BeforePE(p.stockTxns)
		p.replayFaults()
	}
	j.Par.Between(m.releaseShared)
	if h := m.hazards; h != nil {
		h.partition(m.parts, j.Par.Between)
	}
	if m.trace != nil {
		m.partitionTrace()
	}
	if m.cutHook != nil {
		m.cutHook(m.parts)
	}
}

// at is the Machine of ep's partition: the PEs' calls into the model
// (Post, Send, Register) run there.
func (m *Machine) at(ep *simnet.Endpoint) *Machine {
	if m.parts == nil {
		return m
	}
	return m.parts[m.routerPart[m.topo.RouterOf(ep.Node(ep.Rank()))]]
}

// Partition is the router's partition (0 unless the machine is
// partitioned), and Now its partition's time: what a Routing reads.
func (r *Router) Partition() int { return r.m.part }

// Now is the time of the router's partition.
func (r *Router) Now() Time { return r.m.k.Now() }

// Partitions is the number of partitions the machine is cut into (1 when
// it is not).
func (m *Machine) Partitions() int { return max(len(m.parts), 1) }

// add adds o's counters to s: sums, and the maxima's maximum.
func (s *Stats) add(o Stats) {
	s.Packets += o.Packets
	s.ChannelUnits += o.ChannelUnits
	s.LinkUnits += o.LinkUnits
	s.LinkPackets += o.LinkPackets
	s.BTEMaxActive = max(s.BTEMaxActive, o.BTEMaxActive)
	s.BTEMaxInFlight = max(s.BTEMaxInFlight, o.BTEMaxInFlight)
	s.ORBMax = max(s.ORBMax, o.ORBMax)
	s.BTEGetsMax = max(s.BTEGetsMax, o.BTEGetsMax)
	s.BTEReadsMax = max(s.BTEReadsMax, o.BTEReadsMax)
	s.Transactions += o.Transactions
	s.CRCRetries += o.CRCRetries
	s.Dropped += o.Dropped
	s.AMOHits += o.AMOHits
	s.AMOMisses += o.AMOMisses
	s.Hazards += o.Hazards
	s.LinkFailures += o.LinkFailures
	s.Lost += o.Lost
	s.Reroutes += o.Reroutes
	s.QuiesceTime += o.QuiesceTime
	s.MsgResends += o.MsgResends
	s.AMOReplays += o.AMOReplays
	s.RegFailures += o.RegFailures
	s.RegPeak = max(s.RegPeak, o.RegPeak)
	s.RegBusy += o.RegBusy
}
