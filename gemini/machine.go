package gemini

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Name is the name the backend registers under.
const Name = "gemini"

func init() {
	conduit.Register(Name, conduit.Backend{Open: Open, DefaultPEs: func() int { return 2 * CoresPerNode }})
}

// Stats are the model's counters.
type Stats struct {
	Packets      int64 // packets through NIC transmit pipelines
	LinkPhits    int64 // phits sent on links and tiles
	TorusPhits   int64 // phits sent on torus connections
	TorusPackets int64 // packets sent on torus connections
	BTEMaxActive int64 // the most block transfers active at once on a NIC
	Transactions int64 // transactions completed
	CRCRetries   int64 // link-level retransmissions
	Dropped      int64 // packets lost for want of a route
	AMOHits      int64
	AMOMisses    int64
	DieSwitches  int64 // ordered writes that waited for another die
	Hazards      int64 // gets that read around an earlier put (hazard checker)
}

// machine is the simulated XE6 running one job.
type machine struct {
	k     *sim.Kernel
	job   *simnet.Job
	opts  options
	torus *Torus

	routers  []*router
	channels []*channel
	nics     []*nic // by node of the job
	hosts    []*host
	freePkts *packet
	freeBufs []*[MaxPacketData]byte
	stats    Stats

	regFree []Time // per node: the registration lock is free from then

	trace   *tracer
	hazards *hazardChecker
}

// Open starts a job on a simulated Gemini network. It is registered as the
// "gemini" backend; cfg.Options are described by ParseOptions.
func Open(cfg conduit.JobConfig) (conduit.Job, error) {
	opts, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	m := &machine{opts: opts}
	perNode := CoresPerNode
	j, err := simnet.NewJob(Name, cfg, m, perNode)
	if err != nil {
		return nil, err
	}
	return j, nil
}

// Caps: Gemini's AMOs are 64-bit integer add, and, or, xor, and
// compare-and-swap (gni_pub.h's first-generation AMOs); the runtime emulates
// the others. Local buffers must be registered.
func (m *machine) Caps() conduit.Caps {
	return conduit.Caps{
		NeedsRegisteredLocal: true,
		AMO32:                false,
		FloatAMO:             false,
		AMOOps:               conduit.NewAMOSet(conduit.AMOAdd, conduit.AMOAnd, conduit.AMOOr, conduit.AMOXor, conduit.AMOCSwap),
	}
}

// Costs are the host CPU costs of the conduit calls.
func (m *machine) Costs() simnet.Costs {
	return simnet.Costs{PollCQ: PollCQ, PollMessages: PollMessages, PerMessage: PerMessage, Wait: Wait}
}

// Start builds the machine for the job.
func (m *machine) Start(j *simnet.Job) error {
	m.job = j
	m.k = j.K
	nodes := j.Nodes()
	t, err := m.opts.torus(nodes)
	if err != nil {
		return err
	}
	if t.Nodes() < nodes {
		return fmt.Errorf("gemini: the %v holds %d nodes; the job needs %d", t, t.Nodes(), nodes)
	}
	m.torus = t
	m.routers = make([]*router, t.Geminis())
	for g := range m.routers {
		m.routers[g] = &router{m: m, id: g}
	}
	for g, r := range m.routers {
		for d := range Dim(DimCount) {
			for _, dir := range []Dir{DirPlus, DirMinus} {
				to, ok := t.Neighbor(g, d, dir)
				if !ok {
					continue
				}
				for range t.Connections(d) {
					c := m.newChannel(g, m.routers[to], PhitTime, LinkFlight)
					c.dim, c.dir, c.torus = d, dir, true
					r.out[d][dirIndex(dir)] = append(r.out[d][dirIndex(dir)], c)
				}
			}
		}
		for i := range ProcessorTiles {
			r.inject[i] = m.newChannel(-1, r, routerCycles(ProcessorTilePhitCycles), 0)
		}
	}
	m.nics = make([]*nic, nodes)
	m.hosts = make([]*host, nodes)
	m.regFree = make([]Time, nodes)
	for node := range nodes {
		r := m.routers[t.GeminiOfNode(node)]
		h := &host{}
		n := &nic{m: m, node: node, r: r, host: h, amoCache: make(map[amoKey]*amoEntry)}
		r.nics[node%NodesPerGemini] = n
		m.nics[node], m.hosts[node] = n, h
	}
	for _, r := range m.routers {
		for i := range ProcessorTiles {
			// Ejection tiles reach the router's NICs; a packet's NIC is
			// chosen on delivery, so each tile serves both.
			c := m.newChannel(r.id, nil, routerCycles(ProcessorTilePhitCycles), 0)
			c.eject = true
			r.eject[i] = c
		}
	}
	if err := m.applyFaults(); err != nil {
		return err
	}
	if m.opts.tracePath != "" {
		m.trace = newTracer(m.opts.tracePath)
		j.Tracer = m.trace
	}
	m.hazards = newHazardChecker(m, m.opts.hazards)
	return nil
}

