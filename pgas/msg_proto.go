package pgas

import (
	"errors"
	"math"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/transport"
)

// The protocols of two-sided messaging, after Cray MPICH on Gemini as
// [ORDERING] V.E describes it, and their costs. The matching engine
// (msg_match.go) calls protoFor when a send starts and the protocol steps
// below when a message is matched or a control message arrives.
//
//   - protoShort: eager through one mailbox message (an AM Medium carrying
//     the payload), below the eager-short limit: MsgEagerShort, lowered in
//     large jobs by the mailbox memory (msg_mailbox.go, R-MPI-E0).
//   - protoBuffered: eager through the runtime's pre-registered internal
//     buffers, below MsgEagerBuffer (R-MPI-E1). The sender copies the data
//     into a slot of its internal buffer (registered once) and sends a
//     header naming the slot; after matching the receiver reads the slot by
//     FMA into its receive buffer and sends the slot back (a release
//     message). The send is complete once the data is copied. With
//     rendezvous disabled (MsgRendezvous off, the paper's Figure 11 right)
//     every message at or above MsgEagerShort takes this path, in pieces of
//     one slot.
//   - protoGet: rendezvous by the receiver's get, from MsgEagerBuffer up to
//     MsgRendezvousPut (R-MPI-R0). The sender registers its buffer (or finds
//     it in the registration cache) and sends a request-to-send naming it;
//     after matching the receiver registers its own buffer (or finds it in
//     the cache), reads the data by block transfer and sends done, which
//     completes the send.
//   - protoPut: rendezvous by the sender's puts, at and above
//     MsgRendezvousPut (R-MPI-R1). The sender sends a request-to-send; after
//     matching the receiver registers its buffer and answers clear-to-send
//     naming it; the sender registers its buffer chunk by chunk
//     (MsgChunkBytes; each chunk looked up in the registration cache
//     first), registering the next chunk while the current one moves (the
//     only overlap: one chunk in flight at a time), puts each by block
//     transfer, and sends fin, which completes the receive.
//
// A buffer inside the PE's segment needs no registration: the segment is
// registered at start-up.

// Message kinds (the low byte of the first argument).
const (
	kShort   = iota + 1 // eager payload in the message
	kBuf                // a piece of a buffered eager message in a sender's slot
	kRTSGet             // request-to-send, receiver gets
	kRTSPut             // request-to-send, sender puts after clear-to-send
	kCTS                // clear-to-send (receiver to sender)
	kDone               // receiver finished reading / refused: the send completes
	kRelease            // receiver has read a slot: the sender may reuse it
	kFin                // sender finished putting: the receive completes
)

type proto uint8

const (
	protoShort proto = iota + 1
	protoBuffered
	protoGet
	protoPut
)

func (p proto) String() string {
	switch p {
	case protoShort:
		return "eager-short"
	case protoBuffered:
		return "eager-buffered"
	case protoGet:
		return "rendezvous-get"
	case protoPut:
		return "rendezvous-put"
	}
	return "?"
}

// Receive-side software cost of a message: [ORDERING] VI.A, "The MPI per
// core message reception rate is determined by the software overhead,
// which is around ... 1933 cycles on Cray XE6", on the 2.1 GHz cores of its
// platform (II). That is the whole software of a reception: the runtime
// charges it on a simulated network less what the backend charges itself
// for taking the message from its mailbox (conduit.Caps.MessageCost), in
// two parts: MsgPostCycles when the receive is posted (making the
// request, searching the messages that came unexpected, queueing it) and
// the rest when a message is matched to it (taking it from the mailbox,
// searching the posted receives, copying the data, completing the
// request). A message rate pays both for every message; a ping-pong's
// receiver posts before its message arrives, so only the match lies on
// the round trip's path. The cycles are counted at the simulated host's
// core clock (conduit.Caps.CoreHz: "the MPI latencies depend on the type
// and speed of CPU", [ARIES-WP] Aries Performance). On a real backend they
// are the time really spent.
const (
	// MsgRecvCycles is the per-message receive overhead in core cycles.
	MsgRecvCycles = 1933
	// MsgPostCycles is the part of it spent posting the receive, and
	// MsgMatchCycles the part spent on the message once it has come
	// (the backend's mailbox share included). Assumed: half each (the
	// documents give only the whole; MPICH's posting and its matching each
	// search a queue and handle the request once).
	MsgPostCycles  = MsgRecvCycles / 2
	MsgMatchCycles = MsgRecvCycles - MsgPostCycles
	// msgCoreHz is the core clock the paper counts the cycles at, and the
	// one the runtime uses when a backend names none.
	msgCoreHz = 2.1e9
	// MsgRecvOverhead is MsgRecvCycles at msgCoreHz: about 920 ns.
	MsgRecvOverhead = conduit.Time(MsgRecvCycles * int64(conduit.Second) / int64(msgCoreHz))
)

