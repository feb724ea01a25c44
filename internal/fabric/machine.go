package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/hugepage"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Stats are the fabric's counters.
type Stats struct {
	Packets      int64 // packets through NIC transmit pipelines
	ChannelUnits int64 // link units sent on links and tiles
	LinkUnits    int64 // link units sent on links between routers
	LinkPackets  int64 // packets sent on links between routers
	BTEMaxActive int64 // the most block transfers active at once on a NIC (channels processing one)
	// BTEMaxInFlight is the most block transfers a NIC had in flight at
	// once: given a channel and not yet complete.
	BTEMaxInFlight int64
	ORBMax         int64 // the most request packets outstanding at once on a NIC
	BTEGetsMax     int64 // the most get requests one block-transfer channel had outstanding
	BTEReadsMax    int64 // the most local reads one block transfer (a put) had in flight
	Transactions   int64 // transactions completed
	CRCRetries     int64 // packets sent again after a CRC error
	Dropped        int64 // packets lost for want of a route
	AMOHits        int64 // AMOs whose word was in the AMO cache
	AMOMisses      int64 // AMOs whose word was not
	Hazards        int64 // gets that read around an earlier put (the hazard checker)
	LinkFailures   int64 // channels that failed during the run (FailAt)
	Lost           int64 // packets lost on the wire of a link that failed
	Reroutes       int64 // new routing tables put into effect after failures
	QuiesceTime    Time  // time the network was quiesced for re-routes
	MsgResends     int64 // short messages sent again after a timeout
	AMOReplays     int64 // retried AMOs answered from the target's record, not applied again
	RegFailures    int64 // registrations refused for want of translation-table entries
	RegPeak        int64 // the most translation-table entries in use at once on a node
	RegBusy        Time  // time the nodes' registration locks were held, summed over nodes
}

// Machine is a simulated machine running one job: a simnet.Network (and
// simnet.Counter) made of routers, channels, NICs and host interfaces.
type Machine struct {
	name  string
	p     Params
	sizes Sizes
	opts  Options
	cfg   Config
	k     *sim.Kernel
	job   *simnet.Job
	topo  Topology
	// origin is the first of the machine's numbers among the kernel's
	// actors (Start): the channels' by their ids, then the routers', the
	// NICs' and the fault events'.
	origin uint32

	routers  []*Router
	channels []*Channel
	nics     []*nic // by node of the job
	loc      []int  // by rank: Config.Location
	freePkts *Packet
	chanSlab []Channel // channels newChannel has yet to hand out
	vcSlab   []vcState // VC states useVCs has yet to hand out
	// returnSlab is the block queueReturn carves credit return lists from,
	// returnFree the pieces lists have left, by size (returnPiece), and
	// freeReturnLists the first of the lists VCs have left (its number,
	// 0 for none). returnLists are the lists made, returnListChunk at a
	// time, returnListsMade of them handed out.
	returnSlab      []creditReturn
	returnFree      []stack[[]creditReturn]
	freeReturnLists uint32
	returnLists     [][]returnList
	returnListsMade uint32
	freeTxns        *txn  // transactions to reuse (recyclable, or stocked by stockTxns)
	freeTxnCount    int32 // on freeTxns
	freeBufs        stack[[]byte]
	stats           Stats

	regFree []Time   // per node: the registration lock is free from then
	regUsed []int64  // per node: translation-table entries in use (register.go)
	lastMDH []uint64 // per rank: the memory domain of its last FMA launch (0: none yet)
	// wcFree and wcNext are each rank's core's FMA store buffers
	// (Params.FMAStoreBuffers per rank): when each frees, and the count of
	// stores it made (its next buffer is wcNext mod the buffers).
	wcFree []Time
	wcNext []uint32

	trace   *tracer
	hazards *hazardChecker

	// census, when set, makes Build count the network instead of making it
	// (Plan).
	census *census
	// Faults (fault.go). lossy: a link may fail, so packets may be lost
	// (packets then note the link they cross, and target NICs keep the
	// record of applied AMOs). quiesced: the network is quiesced until
	// releaseAt (started at quiesceStart); releasedAt is when the last
	// quiesce ended; held are the packets routers hold meanwhile and
	// stalled the channels that would send. (The list of faults is at
	// the end.)
	faults                              faults
	lossy, quiesced                     bool
	releaseAt, releasedAt, quiesceStart Time
	held                                []heldPacket
	stalled                             []*Channel
	txnSeq                              uint64 // the last transaction identity given (conduit.PostDesc.TxnID)

	// Times of the NIC's fixed cycle counts, and a full packet's size.
	latency, ssid, rmt, amoHit, amoMiss Time
	fullPacket                          Time

	// A partitioned machine (partition.go): every partition's Machine,
	// by partition (nil: not partitioned), this one's number, and each
	// router's partition.
	parts      []*Machine
	part       int
	routerPart []int
	cutHook    func([]*Machine) // Partitioning.Cut
	// recheck is the transactions between this partition and another
	// whose last reference this partition may have dropped in the
	// window (releaseShared).
	recheck []*txn

	// faultList is every fault scheduled while the network was built,
	// and failTimes each failing channel's failure time (-1: failed from
	// the start), both read-only once the run starts: every partition
	// replays the list, and routers of any partition judge a channel by
	// its time (fault.go). failSeen are the channels whose failure this
	// partition has replayed. Last, where they move none of the fields
	// the packet path reads.
	faultList []*faultEvent
	failTimes map[*Channel]Time
	failSeen  map[*Channel]bool
}

