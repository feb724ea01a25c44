package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Config is what a backend makes a fabric of: its constants, its packet
// formats, and the hooks that build its network, host interfaces and
// report.
type Config struct {
	// Name is the backend's name: the job's, and the prefix of the
	// fabric's errors and messages.
	Name string
	// Params are the backend's constants, Sizes its packet formats.
	Params Params
	Sizes  Sizes
	// Options are the job's options (DefaultOptions and Options.Set).
	Options Options
	// Caps are the backend's capabilities (simnet sets Simulated).
	Caps conduit.Caps
	// PEsPerNode is the default number of PEs on a node (a job's
	// PEsPerNode overrides it).
	PEsPerNode int
	// Build makes the network for a job of nodes nodes when it starts:
	// the routers (Machine.NewRouter) and their links (Machine.NewLink),
	// with the backend's faults applied (Channel.Fail, Channel.Degrade).
	// It returns where the NICs are and the routing.
	Build func(m *Machine, nodes int) (Topology, error)
	// NewHost makes the host interface of a node; it is called for each
	// node in order once the network is built.
	NewHost func(node int) Host
	// Location is where in its node rank's memory is (a NUMA die; 0
	// everywhere if memory has no parts); it is called once per rank.
	Location func(j *simnet.Job, rank int) int
	// ChannelName names a channel for the trace.
	ChannelName func(c *Channel) string
	// Counters names the model's counters for the job's report; nil means
	// none.
	Counters func(s Stats) map[string]int64
	// Translate, if set, is the target NIC's address translation: a
	// request for n bytes at off in memory region region of rank (on
	// node) arrives at now; it returns when its translation is done and
	// the NIC may go on with it (a miss in a translation cache fetches
	// page-table entries).
	Translate func(node, rank int, now Time, region uint32, off int64, n int) Time
	// Registered, if set, is told of every registration (and, with
	// deregister, deregistration) of bytes as region id of ep's memory on
	// node, before its cost is booked; an error refuses it.
	Registered func(ep *simnet.Endpoint, node int, id uint32, bytes int64, deregister bool) error
	// Offload, if set, is the backend's collective engine: Start makes it
	// the job's (simnet.Job.Offload), and the endpoints hand their
	// offloaded collectives to it directly.
	Offload simnet.Offloader
	// ReroutePause is how long the management software keeps the network
	// quiesced after a link fails under deterministic routing, while it
	// computes and loads new routing tables (fault.go); the backend's
	// assumption, or its reroute_pause option.
	ReroutePause Time
}

// Stats are the fabric's counters.
type Stats struct {
	Packets      int64 // packets through NIC transmit pipelines
	ChannelUnits int64 // link units sent on links and tiles
	LinkUnits    int64 // link units sent on links between routers
	LinkPackets  int64 // packets sent on links between routers
	BTEMaxActive int64 // the most block transfers active at once on a NIC
	ORBMax       int64 // the most request packets outstanding at once on a NIC
	Transactions int64 // transactions completed
	CRCRetries   int64 // packets sent again after a CRC error
	Dropped      int64 // packets lost for want of a route
	AMOHits      int64 // AMOs whose word was in the AMO cache
	AMOMisses    int64 // AMOs whose word was not
	Hazards      int64 // gets that read around an earlier put (the hazard checker)
	LinkFailures int64 // channels that failed during the run (FailAt)
	Lost         int64 // packets lost on the wire of a link that failed
	Reroutes     int64 // new routing tables put into effect after failures
	QuiesceTime  Time  // time the network was quiesced for re-routes
	MsgResends   int64 // short messages sent again after a timeout
	AMOReplays   int64 // retried AMOs answered from the target's record, not applied again
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

	routers  []*Router
	channels []*Channel
	nics     []*nic // by node of the job
	loc      []int  // by rank: Config.Location
	freePkts *Packet
	freeBufs [][]byte
	stats    Stats

	regFree []Time   // per node: the registration lock is free from then
	lastMDH []uint64 // per rank: the memory domain of its last FMA launch (0: none yet)

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
	// stalled the channels that would send.
	faults                              faults
	lossy, quiesced                     bool
	releaseAt, releasedAt, quiesceStart Time
	held                                []heldPacket
	stalled                             []*Channel
	txnSeq                              uint64 // the last transaction identity given (conduit.PostDesc.TxnID)

	// Times of the NIC's fixed cycle counts, and a full packet's size.
	latency, ssid, rmt, amoHit, amoMiss Time
	fullPacket                          Time
}

