package gemini

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini/torus"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/sim"
)

// The model's parameters, and the table (params) that hands them to the
// fabric. Each cites where its value comes from:
//   - a section of [GEMINI-WP] (WP below), [GEMINI-HOTI] (SIP) or
//     [ORDERING] (MOP);
//   - "assumed": no document gives it; the value is a plausible one for the
//     hardware of the time, and the calibration does not depend on it much;
//   - "set from G-XXX": no document gives it, and it is the parameter that
//     decides that calibration row, so that row checks the model's
//     consistency rather than predicting it.
//
// The packaging of the torus (nodes per Gemini, blades, cabinets) and its
// connections, links and lanes are geometry: they are in package torus.

// Time is virtual time in picoseconds.
type Time = sim.Time

const (
	ps = sim.Time(1)
	ns = 1000 * ps
	us = 1000 * ns
)

// Clocks (G-CLK; WP 6.1).
const (
	// NICClockHz is the NIC's clock: 650 MHz.
	NICClockHz = 650_000_000
	// RouterClockHz is the router's clock: 800 MHz.
	RouterClockHz = 800_000_000
)

// routerCycles is n router cycles (1250 ps each).
func routerCycles(n int64) Time { return Time(n * 1_000_000_000_000 / RouterClockHz) }

// Packets (G-PHIT; WP section 3).
const (
	// PhitBits is the width of a phit.
	PhitBits = 24
	// RequestHeaderPhits: a request packet's header.
	RequestHeaderPhits = 7
	// ResponseHeaderPhits: a response packet's header; a put's response
	// is only this.
	ResponseHeaderPhits = 2
	// EOPPhits: the end-of-packet phit closing requests and data-carrying
	// responses.
	EOPPhits = 1
	// ErrorResponsePhits: a response reporting an error.
	ErrorResponsePhits = 3
	// MaxPacketData: a request or a get response carries at most 64 bytes
	// (24 data phits).
	MaxPacketData = 64
	// DataPhitsPer64B: 64 data bytes take 24 phits (8 bytes take 3).
	DataPhitsPer64B = 24
)

// Links (G-LINK-RAW, G-LINK-EFF; WP 1, 3, 6.2).
const (
	// LanesPerConnection: a torus connection is 12 lanes per direction
	// (torus.LinksPerConnection Gemini links of torus.LanesPerLink lanes).
	LanesPerConnection = torus.LinksPerConnection * torus.LanesPerLink
	// PhitTime is one phit on a full connection: 24 bits / (12 x 3.125
	// Gb/s) = 640 ps, so 4.6875 GB/s per direction. The connection's 4
	// links carry a packet's phits together, so a connection is modelled
	// as one channel; a failed link leaves 3/4 of its lanes (WP 3.1).
	PhitTime = Time(PhitBits * 1_000_000_000_000 / (LanesPerConnection * torus.LaneBitsPerSecond))
	// LinkFlight is the time a phit takes from one router's output to the
	// next router's input (SerDes and cable). Assumed: WP 6.2 gives only
	// the 105 ns total per hop (see RouterPipeline).
	LinkFlight = 7500 * ps
	// RouterPipelineCycles is a packet's trip through a router from its
	// input to its output tile. Set from G-HOP: 78 cycles (97.5 ns) plus
	// LinkFlight make the 105 ns per hop of WP 6.2 and SIP V.A.
	RouterPipelineCycles = 78
	// InputStageCycles is how long a packet holds its space in a link's
	// input buffer before it moves into the tile's row buffers, when its
	// credit goes back. Assumed.
	InputStageCycles = 8
	// InputBufferPhits is a link input buffer per virtual channel: "deep
	// enough to account for credit round-trip latency and the maximum size
	// packet" (WP 3); 96 phits covers both. Assumed.
	InputBufferPhits = 96
	// ProcessorTiles is the number of router tiles facing the two NICs
	// (WP 3), each moving one phit per router cycle: one 64-byte write
	// (32 phits) every 32 cycles (WP 6.2).
	ProcessorTiles = 8
	// ProcessorTilePhitCycles is the router cycles a phit takes through a
	// processor tile.
	ProcessorTilePhitCycles = 1
	// VirtualChannels: VCRequest and VCResponse are the two virtual
	// channels (WP 3).
	VirtualChannels = 2
	VCRequest       = 0
	VCResponse      = 1
)