// Finish writes the trace and totals the host statistics.
func (m *machine) Finish(j *simnet.Job, err error) error {
	for _, h := range m.hosts {
		m.stats.DieSwitches += h.dieSwitch
	}
	if m.trace != nil {
		return m.trace.write()
	}
	return nil
}

// Counters are the model's Stats by name, for the job's report.
func (m *machine) Counters() map[string]int64 {
	s := m.stats
	return map[string]int64{
		"packets": s.Packets, "link_phits": s.LinkPhits, "transactions": s.Transactions,
		"crc_retries": s.CRCRetries, "dropped": s.Dropped, "amo_hits": s.AMOHits,
		"amo_misses": s.AMOMisses, "die_switches": s.DieSwitches, "torus_phits": s.TorusPhits,
		"torus_packets": s.TorusPackets, "bte_max_active": s.BTEMaxActive, "hazards": s.Hazards,
	}
}

func (m *machine) newChannel(from int, to *router, phit, flight Time) *channel {
	c := &channel{m: m, id: len(m.channels), from: from, to: to, phitTime: phit, flight: flight,
		lanes: LinksPerConnection, crcRate: m.opts.crcRate}
	c.credits = [2]int{InputBufferPhits, InputBufferPhits}
	m.channels = append(m.channels, c)
	return c
}

// dieOf is the NUMA die of a rank's core and memory.
func (m *machine) dieOf(rank int) int {
	local := rank % m.job.PEsPerNode()
	return (local % CoresPerNode) / (CoresPerNode / Dies)
}

// mix64 is SplitMix64's finaliser, for routing hashes.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Post starts a descriptor.
func (m *machine) Post(ep *simnet.Endpoint, d *conduit.PostDesc) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	t := m.newTxn(ep, d.Target, ep.EffectiveOrder(d))
	t.d = d
	t.region, t.roff = d.Remote.ID, d.RemoteOffset
	t.remoteEvent, t.remoteData = d.RemoteEvent, d.RemoteData
	switch {
	case d.Type == conduit.AMO:
		t.kind, t.size, t.npkts, t.unit = pktAMO, int(d.Width), 1, 1
		t.amo, t.width, t.fetch, t.operand, t.compare = d.AMO, d.Width, d.Fetch, d.Operand, d.Compare
		t.perPkt = FMAGetPerPacket
		p.Advance(FMAPost + t.perPkt)
		t.pending = 1
		m.k.At(p.Clock(), t.src, nicFMAIssue, t)
		return nil
	case d.Type == conduit.Put:
		t.kind = pktPut
		t.perPkt = FMAPutPerPacket
	default:
		t.kind = pktGet
		t.perPkt = FMAGetPerPacket
	}
	t.size = len(d.Local)
	m.split(t)
	m.hazards.posted(t)
	if d.Mech == conduit.BTE {
		t.bte = true
		p.Advance(BTEPost)
		m.k.At(t.src.host.toNIC(p.Clock(), 64), t.src, nicBTEQueue, t)
		return nil
	}
	// FMA: the CPU stores the packets one after another; it is busy for
	// all of them.
	p.Advance(FMAPost)
	m.k.At(p.Clock()+t.perPkt, t.src, nicFMAIssue, t)
	p.Advance(Time(packets(t.size)) * t.perPkt)
	return nil
}

