package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

// MeasureNICPeak feeds one NIC's receive pipeline, on a two-node machine of
// cfg, n back-to-back put packets of MaxPacketData bytes of one
// transaction, as if the network and the host kept up without limit, and
// returns the rate at which the pipeline takes them in bytes per second.
func MeasureNICPeak(cfg Config, n int) (float64, error) {
	if n < 2 {
		return 0, fmt.Errorf("%s: MeasureNICPeak: %d packets (need at least 2)", cfg.Name, n)
	}
	m, err := New(cfg)
	if err != nil {
		return 0, err
	}
	jc := conduit.JobConfig{PEs: 2, PEsPerNode: 1, SegmentBytes: 1 << 20, Ordering: conduit.OrderRelaxed, MailboxSlots: 1, PeerBurst: 1}
	j, err := simnet.NewJob(cfg.Name, jc, m, 1)
	if err != nil {
		return 0, err
	}
	data := m.p.MaxPacketData
	nic := m.nics[1]
	t := &txn{kind: pktPut, ep: j.Endpoint(0), tep: j.Endpoint(1), src: m.nics[0], dst: nic,
		order: conduit.OrderRelaxed, size: int32(n * data), unit: 1, npkts: int32(n), pending: int32(n)}
	var first, last Time
	for i := range n {
		nic.rxTake(m.nics[0].request(t, i), nic.rx.free)
		if i == 0 {
			first = nic.rx.free
		}
		last = nic.rx.free
	}
	// The first packet also paid for the transaction; count from its end.
	return float64((n-1)*data) / (float64(last-first) * 1e-12), nil
}