// RouterPipeline and InputStage in time.
var (
	RouterPipeline = routerCycles(RouterPipelineCycles)
	InputStage     = routerCycles(InputStageCycles)
)

// NIC (WP 2, 6.2; MOP II).
const (
	// NICPacketCycles: the NIC moves 64 bytes each way every 5 cycles
	// (G-NIC-BW, WP 6.2): its transmit and receive pipelines each take a
	// full 64-byte write packet every 5 cycles.
	NICPacketCycles = 5
	// NICMinPacketCycles is the least a packet occupies a pipeline: a
	// response or get request without data moves through in one cycle,
	// others in proportion to their phits (a full 32-phit write taking
	// NICPacketCycles). Assumed: WP 6.2 gives the rate for full packets
	// only; charging every packet a full slot would halve symmetric
	// traffic, whose acknowledgements share the pipelines with the data.
	NICMinPacketCycles = 1
	// NICLatencyCycles is a packet's latency through the NIC's transmit or
	// receive pipeline, beyond its 5-cycle slot. Set from G-LAT-PUT with
	// the host latencies below.
	NICLatencyCycles = 30
	// SSIDCycles is the source NIC's cost of starting a transaction
	// (allocating and initialising its synchronization sequence
	// identifier, WP 2.5); the packets of one transaction share it. Set
	// from G-MSG-RATE: it limits a node to about 12.5 M small
	// transactions per second.
	SSIDCycles = 52
	// RMTCycles is the target NIC's cost of a transaction's first packet
	// (its entry in the receive message table). Assumed small: a target
	// takes AMOs from many sources at 100 M/s (G-AMO-HIT), so the
	// per-transaction limit is at the source.
	RMTCycles = 2
	// BTEChannels is how many block transfers are active per node at once
	// (G-BTE-CONC; MOP II); the rest wait in the queue. The NIC has four
	// BTE channels ([GNI-SRC] gemini_hw.h). A channel is busy with a
	// transfer while it makes the transfer's requests and then takes the
	// next, the first's responses still on their way: a channel counts the
	// sequence identifiers associated with it, only a fenced descriptor
	// waits for the transfers before it ([GNI-SRC] gemini_hw.h), and block
	// transfers complete in no guaranteed order (WP 2.2).
	BTEChannels = 4
	// BTEReadsOutstanding is how many local reads one block transfer keeps
	// in flight when it sends (put) data: a BTE channel's most HT
	// non-posted requests, 32 ([GNI-SRC] gemini_hw.h,
	// GHAL_BTE_VC_MAX_HT_NP_REQUEST).
	BTEReadsOutstanding = 32
	// BTEMaxGets, BTEGetQuiesce and BTEGetDelayCycles pace a BTE channel's
	// get requests, by the header's defaults ([GNI-SRC] gemini_hw.h,
	// GHAL_BTE_VC_MAX_GET_REQUEST, _GET_QUIESCE_COUNT, _GET_DELAY): at most
	// 768 outstanding, and once 512 are, 5 cycles before the next, counting
	// the outstanding requests of every transfer the channel has made. The
	// header counts the delay in BTE core clock cycles; the model takes
	// them as NIC cycles (assumed). (The header paces the channel's reads
	// of local memory likewise, from 24 in flight; the model's transfers
	// never have that many, counter bte_reads_max.)
	BTEMaxGets        = 768
	BTEGetQuiesce     = 512
	BTEGetDelayCycles = 5
	// BTEBurstPackets is how many packets the block-transfer engine makes
	// for one transfer before it turns to the next active one. Assumed.
	BTEBurstPackets = 1
	// ORBEntries is how many request packets a NIC keeps outstanding
	// (output request buffer) awaiting their responses, FMA's and the
	// block-transfer engine's together: 1024 entries ([GNI-SRC]
	// gemini_hw.h), as many as Aries' (A-OUTST).
	ORBEntries = 1024
	// FMADescriptors is how many FMA descriptors a NIC has for user
	// processes: 64, besides 4 kept for the kernel ([GNI-SRC]
	// gemini_hw.h). Each PE holds one of its own, as uGNI gives every
	// communication domain by default, and creating one fails when none
	// is free ([GNI-SRC] gni_pub.h); so a node runs at most 64 PEs. (uGNI
	// can instead let domains share descriptors, at a cost per transaction
	// that no document gives for Gemini; the model does not share.)
	FMADescriptors = 64
	// AMOHitCycles is the AMO unit's occupancy for an operation whose
	// word is in the AMO cache. Set from G-AMO-HIT (100 M/s: 7 cycles).
	AMOHitCycles = 7
	// AMOMissCycles is its occupancy for one that must fetch the word
	// from host memory (the fetch itself overlaps other operations). Set
	// from G-AMO-MISS (more than 45 M/s).
	AMOMissCycles = 14
	// AMOCacheEntries is the size of the AMO cache. Gemini's is not
	// published; Aries' has 64 entries (A-AMO-CACHE), assumed here.
	AMOCacheEntries = 64
	// AMOFetchesOutstanding is how many AMO cache fills may be in flight.
	// Assumed.
	AMOFetchesOutstanding = 16
	// CQEntryBytes is the size of a completion-queue entry the NIC writes
	// to host memory.
	CQEntryBytes = 16
	// DefaultCoarseBytes: relaxed transfers larger than this move in coarse
	// units (see CoarsePackets) unless the coarse_bytes option says
	// otherwise.
	DefaultCoarseBytes = 64 << 10
	// CoarsePackets is how many packets a coarse unit stands for. A unit
	// is a run of consecutive packets of one transfer: it costs the same
	// phits, NIC slots, ORB entries and HT bytes as they would, but is one
	// event at each stage, and it takes one of the parallel resources (a
	// processor tile, a torus connection) where its packets would have
	// spread over them; units small enough that several are in flight at
	// once spread as their packets would. Where this matches the
	// packet-exact model is tested (TestCoarseMatchesExact).
	CoarsePackets = 16
	// TransactionTimeout ends a transaction whose responses never came
	// (a lost route) with a timeout status. Assumed; long enough that
	// congestion never trips it.
	TransactionTimeout = 10 * 1000 * us
	// ReroutePause is how long the management software keeps the network
	// quiesced when a connection fails under deterministic routing: it
	// "quiesces the network, computes new routing tables and then
	// re-enables the network" ([GEMINI-WP] 3.1), which gives no time.
	// Assumed: 1 ms, brief beside a job's run as the documents put it
	// ("Applications pause briefly", [ARIES-WP] Network Reliability,
	// Availability and Serviceability), a thousand times a packet's
	// journey, and a tenth of TransactionTimeout (whose clock stands still
	// during the pause anyway). A real system's re-route takes longer;
	// the reroute_pause option sets another value.
	ReroutePause = 1000 * us
)