// split divides a transfer into packets, or, for a relaxed transfer above
// the coarse threshold, into units of CoarsePackets packets.
// Ordered transfers always move packet by packet: how their packets
// interleave with other transfers' at the host decides what the order
// costs, and a unit would hide that.
func (m *machine) split(t *txn) {
	pkts := packets(t.size)
	t.unit = 1
	if m.opts.coarseBytes > 0 && t.size > m.opts.coarseBytes && t.order == conduit.OrderRelaxed {
		t.unit = m.opts.coarsePackets
	}
	t.npkts = (pkts + t.unit - 1) / t.unit
	t.pending = t.npkts
}

func (m *machine) newTxn(ep *simnet.Endpoint, target int, order conduit.OrderingMode) *txn {
	src := m.nics[m.job.NodeOf(ep.Rank())]
	dst := m.nics[m.job.NodeOf(target)]
	t := &txn{ep: ep, tep: m.job.Endpoint(target), src: src, dst: dst, order: order, born: ep.Proc().Clock()}
	switch m.opts.routing {
	case routeDeterministic:
		t.adaptive = false
	case routeByOrder:
		// Strict order delivered in order by the network too: hashed
		// deterministic routing (WP 1).
		t.adaptive = order != conduit.OrderStrict
	default:
		// GNI's default delivery mode is adaptive whatever the processor
		// interface's ordering (gni_pub.h keeps GNI_DLVMODE_* and the PI
		// ordering flags apart).
		t.adaptive = true
	}
	t.hash = mix64(uint64(src.node)<<32 | uint64(dst.node))
	return t
}

// Send sends a short message: an FMA put of the message into the target's
// mailbox, delivered when all of it has committed.
func (m *machine) Send(ep *simnet.Endpoint, target int, msg *simnet.Message) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	t := m.newTxn(ep, target, ep.Ordering())
	t.kind, t.msg = pktMsg, msg
	t.msgData = append(append(make([]byte, 0, msg.Bytes()), msg.Header...), msg.Payload...)
	t.size = max(1, msg.Bytes())
	t.unit = 1
	t.npkts = packets(t.size)
	t.pending = t.npkts
	t.perPkt = FMAPutPerPacket
	p.Advance(SMSGSend)
	m.k.At(p.Clock(), t.src, nicFMAIssue, t)
	p.Advance(Time(t.npkts) * t.perPkt)
	return nil
}

// Register holds the node's registration lock (the driver serialises
// registrations) for RegisterCall and RegisterPerPage per page, and a
// waiting registration pays RegisterHandoff when the lock passes to it
// (G-REG, G-DYNREG).
func (m *machine) Register(ep *simnet.Endpoint, bytes int64, deregister bool) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	node := m.job.NodeOf(ep.Rank())
	pages := (bytes + PageBytes - 1) / PageBytes
	now := p.Clock()
	start := now
	if m.regFree[node] > now {
		start = m.regFree[node] + RegisterHandoff
	}
	done := start + RegisterCall + Time(pages)*RegisterPerPage
	m.regFree[node] = done
	p.Advance(done - now)
	return p.Sync()
}

// Routing policies.
const (
	routeAdaptive = iota
	routeDeterministic
	routeByOrder
)

