package fabric

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// FMA: the CPU stores each packet of a transaction into the NIC's FMA
// window, the store crossing the host interface before the NIC turns it
// into a request: a put's data up to 64 bytes at a time, a get's 8-byte
// control word for each response of up to 64 bytes ([GEMINI-WP] 2.1,
// [ARIES-WP] Remote Memory Access). Puts, gets, AMOs and short messages go
// this way unless a post asks for the block-transfer engine (bte.go). A
// NIC with launch (Params.LaunchBytes) lets one store open a short put or
// an AMO.
//
// The core does the work, so it is busy for the whole transfer: it writes
// each store into one of its write-combining buffers
// (Params.FMAStoreBuffers), which frees only when the store has crossed
// the host interface to the NIC, and a store waits for a free buffer. The
// PE is blocked until its last store has left the core: it cannot compute
// meanwhile, and its next post starts after. One core's FMA rate is thus
// at most a buffer's worth of stores per host-interface crossing, and
// less when the node's other traffic slows the crossing; several cores of
// a node store in parallel up to the host interface's own limit. (The
// sfences a transaction needs, [ARIES-WP] Remote Memory Access, are in
// the CPU time of its post, FMAPost or LaunchPost.)

// postFMA issues a put or a get posted by ep by FMA: a put small enough
// for a launch is opened by one store; otherwise the core writes the
// descriptor (FMAPost) and then stores the packets (storeFMA).
func (m *Machine) postFMA(t *txn, ep *simnet.Endpoint, d *conduit.PostDesc) error {
	p := ep.Proc()
	if t.kind == pktPut && int(t.size) <= m.p.LaunchBytes && m.launch(ep, d) {
		m.k.At(p.Clock(), t.src, nicFMAIssue, t)
		return nil
	}
	p.Advance(m.p.FMAPost)
	return m.storeFMA(t, p)
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

// storeFMA has the PE's core store t's packets into the FMA window, the
// first one m.perPkt(t) after the PE's clock, and blocks the PE until the
// last has left the core. Without store buffers (FMAStoreBuffers 0)
// the core is charged m.perPkt(t) per packet and goes on at once.
func (m *Machine) storeFMA(t *txn, p *sim.Proc) error {
	if m.p.FMAStoreBuffers == 0 {
		m.k.At(p.Clock()+m.perPkt(t), t.src, nicFMAIssue, t)
		p.Advance(Time(t.npkts*max(t.unit, 1)) * m.perPkt(t))
		return nil
	}
	t.storing = true
	m.k.At(m.storeBuffer(t.ep.Rank(), p.Clock()+m.perPkt(t)), t.src, nicFMAIssue, t)
	woken := false
	for t.storing {
		if err := p.Block("its FMA stores"); err != nil {
			return err
		}
		woken = woken || t.storing
	}
	if woken {
		// Something else woke the PE meanwhile (a message, a completion):
		// keep that news for its next wait.
		p.Wake()
	}
	return nil
}

// storeBuffer is when a store of rank's core, written at at, can leave:
// when its next write-combining buffer is free.
func (m *Machine) storeBuffer(rank int, at Time) Time {
	b := m.p.FMAStoreBuffers
	return max(at, m.wcFree[rank*b+int(m.wcNext[rank])%b])
}

// storeSent records that rank's core's next buffer holds a store until
// arrive, when the store reaches the NIC.
func (m *Machine) storeSent(rank int, arrive Time) {
	b := m.p.FMAStoreBuffers
	m.wcFree[rank*b+int(m.wcNext[rank])%b] = arrive
	m.wcNext[rank]++
}

// fmaIssue is the CPU's store of packet t.next leaving the core: it
// crosses the host interface (data or a control word, plus the overhead)
// before the NIC turns it into a packet. The next store leaves when the
// core has written it and a buffer is free; after the last, the PE goes
// on (fmaStored).
func (n *nic) fmaIssue(t *txn) {
	m := n.m
	now := m.k.Now()
	p := n.request(t, int(t.next))
	over := m.p.HostOverheadBytes
	bytes := int(p.cnt) * (m.p.FMAControlBytes + over)
	if t.kind == pktPut || t.kind == pktMsg {
		bytes = int(p.n) + int(p.cnt)*over
	}
	arrive := n.host.ToNIC(now, bytes)
	m.k.At(arrive, n, nicTx, p)
	t.next++
	if !t.storing {
		if t.next < t.npkts {
			m.k.At(now+Time(p.cnt)*m.perPkt(t), n, nicFMAIssue, t)
		}
		return
	}
	rank := t.ep.Rank()
	m.storeSent(rank, arrive)
	if t.next < t.npkts {
		m.k.At(m.storeBuffer(rank, now+Time(p.cnt)*m.perPkt(t)), n, nicFMAIssue, t)
		return
	}
	n.fmaStored(t)
}

// fmaStored lets the PE whose last store of t has left the core go on.
func (n *nic) fmaStored(t *txn) {
	t.storing = false
	t.ep.Proc().Wake()
}
