package gemini

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

// NIC event codes. data is the *packet or *txn concerned.
const (
	nicRx       = iota + 1 // a packet arrives from an ejection tile
	nicRxDone              // the receive pipeline is done with a packet
	nicTx                  // a packet reaches the transmit pipeline
	nicInject              // a packet leaves for a processor tile
	nicCommit              // a write of a packet's data is visible
	nicSnapshot            // a get's data is read from memory
	nicReadDone            // a get's data goes back to the NIC
	nicAMO                 // the AMO unit performs an operation
	nicFMAIssue            // the CPU stores a transaction's next FMA packet
	nicBTEQueue            // a block-transfer descriptor reaches the NIC
	nicBTESend             // a block transfer makes its next packet
	nicComplete            // a transaction's completion entry is visible
	nicTimeout             // a transaction's time is up
)

// txn is a transaction: the packets of one post or message, which share a
// synchronization sequence identifier (SSID). Its packets commit at the
// target in whatever order they arrive; it completes when every response
// is back (WP 2.5).
type txn struct {
	kind     pktKind // of its requests
	bte      bool
	ep, tep  *simnet.Endpoint // source and target PEs
	src, dst *nic
	d        *conduit.PostDesc
	msg      *simnet.Message
	order    conduit.OrderingMode
	adaptive bool
	hash     uint64
	region   uint32
	roff     int64
	size     int
	npkts    int
	perPkt   Time // CPU time per FMA store

	next       int // next packet to make
	pending    int // packets whose completion has not come back
	orbHeld    int // its request packets holding ORB entries
	tCommitted int // packets committed at the target
	sStarted   bool
	tStarted   bool
	timing     bool // a timeout is scheduled
	reads      [BTEReadsOutstanding]Time
	status     conduit.Status
	detail     string
	done       bool
	born       Time
}

// packetBytes is the data of packet i.
func (t *txn) packetBytes(i int) (off, n int) {
	off = i * MaxPacketData
	return off, min(MaxPacketData, t.size-off)
}

func (t *txn) fail(s conduit.Status, detail string) {
	if t.status == conduit.StatusOK {
		t.status, t.detail = s, detail
	}
}

// nic is one node's NIC.
type nic struct {
	m      *machine
	node   int
	r      *router
	host   *host
	txFree Time
	rxFree Time

	orbUsed int
	orbWait pktQueue // request packets waiting for an ORB entry
	parked  []*txn   // block transfers waiting for ORB entries

	bteQ      []*txn
	bteActive int

	amoFree  Time
	amoCache map[amoKey]*amoEntry
	amoClock uint64
	amoFills [AMOFetchesOutstanding]Time
	amoN     int
}

type amoKey struct {
	rank   int
	region uint32
	off    int64
}

type amoEntry struct {
	ready Time
	used  uint64
}

// Fire dispatches the NIC's events.
func (n *nic) Fire(code int32, data any) {
	switch code {
	case nicRx:
		n.receive(data.(*packet))
	case nicRxDone:
		n.handle(data.(*packet))
	case nicTx:
		n.transmit(data.(*packet))
	case nicInject:
		leastLoaded(n.r.inject[:]).enqueue(data.(*packet))
	case nicCommit:
		n.commit(data.(*packet))
	case nicSnapshot:
		n.snapshot(data.(*packet))
	case nicReadDone:
		p := data.(*packet)
		n.m.k.At(n.host.toNIC(n.m.k.Now(), p.n+HTOverheadBytes), n, nicTx, p)
	case nicAMO:
		n.performAMO(data.(*packet))
	case nicFMAIssue:
		n.fmaIssue(data.(*txn))
	case nicBTEQueue:
		n.bteQ = append(n.bteQ, data.(*txn))
		n.bteStart()
	case nicBTESend:
		n.bteSend(data.(*txn))
	case nicComplete:
		n.finish(data.(*txn), conduit.StatusOK, "")
	case nicTimeout:
		t := data.(*txn)
		n.finish(t, conduit.StatusTimeout, fmt.Sprintf("no response from PE %d within %v (a lost route?)", t.tep.Rank(), TransactionTimeout))
	}
}