// New makes a machine of cfg, to run a job (simnet.NewJob).
func New(cfg Config) (*Machine, error) {
	// What the build makes is read at random by the run: it is made on
	// huge pages where the system has them to give (package hugepage).
	defer hugepage.Hold()()
	if err := cfg.Params.validate(); err != nil {
		return nil, fmt.Errorf("%s: parameters: %v", cfg.Name, err)
	}
	if cfg.Build == nil || cfg.NewHost == nil || cfg.Location == nil || cfg.Sizes.Request == nil || cfg.Sizes.DataResponse == nil {
		return nil, fmt.Errorf("%s: the fabric's configuration lacks a hook", cfg.Name)
	}
	if cfg.ReroutePause < 0 || cfg.ReroutePause > MaxReroutePause {
		return nil, fmt.Errorf("%s: a re-route pause of %v: not 0 to %v", cfg.Name, cfg.ReroutePause, MaxReroutePause)
	}
	m := &Machine{name: cfg.Name, p: cfg.Params, sizes: cfg.Sizes, opts: cfg.Options, cfg: cfg}
	m.faults.m = m
	p := &m.p
	m.latency, m.ssid, m.rmt = m.cycles(p.NICLatencyCycles), m.cycles(p.SSIDCycles), m.cycles(p.RMTCycles)
	m.amoHit, m.amoMiss = m.cycles(p.AMOHitCycles), m.cycles(p.AMOMissCycles)
	m.fullPacket = Time(m.sizes.Request(p.MaxPacketData))
	return m, nil
}

// Open starts a job of jc on a new machine of cfg.
func Open(cfg Config, jc conduit.JobConfig) (*simnet.Job, error) {
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return simnet.NewJob(cfg.Name, jc, m, cfg.PEsPerNode)
}

// cycles is n NIC cycles, rounded down to the picosecond.
func (m *Machine) cycles(n int64) Time { return Time(n * 1_000_000_000_000 / m.p.NICClockHz) }

// Caps are the backend's capabilities.
func (m *Machine) Caps() conduit.Caps { return m.cfg.Caps }

// Costs are the host CPU costs of the conduit calls.
func (m *Machine) Costs() simnet.Costs {
	return simnet.Costs{PollCQ: m.p.PollCQ, PollMessages: m.p.PollMessages, PerMessage: m.p.PerMessage, Wait: m.p.Wait}
}

