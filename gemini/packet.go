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

	t    *txn  // the transaction it belongs to
	off  int64 // remote offset of its data (requests), or offset in the transaction (responses)
	n    int   // data bytes it stands for
	data []byte
	old  uint64 // an AMO's old value

	hops int
	born Time
	next *packet // free list and queues
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
	*p = packet{next: m.freePkts}
	m.freePkts = p
}

// requestPhits is the size of a request packet (G-PHIT; WP 3): a 7-phit
// header, the data, the end-of-packet phit.
func requestPhits(data int) int { return RequestHeaderPhits + dataPhits(data) + EOPPhits }

// getRequestPhits: a get request has no data: 8 phits.
func getRequestPhits() int { return RequestHeaderPhits + EOPPhits }

// dataResponsePhits: a response with data: 2-phit header, data, EOP (27
// phits for 64 bytes).
func dataResponsePhits(data int) int { return ResponseHeaderPhits + dataPhits(data) + EOPPhits }

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
