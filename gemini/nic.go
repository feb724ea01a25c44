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
	nicRxServe             // the receive pipeline takes its next packet
	nicTxServe             // the transmit pipeline takes its next packet
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
	d        *conduit.PostDesc // the runtime's until the transaction completes
	msg      *simnet.Message
	msgData  []byte // its header and payload
	// What the target needs after the source has completed (a put is
	// acknowledged before it is visible).
	remoteEvent bool
	remoteData  uint64
	// An AMO's operation, captured at the post.
	amo              conduit.AMOOp
	width            uint8
	fetch            bool
	operand, compare uint64
	order            conduit.OrderingMode
	adaptive         bool
	hash             uint64
	region           uint32
	roff             int64
	size             int
	npkts            int  // packets, or coarse units
	unit             int  // real packets per unit: 1, or more for a coarse transfer
	perPkt           Time // CPU time per FMA store (per real packet)

	next       int // next packet to make
	pending    int // packets whose completion has not come back
	orbHeld    int // its request packets holding ORB entries
	tCommitted int // packets committed at the target
	sStarted   bool
	tStarted   bool
	timing     bool // a timeout is scheduled
	alive      Time // its last request sent or response received
	reads      [BTEReadsOutstanding]Time
	status     conduit.Status
	detail     string
	done       bool
	born       Time
}

// msgBytes is the part of a message a packet carries.
func (t *txn) msgBytes(p *packet) []byte {
	return t.msgData[p.off:min(p.off+int64(p.n), int64(len(t.msgData)))]
}

// packetBytes is the data of packet (or unit) i.
func (t *txn) packetBytes(i int) (off, n int) {
	u := max(t.unit, 1) * MaxPacketData
	off = i * u
	return off, min(u, t.size-off)
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
	// rxBlock[vc]: a write waiting for the HT link holds up the packets of
	// its virtual channel behind it until then; the other channel's
	// packets pass (acknowledgements are not stuck behind a backlog of
	// incoming writes).
	rxBlock   [2]Time
	rxQ       [2]pktQueue // arrived packets waiting for the pipeline
	rxRR      uint8
	rxPending bool        // an rxServe is scheduled
	txQ       [2]pktQueue // packets waiting for the transmit pipeline
	txRR      uint8
	txPending bool // a txServe is scheduled

	orbUsed int
	orbWait pktQueue // request packets waiting for an ORB entry

	bteQ      []*txn // waiting for a channel
	bteActive int    // transfers holding a channel
	bteRun    []*txn // transfers with packets still to make
	bteCur    int    // whose turn it is
	bteBurst  int    // packets made in this turn
	bteBusy   bool   // the engine's next step is scheduled
	bteNext   Time   // the engine can make a packet from then
	bteParked bool   // waiting for an ORB entry

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
	case nicRxServe:
		n.rxServe()
	case nicTxServe:
		n.txServe()
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
	case nicAMO:
		n.performAMO(data.(*packet))
	case nicFMAIssue:
		n.fmaIssue(data.(*txn))
	case nicBTEQueue:
		n.bteQ = append(n.bteQ, data.(*txn))
		n.bteStart()
	case nicBTESend:
		n.bteSend()
	case nicComplete:
		n.finish(data.(*txn), conduit.StatusOK, "")
	case nicTimeout:
		t := data.(*txn)
		if t.done {
			return
		}
		if due := t.alive + TransactionTimeout; due > n.m.k.Now() {
			// Still making progress: the time counts from its last sign
			// of life.
			n.m.k.At(due, n, nicTimeout, t)
			return
		}
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
	p.cnt = packets(size)
	switch t.kind {
	case pktGet:
		p.phits = p.cnt * getRequestPhits()
	case pktAMO:
		operands := 8
		if t.amo == conduit.AMOCSwap {
			operands = 16
		}
		p.phits, p.cnt = requestPhits(operands), 1
	default:
		p.phits = unitPhits(size, requestPhits)
	}
	if n.m.opts.hashAddress {
		p.hash ^= mix64(uint64(t.roff) + uint64(off))
	}
	return p
}

