package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/sim"
)

// Control packets, by which a backend's own NIC units (the Aries
// collective engine) talk to each other across the network.
//
// A control packet is a network packet that belongs to no transaction: a
// NIC unit sends it to another node's NIC, where the receive pipeline
// hands it to the unit. It goes the way every packet goes, through the
// source NIC's transmit pipeline, a processor tile, the routers and links
// the routing chooses, an ejection tile and the destination NIC's receive
// pipeline, taking its time and its share of each. It travels on the
// response virtual channel (Params.ResponseVC, and whatever the routing
// moves it to): it never waits for an ORB entry, and a backlog of requests
// cannot hold it up, nor it them, so it cannot deadlock the network. It
// gets no response and no retransmission; a packet the routing drops
// (Stats.Dropped: a failed link on a deterministic route) or one lost on
// the wire of a link that fails (Stats.Lost, fault.go) ends the job with
// an error that says so, as nothing would ever complete what waits for
// it.

// SendControl sends a control packet of size link units from node src's
// NIC to node dst's: it enters src's transmit pipeline at at (not before
// the kernel's now), and deliver is called, inside an event, when dst's
// receive pipeline is done with it, with that time. src may be dst (the
// packet goes out to the router and back).
func (m *Machine) SendControl(at Time, src, dst, size int, deliver func(at Time)) error {
	switch {
	case m.job == nil:
		return fmt.Errorf("%s: SendControl before the job started", m.name)
	case src < 0 || src >= len(m.nics) || dst < 0 || dst >= len(m.nics):
		return fmt.Errorf("%s: SendControl from node %d to node %d: nodes are 0..%d", m.name, src, dst, len(m.nics)-1)
	case size < 1 || size > m.p.InputBufferUnits:
		return fmt.Errorf("%s: SendControl of %d link units: 1..%d", m.name, size, m.p.InputBufferUnits)
	case at < m.k.Now():
		return fmt.Errorf("%s: SendControl at %v, before now %v", m.name, at, m.k.Now())
	case deliver == nil:
		return fmt.Errorf("%s: SendControl without a deliver function", m.name)
	}
	s, d := m.nics[src], m.nics[dst]
	p := m.newPacket()
	p.kind, p.VC, p.Size, p.cnt = pktCtl, m.p.ResponseVC, int32(size), 1
	p.Src, p.Dst, p.DstRouter = int32(src), int32(dst), int32(d.r.ID)
	p.Adaptive = m.opts.Routing != RouteDeterministic
	p.Hash = sim.Mix64(uint64(src)<<32 | uint64(dst))
	p.born = at
	p.ctl = deliver
	m.k.At(at, s, nicTx, p)
	return nil
}

// control hands a control packet to its receiver.
func (n *nic) control(p *Packet) {
	deliver := p.ctl
	n.m.freePacket(p)
	deliver(n.m.k.Now())
}
