package simnet

import (
	"fmt"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/memreg"
	"github.com/gopgas/gopgas/internal/segmem"
	"github.com/gopgas/gopgas/internal/sim"
)

// inbox holds the messages from one sender that arrived ahead of an
// earlier one: messages are handed out in the order they were sent.
type inbox struct {
	next  uint64 // sequence number of the next message to hand out
	early map[uint64]*Message
}

// outbox is what a PE keeps of its messages to one target: the last
// sequence number sent, and how many of the target's mailbox slots they
// hold (sent, and not yet released by the target's polls as far as the
// sender knows).
type outbox struct {
	seq   uint64
	inUse int
}

// slotReturns is the actor that brings a mailbox slot's release to the
// sender's partition in a partitioned job (Endpoint.release): the event's
// data is the sender's Endpoint, its code the target's rank. It schedules
// nothing, so its Origin is never asked for.
type slotReturns struct{ sim.Source }

func (*slotReturns) Fire(code int32, data any) { data.(*Endpoint).slotFreed(int(code)) }

// Endpoint is one simulated PE's conduit endpoint.
type Endpoint struct {
	job      *Job
	rank     int
	node     int
	proc     *sim.Proc
	ordering conduit.OrderingMode

	seg     []byte
	segMem  *segmem.Segment
	regions memreg.Table
	nextID  uint32

	localCQ, remoteCQ cq      // their blocks come from cqf
	cqf               *cqFree // the job's, or its partition's (Job.Partition)

	inboxes map[int]*inbox // by sender; made for the first message
	// leftover: a poll returned a full burst and left events or messages
	// queued, so a waiting PE must poll again before it blocks.
	leftover bool
	ready    []*Message      // arrived in order, not yet handed out
	held     []*Message      // handed out by the last PollMessages
	outs     map[int]*outbox // by target; made for the first message
	msgErr   error           // the first message the network lost
	done     bool

	// Model is the network model's own per-endpoint state.
	Model any
}

func newEndpoint(j *Job, rank int) (*Endpoint, error) {
	mem, err := segmem.Alloc(j.Cfg.SegmentBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: PE %d's segment: %w", j.name, rank, err)
	}
	ep := &Endpoint{
		job:      j,
		rank:     rank,
		node:     j.NodeOf(rank),
		ordering: j.Cfg.Ordering,
		seg:      mem.Bytes,
		segMem:   mem,
		nextID:   conduit.SegmentID + 1,
	}
	ep.regions = memreg.Table{{ID: conduit.SegmentID, Buf: ep.seg}}
	ep.cqf = &j.cqFree
	return ep, nil
}

// Proc is the PE's coroutine.
func (e *Endpoint) Proc() *sim.Proc { return e.proc }

// Job is the endpoint's job.
func (e *Endpoint) Job() *Job { return e.job }

func (e *Endpoint) Rank() int          { return e.rank }
func (e *Endpoint) Size() int          { return len(e.job.eps) }
func (e *Endpoint) Node(rank int) int  { return e.job.NodeOf(rank) }
func (e *Endpoint) Nodes() int         { return e.job.nodes }
func (e *Endpoint) Caps() conduit.Caps { return e.job.caps }

// Backend is the name the backend registered under.
func (e *Endpoint) Backend() string { return e.job.name }

func (e *Endpoint) Ordering() conduit.OrderingMode { return e.ordering }

func (e *Endpoint) SetOrdering(m conduit.OrderingMode) error {
	switch m {
	case conduit.OrderStrict, conduit.OrderDefault, conduit.OrderRelaxed:
		e.ordering = m
		return nil
	}
	return fmt.Errorf("%s: SetOrdering(%v): must be strict, default or relaxed", e.Backend(), m)
}

func (e *Endpoint) Segment() []byte { return e.seg }

