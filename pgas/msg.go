package pgas

import (
	"errors"
	"fmt"
	"math"
)

// Two-sided messaging: Send and Recv in the style of MPI, over the
// runtime's active messages and RDMA, with the protocols of Cray MPICH on
// Gemini ([ORDERING] V.E; msg_proto.go) and MPI's matching rules
// (msg_match.go):
//
//   - a message matches a receive of the same team whose source is its
//     sender or AnySource and whose tag is its tag or AnyTag;
//   - messages from one PE to another match in the order they were sent
//     (non-overtaking), receives match in the order they were posted;
//   - a receive buffer may be larger than the message (Status.Bytes is the
//     message's size); a smaller one fails the receive with ErrTruncate,
//     naming both sizes, the sender and the tag.
//
// Messages sent in a team match only receives in that team: each team is
// a communicator. Ranks and Status.Source are ranks of the team (of the
// job for the PE's methods, which use the world team).
//
// Progress: as MPI without an asynchronous progress thread, a message
// moves while the PEs at both ends are in messaging calls (Send, Recv,
// Probe, Iprobe, and Wait, Test, WaitAll, WaitSome on messaging handles).
// Short (eager) messages are delivered into a posted receive whenever the
// receiver makes any progress; larger ones need the receiver, and for a
// rendezvous the sender too, inside a messaging call. A program that posts
// Irecv, then waits in a Barrier for a PE that waits in Send for that
// receive, deadlocks: complete messaging handles before the barrier.

// Wildcards of a receive or probe.
const (
	// AnySource matches a message from any PE of the team.
	AnySource = -1
	// AnyTag matches a message with any tag.
	AnyTag = -1
	// MaxTag is the largest tag.
	MaxTag = math.MaxInt32
)

// ErrTruncate is wrapped by the error of a receive whose buffer is smaller
// than the message it matched.
var ErrTruncate = errors.New("message truncated")

// Status describes a received or probed message.
type Status struct {
	// Source is the sender's rank in the team.
	Source int
	// Tag is the message's tag.
	Tag int
	// Bytes is the message's size.
	Bytes int
}

// Matching is how messages keep their order for matching (PGAS_MSG_MATCHING).
type Matching uint8

const (
	// MatchStrict sends every matching message through strictly ordered
	// mailboxes, as Cray MPI does ([ORDERING] V.B): on a simulated network
	// its messages use strict network ordering whatever the job's.
	MatchStrict Matching = iota + 1
	// MatchSequence sends them under the job's ordering, each with a
	// per-pair sequence number by which the receiver restores the sender's
	// order, as Open MPI does.
	MatchSequence
)

// String returns "strict" or "sequence".
func (m Matching) String() string {
	switch m {
	case MatchStrict:
		return "strict"
	case MatchSequence:
		return "sequence"
	}
	return fmt.Sprintf("Matching(%d)", uint8(m))
}

func parseMatching(s string) (Matching, error) {
	switch s {
	case "strict":
		return MatchStrict, nil
	case "sequence":
		return MatchSequence, nil
	}
	return 0, fmt.Errorf("unknown matching %q", s)
}

// Send sends buf to PE dest of the job with tag and returns when buf may
// be reused: a short or buffered message once it is copied, a rendezvous
// once the receiver has its data.
func (pe *PE) Send(dest, tag int, buf []byte) error { return pe.world.send("Send", dest, tag, buf) }

// Recv receives a message from src (or AnySource) with tag (or AnyTag)
// into buf.
func (pe *PE) Recv(src, tag int, buf []byte) (Status, error) {
	return pe.world.recv("Recv", src, tag, buf)
}

// Isend starts a send; the Handle completes it (Wait, Test, WaitAll,
// WaitSome). buf must stay unchanged until then.
func (pe *PE) Isend(dest, tag int, buf []byte) (Handle, error) { return pe.world.Isend(dest, tag, buf) }

// Irecv starts a receive into buf; the Handle completes it, and then the
// message's Status is stored in st unless st is nil.
func (pe *PE) Irecv(src, tag int, buf []byte, st *Status) (Handle, error) {
	return pe.world.Irecv(src, tag, buf, st)
}

// Probe waits for a message from src (or AnySource) with tag (or AnyTag)
// and describes it without receiving it.
func (pe *PE) Probe(src, tag int) (Status, error) { return pe.world.Probe(src, tag) }

// Iprobe describes a matching message if one has arrived.
func (pe *PE) Iprobe(src, tag int) (Status, bool, error) { return pe.world.Iprobe(src, tag) }

// Send sends buf to team rank dest; see PE.Send.
func (t *Team) Send(dest, tag int, buf []byte) error { return t.send("Send", dest, tag, buf) }

// Recv receives from team rank src; see PE.Recv.
func (t *Team) Recv(src, tag int, buf []byte) (Status, error) { return t.recv("Recv", src, tag, buf) }

func (t *Team) send(op string, dest, tag int, buf []byte) error {
	r, err := t.startSend(op, dest, tag, buf)
	if err != nil {
		return err
	}
	m := t.pe.msg
	if err := t.pe.msgWait(op, func() string { return m.sendDesc.get("%s to PE %d with tag %d", op, r.peer, tag) }, r, nil); err != nil {
		return err
	}
	err = r.err
	m.recycle(r)
	return err
}

