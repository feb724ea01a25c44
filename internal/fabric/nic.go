package fabric

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

// NIC event codes. data is the *Packet or *txn concerned.
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
// synchronization sequence identifier. Its packets commit at the target in
// whatever order they arrive; it completes when every response is back.
type txn struct {
	kind     pktKind // of its requests
	bte      bool
	ep, tep  *simnet.Endpoint // source and target PEs
	src, dst *nic
	// srcLoc and dstLoc are where the source's and the target's memory
	// are in their nodes (Config.Location).
	srcLoc, dstLoc int
	d              *conduit.PostDesc // the runtime's until the transaction completes
	msg            *simnet.Message
	msgData        []byte // its header and payload
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
	timing     bool // it is on its source NIC's timer list
	alive      Time // its last request sent or response received
	// checkAt is when its timer is next looked at; tPrev and tNext link
	// the source NIC's timer list, ordered by checkAt.
	checkAt      Time
	tPrev, tNext *txn
	reads        []Time // a block transfer's reads in flight, by slot: when each is back
	status       conduit.Status
	detail       string
	done         bool
	born         Time
	// id is its identity (conduit.PostDesc.TxnID: a retry's is its first
	// attempt's); attempt counts a short message's resends.
	id      uint64
	attempt int
	resent  bool // a short message sent again as a new transaction
}

// msgBytes is the part of a message a packet carries.
func (t *txn) msgBytes(p *Packet) []byte {
	return t.msgData[p.off:min(p.off+int64(p.n), int64(len(t.msgData)))]
}

// packetBytes is the data of t's packet (or unit) i.
func (m *Machine) packetBytes(t *txn, i int) (off, n int) {
	u := max(t.unit, 1) * m.p.MaxPacketData
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
	m    *Machine
	node int
	r    *Router
	host Host
	// inject and eject are the processor tiles it uses (Params.TilesPerGroup).
	inject, eject []*Channel
	tx            pipeline // served by nicTxServe
	// rx is served by nicRxServe. Its block[vc]: a write waiting for the
	// host interface holds up the packets of its virtual channel behind it
	// until then; the other channels' packets pass (acknowledgements are
	// not stuck behind a backlog of incoming writes).
	rx pipeline

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

	// amoDone and amoLog are the record of applied AMOs (amo.go), kept
	// on machines whose links may fail.
	amoDone map[amoRecordKey]amoOutcome
	amoLog  []amoLogEntry
	amoHead int // amoLog's first entry not yet expired

	// timers lists the transactions whose requests have left and that
	// have not completed, by when their timeout is next looked at; one
	// event (timerAt, when timerSet) stands for the earliest. A completed
	// transaction leaves the list at once, so nothing keeps it alive for
	// the timeout's span.
	timers, timersTail *txn
	timerAt            Time
	timerSet           bool

	amoFree  Time
	amoCache map[amoKey]*amoEntry
	amoClock uint64
	amoFills []Time // by slot: when each fill in flight is back
	amoN     int
}

// newNIC makes node's NIC, the k-th attached to router r.
func (m *Machine) newNIC(node int, r *Router, k int, h Host) *nic {
	n := &nic{m: m, node: node, r: r, host: h, inject: r.inject, eject: r.eject,
		amoCache: make(map[amoKey]*amoEntry), amoFills: make([]Time, m.p.AMOFetchesOutstanding)}
	if per := m.p.TilesPerGroup; per > 0 {
		first := (k / m.p.NICsPerTileGroup * per) % len(r.inject)
		n.inject = r.inject[first : first+per]
		n.eject = r.eject[first : first+per]
	}
	return n
}

// Fire dispatches the NIC's events.
func (n *nic) Fire(code int32, data any) {
	switch code {
	case nicRx:
		n.receive(data.(*Packet))
	case nicRxServe:
		n.rxServe()
	case nicTxServe:
		n.txServe()
	case nicRxDone:
		n.handle(data.(*Packet))
	case nicTx:
		n.transmit(data.(*Packet))
	case nicInject:
		leastLoaded(n.inject).enqueue(data.(*Packet))
	case nicCommit:
		n.commit(data.(*Packet))
	case nicSnapshot:
		n.snapshot(data.(*Packet))
	case nicAMO:
		n.performAMO(data.(*Packet))
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
		n.timeouts()
	}
}

