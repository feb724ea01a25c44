package conduit

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// Time is a reading of a backend's clock in picoseconds since the job
// started. On a simulated backend it is virtual time and never depends on the
// wall clock; on a real backend it is the monotonic wall clock. Integer
// picoseconds keep simulated clocks exact (a 650 MHz cycle is 1538 ps and
// 6/13 of a picosecond; rounding is explicit where a model does it).
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000 * Picosecond
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Microseconds returns t in microseconds.
func (t Time) Microseconds() float64 { return float64(t) / float64(Microsecond) }

// Duration converts t to a time.Duration, truncating below a nanosecond.
func (t Time) Duration() time.Duration { return time.Duration(t / Nanosecond) }

// FromDuration converts a time.Duration to Time.
func FromDuration(d time.Duration) Time { return Time(d) * Nanosecond }

func (t Time) String() string {
	if t%Nanosecond == 0 {
		return t.Duration().String()
	}
	return fmt.Sprintf("%.3fns", float64(t)/float64(Nanosecond))
}

// OrderingMode is the network ordering of [ORDERING]
// section II. Posted requests (writes, messages) expect no response;
// non-posted requests (reads, acknowledged writes, fetching AMOs) do.
type OrderingMode uint8

const (
	// OrderInherit, on a descriptor, means "use the endpoint's mode". It is
	// not a valid endpoint mode.
	OrderInherit OrderingMode = iota
	// OrderStrict: every operation completes in issue order; nothing
	// overtakes. A completed put is globally visible.
	OrderStrict
	// OrderDefault: non-posted requests (gets) may pass posted writes.
	OrderDefault
	// OrderRelaxed: non-posted and posted requests may pass each other.
	OrderRelaxed
)

// String returns "strict", "default", "relaxed" or "inherit".
func (m OrderingMode) String() string {
	switch m {
	case OrderInherit:
		return "inherit"
	case OrderStrict:
		return "strict"
	case OrderDefault:
		return "default"
	case OrderRelaxed:
		return "relaxed"
	}
	return fmt.Sprintf("OrderingMode(%d)", uint8(m))
}

// ParseOrdering parses "strict", "default" or "relaxed".
func ParseOrdering(s string) (OrderingMode, error) {
	switch s {
	case "strict":
		return OrderStrict, nil
	case "default":
		return OrderDefault, nil
	case "relaxed":
		return OrderRelaxed, nil
	}
	return 0, fmt.Errorf("unknown ordering mode %q (want strict, default or relaxed)", s)
}

// Mechanism is the hardware path of a transfer.
type Mechanism uint8

const (
	// FMA is Fast Memory Access: user-space stores into a NIC window, low
	// latency, high issue rate, CPU-driven; for small transfers.
	FMA Mechanism = iota + 1
	// BTE is the Block Transfer Engine: a descriptor queued to the NIC,
	// which moves the data without the CPU; higher start-up cost, for large
	// transfers (the runtime's "RDMA" path).
	BTE
)

// String returns "FMA" or "BTE".
func (m Mechanism) String() string {
	switch m {
	case FMA:
		return "FMA"
	case BTE:
		return "BTE"
	}
	return fmt.Sprintf("Mechanism(%d)", uint8(m))
}

// PostType is what a descriptor does.
type PostType uint8

const (
	// Put writes Local to the remote address.
	Put PostType = iota + 1
	// Get reads the remote address into Local.
	Get
	// AMO performs an atomic memory operation on the remote word.
	AMO
)

// String returns "put", "get" or "amo".
func (t PostType) String() string {
	switch t {
	case Put:
		return "put"
	case Get:
		return "get"
	case AMO:
		return "amo"
	}
	return fmt.Sprintf("PostType(%d)", uint8(t))
}

// AMOOp is an atomic memory operation. Each is available fetching (the old
// value returned in PostDesc.Result) or not, on 32- and 64-bit words, except
// FAdd, which is float64 only.
type AMOOp uint8

