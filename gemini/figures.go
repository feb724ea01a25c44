package gemini

import "github.com/gopgas/gopgas/internal/fabric"

// Figures of the model that no program can observe end to end, measured
// on the model's parts in isolation for the calibration rows that name
// them.

// PacketPhits are the sizes of the model's packets in phits (G-PHIT).
type PacketPhits struct {
	Put8Request, Put8Response   int // an 8-byte put
	Put64Request, Put64Response int // a 64-byte put
	Get64Request, Get64Response int // a 64-byte get
	ErrorResponse               int // a response reporting an error
}

// Phits returns the sizes the model gives its packets.
func Phits() PacketPhits {
	return PacketPhits{
		Put8Request: requestPhits(8), Put8Response: sizes.Response,
		Put64Request: requestPhits(64), Put64Response: sizes.Response,
		Get64Request: getRequestPhits(), Get64Response: dataResponsePhits(64),
		ErrorResponse: sizes.ErrorResponse,
	}
}

// LinkRawBytesPerSecond is a torus connection's raw bandwidth per
// direction: one 24-bit phit per PhitTime (G-LINK-RAW).
func LinkRawBytesPerSecond() float64 {
	return float64(PhitBits/8) / (float64(PhitTime) * 1e-12)
}

// MeasureNICPeak feeds one NIC's receive pipeline n back-to-back
// 64-byte put packets of one transaction, as if the network and the host
// kept up without limit, and returns the rate at which the pipeline takes
// them in bytes per second (G-NIC-BW: the HT link keeps a real node below
// it).
func MeasureNICPeak(n int) (float64, error) {
	opts, err := parseOptions(nil)
	if err != nil {
		return 0, err
	}
	return fabric.MeasureNICPeak(newNetwork(opts).config(), n)
}
