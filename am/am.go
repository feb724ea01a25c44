package am

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/errs"
	"github.com/gopgas/gopgas/internal/sparse"
	"github.com/gopgas/gopgas/internal/transport"
)

// Limits of the handler table and of a message.
const (
	// MaxArgs is the most int32 arguments a message carries.
	MaxArgs = 16
	// NumHandlers is the size of the handler table.
	NumHandlers = 256
	// FirstUserHandler is the first index a program may use; those below
	// are the runtime's.
	FirstUserHandler = 128
)

// Index names a handler.
type Index uint8

// Category is Short, Medium or Long.
type Category uint8

const (
	Short Category = iota + 1
	Medium
	Long
)

// String returns "short", "medium" or "long".
func (c Category) String() string {
	switch c {
	case Short:
		return "short"
	case Medium:
		return "medium"
	case Long:
		return "long"
	}
	return fmt.Sprintf("Category(%d)", uint8(c))
}

// Handler runs on the target of a message. An error it returns ends the
// target PE's current blocking call, and so the job.
type Handler func(m *Message) error

// Config are the layer's settings; the runtime validates them.
type Config struct {
	// Depth is the number of credits per peer (R-DEPTH).
	Depth int
	// Burst is how many messages one poll takes (R-BURST, SMSG_BURST).
	Burst int
	// CheckLong, when not nil, vets the destination of every Long payload,
	// [off, off+n) of target's segment, once the layer has found it inside
	// the segment: it returns nil, or an error saying what is wrong with it
	// (the runtime keeps Long payloads out of its reserved area and out of
	// memory no live allocation holds). The request or reply then fails
	// with that error, nothing sent.
	CheckLong func(target int, off, n int64) error
}

// Stats count the layer's traffic.
type Stats struct {
	Requests, Replies int64
	// CreditMessages are hidden messages sent only to return credits;
	// Piggybacked counts credits returned in other messages' headers.
	CreditMessages, Piggybacked int64
	// CreditWaits counts requests that found no credit and had to poll.
	CreditWaits int64
	// Peers is the number of peers with AM state.
	Peers int
}

// Header layout (little-endian):
//
//	[0]     flags: category (bits 0-1), reply (bit 2), credit-only (bit 3),
//	        inline long payload (bit 4)
//	[1]     handler index
//	[2]     argument count
//	[3]     reserved
//	[4:8]   credits returned to the receiver
//	[8:16]  Long: segment offset      [16:24] Long: payload bytes
//	then    arguments, 4 bytes each
const (
	flagReply  = 1 << 2
	flagCredit = 1 << 3
	flagInline = 1 << 4
	baseHeader = 8
	longHeader = baseHeader + 16
	maxHeader  = longHeader + 4*MaxArgs
)

type entry struct {
	name string
	fn   Handler
}

// peer is the state kept for one peer, made on first contact.
type peer struct {
	rank    int
	credits int // requests this PE may still send to the peer
	owed    int // credits this PE owes the peer
	dirty   bool
}

// Endpoint is one PE's active-message layer. It is not safe for concurrent
// use.
type Endpoint struct {
	eng   *transport.Engine
	ep    conduit.Endpoint
	rank  int
	size  int
	cfg   Config
	flush int // owed credits that trigger a hidden credit message

	// handlers is the handler table, by index, only as long as the
	// highest index registered needs (the table has NumHandlers slots).
	handlers []entry
	names    map[string]Index

	// peers is made when a peer is first contacted (internal/sparse), so a
	// peer in its range is first contacted.
	peers  sparse.Table[peer]
	npeers int
	owing  []*peer // peers with owed credits

	lost    conduit.MessageFailures // nil: the network never loses a message
	msgs    []conduit.Message
	hdr     [maxHeader]byte
	cur     Message
	backlog []pending // messages a full mailbox refused, retried on poll
	err     error
	closed  bool

	// Messages to and from program handlers (not the runtime's), for the
	// runtime's termination protocol.
	userSent, userHandled int64

	Stats Stats
}

type pending struct {
	target int
	header []byte
	data   []byte
}