type options struct {
	gx, gy, gz     int
	yOpen          bool
	cabinets, rows int
	mseries        int
	mseriesY       int
	routing        int
	hashAddress    bool
	crcRate        float64
	faults         []linkFault
	tracePath      string
	hazards        string
	coarseBytes    int
	coarsePackets  int
}

type linkFault struct {
	gemini int
	dim    Dim
	dir    Dir
	conn   int
	links  int // links of the connection that failed; 0 means all
}

// OptionNames lists the backend options and what they mean.
var OptionNames = map[string]string{
	"torus":          "the Gemini torus as XxYxZ Geminis (default: the smallest Table 1 system holding the job)",
	"cabinets":       "build the Table 1 system of this many cabinets per row",
	"rows":           "rows of cabinets, with cabinets (default 1)",
	"mseries":        "build an m-series 2D torus of this many cabinets",
	"mseries_y":      "the y size of a one-cabinet m-series system: 4, 8 or 12",
	"y_open":         "true: the y dimension is open (not a ring)",
	"routing":        "adaptive (default), deterministic, or by-order (deterministic for strict ordering, adaptive otherwise)",
	"hash_address":   "true: deterministic routing hashes the remote address too",
	"crc_error_rate": "probability that a packet's CRC fails on a link (retried)",
	"fail":           "failed connections: gemini:dim:dir:conn[:links] separated by ';', e.g. 0:x:+:0 or 0:x:+:1:1",
	"trace":          "write a Chrome trace-event JSON file of the run here",
	"coarse_packets": "packets per coarse unit (default 16)",
	"hazards":        "off, log or fail: report relaxed gets that read around a put to the same bytes",
	"coarse_bytes":   "relaxed transfers larger than this many bytes move in coarse units (default 65536; 0: always packet by packet)",
}

func parseOptions(o map[string]string) (options, error) {
	opts := options{coarseBytes: DefaultCoarseBytes, coarsePackets: CoarsePackets}
	for k, v := range o {
		var err error
		switch k {
		case "torus":
			_, err = fmt.Sscanf(strings.ReplaceAll(v, "x", " "), "%d %d %d", &opts.gx, &opts.gy, &opts.gz)
		case "cabinets":
			opts.cabinets, err = strconv.Atoi(v)
		case "rows":
			opts.rows, err = strconv.Atoi(v)
		case "mseries":
			opts.mseries, err = strconv.Atoi(v)
		case "mseries_y":
			opts.mseriesY, err = strconv.Atoi(v)
		case "y_open":
			opts.yOpen, err = strconv.ParseBool(v)
		case "routing":
			switch v {
			case "adaptive":
				opts.routing = routeAdaptive
			case "deterministic":
				opts.routing = routeDeterministic
			case "by-order":
				opts.routing = routeByOrder
			default:
				err = fmt.Errorf("not adaptive, deterministic or by-order")
			}
		case "hash_address":
			opts.hashAddress, err = strconv.ParseBool(v)
		case "crc_error_rate":
			opts.crcRate, err = strconv.ParseFloat(v, 64)
			if err == nil && (opts.crcRate < 0 || opts.crcRate >= 1) {
				err = fmt.Errorf("not in [0, 1)")
			}
		case "fail":
			opts.faults, err = parseFaults(v)
		case "trace":
			opts.tracePath = v
		case "coarse_bytes":
			opts.coarseBytes, err = strconv.Atoi(v)
			if err == nil && opts.coarseBytes < 0 {
				err = fmt.Errorf("negative")
			}
		case "coarse_packets":
			opts.coarsePackets, err = strconv.Atoi(v)
			if err == nil && opts.coarsePackets < 1 {
				err = fmt.Errorf("less than 1")
			}
		case "hazards":
			if v != "off" && v != "log" && v != "fail" {
				err = fmt.Errorf("not off, log or fail")
			}
			opts.hazards = v
		default:
			return opts, fmt.Errorf("gemini: unknown option %q (known: %s)", k, strings.Join(optionList(), ", "))
		}
		if err != nil {
			return opts, fmt.Errorf("gemini: option %s=%q: %v", k, v, err)
		}
	}
	return opts, nil
}