// request makes request packet i of t.
func (n *nic) request(t *txn, i int) *packet {
	p := n.m.newPacket()
	off, size := t.packetBytes(i)
	p.kind, p.vc, p.t = t.kind, VCRequest, t
	p.src, p.dst, p.dstG = n.node, t.dst.node, t.dst.r.id
	p.order, p.adaptive, p.hash = t.order, t.adaptive, t.hash
	p.off, p.n, p.born = int64(off), size, n.m.k.Now()
	switch t.kind {
	case pktGet:
		p.phits = getRequestPhits()
	case pktAMO:
		operands := 8
		if t.d.AMO == conduit.AMOCSwap {
			operands = 16
		}
		p.phits = requestPhits(operands)
	default:
		p.phits = requestPhits(size)
	}
	if n.m.opts.hashAddress {
		p.hash ^= mix64(uint64(t.roff) + uint64(off))
	}
	return p
}

// response turns a request packet into its response, headed back.
func (n *nic) response(p *packet, kind pktKind, phits int) {
	p.kind, p.vc, p.phits = kind, VCResponse, phits
	p.src, p.dst, p.dstG = n.node, p.t.src.node, p.t.src.r.id
	p.hops = 0
}

// fmaIssue is the CPU storing packet t.next into the FMA window: the store
// crosses the HT link (data or an 8-byte control word, plus 12 bytes)
// before the NIC turns it into a packet.
func (n *nic) fmaIssue(t *txn) {
	now := n.m.k.Now()
	p := n.request(t, t.next)
	bytes := 8 + HTOverheadBytes
	if t.kind == pktPut || t.kind == pktMsg {
		bytes = p.n + HTOverheadBytes
	}
	n.m.k.At(n.host.toNIC(now, bytes), n, nicTx, p)
	t.next++
	if t.next < t.npkts {
		n.m.k.At(now+t.perPkt, n, nicFMAIssue, t)
	}
}

// transmit puts a packet through the transmit pipeline: requests first
// take an ORB entry, and a transaction's first packet pays for its SSID.
func (n *nic) transmit(p *packet) {
	now := n.m.k.Now()
	t := p.t
	if p.kind.isRequest() {
		if n.orbUsed >= ORBEntries {
			n.orbWait.push(p)
			return
		}
		n.orbUsed++
		t.orbHeld++
		if !t.timing {
			t.timing = true
			n.m.k.At(now+TransactionTimeout, n, nicTimeout, t)
		}
	}
	occ := nicCycles(NICPacketCycles)
	if p.kind.isRequest() && !t.sStarted {
		t.sStarted = true
		occ += nicCycles(TransactionCycles)
	}
	start := max(now, n.txFree)
	n.txFree = start + occ
	n.m.stats.Packets++
	n.m.traceNIC(n, "tx "+p.kind.String(), start, n.txFree)
	n.m.k.At(n.txFree+nicCycles(NICLatencyCycles), n, nicInject, p)
}

// orbRelease frees an entry of t's and lets waiting packets go.
func (n *nic) orbRelease(t *txn) {
	if t.orbHeld == 0 {
		return
	}
	t.orbHeld--
	n.orbUsed--
	if n.orbWait.n > 0 {
		n.transmit(n.orbWait.pop())
	}
	if len(n.parked) > 0 && n.orbUsed < ORBEntries {
		t := n.parked[0]
		n.parked = n.parked[1:]
		n.m.k.At(n.m.k.Now(), n, nicBTESend, t)
	}
}

// receive puts an arriving packet through the receive pipeline; a
// transaction's first packet at the target pays for its RMT entry.
func (n *nic) receive(p *packet) {
	now := n.m.k.Now()
	occ := nicCycles(NICPacketCycles)
	if p.kind.isRequest() && !p.t.tStarted {
		p.t.tStarted = true
		occ += nicCycles(TransactionCycles)
	}
	start := max(now, n.rxFree)
	n.rxFree = start + occ
	n.m.traceNIC(n, "rx "+p.kind.String(), start, n.rxFree)
	n.m.k.At(n.rxFree+nicCycles(NICLatencyCycles), n, nicRxDone, p)
}

