package fabric

import (
	"fmt"
	"math"

	"github.com/gopgas/gopgas/internal/sim"
)

// Time is virtual time in picoseconds.
type Time = sim.Time

// MaxVCs is the most virtual channels a fabric may have (Params.VCs).
const MaxVCs = 8

// Params are a backend's constants. The values, and the documents they come
// from, are the backend's (its params.go); the comments here say what the
// fabric does with each. Times are in picoseconds, cycles in NIC cycles.
type Params struct {
	// VCs is the number of virtual channels, 1 to MaxVCs: every channel
	// and NIC pipeline keeps a queue and credits per virtual channel.
	VCs int
	// RequestVC and ResponseVC are the virtual channels a NIC sends
	// requests and responses on; the routing may move a packet to another
	// at each hop.
	RequestVC, ResponseVC uint8
	// ProcessorTiles is the number of router tiles between the router and
	// its NICs in each direction; a packet takes the least loaded.
	ProcessorTiles int
	// TileUnitTime is the time a link unit (phit, flit) takes through a
	// processor tile.
	TileUnitTime Time
	// TilesPerGroup and NICsPerTileGroup split a router's processor tiles
	// among its NICs: the k-th NIC attached to a router uses the
	// TilesPerGroup tiles of group k/NICsPerTileGroup (wrapping round).
	// Zero: every NIC uses every tile.
	TilesPerGroup, NICsPerTileGroup int
	// InputBufferUnits is the input buffer at a channel's far end per
	// virtual channel, in link units: the channel's credits.
	// SharedInputUnits is more input buffer there that any virtual
	// channel may use once its own is full (dynamic per-VC buffering); a
	// packet never needs more than InputBufferUnits, so no VC waits for
	// another's.
	InputBufferUnits, SharedInputUnits int
	// RouterPipeline is a packet's trip through a router, from its input
	// to the queue of the output its routing chose.
	RouterPipeline Time
	// InputStage is how long after its tail arrived a packet gives its
	// input-buffer space back to the channel it came by.
	InputStage Time
	// TileRows and TileColumns, when TileColumns is not zero, give the
	// router tiled internals (router.go, Router.cross): after
	// RouterPipeline (its input queue's routing) a packet crosses a row
	// bus to the sub-switch in its output's column (RowBus later) and a
	// column bus from there to its output tile's column buffer (ColumnBus
	// later), each bus moving a link unit per TileUnitTime, one packet at
	// a time. A link's tiles at each end are the backend's
	// (Channel.SetTiles); the processor tiles are the last ProcessorTiles
	// of the TileRows x TileColumns.
	TileRows, TileColumns int
	RowBus, ColumnBus     Time
	// MaxPacketData is the most data bytes a request or a data response
	// carries.
	MaxPacketData int

	// NICClockHz is the NIC's clock: the Cycles parameters count its
	// cycles.
	NICClockHz int64
	// NICPacketCycles is how long a full packet (a request carrying
	// MaxPacketData bytes) occupies the NIC's transmit or receive pipeline;
	// smaller packets take less, in proportion to their size, but at least
	// NICMinPacketCycles each. The block-transfer engine makes a packet
	// every NICPacketCycles.
	NICPacketCycles, NICMinPacketCycles int64
	// NICLatencyCycles is a packet's latency through a NIC pipeline beyond
	// its occupancy.
	NICLatencyCycles int64
	// SSIDCycles is the transmit pipeline's extra occupancy for a
	// transaction's first request, RMTCycles the receive pipeline's for
	// its first request at the target.
	SSIDCycles, RMTCycles int64
	// BTEChannels is how many block transfers a NIC processes at once
	// (the rest queue; at most 64), each until it has made its last
	// request; BTEReadsOutstanding how many local reads one keeps in
	// flight for put data; BTEBurstPackets how many packets the engine
	// makes for one before it turns to the next.
	BTEChannels, BTEReadsOutstanding, BTEBurstPackets int
	// A block-transfer channel's pacing of its get requests: at most
	// BTEMaxGets outstanding (0: only the ORB limits them); once
	// BTEGetQuiesce are (0: never), it waits BTEGetDelayCycles NIC cycles
	// before its next one.
	BTEMaxGets, BTEGetQuiesce int
	BTEGetDelayCycles         int64
	// ORBEntries is how many request packets a NIC keeps outstanding
	// awaiting their responses; further requests wait.
	ORBEntries int
	// AMOHitCycles and AMOMissCycles are the AMO unit's occupancy for an
	// operation whose word is in its cache and for one that is not (that
	// one also reads host memory, overlapping other operations).
	AMOHitCycles, AMOMissCycles int64
	// AMOCacheEntries is the AMO cache's size (least recently used words
	// leave it); AMOFetchesOutstanding how many of its fills may be in
	// flight.
	AMOCacheEntries, AMOFetchesOutstanding int
	// TransactionTimeout ends a transaction whose responses stopped coming
	// (counted from its last sign of life) with a timeout status.
	TransactionTimeout Time
	// CQEntryBytes is the size of the completion-queue entry the NIC
	// writes to host memory when a post completes.
	CQEntryBytes int
	// CQBehindData says a get's completion entry is written as soon as
	// its last data packet has been handed to the host interface, behind
	// the data in the same memory (txn.go, handed); otherwise once the
	// data is visible.
	CQBehindData bool
	// HostOverheadBytes is what every host-interface transaction carries
	// beyond its data, FMAControlBytes the CPU's store that asks the NIC
	// for a get of up to MaxPacketData bytes, BTEDescriptorBytes the
	// block-transfer descriptor the CPU writes to the NIC.
	HostOverheadBytes, FMAControlBytes, BTEDescriptorBytes int
	// CoarseBytes and CoarsePackets are the default coarse_bytes and
	// coarse_packets options: relaxed transfers of more than CoarseBytes
	// move in units of CoarsePackets packets.
	CoarseBytes, CoarsePackets int

	// LaunchBytes is the largest put sent by FMA launch, a single store
	// that opens the operation (AMOs too are launched); 0: the NIC has no
	// launch. LaunchPost is the CPU time of a launch, in place of FMAPost
	// and the packet's store, and MDHChange its extra time when the
	// target's memory domain is not the one the PE's last launch used.
	LaunchBytes           int
	LaunchPost, MDHChange Time
	// FMAPost is the CPU time to start an FMA transaction, and
	// FMAPutPerPacket and FMAGetPerPacket the CPU time of each packet's
	// stores (one per real packet, also of a coarse unit).
	FMAPost, FMAPutPerPacket, FMAGetPerPacket Time
	// FMAStoreBuffers is how many of a core's stores to the FMA window
	// may be on their way to the NIC at once: its write-combining buffers.
	// A buffer is taken by each store (a packet's data, or a get's control
	// word) and frees when that store has crossed the host interface to
	// the NIC, so one core's FMA rate is at most FMAStoreBuffers stores
	// per host-interface crossing, and it falls when the node's other
	// traffic slows the crossing. 0: unlimited (the core stores at its
	// FMA per-packet cost and goes on at once, its time charged ahead).
	FMAStoreBuffers int
	// BTEPost is the CPU time to post a block transfer.
	BTEPost Time
	// SMSGSend is the CPU time to send a short message, beyond its
	// packets' FMAPutPerPacket.
	SMSGSend Time
	// PollCQ, PollMessages, PerMessage and Wait are the simnet.Costs.
	PollCQ, PollMessages, PerMessage, Wait Time
	// RegisterCall and RegisterPerPage are what a registration holds its
	// node's registration lock for, the fixed part and per PageBytes page;
	// a registration that waited for the lock pays RegisterHandoff more.
	RegisterCall, RegisterPerPage, RegisterHandoff Time
	// PageBytes is the page size of registrations.
	PageBytes int64
	// RegisterPages is the number of entries of a node's translation
	// table of registered memory, one per page, shared by all the node's
	// processes; 0: no limit. SegmentPageBytes is the page size of the
	// segments, registered at job start (0: PageBytes).
	RegisterPages, SegmentPageBytes int64
	// SegmentEntries, when above 0, is the number of entries of a second
	// table, of the segments' pages alone: a NIC that translates pages of
	// the segments' size in a table of its own, apart from the one of
	// PageBytes pages (RegisterPages). 0: the segments take entries of
	// RegisterPages' table.
	SegmentEntries int64

	// HostReadTags is how many reads of host memory a NIC may have
	// outstanding at once: the tags its non-posted host-interface reads
	// carry. Everything the NIC reads from its host shares them: a get's
	// data at the target, the block-transfer engine's reads of put data,
	// the AMO cache's fills. A read waits for a free tag, and its tag frees
	// when its data is back at the NIC (reads.go). Zero: no limit.
	HostReadTags int
}

