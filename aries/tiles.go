package aries

import "math"

// The Aries router's tiles and the links between routers (whitepaper,
// Aries Router; Aries Performance).
//
// # Routers
//
// Each Aries is a fabric router with the whitepaper's tiles (Aries
// Router): 6 x 8 tiles, network port p on tile p and the eight processor
// tiles in the last row (TileOfPort). A packet's input queue routes it
// (RouterPipeline), a row bus takes it to the sub-switch of its output's
// column and a column bus to its output tile's column buffer (RowBusLatency,
// ColumnBusLatency), each bus a flit per tile cycle, one packet at a time;
// the column buffer is the output link's queue, whose load the routing
// sees together with the packets on their way to it. A link's input
// buffer gives each VC space of its own (InputBufferFlits) and a pool any
// VC may use beyond it (SharedInputFlits), sized for the longest cable.
//
// # Links
//
// A link direction sends one 48-bit flit per flit time at the link's raw
// rate, stretched by the LCB's one flit in ten of CRC and sequence
// information (LCBFlitsPerSet), over LanesPerLink lanes that carry each
// packet together; a lane out of service (the fail option) slows the link
// in proportion (Channel.Degrade).

// The router's tiles (whitepaper, Aries Router and Aries Performance).
const (
	// ProcessorPortsPerAries is 8: "Eight of the tiles, called 'processor
	// tiles' connect to the Netlink block and hence the Aries NICs"
	// (whitepaper, Aries Router).
	ProcessorPortsPerAries = 8

	// TileRows and TileColumns: "The router tiles are arranged in a 6 × 8
	// matrix" (whitepaper, Aries Router), 48 tiles, 40 network and 8
	// processor.
	TileRows    = 6
	TileColumns = 8

	// TileClockHz is the router clock: "Each processor tile can inject a
	// 48-bit flit per clock cycle — at 875 MHz" (whitepaper, Aries
	// Performance).
	TileClockHz = 875e6

	// TileBytesPerSecond is 5.25 GB/s, one flit per cycle (whitepaper, Aries
	// Performance; calibration row A-TILE).
	TileBytesPerSecond = FlitBytes * TileClockHz
)

// TileOfPort is the router tile that serves network port port: tile t is
// in row t / TileColumns and column t % TileColumns, the network ports
// fill the first 40 tiles in order and the processor tiles are the last
// eight, the sixth row. The whitepaper does not give the layout; assumed.
func TileOfPort(port int) int { return port }

// linkUnitTime is the time of one flit on a link of bytesPerSecond, the
// LCB's overhead included: one flit in LCBFlitsPerSet carries no data
// (Aries Router; Aries Performance: "LCB overheads are 1 flit in 10").
func linkUnitTime(bytesPerSecond float64) Time {
	const psPerSecond = 1e12
	return Time(math.Round(FlitBytes * psPerSecond / bytesPerSecond * LCBFlitsPerSet / LCBDataFlitsPerSet))
}

// SharedInputFlits is a link input's buffer pool (InputBufferFlits): the
// flits an optical link sends over a credit round trip of its longest
// cable, and a largest packet.
func SharedInputFlits() int {
	roundTrip := 2*LongestCableFlight + InputStage
	return int((roundTrip+linkUnitTime(OpticalLinkBytesPerSecond)-1)/linkUnitTime(OpticalLinkBytesPerSecond)) + maxPacketFlits
}