const (
	AMOAdd   AMOOp = iota + 1 // integer add (wrapping)
	AMOAnd                    // bitwise and
	AMOOr                     // bitwise or
	AMOXor                    // bitwise xor
	AMOSwap                   // store Operand, old value returned when fetching
	AMOCSwap                  // if word == Compare, store Operand
	AMOMin                    // signed minimum
	AMOMax                    // signed maximum
	AMOUMin                   // unsigned minimum
	AMOUMax                   // unsigned maximum
	AMOFAdd                   // float64 add (width 8 only)
	amoLimit
)

var amoNames = [...]string{"", "add", "and", "or", "xor", "swap", "cswap", "min", "max", "umin", "umax", "fadd"}

// String returns the operation's short name.
func (op AMOOp) String() string {
	if op > 0 && op < amoLimit {
		return amoNames[op]
	}
	return fmt.Sprintf("AMOOp(%d)", uint8(op))
}

// Valid reports whether op is a defined operation.
func (op AMOOp) Valid() bool { return op > 0 && op < amoLimit }

// AMOSet is a set of AMO operations.
type AMOSet uint32

// NewAMOSet makes a set of operations.
func NewAMOSet(ops ...AMOOp) AMOSet {
	var s AMOSet
	for _, op := range ops {
		s |= 1 << op
	}
	return s
}

// Has reports whether op is in the set; the empty set has every operation.
func (s AMOSet) Has(op AMOOp) bool { return s == 0 || s&(1<<op) != 0 }

// MemHandle is a memory domain handle (MDH): it names a registered region of
// one PE's memory so that remote PEs can address it as (handle, offset).
// The zero MemHandle is invalid.
type MemHandle struct {
	// Owner is the rank whose memory the handle names.
	Owner int32
	// ID distinguishes the owner's registrations; 0 is never used, 1 is the
	// PE's segment.
	ID uint32
	// Bytes is the length of the region.
	Bytes int64
}

// Valid reports whether h names a registration.
func (h MemHandle) Valid() bool { return h.ID != 0 }

// SegmentID is the MemHandle.ID of every PE's segment.
const SegmentID uint32 = 1

// FlagWord is a flagged get's flag (PostDesc.Flag): once all of the get's
// data is in the descriptor's Local, the backend stores Value into Word,
// native-endian, as one atomic 8-byte write (StoreFlag), so that a PE
// polling Word (LoadFlag) learns of this get's arrival without the
// completion queue. The flag is never visible before the data; the
// completion event still follows, at the same time or later. A get that
// fails does not write it. Word must be exactly 8 bytes, 8-byte aligned,
// and apart from Local; when Caps.NeedsRegisteredLocal is set it must lie
// inside the registration Mem names. Like the descriptor, the FlagWord is
// the runtime's and the backend may read it until the completion event.
type FlagWord struct {
	Word  []byte
	Mem   MemHandle
	Value uint64
}

