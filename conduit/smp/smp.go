package smp

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sync/errgroup"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/memreg"
	"github.com/gopgas/gopgas/internal/pad"
	"github.com/gopgas/gopgas/internal/segmem"
	"github.com/gopgas/gopgas/internal/sparse"
)

// Name is the name the backend registers under.
const Name = "smp"

// Limits of the short-message system.
const (
	// MaxHeaderBytes bounds a message header: room for the runtime's AM
	// header with 16 arguments, and a mailbox slot of two cache lines.
	MaxHeaderBytes = 88
	// MaxPayloadBytes bounds a message payload, and so the largest Medium
	// active message. 4 KiB keeps a mailbox slot within a page.
	MaxPayloadBytes = 4096
)

// DefaultStallTimeout is how long every PE must wait without progress
// before the job is declared deadlocked, when JobConfig.StallTimeout is 0.
const DefaultStallTimeout = 10 * time.Second

func init() {
	conduit.Register(Name, conduit.Backend{Open: Open, Plan: Plan, DefaultPEs: DefaultPEs})
}

// DefaultPEs is the number of physical cores, or of logical CPUs when the
// CPU does not tell.
func DefaultPEs() int {
	if n := cpuid.CPU.PhysicalCores; n > 0 {
		return n
	}
	return runtime.NumCPU()
}

type job struct {
	cfg          conduit.JobConfig
	eps          []*endpoint
	segs         [][]byte // every PE's segment, by rank (DirectSegments)
	start        time.Time
	perNode      int
	stallTimeout time.Duration
	// oversubscribed: more PEs than processors, so waiters yield every
	// iteration instead of spinning.
	oversubscribed bool
	// napMin and napMax bound the timed sleep of a parked wait.
	napMin, napMax time.Duration
	// parked[r]: PE r sleeps in a wait, to be woken through its wake
	// channel. Every PE that sends to r or writes its memory reads it, so
	// each is on a cache line of its own, written only when a wait has
	// lasted long enough to sleep; the slice is not written after Open.
	parked []*atomic.Bool

	started atomic.Bool
	done    atomic.Int64

	abortOnce sync.Once
	aborted   atomic.Bool
	abortErr  error // what waits return; written once before aborted is set
	rootErr   error // what Run returns: the first failure in time
}

// peBytes is a PE's memory at rest, for Plan: its endpoint and the
// structures it makes at start-up (a padded hot line, its sleeping flag,
// its inbox, the top of its table of rings, its wake-up channel and
// timer), a share of the job's tables by rank, and its goroutine's stack,
// which the runtime's deepest calls grow to 16 KiB.
var peBytes = int64(unsafe.Sizeof(endpoint{})) + 2*int64(pad.CacheLine) + 2048 + 16<<10

// ringBytes is the memory of one ring (mailbox) of slots slots, made when
// a PE first sends to a peer.
func ringBytes(slots int) int64 {
	n := 1
	for n < slots {
		n <<= 1
	}
	return int64(n)*int64(unsafe.Sizeof(slot{})) + int64(unsafe.Sizeof(mailbox{})) + 4*int64(pad.CacheLine)
}

// Plan checks a job as Open would and estimates its memory (conduit.
// Backend.Plan): every PE's state and rings to two peers, as the runtime's
// own messages make. A program that sends active messages to many peers
// holds a ring more (ringBytes, 8 KiB by default) for each. Segments are
// counted by the runtime.
func Plan(cfg conduit.JobConfig) (conduit.Plan, error) {
	if err := cfg.Validate(); err != nil {
		return conduit.Plan{}, err
	}
	for k := range cfg.Options {
		return conduit.Plan{}, fmt.Errorf("smp: unknown option %q", k)
	}
	perPE := peBytes + int64(min(cfg.PEs-1, 2))*ringBytes(cfg.MailboxSlots) + int64(cfg.PEs+4095)/4096*8
	return conduit.Plan{Nodes: 1, PerPEBytes: perPE}, nil
}