// New builds the layer over a transport engine and adds its poller to the
// engine's waits.
func New(eng *transport.Engine, cfg Config) *Endpoint {
	ep := eng.Endpoint()
	a := &Endpoint{
		eng:   eng,
		ep:    ep,
		rank:  ep.Rank(),
		size:  ep.Size(),
		cfg:   cfg,
		flush: max(1, cfg.Depth/2),
		names: make(map[string]Index),
		peers: sparse.New[peer](ep.Size()),
		msgs:  make([]conduit.Message, cfg.Burst),
	}
	a.lost, _ = ep.(conduit.MessageFailures)
	eng.AddPoller(a.poll)
	return a
}

// errf makes an error naming the PE that matches sentinel with errors.Is.
func (a *Endpoint) errf(sentinel error, format string, args ...any) error {
	return &errs.Detail{Msg: fmt.Sprintf("am: PE %d: ", a.rank) + fmt.Sprintf(format, args...), Sentinel: sentinel}
}

// Close ends the endpoint: every later call fails with an error matching
// the ended sentinel (pgas.ErrEnded). The runtime closes it when the PE's
// program has returned.
func (a *Endpoint) Close() { a.closed = true }

func (a *Endpoint) usable(op string) error {
	if a.closed {
		return a.errf(errs.Ended, "%s: the PE's program has returned", op)
	}
	return nil
}

// Traffic returns how many messages naming program handlers (indices at
// or above FirstUserHandler) this PE has sent and how many it has handled.
// When the sums over all PEs are equal, no such message is in flight: the
// runtime's exit protocol waits for that.
func (a *Endpoint) Traffic() (sent, handled int64) { return a.userSent, a.userHandled }

func (a *Endpoint) countSent(h Index) {
	if h >= FirstUserHandler {
		a.userSent++
	}
}

// MaxMedium is the largest Medium payload.
func (a *Endpoint) MaxMedium() int { return a.ep.MaxMessagePayload() }

// MaxLong is the largest Long payload: a whole segment.
func (a *Endpoint) MaxLong() int64 { return int64(len(a.ep.Segment())) }

// Register gives h the lowest free index at or above FirstUserHandler.
func (a *Endpoint) Register(name string, h Handler) (Index, error) {
	for i := FirstUserHandler; i < NumHandlers; i++ {
		if a.handler(Index(i)) == nil {
			return Index(i), a.set(Index(i), name, h)
		}
	}
	return 0, a.errf(errs.Argument, "Register(%q): all %d user handler indices are taken", name, NumHandlers-FirstUserHandler)
}

// RegisterAt installs h at a chosen user index.
func (a *Endpoint) RegisterAt(i Index, name string, h Handler) error {
	if i < FirstUserHandler {
		return a.errf(errs.Argument, "RegisterAt(%d, %q): indices below %d are reserved for the runtime", i, name, FirstUserHandler)
	}
	return a.set(i, name, h)
}

// RegisterReserved installs a runtime handler below FirstUserHandler. It is
// for the layers built on am (pgas); programs use Register.
func (a *Endpoint) RegisterReserved(i Index, name string, h Handler) error {
	if i >= FirstUserHandler {
		return a.errf(errs.Argument, "RegisterReserved(%d, %q): index is in the user range", i, name)
	}
	return a.set(i, name, h)
}

func (a *Endpoint) set(i Index, name string, h Handler) error {
	if err := a.usable("Register"); err != nil {
		return err
	}
	switch {
	case h == nil:
		return a.errf(errs.Argument, "registering %q at %d: nil handler", name, i)
	case name == "":
		return a.errf(errs.Argument, "registering at %d: empty name", i)
	case a.handler(i) != nil:
		return a.errf(errs.Argument, "registering %q at %d: index taken by %q", name, i, a.handler(i).name)
	}
	if j, dup := a.names[name]; dup {
		return a.errf(errs.Argument, "registering %q at %d: name already at %d", name, i, j)
	}
	if int(i) >= len(a.handlers) {
		a.handlers = append(a.handlers, make([]entry, int(i)+1-len(a.handlers))...)
	}
	a.handlers[i] = entry{name: name, fn: h}
	a.names[name] = i
	return nil
}

// handler is the entry registered at h, or nil.
func (a *Endpoint) handler(h Index) *entry {
	if int(h) >= len(a.handlers) || a.handlers[h].fn == nil {
		return nil
	}
	return &a.handlers[h]
}

// Lookup returns the index a name was registered at.
func (a *Endpoint) Lookup(name string) (Index, bool) {
	i, ok := a.names[name]
	return i, ok
}

