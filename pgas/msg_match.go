package pgas

import (
	"fmt"
	"runtime"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/transport"
)

// The matching engine of two-sided messaging. Every message of the layer
// (matching messages and control messages alike) is an AM Medium to the
// runtime handler hMsg carrying a per-pair sequence number. Arrived
// messages are taken in each sender's order: with strict mailboxes (the
// default, as Cray MPI does, [ORDERING] V.B) they are sent under strict
// network ordering on a simulated network and arrive in order; with
// sequence numbers (MsgMatching sequence, as Open MPI does) they are sent
// under the job's ordering and a message that arrives ahead of an earlier
// one waits until the earlier one has come. A matching message is then
// matched against the receives posted, in the order they were posted, or
// kept in the unexpected queue, in the order of arrival, where the next
// receive posted looks first. Together these give MPI's rules: messages
// between a pair match in the order sent, receives in the order posted.
//
// Handlers only record: the protocol steps that send messages or start
// transfers are queued as actions and run by progress, outside the
// handler, when the PE is in a messaging call or waits on a messaging
// handle (as MPI progresses only inside MPI calls). A short message's
// payload is copied at match time, in the handler, so short messages
// complete even while the receiver waits elsewhere.

// hMsg is the runtime's handler for two-sided messaging.
const hMsg am.Index = 2

// Argument layout of a messaging AM.
const (
	aKind    = iota // kind | team<<8
	aSeq            // per-pair sequence number
	aTag            // tag
	aSizeLo         // message size
	aSizeHi         //
	aSendID         // the sender's request id
	aMemID          // registration id of a buffer named
	aMemLo          // its length
	aMemHi          //
	aOffLo          // offset in it
	aOffHi          //
	aPieceLo        // a piece's offset in the message
	aPieceHi        //
	aSlot           // internal-buffer slot
	aRecvID         // the receiver's request id
	nArgs
)

type msgArgs [nArgs]int32

func (a *msgArgs) i64(lo int) int64 { return int64(uint32(a[lo])) | int64(a[lo+1])<<32 }
func (a *msgArgs) set64(lo int, v int64) {
	a[lo], a[lo+1] = int32(uint32(v)), int32(v>>32)
}

// msgReq is one send or receive in progress.
type msgReq struct {
	op     string // the API call, for errors
	send   bool
	team   *Team
	peer   int // global rank; AnySource on a receive from anyone
	tag    int
	buf    []byte
	id     uint32
	proto  proto
	done   bool
	err    error
	status Status
	stOut  *Status // where Irecv's caller wants the status

	// send progress
	next    int64 // bytes staged or put
	reg     msgReg
	peerMem transport.Via // the receiver's buffer (put rendezvous)
	peerOff int64
	recvID  int32
	cts     bool
	inFly   int     // chunks in flight
	chunks  []chunk // chunk registrations of a put rendezvous

	// receive progress
	in   *inMsg
	got  int64 // bytes accounted for
	xfer transport.Op
	// onGet ends a get rendezvous's transfer; made once per request and
	// kept when it is recycled.
	onGet func(*transport.Op)
}

type chunk struct {
	reg msgReg
	off int64 // in the message
	n   int64
}

// inMsg is a matching message that has arrived.
type inMsg struct {
	src    int // global rank
	team   int
	tag    int
	size   int64
	kind   int
	sendID int32
	mem    conduit.MemHandle
	off    int64
	data   []byte     // a short message's payload, copied when unexpected
	own    []byte     // the storage of that copy, kept when recycled
	pieces []msgPiece // buffered pieces arrived and not yet read
	recv   *msgReq
	trunc  bool
}

type msgPiece struct {
	mem  conduit.MemHandle
	off  int64 // in the sender's buffer
	at   int64 // in the message
	n    int64
	slot int32
}

type chanKey struct {
	peer int
	seq  uint32
}

type early struct {
	args    msgArgs
	payload []byte
}

type pieceKey struct {
	src int
	id  int32
}

// msgState is a PE's messaging state.
type msgState struct {
	pe    *PE
	p     msgProto
	stats MsgStats

	posted     []*msgReq
	unexpected []*inMsg
	pieces     map[pieceKey]*inMsg
	sends      map[uint32]*msgReq // awaiting clear-to-send or done
	recvs      map[uint32]*msgReq // awaiting fin
	nextID     uint32

	outSeq map[int]uint32
	inSeq  map[int]uint32
	early  map[chanKey]*early

	outq       fifo[*msgReq]
	actions    fifo[msgAction]
	events     uint64
	inProgress bool
	err        error

	rc    rcache
	slots slotPool

	// Recycled requests and arrived messages (newReq, newIn), the
	// condition of the current wait, and how many times a wait polls
	// before it waits in the conduit (msgWait).
	reqs     freeList[msgReq]
	ins      freeList[inMsg]
	waiter   msgWaiter
	spin     int
	trim     bool // leave trailing zero arguments off (on a real network)
	sendDesc waitDesc
	recvDesc waitDesc
}