// Open starts a job. It is registered as the "smp" backend.
func Open(cfg conduit.JobConfig) (conduit.Job, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Options) > 0 {
		for k := range cfg.Options {
			return nil, fmt.Errorf("smp: unknown option %q", k)
		}
	}
	j := &job{cfg: cfg, start: time.Now(), perNode: cfg.PEsPerNode, stallTimeout: cfg.StallTimeout}
	if j.perNode == 0 || j.perNode > cfg.PEs {
		j.perNode = cfg.PEs
	}
	if j.stallTimeout <= 0 {
		j.stallTimeout = DefaultStallTimeout
	}
	procs := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	j.oversubscribed = cfg.PEs > procs
	j.napMin, j.napMax = napMin, min(napCap, napMax*time.Duration((cfg.PEs+procs-1)/procs))
	j.eps = make([]*endpoint, cfg.PEs)
	j.parked = make([]*atomic.Bool, cfg.PEs)
	for r := range j.eps {
		j.parked[r] = pad.New[atomic.Bool]()
		ep, err := newEndpoint(j, r)
		if err != nil {
			j.freeSegments()
			return nil, err
		}
		j.eps[r] = ep
	}
	j.segs = make([][]byte, len(j.eps))
	for r, ep := range j.eps {
		j.segs[r] = ep.seg
	}
	return j, nil
}

