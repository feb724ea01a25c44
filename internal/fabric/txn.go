package fabric

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
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
	// may hold one for each post in flight, has no padding to speak of;
	// what only some transactions need is in x, and what can be derived
	// (its routing hash, its CPU time per store, where its memory is) is
	// not kept.
	ep, tep  *simnet.Endpoint // source and target PEs
	src, dst *nic
	d        *conduit.PostDesc // the runtime's until the transaction completes
	x        *txnRare
	// What the target needs after the source has completed (a put is
	// acknowledged before it is visible): remoteEvent (below), whose data
	// is in x, and where it writes.
	roff  int64
	alive Time // its last request sent or response received
	// checkAt is when its timer is next looked at; tPrev and tNext link
	// the source NIC's timer list, ordered by checkAt (and tNext the
	// machine's free list while it is on that).
	checkAt      Time
	tPrev, tNext *txn
	born         Time

	// Its counts, in 32 bits: Post and Send refuse a transfer of more
	// bytes than that (maxTxnBytes), and the packets, units and pieces
	// of one are fewer than its bytes (at least one byte each).
	size    int32
	npkts   int32 // packets, or coarse units
	unit    int32 // real packets per unit: 1, or more for a coarse transfer
	next    int32 // next packet to make
	pending int32 // packets whose completion has not come back
	// tCommitted is a put's or a message's packets committed at the
	// target; for a get, its data packets handed to the source's host
	// interface (when Params.CQBehindData), then npkts+1 once its
	// completion entry is visible while some of its data is not yet
	// (handed, progress).
	tCommitted int32
	region     uint32
	// refs counts the packets that point to it (Packet.t); recycle says
	// it may go back to the machine's free list once none does
	// (releaseTxn). In a partitioned run, the target's partition counts
	// its own packets' references in refsT, and the source's in refs, so
	// that neither writes the other's; the sum is the packets' count.
	refs, refsT int32
	// orbHeld is its request packets holding ORB entries (at most
	// Params.ORBEntries, maxORBEntries); attempt a short message's resends
	// (at most MessageResends).
	orbHeld uint16
	attempt uint16

	kind pktKind // of its requests
	// bte is nonzero for a block transfer: bteOn, with the channel given
	// it in the bits of bteChannelMask, bteAdmitted from then until it
	// ends, and bteHolding while the channel processes it (bte.go).
	bte         uint8
	remoteEvent bool
	// An AMO's operation (its operands are in x).
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

// txnRare is the part of a transaction that only some have: a message's,
// an AMO's, a block transfer's, a failed one's. A transaction has one
// when it needs it (txn.rare); a recycled transaction keeps its own, empty,
// for its next use.
type txnRare struct {
	msg     *simnet.Message
	msgData []byte // its header and payload
	// An AMO's operands, captured at the post (its operation in txn), and
	// its identity (conduit.PostDesc.TxnID: a retry's is its first
	// attempt's), by which a machine whose links may fail applies it once.
	operand, compare uint64
	id               uint64
	// remoteData is a put's data for the target's remote event
	// (conduit.PostDesc.RemoteData).
	remoteData uint64
	// A message's or a remote-event put's destination-side completion
	// entry (nic.writeEvent): its packets handed to the target's host
	// interface, and which of the entry and the last data is visible
	// (2: both).
	evHanded int32
	evSeen   uint8
	// reads is a block-transfer put's reads in flight, by slot: when each
	// is back (a get's pacing is its channel's, bte.go).
	reads  []Time
	detail string
}

// maxTxnBytes is the largest transfer a transaction carries: its counts
// are 32-bit.
const maxTxnBytes = math.MaxInt32

// rare is t's txnRare, made if it has none.
func (t *txn) rare() *txnRare {
	if t.x == nil {
		t.x = new(txnRare)
	}
	return t.x
}

// detail is what t's failure reports ("" if none).
func (t *txn) detail() string {
	if t.x == nil {
		return ""
	}
	return t.x.detail
}

// hash is t's routing hash: its source and destination nodes.
func (t *txn) hash() uint64 { return sim.Mix64(uint64(t.src.node)<<32 | uint64(t.dst.node)) }