func (e *Endpoint) SegmentHandle(rank int) conduit.MemHandle {
	if rank < 0 || rank >= len(e.job.eps) {
		return conduit.MemHandle{}
	}
	return conduit.MemHandle{Owner: int32(rank), ID: conduit.SegmentID, Bytes: e.job.Cfg.SegmentBytes}
}

func (e *Endpoint) DirectSegment(int) []byte { return nil }

// Register registers buf after the model has charged its cost.
func (e *Endpoint) Register(buf []byte) (conduit.MemHandle, error) {
	if len(buf) == 0 {
		return conduit.MemHandle{}, fmt.Errorf("%s: PE %d: Register of an empty buffer", e.Backend(), e.rank)
	}
	id := e.nextID
	if err := e.job.Net.Register(e, id, int64(len(buf)), false); err != nil {
		return conduit.MemHandle{}, err
	}
	e.nextID++
	r := memreg.Region{ID: id, Buf: buf}
	e.regions = append(e.regions, r)
	return r.Handle(e.rank), nil
}

func (e *Endpoint) Deregister(h conduit.MemHandle) error {
	if int(h.Owner) != e.rank || h.ID == conduit.SegmentID {
		return fmt.Errorf("%s: PE %d: Deregister of handle %d of PE %d", e.Backend(), e.rank, h.ID, h.Owner)
	}
	for i := range e.regions {
		if e.regions[i].ID == h.ID {
			n := int64(len(e.regions[i].Buf))
			if err := e.job.Net.Register(e, h.ID, n, true); err != nil {
				return err
			}
			e.regions = append(e.regions[:i], e.regions[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("%s: PE %d: Deregister of unknown handle %d", e.Backend(), e.rank, h.ID)
}

func (e *Endpoint) Registered(buf []byte) (conduit.MemHandle, bool) {
	return e.regions.Registered(e.rank, buf)
}

// Post checks the descriptor and hands it to the model.
//
// Its errors are made in functions of their own (postErr, flagErr): the
// PE's stack stays at the size it starts with only while the post path's
// frames fit in it (docs/scale.md), and formatting inline would make this
// frame several times larger.
func (e *Endpoint) Post(d *conduit.PostDesc) error {
	if err := conduit.CheckPost(d, len(e.job.eps)); err != nil {
		return e.postErr(err)
	}
	if d.Flag != nil && !e.job.caps.FlaggedGet {
		return e.flagErr(d)
	}
	if d.Type != conduit.AMO && e.job.caps.NeedsRegisteredLocal {
		if err := e.checkLocal(d, "local buffer", d.Local, d.LocalMem); err != nil {
			return err
		}
		if d.Flag != nil {
			if err := e.checkLocal(d, "flag word", d.Flag.Word, d.Flag.Mem); err != nil {
				return err
			}
		}
	}
	if err := e.kernel().Aborted(); err != nil {
		return err
	}
	return e.job.Net.Post(e, d)
}

// postErr is a post's error that CheckPost found, naming the backend
// and the PE.
//
//go:noinline
func (e *Endpoint) postErr(err error) error {
	return fmt.Errorf("%s: PE %d: %w", e.Backend(), e.rank, err)
}

// flagErr is the error of a flagged get on a backend without them.
//
//go:noinline
func (e *Endpoint) flagErr(d *conduit.PostDesc) error {
	return fmt.Errorf("%s: PE %d: post get to PE %d with a flag word: no flagged get responses: %w",
		e.Backend(), e.rank, d.Target, conduit.ErrUnsupported)
}

// checkLocal checks that buf (what of d) lies inside this PE's
// registration h.
func (e *Endpoint) checkLocal(d *conduit.PostDesc, what string, buf []byte, h conduit.MemHandle) error {
	if r := e.regions.Lookup(h.ID); int(h.Owner) != e.rank || r == nil || !r.Contains(buf) {
		return fmt.Errorf("%s: PE %d: post %v: %s of %d bytes is not inside registration %d",
			e.Backend(), e.rank, d.Type, what, len(buf), h.ID)
	}
	return nil
}

// EffectiveOrder is the ordering mode a descriptor travels with.
func (e *Endpoint) EffectiveOrder(d *conduit.PostDesc) conduit.OrderingMode {
	if d.Order != conduit.OrderInherit {
		return d.Order
	}
	return e.ordering
}

func (e *Endpoint) PollLocalCQ(evs []conduit.Event) int {
	return e.pollCQ(&e.localCQ, evs)
}

func (e *Endpoint) PollRemoteCQ(evs []conduit.Event) int {
	return e.pollCQ(&e.remoteCQ, evs)
}

func (e *Endpoint) pollCQ(q *cq, evs []conduit.Event) int {
	e.proc.Advance(e.job.costs.PollCQ)
	if e.proc.Sync() != nil {
		return 0
	}
	n := q.pop(e.cqf, evs)
	if q.len() > 0 {
		e.leftover = true
	}
	return n
}

// MaxMessageHeader and MaxMessagePayload are those of the shared-memory
// backend, so that the runtime's Medium size is the same on every backend.
const (
	MaxMessageHeader  = 88
	MaxMessagePayload = 4096
)

func (e *Endpoint) MaxMessageHeader() int  { return MaxMessageHeader }
func (e *Endpoint) MaxMessagePayload() int { return MaxMessagePayload }

// SendMessage copies the message and hands it to the model.
func (e *Endpoint) SendMessage(target int, header, payload []byte) error {
	if target < 0 || target >= len(e.job.eps) {
		return fmt.Errorf("%s: PE %d: SendMessage to PE %d outside the job [0,%d)", e.Backend(), e.rank, target, len(e.job.eps))
	}
	if len(header) > MaxMessageHeader || len(payload) > MaxMessagePayload {
		return fmt.Errorf("%s: PE %d: SendMessage of %d+%d bytes exceeds %d+%d", e.Backend(), e.rank, len(header), len(payload), MaxMessageHeader, MaxMessagePayload)
	}
	if err := e.kernel().Aborted(); err != nil {
		return err
	}
	o := e.outs[target]
	if o == nil {
		if e.outs == nil {
			e.outs = make(map[int]*outbox)
		}
		o = &outbox{}
		e.outs[target] = o
	}
	if o.inUse >= e.job.Cfg.MailboxSlots {
		return conduit.ErrMailboxFull
	}
	o.inUse++
	o.seq++
	m := &Message{
		Source:  e.rank,
		Target:  target,
		Seq:     o.seq,
		Header:  append([]byte(nil), header...),
		Payload: append([]byte(nil), payload...),
	}
	return e.job.Net.Send(e, target, m)
}

func (e *Endpoint) inbox(src int) *inbox {
	in := e.inboxes[src]
	if in == nil {
		if e.inboxes == nil {
			e.inboxes = make(map[int]*inbox)
		}
		in = &inbox{next: 1}
		e.inboxes[src] = in
	}
	return in
}

// release gives back the mailbox slot a message from src held. On one
// kernel, and between PEs of one partition, src's count drops at once; from
// another partition the news reaches src's partition the run's lookahead
// later, as an event (a credit crossing the network takes at least that),
// so that no partition writes another's state (docs/parallel-kernel.md).
func (e *Endpoint) release(src int) {
	j := e.job
	s := j.eps[src]
	if j.Par == nil || j.partOf[s.node] == j.partOf[e.node] {
		s.slotFreed(e.rank)
		return
	}
	e.kernel().Post(j.KernelOf(src), e.proc.Clock()+j.Par.Lookahead(), &j.slots, int32(e.rank), s)
}

// slotFreed notes that target released one of the mailbox slots this PE's
// messages held.
func (e *Endpoint) slotFreed(target int) { e.outs[target].inUse-- }

// PollMessages hands out arrived messages in each sender's order and
// releases the previous batch's mailbox slots.
func (e *Endpoint) PollMessages(msgs []conduit.Message) int {
	e.proc.Advance(e.job.costs.PollMessages)
	for _, m := range e.held {
		e.release(m.Source)
	}
	clear(e.held)
	e.held = e.held[:0]
	if e.proc.Sync() != nil {
		return 0
	}
	n := min(len(msgs), len(e.ready))
	for i := range n {
		m := e.ready[i]
		msgs[i] = conduit.Message{Source: m.Source, Header: m.Header, Payload: m.Payload}
		e.held = append(e.held, m)
	}
	rest := copy(e.ready, e.ready[n:])
	clear(e.ready[rest:])
	e.ready = e.ready[:rest]
	if rest > 0 {
		e.leftover = true
	}
	e.proc.Advance(Time(n) * e.job.costs.PerMessage)
	return n
}

func (e *Endpoint) Now() conduit.Time { return e.proc.Clock() }
func (e *Endpoint) Charge(d conduit.Time) {
	if d > 0 {
		e.proc.Advance(d)
	}
}

// WaitFor polls w, blocking the PE between unproductive polls until the
// model wakes it.
func (e *Endpoint) WaitFor(what string, w conduit.Waiter) error {
	if e.job.Tracer != nil {
		return e.waitTraced(what, w)
	}
	return e.wait(what, w)
}

// waitTraced is WaitFor with the wait traced as a span of the PE's.
//
//go:noinline
func (e *Endpoint) waitTraced(what string, w conduit.Waiter) error {
	tr, start := e.job.Tracer, e.proc.Clock()
	defer func() { tr.PESpan(e.rank, what, start, e.proc.Clock()) }()
	return e.wait(what, w)
}

// wait is WaitFor's loop.
func (e *Endpoint) wait(what string, w conduit.Waiter) error {
	for {
		ok, err := w.Ready()
		if ok || err != nil {
			return err
		}
		if err := e.kernel().Aborted(); err != nil {
			return err
		}
		e.proc.Advance(e.job.costs.Wait)
		if e.leftover {
			// The last poll took a burst and left the rest: poll again
			// rather than wait for news that already came.
			e.leftover = false
			continue
		}
		if err := e.proc.Block(what); err != nil {
			return err
		}
	}
}

// Done marks the PE's program finished; the last one wakes everybody.
func (e *Endpoint) Done() {
	if e.done {
		return
	}
	e.done = true
	if j := e.job; j.Par != nil {
		j.doneBy[j.partOf[e.node]]++ // counted at the window's end
		return
	}
	e.job.done++
	if e.job.done == len(e.job.eps) {
		for _, o := range e.job.eps {
			o.wake()
		}
	}
}

// AllDone says whether every PE is done: in a partitioned job, as of the
// last window's end (Job.Partition).
func (e *Endpoint) AllDone() bool { return e.job.done == len(e.job.eps) }

// kernel is the kernel the PE runs on.
func (e *Endpoint) kernel() *sim.Kernel {
	if e.proc != nil {
		return e.proc.Kernel()
	}
	return e.job.K
}

func (e *Endpoint) Err() error { return e.kernel().Aborted() }

func (e *Endpoint) wake() {
	if e.proc != nil {
		e.proc.Wake()
	}
}

// The model's callbacks. They run inside events, at the simulated moment
// the thing happens.

// CompleteLocal queues the completion of a descriptor this PE posted.
func (e *Endpoint) CompleteLocal(d *conduit.PostDesc, status conduit.Status, detail string) {
	e.localCQ.push(e.cqf, conduit.Event{Desc: d, Status: status, Detail: detail})
	e.wake()
}

// MessageLost records that a message this PE sent to target will never
// arrive (status and detail say why, as for a completion) and wakes the PE,
// whose next poll learns of it through MessageErr. The first loss is kept.
func (e *Endpoint) MessageLost(target int, status conduit.Status, detail string) {
	if e.msgErr == nil {
		ev := conduit.Event{Status: status, Detail: detail}
		e.msgErr = fmt.Errorf("%s: PE %d: a message to PE %d failed: %w", e.Backend(), e.rank, target, ev.Err())
	}
	e.wake()
}

// MessageErr implements conduit.MessageFailures: the failure of the first
// message of this PE's that the network lost, or nil.
func (e *Endpoint) MessageErr() error { return e.msgErr }

var _ conduit.MessageFailures = (*Endpoint)(nil)

// RemoteEvent queues a destination-side event.
func (e *Endpoint) RemoteEvent(source int, data uint64) {
	e.remoteCQ.push(e.cqf, conduit.Event{Source: source, Data: data})
	e.wake()
}

// DeliverMessage makes an arrived message available, in its sender's
// order. A message that arrives twice (the model sent it again after its
// acknowledgement was lost) is delivered once: the second copy is dropped
// by its sequence number.
func (e *Endpoint) DeliverMessage(m *Message) {
	in := e.inbox(m.Source)
	if m.Seq < in.next || in.early[m.Seq] != nil {
		return
	}
	if m.Seq != in.next {
		if in.early == nil {
			in.early = make(map[uint64]*Message)
		}
		in.early[m.Seq] = m
		return
	}
	e.ready = append(e.ready, m)
	in.next++
	for {
		n, ok := in.early[in.next]
		if !ok {
			break
		}
		delete(in.early, in.next)
		e.ready = append(e.ready, n)
		in.next++
	}
	e.wake()
}

// MemError is why a remote access to this PE's memory failed.
type MemError string

func (m MemError) Error() string { return string(m) }

// mem returns the bytes [off, off+n) of registration id.
func (e *Endpoint) mem(id uint32, off, n int64) ([]byte, error) {
	r := e.regions.Lookup(id)
	if r == nil {
		return nil, MemError(fmt.Sprintf("PE %d has no registration %d", e.rank, id))
	}
	if off < 0 || n < 0 || off > int64(len(r.Buf))-n {
		return nil, MemError(fmt.Sprintf("range [%d,+%d) beyond PE %d's %d-byte registration %d", off, n, e.rank, len(r.Buf), id))
	}
	return r.Buf[off : off+n], nil
}

// CheckMemory reports whether [off, off+n) of registration id exists.
func (e *Endpoint) CheckMemory(id uint32, off, n int64) error {
	_, err := e.mem(id, off, n)
	return err
}

// WriteMemory commits data at off of registration id, now.
func (e *Endpoint) WriteMemory(id uint32, off int64, data []byte) error {
	m, err := e.mem(id, off, int64(len(data)))
	if err != nil {
		return err
	}
	copy(m, data)
	e.wake()
	return nil
}

// ReadMemory reads len(dst) bytes at off of registration id, now.
func (e *Endpoint) ReadMemory(id uint32, off int64, dst []byte) error {
	m, err := e.mem(id, off, int64(len(dst)))
	if err != nil {
		return err
	}
	copy(dst, m)
	return nil
}

// ApplyAMO performs an atomic on the word at off of registration id, now,
// and returns the old value.
func (e *Endpoint) ApplyAMO(id uint32, off int64, op conduit.AMOOp, width uint8, operand, compare uint64) (uint64, error) {
	m, err := e.mem(id, off, int64(width))
	if err != nil {
		return 0, err
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(m)))%uintptr(width) != 0 {
		return 0, MemError(fmt.Sprintf("AMO word at offset %d of PE %d is misaligned", off, e.rank))
	}
	old := conduit.ApplyAMO(m, op, width, operand, compare)
	e.wake()
	return old, nil
}

// EndpointBytes is the resident memory of an endpoint at rest (its
// structure and the small maps it starts with), for a backend's plan
// (conduit.Plan).
const EndpointBytes = int64(unsafe.Sizeof(Endpoint{})) + 512