func (a *Endpoint) peer(r int) *peer {
	p := a.peers.Get(r)
	if p == nil {
		p = &peer{rank: r, credits: a.cfg.Depth}
		a.peers.Set(r, p)
		a.npeers++
		a.Stats.Peers = a.npeers
	}
	return p
}

// ErrRule is wrapped by the errors of calls that break the handler rules.
var ErrRule = errors.New("active-message handler rule broken")

// checkRequest validates what every request shares.
func (a *Endpoint) checkRequest(op string, target int, h Index, nargs int) error {
	if err := a.usable(op); err != nil {
		return err
	}
	if a.eng.InPoll() {
		return fmt.Errorf("am: PE %d: %s from inside a handler: %w (a request handler may only reply)", a.rank, op, ErrRule)
	}
	return a.checkSend(op, target, h, nargs)
}

func (a *Endpoint) checkSend(op string, target int, h Index, nargs int) error {
	if target < 0 || target >= a.size {
		return a.errf(errs.BadPE, "%s to PE %d: outside the job [0,%d)", op, target, a.size)
	}
	if a.handler(h) == nil {
		return a.errf(errs.Argument, "%s to PE %d: handler %d is not registered", op, target, h)
	}
	if nargs > MaxArgs {
		return a.errf(errs.Argument, "%s to PE %d: %d arguments (at most %d)", op, target, nargs, MaxArgs)
	}
	return nil
}

// encode writes a header into a.hdr and returns it, taking the credits
// owed to the target along.
func (a *Endpoint) encode(p *peer, flags byte, h Index, args []int32, off, n int64) []byte {
	b := a.hdr[:]
	b[0], b[1], b[2], b[3] = flags, byte(h), byte(len(args)), 0
	binary.LittleEndian.PutUint32(b[4:], uint32(p.owed))
	if p.owed > 0 {
		if flags&flagCredit == 0 {
			a.Stats.Piggybacked += int64(p.owed)
		}
		p.owed = 0
	}
	at := baseHeader
	if Category(flags&3) == Long {
		binary.LittleEndian.PutUint64(b[8:], uint64(off))
		binary.LittleEndian.PutUint64(b[16:], uint64(n))
		at = longHeader
	}
	for _, v := range args {
		binary.LittleEndian.PutUint32(b[at:], uint32(v))
		at += 4
	}
	return b[:at]
}

// takeCredit waits, polling, until a credit to the peer is free and takes it.
func (a *Endpoint) takeCredit(p *peer) error {
	if p.credits == 0 {
		a.Stats.CreditWaits++
		if err := a.eng.WaitFunc(fmt.Sprintf("an AM credit for PE %d", p.rank), func() bool { return p.credits > 0 }); err != nil {
			return err
		}
	}
	p.credits--
	return nil
}

// send hands a message to the conduit; when a mailbox is full it waits
// (outside handlers) or queues the message for the next poll.
func (a *Endpoint) send(target int, hdr, data []byte) error {
	if len(a.backlog) == 0 {
		err := a.ep.SendMessage(target, hdr, data)
		if !errors.Is(err, conduit.ErrMailboxFull) {
			return err
		}
	}
	a.backlog = append(a.backlog, pending{target, append([]byte(nil), hdr...), append([]byte(nil), data...)})
	if a.eng.InPoll() {
		return nil
	}
	return a.eng.WaitFunc(fmt.Sprintf("mailbox space at PE %d", target), func() bool { return len(a.backlog) == 0 })
}

func (a *Endpoint) drainBacklog() error {
	for len(a.backlog) > 0 {
		m := a.backlog[0]
		err := a.ep.SendMessage(m.target, m.header, m.data)
		if errors.Is(err, conduit.ErrMailboxFull) {
			return nil
		}
		if err != nil {
			return err
		}
		a.backlog[0] = pending{}
		a.backlog = a.backlog[1:]
	}
	return nil
}

// startRequest checks a request (extra, when not nil, checks what is
// particular to its category), takes a credit for it and counts it.
func (a *Endpoint) startRequest(op string, target int, h Index, nargs int, extra func() error) (*peer, error) {
	if err := a.checkRequest(op, target, h, nargs); err != nil {
		return nil, err
	}
	if extra != nil {
		if err := extra(); err != nil {
			return nil, err
		}
	}
	p := a.peer(target)
	if err := a.takeCredit(p); err != nil {
		return nil, err
	}
	a.Stats.Requests++
	a.countSent(h)
	return p, nil
}