// msgSpinPolls is how many times a messaging wait on a real network polls
// before it describes itself and waits in the conduit: an answer already
// on its way usually arrives within them. Assumed: the conduit's own wait
// spins on, so the number only bounds the work done before the
// description is built.
const msgSpinPolls = 64

// fifo is a queue that reuses its storage once drained.
type fifo[T any] struct {
	q    []T
	head int
}

func (f *fifo[T]) len() int { return len(f.q) - f.head }
func (f *fifo[T]) push(v T) { f.q = append(f.q, v) }
func (f *fifo[T]) peek() T  { return f.q[f.head] }
func (f *fifo[T]) pop() T {
	v := f.q[f.head]
	var zero T
	f.q[f.head] = zero
	f.head++
	if f.head == len(f.q) {
		f.q, f.head = f.q[:0], 0
	}
	return v
}

// freeList holds recycled objects, at most msgFreeMax of them.
type freeList[T any] struct{ free []*T }

// get returns a recycled object, or a new one; the caller clears it.
func (l *freeList[T]) get() *T {
	n := len(l.free)
	if n == 0 {
		return new(T)
	}
	v := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	return v
}

// full reports whether the list takes no more.
func (l *freeList[T]) full() bool { return len(l.free) >= msgFreeMax }

func (l *freeList[T]) put(v *T) { l.free = append(l.free, v) }

// msgFreeMax bounds each list of recycled objects: assumed, a window of
// the OSU benchmarks' size (64) and then some.
const msgFreeMax = 256

// newReq returns a cleared request, recycled if one is free.
func (m *msgState) newReq() *msgReq { return m.reqs.get() }

// recycle takes back a request its caller is done with. Only a request
// that completed without error is reused: a failed one may still be named
// by a protocol step queued before it failed.
func (m *msgState) recycle(r *msgReq) {
	if !r.done || r.err != nil || m.reqs.full() {
		return
	}
	if in := r.in; in != nil && in.kind != kBuf {
		// Its protocol is over: nothing names it any more. (A buffered
		// message is left to the collector, to be safe about its pieces.)
		m.recycleIn(in)
	}
	*r = msgReq{chunks: r.chunks[:0], onGet: r.onGet}
	m.reqs.put(r)
}

// newIn returns a cleared arrived message, recycled if one is free.
func (m *msgState) newIn() *inMsg { return m.ins.get() }

// recycleIn takes back an arrived message whose receive is over; its copy
// buffer is kept for the next unexpected short message.
func (m *msgState) recycleIn(in *inMsg) {
	if m.ins.full() {
		return
	}
	*in = inMsg{own: in.own[:0]}
	m.ins.put(in)
}

// sharedMemory reports whether the job runs on a real backend with every
// PE's memory at hand: on one node, or with every peer's segment mapped
// (smp; the default of PGAS_MSG_RNDV_PUT).
func (pe *PE) sharedMemory() bool {
	if pe.ep.Caps().Simulated {
		return false
	}
	if pe.ep.Nodes() == 1 {
		return true
	}
	for r := range pe.size {
		if pe.eng.Direct(r) == nil {
			return false
		}
	}
	return true
}

func (pe *PE) initMsg() error {
	pe.msg = &msgState{
		pe:     pe,
		p:      newMsgProto(pe.cfg, pe.am.MaxMedium(), pe.sharedMemory(), pe.ep.Caps()),
		pieces: make(map[pieceKey]*inMsg),
		sends:  make(map[uint32]*msgReq),
		recvs:  make(map[uint32]*msgReq),
		outSeq: make(map[int]uint32),
		inSeq:  make(map[int]uint32),
		early:  make(map[chanKey]*early),
	}
	// On a simulated network a message's header keeps every argument, as
	// the modelled MPI's does; its size is part of the message's cost.
	pe.msg.trim = !pe.ep.Caps().Simulated
	if !pe.ep.Caps().Simulated && pe.ep.Size() <= min(runtime.GOMAXPROCS(0), runtime.NumCPU()) {
		// With more PEs than processors a wait gives its processor up at
		// once (the conduit's wait does), and so does this one.
		pe.msg.spin = msgSpinPolls
	}
	return pe.am.RegisterReserved(hMsg, "pgas.message", pe.msg.onMsg)
}

// later queues a protocol step for progress.
func (m *msgState) later(f func() error) {
	m.actions.push(msgAction{f: f})
	m.events++
}

