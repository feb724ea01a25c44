package aries

import "github.com/gopgas/gopgas/internal/sim"

// The model's parameters beyond the topology's. Each cites where its value
// comes from: a section of the whitepaper, [ARIES-WP] (it has no numbered
// sections; they are named), "assumed" (no document gives it; a plausible
// value that the calibration depends on little), or "set from A-XXX" (no
// document gives it and it decides that calibration row, which then checks
// the model's consistency rather than predicting it).

// Time is virtual time in picoseconds.
type Time = sim.Time

const (
	ps = sim.Time(1)
	ns = 1000 * ps
	us = 1000 * ns
)

// NIC (Aries NIC; Aries Performance).
const (
	// NICClockHz: "The Aries NIC can perform a 64-byte read or write every
	// five cycles (10.2 GB/s at 800MHz)" (Aries Performance).
	NICClockHz = 800_000_000
	// NICPacketCycles: a full 64-byte write every five cycles (A-NIC-BW).
	NICPacketCycles = 5
	// NICMinPacketCycles: the least a packet occupies a pipeline (a
	// response or request without data). Assumed, as on Gemini.
	NICMinPacketCycles = 1
	// NICLatencyCycles is a packet's latency through a NIC pipeline
	// beyond its slot. Set from A-LAT-PUT with the host latencies.
	NICLatencyCycles = 40
	// SSIDCycles is the source NIC's cost of starting a transaction. Set
	// from A-RATE: a node issues at most about 120 M puts per second.
	SSIDCycles = 2
	// RMTCycles is the receive pipeline's extra occupancy for a
	// transaction's first packet at the target. Set from A-AMO: the NIC
	// takes "up to 400 million AMOs per second" to one target, each a
	// transaction of its own, which leaves no room for an extra cycle
	// beyond the request's flits (the lookup is pipelined).
	RMTCycles = 0
	// BTEChannels: "The BTE unit supports up to four concurrent block
	// transfers" (Aries NIC). As on Gemini, a channel takes its next
	// transfer once it has made the last one's requests: "there is no
	// guarantee of completion ordering amongst block transfers issued by a
	// given NIC. Fence operations are used where necessary to ensure that
	// one transfer is completed before another starts" (Aries NIC).
	BTEChannels = 4
	// BTEReadsOutstanding is how many local reads one block transfer keeps
	// in flight: "If the transfer is large, then a single active channel
	// is sufficient to sustain full bandwidth" (Aries NIC), which needs
	// about 10 GB/s x 1 us of reads in flight. Assumed.
	BTEReadsOutstanding = 192
	// BTEBurstPackets: packets per turn among active transfers. Assumed.
	BTEBurstPackets = 1
	// ORBEntries: "Each NIC supports up to 1,024 outstanding packets"
	// (A-OUTST; Aries Performance).
	ORBEntries = 1024
	// FMADescriptors: "each Aries NIC supports a maximum of 127" FMA
	// descriptors, one per process (A-FMA-DESC; Network Software Stack).
	FMADescriptors = 127
	// AMOCycles: "The Aries AMO unit is capable of one operation every two
	// cycles" (A-AMO).
	AMOCycles = 2
	// AMOMissCycles is the AMO unit's occupancy for an operation whose word
	// must be fetched from host memory (the fetch itself overlaps others).
	// Assumed.
	AMOMissCycles = 4
	// AMOCacheEntries: "Aries maintains a 64-entry AMO cache"
	// (A-AMO-CACHE).
	AMOCacheEntries = 64
	// AMOFetchesOutstanding is how many AMO cache fills (PCI-Express reads
	// of host memory) may be in flight. Set from A-AMO: "AMO rates to random
	// variables that miss in the AMO cache depend on the performance of host
	// memory", 50 to 120 million per second.
	AMOFetchesOutstanding = 32
	// TransactionTimeout ends a transaction whose responses never came.
	// Assumed.
	TransactionTimeout = 10 * 1000 * us
	// ReroutePause is how long the HSS keeps the network quiesced when a
	// link fails under deterministic routing: "HSS can quiesce network
	// traffic so that route table changes can be deployed safely.
	// Applications pause briefly while this operation is in progress;
	// traffic is released once the re-route process has completed"
	// ([ARIES-WP] Network Reliability, Availability and Serviceability),
	// which gives no time. Assumed: 1 ms, brief beside a job's run, a
	// thousand times a packet's journey, and a tenth of TransactionTimeout
	// (whose clock stands still during the pause anyway). A real system's
	// re-route takes longer; the reroute_pause option sets another value.
	ReroutePause = 1000 * us
	// CQEntryBytes is the size of a completion-queue entry.
	CQEntryBytes = 16
	// MaxPacketData: "Packets contain up to 64 bytes of data" (Aries NIC).
	MaxPacketData = 64
	// PTEFetchesOutstanding is how many PTE fetches the IOMMU's pipeline
	// keeps in flight ("a deep pipeline to hide the latency of fetching
	// PTEs on a cache miss", Address Translation). Assumed.
	PTEFetchesOutstanding = 32
)