// RequestShort sends a Short request. It returns once the message is sent.
func (a *Endpoint) RequestShort(target int, h Index, args ...int32) error {
	p, err := a.startRequest("RequestShort", target, h, len(args), nil)
	if err != nil {
		return err
	}
	return a.send(target, a.encode(p, byte(Short), h, args, 0, 0), nil)
}

// RequestMedium sends a Medium request; payload may be reused on return.
func (a *Endpoint) RequestMedium(target int, h Index, payload []byte, args ...int32) error {
	p, err := a.startRequest("RequestMedium", target, h, len(args), func() error {
		if len(payload) > a.MaxMedium() {
			return a.errf(errs.Argument, "RequestMedium to PE %d: payload of %d bytes exceeds MaxMedium %d", target, len(payload), a.MaxMedium())
		}
		return nil
	})
	if err != nil {
		return err
	}
	return a.send(target, a.encode(p, byte(Medium), h, args, 0, 0), payload)
}

// RequestLong sends a Long request whose payload lands at offset off of
// the target's segment before the handler runs. payload may be reused on
// return.
func (a *Endpoint) RequestLong(target int, h Index, payload []byte, off int64, args ...int32) error {
	p, err := a.startRequest("RequestLong", target, h, len(args), func() error {
		return a.checkLong("RequestLong", target, payload, off)
	})
	if err != nil {
		return err
	}
	op, err := a.sendLong(p, 0, h, payload, off, args)
	if err != nil && op == nil {
		p.credits++ // nothing was sent
	}
	if err != nil || op == nil {
		return err
	}
	if err := a.eng.Wait("the payload of a Long request", op); err != nil {
		return err
	}
	return op.Err()
}

func (a *Endpoint) checkLong(what string, target int, payload []byte, off int64) error {
	seg := int64(len(a.ep.Segment()))
	if off < 0 || off > seg-int64(len(payload)) {
		return a.errf(errs.Range, "%s to PE %d: destination [%d,+%d) outside the %d-byte segment", what, target, off, len(payload), seg)
	}
	if a.cfg.CheckLong != nil {
		if err := a.cfg.CheckLong(target, off, int64(len(payload))); err != nil {
			return fmt.Errorf("am: PE %d: %s to PE %d: destination: %w", a.rank, what, target, err)
		}
	}
	return nil
}

// sendLong sends a Long message. On a mapped segment it copies the payload
// into place and sends the message; otherwise a payload that fits in one
// message travels inline, and a larger one is written by RDMA first, the
// message following the write's completion. It returns the write's Op when
// that is still in flight.
func (a *Endpoint) sendLong(p *peer, flags byte, h Index, payload []byte, off int64, args []int32) (*transport.Op, error) {
	flags |= byte(Long)
	n := int64(len(payload))
	if a.eng.Direct(p.rank) != nil {
		if err := a.eng.Put(nil, p.rank, off, payload, conduit.OrderInherit); err != nil {
			return nil, err
		}
		return nil, a.send(p.rank, a.encode(p, flags, h, args, off, n), nil)
	}
	if len(payload) <= a.MaxMedium() {
		return nil, a.send(p.rank, a.encode(p, flags|flagInline, h, args, off, n), payload)
	}
	saved := append([]int32(nil), args...)
	op := &transport.Op{OnDone: func(op *transport.Op) {
		err := op.Err()
		if err == nil {
			err = a.send(p.rank, a.encode(p, flags, h, saved, off, n), nil)
		}
		if err != nil && a.err == nil {
			a.err = fmt.Errorf("am: PE %d: Long message to PE %d: %w", a.rank, p.rank, err)
		}
	}}
	if err := a.eng.Put(op, p.rank, off, payload, conduit.OrderInherit); err != nil {
		return nil, err
	}
	return op, nil
}

// Poll makes progress: it processes completions and runs the handlers of
// arrived messages.
func (a *Endpoint) Poll() error {
	if err := a.usable("Poll"); err != nil {
		return err
	}
	_, err := a.eng.Poll()
	return err
}