// laterStep queues one of the common protocol steps on request r: these
// need no closure, so that a message's steps allocate nothing.
func (m *msgState) laterStep(step msgStep, r *msgReq, err error) {
	m.actions.push(msgAction{step: step, r: r, err: err})
	m.events++
}

// msgAction is a protocol step queued for progress: f, or step on r.
type msgAction struct {
	f    func() error
	step msgStep
	r    *msgReq
	err  error
}

type msgStep uint8

const (
	stepGetData   msgStep = iota + 1 // m.getData(r)
	stepGetDone                      // m.getDone(r, err)
	stepCTS                          // m.clearToSend(r)
	stepPutChunks                    // m.putChunks(r)
	stepRelease                      // complete r once its registration is released
)

func (m *msgState) run(a msgAction) error {
	r := a.r
	switch a.step {
	case stepGetData:
		return m.getData(r)
	case stepGetDone:
		return m.getDone(r, a.err)
	case stepCTS:
		return m.clearToSend(r)
	case stepPutChunks:
		return m.putChunks(r)
	case stepRelease:
		m.complete(r, m.release(r.reg))
		return nil
	}
	return a.f()
}

func (m *msgState) complete(r *msgReq, err error) {
	if r.done {
		return
	}
	if err != nil && r.err == nil {
		r.err = err
	}
	r.done = true
	m.events++
}

// send sends a messaging AM: under strict network ordering on a simulated
// network unless matching uses sequence numbers.
func (m *msgState) send(dest int, a *msgArgs, kind int, team int, payload []byte) error {
	pe := m.pe
	m.outSeq[dest]++
	a[aKind] = int32(kind | team<<8)
	a[aSeq] = int32(m.outSeq[dest])
	if !m.p.seq && pe.ep.Caps().Simulated {
		if prev := pe.ep.Ordering(); prev != conduit.OrderStrict {
			if err := pe.ep.SetOrdering(conduit.OrderStrict); err != nil {
				return err
			}
			defer pe.ep.SetOrdering(prev) //nolint:errcheck // prev was valid
		}
	}
	args := a[:]
	if m.trim {
		// Trailing zero arguments are left off: the receiver reads them
		// as zero. A short message then fits one cache line of a
		// shared-memory mailbox.
		for len(args) > aSeq+1 && args[len(args)-1] == 0 {
			args = args[:len(args)-1]
		}
	}
	return pe.am.RequestMedium(dest, hMsg, payload, args...)
}

// onMsg takes an arrived messaging AM in its sender's order.
func (m *msgState) onMsg(msg *am.Message) error {
	if len(msg.Args) > nArgs || len(msg.Args) <= aSeq {
		return fmt.Errorf("messaging AM with %d arguments", len(msg.Args))
	}
	var a msgArgs
	copy(a[:], msg.Args)
	src := msg.Source()
	seq := uint32(a[aSeq])
	if seq != m.inSeq[src]+1 {
		m.stats.Reordered++
		m.early[chanKey{src, seq}] = &early{args: a, payload: append([]byte(nil), msg.Payload...)}
		return nil
	}
	m.inSeq[src] = seq
	if err := m.take(src, &a, msg.Payload); err != nil {
		return err
	}
	for {
		k := chanKey{src, m.inSeq[src] + 1}
		e := m.early[k]
		if e == nil {
			return nil
		}
		delete(m.early, k)
		m.inSeq[src] = k.seq
		if err := m.take(src, &e.args, e.payload); err != nil {
			return err
		}
	}
}