// Host interface: HyperTransport 3 (G-HT-FMA, G-HT-BTE; WP 6.2) and the
// node's memory (MOP II, Figure 1: two 12-core sockets, four NUMA dies).
const (
	// HTBytesPerSecond is the raw HyperTransport bandwidth per direction:
	// 16 bits on both edges at 2400 MHz = 9.6 GB/s (WP 6.2).
	HTBytesPerSecond = 9_600_000_000
	// HTOverheadBytes: every HT transaction carries 12 bytes beyond its
	// data: an FMA put's 64 bytes cost 76, a read request 12, a posted
	// write of 64 bytes 76 (WP 6.2).
	HTOverheadBytes = 12
	// HTLatency is a transaction's latency across the HT link and the host
	// bridge, each way. Set from G-LAT-GET: a get's request and data
	// cross it twice each (a put's latency is NICLatencyCycles' and
	// FMAPost's row).
	HTLatency = 40 * ns
	// CoresPerNode and Dies: an XE6 node's 24 cores in four NUMA dies of
	// six (MOP II). PEs fill cores in order, so PE i of a node runs on die
	// i/6 and its memory is on that die.
	CoresPerNode = 24
	Dies         = 4
	// NICDie is the die whose host bridge the NIC's HT link reaches.
	NICDie = 0
	// LocalWriteLatency and RemoteWriteLatency are the time from the host
	// bridge issuing a NIC write to its becoming visible in memory and
	// being acknowledged, on the NIC's die and on another die (one
	// coherent HT hop, with its probes). Set from G-ORD-RATIO, within what
	// Magny-Cours' local and one-hop latencies allow: an ordered write to
	// another die than the last waits for the last one's acknowledgement,
	// and a strict one for the earlier reads of other dies, so these
	// decide what strict ordering costs many PEs. (RemoteWriteLatency was
	// 160 ns before strict writes waited for reads; the row took it again
	// when they did.)
	LocalWriteLatency  = 80 * ns
	RemoteWriteLatency = 100 * ns
	// LocalReadLatency and RemoteReadLatency are the time from the host
	// bridge issuing a NIC read to the data being on its way back. Assumed.
	LocalReadLatency  = 90 * ns
	RemoteReadLatency = 150 * ns
	// BridgePostedBuffer is how many posted writes the host bridge holds
	// between the HT link and their issue; when they are all waiting the
	// link stops and the NIC with it. Assumed.
	BridgePostedBuffer = 16
)

