package gemini

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

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
		Put8Request: requestPhits(8), Put8Response: ackPhits(false),
		Put64Request: requestPhits(64), Put64Response: ackPhits(false),
		Get64Request: getRequestPhits(), Get64Response: dataResponsePhits(64),
		ErrorResponse: ackPhits(true),
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
	if n < 2 {
		return 0, fmt.Errorf("gemini: MeasureNICPeak: %d packets (need at least 2)", n)
	}
	m := &machine{opts: options{coarseBytes: DefaultCoarseBytes, coarsePackets: CoarsePackets}}
	cfg := conduit.JobConfig{PEs: 2, PEsPerNode: 1, SegmentBytes: 1 << 20, Ordering: conduit.OrderRelaxed, MailboxSlots: 1, PeerBurst: 1}
	j, err := simnet.NewJob(Name, cfg, m, 1)
	if err != nil {
		return 0, err
	}
	nic := m.nics[1]
	t := &txn{kind: pktPut, ep: j.Endpoint(0), tep: j.Endpoint(1), src: m.nics[0], dst: nic,
		order: conduit.OrderRelaxed, size: n * MaxPacketData, unit: 1, npkts: n, pending: n}
	var first, last Time
	for i := range n {
		nic.rxTake(m.nics[0].request(t, i), nic.rxFree)
		if i == 0 {
			first = nic.rxFree
		}
		last = nic.rxFree
	}
	// The first packet also paid for the transaction; count from its end.
	return float64((n-1)*MaxPacketData) / (float64(last-first) * 1e-12), nil
}
