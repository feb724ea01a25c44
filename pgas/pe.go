package pgas

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/errs"
	"github.com/gopgas/gopgas/internal/transport"
)

// Mode is an access mode with UPC semantics.
type Mode uint8

const (
	// Relaxed accesses may be reordered with respect to each other and
	// complete only by a fence, quiet, barrier or handle wait.
	Relaxed Mode = iota + 1
	// Strict accesses are globally complete on return and ordered with
	// respect to every earlier and later access of the PE.
	Strict
)

// String returns "relaxed" or "strict".
func (m Mode) String() string {
	switch m {
	case Relaxed:
		return "relaxed"
	case Strict:
		return "strict"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

func parseMode(s string) (Mode, error) {
	switch s {
	case "relaxed":
		return Relaxed, nil
	case "strict":
		return Strict, nil
	}
	return 0, fmt.Errorf("unknown access mode %q", s)
}

// PE is one processing element of a running job: the handle a program uses
// for everything. It belongs to the goroutine Run started for it and must
// not be used from another goroutine or after its program returned.
//
// The RMA methods of the embedded Accessor (Put, Get, PutNB, ...) use the
// PE's default access mode; With gives an Accessor of another mode.
type PE struct {
	Accessor

	rank, size int
	cfg        Config
	ep         conduit.Endpoint
	eng        *transport.Engine
	am         *am.Endpoint
	seg        []byte
	segBytes   int64

	heap    heap
	world   *Team
	teams   teamTable
	handles handlePool

	// Implicit-handle (NBI) operations and the access region collecting
	// them.
	nbiPut, nbiGet transport.Op
	region         *opState

	coll collState
	msg  *msgState

	// blockOp tracks the one blocking operation a PE can have at a time;
	// pieceBuf is reused to describe composite accesses.
	blockOp  transport.Op
	pieceBuf []piece
	// signalOp collects barrier signals; flag is the barrier's wait. fault
	// is the first failure of the runtime's own transfers (a barrier
	// signal), for good: see pollFaults.
	signalOp transport.Op
	flag     flagCond
	fault    error

	// scratch holds single values in flight through the network path;
	// amoResult receives a blocking atomic's old value.
	scratch   [8]byte
	amoResult uint64
	ended     bool
	endFlag   *atomic.Bool // the job has ended (jobEnded)
	stopped   func() error // RunContext's context has ended, when not nil
}

func newPE(ep conduit.Endpoint, c Config) (*PE, error) {
	pe := &PE{
		rank: ep.Rank(),
		size: ep.Size(),
		cfg:  c,
		ep:   ep,
		seg:  ep.Segment(),

		pieceBuf: make([]piece, 0, 16),
	}
	pe.segBytes = int64(len(pe.seg))
	pe.endFlag = new(atomic.Bool) // never set: waits report the end
	if en, ok := ep.(conduit.Ender); ok {
		pe.endFlag = en.EndFlag()
	}
	pe.Accessor = Accessor{pe: pe, mode: c.Access}
	pe.eng = transport.New(ep, transport.Settings{
		NumPD:         c.NumPD,
		BounceBytes:   c.BounceBytes,
		BounceCutover: c.BounceRegisterCutover,
		PDBounceBytes: c.PDBounceBytes,
		FMACutover:    c.FMARDMACutover,
		ChunkBytes:    c.ChunkBytes,
		PollBurst:     c.PollBurst,
		Direct:        c.Direct == On,
	})
	pe.am = am.New(pe.eng, am.Config{Depth: c.NetworkDepth, Burst: c.SmsgBurst, CheckLong: pe.checkLong})
	pe.eng.AddPoller(pe.pollFaults)
	pe.heap.init(ReservedBytes, pe.segBytes)
	if err := pe.initCollectives(); err != nil {
		return nil, err
	}
	if err := pe.initMsg(); err != nil {
		return nil, err
	}
	pe.world = pe.newWorldTeam()
	return pe, nil
}

// Rank is this PE's rank in [0, Size).
func (pe *PE) Rank() int { return pe.rank }

// Size is the number of PEs in the job.
func (pe *PE) Size() int { return pe.size }

// Node is the node this PE runs on; NodeOf gives any rank's, Nodes their
// number.
func (pe *PE) Node() int { return pe.ep.Node(pe.rank) }

// NodeOf returns the node of rank, or -1 outside the job.
func (pe *PE) NodeOf(rank int) int {
	if rank < 0 || rank >= pe.size {
		return -1
	}
	return pe.ep.Node(rank)
}

// Nodes is the number of nodes of the job.
func (pe *PE) Nodes() int { return pe.ep.Nodes() }

// Conduit is the name of the backend the job runs on.
func (pe *PE) Conduit() string { return pe.ep.Backend() }

// Simulated reports whether the backend's clock is virtual.
func (pe *PE) Simulated() bool { return pe.ep.Caps().Simulated }

// Config is the job's resolved configuration.
func (pe *PE) Config() Config { return pe.cfg }

// World is the team of all PEs.
func (pe *PE) World() *Team { return pe.world }

// AM is the PE's active-message endpoint.
func (pe *PE) AM() *am.Endpoint { return pe.am }

// Now reads the backend's clock: wall-clock time since the job started on a
// real backend, virtual time on a simulated one.
func (pe *PE) Now() time.Duration { return pe.ep.Now().Duration() }

// Clock reads the backend's clock at picosecond resolution.
func (pe *PE) Clock() conduit.Time { return pe.ep.Now() }

// Compute accounts d of computation to this PE. On a simulated backend it
// advances the PE's clock; on a real one it does nothing, the time having
// really been spent. A d of zero or less does nothing.
func (pe *PE) Compute(d time.Duration) { pe.ep.Charge(conduit.FromDuration(d)) }

// Poll makes progress: completes finished transfers and runs the handlers
// of arrived active messages.
func (pe *PE) Poll() error {
	if err := pe.usable("Poll"); err != nil {
		return err
	}
	_, err := pe.eng.Poll()
	return pe.wrap("Poll", err)
}

// WaitUntil makes progress (as Poll does) until done reports true, and
// returns early with an error when the job ends because another PE failed,
// or when no PE can make progress any more. It is the way for a program to
// wait for something an active-message handler or another PE's put will
// bring; what names it in deadlock reports. done runs on the PE's
// goroutine.
func (pe *PE) WaitUntil(what string, done func() bool) error {
	if err := pe.blocking("WaitUntil"); err != nil {
		return err
	}
	if done == nil {
		return pe.errf("WaitUntil", ErrArgument, "nil condition")
	}
	return pe.wrap("WaitUntil", pe.eng.WaitFunc(what, done))
}

// SetDefaultAccess changes the access mode of the PE's own RMA methods.
func (pe *PE) SetDefaultAccess(m Mode) error {
	if m != Relaxed && m != Strict {
		return pe.errf("SetDefaultAccess", ErrArgument, "mode %d is neither Relaxed nor Strict", m)
	}
	pe.Accessor.mode = m
	return nil
}

// DefaultAccess is the access mode of the PE's own RMA methods.
func (pe *PE) DefaultAccess() Mode { return pe.Accessor.mode }

// With returns an Accessor whose RMA methods use mode m. A mode other than
// Relaxed and Strict makes an Accessor every operation of which fails
// with ErrArgument, naming the mode.
func (pe *PE) With(m Mode) Accessor { return Accessor{pe: pe, mode: m} }

// Ordering is the network ordering mode.
func (pe *PE) Ordering() Ordering { return pe.ep.Ordering() }

// SetOrdering changes the network ordering mode of this PE's later
// transfers.
func (pe *PE) SetOrdering(m Ordering) error {
	if err := pe.usable("SetOrdering"); err != nil {
		return err
	}
	if m != OrderStrict && m != OrderDefault && m != OrderRelaxed {
		return pe.errf("SetOrdering", ErrArgument, "ordering %v is not strict, default or relaxed", m)
	}
	return pe.wrap("SetOrdering", pe.ep.SetOrdering(m))
}

// Local returns n bytes of this PE's segment at off, for direct local
// access. The bytes must lie inside one live allocation (see Alloc); the
// slice must not be used after that allocation is freed, nor after Run
// returns (the job frees its segments then).
func (pe *PE) Local(off, n int64) ([]byte, error) {
	if err := pe.usable("Local"); err != nil {
		return nil, err
	}
	if err := pe.checkMem("Local", pe.rank, off, n, 0); err != nil {
		return nil, err
	}
	return pe.seg[off : off+n : off+n], nil
}

// Stats are counters of the runtime's transport and active messages.
type Stats struct {
	Transport transport.Stats
	AM        am.Stats
	Msg       MsgStats
}

// Stats returns the PE's counters.
func (pe *PE) Stats() Stats {
	return Stats{Transport: pe.eng.Stats, AM: pe.am.Stats, Msg: pe.msg.stats}
}

// usable fails calls on a PE whose program has returned, or whose job has
// ended (another PE failed, a deadlock, a time limit).
func (pe *PE) usable(op string) error {
	if pe.ended {
		return pe.errf(op, ErrEnded, "the PE's program has returned")
	}
	if pe.jobEnded() {
		return pe.wrap(op, pe.ep.Err())
	}
	if pe.stopped != nil {
		return pe.wrap(op, pe.stopped())
	}
	return nil
}

// blocking is usable for calls that may wait, which must not be made inside
// a handler.
func (pe *PE) blocking(op string) error {
	if err := pe.usable(op); err != nil {
		return err
	}
	if pe.eng.InPoll() {
		return pe.errf(op, ErrInHandler, "not allowed in an active-message handler")
	}
	return nil
}

// jobEnded reports whether the job has ended (conduit.Ender), for the
// load/store fast paths, which never wait: they take the general path,
// which reports the end, when it says so, so that a program polling a word
// with them still ends with its job.
func (pe *PE) jobEnded() bool { return pe.endFlag.Load() }

func (pe *PE) checkPE(op string, r int) error {
	if r < 0 || r >= pe.size {
		return pe.errf(op, ErrBadPE, "PE %d outside the job [0,%d)", r, pe.size)
	}
	return nil
}

// checkMem checks an access to [off, off+n) of PE r's segment: r must be
// in the job, and the range inside one live allocation of the symmetric
// heap (of generation gen, unless gen is 0). The heap is the same on every
// PE, so the issuing PE checks the target's offsets on its own copy.
func (pe *PE) checkMem(op string, r int, off, n int64, gen uint64) error {
	if err := pe.checkPE(op, r); err != nil {
		return err
	}
	if n >= 0 && pe.heap.ok(off, n, gen) {
		return nil
	}
	if err := pe.memErr(r, off, n, gen); err != nil {
		return &Error{PE: pe.rank, Op: op, Err: err}
	}
	return nil
}

// checkLong keeps Long active messages inside live allocations.
func (pe *PE) checkLong(target int, off, n int64) error {
	if pe.heap.ok(off, n, 0) {
		return nil
	}
	return pe.memErr(target, off, n, 0)
}

// memErr says what is wrong with an access to [off, off+n) of PE r's
// segment, of an allocation of generation gen unless gen is 0, or returns
// nil when nothing is.
func (pe *PE) memErr(r int, off, n int64, gen uint64) error {
	bad := func(sentinel error, format string, args ...any) error {
		return &errs.Detail{Msg: fmt.Sprintf(format, args...), Sentinel: sentinel}
	}
	switch {
	case n < 0 || off < 0 || off > pe.segBytes-n:
		return bad(ErrRange, "range [%d,+%d) on PE %d outside the %d-byte segment", off, n, r, pe.segBytes)
	case off < ReservedBytes:
		return bad(ErrRange, "offset %d on PE %d is in the runtime's reserved area; the first usable offset is %d", off, r, ReservedBytes)
	case pe.heap.ok(off, n, gen):
		return nil
	}
	if gen != 0 {
		if b, live := pe.heap.generation(gen); live {
			return bad(ErrRange, "range [%d,+%d) on PE %d is outside its allocation [%d,+%d)", off, n, r, b.off, b.end-b.off)
		}
		return bad(ErrNotAllocated, "range [%d,+%d) on PE %d: its allocation was freed", off, n, r)
	}
	if i := pe.heap.index(off); i >= 0 && off < pe.heap.live[i].end {
		b := pe.heap.live[i]
		return bad(ErrRange, "range [%d,+%d) on PE %d runs past the end of its allocation [%d,+%d)", off, n, r, b.off, b.end-b.off)
	}
	return bad(ErrNotAllocated, "range [%d,+%d) on PE %d is not inside a live symmetric allocation (never allocated, or freed)", off, n, r)
}