func (t *Team) recv(op string, src, tag int, buf []byte) (Status, error) {
	r, err := t.startRecv(op, src, tag, buf)
	if err != nil {
		return Status{}, err
	}
	m := t.pe.msg
	if err := t.pe.msgWait(op, func() string { return m.recvDesc.get("%s from PE %d with tag %d", op, r.peer, tag) }, r, nil); err != nil {
		return Status{}, err
	}
	st, err := r.status, r.err
	m.recycle(r)
	return st, err
}

// Isend starts a send to team rank dest; see PE.Isend.
func (t *Team) Isend(dest, tag int, buf []byte) (Handle, error) {
	r, err := t.startSend("Isend", dest, tag, buf)
	if err != nil {
		return Handle{}, err
	}
	h, s := t.pe.newHandle()
	s.msg = r
	return h, nil
}

// Irecv starts a receive from team rank src; see PE.Irecv.
func (t *Team) Irecv(src, tag int, buf []byte, st *Status) (Handle, error) {
	r, err := t.startRecv("Irecv", src, tag, buf)
	if err != nil {
		return Handle{}, err
	}
	r.stOut = st
	h, s := t.pe.newHandle()
	s.msg = r
	return h, nil
}

// Probe waits for a matching message of the team; see PE.Probe.
func (t *Team) Probe(src, tag int) (Status, error) {
	pe := t.pe
	if err := t.checkMatch("Probe", src, tag); err != nil {
		return Status{}, err
	}
	var st Status
	found := func() bool {
		var ok bool
		st, ok = t.probe(src, tag)
		return ok
	}
	if err := pe.msgWait("Probe", func() string { return fmt.Sprintf("a message from PE %d with tag %d to probe", src, tag) }, nil, found); err != nil {
		return Status{}, err
	}
	return st, nil
}

// Iprobe describes a matching message of the team if one has arrived; see
// PE.Iprobe.
func (t *Team) Iprobe(src, tag int) (Status, bool, error) {
	pe := t.pe
	if err := t.checkMatch("Iprobe", src, tag); err != nil {
		return Status{}, false, err
	}
	if err := pe.msgPoll("Iprobe"); err != nil {
		return Status{}, false, err
	}
	st, ok := t.probe(src, tag)
	return st, ok, nil
}

func (t *Team) probe(src, tag int) (Status, bool) {
	probe := msgReq{team: t, peer: AnySource, tag: tag}
	if src != AnySource {
		probe.peer = t.global(src)
	}
	for _, in := range t.pe.msg.unexpected {
		if probe.matches(in) {
			return Status{Source: t.TeamRank(in.src), Tag: in.tag, Bytes: int(in.size)}, true
		}
	}
	return Status{}, false
}

// checkMatch checks the source and tag of a receive or probe.
func (t *Team) checkMatch(op string, src, tag int) error {
	pe := t.pe
	if err := t.check(op); err != nil {
		return err
	}
	if src != AnySource && (src < 0 || src >= t.size) {
		return pe.errf(op, ErrBadPE, "source PE %d outside the team [0,%d) (AnySource is %d)", src, t.size, AnySource)
	}
	if tag != AnyTag && tag < 0 {
		return pe.errf(op, ErrArgument, "tag %d is negative (AnyTag is %d)", tag, AnyTag)
	}
	return nil
}

func (t *Team) startSend(op string, dest, tag int, buf []byte) (*msgReq, error) {
	pe := t.pe
	if err := t.check(op); err != nil {
		return nil, err
	}
	switch {
	case dest < 0 || dest >= t.size:
		return nil, pe.errf(op, ErrBadPE, "destination PE %d outside the team [0,%d)", dest, t.size)
	case tag < 0:
		return nil, pe.errf(op, ErrArgument, "tag %d is negative", tag)
	case buf == nil:
		return nil, pe.errf(op, ErrArgument, "nil buffer to PE %d with tag %d (an empty message needs an empty, non-nil slice)", dest, tag)
	}
	m := pe.msg
	m.nextID++
	r := m.newReq()
	r.op, r.send, r.team, r.peer, r.tag, r.buf, r.id, r.proto = op, true, t, t.global(dest), tag, buf, m.nextID, m.p.protoFor(int64(len(buf)))
	m.outq.push(r)
	if err := m.progress(); err != nil {
		return nil, pe.wrap(op, err)
	}
	return r, nil
}

func (t *Team) startRecv(op string, src, tag int, buf []byte) (*msgReq, error) {
	pe := t.pe
	if err := t.checkMatch(op, src, tag); err != nil {
		return nil, err
	}
	if buf == nil {
		return nil, pe.errf(op, ErrArgument, "nil buffer for a message from PE %d with tag %d", src, tag)
	}
	m := pe.msg
	r := m.newReq()
	r.op, r.team, r.peer, r.tag, r.buf = op, t, AnySource, tag, buf
	if src != AnySource {
		r.peer = t.global(src)
	}
	m.post(r)
	if err := m.progress(); err != nil {
		return nil, pe.wrap(op, err)
	}
	return r, nil
}