// Packets in 48-bit flits (A-FLITS; Aries Performance: "Each 64-byte write
// (put) requires 14 request flits and 1 response flit. A 64-byte read
// (get) requires three request flits and 12 response flits").
const (
	// RequestHeaderFlits: a request's header and address (a get request is
	// only this).
	RequestHeaderFlits = 3
	// ResponseHeaderFlits: a response's header (a put's response is only
	// this).
	ResponseHeaderFlits = 1
	// ErrorResponseFlits: a response reporting an error carries a status
	// word as well. Assumed.
	ErrorResponseFlits = 2
)

// Router and links (Aries Router; Aries Performance; Dragonfly
// Implementation).
const (
	// VirtualChannels: "The Aries router implements four VCs for requests
	// and four for responses" (Aries Router).
	VirtualChannels = 8
	// RequestVCs is the number of request VCs; responses use the rest.
	RequestVCs = 4
	// RouterPipeline, RowBusLatency and ColumnBusLatency make a packet's
	// trip through a router: its input queue "receives packets and
	// determines how to route them. It then sends the packet across a row
	// bus to the sub-switch in the appropriate column", which "sends it out
	// on one of six column busses to the column buffer in the appropriate
	// output row" (Aries Router). RouterPipeline is set from A-HOP ("each
	// router-to-router hop adds approximately 100ns of latency"), with
	// LinkFlight and the two buses, whose latencies are assumed.
	RouterPipeline = 60 * ns
	// RowBusLatency and ColumnBusLatency: assumed (above).
	RowBusLatency    = 15 * ns
	ColumnBusLatency = 15 * ns
	// LinkFlight is the time a flit takes from one router's output to the
	// next router's input on an electrical link. Assumed.
	LinkFlight = 10 * ns
	// OpticalFlight is that on an optical global link (a few metres of
	// fibre and the active optics). Assumed; A-HOP's "approximately 100ns"
	// is for a hop of either kind.
	OpticalFlight = 15 * ns
	// InputBufferFlits is each virtual channel's own input buffer at a
	// link's far end, and SharedInputFlits the buffer there that any of
	// them may use beyond its own: "Input buffering increased to tolerate
	// longer cable lengths, up to 35m in the case of optical links", and
	// "Dynamic per-virtual channel input buffering allows a single active
	// virtual channel to achieve full bandwidth over a long cable" (Aries
	// Router). The pool covers the credit round trip of a 35 m optical
	// cable at the optical link's flit rate, and a largest packet (a
	// request of MaxPacketData); each VC's own space is two largest
	// packets (assumed).
	// (SharedInputFlits computes the pool.)
	InputBufferFlits = 2 * maxPacketFlits
	// maxPacketFlits is a request of MaxPacketData (A-FLITS: 14).
	maxPacketFlits = RequestHeaderFlits + (MaxPacketData+FlitBytes-1)/FlitBytes
	// LongestCableFlight is a flit's flight over the longest optical cable,
	// 35 m (Aries Router) at about 5 ns per metre of fibre (assumed).
	LongestCableFlight = 35 * 5 * ns
	// InputStage is how long a packet holds its input buffer space after
	// it arrived, before it moves into the tile's queue. Assumed.
	InputStage = 10 * ns
	// ProcessorTiles: "Eight of the tiles, called processor tiles connect
	// to the Netlink block and hence the Aries NICs" (Aries Router).
	ProcessorTiles = ProcessorPortsPerAries
	// TilesPerNICPair and NICsPerTilePair: "Four of the processor tiles
	// are shared between NIC0 and NIC1, the other four are shared between
	// NIC2 and NIC3"; the Netlink spreads a NIC's packets over its four by
	// load (Aries Router).
	TilesPerNICPair = 4
	NICsPerTilePair = 2
	// TileFlitTime: "Each processor tile can inject a 48-bit flit per
	// clock cycle — at 875 MHz" (A-TILE; Aries Performance).
	TileFlitTime = Time(1_000_000_000_000 / int64(TileClockHz))
)