// PostDesc describes one transfer or atomic. The runtime owns descriptors
// and reuses them; a backend may keep a pointer to one from Post until it
// delivers the descriptor's completion Event, and must not touch it after.
type PostDesc struct {
	// The one-byte fields come first, together, so that the descriptor
	// has no padding (each is described with its group below).
	Type PostType
	// Mech selects FMA or BTE for puts and gets. AMOs always use FMA.
	Mech Mechanism
	// Order overrides the endpoint's ordering mode for this descriptor when
	// not OrderInherit.
	Order       OrderingMode
	AMO         AMOOp
	Width       uint8
	Fetch       bool
	RemoteEvent bool
	Retry       bool

	// Target is the rank of the remote PE.
	Target int
	// Local is the source of a put or the destination of a get. Its length
	// is the transfer size. When the backend's Caps.NeedsRegisteredLocal is
	// set, Local must lie inside the registration LocalMem names.
	Local    []byte
	LocalMem MemHandle
	// Remote and RemoteOffset name the remote address.
	Remote       MemHandle
	RemoteOffset int64

	// AMO fields (AMO, Width, Fetch and these). Width is 4 or 8 bytes.
	// Operand is the value added, stored or combined; Compare is the
	// expected value of AMOCSwap. Fetch asks for the old value, which the
	// backend stores in Result before delivering the completion event.
	// Float64 operands are passed as their IEEE bits.
	Operand uint64
	Compare uint64
	Result  uint64

	// RemoteEvent asks for a destination-side event carrying RemoteData on
	// the target's remote completion queue when a put has been delivered.
	RemoteData uint64

	// Flag, when not nil, asks for a flagged get response (Caps.FlaggedGet;
	// FMA gets only; see FlagWord). It is a pointer, not the fields
	// themselves, because few posts carry one and a runtime may hold a
	// descriptor for every post in flight (40 bytes of each saved).
	Flag *FlagWord

	// TxnID and Retry make the retry of a timed-out AMO exactly-once. A
	// backend whose transactions can time out (StatusTimeout) sets TxnID
	// when it accepts a post that is not a retry: the identity of the
	// transaction, unique among the posts of the job. A runtime that
	// re-posts a descriptor after its completion reported StatusTimeout
	// sets Retry and leaves TxnID as the backend set it, so the retry
	// carries its first attempt's identity; a new operation starts with
	// both zero. The backend must apply an AMO at most once per identity:
	// if an earlier attempt was applied at the target (only its response
	// was lost), the retry completes with that attempt's outcome (its
	// fetched value in Result) and does not apply the operation again.
	// Puts and gets are idempotent and are simply done again. A backend
	// that never times out (smp) ignores both.
	TxnID uint64

	// Context is the runtime's own: returned untouched in the Event.
	Context any
}

// Bytes returns the transfer size of the descriptor.
func (d *PostDesc) Bytes() int64 {
	if d.Type == AMO {
		return int64(d.Width)
	}
	return int64(len(d.Local))
}

// Status is the outcome carried by an Event.
type Status uint8

const (
	// StatusOK: the operation completed.
	StatusOK Status = iota
	// StatusTimeout: the transaction did not complete in time (for example a
	// lost route); the data may or may not have been delivered.
	StatusTimeout
	// StatusError: the target rejected the operation (bad handle, range or
	// alignment found at the target, or a packet arrived corrupted).
	StatusError
)

// String returns "ok", "timeout" or "error".
func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusTimeout:
		return "timeout"
	case StatusError:
		return "error"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Event is a completion-queue entry.
type Event struct {
	// Desc is the completed descriptor (local events only).
	Desc *PostDesc
	// Source is the rank that issued the operation (remote events only).
	Source int
	// Data is the descriptor's RemoteData (remote events only).
	Data uint64
	// Status tells whether the operation succeeded; Detail says why not.
	Status Status
	Detail string
}

// Err returns nil for a successful event and an error describing the
// failure otherwise.
func (e *Event) Err() error {
	if e.Status == StatusOK {
		return nil
	}
	if e.Detail != "" {
		return fmt.Errorf("completion %s: %s", e.Status, e.Detail)
	}
	return fmt.Errorf("completion %s", e.Status)
}

// Message is a short message taken from a mailbox. Header and Payload remain
// valid until the next call of PollMessages on the same endpoint.
type Message struct {
	Source  int
	Header  []byte
	Payload []byte
}