// progress runs the queued protocol steps and the sends waiting in order.
// It never runs inside a handler.
func (m *msgState) progress() error {
	if m.inProgress || m.err != nil {
		return m.err
	}
	m.inProgress = true
	defer func() { m.inProgress = false }()
	for {
		if m.actions.len() > 0 {
			if err := m.run(m.actions.pop()); err != nil {
				m.err = err
				return err
			}
			continue
		}
		if m.outq.len() > 0 {
			ok, err := m.advance(m.outq.peek())
			if err != nil {
				m.err = err
				return err
			}
			if ok {
				m.outq.pop()
				continue
			}
		}
		return nil
	}
}

// msgWait makes messaging progress until request r is done (r not nil) or
// done reports true; op names the call in errors, what the wait in
// deadlock reports. On a real network it first polls a few times itself,
// so that a message answered at once costs neither the description nor
// the conduit's wait.
func (pe *PE) msgWait(op string, what func() string, r *msgReq, done func() bool) error {
	m := pe.msg
	w := &m.waiter
	if w.m != nil {
		// A wait begun inside another (from a handler its polls ran,
		// which the engine refuses) leaves the outer one's condition be.
		w = &msgWaiter{}
	}
	*w = msgWaiter{m: m, r: r, f: done}
	defer func() { *w = msgWaiter{} }()
	for i := 0; ; i++ {
		if err := m.progress(); err != nil {
			return pe.wrap(op, err)
		}
		if w.ready() {
			return nil
		}
		if i >= m.spin {
			break
		}
		if _, err := pe.eng.Poll(); err != nil {
			return pe.wrap(op, err)
		}
	}
	desc := what()
	for {
		w.ev = m.events
		if err := pe.eng.Wait(desc, w); err != nil {
			return pe.wrap(op, err)
		}
		if err := m.progress(); err != nil {
			return pe.wrap(op, err)
		}
		if w.ready() {
			return nil
		}
	}
}

// waitDesc keeps the description of the last wait of a kind, which a loop
// of sends or receives to one peer with one tag then reuses.
type waitDesc struct {
	op        string
	peer, tag int
	s         string
}

func (d *waitDesc) get(format, op string, peer, tag int) string {
	if d.s == "" || d.op != op || d.peer != peer || d.tag != tag {
		*d = waitDesc{op: op, peer: peer, tag: tag, s: fmt.Sprintf(format, op, peer, tag)}
	}
	return d.s
}

// msgWaiter is the condition of a messaging wait, kept in msgState so that
// a wait allocates nothing: the request or function waited for, or any
// messaging event (a protocol step queued for progress).
type msgWaiter struct {
	m  *msgState
	ev uint64
	r  *msgReq
	f  func() bool
}

func (w *msgWaiter) ready() bool {
	if w.r != nil {
		return w.r.done
	}
	return w.f()
}

// Done reports whether the wait should return to progress.
func (w *msgWaiter) Done() bool { return w.m.events != w.ev || w.ready() }

// msgPoll makes one round of messaging progress without waiting.
func (pe *PE) msgPoll(what string) error {
	m := pe.msg
	if err := m.progress(); err != nil {
		return pe.wrap(what, err)
	}
	if _, err := pe.eng.Poll(); err != nil {
		return pe.wrap(what, err)
	}
	return pe.wrap(what, m.progress())
}

// SendT sends the elements of v (of a type without pointers); see PE.Send.
func SendT[T any](pe *PE, dest, tag int, v []T) error {
	b, err := msgBytes(pe, "SendT", v)
	if err != nil {
		return err
	}
	return pe.world.send("SendT", dest, tag, b)
}

// RecvT receives into v; Status.Bytes is the message's size in bytes.
func RecvT[T any](pe *PE, src, tag int, v []T) (Status, error) {
	b, err := msgBytes(pe, "RecvT", v)
	if err != nil {
		return Status{}, err
	}
	return pe.world.recv("RecvT", src, tag, b)
}

// IsendT and IrecvT are the non-blocking forms of SendT and RecvT.
func IsendT[T any](pe *PE, dest, tag int, v []T) (Handle, error) {
	b, err := msgBytes(pe, "IsendT", v)
	if err != nil {
		return Handle{}, err
	}
	return pe.world.Isend(dest, tag, b)
}

// IrecvT: see IsendT.
func IrecvT[T any](pe *PE, src, tag int, v []T, st *Status) (Handle, error) {
	b, err := msgBytes(pe, "IrecvT", v)
	if err != nil {
		return Handle{}, err
	}
	return pe.world.Irecv(src, tag, b, st)
}

func msgBytes[T any](pe *PE, op string, v []T) ([]byte, error) {
	if err := checkPlain[T](pe, op); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, pe.errf(op, ErrArgument, "nil slice")
	}
	if b := asBytes(v); b != nil {
		return b, nil
	}
	return []byte{}, nil
}

// MsgStats returns the PE's messaging counters.
func (pe *PE) MsgStats() MsgStats { return pe.msg.stats }