// New makes a machine of cfg, to run a job (simnet.NewJob).
func New(cfg Config) (*Machine, error) {
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
	m.nics = make([]*nic, nodes)
	m.regFree = make([]Time, nodes)
	attached := make([]int, len(m.routers))
	placer, placed := topo.(NICPlacer)
	for node := range nodes {
		r := m.routers[topo.RouterOf(node)]
		k := attached[r.ID]
		if placed {
			k = placer.NICSlot(node)
		}
		m.nics[node] = m.newNIC(node, r, k, m.cfg.NewHost(node))
		attached[r.ID]++
	}
	m.lastMDH = make([]uint64, j.Size())
	m.loc = make([]int, j.Size())
	for rank := range m.loc {
		m.loc[rank] = m.cfg.Location(j, rank)
	}
	if m.opts.TracePath != "" {
		m.trace = newTracer(m.opts.TracePath)
		j.Tracer = m.trace
	}
	m.hazards = newHazardChecker(m, m.opts.Hazards)
	return nil
}

// Finish writes the trace.
func (m *Machine) Finish(j *simnet.Job, err error) error {
	if m.trace != nil {
		return m.trace.write(m.name)
	}
	return nil
}

// Counters are the model's counters, named by Config.Counters, for the
// job's report.
func (m *Machine) Counters() map[string]int64 {
	if m.cfg.Counters == nil {
		return nil
	}
	s := m.stats
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
		"bte_max_active": s.BTEMaxActive, "orb_max": s.ORBMax, "hazards": s.Hazards,
		"link_failures": s.LinkFailures, "lost_packets": s.Lost, "reroutes": s.Reroutes,
		"quiesce_ns": int64(s.QuiesceTime / 1000), "msg_resends": s.MsgResends, "amo_replays": s.AMOReplays,
	}
}

// Now is the simulation's time, for a Routing that samples loads
// periodically.
func (m *Machine) Now() Time { return m.k.Now() }

// Job is the job the machine runs (nil before it starts).
func (m *Machine) Job() *simnet.Job { return m.job }

// Stats are the fabric's counters so far.
func (m *Machine) Stats() Stats { return m.stats }

// mix64 is SplitMix64's finaliser, for routing hashes.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Post starts a descriptor.
func (m *Machine) Post(ep *simnet.Endpoint, d *conduit.PostDesc) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	t := m.newTxn(ep, d.Target, ep.EffectiveOrder(d))
	t.d = d
	if !d.Retry || d.TxnID == 0 {
		m.txnSeq++
		d.TxnID = m.txnSeq
	}
	t.id = d.TxnID
	t.region, t.roff = d.Remote.ID, d.RemoteOffset
	t.remoteEvent, t.remoteData = d.RemoteEvent, d.RemoteData
	switch {
	case d.Type == conduit.AMO:
		t.kind, t.size, t.npkts, t.unit = pktAMO, int(d.Width), 1, 1
		t.amo, t.width, t.fetch, t.operand, t.compare = d.AMO, d.Width, d.Fetch, d.Operand, d.Compare
		t.perPkt = m.p.FMAGetPerPacket
		if !m.launch(ep, d) {
			p.Advance(m.p.FMAPost + t.perPkt)
		}
		t.pending = 1
		m.k.At(p.Clock(), t.src, nicFMAIssue, t)
		return nil
	case d.Type == conduit.Put:
		t.kind = pktPut
		t.perPkt = m.p.FMAPutPerPacket
	default:
		t.kind = pktGet
		t.perPkt = m.p.FMAGetPerPacket
	}
	t.size = len(d.Local)
	m.split(t)
	m.hazards.posted(t)
	if d.Mech == conduit.BTE {
		t.bte = true
		t.reads = make([]Time, m.p.BTEReadsOutstanding)
		p.Advance(m.p.BTEPost)
		m.k.At(t.src.host.ToNIC(p.Clock(), m.p.BTEDescriptorBytes), t.src, nicBTEQueue, t)
		return nil
	}
	if t.kind == pktPut && t.size <= m.p.LaunchBytes && m.launch(ep, d) {
		m.k.At(p.Clock(), t.src, nicFMAIssue, t)
		return nil
	}
	// FMA: the CPU stores the packets one after another; it is busy for
	// all of them.
	p.Advance(m.p.FMAPost)
	m.k.At(p.Clock()+t.perPkt, t.src, nicFMAIssue, t)
	p.Advance(Time(m.packets(t.size)) * t.perPkt)
	return nil
}

