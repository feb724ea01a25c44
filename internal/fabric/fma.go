package fabric

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

// FMA: the CPU stores each packet of a transaction into the NIC's FMA
// window, the store crossing the host interface before the NIC turns it
// into a request. Puts, gets, AMOs and short messages go this way unless
// a post asks for the block-transfer engine (bte.go). A NIC with launch
// (Params.LaunchBytes) lets one store open a short put or an AMO.

// postFMA issues a put or a get posted by ep by FMA: a put small enough
// for a launch is opened by one store; otherwise the CPU stores the
// packets one after another and is busy for all of them.
func (m *Machine) postFMA(t *txn, ep *simnet.Endpoint, d *conduit.PostDesc) {
	p := ep.Proc()
	if t.kind == pktPut && t.size <= m.p.LaunchBytes && m.launch(ep, d) {
		m.k.At(p.Clock(), t.src, nicFMAIssue, t)
		return
	}
	p.Advance(m.p.FMAPost)
	m.k.At(p.Clock()+t.perPkt, t.src, nicFMAIssue, t)
	p.Advance(Time(m.packets(t.size)) * t.perPkt)
}

// launch charges the CPU for an FMA launch of d, if the NIC has launch:
// one store that opens the operation, and another to the FMA descriptor
// when the target's memory domain is not the last one's.
func (m *Machine) launch(ep *simnet.Endpoint, d *conduit.PostDesc) bool {
	if m.p.LaunchBytes == 0 {
		return false
	}
	cost := m.p.LaunchPost
	mdh := uint64(d.Target)<<32 | uint64(d.Remote.ID) | 1<<63
	if m.lastMDH[ep.Rank()] != mdh {
		if m.lastMDH[ep.Rank()] != 0 {
			cost += m.p.MDHChange
		}
		m.lastMDH[ep.Rank()] = mdh
	}
	ep.Proc().Advance(cost)
	return true
}

// fmaIssue is the CPU storing packet t.next into the FMA window: the store
// crosses the host interface (data or a control word, plus the overhead)
// before the NIC turns it into a packet.
func (n *nic) fmaIssue(t *txn) {
	now := n.m.k.Now()
	p := n.request(t, t.next)
	over := n.m.p.HostOverheadBytes
	bytes := p.cnt * (n.m.p.FMAControlBytes + over)
	if t.kind == pktPut || t.kind == pktMsg {
		bytes = p.n + p.cnt*over
	}
	n.m.k.At(n.host.ToNIC(now, bytes), n, nicTx, p)
	t.next++
	if t.next < t.npkts {
		n.m.k.At(now+Time(p.cnt)*t.perPkt, n, nicFMAIssue, t)
	}
}