// perPkt is the CPU time of each of t's FMA stores (per real packet):
// data for a put or a message, a control word for a get or an AMO.
func (m *Machine) perPkt(t *txn) Time {
	if t.kind == pktPut || t.kind == pktMsg {
		return m.p.FMAPutPerPacket
	}
	return m.p.FMAGetPerPacket
}

// srcLoc and dstLoc are where the source's and the target's memory of t
// are in their nodes (Config.Location).
func (m *Machine) srcLoc(t *txn) int { return m.loc[t.ep.Rank()] }
func (m *Machine) dstLoc(t *txn) int { return m.loc[t.tep.Rank()] }

// msgBytes is the part of a message a packet carries.
func (t *txn) msgBytes(p *Packet) []byte {
	data := t.x.msgData
	return data[p.off:min(int64(p.off)+int64(p.n), int64(len(data)))]
}

// packetBytes is the data of t's packet (or unit) i.
func (m *Machine) packetBytes(t *txn, i int) (off, n int) {
	u := max(int(t.unit), 1) * m.p.MaxPacketData
	off = i * u
	return off, min(u, int(t.size)-off)
}

// fail records t's first failure: the status and detail its completion
// reports.
func (t *txn) fail(s conduit.Status, detail string) {
	if t.status == conduit.StatusOK {
		t.status = s
		if detail != "" {
			t.rare().detail = detail
		}
	}
}

// Post starts a descriptor.
func (m *Machine) Post(ep *simnet.Endpoint, d *conduit.PostDesc) error {
	m = m.at(ep)
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	if d.Type != conduit.AMO && len(d.Local) > maxTxnBytes {
		return m.tooLarge(ep, "Post of %d bytes", len(d.Local))
	}
	t := m.newTxn(ep, d.Target, ep.EffectiveOrder(d))
	t.d = d
	if !d.Retry || d.TxnID == 0 {
		m.txnSeq++
		d.TxnID = m.txnSeq
	}
	t.region, t.roff = d.Remote.ID, d.RemoteOffset
	if t.remoteEvent = d.RemoteEvent; t.remoteEvent {
		x := t.rare()
		x.remoteData, x.evHanded, x.evSeen = d.RemoteData, 0, 0
	}
	switch {
	case d.Type == conduit.AMO:
		return m.postAMO(t, ep, d)
	case d.Type == conduit.Put:
		t.kind = pktPut
	default:
		t.kind = pktGet
	}
	t.size = int32(len(d.Local))
	m.split(t, d.Mech == conduit.BTE)
	m.hazards.posted(t)
	if d.Mech == conduit.BTE {
		m.postBTE(t, p)
		return nil
	}
	return m.postFMA(t, ep, d)
}

// postAMO starts transaction t of AMO descriptor d. It is apart from Post
// to keep Post's frame, on the PE's stack, small.
func (m *Machine) postAMO(t *txn, ep *simnet.Endpoint, d *conduit.PostDesc) error {
	p := ep.Proc()
	t.kind, t.size, t.npkts, t.unit = pktAMO, int32(d.Width), 1, 1
	t.amo, t.width, t.fetch = d.AMO, d.Width, d.Fetch
	x := t.rare()
	x.operand, x.compare, x.id = d.Operand, d.Compare, d.TxnID
	t.pending = 1
	if !m.launch(ep, d) {
		p.Advance(m.p.FMAPost)
		return m.storeFMA(t, p)
	}
	m.k.At(p.Clock(), t.src, nicFMAIssue, t)
	return nil
}

// tooLarge is the error of a post or message (what, of n bytes) larger
// than a transaction carries. It is made apart from Post and Send, which
// run on the PE's stack: a small frame keeps that stack at its first size
// (docs/scale.md).
//
//go:noinline
func (m *Machine) tooLarge(ep *simnet.Endpoint, what string, n int) error {
	return fmt.Errorf("%s: PE %d: %s: more than a transaction carries (%d)", m.name, ep.Rank(), fmt.Sprintf(what, n), maxTxnBytes)
}