// launch charges the CPU for an FMA launch of d, if the NIC has launch:
// one store that opens the operation, and another to the FMA descriptor
// when the target's memory domain is not the last one's.
func (m *Machine) launch(ep *simnet.Endpoint, d *conduit.PostDesc) bool {
	if m.p.LaunchBytes == 0 {
		return false
	}
	cost := m.p.LaunchPost
	mdh := uint64(d.Target)<<32 | uint64(d.Remote.ID) | 1<<63
	if m.lastMDH[ep.Rank()] != mdh {
		if m.lastMDH[ep.Rank()] != 0 {
			cost += m.p.MDHChange
		}
		m.lastMDH[ep.Rank()] = mdh
	}
	ep.Proc().Advance(cost)
	return true
}

// split divides a transfer into packets, or, for a relaxed transfer above
// the coarse threshold, into units of CoarsePackets packets. Ordered
// transfers always move packet by packet: how their packets interleave with
// other transfers' at the host decides what the order costs, and a unit
// would hide that.
func (m *Machine) split(t *txn) {
	pkts := m.packets(t.size)
	t.unit = 1
	if m.opts.CoarseBytes > 0 && t.size > m.opts.CoarseBytes && t.order == conduit.OrderRelaxed {
		t.unit = m.opts.CoarsePackets
	}
	t.npkts = (pkts + t.unit - 1) / t.unit
	t.pending = t.npkts
}

func (m *Machine) newTxn(ep *simnet.Endpoint, target int, order conduit.OrderingMode) *txn {
	src := m.nics[m.job.NodeOf(ep.Rank())]
	dst := m.nics[m.job.NodeOf(target)]
	t := &txn{ep: ep, tep: m.job.Endpoint(target), src: src, dst: dst, order: order, born: ep.Proc().Clock(),
		srcLoc: m.loc[ep.Rank()], dstLoc: m.loc[target]}
	switch m.opts.Routing {
	case RouteDeterministic:
		t.adaptive = false
	case RouteByOrder:
		t.adaptive = order != conduit.OrderStrict
	default:
		t.adaptive = true
	}
	t.hash = mix64(uint64(src.node)<<32 | uint64(dst.node))
	return t
}

// Send sends a short message: an FMA put of the message into the target's
// mailbox, delivered when all of it has committed.
func (m *Machine) Send(ep *simnet.Endpoint, target int, msg *simnet.Message) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	t := m.newTxn(ep, target, ep.Ordering())
	t.kind, t.msg = pktMsg, msg
	t.msgData = append(append(make([]byte, 0, msg.Bytes()), msg.Header...), msg.Payload...)
	t.size = max(1, msg.Bytes())
	t.unit = 1
	t.npkts = m.packets(t.size)
	t.pending = t.npkts
	t.perPkt = m.p.FMAPutPerPacket
	p.Advance(m.p.SMSGSend)
	m.k.At(p.Clock(), t.src, nicFMAIssue, t)
	p.Advance(Time(t.npkts) * t.perPkt)
	return nil
}

// Register holds the node's registration lock (the driver serialises
// registrations) for RegisterCall and RegisterPerPage per page, and a
// waiting registration pays RegisterHandoff when the lock passes to it.
func (m *Machine) Register(ep *simnet.Endpoint, id uint32, bytes int64, deregister bool) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	node := m.job.NodeOf(ep.Rank())
	if f := m.cfg.Registered; f != nil {
		if err := f(ep, node, id, bytes, deregister); err != nil {
			return err
		}
	}
	pages := (bytes + m.p.PageBytes - 1) / m.p.PageBytes
	now := p.Clock()
	start := now
	if m.regFree[node] > now {
		start = m.regFree[node] + m.p.RegisterHandoff
	}
	done := start + m.p.RegisterCall + Time(pages)*m.p.RegisterPerPage
	m.regFree[node] = done
	p.Advance(done - now)
	return p.Sync()
}