// take processes one message from src.
func (m *msgState) take(src int, a *msgArgs, payload []byte) error {
	kind, team := int(a[aKind]&0xff), int(a[aKind]>>8)
	mem := conduit.MemHandle{Owner: int32(src), ID: uint32(a[aMemID]), Bytes: a.i64(aMemLo)}
	switch kind {
	case kShort, kRTSGet, kRTSPut:
		in := m.newIn()
		in.src, in.team, in.tag, in.size, in.kind, in.sendID, in.mem, in.off = src, team, int(a[aTag]), a.i64(aSizeLo), kind, a[aSendID], mem, a.i64(aOffLo)
		if kind == kShort {
			in.data = payload // copied if it stays unexpected
		}
		m.arrive(in)
	case kBuf:
		// A piece's length rides in the receive-id argument, unused here.
		p := msgPiece{mem: mem, off: a.i64(aOffLo), at: a.i64(aPieceLo), n: int64(a[aRecvID]), slot: a[aSlot]}
		key := pieceKey{src, a[aSendID]}
		if p.at == 0 {
			in := &inMsg{src: src, team: team, tag: int(a[aTag]), size: a.i64(aSizeLo), kind: kind, sendID: a[aSendID], pieces: []msgPiece{p}}
			if in.size > p.n {
				m.pieces[key] = in
			}
			m.arrive(in)
			return nil
		}
		in := m.pieces[key]
		if in == nil {
			return fmt.Errorf("a message piece at %d from PE %d names send %d, which is not in progress", p.at, src, a[aSendID])
		}
		if in.last(p) {
			delete(m.pieces, key)
		}
		in.pieces = append(in.pieces, p)
		if in.recv != nil {
			m.readPieces(in)
		}
	case kCTS:
		r := m.sends[uint32(a[aSendID])]
		if r == nil {
			return fmt.Errorf("clear-to-send from PE %d names send %d, which is not in progress", src, a[aSendID])
		}
		r.cts = true
		r.peerMem = via(mem, conduit.BTE)
		r.peerOff = a.i64(aOffLo)
		r.recvID = a[aRecvID]
		m.laterStep(stepPutChunks, r, nil)
	case kDone:
		r := m.sends[uint32(a[aSendID])]
		if r == nil {
			return fmt.Errorf("done from PE %d names send %d, which is not in progress", src, a[aSendID])
		}
		delete(m.sends, r.id)
		m.laterStep(stepRelease, r, nil)
	case kRelease:
		m.slots.free = append(m.slots.free, a[aSlot])
		m.events++
	case kFin:
		r := m.recvs[uint32(a[aRecvID])]
		if r == nil {
			return fmt.Errorf("fin from PE %d names receive %d, which is not in progress", src, a[aRecvID])
		}
		delete(m.recvs, r.id)
		m.laterStep(stepRelease, r, nil)
	default:
		return fmt.Errorf("messaging AM of unknown kind %d from PE %d", kind, src)
	}
	return nil
}

// last reports whether p is the message's last piece.
func (in *inMsg) last(p msgPiece) bool { return p.at+p.n >= in.size }

// matches reports whether receive r takes message in.
func (r *msgReq) matches(in *inMsg) bool {
	return r.team.id == in.team && (r.peer == AnySource || r.peer == in.src) && (r.tag == AnyTag || r.tag == in.tag)
}

// arrive matches a message against the posted receives, in posting order,
// or queues it as unexpected.
func (m *msgState) arrive(in *inMsg) {
	for i, r := range m.posted {
		if r.matches(in) {
			m.posted = append(m.posted[:i], m.posted[i+1:]...)
			m.match(r, in)
			return
		}
	}
	if in.kind == kShort {
		in.own = append(in.own[:0], in.data...)
		in.data = in.own
	}
	m.stats.Unexpected++
	m.unexpected = append(m.unexpected, in)
	m.events++
}

// post matches a new receive against the unexpected messages, in arrival
// order, or queues it as posted.
func (m *msgState) post(r *msgReq) {
	m.pe.ep.Charge(m.p.postCost)
	for i, in := range m.unexpected {
		if r.matches(in) {
			m.unexpected = append(m.unexpected[:i], m.unexpected[i+1:]...)
			m.match(r, in)
			return
		}
	}
	m.posted = append(m.posted, r)
}

// match joins a receive and a message: the receive-side software cost is
// charged and the message's protocol continues.
func (m *msgState) match(r *msgReq, in *inMsg) {
	pe := m.pe
	pe.ep.Charge(m.p.matchCost)
	in.recv, r.in = r, in
	r.status = Status{Source: r.team.TeamRank(in.src), Tag: in.tag, Bytes: int(in.size)}
	if in.size > int64(len(r.buf)) {
		in.trunc = true
		r.err = pe.errf(r.op, ErrTruncate, "message of %d bytes from PE %d with tag %d does not fit the %d-byte receive buffer", in.size, in.src, in.tag, len(r.buf))
	}
	switch in.kind {
	case kShort:
		m.stats.Received[protoShort-1]++
		if !in.trunc {
			copy(r.buf, in.data)
		}
		r.in = nil
		m.recycleIn(in)
		m.complete(r, nil)
	case kBuf:
		m.stats.Received[protoBuffered-1]++
		m.readPieces(in)
	case kRTSGet:
		m.stats.Received[protoGet-1]++
		m.laterStep(stepGetData, r, nil)
	case kRTSPut:
		m.stats.Received[protoPut-1]++
		m.laterStep(stepCTS, r, nil)
	}
}

// readPieces reads the arrived pieces of a matched buffered message.
func (m *msgState) readPieces(in *inMsg) {
	r := in.recv
	for _, p := range in.pieces {
		m.later(func() error { return m.readPiece(r, in, p) })
	}
	in.pieces = in.pieces[:0]
}