// Caps are the optional capabilities and requirements of a backend.
type Caps struct {
	// NeedsRegisteredLocal: the local buffer of every put and get must lie
	// in registered memory (it does on Gemini and Aries). When false the
	// runtime passes any buffer straight through.
	NeedsRegisteredLocal bool
	// AMO32: 32-bit AMOs exist. Without them the runtime emulates 32-bit
	// atomics with compare-and-swap loops on the enclosing aligned 64-bit
	// word.
	AMO32 bool
	// FloatAMO: AMOFAdd exists. Without it the runtime emulates float64 add
	// with a compare-and-swap loop.
	FloatAMO bool
	// AMOOps, when not empty, is the set of 64-bit operations the network
	// performs; the runtime emulates the others with compare-and-swap
	// (which must be in the set). Empty means every operation.
	AMOOps AMOSet
	// DirectAccess: DirectSegment returns peers' segments that the runtime
	// may read and write by load/store (shared memory, like GASNet's PSHM).
	DirectAccess bool
	// FlaggedGet: FMA gets may carry a flag word (PostDesc.Flag) that the
	// backend writes once the get's data has arrived (Aries's "flagged
	// response"). Without it a post with a flag fails with an error
	// wrapping ErrUnsupported.
	FlaggedGet bool
	// CollectiveOffload: the Endpoint also implements CollectiveOffload.
	CollectiveOffload bool
	// Simulated: the clock is virtual.
	Simulated bool
	// CoreHz is the clock of a simulated host's cores, in cycles per
	// second: the runtime charges software costs it knows in cycles (a
	// two-sided message's receive, pgas.MsgRecvCycles) at this rate, so
	// that they follow the machine's processor. Zero on a real backend,
	// whose software takes the time it takes.
	CoreHz float64
	// MessageCost is the host CPU time a simulated backend charges for
	// each short message PollMessages takes from the mailbox: a part of a
	// message's receive software, which the runtime, knowing the whole,
	// does not charge again. Zero on a real backend.
	MessageCost Time
}

// Waiter is polled by WaitFor. Ready makes whatever progress it can (polling
// completion queues and mailboxes) and reports whether the wait is over.
type Waiter interface {
	Ready() (bool, error)
}

// Endpoint is one PE's view of the network. See the package documentation
// for the rules every method follows.
type Endpoint interface {
	// Rank is this PE's rank in [0, Size).
	Rank() int
	// Size is the number of PEs in the job.
	Size() int
	// Node is the node (host) of a rank, in [0, Nodes).
	Node(rank int) int
	// Nodes is the number of nodes in the job.
	Nodes() int
	// Backend is the registered name of the backend.
	Backend() string
	// Caps returns the backend's capabilities.
	Caps() Caps
	// Ordering is the endpoint's network ordering mode.
	Ordering() OrderingMode
	// SetOrdering changes the endpoint's ordering mode for later posts.
	SetOrdering(m OrderingMode) error

	// Segment is this PE's segment: zeroed memory registered at start-up.
	// A backend may free it when Job.Run returns (a backend that maps
	// segments on demand unmaps them then): the slice, and slices of it,
	// must not be used after that.
	Segment() []byte
	// SegmentHandle is the MDH of a rank's segment.
	SegmentHandle(rank int) MemHandle
	// DirectSegment returns a rank's segment for load/store access, or nil
	// when the backend cannot map it (always nil unless Caps.DirectAccess).
	DirectSegment(rank int) []byte
	// Register registers a local buffer. A registration stays valid until
	// Deregister; the buffer must not be empty.
	Register(buf []byte) (MemHandle, error)
	// Deregister ends a registration made by Register.
	Deregister(h MemHandle) error
	// Registered returns the handle of a registration that contains all of
	// buf, if there is one.
	Registered(buf []byte) (MemHandle, bool)

	// Post starts a transfer or AMO. It fails at once on a malformed
	// descriptor; a failure found at the target arrives as the Status of the
	// completion Event.
	Post(d *PostDesc) error
	// PollLocalCQ moves up to len(evs) completions of this PE's posts into
	// evs and returns how many.
	PollLocalCQ(evs []Event) int
	// PollRemoteCQ moves up to len(evs) destination-side events into evs.
	PollRemoteCQ(evs []Event) int

	// SendMessage copies header and payload into the target's mailbox for
	// this PE. It returns ErrMailboxFull when the mailbox has no free slot.
	SendMessage(target int, header, payload []byte) error
	// PollMessages moves up to len(msgs) arrived messages into msgs and
	// returns how many. The previous batch's storage is released.
	PollMessages(msgs []Message) int
	// MaxMessageHeader and MaxMessagePayload bound SendMessage's arguments.
	MaxMessageHeader() int
	MaxMessagePayload() int

	// Now reads the clock.
	Now() Time
	// Charge accounts d of host CPU time to this PE (compute the program
	// did between calls). Real backends ignore it: the time was really
	// spent.
	Charge(d Time)
	// WaitFor polls w until it is ready, letting the backend make progress
	// between unproductive polls, and returns w's error. It returns an error
	// wrapping ErrJobAborted when another PE failed, and a *DeadlockError
	// when no PE can make progress. what says what the PE waits for, for
	// those reports.
	WaitFor(what string, w Waiter) error

	// Done marks this PE's program as finished; AllDone reports whether
	// every PE's is. The runtime keeps serving messages until AllDone.
	Done()
	AllDone() bool
	// Err returns the error that ended the job (another PE's failure,
	// wrapping ErrJobAborted, or a *DeadlockError), or nil while it runs.
	// Polling loops check it so that they stop when the job does.
	Err() error
}