// response turns a request packet into its response, headed back; phits
// is the size of one real response, multiplied for a coarse unit.
func (n *nic) response(p *packet, kind pktKind, phits int) {
	if kind == pktData && !p.failed {
		phits = unitPhits(p.n, dataResponsePhits)
	} else {
		phits *= p.cnt
	}
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
	bytes := p.cnt * (8 + HTOverheadBytes)
	if t.kind == pktPut || t.kind == pktMsg {
		bytes = p.n + p.cnt*HTOverheadBytes
	}
	n.m.k.At(n.host.toNIC(now, bytes), n, nicTx, p)
	t.next++
	if t.next < t.npkts {
		n.m.k.At(now+Time(p.cnt)*t.perPkt, n, nicFMAIssue, t)
	}
}

// transmit puts a packet through the transmit pipeline: requests first
// take an ORB entry, and a transaction's first packet pays for its SSID.
func (n *nic) transmit(p *packet) {
	now := n.m.k.Now()
	t := p.t
	if p.kind.isRequest() {
		if n.orbUsed+p.cnt > ORBEntries {
			n.orbWait.push(p)
			return
		}
		n.orbUsed += p.cnt
		t.orbHeld += p.cnt
		t.alive = now
		if !t.timing {
			t.timing = true
			n.m.k.At(now+TransactionTimeout, n, nicTimeout, t)
		}
	}
	n.txQ[p.vc].push(p)
	if !n.txPending && now >= n.txFree {
		n.txServe()
		return
	}
	n.txKick(now)
}

// txKick makes sure the transmit pipeline looks at its queues at t or when
// it is next free.
func (n *nic) txKick(t Time) {
	if n.txPending {
		return
	}
	n.txPending = true
	n.m.k.At(max(t, n.txFree), n, nicTxServe, nil)
}

// txServe takes the next packet into the transmit pipeline, alternating
// between requests and responses (a backlog of requests does not hold up
// the responses the node owes); a transaction's first request pays for
// its SSID.
func (n *nic) txServe() {
	n.txPending = false
	now := n.m.k.Now()
	if now < n.txFree {
		n.txKick(n.txFree)
		return
	}
	vc := int(n.txRR) % 2
	if n.txQ[vc].n == 0 {
		vc = 1 - vc
	}
	if n.txQ[vc].n == 0 {
		return
	}
	p := n.txQ[vc].pop()
	n.txRR = uint8(vc + 1)
	t := p.t
	occ := pipelineTime(p)
	if p.kind.isRequest() && !t.sStarted {
		t.sStarted = true
		occ += nicCycles(SSIDCycles)
	}
	n.txFree = now + occ
	n.m.stats.Packets++
	if n.m.trace != nil {
		n.m.traceNIC(n, "tx "+p.kind.String(), now, n.txFree)
	}
	n.m.k.At(n.txFree+nicCycles(NICLatencyCycles), n, nicInject, p)
	if n.txQ[0].n+n.txQ[1].n > 0 {
		n.txKick(n.txFree)
	}
}

// pipelineTime is how long a packet (or coarse unit) occupies the NIC's
// transmit or receive pipeline: NICPacketCycles for a full 64-byte write
// (32 phits), less for smaller packets in proportion to their phits, and
// at least NICMinPacketCycles for each.
func pipelineTime(p *packet) Time {
	occ := nicCycles(NICPacketCycles*int64(p.phits)) / Time(requestPhits(MaxPacketData))
	return max(occ, nicCycles(NICMinPacketCycles*int64(p.cnt)))
}

// orbRelease frees cnt entries of t's and lets waiting packets go.
func (n *nic) orbRelease(t *txn, cnt int) {
	cnt = min(cnt, t.orbHeld)
	if cnt == 0 {
		return
	}
	t.orbHeld -= cnt
	n.orbUsed -= cnt
	for n.orbWait.n > 0 && n.orbUsed+n.orbWait.head.cnt <= ORBEntries {
		n.transmit(n.orbWait.pop())
	}
	if n.bteParked && n.orbUsed < ORBEntries {
		n.bteParked = false
		n.bteKick()
	}
}

