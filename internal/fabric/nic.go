package fabric

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
)

// A NIC's transmit and receive pipelines. Packets to send (requests made
// by FMA or the block-transfer engine, responses, control packets) reach
// the transmit pipeline (transmit), a request once it holds its ORB
// entries (orb.go); the pipeline takes them one at a time, the virtual
// channels in turn (txServe, pipeline.go), and hands each to the least
// loaded processor tile. Packets arriving from an ejection tile queue for
// the receive pipeline (receive, rxServe); once it is done with one, the
// NIC acts on it (handle): a put's or a message's data is written through
// the host interface and acknowledged, a get's data is read and sent
// back, an AMO goes to the AMO unit (amo.go), a response counts towards
// its transaction (txn.go), a control packet goes to its NIC unit
// (control.go). A write commits when it is visible in memory (commit).

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
	nicReadFree            // a host read's data is back: its tags free (reads.go)
	nicAMODrain            // the AMO unit looks at its queue again (amo.go)
	nicEvent               // a destination-side completion entry is visible
)

// nic is one node's NIC.
type nic struct {
	sim.Source // its number among the kernel's actors (Machine.Start)
	m          *Machine
	node       int
	r          *Router
	host       Host
	// inject and eject are the processor tiles it uses (Params.TilesPerGroup).
	inject, eject []*Channel
	tx            pipeline // served by nicTxServe
	// rx is served by nicRxServe. rxBlock[vc]: a write waiting for the
	// host interface holds up the packets of its virtual channel behind it
	// until then; the other channels' packets pass (acknowledgements are
	// not stuck behind a backlog of incoming writes). The transmit
	// pipeline has no such wait.
	rx      pipeline
	rxBlock [MaxVCs]Time

	// The ORB (orb.go): entries in use, and the requests waiting for
	// entries.
	orbUsed int
	orbWait pktQueue // request packets waiting for an ORB entry

	// be is the block-transfer engine (bte.go), made for the first block
	// transfer.
	be *bteEngine

	// timers lists the transactions whose requests have left and that
	// have not completed, by when their timeout is next looked at; one
	// event (timerAt, when timerSet) stands for the earliest. A completed
	// transaction leaves the list at once, so nothing keeps it alive for
	// the timeout's span (timeout.go).
	timers, timersTail *txn
	timerAt            Time
	timerSet           bool

	// au is the AMO unit's state (amo.go), made for the NIC's first AMO
	// (most NICs of a job of puts never see one).
	au *amoUnit
	// writesVisible is when every write the NIC has handed to the host
	// interface so far is visible (a strict AMO waits for it).
	writesVisible Time

	// The host-read tags (reads.go): in use, granted to an engine and not
	// yet used, and the reads waiting for one (from readHead on).
	readsOut, readsRes int
	readQ              []readWaiter
	readHead           int
	// An engine's grant of a tag, and whether it waits in readQ.
	bteTagGrant, bteTagWait bool
	amoTagGrant, amoTagWait bool
}

// newNIC makes node's NIC, the k-th attached to router r.
func (m *Machine) newNIC(node int, r *Router, k int, h Host) *nic {
	n := &nic{m: m, node: node, r: r, host: h, inject: r.inject, eject: r.eject}
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
		n.bteQueue(data.(*txn))
	case nicBTESend:
		n.bteSend()
	case nicComplete:
		n.complete(data.(*txn))
	case nicTimeout:
		n.timeouts()
	case nicReadFree:
		n.readFreed(data.(int))
	case nicAMODrain:
		n.au.wake = false
		n.amoDrain()
	case nicEvent:
		t := data.(*txn)
		n.eventVisible(t)
		n.m.dropPacket(t)
	}
}