func optionList() []string {
	var names []string
	for k := range OptionNames {
		names = append(names, k)
	}
	sortStrings(names)
	return names
}

func parseFaults(v string) ([]linkFault, error) {
	var out []linkFault
	for _, f := range strings.Split(v, ";") {
		parts := strings.Split(f, ":")
		if len(parts) != 4 && len(parts) != 5 {
			return nil, fmt.Errorf("fault %q is not gemini:dim:dir:conn[:links]", f)
		}
		var lf linkFault
		var err error
		if lf.gemini, err = strconv.Atoi(parts[0]); err != nil {
			return nil, fmt.Errorf("fault %q: gemini %q", f, parts[0])
		}
		switch parts[1] {
		case "x":
			lf.dim = DimX
		case "y":
			lf.dim = DimY
		case "z":
			lf.dim = DimZ
		default:
			return nil, fmt.Errorf("fault %q: dimension %q", f, parts[1])
		}
		switch parts[2] {
		case "+":
			lf.dir = DirPlus
		case "-":
			lf.dir = DirMinus
		default:
			return nil, fmt.Errorf("fault %q: direction %q", f, parts[2])
		}
		if lf.conn, err = strconv.Atoi(parts[3]); err != nil || lf.conn < 0 {
			return nil, fmt.Errorf("fault %q: connection %q", f, parts[3])
		}
		if len(parts) == 5 {
			if lf.links, err = strconv.Atoi(parts[4]); err != nil || lf.links < 1 || lf.links > LinksPerConnection {
				return nil, fmt.Errorf("fault %q: links %q (1..%d)", f, parts[4], LinksPerConnection)
			}
		}
		out = append(out, lf)
	}
	return out, nil
}

// torus builds the job's torus from the options.
func (o options) torus(nodes int) (*Torus, error) {
	switch {
	case o.gx > 0:
		return NewTorus(o.gx, o.gy, o.gz, !o.yOpen)
	case o.mseries > 0:
		t, err := MSeries(o.mseries, o.mseriesY)
		if t != nil {
			t.YClosed = !o.yOpen
		}
		return t, err
	case o.cabinets > 0:
		rows := max(o.rows, 1)
		t, _, err := ForCabinets(o.cabinets, rows)
		if t != nil {
			t.YClosed = !o.yOpen
		}
		return t, err
	}
	// The smallest Table 1 system of one row (two above 16 cabinets).
	cabinets := max(1, (nodes+NodesPerCabinet-1)/NodesPerCabinet)
	rows := 1
	if cabinets > 16 {
		rows = 2
		cabinets = (cabinets + 1) / 2
	}
	t, _, err := ForCabinets(cabinets, rows)
	return t, err
}

// applyFaults marks failed connections (all links down: adaptive traffic
// avoids them, deterministic traffic through them is lost) and degraded
// ones (some links down: the rest carry the traffic more slowly).
func (m *machine) applyFaults() error {
	for _, f := range m.opts.faults {
		if f.gemini < 0 || f.gemini >= len(m.routers) {
			return fmt.Errorf("gemini: fault on Gemini %d outside the %d-Gemini torus", f.gemini, len(m.routers))
		}
		conns := m.routers[f.gemini].out[f.dim][dirIndex(f.dir)]
		if f.conn >= len(conns) {
			return fmt.Errorf("gemini: fault on connection %d of Gemini %d %v%v, which has %d", f.conn, f.gemini, f.dim, f.dir, len(conns))
		}
		c := conns[f.conn]
		if f.links == 0 || f.links >= LinksPerConnection {
			c.down = true
			continue
		}
		c.lanes = LinksPerConnection - f.links
		c.phitTime = PhitTime * LinksPerConnection / Time(c.lanes)
	}
	return nil
}