// receive queues an arriving packet for the receive pipeline, by virtual
// channel: it holds its processor tile's buffer space until the pipeline
// takes it.
func (n *nic) receive(p *packet) {
	n.rxQ[p.vc].push(p)
	if now := n.m.k.Now(); !n.rxPending && now >= n.rxFree {
		n.rxServe()
		return
	}
	n.rxKick(n.m.k.Now())
}

// rxKick makes sure the receive pipeline looks at its queues at t or when
// it is next free.
func (n *nic) rxKick(t Time) {
	if n.rxPending {
		return
	}
	n.rxPending = true
	n.m.k.At(max(t, n.rxFree), n, nicRxServe, nil)
}

// rxServe takes the next packet into the receive pipeline, alternating
// between the virtual channels; a channel whose last write still waits
// for the HT link is passed over until then. A transaction's first packet
// at the target pays for its RMT entry.
func (n *nic) rxServe() {
	n.rxPending = false
	now := n.m.k.Now()
	if now < n.rxFree {
		n.rxKick(n.rxFree)
		return
	}
	var p *packet
	wake := Time(-1)
	for i := range 2 {
		vc := (int(n.rxRR) + i) % 2
		if n.rxQ[vc].n == 0 {
			continue
		}
		if n.rxBlock[vc] > now {
			if wake < 0 || n.rxBlock[vc] < wake {
				wake = n.rxBlock[vc]
			}
			continue
		}
		p = n.rxQ[vc].pop()
		n.rxRR = uint8(vc + 1)
		break
	}
	if p == nil {
		if wake >= 0 {
			n.rxKick(wake)
		}
		return
	}
	if c := p.via; c != nil {
		p.via = nil
		c.giveBack(p)
	}
	n.rxTake(p, now)
	n.m.k.At(n.rxFree+nicCycles(NICLatencyCycles), n, nicRxDone, p)
	if n.rxQ[0].n+n.rxQ[1].n > 0 {
		n.rxKick(n.rxFree)
	}
}

// rxTake occupies the receive pipeline with p from now.
func (n *nic) rxTake(p *packet, now Time) {
	occ := pipelineTime(p)
	if p.kind.isRequest() && !p.t.tStarted {
		p.t.tStarted = true
		occ += nicCycles(RMTCycles)
	}
	n.rxFree = now + occ
	if n.m.trace != nil {
		n.m.traceNIC(n, "rx "+p.kind.String(), now, n.rxFree)
	}
}