// Host interface: PCI-Express Gen3 x16 (A-PCIE, A-SYM; Aries Performance).
const (
	// PCIeBytesPerSecond: "Peak bandwidth of the 16X PCI-Express Gen3
	// interface ... is 16 GB/s, 8 giga-transfers per second, each of 16
	// bits".
	PCIeBytesPerSecond = 16_000_000_000
	// PCIeOverheadBytes: "PCI-Express overheads are 24 bytes on every
	// transfer".
	PCIeOverheadBytes = 24
	// PCIeEfficiencyPercent is what is left for transfers after "overheads
	// for alignment and flow control". Set from A-SYM: symmetric bulk
	// transfers reach about 8 GB/s each way.
	PCIeEfficiencyPercent = 90
	// PCIeLatency is a transfer's latency across the PCIe link and the
	// root complex, each way. Set from A-LAT-PUT.
	PCIeLatency = 110 * ns
	// MemoryWriteLatency is the time from the root complex to a write
	// being visible, for memory on the CPU attached to the NIC (CPU 0).
	// Set from A-LAT-PUT: it is the last part of a put's latency, until a
	// process polling the memory sees the data (a get pays it twice, its
	// data and then its completion entry, which MemoryReadLatency's row
	// takes as given).
	MemoryWriteLatency = 100 * ns
	// MemoryReadLatency is the time from the root complex to a read's
	// data being on its way back. Set from A-LAT-GET ("Get latencies are
	// higher than put as a PCI-Express read is required on the remote
	// node").
	MemoryReadLatency = 180 * ns
	// QPILatency is added for memory on the other socket ("Latencies are
	// higher for CPU 1 as traffic must cross the QPI interfaces"). Assumed.
	QPILatency = 60 * ns
	// CoresPerNode and Sockets: the whitepaper's nodes are "dual socket
	// Intel Xeon nodes ... (providing 16 or more cores)". PEs fill cores in
	// order, so PE i of a node runs on socket i / (CoresPerNode/Sockets).
	CoresPerNode = 16
	Sockets      = 2
	// BridgePostedBuffer is how many posted writes the root complex holds
	// between the link and memory, each until its write reaches memory
	// (MemoryWriteLatency): small writes go at most BridgePostedBuffer per
	// MemoryWriteLatency. Set from A-AMO: "Host memory is updated each time
	// the variable is updated" (AMO section), so 400 M AMOs/s on one
	// cached variable are 400 M word writes/s across the host interface,
	// which needs more than 40 buffers; 64 (32 held the AMO rate to 313 M/s).
	BridgePostedBuffer = 64
)