// MsgRecvCosts are the receive software the runtime charges on a backend
// with capabilities caps: when a receive is posted, and when its message
// is matched (MsgMatchCycles less the backend's own MessageCost).
func MsgRecvCosts(caps conduit.Caps) (post, match conduit.Time) {
	hz := caps.CoreHz
	if hz <= 0 {
		hz = msgCoreHz
	}
	at := func(cycles int64) conduit.Time {
		return conduit.Time(math.Round(float64(cycles) * float64(conduit.Second) / hz))
	}
	return at(MsgPostCycles), max(0, at(MsgMatchCycles)-caps.MessageCost)
}

// msgSlots is how many slots of MsgEagerBuffer bytes a PE's internal send
// buffer has. Assumed: the documents say only that "a small amount of
// memory is preregistered" ([ORDERING] V.D); 16 slots keep a window of 16
// buffered messages in flight per PE at 128 KiB of registered memory.
const msgSlots = 16

// msgProto is the protocol configuration of a PE, from its Config.
type msgProto struct {
	e0, e1, r1    int64
	chunk         int64
	rndv          bool
	seq           bool // sequence numbers over the job's ordering, not strict mailboxes
	rcacheEntries int
	rcacheMax     int64
	// postCost and matchCost are the receive's software (MsgRecvCosts).
	postCost, matchCost conduit.Time
}

// newMsgProto is the protocols of c; sharedMemory says the job's PEs share
// one node's memory on a real backend (the put rendezvous's default).
func newMsgProto(c Config, maxMedium int, sharedMemory bool, caps conduit.Caps) msgProto {
	r1 := c.MsgRendezvousPut
	switch {
	case r1 != 0:
	case sharedMemory:
		r1 = math.MaxInt64
	default:
		r1 = DefaultRendezvousPut
	}
	post, match := MsgRecvCosts(caps)
	return msgProto{
		e0:            min(EagerShortLimit(c.MsgEagerShort, c.PEs, c.NetworkDepth), int64(maxMedium)),
		e1:            c.MsgEagerBuffer,
		r1:            r1,
		chunk:         c.MsgChunkBytes,
		rndv:          c.MsgRendezvous != Off,
		seq:           c.MsgMatching == MatchSequence,
		rcacheEntries: c.MsgRcacheEntries,
		rcacheMax:     c.MsgRcacheMaxBytes,
		postCost:      post,
		matchCost:     match,
	}
}

// protoFor chooses the protocol of an n-byte message.
func (p *msgProto) protoFor(n int64) proto {
	switch {
	case n < p.e0:
		return protoShort
	case n < p.e1 || !p.rndv:
		return protoBuffered
	case n < p.r1:
		return protoGet
	}
	return protoPut
}

// MsgProtocol names the protocol that a two-sided message of n bytes takes
// in the PE's job: "eager-short", "eager-buffered", "rendezvous-get" or
// "rendezvous-put" (a rendezvous may still fall back to the internal
// buffers when registration fails).
func (pe *PE) MsgProtocol(n int) string { return pe.msg.p.protoFor(int64(n)).String() }

// MsgStats count a PE's two-sided messaging.
type MsgStats struct {
	// Sent and Received count messages by protocol: eager-short,
	// eager-buffered, rendezvous-get, rendezvous-put.
	Sent, Received [4]int64
	// Unexpected counts messages that arrived before a matching receive.
	Unexpected int64
	// Reordered counts messages held back because one sent before them had
	// not arrived (sequence-number matching).
	Reordered int64
	// Pieces counts internal-buffer pieces sent.
	Pieces int64
	// RcacheHits and RcacheMisses count registration-cache lookups
	// (buffers in the segment need none); RcacheEvictions the
	// registrations it dropped for room; Chunks the chunks of put
	// rendezvous.
	RcacheHits, RcacheMisses, RcacheEvictions, Chunks int64
	// SlotWaits counts times a send found no free internal-buffer slot.
	SlotWaits int64
	// RegFallbacks counts rendezvous registrations that failed for want
	// of registrable memory and went on without (msg_proto.go).
	RegFallbacks int64
}