// Host CPU costs of the conduit calls (the PE's software and its stores to
// the NIC). Assumed unless stated.
const (
	// FMAPost is the CPU time to start an FMA transaction (the
	// descriptor's window registers). Set from G-LAT-PUT.
	FMAPost = 80 * ns
	// FMAPutPerPacket is the CPU time to store 64 bytes into the FMA put
	// window: a single PE can issue 8 GB/s, the HT's FMA limit.
	FMAPutPerPacket = 8 * ns
	// FMAGetPerPacket is the CPU time to store one 8-byte get control word
	// (a get of up to 64 bytes).
	FMAGetPerPacket = 10 * ns
	// FMAStoreBuffers is how many of one core's stores to the FMA window
	// may be on their way to the NIC at once: the core's write-combining
	// buffers, each freed when its store has crossed the HT link to the
	// NIC (HTLatency after the link carried it). So one core stores at
	// most 4 x 64 bytes per crossing, about 5.3 GB/s of FMA puts, below
	// the HT's 8 GB/s: a single PE per node cannot drive the NIC to its
	// FMA peak, two or more can ([GEMINI-HOTI] V.A, Figure 8, G-FMA-PPN).
	// Assumed: the XE6's Opteron 6100 cores have four write-combining
	// buffers (the processor's documentation, not among the references).
	FMAStoreBuffers = 4
	// FMAGetControlBytes is the size of that control word, which crosses
	// the HT link with HTOverheadBytes.
	FMAGetControlBytes = 8
	// BTEPost is the CPU time to post a block transfer through the kernel
	// driver: "the cost of starting up this mechanism is high" (MOP II).
	// Set from G-XOVER (the FMA/BTE crossover near 4 KB).
	BTEPost = 1200 * ns
	// BTEDescriptorBytes is the size of the block-transfer descriptor the
	// post writes to the NIC over the HT link. Assumed.
	BTEDescriptorBytes = 64
	// SMSGSend is the CPU time of sending a short message (mailbox
	// bookkeeping and the FMA put of the message). Set from G-LAT-MSG.
	SMSGSend = 200 * ns
	// CoreHz is the clock of the XE6's cores, at which the runtime counts
	// the software it knows in cycles: "two 12-core AMD MagnyCours 2.1-GHz
	// processors" per node (MOP II).
	CoreHz = 2_100_000_000
	// PollCQ is the CPU time of one completion-queue poll.
	PollCQ = 20 * ns
	// PollMessages is the CPU time of one mailbox poll, and PerMessage
	// that of taking one message out and dispatching it.
	PollMessages = 30 * ns
	PerMessage   = 100 * ns
	// Wait is the CPU time a waiting PE spends on an unproductive check.
	Wait = 20 * ns
)