// handle acts on a received packet.
func (n *nic) handle(p *packet) {
	now := n.m.k.Now()
	t := p.t
	switch p.kind {
	case pktPut, pktMsg:
		failed := false
		if p.kind == pktPut {
			if err := t.tep.CheckMemory(t.region, t.roff+p.off, int64(p.n)); err != nil {
				failed = true
				t.fail(conduit.StatusError, err.Error())
			}
		}
		ack := n.m.newPacket()
		*ack = packet{t: t, order: t.order, adaptive: t.adaptive, hash: t.hash, failed: failed, born: now}
		n.response(ack, pktAck, ackPhits(failed))
		if failed {
			n.m.freePacket(p)
			n.transmit(ack)
			return
		}
		// A posted write: the NIC is done with it, and acknowledges it, once
		// the HT link has taken it; it becomes visible later.
		taken, visible := n.host.write(now, p.n, n.m.dieOf(t.tep.Rank()), t.order)
		n.rxFree = max(n.rxFree, taken)
		n.m.k.At(taken, n, nicTx, ack)
		n.m.hazards.writePending(t, p, taken, visible)
		n.m.k.At(visible, n, nicCommit, p)
	case pktGet:
		if err := t.tep.CheckMemory(t.region, t.roff+p.off, int64(p.n)); err != nil {
			t.fail(conduit.StatusError, err.Error())
			n.response(p, pktData, ErrorResponsePhits)
			p.failed = true
			n.transmit(p)
			return
		}
		snap, done := n.host.read(now, n.m.dieOf(t.tep.Rank()), t.order)
		n.m.k.At(snap, n, nicSnapshot, p)
		n.m.k.At(done, n, nicReadDone, p)
	case pktAMO:
		n.amo(p)
	case pktAck, pktAMORsp:
		n.orbRelease(t)
		if p.failed {
			t.fail(conduit.StatusError, "the target rejected the operation")
		}
		if p.kind == pktAMORsp && t.d.Fetch && !t.done {
			t.d.Result = p.old
		}
		n.m.freePacket(p)
		n.progress(t)
	case pktData:
		n.orbRelease(t)
		if p.failed || t.done {
			n.m.freePacket(p)
			n.progress(t)
			return
		}
		taken, visible := n.host.write(now, p.n, n.m.dieOf(t.ep.Rank()), t.order)
		n.rxFree = max(n.rxFree, taken)
		n.m.k.At(visible, n, nicCommit, p)
	}
}

// snapshot reads a get's data from the target's memory, now, straight into
// the requester's buffer: the buffer is the requester's to read only once
// the get completes, by which time the response has arrived.
func (n *nic) snapshot(p *packet) {
	t := p.t
	dst := t.d.Local[p.off : p.off+int64(p.n)]
	if err := t.tep.ReadMemory(t.region, t.roff+p.off, dst); err != nil {
		t.fail(conduit.StatusError, err.Error())
	}
	n.m.hazards.read(t, p, n.m.k.Now())
	n.response(p, pktData, dataResponsePhits(p.n))
}

// commit acts on a write that has become visible.
func (n *nic) commit(p *packet) {
	t := p.t
	switch p.kind {
	case pktPut, pktMsg:
		if p.kind == pktPut {
			if err := t.tep.WriteMemory(t.region, t.roff+p.off, t.d.Local[p.off:p.off+int64(p.n)]); err != nil {
				t.fail(conduit.StatusError, err.Error())
			}
		}
		n.m.hazards.writeVisible(t, p)
		t.tCommitted++
		if t.tCommitted == t.npkts {
			switch {
			case p.kind == pktMsg:
				t.tep.DeliverMessage(t.msg)
			case t.d.RemoteEvent:
				t.tep.RemoteEvent(t.ep.Rank(), t.d.RemoteData)
			}
		}
		n.m.freePacket(p)
	case pktData:
		n.m.freePacket(p)
		n.progress(t)
	}
}

// progress counts a completed packet of t and completes t with its last.
func (n *nic) progress(t *txn) {
	t.pending--
	if t.pending > 0 || t.done {
		return
	}
	if t.kind == pktMsg {
		n.finish(t, t.status, t.detail)
		return
	}
	// The completion entry is a posted write to the PE's completion queue,
	// ordered after the transaction's data.
	_, visible := n.host.write(n.m.k.Now(), CQEntryBytes, n.m.dieOf(t.ep.Rank()), conduit.OrderStrict)
	n.m.k.At(visible, n, nicComplete, t)
}

// finish ends a transaction, with a completion event for a post.
func (n *nic) finish(t *txn, s conduit.Status, detail string) {
	if t.done {
		return
	}
	t.done = true
	if t.status != conduit.StatusOK {
		s, detail = t.status, t.detail
	}
	for t.orbHeld > 0 {
		n.orbRelease(t)
	}
	if t.bte {
		n.bteActive--
		n.bteStart()
	}
	n.m.stats.Transactions++
	n.m.traceTxn(t, n.m.k.Now())
	if t.d != nil {
		t.ep.CompleteLocal(t.d, s, detail)
	}
}

