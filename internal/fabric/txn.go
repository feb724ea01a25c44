package fabric

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/simnet"
)

// A transaction's life. A post (Post) or a short message (Send) becomes a
// transaction at its source NIC (newTxn), cut into packets or coarse units
// (split). Its requests leave by FMA (fma.go: the CPU stores each packet)
// or by the block-transfer engine (bte.go: the NIC reads and sends the
// whole transfer); each takes an entry of the output request buffer
// (orb.go) and the transaction's timer starts (timeout.go). The target
// NIC answers every request (nic.go, amo.go); each response frees its ORB
// entries and counts towards the transaction (progress), which completes
// when its last is back and, for a post, its completion-queue entry is
// written (finish). A transaction that stops hearing from its target
// times out (timeout.go).

// txn is a transaction: the packets of one post or message, which share a
// synchronization sequence identifier. Its packets commit at the target in
// whatever order they arrive; it completes when every response is back.
type txn struct {
	// Its fields are grouped by size (pointers and words, then the
	// narrower ones together), so that a transaction, of which a job
	// may hold one for each post in flight, has no padding to speak of.
	ep, tep  *simnet.Endpoint // source and target PEs
	src, dst *nic
	d        *conduit.PostDesc // the runtime's until the transaction completes
	msg      *simnet.Message
	msgData  []byte // its header and payload
	// srcLoc and dstLoc are where the source's and the target's memory
	// are in their nodes (Config.Location).
	srcLoc, dstLoc int
	// What the target needs after the source has completed (a put is
	// acknowledged before it is visible): remoteEvent (below) and its
	// data.
	remoteData uint64
	// An AMO's operands, captured at the post (its operation below).
	operand, compare uint64
	hash             uint64
	roff             int64
	size             int
	npkts            int  // packets, or coarse units
	unit             int  // real packets per unit: 1, or more for a coarse transfer
	perPkt           Time // CPU time per FMA store (per real packet)

	next       int  // next packet to make
	pending    int  // packets whose completion has not come back
	orbHeld    int  // its request packets holding ORB entries
	tCommitted int  // packets committed at the target
	alive      Time // its last request sent or response received
	// checkAt is when its timer is next looked at; tPrev and tNext link
	// the source NIC's timer list, ordered by checkAt.
	checkAt      Time
	tPrev, tNext *txn
	reads        []Time // a block transfer's reads in flight, by slot: when each is back
	detail       string
	born         Time
	// id is its identity (conduit.PostDesc.TxnID: a retry's is its first
	// attempt's); attempt counts a short message's resends.
	id       uint64
	nextFree *txn
	attempt  int32
	region   uint32
	// refs counts the packets that point to it (Packet.t); recycle says
	// it may go back to the machine's free list once none does
	// (releaseTxn).
	refs int32

	kind        pktKind // of its requests
	bte         bool
	remoteEvent bool
	// An AMO's operation.
	amo      conduit.AMOOp
	width    uint8
	fetch    bool
	order    conduit.OrderingMode
	adaptive bool
	sStarted bool
	tStarted bool
	timing   bool // it is on its source NIC's timer list
	storing  bool // its core is storing its FMA packets (fma.go)
	status   conduit.Status
	done     bool
	resent   bool // a short message sent again as a new transaction
	recycle  bool
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

// fail records t's first failure: the status and detail its completion
// reports.
func (t *txn) fail(s conduit.Status, detail string) {
	if t.status == conduit.StatusOK {
		t.status, t.detail = s, detail
	}
}

// Post starts a descriptor.
func (m *Machine) Post(ep *simnet.Endpoint, d *conduit.PostDesc) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	t := m.newTxn(ep, d.Target, ep.EffectiveOrder(d))
	t.d = d
	if !d.Retry || d.TxnID == 0 {
		m.txnSeq++
		d.TxnID = m.txnSeq
	}
	t.id = d.TxnID
	t.region, t.roff = d.Remote.ID, d.RemoteOffset
	t.remoteEvent, t.remoteData = d.RemoteEvent, d.RemoteData
	switch {
	case d.Type == conduit.AMO:
		t.kind, t.size, t.npkts, t.unit = pktAMO, int(d.Width), 1, 1
		t.amo, t.width, t.fetch, t.operand, t.compare = d.AMO, d.Width, d.Fetch, d.Operand, d.Compare
		t.perPkt = m.p.FMAGetPerPacket
		t.pending = 1
		if !m.launch(ep, d) {
			p.Advance(m.p.FMAPost)
			return m.storeFMA(t, p)
		}
		m.k.At(p.Clock(), t.src, nicFMAIssue, t)
		return nil
	case d.Type == conduit.Put:
		t.kind = pktPut
		t.perPkt = m.p.FMAPutPerPacket
	default:
		t.kind = pktGet
		t.perPkt = m.p.FMAGetPerPacket
	}
	t.size = len(d.Local)
	m.split(t, d.Mech == conduit.BTE)
	m.hazards.posted(t)
	if d.Mech == conduit.BTE {
		m.postBTE(t, p)
		return nil
	}
	return m.postFMA(t, ep, d)
}