// Run starts the PEs and waits for all of them.
func (j *job) Run(main func(conduit.Endpoint) error) error {
	if !j.started.CompareAndSwap(false, true) {
		return fmt.Errorf("smp: Run called twice on one job")
	}
	if d := j.cfg.WallTimeLimit; d > 0 {
		fired := make(chan struct{})
		t := time.AfterFunc(d, func() {
			defer close(fired)
			j.limitReached()
		})
		defer func() {
			if !t.Stop() {
				<-fired // no goroutine of the job outlives Run
			}
		}()
	}
	// The group launches the PEs; the root cause of a failure is chosen
	// below rather than by which PE's error arrived first.
	var g errgroup.Group
	errs := make([]error, len(j.eps))
	for r, ep := range j.eps {
		g.Go(func() error {
			err := main(ep)
			ep.Done()
			if err != nil {
				errs[r] = err
				j.fail(r, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	j.freeSegments()
	if j.aborted.Load() {
		return j.rootErr
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// freeSegments returns the segments' memory once no PE runs.
func (j *job) freeSegments() {
	for _, ep := range j.eps {
		if ep != nil && ep.segMem != nil {
			ep.segMem.Free()
			ep.segMem = nil
		}
	}
}

// fail records the first failure of the job: the root cause Run returns,
// while every other PE's waits fail with an error wrapping ErrJobAborted.
func (j *job) fail(rank int, err error) {
	j.abortOnce.Do(func() {
		j.rootErr = err
		j.abortErr = fmt.Errorf("%w: PE %d failed: %v", conduit.ErrJobAborted, rank, err)
		j.aborted.Store(true)
	})
	j.wakeAll()
}

// deadlocked ends the job with a deadlock report.
func (j *job) deadlocked(d *conduit.DeadlockError) {
	j.abortOnce.Do(func() {
		j.rootErr, j.abortErr = d, d
		j.aborted.Store(true)
	})
	j.wakeAll()
}

// EndFlag is set once the job has ended (conduit.Ender).
func (e *endpoint) EndFlag() *atomic.Bool { return &e.job.aborted }

// Err is the error that ended the job, or nil.
func (e *endpoint) Err() error {
	if e.job.aborted.Load() {
		return e.job.abortErr
	}
	return nil
}

func (j *job) now() conduit.Time { return conduit.FromDuration(time.Since(j.start)) }

// regTable is an immutable snapshot of an endpoint's registrations; remote
// posts read it while the owner replaces it on Register and Deregister.
type regTable struct {
	regions memreg.Table
}

// hot is the state other PEs read while this PE waits: on its own cache
// lines.
type hot struct {
	waiting  atomic.Bool  // in a wait long enough to count for deadlock
	progress atomic.Int64 // bumped whenever a waiting PE got something done
	done     atomic.Bool
}

type endpoint struct {
	job      *job
	rank     int
	seg      []byte
	segMem   *segmem.Segment
	ordering conduit.OrderingMode
	regs     atomic.Pointer[regTable]
	nextID   uint32

	hot *hot
	// what the PE waits for while a wait backs off; lastWhat is the copy
	// made for the previous wait.
	what     atomic.Pointer[string]
	lastWhat *string
	// The owner's side of sleeping in a wait (wait.go); other PEs use
	// only job.parked and wake.
	parked *atomic.Bool  // job.parked[rank]
	wake   chan struct{} // one token: a wake-up for a parked wait
	polled uint64        // polls that found something (noteProgress)
	timer  *time.Timer   // a parked wait's timed sleep

	localCQ eventQueue

	remoteMu sync.Mutex
	remoteCQ []conduit.Event

	inbox inbox
	out   sparse.Table[mailbox] // the rings this PE sends on, by receiver
}

func newEndpoint(j *job, rank int) (*endpoint, error) {
	mem, err := segmem.Alloc(j.cfg.SegmentBytes)
	if err != nil {
		return nil, fmt.Errorf("smp: PE %d's segment: %w", rank, err)
	}
	seg := mem.Bytes
	ep := &endpoint{
		job:      j,
		rank:     rank,
		seg:      seg,
		segMem:   mem,
		ordering: j.cfg.Ordering,
		nextID:   conduit.SegmentID + 1,
		hot:      pad.New[hot](),
		out:      sparse.New[mailbox](j.cfg.PEs),
	}
	ep.regs.Store(&regTable{regions: memreg.Table{{ID: conduit.SegmentID, Buf: seg}}})
	ep.inbox.init(j.cfg.PeerBurst)
	ep.parked = j.parked[rank]
	ep.wake = make(chan struct{}, 1)
	return ep, nil
}

func (e *endpoint) Rank() int       { return e.rank }
func (e *endpoint) Size() int       { return len(e.job.eps) }
func (e *endpoint) Node(r int) int  { return r / e.job.perNode }
func (e *endpoint) Nodes() int      { return (len(e.job.eps) + e.job.perNode - 1) / e.job.perNode }
func (e *endpoint) Backend() string { return Name }

func (e *endpoint) Caps() conduit.Caps {
	return conduit.Caps{
		NeedsRegisteredLocal: e.job.cfg.RequireRegisteredLocal,
		AMO32:                true,
		FloatAMO:             true,
		DirectAccess:         !e.job.cfg.NoDirectAccess,
		FlaggedGet:           true,
	}
}

func (e *endpoint) Ordering() conduit.OrderingMode { return e.ordering }

func (e *endpoint) SetOrdering(m conduit.OrderingMode) error {
	switch m {
	case conduit.OrderStrict, conduit.OrderDefault, conduit.OrderRelaxed:
		e.ordering = m
		return nil
	}
	return fmt.Errorf("smp: SetOrdering(%v): must be strict, default or relaxed", m)
}

func (e *endpoint) Segment() []byte { return e.seg }

func (e *endpoint) SegmentHandle(rank int) conduit.MemHandle {
	if rank < 0 || rank >= len(e.job.eps) {
		return conduit.MemHandle{}
	}
	return conduit.MemHandle{Owner: int32(rank), ID: conduit.SegmentID, Bytes: e.job.cfg.SegmentBytes}
}

// DirectSegments is the job's table of segments by rank, shared by every
// endpoint (conduit.DirectSegmenter).
func (e *endpoint) DirectSegments() [][]byte {
	if e.job.cfg.NoDirectAccess {
		return nil
	}
	return e.job.segs
}

func (e *endpoint) DirectSegment(rank int) []byte {
	if e.job.cfg.NoDirectAccess || rank < 0 || rank >= len(e.job.eps) {
		return nil
	}
	return e.job.eps[rank].seg
}

func (e *endpoint) Register(buf []byte) (conduit.MemHandle, error) {
	if len(buf) == 0 {
		return conduit.MemHandle{}, fmt.Errorf("smp: PE %d: Register of an empty buffer", e.rank)
	}
	old := e.regs.Load()
	t := &regTable{regions: make(memreg.Table, len(old.regions), len(old.regions)+1)}
	copy(t.regions, old.regions)
	id := e.nextID
	e.nextID++
	r := memreg.Region{ID: id, Buf: buf}
	t.regions = append(t.regions, r)
	e.regs.Store(t)
	return r.Handle(e.rank), nil
}

func (e *endpoint) Deregister(h conduit.MemHandle) error {
	if int(h.Owner) != e.rank || h.ID == conduit.SegmentID {
		return fmt.Errorf("smp: PE %d: Deregister of handle %d of PE %d", e.rank, h.ID, h.Owner)
	}
	old := e.regs.Load()
	t := &regTable{regions: make(memreg.Table, 0, len(old.regions))}
	for _, r := range old.regions {
		if r.ID != h.ID {
			t.regions = append(t.regions, r)
		}
	}
	if len(t.regions) == len(old.regions) {
		return fmt.Errorf("smp: PE %d: Deregister of unknown handle %d", e.rank, h.ID)
	}
	e.regs.Store(t)
	return nil
}

func (e *endpoint) Registered(buf []byte) (conduit.MemHandle, bool) {
	return e.regs.Load().regions.Registered(e.rank, buf)
}

// Post executes the descriptor at once and queues its completion.
func (e *endpoint) Post(d *conduit.PostDesc) error {
	if err := conduit.CheckPost(d, len(e.job.eps)); err != nil {
		return fmt.Errorf("smp: PE %d: %w", e.rank, err)
	}
	if d.Type != conduit.AMO && e.job.cfg.RequireRegisteredLocal {
		if err := e.checkLocal(d, "local buffer", d.Local, d.LocalMem); err != nil {
			return err
		}
		if d.Flag != nil {
			if err := e.checkLocal(d, "flag word", d.Flag.Word, d.Flag.Mem); err != nil {
				return err
			}
		}
	}
	ev := conduit.Event{Desc: d}
	tgt := e.job.eps[d.Target]
	r := tgt.regs.Load().regions.Lookup(d.Remote.ID)
	n := d.Bytes()
	switch {
	case r == nil:
		ev.Status, ev.Detail = conduit.StatusError, fmt.Sprintf("PE %d has no registration %d", d.Target, d.Remote.ID)
	case d.RemoteOffset+n > int64(len(r.Buf)):
		ev.Status, ev.Detail = conduit.StatusError, fmt.Sprintf("range [%d,+%d) beyond PE %d's %d-byte registration", d.RemoteOffset, n, d.Target, len(r.Buf))
	default:
		mem := r.Buf[d.RemoteOffset : d.RemoteOffset+n]
		// Only the segment is offered for load/store while the network
		// writes it (DirectSegment): a transfer to or from it moves every
		// aligned word whole. Any other registration is a buffer the
		// runtime hands over by message (a two-sided message's, a bounce
		// buffer), which no one touches during the transfer: a plain copy.
		plain := r.ID != conduit.SegmentID
		switch d.Type {
		case conduit.Put:
			if plain {
				copy(mem, d.Local)
			} else {
				storeWords(mem, d.Local)
			}
		case conduit.Get:
			if plain {
				copy(d.Local, mem)
			} else {
				loadWords(d.Local, mem)
			}
			if d.Flag != nil {
				// After the data: a PE that sees the flag sees the data.
				conduit.StoreFlag(d.Flag.Word, d.Flag.Value)
			}
		case conduit.AMO:
			if uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%uintptr(d.Width) != 0 {
				ev.Status, ev.Detail = conduit.StatusError, fmt.Sprintf("AMO word at offset %d of PE %d is misaligned", d.RemoteOffset, d.Target)
				break
			}
			old := conduit.ApplyAMO(mem, d.AMO, d.Width, d.Operand, d.Compare)
			if d.Fetch {
				d.Result = old
			}
		}
		if d.RemoteEvent && d.Type == conduit.Put {
			tgt.pushRemote(conduit.Event{Source: e.rank, Data: d.RemoteData})
		}
		if d.Type != conduit.Get {
			e.job.wakeUp(d.Target)
		}
	}
	e.localCQ.push(ev)
	return nil
}

// checkLocal checks that buf (what of d) lies inside this PE's
// registration h.
func (e *endpoint) checkLocal(d *conduit.PostDesc, what string, buf []byte, h conduit.MemHandle) error {
	r := e.regs.Load().regions.Lookup(h.ID)
	if int(h.Owner) != e.rank || r == nil || !r.Contains(buf) {
		return fmt.Errorf("smp: PE %d: post %v: %s of %d bytes is not inside registration %d (this job requires registered local memory)",
			e.rank, d.Type, what, len(buf), h.ID)
	}
	return nil
}

func (e *endpoint) pushRemote(ev conduit.Event) {
	e.remoteMu.Lock()
	e.remoteCQ = append(e.remoteCQ, ev)
	e.remoteMu.Unlock()
}

func (e *endpoint) PollLocalCQ(evs []conduit.Event) int {
	n := e.localCQ.pop(evs)
	if n > 0 {
		e.noteProgress()
	}
	return n
}

func (e *endpoint) PollRemoteCQ(evs []conduit.Event) int {
	e.remoteMu.Lock()
	n := copy(evs, e.remoteCQ)
	rest := copy(e.remoteCQ, e.remoteCQ[n:])
	clear(e.remoteCQ[rest:])
	e.remoteCQ = e.remoteCQ[:rest]
	e.remoteMu.Unlock()
	if n > 0 {
		e.noteProgress()
	}
	return n
}

func (e *endpoint) MaxMessageHeader() int  { return MaxHeaderBytes }
func (e *endpoint) MaxMessagePayload() int { return MaxPayloadBytes }

func (e *endpoint) Now() conduit.Time     { return e.job.now() }
func (e *endpoint) Charge(_ conduit.Time) {}

func (e *endpoint) Done() {
	if !e.hot.done.Swap(true) {
		e.job.done.Add(1)
		e.job.wakeAll()
	}
}

func (e *endpoint) AllDone() bool { return e.job.done.Load() == int64(len(e.job.eps)) }

// noteProgress records that the PE got something done: a waiting PE's
// backoff starts over, and deadlock detection is reset.
func (e *endpoint) noteProgress() {
	e.polled++
	if e.hot.waiting.Load() {
		e.hot.progress.Add(1)
	}
}

// storeWords copies src into segment memory the way a NIC's DMA writes it:
// every aligned 8-byte word whole (atomically), so that a PE polling a word
// of its segment sees either the old or the new value. Unaligned edges are
// copied bytewise.
func storeWords(mem, src []byte) {
	if overlap(mem, src) {
		// A PE writing its own segment from an overlapping part of it:
		// copy semantics, as the direct path's copy() gives.
		src = append([]byte(nil), src...)
	}
	head := wordHead(mem)
	copy(mem[:head], src)
	i := head
	for ; i+8 <= len(mem); i += 8 {
		atomic.StoreUint64((*uint64)(unsafe.Pointer(&mem[i])), binary.NativeEndian.Uint64(src[i:]))
	}
	copy(mem[i:], src[i:])
}

// loadWords copies segment memory into dst, reading aligned words whole.
func loadWords(dst, mem []byte) {
	if overlap(dst, mem) {
		tmp := make([]byte, len(dst))
		loadWords(tmp, mem)
		copy(dst, tmp)
		return
	}
	head := wordHead(mem)
	copy(dst[:head], mem)
	i := head
	for ; i+8 <= len(mem); i += 8 {
		binary.NativeEndian.PutUint64(dst[i:], atomic.LoadUint64((*uint64)(unsafe.Pointer(&mem[i]))))
	}
	copy(dst[i:], mem[i:])
}

// overlap reports whether two byte slices share memory.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// wordHead is how many bytes of b precede its first 8-byte aligned address.
func wordHead(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return min(len(b), int((8-uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8)%8))
}
