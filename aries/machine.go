package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// The model is an internal/fabric machine configured with Aries's
// parameters (params.go), flit packet formats (below), Dragonfly network
// and its routing (topology.go, network.go), PCI-Express host interface
// (host.go), network addresses, memory domains and virtual nodes
// (address.go), IOMMU (iommu.go) and collective engine (ce.go,
// offload.go).

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

	LaunchBytes:     FMALaunchBytes,
	LaunchPost:      FMALaunch,
	MDHChange:       MDHChange,
	FMAPost:         FMAPost,
	FMAPutPerPacket: FMAPutPerPacket,
	FMAGetPerPacket: FMAGetPerPacket,
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
}

// flits is the number of 48-bit flits that carry n bytes.
func flits(n int) int { return (n + FlitBytes - 1) / FlitBytes }

// sizes are Aries's packets in flits (A-FLITS): a request is a header of
// RequestHeaderFlits and its data, a response a header of
// ResponseHeaderFlits and its data; 64 bytes make 11 flits, so a 64-byte
// put is 14 request flits and 1 response flit and a 64-byte get 3 request
// flits and 12 response flits.
var sizes = fabric.Sizes{
	Request:       func(n int) int { return RequestHeaderFlits + flits(n) },
	GetRequest:    RequestHeaderFlits,
	DataResponse:  func(n int) int { return ResponseHeaderFlits + flits(n) },
	Response:      ResponseHeaderFlits,
	ErrorResponse: ErrorResponseFlits,
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

// config is the fabric of one job on the network.
func (w *network) config() fabric.Config {
	c := caps
	c.CollectiveOffload = !w.opts.noCE
	return fabric.Config{
		Name:        Name,
		Params:      params,
		Sizes:       sizes,
		Options:     w.opts.Options,
		Caps:        c,
		PEsPerNode:  CoresPerNode,
		Build:       w.build,
		NewHost:     w.newHost,
		Location:    socketOf,
		ChannelName: w.channelName,
		Counters:    w.counters,
		Translate:   w.translate,
		Registered:  w.registered,
		Offload:     w.ce,

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
	c["ce_collectives"], c["ce_packets"], c["ce_waits"] = w.ce.stats.Collectives, w.ce.stats.Packets, w.ce.stats.Waits
	c["detours"] = w.detours
	return c
}

// socketOf is the socket of a rank's core and memory: PEs fill a node's
// cores in order; socket 0 is the CPU attached to the NIC.
func socketOf(j *simnet.Job, rank int) int {
	local := rank % j.PEsPerNode()
	return (local % CoresPerNode) / (CoresPerNode / Sockets)
}