// arm puts t on the timer list, to be looked at when at comes.
func (n *nic) arm(t *txn, at Time) {
	t.timing, t.checkAt = true, at
	// Keep the list ordered: a transaction is almost always armed later
	// than those before it, so the search from the tail is short.
	after := n.timersTail
	for after != nil && after.checkAt > at {
		after = after.tPrev
	}
	t.tPrev = after
	if after == nil {
		t.tNext, n.timers = n.timers, t
	} else {
		t.tNext, after.tNext = after.tNext, t
	}
	if t.tNext == nil {
		n.timersTail = t
	} else {
		t.tNext.tPrev = t
	}
	n.setTimer()
}

// disarm takes t off the timer list.
func (n *nic) disarm(t *txn) {
	if !t.timing {
		return
	}
	if t.tPrev == nil {
		n.timers = t.tNext
	} else {
		t.tPrev.tNext = t.tNext
	}
	if t.tNext == nil {
		n.timersTail = t.tPrev
	} else {
		t.tNext.tPrev = t.tPrev
	}
	t.tPrev, t.tNext, t.timing = nil, nil, false
}

// setTimer makes sure an event comes no later than the first timer's
// check.
func (n *nic) setTimer() {
	if n.timers == nil || (n.timerSet && n.timerAt <= n.timers.checkAt) {
		return
	}
	n.timerAt, n.timerSet = n.timers.checkAt, true
	n.m.k.At(n.timerAt, n, nicTimeout, nil)
}

// timeouts looks at the timers that are due: a transaction that made
// progress within the timeout is looked at again later; one that did not
// times out.
func (n *nic) timeouts() {
	m := n.m
	now := m.k.Now()
	if n.timerAt <= now {
		n.timerSet = false // the event for timerAt is this one, or has been
	}
	timeout := m.p.TransactionTimeout
	for t := n.timers; t != nil && t.checkAt <= now; t = n.timers {
		n.disarm(t)
		if m.quiesced {
			// The timer stands still while the network is quiesced
			// (fault.go).
			n.arm(t, m.releaseAt+timeout)
			continue
		}
		if due := max(t.alive, m.releasedAt) + timeout; due > now {
			// Still making progress: the time counts from its last sign
			// of life (or the end of the last quiesce).
			n.arm(t, due)
			continue
		}
		if t.kind == pktMsg {
			n.resend(t)
			continue
		}
		n.finish(t, conduit.StatusTimeout, fmt.Sprintf("no response from PE %d within %v (a lost route?)", t.tep.Rank(), timeout))
	}
	n.setTimer()
}

// MessageResends is how many times a source NIC sends a short message
// again whose transaction timed out (a packet of it, or of its
// acknowledgements, was lost) before the job fails with an error naming
// the message's source and target. The documents say only that the
// initiating NIC times the transaction out ([ARIES-WP] Network
// Reliability, Availability and Serviceability); the model assumes the
// messaging library under the runtime sends a timed-out message again
// from its copy, so that a message is never silently lost, and that the
// target's mailbox drops a copy that arrives twice (by its sequence
// number, simnet). Assumed: three resends, as many as the runtime's
// retries of a timed-out post (transport.TimeoutRetries).
const MessageResends = 3

// resend ends a short message's transaction that timed out and sends the
// message again in a new one, from the NIC (no CPU time is charged), or
// fails the job once it has been sent MessageResends times more.
func (n *nic) resend(t *txn) {
	m := n.m
	if t.attempt >= MessageResends {
		// Lost every time: the sender's wait fails naming the target
		// (MessageLost).
		n.finish(t, conduit.StatusTimeout, fmt.Sprintf("no response from PE %d within %v, %d times (a lost route?)",
			t.tep.Rank(), m.p.TransactionTimeout, t.attempt+1))
		return
	}
	t.resent = true
	n.finish(t, conduit.StatusTimeout, "")
	nt := m.newTxn(t.ep, t.tep.Rank(), t.order)
	nt.kind, nt.msg, nt.msgData = pktMsg, t.msg, t.msgData
	nt.size, nt.unit, nt.npkts, nt.pending, nt.perPkt = t.size, t.unit, t.npkts, t.npkts, t.perPkt
	nt.attempt = t.attempt + 1
	nt.born = m.k.Now()
	m.stats.MsgResends++
	m.k.At(m.k.Now(), n, nicFMAIssue, nt)
}