// Start builds the machine for the job: the backend's network (Config.Build),
// the NICs and their host interfaces. The backend's collective engine
// (Config.Offload), if any, becomes the job's.
func (m *Machine) Start(j *simnet.Job) error {
	m.job = j
	m.k = j.K
	j.Offload = m.cfg.Offload
	nodes := j.Nodes()
	topo, err := m.cfg.Build(m, nodes)
	if err != nil {
		return err
	}
	m.topo = topo
	m.numberChannels()
	if m.opts.Workers > 0 {
		if err := m.partition(j); err != nil {
			return err
		}
	}
	// The kernel's actors: the channels, the routers, the NICs and the
	// machine's fault events, numbered in that order.
	m.origin = m.k.NewOrigins(len(m.channels) + len(m.routers) + nodes + 1)
	m.faults.Source.ID = m.origin + uint32(len(m.channels)+len(m.routers)+nodes)
	m.nics = make([]*nic, nodes)
	m.regFree = make([]Time, nodes)
	if err := m.registerSegments(j); err != nil {
		return err
	}
	attached := make([]int, len(m.routers))
	placer, placed := topo.(NICPlacer)
	for node := range nodes {
		r := m.routers[topo.RouterOf(node)]
		k := attached[r.ID]
		if placed {
			k = placer.NICSlot(node)
		}
		m.nics[node] = m.newNIC(node, r, k, m.cfg.NewHost(node))
		m.nics[node].Source.ID = m.origin + uint32(len(m.channels)+len(m.routers)+node)
		attached[r.ID]++
	}
	m.lastMDH = make([]uint64, j.Size())
	m.wcFree = make([]Time, j.Size()*m.p.FMAStoreBuffers)
	m.wcNext = make([]uint32, j.Size())
	m.loc = make([]int, j.Size())
	for rank := range m.loc {
		m.loc[rank] = m.cfg.Location(j, rank)
	}
	if m.opts.TracePath != "" {
		m.trace = newTracer(m.opts.TracePath)
		j.Tracer = m.trace
	}
	m.hazards = newHazardChecker(m, m.opts.Hazards)
	if j.Par != nil {
		m.cut()
		return nil
	}
	m.k.BeforePE(m.stockTxns)
	return nil
}

// Finish writes the trace.
func (m *Machine) Finish(j *simnet.Job, err error) error {
	if m.trace != nil {
		return m.writeTrace()
	}
	return nil
}

// Counters are the model's counters, named by Config.Counters, for the
// job's report.
func (m *Machine) Counters() map[string]int64 {
	if m.cfg.Counters == nil {
		return nil
	}
	s := m.Stats()
	if m.quiesced {
		// The job ended during a quiesce: count it so far.
		s.QuiesceTime += m.k.Now() - m.quiesceStart
	}
	return m.cfg.Counters(s)
}

// Counters are the counters every fabric reports, by name; a backend adds
// those of its link units (phits, flits) and its own parts.
func (s Stats) Counters() map[string]int64 {
	return map[string]int64{
		"packets": s.Packets, "transactions": s.Transactions, "crc_retries": s.CRCRetries,
		"dropped": s.Dropped, "amo_hits": s.AMOHits, "amo_misses": s.AMOMisses,
		"bte_max_active": s.BTEMaxActive, "bte_max_in_flight": s.BTEMaxInFlight, "orb_max": s.ORBMax, "bte_gets_max": s.BTEGetsMax, "bte_reads_max": s.BTEReadsMax, "hazards": s.Hazards,
		"link_failures": s.LinkFailures, "lost_packets": s.Lost, "reroutes": s.Reroutes,
		"quiesce_ns": int64(s.QuiesceTime / 1000), "msg_resends": s.MsgResends, "amo_replays": s.AMOReplays,
		"reg_failures": s.RegFailures, "reg_peak_pages": s.RegPeak, "reg_busy_ns": int64(s.RegBusy / 1000),
	}
}

// Stats are the fabric's counters so far.
func (m *Machine) Stats() Stats {
	s := m.stats
	for _, p := range m.parts[min(len(m.parts), 1):] {
		s.add(p.stats)
	}
	return s
}