// split divides a transfer into packets, or, for a relaxed block
// transfer (bte) above the coarse threshold, into units of CoarsePackets
// packets. Ordered transfers always move packet by packet: how their
// packets interleave with other transfers' at the host decides what the
// order costs, and a unit would hide that. So do FMA transfers, whose
// every packet is a store of the core through its buffers (fma.go).
func (m *Machine) split(t *txn, bte bool) {
	pkts := int32(m.packets(int(t.size)))
	t.unit = 1
	if bte && m.opts.CoarseBytes > 0 && int(t.size) > m.opts.CoarseBytes && t.order == conduit.OrderRelaxed {
		t.unit = int32(m.opts.CoarsePackets)
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
		m.freeTxns = t.tNext
		m.freeTxnCount--
	}
	// Cleared and then filled in place: a literal naming t.x would be
	// built on the PE's stack first (a frame of 168 bytes more).
	x := t.x
	*t = txn{}
	t.ep, t.tep, t.src, t.dst, t.x = ep, m.job.Endpoint(target), src, dst, x
	t.order, t.born = order, ep.Proc().Clock()
	switch m.opts.Routing {
	case RouteDeterministic:
		t.adaptive = false
	case RouteByOrder:
		t.adaptive = order != conduit.OrderStrict
	default:
		t.adaptive = true
	}
	return t
}

// Send sends a short message: an FMA put of the message into the target's
// mailbox, delivered when all of it has committed.
func (m *Machine) Send(ep *simnet.Endpoint, target int, msg *simnet.Message) error {
	m = m.at(ep)
	p := ep.Proc()
	if err := p.Sync(); err != nil {
		return err
	}
	if msg.Bytes() > maxTxnBytes {
		return m.tooLarge(ep, "Send of a %d-byte message", msg.Bytes())
	}
	t := m.newTxn(ep, target, ep.Ordering())
	t.kind = pktMsg
	x := t.rare()
	x.msg, x.evHanded, x.evSeen = msg, 0, 0
	x.msgData = append(append(make([]byte, 0, msg.Bytes()), msg.Header...), msg.Payload...)
	t.size = int32(max(1, msg.Bytes()))
	t.unit = 1
	t.npkts = int32(m.packets(int(t.size)))
	t.pending = t.npkts
	p.Advance(m.p.SMSGSend - m.perPkt(t))
	return m.storeFMA(t, p)
}

// recyclable says whether a transaction that has just completed normally
// may be reused once no packet points to it: nothing else can still reach
// it. That excludes machines whose links may fail (late packets, replays),
// the hazard checker and the trace (which keep transactions), block
// transfers and messages (whose lives go on after the completion), and a
// transaction that did not succeed.
func (m *Machine) recyclable(t *txn) bool {
	return !m.lossy && m.hazards == nil && m.trace == nil && t.d != nil && t.bte == 0 && t.kind != pktMsg &&
		t.status == conduit.StatusOK
}

// usePacket makes p one of t's packets: a reference counted by m's
// partition (refsT at a partitioned target's).
func (m *Machine) usePacket(t *txn, p *Packet) {
	p.t = t
	if m.parts == nil || m == t.src.m {
		t.refs++
	} else {
		t.refsT++
	}
}

// dropPacket ends p's reference to its transaction (freePacket), which goes
// back to the free list if it was the last and the transaction is done
// with.
func (m *Machine) dropPacket(t *txn) {
	if m.parts != nil && m != t.src.m {
		// The target's partition of a transaction between two: the
		// source's count and whether it is done are the source's to
		// write, so whether this was the last is seen at the window's
		// end (releaseShared).
		t.refsT--
		m.recheck = append(m.recheck, t)
		return
	}
	t.refs--
	if t.refs == 0 && t.recycle {
		m.freeTxn(t)
	}
}

// freeTxn puts t on the free list now if no other partition can hold a
// reference to it, or else at the window's end if the target's count is
// 0 then (releaseShared).
func (m *Machine) freeTxn(t *txn) {
	if m.parts != nil && t.dst.m != m {
		m.recheck = append(m.recheck, t)
		return
	}
	m.releaseTxn(t)
}