// rcEntry is a registration the cache holds.
type rcEntry struct {
	base, n uintptr
	h       conduit.MemHandle
	refs    int
	used    uint64 // last use, for LRU eviction
}

// rcache is the registration cache ([ORDERING] V.D): recently registered
// user buffers, at most entries of them, none larger than max bytes; a
// larger buffer is registered for the transfer and deregistered after.
type rcache struct {
	ents  []*rcEntry
	clock uint64
}

// msgReg is a registration a transfer uses: the handle and offset that
// name the buffer, and how to let it go.
type msgReg struct {
	h     conduit.MemHandle
	off   int64
	ent   *rcEntry // cached: unref when done
	owned bool     // registered for this transfer alone
}

// register finds or makes a registration covering buf (not empty).
func (m *msgState) register(buf []byte) (msgReg, error) {
	pe := m.pe
	if off, ok := pe.segOffset(buf); ok {
		return msgReg{h: pe.ep.SegmentHandle(pe.rank), off: off}, nil
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	n := uintptr(len(buf))
	rc := &m.rc
	rc.clock++
	for _, e := range rc.ents {
		if base >= e.base && base+n <= e.base+e.n {
			m.stats.RcacheHits++
			e.refs++
			e.used = rc.clock
			return msgReg{h: e.h, off: int64(base - e.base), ent: e}, nil
		}
	}
	m.stats.RcacheMisses++
	if int64(n) > m.p.rcacheMax || m.p.rcacheEntries == 0 {
		h, err := pe.ep.Register(buf)
		return msgReg{h: h, owned: true}, err
	}
	if len(rc.ents) >= m.p.rcacheEntries {
		// Evict the least recently used entry nobody uses; when all are in
		// use, register this buffer for the transfer alone.
		victim := -1
		for i, e := range rc.ents {
			if e.refs == 0 && (victim < 0 || e.used < rc.ents[victim].used) {
				victim = i
			}
		}
		if victim < 0 {
			h, err := pe.ep.Register(buf)
			return msgReg{h: h, owned: true}, err
		}
		if err := pe.ep.Deregister(rc.ents[victim].h); err != nil {
			return msgReg{}, err
		}
		m.stats.RcacheEvictions++
		rc.ents = append(rc.ents[:victim], rc.ents[victim+1:]...)
	}
	h, err := pe.ep.Register(buf)
	if err != nil {
		return msgReg{}, err
	}
	e := &rcEntry{base: base, n: n, h: h, refs: 1, used: rc.clock}
	rc.ents = append(rc.ents, e)
	return msgReg{h: h, ent: e}, nil
}

// release lets a registration go once its transfer is over.
func (m *msgState) release(r msgReg) error {
	switch {
	case r.ent != nil:
		r.ent.refs--
	case r.owned:
		return m.pe.ep.Deregister(r.h)
	}
	return nil
}

// segOffset reports whether buf lies inside the PE's segment, and where.
func (pe *PE) segOffset(buf []byte) (int64, bool) {
	if len(buf) == 0 || len(pe.seg) == 0 {
		return 0, false
	}
	b := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	s := uintptr(unsafe.Pointer(unsafe.SliceData(pe.seg)))
	if b < s || b+uintptr(len(buf)) > s+uintptr(len(pe.seg)) {
		return 0, false
	}
	return int64(b - s), true
}

// slotPool is the PE's internal send buffer: msgSlots slots of e1 bytes,
// registered as one region on first use.
type slotPool struct {
	buf  []byte
	h    conduit.MemHandle
	free []int32
}

func (m *msgState) slot() (int32, bool, error) {
	sp := &m.slots
	if sp.buf == nil {
		sp.buf = make([]byte, msgSlots*m.p.e1)
		h, err := m.pe.ep.Register(sp.buf)
		if err != nil {
			sp.buf = nil
			return 0, false, err
		}
		sp.h = h
		for i := msgSlots - 1; i >= 0; i-- {
			sp.free = append(sp.free, int32(i))
		}
	}
	if len(sp.free) == 0 {
		return 0, false, nil
	}
	s := sp.free[len(sp.free)-1]
	sp.free = sp.free[:len(sp.free)-1]
	return s, true, nil
}

func (m *msgState) slotBytes(s int32) []byte {
	return m.slots.buf[int64(s)*m.p.e1 : int64(s+1)*m.p.e1]
}

// via names a peer's registration for the transport, with the mechanism
// the protocol uses.
func via(h conduit.MemHandle, mech conduit.Mechanism) transport.Via {
	return transport.Via{Mem: h, Mech: mech}
}

// The protocol steps. Each runs in progress, outside any handler; the
// completion of a transfer queues the next step.

// advance starts or continues a send at the head of the send queue. It
// reports false when the send must wait (for a free internal-buffer slot)
// and the sends behind it with it, so that they keep their order.
func (m *msgState) advance(r *msgReq) (bool, error) {
	dest, team, n := r.peer, r.team.id, int64(len(r.buf))
	var a msgArgs
	a[aTag] = int32(r.tag)
	a.set64(aSizeLo, n)
	a[aSendID] = int32(r.id)
	switch r.proto {
	case protoShort:
		if err := m.send(dest, &a, kShort, team, r.buf); err != nil {
			return true, err
		}
		m.stats.Sent[protoShort-1]++
		m.complete(r, nil)
	case protoBuffered:
		if r.next == 0 {
			m.stats.Sent[protoBuffered-1]++
		}
		for r.next < n {
			s, ok, err := m.slot()
			if err != nil {
				m.complete(r, m.pe.wrap(r.op, err))
				return true, nil
			}
			if !ok {
				m.stats.SlotWaits++
				return false, nil
			}
			k := min(m.p.e1, n-r.next)
			copy(m.slotBytes(s), r.buf[r.next:r.next+k])
			m.pe.eng.ChargeCopy(int(k))
			a[aMemID] = int32(m.slots.h.ID)
			a.set64(aMemLo, m.slots.h.Bytes)
			a.set64(aOffLo, int64(s)*m.p.e1)
			a.set64(aPieceLo, r.next)
			a[aSlot] = s
			a[aRecvID] = int32(k)
			if err := m.send(dest, &a, kBuf, team, nil); err != nil {
				return true, err
			}
			m.stats.Pieces++
			r.next += k
		}
		m.complete(r, nil)
	case protoGet:
		reg, err := m.register(r.buf)
		if errors.Is(err, ErrRegistrationFull) {
			// No registrable memory: through the internal buffers instead.
			m.stats.RegFallbacks++
			r.proto = protoBuffered
			return m.advance(r)
		}
		if err != nil {
			m.complete(r, m.pe.wrap(r.op, err))
			return true, nil
		}
		r.reg = reg
		m.sends[r.id] = r
		a[aMemID] = int32(reg.h.ID)
		a.set64(aMemLo, reg.h.Bytes)
		a.set64(aOffLo, reg.off)
		m.stats.Sent[protoGet-1]++
		return true, m.send(dest, &a, kRTSGet, team, nil)
	case protoPut:
		m.sends[r.id] = r
		m.stats.Sent[protoPut-1]++
		return true, m.send(dest, &a, kRTSPut, team, nil)
	}
	return true, nil
}

// readPiece reads one piece of a matched buffered message from the
// sender's slot by FMA into the receive buffer (through the receiver's own
// pre-registered bounce buffers when the receive buffer is not registered)
// and then releases the slot.
func (m *msgState) readPiece(r *msgReq, in *inMsg, p msgPiece) error {
	finish := func() error {
		r.got += p.n
		if r.got >= in.size {
			m.complete(r, nil)
		}
		var a msgArgs
		a[aSlot] = p.slot
		return m.send(in.src, &a, kRelease, in.team, nil)
	}
	if in.trunc {
		return finish()
	}
	op := &transport.Op{}
	op.OnDone = func(op *transport.Op) {
		err := op.Err()
		m.later(func() error {
			if err != nil {
				m.complete(r, m.pe.wrap(r.op, err))
			}
			return finish()
		})
	}
	if err := m.pe.eng.GetMem(op, via(p.mem, conduit.FMA), p.off, r.buf[p.at:p.at+p.n], conduit.OrderInherit); err != nil {
		m.complete(r, m.pe.wrap(r.op, err)) // OnDone still releases the slot
	}
	return nil
}

// getData is the receiver's side of a get rendezvous: register the receive
// buffer (or find it in the cache), read the sender's buffer by block
// transfer, send done.
func (m *msgState) getData(r *msgReq) error {
	in := r.in
	if in.trunc {
		return m.getDone(r, nil)
	}
	dst := r.buf[:in.size]
	reg, err := m.register(dst)
	switch {
	case errors.Is(err, ErrRegistrationFull):
		// Read into the unregistered buffer: the transport bounces it.
		m.stats.RegFallbacks++
		reg = msgReg{}
	case err != nil:
		return m.getDone(r, m.pe.wrap(r.op, err))
	}
	r.reg = reg
	if r.onGet == nil {
		r.onGet = func(op *transport.Op) { m.laterStep(stepGetDone, r, m.pe.wrap(r.op, op.Err())) }
	}
	r.xfer = transport.Op{OnDone: r.onGet}
	if err := m.pe.eng.GetMem(&r.xfer, via(in.mem, conduit.BTE), in.off, dst, conduit.OrderInherit); err != nil {
		m.complete(r, m.pe.wrap(r.op, err))
	}
	return nil
}

// getDone ends the receiver's side of a get rendezvous: release the
// registration, complete the receive, send done.
func (m *msgState) getDone(r *msgReq, err error) error {
	in := r.in
	if rerr := m.release(r.reg); err == nil && rerr != nil {
		err = m.pe.wrap(r.op, rerr)
	}
	r.reg = msgReg{}
	m.complete(r, err)
	var a msgArgs
	a[aSendID] = in.sendID
	return m.send(in.src, &a, kDone, in.team, nil)
}

// clearToSend is the receiver's side of a put rendezvous: register the
// receive buffer (or find it in the cache) and name it to the sender. A
// receive that cannot take the message answers done instead, and the send
// completes without moving data.
func (m *msgState) clearToSend(r *msgReq) error {
	in := r.in
	var a msgArgs
	a[aSendID] = in.sendID
	refuse := func(err error) error {
		m.complete(r, err)
		return m.send(in.src, &a, kDone, in.team, nil)
	}
	if in.trunc {
		return refuse(nil)
	}
	reg, err := m.register(r.buf[:in.size])
	if err != nil {
		return refuse(m.pe.wrap(r.op, err))
	}
	r.reg = reg
	m.nextID++
	r.id = m.nextID
	m.recvs[r.id] = r
	a[aMemID] = int32(reg.h.ID)
	a.set64(aMemLo, reg.h.Bytes)
	a.set64(aOffLo, reg.off)
	a[aRecvID] = int32(r.id)
	return m.send(in.src, &a, kCTS, in.team, nil)
}

// putChunks is the sender's side of a put rendezvous after clear-to-send:
// one chunk in flight at a time, the next chunk registered while it moves,
// then fin.
func (m *msgState) putChunks(r *msgReq) error {
	n := int64(len(r.buf))
	if r.inFly == 0 && r.next < n {
		c, err := m.nextChunk(r)
		if err != nil {
			m.complete(r, m.pe.wrap(r.op, err))
			r.next = n // send fin: the receiver must not wait for ever
		} else {
			r.chunks = r.chunks[1:]
			op := &transport.Op{}
			op.OnDone = func(op *transport.Op) {
				err := op.Err()
				m.later(func() error {
					r.inFly--
					if err != nil {
						m.complete(r, m.pe.wrap(r.op, err))
					}
					if err := m.release(c.reg); err != nil {
						m.complete(r, m.pe.wrap(r.op, err))
					}
					return m.putChunks(r)
				})
			}
			r.inFly++
			r.next += c.n
			if err := m.pe.eng.PutMem(op, r.peerMem, r.peerOff+c.off, r.buf[c.off:c.off+c.n], conduit.OrderInherit); err != nil {
				m.complete(r, m.pe.wrap(r.op, err))
			}
		}
	}
	if r.inFly > 0 && r.next < n && len(r.chunks) == 0 {
		// Registration overlaps the transfer of the chunk ahead.
		if _, err := m.nextChunk(r); err != nil {
			m.complete(r, m.pe.wrap(r.op, err))
		}
	}
	if r.inFly == 0 && r.next >= n {
		delete(m.sends, r.id)
		var a msgArgs
		a[aRecvID] = r.recvID
		err := m.send(r.peer, &a, kFin, r.team.id, nil)
		m.complete(r, nil)
		return err
	}
	return nil
}

// nextChunk returns the registered chunk that starts at r.next,
// registering it (through the registration cache) unless that is done.
func (m *msgState) nextChunk(r *msgReq) (chunk, error) {
	if len(r.chunks) > 0 {
		return r.chunks[0], nil
	}
	k := min(m.p.chunk, int64(len(r.buf))-r.next)
	reg, err := m.register(r.buf[r.next : r.next+k])
	switch {
	case errors.Is(err, ErrRegistrationFull):
		// Put from the unregistered chunk: the transport bounces it.
		m.stats.RegFallbacks++
		reg = msgReg{}
	case err != nil:
		return chunk{}, err
	}
	m.stats.Chunks++
	c := chunk{reg: reg, off: r.next, n: k}
	r.chunks = append(r.chunks, c)
	return c, nil
}
