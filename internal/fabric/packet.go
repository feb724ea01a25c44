package fabric

import (
	"fmt"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// pktKind is what a packet is.
type pktKind uint8

const (
	pktPut    pktKind = iota + 1 // request carrying data to write
	pktGet                       // request for data
	pktAMO                       // request for an atomic
	pktMsg                       // request carrying (part of) a short message
	pktAck                       // response to a put or message
	pktData                      // response carrying get data
	pktAMORsp                    // response to an AMO (old value when fetching)
	pktCtl                       // control packet of a NIC unit, no transaction (control.go)
)

var pktNames = [...]string{"", "put", "get", "amo", "msg", "ack", "data", "amo-rsp", "ctl"}

func (k pktKind) String() string {
	if int(k) < len(pktNames) {
		return pktNames[k]
	}
	return fmt.Sprintf("pktKind(%d)", uint8(k))
}

func (k pktKind) isRequest() bool { return k <= pktMsg }

// Packet is one network packet, or a coarse unit: a run of consecutive
// packets of one transfer moving as one. Packets come from the Machine's
// free list and go back to it; a Routing may read and set the exported
// fields while the packet is at a router, and must not keep it.
type Packet struct {
	// Size is the packet's size in link units; a coarse unit's is the sum
	// of its packets'.
	Size int32
	// Src and Dst are the sending and the receiving nodes, and DstRouter
	// the router of Dst's NIC.
	Src, Dst, DstRouter int32
	// Hash is the transaction's routing hash (its source and destination
	// nodes, and with the hash_address option the remote address).
	Hash uint64
	// Hops counts the channels the packet has crossed since its NIC sent
	// it (a response starts again from 0).
	Hops int32
	// Route is the routing's own state for the packet (an intermediate
	// router, a phase); it is zero when a NIC sends the packet.
	Route [4]int32
	// VC is the virtual channel the packet is queued on and takes credits
	// of. A NIC sends requests on Params.RequestVC and responses on
	// Params.ResponseVC; the routing may change it at each hop.
	VC uint8
	// Adaptive says the packet's transaction is routed adaptively (the
	// routing option); otherwise deterministically.
	Adaptive bool

	// The unexported fields: the narrow ones first, following on from
	// the exported ones without a gap, then words and pointers, so that a
	// packet has no padding (a job may hold one for each post in flight).
	// Its counts are 32-bit, as its transaction's are (maxTxnBytes).
	kind       pktKind
	order      conduit.OrderingMode
	failed     bool // carries an error status back
	translated bool // its address has been translated at the target
	routedVC   uint8
	// ownBuf says data is (the start of) one of the machine's packet
	// buffers of MaxPacketData bytes, held from the target NIC to the
	// commit, which goes back to the machine when the packet does.
	ownBuf bool

	// inTile is the router tile it last arrived at; out, while it crosses
	// a tiled router, the output it goes to (Router.cross).
	inTile int16
	// pooled is the input-buffer pool space it holds at the far end of
	// the channel it last crossed (Params.SharedInputUnits).
	pooled int32

	off int32 // offset of its data in the transaction
	n   int32 // data bytes it stands for
	cnt int32 // real packets it stands for: 1, or more for a coarse unit
	// data and dataLen are the data it holds (bytes: a buffer of the
	// machine's, ownBuf, or its own for a coarse unit), its first byte
	// and its length rather than a slice.
	dataLen int32

	ctl  func(Time) // a control packet's receiver (control.go)
	t    *txn       // the transaction it belongs to
	data *byte
	old  uint64 // an AMO's old value

	born Time
	// hop is, while it crosses a router, the output it goes to
	// (Router.cross, until the router's event that ends the crossing),
	// and from its arrival at an ejection tile until its NIC takes it,
	// that tile: never both at once.
	hop *Channel
	// fault is what a packet of a machine whose links may fail keeps to
	// be lost or routed again (fault.go): nil on other machines, and kept
	// with the packet on the free list. routedVC (above) and
	// fault.route are its VC and Route before the routing decision that
	// queued it, restored to route it again when the link it was queued
	// for fails.
	fault *pktFault
	next  *Packet // free list and queues
}

// pktFault is the part of a packet that only a machine whose links may
// fail uses: apart, so that a packet of the others (of which a job may
// hold one for each post in flight) is 16 bytes smaller.
type pktFault struct {
	// wire is the link the packet is crossing, from its send until the
	// far router takes it.
	wire  *Channel
	route [4]int32
}

// bytes is the data p holds.
func (p *Packet) bytes() []byte {
	if p.data == nil {
		return nil
	}
	return unsafe.Slice(p.data, p.dataLen)
}

// hold makes b the data p holds.
func (p *Packet) hold(b []byte) { p.data, p.dataLen = unsafe.SliceData(b), int32(len(b)) }

// unroute restores p's Route and VC from before the routing decision
// that queued it (zero if it has not been routed since it was made).
func (p *Packet) unroute() {
	p.VC = p.routedVC
	if p.fault != nil {
		p.Route = p.fault.route
	} else {
		p.Route = [4]int32{}
	}
}

// faults is p's pktFault, made if it has none.
func (p *Packet) faults() *pktFault {
	if p.fault == nil {
		p.fault = new(pktFault)
	}
	return p.fault
}

// IsRequest says whether the packet is a request (put, get, AMO, message)
// rather than a response.
func (p *Packet) IsRequest() bool { return p.kind.isRequest() }

// packetSlab is how many packets newPacket makes at once when the free
// list is empty: 56 of 144 bytes fill the allocator's 8 KiB size class as
// its own span of single packets would. Made one at a time, every new
// high of the packets in flight, which a run of random gaps keeps
// reaching, was an allocation in the steady state.
const packetSlab = 56

func (m *Machine) newPacket() *Packet {
	p := m.freePkts
	if p == nil {
		slab := make([]Packet, packetSlab)
		for i := 1; i < len(slab)-1; i++ {
			slab[i].next = &slab[i+1]
		}
		m.freePkts = &slab[1]
		return &slab[0]
	}
	m.freePkts = p.next
	p.next = nil
	return p
}

func (m *Machine) freePacket(p *Packet) {
	if p.ownBuf {
		m.freeBufs.push(unsafe.Slice(p.data, m.p.MaxPacketData))
	}
	if p.t != nil {
		m.dropPacket(p.t)
	}
	f := p.fault
	if f != nil {
		*f = pktFault{}
	}
	*p = Packet{next: m.freePkts, fault: f}
	m.freePkts = p
}

// holdData gives a put packet a buffer with its data.
func (m *Machine) holdData(p *Packet, data []byte) {
	if len(data) > m.p.MaxPacketData {
		p.hold(append([]byte(nil), data...))
		return
	}
	if m.freeBufs.len() == 0 {
		m.newBufs()
	}
	buf := m.freeBufs.pop()
	copy(buf, data)
	p.hold(buf[:len(data)])
	p.ownBuf = true
}

// bufSlabBytes is how much packet buffer newBufs makes at once.
const bufSlabBytes = 8 << 10

// newBufs puts buffers of MaxPacketData bytes, cut from one block, on the
// free list: made one at a time, every new high of the put packets
// holding data was an allocation in the steady state.
func (m *Machine) newBufs() {
	size := m.p.MaxPacketData
	block := make([]byte, max(bufSlabBytes/size, 1)*size)
	for off := 0; off < len(block); off += size {
		m.freeBufs.push(block[off : off+size : off+size])
	}
}

// unitSize is the size of the real packets carrying n data bytes in a
// coarse unit, each of up to MaxPacketData bytes costing per(bytes).
func (m *Machine) unitSize(n int, per func(int) int) int {
	full, rem := n/m.p.MaxPacketData, n%m.p.MaxPacketData
	size := full * per(m.p.MaxPacketData)
	if rem > 0 || n == 0 {
		size += per(rem)
	}
	return size
}

// packets is the number of real packets n data bytes take.
func (m *Machine) packets(n int) int { return max(1, (n+m.p.MaxPacketData-1)/m.p.MaxPacketData) }

// pktQueue is a FIFO of packets linked through next, held by its tail
// alone: the tail's next is the head (a ring), so that a queue costs one
// pointer (a channel has one for each VC). It is empty when tail is nil.
type pktQueue struct {
	tail *Packet
}

// front is the packet at the head of the queue; nil if it is empty.
func (q *pktQueue) front() *Packet {
	if q.tail == nil {
		return nil
	}
	return q.tail.next
}

func (q *pktQueue) push(p *Packet) {
	if q.tail == nil {
		p.next = p
	} else {
		p.next = q.tail.next
		q.tail.next = p
	}
	q.tail = p
}

func (q *pktQueue) pop() *Packet {
	p := q.tail.next
	if p == q.tail {
		q.tail = nil
	} else {
		q.tail.next = p.next
	}
	p.next = nil
	return p
}
