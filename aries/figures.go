package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
)

// Figures of the model that no program can observe end to end, measured
// on the model's parts in isolation for the calibration rows that name
// them.

// PacketFlits are the sizes of the model's packets in flits (A-FLITS).
type PacketFlits struct {
	Put64Request, Put64Response int // a 64-byte put
	Get64Request, Get64Response int // a 64-byte get
	ErrorResponse               int // a response reporting an error
}

// Flits returns the sizes the model gives its packets.
func Flits() PacketFlits {
	return PacketFlits{
		Put64Request: sizes.Request(64), Put64Response: sizes.Response,
		Get64Request: sizes.GetRequest, Get64Response: sizes.DataResponse(64),
		ErrorResponse: sizes.ErrorResponse,
	}
}

// LinkFlitTime is the time a link takes per flit of a packet, with the
// LCB's overhead of one flit in LCBFlitsPerSet, at a lane rate of
// laneBitsPerSecond on LanesPerLink lanes.
func LinkFlitTime(laneBitsPerSecond float64) Time {
	perFlit := float64(FlitBits) / (LanesPerLink * laneBitsPerSecond) * 1e12
	return Time(perFlit * LCBFlitsPerSet / LCBDataFlitsPerSet)
}

// TileBytesPerSecondModel is what a processor tile of the model carries:
// a flit per TileFlitTime (A-TILE).
func TileBytesPerSecondModel() float64 { return FlitBytes / (float64(TileFlitTime) * 1e-12) }

// MeasureNICPeak feeds one NIC's receive pipeline n back-to-back 64-byte
// put packets of one transaction, as if the network and the host kept up
// without limit, and returns the rate at which the pipeline takes them in
// bytes per second (A-NIC-BW).
func MeasureNICPeak(n int) (float64, error) {
	opts, err := parseOptions(nil)
	if err != nil {
		return 0, err
	}
	return fabric.MeasureNICPeak(newNetwork(opts).config(), n)
}

// CEShapeMismatches checks which reductions the collective engine takes
// against A-CE-SHAPE ("Reductions and Barriers": 32- and 64-bit integer,
// logical and floating-point operations, min and max, no product) and
// lists the differences.
func CEShapeMismatches() []string {
	var bad []string
	kinds := []conduit.ReduceKind{conduit.ReduceInt, conduit.ReduceUint, conduit.ReduceFloat}
	for _, w := range []int{4, 8} {
		for _, k := range kinds {
			for _, op := range []conduit.ReduceOp{conduit.ReduceSum, conduit.ReduceMin, conduit.ReduceMax, conduit.ReduceAnd, conduit.ReduceOr, conduit.ReduceXor, conduit.ReduceProd} {
				logical := op == conduit.ReduceAnd || op == conduit.ReduceOr || op == conduit.ReduceXor
				want := op != conduit.ReduceProd && !(logical && k == conduit.ReduceFloat)
				if got := ceSupports(op, k, w); got != want {
					bad = append(bad, fmt.Sprintf("op %d kind %d width %d: supported %v, want %v", op, k, w, got, want))
				}
			}
		}
	}
	if ceSupports(conduit.ReduceSum, conduit.ReduceInt, 2) {
		bad = append(bad, "2-byte operands supported")
	}
	return bad
}