// validate checks the parameters the fabric's arithmetic and arrays rely
// on.
func (p *Params) validate() error {
	switch {
	case p.VCs < 1 || p.VCs > MaxVCs:
		return fmt.Errorf("%d virtual channels (1..%d)", p.VCs, MaxVCs)
	case int(p.RequestVC) >= p.VCs || int(p.ResponseVC) >= p.VCs:
		return fmt.Errorf("request VC %d or response VC %d not below %d", p.RequestVC, p.ResponseVC, p.VCs)
	case p.ProcessorTiles < 1:
		return fmt.Errorf("%d processor tiles", p.ProcessorTiles)
	case p.MaxPacketData < 1, p.NICClockHz < 1, p.PageBytes < 1:
		return fmt.Errorf("packet data %d, NIC clock %d Hz, page %d bytes: not positive", p.MaxPacketData, p.NICClockHz, p.PageBytes)
	case p.BTEChannels < 1 || p.BTEReadsOutstanding < 1 || p.BTEBurstPackets < 1:
		return fmt.Errorf("BTE channels %d, reads %d, burst %d: not positive", p.BTEChannels, p.BTEReadsOutstanding, p.BTEBurstPackets)
	case p.BTEChannels > maxBTEChannels:
		return fmt.Errorf("BTE channels %d: more than %d", p.BTEChannels, maxBTEChannels)
	case p.BTEMaxGets < 0 || p.BTEGetQuiesce < 0 || p.BTEGetDelayCycles < 0 || (p.BTEMaxGets > 0 && p.BTEGetQuiesce > p.BTEMaxGets):
		return fmt.Errorf("BTE pacing: at most %d gets, quiesce at %d, delay %d cycles", p.BTEMaxGets, p.BTEGetQuiesce, p.BTEGetDelayCycles)
	case p.ORBEntries < 1 || p.AMOCacheEntries < 1 || p.AMOFetchesOutstanding < 1:
		return fmt.Errorf("ORB %d, AMO cache %d, AMO fetches %d: not positive", p.ORBEntries, p.AMOCacheEntries, p.AMOFetchesOutstanding)
	case p.ORBEntries > maxORBEntries:
		return fmt.Errorf("ORB %d: more than %d", p.ORBEntries, maxORBEntries)
	case p.TilesPerGroup < 0 || p.TilesPerGroup > p.ProcessorTiles || p.NICsPerTileGroup < 0 || (p.TilesPerGroup > 0) != (p.NICsPerTileGroup > 0):
		return fmt.Errorf("tile groups of %d tiles for %d NICs with %d tiles", p.TilesPerGroup, p.NICsPerTileGroup, p.ProcessorTiles)
	case p.TileColumns < 0 || (p.TileColumns > 0 && (p.TileRows < 1 || p.TileRows*p.TileColumns < p.ProcessorTiles || p.RowBus < 0 || p.ColumnBus < 0)):
		return fmt.Errorf("router tiles of %d rows x %d columns (buses %v, %v) for %d processor tiles", p.TileRows, p.TileColumns, p.RowBus, p.ColumnBus, p.ProcessorTiles)
	case p.InputBufferUnits < 1 || p.SharedInputUnits < 0 || p.InputBufferUnits > math.MaxInt32 || p.SharedInputUnits > math.MaxInt32:
		return fmt.Errorf("input buffers of %d units per VC and %d shared", p.InputBufferUnits, p.SharedInputUnits)
	case p.FMAStoreBuffers < 0:
		return fmt.Errorf("%d FMA store buffers per core", p.FMAStoreBuffers)
	case p.RegisterPages < 0 || p.SegmentPageBytes < 0 || p.SegmentEntries < 0:
		return fmt.Errorf("a translation table of %d pages, segment pages of %d bytes, a segment table of %d entries: negative", p.RegisterPages, p.SegmentPageBytes, p.SegmentEntries)
	case p.HostReadTags < 0:
		return fmt.Errorf("%d host read tags", p.HostReadTags)
	case p.CoarsePackets < 1 || p.CoarseBytes < 0:
		return fmt.Errorf("coarse units of %d packets above %d bytes", p.CoarsePackets, p.CoarseBytes)
	}
	return nil
}

// Sizes are a backend's packet formats: the size in link units (phits,
// flits) of each kind of packet, for data of at most Params.MaxPacketData
// bytes. They are called as packets are made.
type Sizes struct {
	// Request is a request carrying dataBytes: a put's or a message's
	// data, an AMO's operands.
	Request func(dataBytes int) int
	// GetRequest is a get's request, which carries no data.
	GetRequest int
	// DataResponse is a response carrying dataBytes: a get's data, a
	// fetching AMO's old value.
	DataResponse func(dataBytes int) int
	// Response is a response without data (a put's acknowledgement), and
	// ErrorResponse one reporting an error.
	Response, ErrorResponse int
}

// response is the size of a response without data.
func (s *Sizes) response(failed bool) int {
	if failed {
		return s.ErrorResponse
	}
	return s.Response
}