// amoOperandBytes is the size of an AMO's operand, and of the words the
// AMO cache holds.
const amoOperandBytes = 8

// request makes request packet i of t.
func (n *nic) request(t *txn, i int) *Packet {
	m := n.m
	p := m.newPacket()
	off, size := m.packetBytes(t, i)
	p.kind, p.VC, p.t = t.kind, m.p.RequestVC, t
	p.Src, p.Dst, p.DstRouter = n.node, t.dst.node, t.dst.r.ID
	p.order, p.Adaptive, p.Hash = t.order, t.adaptive, t.hash
	p.off, p.n, p.born = int64(off), size, m.k.Now()
	p.cnt = m.packets(size)
	switch t.kind {
	case pktGet:
		p.Size = p.cnt * m.sizes.GetRequest
	case pktAMO:
		operands := amoOperandBytes
		if t.amo == conduit.AMOCSwap {
			operands = 2 * amoOperandBytes
		}
		p.Size, p.cnt = m.sizes.Request(operands), 1
	default:
		p.Size = m.unitSize(size, m.sizes.Request)
	}
	if m.opts.HashAddress {
		p.Hash ^= mix64(uint64(t.roff) + uint64(off))
	}
	return p
}

// response turns a request packet into its response, headed back; size is
// that of one real response, multiplied for a coarse unit.
func (n *nic) response(p *Packet, kind pktKind, size int) {
	if kind == pktData && !p.failed {
		size = n.m.unitSize(p.n, n.m.sizes.DataResponse)
	} else {
		size *= p.cnt
	}
	p.kind, p.VC, p.Size = kind, n.m.p.ResponseVC, size
	p.Src, p.Dst, p.DstRouter = n.node, p.t.src.node, p.t.src.r.ID
	p.Hops = 0
	p.Route = [4]int32{}
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

// transmit puts a packet through the transmit pipeline: requests first
// take an ORB entry.
func (n *nic) transmit(p *Packet) {
	now := n.m.k.Now()
	t := p.t
	if p.kind.isRequest() {
		if t.done {
			// Its transaction timed out: the NIC sends no more of it.
			n.m.freePacket(p)
			return
		}
		if n.orbUsed+p.cnt > n.m.p.ORBEntries {
			n.orbWait.push(p)
			return
		}
		n.orbUsed += p.cnt
		n.m.stats.ORBMax = max(n.m.stats.ORBMax, int64(n.orbUsed))
		t.orbHeld += p.cnt
		t.alive = now
		if !t.timing {
			n.arm(t, now+n.m.p.TransactionTimeout)
		}
	}
	if n.enter(&n.tx, p, nicTxServe, now) {
		n.txServe()
	}
}

// txServe takes the next packet into the transmit pipeline, taking the
// virtual channels in turn (a backlog of requests does not hold up the
// responses the node owes); a transaction's first request pays for its
// SSID.
func (n *nic) txServe() {
	p, now := n.serve(&n.tx, nicTxServe)
	if p == nil {
		return
	}
	t := p.t
	occ := n.m.pipelineTime(p)
	if p.kind.isRequest() && !t.sStarted {
		t.sStarted = true
		occ += n.m.ssid
	}
	n.tx.free = now + occ
	n.m.stats.Packets++
	if n.m.trace != nil {
		n.m.traceNIC(n, "tx "+p.kind.String(), now, n.tx.free)
	}
	n.m.k.At(n.tx.free+n.m.latency, n, nicInject, p)
	n.served(&n.tx, nicTxServe)
}

// pipelineTime is how long a packet (or coarse unit) occupies the NIC's
// transmit or receive pipeline: NICPacketCycles for a full packet, less for
// smaller packets in proportion to their size, and at least
// NICMinPacketCycles for each.
func (m *Machine) pipelineTime(p *Packet) Time {
	occ := m.cycles(m.p.NICPacketCycles*int64(p.Size)) / m.fullPacket
	return max(occ, m.cycles(m.p.NICMinPacketCycles*int64(p.cnt)))
}

// orbRelease frees cnt entries of t's and lets waiting packets go.
func (n *nic) orbRelease(t *txn, cnt int) {
	cnt = min(cnt, t.orbHeld)
	if cnt == 0 {
		return
	}
	t.orbHeld -= cnt
	n.orbUsed -= cnt
	entries := n.m.p.ORBEntries
	for n.orbWait.n > 0 && n.orbUsed+n.orbWait.head.cnt <= entries {
		n.transmit(n.orbWait.pop())
	}
	if n.bteParked && n.orbUsed < entries {
		n.bteParked = false
		n.bteKick()
	}
}

// receive queues an arriving packet for the receive pipeline, by virtual
// channel: it holds its processor tile's buffer space until the pipeline
// takes it.
func (n *nic) receive(p *Packet) {
	if n.enter(&n.rx, p, nicRxServe, n.m.k.Now()) {
		n.rxServe()
	}
}

// rxServe takes the next packet into the receive pipeline, taking the
// virtual channels in turn; a channel whose last write still waits for the
// host interface is passed over until then. A transaction's first packet
// at the target pays for its RMT entry.
func (n *nic) rxServe() {
	p, now := n.serve(&n.rx, nicRxServe)
	if p == nil {
		return
	}
	if c := p.via; c != nil {
		p.via = nil
		c.giveBack(p)
	}
	n.rxTake(p, now)
	n.m.k.At(n.rx.free+n.m.latency, n, nicRxDone, p)
	n.served(&n.rx, nicRxServe)
}

// rxTake occupies the receive pipeline with p from now.
func (n *nic) rxTake(p *Packet, now Time) {
	occ := n.m.pipelineTime(p)
	if p.kind.isRequest() && !p.t.tStarted {
		p.t.tStarted = true
		occ += n.m.rmt
	}
	n.rx.free = now + occ
	if n.m.trace != nil {
		n.m.traceNIC(n, "rx "+p.kind.String(), now, n.rx.free)
	}
}

// handle acts on a received packet.
func (n *nic) handle(p *Packet) {
	m := n.m
	now := m.k.Now()
	t := p.t
	if tr := m.cfg.Translate; tr != nil && !p.translated && (p.kind == pktPut || p.kind == pktGet || p.kind == pktAMO) {
		// The request's address is translated first; the NIC goes on
		// with it once that is done.
		p.translated = true
		if done := tr(n.node, t.tep.Rank(), now, t.region, t.roff+p.off, p.n); done > now {
			m.k.At(done, n, nicRxDone, p)
			return
		}
	}
	switch p.kind {
	case pktPut, pktMsg:
		if t.done {
			// Its source gave up on it (timed out): nothing more of it
			// is written.
			m.freePacket(p)
			return
		}
		failed := false
		if p.kind == pktPut {
			if err := t.tep.CheckMemory(t.region, t.roff+p.off, int64(p.n)); err != nil {
				failed = true
				t.fail(conduit.StatusError, err.Error())
			}
		}
		ack := m.newPacket()
		*ack = Packet{t: t, order: t.order, Adaptive: t.adaptive, Hash: t.hash, failed: failed, born: now, cnt: p.cnt}
		n.response(ack, pktAck, m.sizes.response(failed))
		if failed {
			m.freePacket(p)
			n.transmit(ack)
			return
		}
		// The packet brought its data; the NIC holds it until the write
		// commits. A posted write: the NIC is done with it, and
		// acknowledges it, once the host interface has taken it; it
		// becomes visible later.
		if p.kind == pktPut {
			m.holdData(p, t.d.Local[p.off:p.off+int64(p.n)])
		} else {
			m.holdData(p, t.msgBytes(p))
		}
		taken, visible := n.host.Write(now, p.n, p.cnt, t.dstLoc, t.order)
		n.rx.block[p.VC] = max(n.rx.block[p.VC], taken)
		m.k.At(taken, n, nicTx, ack)
		m.k.At(visible, n, nicCommit, p)
	case pktGet:
		if err := t.tep.CheckMemory(t.region, t.roff+p.off, int64(p.n)); err != nil {
			t.fail(conduit.StatusError, err.Error())
			n.response(p, pktData, m.sizes.ErrorResponse)
			p.failed = true
			n.transmit(p)
			return
		}
		snap, done := n.host.Read(now, p.cnt, t.dstLoc, t.order)
		p.born = done // when the data leaves for the NIC
		m.k.At(snap, n, nicSnapshot, p)
	case pktAMO:
		n.amo(p)
	case pktCtl:
		n.control(p)
	case pktAck, pktAMORsp:
		n.orbRelease(t, p.cnt)
		if p.failed {
			t.fail(conduit.StatusError, "the target rejected the operation")
		}
		if p.kind == pktAMORsp && t.fetch && !t.done {
			t.d.Result = p.old
		}
		m.freePacket(p)
		n.progress(t)
	case pktData:
		n.orbRelease(t, p.cnt)
		if p.failed || t.done {
			m.freePacket(p)
			n.progress(t)
			return
		}
		taken, visible := n.host.Write(now, p.n, p.cnt, t.srcLoc, t.order)
		n.rx.block[p.VC] = max(n.rx.block[p.VC], taken)
		m.k.At(visible, n, nicCommit, p)
	}
}

// snapshot reads a get's data from the target's memory, now, straight into
// the requester's buffer: the buffer is the requester's to read only once
// the get completes, by which time the response has arrived.
func (n *nic) snapshot(p *Packet) {
	m := n.m
	t := p.t
	if !t.done {
		// (A get that timed out is not read: the runtime has its
		// descriptor back. Its response goes back all the same.)
		dst := t.d.Local[p.off : p.off+int64(p.n)]
		if err := t.tep.ReadMemory(t.region, t.roff+p.off, dst); err != nil {
			t.fail(conduit.StatusError, err.Error())
		}
		m.hazards.read(t, p, m.k.Now())
	}
	n.response(p, pktData, m.sizes.DataResponse(p.n))
	// The data reaches the host interface when the read completes.
	m.k.At(n.host.ToNIC(p.born, p.n+p.cnt*m.p.HostOverheadBytes), n, nicTx, p)
}

// commit acts on a write that has become visible.
func (n *nic) commit(p *Packet) {
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
		if t.pending == 1 {
			n.raiseFlag(t)
		}
		n.progress(t)
	}
}