// DirectSegmenter is implemented by an endpoint whose backend maps every
// PE's segment (Caps.DirectAccess) in one table that all the job's
// endpoints share: DirectSegments returns it, by rank (nil where a segment
// is not mapped), and the caller must not modify it. It spares each PE a
// table of its own, which for a job of N PEs would cost N^2 entries.
type DirectSegmenter interface {
	DirectSegments() [][]byte
}

// SyncPoster is implemented by an endpoint that can carry out a put or a
// get and complete it before returning, at less cost than a Post and a
// wait for its completion: a backend whose only way to complete an
// operation is a blocking call anyway (the mpi backend's MPI_Win_flush),
// where the two steps would cost two crossings into the library and the
// completion queue's round. The runtime uses it for the pieces of a
// blocking access, which it would wait for at once.
//
// PostSync takes a put or get descriptor without a flag word or a
// destination event (it refuses others, as Post refuses what it cannot
// do, with an error wrapping ErrUnsupported). It returns an error where
// Post would; otherwise the operation is over and ev is its completion, as
// PollLocalCQ would have handed it out (a put complete at its target, a
// get's data in the local buffer, or Status and Detail saying why not).
type SyncPoster interface {
	PostSync(d *PostDesc) (ev Event, err error)
}

// MessageFailures is implemented by an Endpoint whose network can fail to
// deliver a message SendMessage accepted: on a simulated network a message
// whose route is lost times out like any transaction, after SendMessage
// has returned. The runtime checks it whenever it polls for messages, so
// that such a loss fails the PE's wait with its cause instead of leaving
// the PE (and the message's target) waiting for ever.
type MessageFailures interface {
	// MessageErr returns an error naming the first message this PE sent
	// that the network failed to deliver (its target and the cause, such
	// as a completion timeout), or nil. A failure is for good: the
	// messages sent after the lost one to the same target are held behind
	// it, as messages are handed out in their sender's order.
	MessageErr() error
}

// CollectiveOffload is implemented by endpoints whose backend reduces in the
// network (the Aries collective engine). Each call is collective over all
// PEs of the job and completes asynchronously: the returned Collective is
// polled by the runtime's wait loop.
type CollectiveOffload interface {
	// OffloadBarrier starts a barrier.
	OffloadBarrier() (Collective, error)
	// OffloadAllreduce starts an allreduce of one 32- or 64-bit value per
	// PE (width 4 or 8). It returns ErrUnsupported for an operation the
	// engine does not implement; the runtime then reduces in software.
	OffloadAllreduce(op ReduceOp, kind ReduceKind, width int, value uint64) (Collective, error)
}

// Collective is an offloaded collective in progress.
type Collective interface {
	// Test reports whether it has completed and, for an allreduce, the
	// result.
	Test() (done bool, result uint64, err error)
}

// LocOffload is implemented, along with CollectiveOffload, by a backend
// whose engine reduces minimum and maximum with a location (MPI_MINLOC,
// MPI_MAXLOC: the Aries collective engine).
type LocOffload interface {
	// OffloadAllreduceLoc starts an allreduce of op (ReduceMin or
	// ReduceMax) of one value per PE, each with a location; among equal
	// values the smallest location wins. Other operations fail with
	// ErrUnsupported.
	OffloadAllreduceLoc(op ReduceOp, kind ReduceKind, width int, value, loc uint64) (LocCollective, error)
}