// transmit puts a packet through the transmit pipeline: requests first
// take an ORB entry (orb.go, admit).
func (n *nic) transmit(p *Packet) {
	now := n.m.k.Now()
	if p.kind.isRequest() && !n.admit(p, now) {
		return
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
	p, now := n.serve(&n.tx, nil, nicTxServe)
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
		n.m.traceNICPacket(n, p, true, now, n.tx.free)
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
	p, now := n.serve(&n.rx, &n.rxBlock, nicRxServe)
	if p == nil {
		return
	}
	if c := p.hop; c != nil {
		p.hop = nil
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
		n.m.traceNICPacket(n, p, false, now, n.rx.free)
	}
}

// handle acts on a packet the receive pipeline is done with: a request
// is first translated (Config.Translate), then written, read or applied at
// the target; a response frees its ORB entries and counts towards its
// transaction at the source; a control packet goes to its NIC unit.
func (n *nic) handle(p *Packet) {
	if n.translating(p) {
		return
	}
	switch p.kind {
	case pktPut, pktMsg:
		n.writeArrived(p)
	case pktGet:
		n.getArrived(p)
	case pktAMO:
		n.amo(p)
	case pktCtl:
		n.control(p)
	case pktAck, pktAMORsp:
		n.ackArrived(p)
	case pktData:
		n.dataArrived(p)
	}
}

// translating starts the target NIC's address translation of a request
// the first time the NIC handles it. It says whether the request waits for
// the translation: the NIC handles it again once that is done.
func (n *nic) translating(p *Packet) bool {
	tr := n.m.cfg.Translate
	if tr == nil || p.translated || (p.kind != pktPut && p.kind != pktGet && p.kind != pktAMO) {
		return false
	}
	p.translated = true
	now := n.m.k.Now()
	t := p.t
	if done := tr(n.node, t.tep.Rank(), now, t.region, t.roff+int64(p.off), int(p.n)); done > now {
		n.m.k.At(done, n, nicRxDone, p)
		return true
	}
	return false
}

// writeArrived acts on a put's or a message's packet at the target: the
// NIC holds its data until the write commits, and acknowledges it.
func (n *nic) writeArrived(p *Packet) {
	m := n.m
	now := m.k.Now()
	t := p.t
	if t.done {
		// Its source gave up on it (timed out): nothing more of it
		// is written.
		m.freePacket(p)
		return
	}
	failed := false
	if p.kind == pktPut {
		if err := t.tep.CheckMemory(t.region, t.roff+int64(p.off), int64(p.n)); err != nil {
			failed = true
			t.fail(conduit.StatusError, err.Error())
		}
	}
	ack := m.newPacket()
	*ack = Packet{order: t.order, Adaptive: t.adaptive, Hash: t.hash(), failed: failed, born: now, cnt: p.cnt}
	m.usePacket(t, ack)
	n.response(ack, pktAck, m.sizes.response(failed))
	if failed {
		m.freePacket(p)
		n.transmit(ack)
		return
	}
	// The packet brought its data; the NIC holds it until the write
	// commits. A posted write: the NIC is done with it, and acknowledges
	// it, once the host interface has taken it; it becomes visible later.
	if p.kind == pktPut {
		m.holdData(p, t.d.Local[int64(p.off):int64(p.off)+int64(p.n)])
	} else {
		m.holdData(p, t.msgBytes(p))
	}
	taken, visible := n.write(p, now, m.dstLoc(t))
	m.k.At(taken, n, nicTx, ack)
	m.k.At(visible, n, nicCommit, p)
	if p.kind == pktMsg || t.remoteEvent {
		x := t.x // made by Send or Post
		x.evHanded++
		if x.evHanded == t.npkts {
			n.writeEvent(t, now)
		}
	}
}

// writeEvent writes the destination-side completion entry of t, a short
// message or a put with a remote event, to the target PE's completion
// queue at now: a posted write in t's ordering mode to the PE's own
// memory. An arriving short message is signalled on the receiver's
// completion queue ([GASNET-GEMINI] Overview), as is a put that asks for
// a destination-side event ([GEMINI-WP] 2.1, 2.3). The NIC writes it
// when all of t's packets are delivered ([GEMINI-WP] 2.5): as the last is
// handed to the host interface, right behind it, for the NIC cannot see
// its posted writes become visible. The target learns of t when the entry
// is visible and its data is too (eventVisible), so the event never runs
// ahead of the data, whatever the ordering mode lets the host reorder.
func (n *nic) writeEvent(t *txn, now Time) {
	m := n.m
	_, visible := n.host.Write(now, m.p.CQEntryBytes, 1, m.dstLoc(t), t.order)
	// The entry holds t as a packet would (usePacket), until it is seen.
	if m.parts == nil || m == t.src.m {
		t.refs++
	} else {
		t.refsT++
	}
	m.k.At(visible, n, nicEvent, t)
}

// eventVisible acts on t's destination-side entry (writeEvent) or its
// last data becoming visible: with both, the target has the message or
// the event.
func (n *nic) eventVisible(t *txn) {
	x := t.x
	x.evSeen++
	if x.evSeen < 2 {
		return
	}
	switch {
	case t.kind == pktMsg:
		t.tep.DeliverMessage(x.msg)
	case t.remoteEvent:
		t.tep.RemoteEvent(t.ep.Rank(), x.remoteData)
	}
}

// getArrived acts on a get request at the target: the host interface
// reads the data (snapshot) once a host-read tag is free (reads.go), or
// the NIC answers at once with an error.
func (n *nic) getArrived(p *Packet) {
	m := n.m
	t := p.t
	if err := t.tep.CheckMemory(t.region, t.roff+int64(p.off), int64(p.n)); err != nil {
		t.fail(conduit.StatusError, err.Error())
		n.response(p, pktData, m.sizes.ErrorResponse)
		p.failed = true
		n.transmit(p)
		return
	}
	if !n.readFree() {
		n.readWait(p)
		return
	}
	n.readUse(int(p.cnt), nil)
	n.getRead(p)
}

// getRead books the read of a get's data, which holds p.cnt host-read
// tags (reads.go) until the data is back at the NIC (snapshot).
func (n *nic) getRead(p *Packet) {
	m := n.m
	t := p.t
	snap, done := n.host.Read(m.k.Now(), int(p.cnt), m.dstLoc(t), t.order)
	p.born = done // when the data leaves for the NIC
	m.k.At(snap, n, nicSnapshot, p)
}

// ackArrived acts on an acknowledgement or an AMO's response at the
// source.
func (n *nic) ackArrived(p *Packet) {
	t := p.t
	n.orbRelease(t, int(p.cnt))
	if p.failed {
		t.fail(conduit.StatusError, "the target rejected the operation")
	}
	if p.kind == pktAMORsp && t.fetch && !t.done {
		t.d.Result = p.old
	}
	n.m.freePacket(p)
	n.progress(t)
}

// dataArrived acts on a get's data at the source: the NIC writes it to
// the requester's memory (its bytes were copied there already: snapshot),
// and the packet counts when the write is visible (commit).
func (n *nic) dataArrived(p *Packet) {
	t := p.t
	n.orbRelease(t, int(p.cnt))
	if p.failed || t.done {
		n.m.freePacket(p)
		n.progress(t)
		return
	}
	_, visible := n.write(p, n.m.k.Now(), n.m.srcLoc(t))
	n.m.k.At(visible, n, nicCommit, p)
	n.handed(t)
}

// write books the posted write of p's data to memory at loc on the host
// interface at now (Host.Write): the packets of p's virtual channel wait
// in the receive pipeline until the interface has taken it. The caller
// commits it (nicCommit) when it is visible.
func (n *nic) write(p *Packet, now Time, loc int) (taken, visible Time) {
	taken, visible = n.host.Write(now, int(p.n), int(p.cnt), loc, p.t.order)
	n.writesVisible = max(n.writesVisible, visible)
	n.rxBlock[p.VC] = max(n.rxBlock[p.VC], taken)
	return taken, visible
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
		dst := t.d.Local[int64(p.off) : int64(p.off)+int64(p.n)]
		if err := t.tep.ReadMemory(t.region, t.roff+int64(p.off), dst); err != nil {
			t.fail(conduit.StatusError, err.Error())
		}
		m.hazards.read(t, p, m.k.Now())
	}
	n.response(p, pktData, m.sizes.DataResponse(int(p.n)))
	// The data reaches the NIC when the read completes and has crossed
	// the host interface; its tags free as it arrives.
	m.k.At(n.readBack(p.born, int(p.n), int(p.cnt)), n, nicTx, p)
}

// commit acts on a write that has become visible.
func (n *nic) commit(p *Packet) {
	t := p.t
	switch p.kind {
	case pktPut, pktMsg:
		if p.kind == pktPut {
			if err := t.tep.WriteMemory(t.region, t.roff+int64(p.off), p.bytes()); err != nil {
				t.fail(conduit.StatusError, err.Error())
			}
		}
		n.m.hazards.writeVisible(t, p)
		t.tCommitted++
		if t.tCommitted == t.npkts && (p.kind == pktMsg || t.remoteEvent) {
			n.eventVisible(t)
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