// poll is the layer's poller. A failure is for good: a handler's error, or
// a message of this PE's the network lost (a request, reply or credit
// message, the runtime's or the program's) fails this poll and every later
// one, and so whatever the PE waits in.
func (a *Endpoint) poll() (int, error) {
	if a.err == nil && a.lost != nil {
		if err := a.lost.MessageErr(); err != nil {
			a.err = fmt.Errorf("am: PE %d: %w", a.rank, err)
		}
	}
	if a.err != nil {
		return 0, a.err
	}
	if err := a.drainBacklog(); err != nil {
		return 0, err
	}
	n := a.ep.PollMessages(a.msgs)
	for i := range n {
		if err := a.dispatch(&a.msgs[i]); err != nil {
			a.err = err
			return i, err
		}
		a.msgs[i] = conduit.Message{}
	}
	if n == 0 && len(a.owing) > 0 {
		// Nothing else to do: return every owed credit now, so that no
		// requester starves while this PE waits.
		if err := a.flushCredits(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (a *Endpoint) flushCredits() error {
	for len(a.owing) > 0 {
		p := a.owing[len(a.owing)-1]
		a.owing = a.owing[:len(a.owing)-1]
		p.dirty = false
		if p.owed == 0 {
			continue
		}
		if err := a.returnCredits(p); err != nil {
			return err
		}
	}
	return nil
}

// returnCredits sends the credits owed to p in a hidden credit message.
func (a *Endpoint) returnCredits(p *peer) error {
	a.Stats.CreditMessages++
	return a.send(p.rank, a.encode(p, byte(Short)|flagCredit, 0, nil, 0, 0), nil)
}

func (a *Endpoint) dispatch(msg *conduit.Message) error {
	b := msg.Header
	if len(b) < baseHeader {
		return fmt.Errorf("am: PE %d: malformed %d-byte header from PE %d", a.rank, len(b), msg.Source)
	}
	flags, h, nargs := b[0], Index(b[1]), int(b[2])
	p := a.peer(msg.Source)
	p.credits += int(binary.LittleEndian.Uint32(b[4:]))
	if flags&flagCredit != 0 {
		return nil
	}
	isReply := flags&flagReply != 0
	if isReply {
		p.credits++
	}
	cat := Category(flags & 3)
	at := baseHeader
	m := &a.cur
	m.a, m.owner, m.src, m.cat, m.request, m.h, m.replied = a, a.rank, msg.Source, cat, !isReply, h, false
	m.Payload, m.Offset = nil, 0
	if cat == Medium {
		m.Payload = msg.Payload
	}
	if cat == Long {
		m.Offset = int64(binary.LittleEndian.Uint64(b[8:]))
		n := int64(binary.LittleEndian.Uint64(b[16:]))
		seg := a.ep.Segment()
		if m.Offset < 0 || m.Offset > int64(len(seg))-n {
			return fmt.Errorf("am: PE %d: Long message from PE %d targets [%d,+%d) outside the segment", a.rank, msg.Source, m.Offset, n)
		}
		m.Payload = seg[m.Offset : m.Offset+n]
		if flags&flagInline != 0 {
			copy(m.Payload, msg.Payload)
		}
		at = longHeader
	}
	if len(b) < at+4*nargs {
		return fmt.Errorf("am: PE %d: truncated header from PE %d", a.rank, msg.Source)
	}
	for i := range nargs {
		m.args[i] = int32(binary.LittleEndian.Uint32(b[at+4*i:]))
	}
	m.Args = m.args[:nargs]
	e := a.handler(h)
	if e == nil {
		return fmt.Errorf("am: PE %d: a %v message from PE %d names handler %d, which is not registered here", a.rank, cat, msg.Source, h)
	}
	err := e.fn(m)
	m.a = nil // later replies through a kept *Message fail
	if h >= FirstUserHandler {
		a.userHandled++
	}
	if err != nil {
		kind := "request"
		if isReply {
			kind = "reply"
		}
		return fmt.Errorf("am: PE %d: handler %d (%q) for a %s from PE %d: %w", a.rank, h, e.name, kind, msg.Source, err)
	}
	if !isReply && !m.replied {
		p.owed++
		if p.owed >= a.flush {
			return a.returnCredits(p)
		}
		if !p.dirty {
			p.dirty = true
			a.owing = append(a.owing, p)
		}
	}
	return nil
}