// LocCollective is an offloaded reduction with a location in progress.
type LocCollective interface {
	Collective
	// Location is the result's location, once Test reports it done.
	Location() uint64
}

// ReduceOp is a reduction operator of an offloaded allreduce.
type ReduceOp uint8

const (
	ReduceSum ReduceOp = iota + 1
	ReduceMin
	ReduceMax
	ReduceAnd
	ReduceOr
	ReduceXor
	ReduceProd
)

// ReduceKind is the operand type of an offloaded allreduce.
type ReduceKind uint8

const (
	ReduceInt ReduceKind = iota + 1
	ReduceUint
	ReduceFloat
)

// Job is a started set of PEs.
type Job interface {
	// Run starts one goroutine per PE, calls main with that PE's endpoint
	// and returns when every PE has returned. The first error a PE returns
	// aborts the job (the other PEs' waits fail with ErrJobAborted) and is
	// the error Run returns. Run may be called once.
	Run(main func(Endpoint) error) error
}

// Errors a backend returns.
var (
	// ErrJobAborted is wrapped by the errors of waits interrupted because
	// another PE failed.
	ErrJobAborted = errors.New("job aborted")
	// ErrMailboxFull is returned by SendMessage when the target's mailbox
	// for the sender has no free slot.
	ErrMailboxFull = errors.New("mailbox full")
	// ErrUnsupported is returned for an operation a backend does not offer.
	ErrUnsupported = errors.New("unsupported by this backend")
)

// DeadlockError reports that every PE still running was waiting and none
// could make progress.
type DeadlockError struct {
	// Waiting maps each waiting rank to what it waited for.
	Waiting map[int]string
	// Finished lists the ranks whose programs had returned.
	Finished []int
	// At is the clock reading when the deadlock was found.
	At Time
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("deadlock at %v: no PE can make progress;", e.At) + describePEs(e.Waiting, "waits for", e.Finished)
}

// LimitError reports that a job was ended because it ran past a time
// limit (JobConfig.SimTimeLimit or WallTimeLimit): a runaway program, for
// example one that polls for a value nobody writes.
type LimitError struct {
	// Limit names the limit that was reached: "simulated time limit" or
	// "wall-clock time limit".
	Limit string
	// Value is the limit's value, as the user gave it.
	Value string
	// Doing maps each rank still running to what it was doing: what it
	// waited for, or that it was computing.
	Doing map[int]string
	// Finished lists the ranks whose programs had returned.
	Finished []int
	// At is the job's clock when it was ended.
	At Time
}

func (e *LimitError) Error() string {
	s := fmt.Sprintf("%s of %s reached at %v; the job was ended;", e.Limit, e.Value, e.At)
	s += describePEs(e.Doing, "is", e.Finished)
	return s
}

// describePEs lists what each rank of m does ("PE 0 waits for x;") and the
// finished ranks, in rank order.
func describePEs(m map[int]string, verb string, finished []int) string {
	ranks := make([]int, 0, len(m))
	for r := range m {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	s := ""
	for _, r := range ranks {
		s += fmt.Sprintf(" PE %d %s %s;", r, verb, m[r])
	}
	if len(finished) > 0 {
		s += fmt.Sprintf(" finished: %v", finished)
	}
	return s
}

// Report is what a backend tells of a finished job.
type Report struct {
	// Backend is the backend's registered name.
	Backend string
	// Simulated: the figures below are of virtual time.
	Simulated bool
	// End is the job's end on its clock (simulated backends only).
	End Time
	// Events is the number of simulation events (simulated backends only).
	Events uint64
	// Counters are the backend's own counters by name (packets, link
	// retries, AMO cache hits, ...).
	Counters map[string]int64
}

// Reporter is implemented by a Job that can report on itself once Run has
// returned.
type Reporter interface {
	Report() Report
}