// handle acts on a received packet.
func (n *nic) handle(p *packet) {
	now := n.m.k.Now()
	t := p.t
	switch p.kind {
	case pktPut, pktMsg:
		if t.done {
			// Its source gave up on it (timed out): nothing more of it
			// is written.
			n.m.freePacket(p)
			return
		}
		failed := false
		if p.kind == pktPut {
			if err := t.tep.CheckMemory(t.region, t.roff+p.off, int64(p.n)); err != nil {
				failed = true
				t.fail(conduit.StatusError, err.Error())
			}
		}
		ack := n.m.newPacket()
		*ack = packet{t: t, order: t.order, adaptive: t.adaptive, hash: t.hash, failed: failed, born: now, cnt: p.cnt}
		n.response(ack, pktAck, ackPhits(failed))
		if failed {
			n.m.freePacket(p)
			n.transmit(ack)
			return
		}
		// The packet brought its data; the NIC holds it until the write
		// commits. A posted write: the NIC is done with it, and
		// acknowledges it, once the HT link has taken it; it becomes
		// visible later.
		if p.kind == pktPut {
			n.m.holdData(p, t.d.Local[p.off:p.off+int64(p.n)])
		} else {
			n.m.holdData(p, t.msgBytes(p))
		}
		taken, visible := n.host.write(now, p.n, p.cnt, n.m.dieOf(t.tep.Rank()), t.order)
		n.rxBlock[p.vc] = max(n.rxBlock[p.vc], taken)
		n.m.k.At(taken, n, nicTx, ack)
		n.m.k.At(visible, n, nicCommit, p)
	case pktGet:
		if err := t.tep.CheckMemory(t.region, t.roff+p.off, int64(p.n)); err != nil {
			t.fail(conduit.StatusError, err.Error())
			n.response(p, pktData, ErrorResponsePhits)
			p.failed = true
			n.transmit(p)
			return
		}
		snap, done := n.host.read(now, p.cnt, n.m.dieOf(t.tep.Rank()), t.order)
		p.born = done // when the data leaves for the NIC
		n.m.k.At(snap, n, nicSnapshot, p)
	case pktAMO:
		n.amo(p)
	case pktAck, pktAMORsp:
		n.orbRelease(t, p.cnt)
		if p.failed {
			t.fail(conduit.StatusError, "the target rejected the operation")
		}
		if p.kind == pktAMORsp && t.fetch && !t.done {
			t.d.Result = p.old
		}
		n.m.freePacket(p)
		n.progress(t)
	case pktData:
		n.orbRelease(t, p.cnt)
		if p.failed || t.done {
			n.m.freePacket(p)
			n.progress(t)
			return
		}
		taken, visible := n.host.write(now, p.n, p.cnt, n.m.dieOf(t.ep.Rank()), t.order)
		n.rxBlock[p.vc] = max(n.rxBlock[p.vc], taken)
		n.m.k.At(visible, n, nicCommit, p)
	}
}

// snapshot reads a get's data from the target's memory, now, straight into
// the requester's buffer: the buffer is the requester's to read only once
// the get completes, by which time the response has arrived.
func (n *nic) snapshot(p *packet) {
	t := p.t
	if t.done {
		// Timed out: the runtime has its descriptor back.
		n.response(p, pktData, dataResponsePhits(p.n))
		n.m.k.At(n.host.toNIC(p.born, p.n+p.cnt*HTOverheadBytes), n, nicTx, p)
		return
	}
	dst := t.d.Local[p.off : p.off+int64(p.n)]
	if err := t.tep.ReadMemory(t.region, t.roff+p.off, dst); err != nil {
		t.fail(conduit.StatusError, err.Error())
	}
	n.m.hazards.read(t, p, n.m.k.Now())
	n.response(p, pktData, dataResponsePhits(p.n))
	// The data reaches the HT link when the read completes.
	n.m.k.At(n.host.toNIC(p.born, p.n+p.cnt*HTOverheadBytes), n, nicTx, p)
}