// raiseFlag writes a flagged get's flag word (conduit.PostDesc.Flag) when
// its last data write becomes visible, and wakes the PE, which may be
// polling the word. Aries "augments FMA get functionality with an optional
// 'flagged response' feature. When this feature is used, the get response
// data is accompanied by a flag word written to local memory"
// (reference/aries-xc-network-whitepaper.txt, Remote Memory Access). The
// model: the flag word rides in the host write of whichever of the get's
// responses is the last to become visible (they commit in any order), at no
// cost of its own; the completion-queue entry is a host write of its own
// made after it (progress), so a PE polling the flag learns of the get that
// write's latency earlier than one polling its completion queue. A get that
// failed or timed out writes no flag. Backends without flagged responses
// (Caps.FlaggedGet false) never get here with a flag: simnet rejects the
// post.
func (n *nic) raiseFlag(t *txn) {
	d := t.d
	if d == nil || d.Flag == nil || t.done || t.status != conduit.StatusOK {
		return
	}
	conduit.StoreFlag(d.Flag, d.FlagValue)
	t.ep.Wake()
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
	_, visible := n.host.Write(n.m.k.Now(), n.m.p.CQEntryBytes, 1, t.srcLoc, t.order)
	n.m.k.At(visible, n, nicComplete, t)
}

// finish ends a transaction, with a completion event for a post.
func (n *nic) finish(t *txn, s conduit.Status, detail string) {
	if t.done {
		return
	}
	t.done = true
	t.src.disarm(t)
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
	if n.m.trace != nil {
		n.m.traceTxn(t, n.m.k.Now())
	}
	switch {
	case t.d != nil:
		t.ep.CompleteLocal(t.d, s, detail)
	case t.kind == pktMsg && s != conduit.StatusOK && !t.resent:
		// A message has no completion event: its sender learns of the
		// loss from its endpoint.
		t.ep.MessageLost(t.tep.Rank(), s, detail)
	}
}