// Memory registration (G-REG, G-DYNREG; MOP III.B, Figure 6): a
// registration (or a deregistration) costs a fixed part and a part per
// page, and is serialised per node in the driver.
const (
	// RegisterCall is the fixed part of a registration; with one page's
	// RegisterPerPage it makes the 0.9 us of registering a single 4 KB
	// page alone (MOP III.B).
	RegisterCall = 700 * ns
	// RegisterPerPage is the part per 4 KB page: pinning it and writing
	// its translation, a 4-byte entry of the host's GART table ([GNI-SRC]
	// cgm.h, cgm_set_gatt_pageaddr; see RegisterPages). Assumed: MOP
	// Figure 6's curves are not in the text.
	RegisterPerPage = 200 * ns
	// RegisterHandoff is the extra time each waiting registration pays
	// when the driver's lock passes to it. Set from G-REG: 24 concurrent
	// registrations take about 30 us.
	RegisterHandoff = 350 * ns
	// PageBytes is the page size of registrations of memory outside the
	// segment: 4 KB, the size [ORDERING] III.B measures.
	PageBytes = 4096
	// RegisterPages is the number of page entries of the node's table of
	// 4 KB pages: "the number of pages that can be registered is
	// typically fixed among all running processes" and with 4 KB pages
	// "only a fraction of the total physical memory can be registered
	// (<800MB) per node" ([ORDERING] III.B). The NIC translates only
	// pages of 128 KiB and more itself (its memory relocation table:
	// SegmentEntries); a 4 KB page is mapped through the host's GART
	// aperture instead, an entry of the GART's table per page, reserved
	// for the NIC's driver by Cray's GART manager ([GNI-SRC] ghal_pub.h,
	// GHAL_GART_GET_ADDR; cgm.h), so the aperture's share bounds what can
	// be registered. Assumed: 2^17 entries, 512 MiB of 4 KB pages, a
	// power of two under that bound (the share's size is not stated). A
	// registration beyond it fails; the runtime then moves the transfer
	// through bounce buffers (G-REG-LIMIT).
	RegisterPages = 1 << 17
	// SegmentPageBytes is the page size of the segments, registered at job
	// start: one entry maps a 2 MiB huge page. Assumed: [ORDERING] III.B
	// and Figure 6 register with page sizes other than 4 KB, and with 4 KB
	// pages the default segments of 24 PEs (64 MiB each) would not fit the
	// table; 2 MiB is one of the memory relocation table's page sizes
	// (128 KiB to 1 GiB, [GNI-SRC] ghal_pub.h).
	SegmentPageBytes = 2 << 20
	// SegmentEntries is the number of entries of the NIC's memory
	// relocation table, which maps the segments' huge pages, one entry a
	// page, apart from the GART's 4 KB pages: 16,384 ([GNI-SRC]
	// gemini_hw.h, GHAL_MRT_MAX_NUMBER), 32 GiB of 2 MiB pages per node.
	SegmentEntries = 16 * 1024
)

// params are the model's parameters as the fabric takes them.
var params = fabric.Params{
	VCs:              VirtualChannels,
	RequestVC:        VCRequest,
	ResponseVC:       VCResponse,
	ProcessorTiles:   ProcessorTiles,
	TileUnitTime:     routerCycles(ProcessorTilePhitCycles),
	InputBufferUnits: InputBufferPhits,
	RouterPipeline:   RouterPipeline,
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
	BTEMaxGets:            BTEMaxGets,
	BTEGetQuiesce:         BTEGetQuiesce,
	BTEGetDelayCycles:     BTEGetDelayCycles,
	ORBEntries:            ORBEntries,
	AMOHitCycles:          AMOHitCycles,
	AMOMissCycles:         AMOMissCycles,
	AMOCacheEntries:       AMOCacheEntries,
	AMOFetchesOutstanding: AMOFetchesOutstanding,
	TransactionTimeout:    TransactionTimeout,
	CQEntryBytes:          CQEntryBytes,
	CQBehindData:          true,
	HostOverheadBytes:     HTOverheadBytes,
	FMAControlBytes:       FMAGetControlBytes,
	BTEDescriptorBytes:    BTEDescriptorBytes,
	CoarseBytes:           DefaultCoarseBytes,
	CoarsePackets:         CoarsePackets,

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

	SegmentPageBytes: SegmentPageBytes,
	SegmentEntries:   SegmentEntries,

	HostReadTags: HostReadTags,
}

// caps: Gemini's AMOs are 64-bit integer add, and, or, xor, and
// compare-and-swap (the first-generation AMOs of [GNI-SRC] gni_pub.h); the
// runtime emulates the others. Local buffers must be registered. Gets have
// no flagged responses (Caps.FlaggedGet is an Aries addition).
var caps = conduit.Caps{
	NeedsRegisteredLocal: true,
	AMO32:                false,
	FloatAMO:             false,
	AMOOps:               conduit.NewAMOSet(conduit.AMOAdd, conduit.AMOAnd, conduit.AMOOr, conduit.AMOXor, conduit.AMOCSwap),
	CoreHz:               CoreHz,
}

// The NIC's reads of host memory (internal/fabric, reads.go).
const (
	// HostReadTags is how many reads of host memory the NIC may have
	// outstanding at once, shared by the data of the gets it answers, the
	// block-transfer engine's reads of put data and the AMO cache's fills;
	// a read's tag frees when its data is back at the NIC. Assumed: a
	// HyperTransport requester names its outstanding non-posted requests
	// by a 5-bit SrcTag, so it has at most 32 (the documents give no
	// figure; WP 6.2 says only that every BTE data packet costs a 12-byte
	// read request).
	HostReadTags = 32
)
