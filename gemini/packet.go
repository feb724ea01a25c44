package gemini

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
)

// pktKind is what a packet is.
type pktKind uint8

const (
	pktPut    pktKind = iota + 1 // request carrying data to write
	pktGet                       // request for data
	pktAMO                       // request for an atomic
	pktMsg                       // request carrying (part of) a short message
	pktAck                       // response to a put or message: 2 phits
	pktData                      // response carrying get data
	pktAMORsp                    // response to an AMO (old value when fetching)
)

var pktNames = [...]string{"", "put", "get", "amo", "msg", "ack", "data", "amo-rsp"}

func (k pktKind) String() string {
	if int(k) < len(pktNames) {
		return pktNames[k]
	}
	return fmt.Sprintf("pktKind(%d)", uint8(k))
}

func (k pktKind) isRequest() bool { return k <= pktMsg }

// packet is one network packet. Packets come from a free list.
type packet struct {
	kind     pktKind
	vc       uint8
	phits    int
	src, dst int // nodes
	dstG     int // destination Gemini
	order    conduit.OrderingMode
	adaptive bool
	hash     uint64
	failed   bool // carries an error status back

	t    *txn                 // the transaction it belongs to
	off  int64                // offset of its data in the transaction
	n    int                  // data bytes it stands for
	cnt  int                  // real packets it stands for: 1, or more for a coarse unit
	buf  *[MaxPacketData]byte // a put's data, held from the target NIC to the commit
	data []byte               // the data held (in buf, or its own for a coarse unit)
	old  uint64               // an AMO's old value

	hops int
	born Time
	via  *channel // the ejection tile it arrived by, until the NIC takes it
	next *packet  // free list and queues
}

func (m *machine) newPacket() *packet {
	p := m.freePkts
	if p == nil {
		return &packet{}
	}
	m.freePkts = p.next
	p.next = nil
	return p
}

func (m *machine) freePacket(p *packet) {
	if p.buf != nil {
		m.freeBufs = append(m.freeBufs, p.buf)
	}
	*p = packet{next: m.freePkts}
	m.freePkts = p
}

// holdData gives a put packet a buffer with its data.
func (m *machine) holdData(p *packet, data []byte) {
	if len(data) > MaxPacketData {
		p.data = append([]byte(nil), data...)
		return
	}
	if n := len(m.freeBufs); n > 0 {
		p.buf = m.freeBufs[n-1]
		m.freeBufs = m.freeBufs[:n-1]
	} else {
		p.buf = new([MaxPacketData]byte)
	}
	copy(p.buf[:], data)
	p.data = p.buf[:len(data)]
}

// requestPhits is the size of a request packet (G-PHIT; WP 3): a 7-phit
// header, the data, the end-of-packet phit.
func requestPhits(data int) int { return RequestHeaderPhits + dataPhits(data) + EOPPhits }

// getRequestPhits: a get request has no data: 8 phits.
func getRequestPhits() int { return RequestHeaderPhits + EOPPhits }

// dataResponsePhits: a response with data: 2-phit header, data, EOP (27
// phits for 64 bytes).
func dataResponsePhits(data int) int { return ResponseHeaderPhits + dataPhits(data) + EOPPhits }

// unitPhits is the phits of the real packets carrying n data bytes in a
// coarse unit, each of up to 64 bytes costing per(bytes).
func unitPhits(n int, per func(int) int) int {
	full, rem := n/MaxPacketData, n%MaxPacketData
	phits := full * per(MaxPacketData)
	if rem > 0 || n == 0 {
		phits += per(rem)
	}
	return phits
}

// packets is the number of real packets n data bytes take.
func packets(n int) int { return max(1, (n+MaxPacketData-1)/MaxPacketData) }

// ackPhits: a put's response, 3 phits on error.
func ackPhits(failed bool) int {
	if failed {
		return ErrorResponsePhits
	}
	return ResponseHeaderPhits
}

// pktQueue is a FIFO of packets linked through next.
type pktQueue struct {
	head, tail *packet
	n          int
	phits      int
}

func (q *pktQueue) push(p *packet) {
	p.next = nil
	if q.tail == nil {
		q.head = p
	} else {
		q.tail.next = p
	}
	q.tail = p
	q.n++
	q.phits += p.phits
}

func (q *pktQueue) pop() *packet {
	p := q.head
	q.head = p.next
	if q.head == nil {
		q.tail = nil
	}
	p.next = nil
	q.n--
	q.phits -= p.phits
	return p
}