// commit acts on a write that has become visible.
func (n *nic) commit(p *packet) {
	t := p.t
	switch p.kind {
	case pktPut, pktMsg:
		if p.kind == pktPut {
			if err := t.tep.WriteMemory(t.region, t.roff+p.off, p.data); err != nil {
				t.fail(conduit.StatusError, err.Error())
			}
		}
		n.m.hazards.writeVisible(t, p)
		t.tCommitted++
		if t.tCommitted == t.npkts {
			switch {
			case p.kind == pktMsg:
				t.tep.DeliverMessage(t.msg)
			case t.remoteEvent:
				t.tep.RemoteEvent(t.ep.Rank(), t.remoteData)
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
	t.alive = n.m.k.Now()
	t.pending--
	if t.pending > 0 || t.done {
		return
	}
	if t.kind == pktMsg {
		n.finish(t, t.status, t.detail)
		return
	}
	// The completion entry is a posted write to the PE's completion queue,
	// made once the transaction's data is visible, in the transaction's
	// ordering mode (under strict ordering it keeps its place among the
	// node's writes like any other).
	_, visible := n.host.write(n.m.k.Now(), CQEntryBytes, 1, n.m.dieOf(t.ep.Rank()), t.order)
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
	n.orbRelease(t, t.orbHeld)
	if t.bte {
		n.bteActive--
		n.bteStart()
	}
	n.m.stats.Transactions++
	n.m.hazards.ended(t)
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
		n.m.stats.BTEMaxActive = max(n.m.stats.BTEMaxActive, int64(n.bteActive))
		n.bteRun = append(n.bteRun, t)
	}
	n.bteKick()
}

// bteKick makes sure the block-transfer engine runs if it has work.
func (n *nic) bteKick() {
	if n.bteBusy || len(n.bteRun) == 0 {
		return
	}
	n.bteBusy = true
	n.m.k.At(max(n.m.k.Now(), n.bteNext), n, nicBTESend, nil)
}

// bteSend is the block-transfer engine making its next packet. It serves
// the transfers that hold a channel in turn, BTEBurstPackets packets at a
// time: a get request, or a put whose data it first reads from local
// memory, keeping at most BTEReadsOutstanding reads in flight for each
// transfer. A put whose reads are all in flight is passed over until one
// returns; when every transfer waits so, the engine sleeps until the first
// read is back.
func (n *nic) bteSend() {
	n.bteBusy = false
	now := n.m.k.Now()
	wake := Time(-1)
	for tried := 0; len(n.bteRun) > 0 && tried < len(n.bteRun); {
		i := n.bteCur % len(n.bteRun)
		t := n.bteRun[i]
		if t.done || t.next >= t.npkts {
			// Every packet made: the transfer keeps its channel until it
			// completes, but the engine has nothing more to do for it.
			n.bteRun = append(n.bteRun[:i], n.bteRun[i+1:]...)
			n.bteBurst = 0
			continue
		}
		slot := t.next % BTEReadsOutstanding
		if t.kind == pktPut && t.reads[slot] > now {
			if wake < 0 || t.reads[slot] < wake {
				wake = t.reads[slot]
			}
			n.bteCur++
			n.bteBurst = 0
			tried++
			continue
		}
		if n.orbUsed+max(t.unit, 1) > ORBEntries {
			n.bteParked = true
			return
		}
		p := n.request(t, t.next)
		t.next++
		if t.kind == pktPut {
			_, done := n.host.read(now, p.cnt, n.m.dieOf(t.ep.Rank()), t.order)
			arrive := n.host.toNIC(done, p.n+p.cnt*HTOverheadBytes)
			t.reads[slot] = arrive
			n.m.k.At(arrive, n, nicTx, p)
		} else {
			n.transmit(p)
		}
		if n.bteBurst++; n.bteBurst >= BTEBurstPackets {
			n.bteBurst = 0
			n.bteCur++
		}
		n.bteNext = now + nicCycles(NICPacketCycles*int64(p.cnt))
		n.bteKick()
		return
	}
	if wake >= 0 {
		n.bteNext = max(n.bteNext, wake)
		n.bteKick()
	}
}

// amo runs an AMO request through the AMO unit: a hit in the AMO cache
// takes AMOHitCycles, a miss AMOMissCycles and a read of host memory,
// which overlaps other operations up to AMOFetchesOutstanding (WP 2.4).
func (n *nic) amo(p *packet) {
	now := n.m.k.Now()
	t := p.t
	if err := t.tep.CheckMemory(t.region, t.roff, int64(t.width)); err != nil {
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
		_, done := n.host.read(start, 1, n.m.dieOf(t.tep.Rank()), t.order)
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
	old, err := t.tep.ApplyAMO(t.region, t.roff, t.amo, t.width, t.operand, t.compare)
	if err != nil {
		t.fail(conduit.StatusError, err.Error())
		p.failed = true
	}
	p.old = old
	n.host.write(n.m.k.Now(), int(t.width), 1, n.m.dieOf(t.tep.Rank()), t.order)
	phits := ackPhits(p.failed)
	if t.fetch && !p.failed {
		phits = dataResponsePhits(int(t.width))
	}
	n.response(p, pktAMORsp, phits)
	n.transmit(p)
}