// releaseShared is a partitioned machine's end of a window (while no
// partition runs): the transactions between two partitions that either
// side may have been the last to use go back to their source's free list
// if neither side's packets point to them any more and the source is done
// with them. A transaction listed twice is released once: its release
// clears recycle.
func (m *Machine) releaseShared(Time) {
	for _, p := range m.parts {
		for i, t := range p.recheck {
			if t.recycle && t.refs+t.refsT == 0 {
				t.src.m.releaseTxn(t)
			}
			p.recheck[i] = nil
		}
		p.recheck = p.recheck[:0]
	}
}

// releaseTxn puts t on the free list, with its txnRare (if it has one)
// emptied for its next use.
func (m *Machine) releaseTxn(t *txn) {
	x := t.x
	if x != nil {
		*x = txnRare{}
	}
	*t = txn{tNext: m.freeTxns, x: x}
	m.freeTxns = t
	m.freeTxnCount++
}

// txnStock is how many free transactions stockTxns keeps before a PE
// runs. It is assumed: a PE of a busy network posts once or twice before
// it next waits (a post lets the events before its clock happen first),
// and a PE that posts more takes the rest from the heap, on its own stack.
const txnStock = 8

// txnSlab is how many transactions stockTxns makes at once: as many as
// fill the allocator's 8 KiB size class.
const txnSlab = int32(8192 / unsafe.Sizeof(txn{}))

// stockTxns keeps at least txnStock transactions on the free list. The
// kernel calls it on its own stack before a PE runs (sim.Kernel.BeforePE),
// so that a post takes its transaction from the list rather than allocate it
// on the PE's stack, whose first 2 KiB the runtime's allocation slow path
// would overflow (docs/scale.md).
//
// It makes txnSlab at once: 53 transactions of 152 bytes fill the
// allocator's 8 KiB size class as its own span of single ones would, and
// a new high of the transactions in flight, which a run of random gaps
// keeps reaching, costs an allocation only every 53 transactions.
func (m *Machine) stockTxns() {
	if m.freeTxnCount >= txnStock {
		return
	}
	slab := make([]txn, txnSlab)
	for i := range slab {
		slab[i].tNext = m.freeTxns
		m.freeTxns = &slab[i]
	}
	m.freeTxnCount += txnSlab
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
	m.usePacket(t, p)
	p.Src, p.Dst, p.DstRouter = int32(n.node), int32(t.dst.node), int32(t.dst.r.ID)
	p.order, p.Adaptive, p.Hash = t.order, t.adaptive, t.hash()
	p.off, p.n, p.born = int32(off), int32(size), m.k.Now()
	p.cnt = int32(m.packets(size))
	switch t.kind {
	case pktGet:
		p.Size = p.cnt * int32(m.sizes.GetRequest)
	case pktAMO:
		operands := amoOperandBytes
		if t.amo == conduit.AMOCSwap {
			operands = 2 * amoOperandBytes
		}
		p.Size, p.cnt = int32(m.sizes.Request(operands)), 1
	default:
		p.Size = int32(m.unitSize(size, m.sizes.Request))
	}
	if m.opts.HashAddress {
		p.Hash ^= sim.Mix64(uint64(t.roff) + uint64(off))
	}
	return p
}

// response turns a request packet into its response, headed back; size is
// that of one real response, multiplied for a coarse unit.
func (n *nic) response(p *Packet, kind pktKind, size int) {
	if kind == pktData && !p.failed {
		size = n.m.unitSize(int(p.n), n.m.sizes.DataResponse)
	} else {
		size *= int(p.cnt)
	}
	p.kind, p.VC, p.Size = kind, n.m.p.ResponseVC, int32(size)
	p.Src, p.Dst, p.DstRouter = int32(n.node), int32(p.t.src.node), int32(p.t.src.r.ID)
	p.Hops = 0
	p.Route = [4]int32{}
}