// Host CPU costs of the conduit calls (the PE's software and its stores to
// the NIC). Assumed unless stated.
const (
	// FMAPost is the CPU time to start an FMA transaction through the
	// descriptor (its window registers and an sfence). Set from A-LAT-PUT.
	FMAPost = 100 * ns
	// FMALaunch is the CPU time of a small put or AMO by FMA launch: "a
	// single 128-bit write from host to NIC and an x86 sfence". Set from
	// A-RATE: "rates of up to 7.5 million requests per second per core",
	// 133 ns a put, of which the runtime's own software takes about 8.
	FMALaunch = 125 * ns
	// MDHChange is the extra CPU time of an FMA launch to another memory
	// domain than the PE's last one: "an additional write to the FMA
	// descriptor and an x86 additional sfence". Set from A-RATE (80 M
	// puts per second per node with an MDH change for each put).
	MDHChange = 67 * ns
	// FMALaunchBytes is the largest transfer sent by FMA launch.
	FMALaunchBytes = 8
	// FMAPutPerPacket is the CPU time to store 64 bytes into the put
	// window.
	FMAPutPerPacket = 6 * ns
	// FMAGetPerPacket is the CPU time to store one get control word.
	FMAGetPerPacket = 8 * ns
	// FMAStoreBuffers is how many of one core's stores to the FMA window
	// may be on their way to the NIC at once: the core's write-combining
	// (line fill) buffers, each freed when its store has crossed PCIe to
	// the NIC (PCIeLatency after the link carried it). So one core stores
	// at most 10 x 64 bytes per crossing, about 5.5 GB/s of FMA puts, well
	// below what the block-transfer engine moves: "FMA transfers are lower
	// latency but require the involvement of the CPU" ([ARIES-WP] Remote
	// Memory Access). Assumed: the XC's Xeon E5 cores have ten line fill
	// buffers (the processor's documentation, not among the references).
	FMAStoreBuffers = 10
	// FMAGetControlBytes is the size of that control word, which crosses
	// PCI-Express with PCIeOverheadBytes. Assumed, as on Gemini.
	FMAGetControlBytes = 8
	// BTEDescriptorBytes is the size of a block-transfer descriptor the
	// CPU writes to the NIC. Assumed.
	BTEDescriptorBytes = 64
	// BTEPost is the CPU time to post a block transfer: Aries supports
	// "user-space launch of block transfer requests, reducing the issue
	// latency" (Aries NIC).
	BTEPost = 300 * ns
	// SMSGSend is the CPU time of sending a short message: a mailbox
	// message is an FMA put of the message into the target's mailbox
	// ([ORDERING] V.E: Cray MPI's first eager mode "uses GNI mailbox
	// messages"), so its CPU time is that of an FMA put of one packet,
	// FMAPost and FMAPutPerPacket; the two-sided software on top is the
	// runtime's (pgas.MsgRecvCycles at CoreHz). A-LAT-MSG checks it.
	SMSGSend = FMAPost + FMAPutPerPacket
	// CoreHz is the clock of the XC's cores, at which the runtime counts
	// the software it knows in cycles ("With more software overheads, the
	// MPI latencies depend on the type and speed of CPU"): the Intel Xeon
	// E5 "operating at 2600MHz" of the whitepaper's measurements (Aries
	// Performance).
	CoreHz = 2_600_000_000
	// PollCQ, PollMessages, PerMessage and Wait as on Gemini.
	PollCQ       = 20 * ns
	PollMessages = 30 * ns
	PerMessage   = 100 * ns
	Wait         = 20 * ns
	// LocalReducePerLevel is the CPU time of one level of the local
	// shared-memory reduction a node's PEs perform before the node joins
	// an offloaded reduction ("the main CPU is required for the local
	// shared memory reduction"). Assumed.
	LocalReducePerLevel = 150 * ns
	// CEOpCycles is the collective engine's time to combine a child's
	// partial result. Assumed.
	CEOpCycles = 20
)

// Coarse units of relaxed transfers (the coarse_bytes and coarse_packets
// options; internal/fabric): relaxed transfers above DefaultCoarseBytes move
// in units of CoarsePackets packets. A simulation device, not a part of
// Aries, as on Gemini.
const (
	DefaultCoarseBytes = 64 << 10
	CoarsePackets      = 16
)

// Memory registration, as on Gemini (no Aries figure is published).
// Assumed.
const (
	RegisterCall    = 700 * ns
	RegisterPerPage = 200 * ns
	RegisterHandoff = 350 * ns
	// PageBytes is the page size of registered memory: huge pages, as
	// Cray SHMEM's symmetric heap uses by default (Address Translation);
	// the page_bytes option makes it 4 KB.
	PageBytes = HugePageBytes
	// RegisterPages: no fixed table of registered pages. The Aries NIC
	// translates through its IOMMU and the host's page tables, caching
	// their entries ([ARIES-WP] Address Translation), so the model sets no
	// limit (0).
	RegisterPages = 0
)

// The NIC's reads of host memory (internal/fabric, reads.go).
const (
	// HostReadTags is how many PCI-Express reads the NIC may have
	// outstanding at once, shared by the data of the gets it answers, the
	// block-transfer engine's reads of put data and the AMO cache's fills;
	// a read's tag frees when its data is back at the NIC. Assumed: 256,
	// the 8-bit tags of PCI-Express's extended tag field. The 5-bit tags a
	// PCI-Express requester has without it (32) could not keep one block
	// transfer at full bandwidth, which the whitepaper says a single active
	// BTE channel sustains (Aries NIC): at about 0.5 us from a read's
	// request to its data back at the NIC, 32 reads of 64 bytes make 4 GB/s
	// (the model gave 3.9 GB/s for 1 MiB puts in windows of 16 with 32),
	// where 10 GB/s needs some 80 in flight.
	HostReadTags = 256
)
