package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Name is the name the backend registers under.
const Name = "aries"

func init() {
	conduit.Register(Name, conduit.Backend{Open: Open, Plan: Plan, DefaultPEs: func() int { return 2 * CoresPerNode }})
}

// params are the model's parameters as the fabric takes them.
var params = fabric.Params{
	VCs:              VirtualChannels,
	RequestVC:        0,
	ResponseVC:       RequestVCs,
	ProcessorTiles:   ProcessorTiles,
	TileUnitTime:     TileFlitTime,
	TilesPerGroup:    TilesPerNICPair,
	NICsPerTileGroup: NICsPerTilePair,
	InputBufferUnits: InputBufferFlits,
	SharedInputUnits: SharedInputFlits(),
	RouterPipeline:   RouterPipeline,
	TileRows:         TileRows,
	TileColumns:      TileColumns,
	RowBus:           RowBusLatency,
	ColumnBus:        ColumnBusLatency,
	InputStage:       InputStage,
	MaxPacketData:    MaxPacketData,

	NICClockHz:            NICClockHz,
	NICPacketCycles:       NICPacketCycles,
	NICMinPacketCycles:    NICMinPacketCycles,
	NICLatencyCycles:      NICLatencyCycles,
	SSIDCycles:            SSIDCycles,
	RMTCycles:             RMTCycles,
	BTEChannels:           BTEChannels,
	BTEReadsOutstanding:   BTEReadsOutstanding,
	BTEBurstPackets:       BTEBurstPackets,
	ORBEntries:            ORBEntries,
	AMOHitCycles:          AMOCycles,
	AMOMissCycles:         AMOMissCycles,
	AMOCacheEntries:       AMOCacheEntries,
	AMOFetchesOutstanding: AMOFetchesOutstanding,
	TransactionTimeout:    TransactionTimeout,
	CQEntryBytes:          CQEntryBytes,
	HostOverheadBytes:     PCIeOverheadBytes,
	FMAControlBytes:       FMAGetControlBytes,
	BTEDescriptorBytes:    BTEDescriptorBytes,
	CoarseBytes:           DefaultCoarseBytes,
	CoarsePackets:         CoarsePackets,
	HostReadTags:          HostReadTags,

	LaunchBytes:     FMALaunchBytes,
	LaunchPost:      FMALaunch,
	MDHChange:       MDHChange,
	FMAPost:         FMAPost,
	FMAPutPerPacket: FMAPutPerPacket,
	FMAGetPerPacket: FMAGetPerPacket,
	FMAStoreBuffers: FMAStoreBuffers,
	BTEPost:         BTEPost,
	SMSGSend:        SMSGSend,
	PollCQ:          PollCQ,
	PollMessages:    PollMessages,
	PerMessage:      PerMessage,
	Wait:            Wait,
	RegisterCall:    RegisterCall,
	RegisterPerPage: RegisterPerPage,
	RegisterHandoff: RegisterHandoff,
	PageBytes:       PageBytes,
	RegisterPages:   RegisterPages,
}

// caps: Aries "supports a wide range of atomic operations" (AMO section):
// every operation, on 32- and 64-bit words, and float64 add. Local buffers
// must be registered. FMA gets may have flagged responses (Remote Memory
// Access section; the fabric's raiseFlag). The collective engine offloads
// barriers and allreduces.
var caps = conduit.Caps{
	NeedsRegisteredLocal: true,
	AMO32:                true,
	FloatAMO:             true,
	FlaggedGet:           true,
	CollectiveOffload:    true,
	CoreHz:               CoreHz,
}

// Open starts a job on a simulated Aries network. It is registered as the
// "aries" backend; cfg.Options are described by OptionNames.
func Open(cfg conduit.JobConfig) (conduit.Job, error) {
	w, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	j, err := fabric.Open(w.config(), cfg)
	if err != nil {
		return nil, err
	}
	return j, nil
}

// Plan checks a job as Open would, without starting it, and estimates the
// memory it will hold (conduit.Backend.Plan).
func Plan(cfg conduit.JobConfig) (conduit.Plan, error) {
	w, err := prepare(cfg)
	if err != nil {
		return conduit.Plan{}, err
	}
	return fabric.Plan(w.config(), cfg, hostBytes)
}