// raiseFlag writes a flagged get's flag word (conduit.FlagWord) when
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
	conduit.StoreFlag(d.Flag.Word, d.Flag.Value)
	t.ep.Wake()
}

// progress counts a completed packet of t and completes t with its last.
func (n *nic) progress(t *txn) {
	t.alive = n.m.k.Now()
	t.pending--
	if t.pending > 0 || t.done {
		return
	}
	if t.kind == pktMsg && t.status != conduit.StatusOK {
		n.finish(t, t.status, t.detail())
		return
	}
	if t.kind == pktGet && t.tCommitted >= t.npkts {
		// Its completion entry went with its last data (handed): it
		// completes when that entry is visible, or now if it is already.
		if t.tCommitted > t.npkts {
			n.complete(t)
		}
		return
	}
	// The completion entry is a posted write to the PE's completion queue,
	// made once the transaction's data is visible, in the transaction's
	// ordering mode (under strict ordering it keeps its place among the
	// node's writes like any other). A short message has one too: the
	// sender's completion queue announces "the completion of locally
	// originated messages" ([GASNET-GEMINI] Overview).
	_, visible := n.host.Write(n.m.k.Now(), n.m.p.CQEntryBytes, 1, n.m.srcLoc(t), t.order)
	n.m.k.At(visible, n, nicComplete, t)
}

// handed counts a get's data packet handed to the source's host interface,
// on a backend whose CQBehindData is set (Gemini), and writes the get's
// completion entry right behind its last one. CQ events are generated when
// all of a transaction's packets have been delivered ([GEMINI-WP] 2.5),
// and the NIC cannot see its posted writes become visible: they have no
// response ([ORDERING] II). The entry goes to the same memory as the data
// (the PE's own), behind it on the host interface: under default and
// strict ordering the host keeps the NIC's writes in order, and under
// relaxed ordering writes to one memory still become visible in the order
// they reach it (gemini's host: one die's controller keeps them in order),
// so the entry cannot become visible before any of the get's data. Aries
// keeps the entry until the data is visible (progress): its flagged
// responses exist so that a PE may learn of a get's data before its
// completion event ([ARIES-WP] Remote Memory Access), which an entry right
// behind the data would leave no time for.
func (n *nic) handed(t *txn) {
	if !n.m.p.CQBehindData || t.status != conduit.StatusOK {
		return
	}
	t.tCommitted++
	if t.tCommitted == t.npkts {
		_, visible := n.host.Write(n.m.k.Now(), n.m.p.CQEntryBytes, 1, n.m.srcLoc(t), t.order)
		n.m.k.At(visible, n, nicComplete, t)
	}
}

// complete ends a transaction whose completion entry is visible. A get
// whose entry went with its last data (handed) may find some of the data's
// commits still to run at the same time: its last commit completes it
// (progress).
func (n *nic) complete(t *txn) {
	if t.done {
		return
	}
	if t.kind == pktGet && t.pending > 0 {
		t.tCommitted = t.npkts + 1
		return
	}
	n.finish(t, conduit.StatusOK, "")
	if n.m.recyclable(t) {
		t.recycle = true
		if t.refs == 0 {
			n.m.freeTxn(t)
		}
	}
}

// finish ends a transaction, with a completion event for a post.
func (n *nic) finish(t *txn, s conduit.Status, detail string) {
	if t.done {
		return
	}
	t.done = true
	t.src.disarm(t)
	if t.status != conduit.StatusOK {
		s, detail = t.status, t.detail()
	}
	n.orbRelease(t, int(t.orbHeld))
	n.bteEnded(t)
	n.m.stats.Transactions++
	n.m.hazards.ended(t)
	if n.m.trace != nil {
		n.m.traceTxn(t, n.m.k.Now())
	}
	switch {
	case t.d != nil:
		t.ep.CompleteLocal(t.d, s, detail)
	case t.kind == pktMsg && s != conduit.StatusOK && !t.resent:
		// A message's completion entry is the NIC's, not the runtime's
		// (no descriptor): its sender learns of the loss from its
		// endpoint.
		t.ep.MessageLost(t.tep.Rank(), s, detail)
	}
}