// split divides a transfer into packets, or, for a relaxed block
// transfer (bte) above the coarse threshold, into units of CoarsePackets
// packets. Ordered transfers always move packet by packet: how their
// packets interleave with other transfers' at the host decides what the
// order costs, and a unit would hide that. So do FMA transfers, whose
// every packet is a store of the core through its buffers (fma.go).
func (m *Machine) split(t *txn, bte bool) {
	pkts := m.packets(t.size)
	t.unit = 1
	if bte && m.opts.CoarseBytes > 0 && t.size > m.opts.CoarseBytes && t.order == conduit.OrderRelaxed {
		t.unit = m.opts.CoarsePackets
	}
	t.npkts = (pkts + t.unit - 1) / t.unit
	t.pending = t.npkts
}

// newTxn makes a transaction from ep to target in ordering mode order:
// its NICs, its memory locations, how it is routed and its routing hash.
func (m *Machine) newTxn(ep *simnet.Endpoint, target int, order conduit.OrderingMode) *txn {
	src := m.nics[m.job.NodeOf(ep.Rank())]
	dst := m.nics[m.job.NodeOf(target)]
	t := m.freeTxns
	if t == nil {
		t = new(txn)
	} else {
		m.freeTxns = t.nextFree
	}
	*t = txn{ep: ep, tep: m.job.Endpoint(target), src: src, dst: dst, order: order, born: ep.Proc().Clock(),
		srcLoc: m.loc[ep.Rank()], dstLoc: m.loc[target]}
	switch m.opts.Routing {
	case RouteDeterministic:
		t.adaptive = false
	case RouteByOrder:
		t.adaptive = order != conduit.OrderStrict
	default:
		t.adaptive = true
	}
	t.hash = mix64(uint64(src.node)<<32 | uint64(dst.node))
	return t
}

// Send sends a short message: an FMA put of the message into the target's
// mailbox, delivered when all of it has committed.
func (m *Machine) Send(ep *simnet.Endpoint, target int, msg *simnet.Message) error {
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	t := m.newTxn(ep, target, ep.Ordering())
	t.kind, t.msg = pktMsg, msg
	t.msgData = append(append(make([]byte, 0, msg.Bytes()), msg.Header...), msg.Payload...)
	t.size = max(1, msg.Bytes())
	t.unit = 1
	t.npkts = m.packets(t.size)
	t.pending = t.npkts
	t.perPkt = m.p.FMAPutPerPacket
	p.Advance(m.p.SMSGSend - t.perPkt)
	return m.storeFMA(t, p)
}

// recyclable says whether a transaction that has just completed normally
// may be reused once no packet points to it: nothing else can still reach
// it. That excludes machines whose links may fail (late packets, replays),
// the hazard checker and the trace (which keep transactions), block
// transfers and messages (whose lives go on after the completion), and a
// transaction that did not succeed.
func (m *Machine) recyclable(t *txn) bool {
	return !m.lossy && m.hazards == nil && m.trace == nil && t.d != nil && !t.bte && t.kind != pktMsg &&
		t.status == conduit.StatusOK
}

// usePacket makes p one of t's packets.
func (t *txn) usePacket(p *Packet) {
	p.t = t
	t.refs++
}

// dropPacket ends p's reference to its transaction (freePacket), which goes
// back to the free list if it was the last and the transaction is done
// with.
func (m *Machine) dropPacket(t *txn) {
	t.refs--
	if t.refs == 0 && t.recycle {
		m.releaseTxn(t)
	}
}

// releaseTxn puts t on the free list.
func (m *Machine) releaseTxn(t *txn) {
	*t = txn{nextFree: m.freeTxns}
	m.freeTxns = t
}

// amoOperandBytes is the size of an AMO's operand, and of the words the
// AMO cache holds.
const amoOperandBytes = 8

// request makes request packet i of t.
func (n *nic) request(t *txn, i int) *Packet {
	m := n.m
	p := m.newPacket()
	off, size := m.packetBytes(t, i)
	p.kind, p.VC = t.kind, m.p.RequestVC
	t.usePacket(p)
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

// raiseFlag writes a flagged get's flag word (conduit.PostDesc.Flag) when
// its last data write becomes visible, and wakes the PE, which may be
// polling the word. Aries "augments FMA get functionality with an optional
// 'flagged response' feature. When this feature is used, the get response
// data is accompanied by a flag word written to local memory" ([ARIES-WP]
// Remote Memory Access). The model: the flag word rides in the host write
// of whichever of the get's responses is the last to become visible (they
// commit in any order), at no cost of its own; the completion-queue entry
// is a host write of its own made after it (progress), so a PE polling the
// flag learns of the get that write's latency earlier than one polling its
// completion queue. A get that failed or timed out writes no flag.
// Backends without flagged responses (Caps.FlaggedGet false) never get
// here with a flag: simnet rejects the post.
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
		n.bteEnd()
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