// prepare checks what Open and Plan check before the network is built.
func prepare(cfg conduit.JobConfig) (*network, error) {
	opts, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.PEsPerNode > FMADescriptors {
		// A-FMA-DESC: each process of a node holds one of its NIC's FMA
		// descriptors.
		return nil, fmt.Errorf("aries: %d PEs per node: a NIC has at most %d FMA descriptors, one per process", cfg.PEsPerNode, FMADescriptors)
	}
	return newNetwork(opts), nil
}

// network is the Dragonfly of one job, as the model's blocks: the
// options, the fabric machine, and the state of each block with its
// block. It is the job's fabric.Topology: RouterOf and NICSlot place the
// job's (virtual) nodes, Route and Reroute are the routing's.
type network struct {
	opts options
	// m is the machine of the job (nil for networks no job runs on).
	m *fabric.Machine
	// routing is the routers, links and routes (routing.go).
	routing routing
	// routes, in a partitioned run (the workers option), are each
	// partition's routing: copies of routing sharing its tables, each
	// with its own buffers, caches, counters and clock (cut).
	routes []*routing
	// addr is the job's virtual nodes, its NICs' vMDH CAMs and its
	// processes' memory domains (address.go).
	addr addressing
	// hosts are the nodes' host interfaces (host.go) and iommus their
	// NICs' IOMMUs (iommu.go), by node.
	hosts  []*host
	iommus []*iommu
	// ce is the job's collective engine (ce.go).
	ce *engine
}

// newNetwork is the network of a job with options opts, before the fabric
// builds it (build).
func newNetwork(opts options) *network {
	return &network{opts: opts, routing: newRouting(opts), ce: newEngine()}
}

// build makes the job's network: a router per Aries of the system, a link
// per direction of each of its links, and the faults; and the job's
// addresses.
func (w *network) build(m *fabric.Machine, nodes int) (fabric.Topology, error) {
	w.addr.phys = physicalNodes(nodes, w.opts.excluded)
	span := w.addr.phys[len(w.addr.phys)-1] + 1 // the system nodes the job reaches
	if span > MaxNodes {
		return nil, fmt.Errorf("aries: a job of %d nodes around %d excluded ones reaches node %d: more than the %d nodes of the largest system", nodes, len(w.opts.excluded), span-1, MaxNodes)
	}
	d, err := w.opts.system(span)
	if err != nil {
		return nil, err
	}
	if d.Nodes() < span {
		if len(w.opts.excluded) > 0 {
			return nil, fmt.Errorf("aries: the system of %v holds %d nodes; the job's %d nodes around %d excluded ones need %d", d, d.Nodes(), nodes, len(w.opts.excluded), span)
		}
		return nil, fmt.Errorf("aries: the system of %v holds %d nodes; the job needs %d", d, d.Nodes(), nodes)
	}
	w.m = m
	if err := w.addr.addCAMs(nodes); err != nil {
		return nil, err
	}
	if err := w.routing.build(m, d); err != nil {
		return nil, err
	}
	if err := w.routing.applyFaults(m, w.opts.faults); err != nil {
		return nil, err
	}
	return w, nil
}

// RouterOf is the Aries of one of the job's nodes.
func (w *network) RouterOf(node int) int { return w.addr.physical(node) / NodesPerAries }

// NICSlot is which of its Aries' NICs a node's is (fabric.NICPlacer).
func (w *network) NICSlot(node int) int { return w.addr.physical(node) % NodesPerAries }

// Route is the routing's Route (routing.go): the router's partition's in
// a partitioned run.
func (w *network) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	if w.routes != nil {
		return w.routes[r.Partition()].Route(r, p)
	}
	return w.routing.Route(r, p)
}

// partitioning cuts the network by group for the workers option: only
// the optical global links join groups, and a packet sent on one is
// routed at the far Aries OpticalFlight + RouterPipeline later.
func (w *network) partitioning(*fabric.Machine) fabric.Partitioning {
	return fabric.Partitioning{N: w.routing.df.Groups(), Part: func(r int) int { return r / AriesPerGroup },
		Lookahead: OpticalFlight + RouterPipeline, Cut: w.cut}
}