// bteStart starts queued block transfers while a channel is free.
func (n *nic) bteStart() {
	for n.bteActive < BTEChannels && len(n.bteQ) > 0 {
		t := n.bteQ[0]
		n.bteQ[0] = nil
		n.bteQ = n.bteQ[1:]
		n.bteActive++
		n.m.k.At(n.m.k.Now(), n, nicBTESend, t)
	}
}

// bteSend makes a block transfer's next packet: a get request, or a put
// whose data the engine first reads from local memory, keeping
// BTEReadsOutstanding reads in flight.
func (n *nic) bteSend(t *txn) {
	if t.done || t.next >= t.npkts {
		return
	}
	if n.orbUsed >= ORBEntries {
		n.parked = append(n.parked, t)
		return
	}
	now := n.m.k.Now()
	p := n.request(t, t.next)
	slot := t.next % BTEReadsOutstanding
	t.next++
	next := now + nicCycles(NICPacketCycles)
	if t.kind == pktPut {
		start := max(now, t.reads[slot])
		_, done := n.host.read(start, n.m.dieOf(t.ep.Rank()), t.order)
		arrive := n.host.toNIC(done, p.n+HTOverheadBytes)
		t.reads[slot] = arrive
		n.m.k.At(arrive, n, nicTx, p)
		next = max(next, t.reads[t.next%BTEReadsOutstanding])
	} else {
		n.transmit(p)
	}
	if t.next < t.npkts {
		n.m.k.At(next, n, nicBTESend, t)
	}
}

// amo runs an AMO request through the AMO unit: a hit in the AMO cache
// takes AMOHitCycles, a miss AMOMissCycles and a read of host memory,
// which overlaps other operations up to AMOFetchesOutstanding (WP 2.4).
func (n *nic) amo(p *packet) {
	now := n.m.k.Now()
	t := p.t
	if err := t.tep.CheckMemory(t.region, t.roff, int64(t.d.Width)); err != nil {
		t.fail(conduit.StatusError, err.Error())
		p.failed = true
		n.response(p, pktAMORsp, ErrorResponsePhits)
		n.transmit(p)
		return
	}
	k := amoKey{t.tep.Rank(), t.region, t.roff &^ 7}
	start := max(now, n.amoFree)
	n.amoClock++
	e, hit := n.amoCache[k]
	var at Time
	if hit {
		n.amoFree = start + nicCycles(AMOHitCycles)
		at = max(n.amoFree, e.ready)
		n.m.stats.AMOHits++
	} else {
		slot := n.amoN % AMOFetchesOutstanding
		n.amoN++
		start = max(start, n.amoFills[slot])
		n.amoFree = start + nicCycles(AMOMissCycles)
		_, done := n.host.read(start, n.m.dieOf(t.tep.Rank()), t.order)
		n.amoFills[slot] = done
		at = max(n.amoFree, done)
		if len(n.amoCache) >= AMOCacheEntries {
			n.amoEvict()
		}
		e = &amoEntry{}
		n.amoCache[k] = e
		n.m.stats.AMOMisses++
	}
	e.ready = at
	e.used = n.amoClock
	n.m.k.At(at, n, nicAMO, p)
}

func (n *nic) amoEvict() {
	var victim amoKey
	var oldest uint64 = ^uint64(0)
	for k, e := range n.amoCache {
		if e.used < oldest || (e.used == oldest && lessKey(k, victim)) {
			victim, oldest = k, e.used
		}
	}
	delete(n.amoCache, victim)
}

func lessKey(a, b amoKey) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.region != b.region {
		return a.region < b.region
	}
	return a.off < b.off
}

// performAMO updates the word, writes it through to host memory, and
// answers.
func (n *nic) performAMO(p *packet) {
	t := p.t
	d := t.d
	old, err := t.tep.ApplyAMO(t.region, t.roff, d.AMO, d.Width, d.Operand, d.Compare)
	if err != nil {
		t.fail(conduit.StatusError, err.Error())
		p.failed = true
	}
	p.old = old
	n.host.write(n.m.k.Now(), int(d.Width), n.m.dieOf(t.tep.Rank()), t.order)
	phits := ackPhits(p.failed)
	if d.Fetch && !p.failed {
		phits = dataResponsePhits(int(d.Width))
	}
	n.response(p, pktAMORsp, phits)
	n.transmit(p)
}