// cut gives each partition a routing of its own (routes): a group's
// routing reads only its own group's links and samples, and the tables it
// shares are read-only once built; each Aries' random stream is drawn only
// at that Aries.
func (w *network) cut(parts []*fabric.Machine) {
	if j := parts[0].Job(); w.addr.domains == nil {
		// Each rank's domain is made by its own partition; the list,
		// made on first use on one kernel, is made now.
		w.addr.domains = make([]*domain, j.Size())
	}
	w.routes = make([]*routing, len(parts))
	slots := int64(partitionCandidateSlots)
	for slots > partitionCandidateSlotsMin && slots*int64(len(parts)) > partitionCandidateTotal {
		slots /= 2
	}
	for i, m := range parts {
		rt := w.routing
		rt.clock = m
		rt.candCache, rt.rest, rt.detourBest, rt.candWorking = nil, nil, nil, nil
		rt.candSlots = slots
		for k := range rt.cand {
			rt.cand[k] = make(Path, 0, MaxNonMinimalHops)
		}
		rt.minimalRoutes, rt.nonMinimalRoutes, rt.rerouted, rt.reroutedNonMinimal, rt.detours = 0, 0, 0, 0, 0
		w.routes[i] = &rt
	}
	if !w.opts.noCE {
		// The collective engine's actors, one per partition, are
		// numbered now, before the partitions run.
		if err := w.ce.bindParts(parts[0].Job(), parts); err != nil {
			parts[0].Kernel().Fail(fmt.Errorf("%s: %w", Name, err))
		}
	}
}

// Reroute is partition part's routing's Reroute (fabric.Rerouter,
// faults.go): in a partitioned run each partition's routing keeps its own
// cache of the new tables' working links.
func (w *network) Reroute(part int) {
	if w.routes == nil {
		w.routing.Reroute()
		return
	}
	w.routes[part].Reroute()
}

// config is the fabric of one job on the network.
func (w *network) config() fabric.Config {
	c := caps
	c.CollectiveOffload = !w.opts.noCE
	return fabric.Config{
		Name:         Name,
		Params:       params,
		Sizes:        sizes,
		Options:      w.opts.Options,
		Caps:         c,
		PEsPerNode:   CoresPerNode,
		Build:        w.build,
		NewHost:      w.newHost,
		Location:     socketOf,
		ChannelName:  w.routing.channelName,
		Counters:     w.counters,
		Translate:    w.translate,
		Registered:   w.registered,
		Offload:      w.ce,
		Partitioning: w.partitioning,

		ReroutePause: w.opts.reroutePause,
	}
}

// newHost is a node's PCI-Express host interface, and its NIC's IOMMU.
func (w *network) newHost(int) fabric.Host {
	h := &host{}
	w.hosts = append(w.hosts, h)
	w.iommus = append(w.iommus, &iommu{})
	return h
}

// counters are the model's counters by name, for the job's report: the
// fabric's, its flits, the IOMMUs' PTE cache and the collective engine.
func (w *network) counters(fs fabric.Stats) map[string]int64 {
	c := fs.Counters()
	c["flits"], c["link_flits"], c["link_packets"] = fs.ChannelUnits, fs.LinkUnits, fs.LinkPackets
	var hits, misses int64
	for _, u := range w.iommus {
		h, m := u.cache.Stats()
		hits, misses = hits+h, misses+m
	}
	c["pte_hits"], c["pte_misses"] = hits, misses
	ce := w.ce.stats()
	c["ce_collectives"], c["ce_packets"], c["ce_waits"] = ce.Collectives, ce.Packets, ce.Waits
	c["detours"] = w.routing.detours
	return c
}

// socketOf is the socket of a rank's core and memory: PEs fill a node's
// cores in order; socket 0 is the CPU attached to the NIC.
func socketOf(j *simnet.Job, rank int) int {
	local := rank % j.PEsPerNode()
	return (local % CoresPerNode) / (CoresPerNode / Sockets)
}
