package bench

import (
	"github.com/gopgas/gopgas/internal/transport"
	"github.com/gopgas/gopgas/pgas"
)

// WinKind is OSU's one-sided -w: how the window's memory is made. In
// gopgas only the symmetric segment is remotely accessible, so the
// target's side of every window lies in the segment; the kinds differ in
// the origin's buffer, the memory MPI would have exposed.
type WinKind uint8

const (
	// WinAllocate, OSU's default (MPI_Win_allocate): the origin's buffer
	// is an area of the symmetric segment (PE.Alloc).
	WinAllocate WinKind = iota
	// WinCreate (MPI_Win_create over user memory): the origin's buffer is
	// ordinary memory of the program, registered with the runtime once
	// for the run (PE.Pin), as MPI_Win_create registers it.
	WinCreate
	// WinDynamic (MPI_Win_create_dynamic with MPI_Win_attach): the
	// origin's buffer is ordinary memory registered (PE.Pin) when each
	// message size starts and unregistered when it ends, as OSU attaches
	// and detaches a buffer per size.
	WinDynamic
)

// ParseWinKind parses OSU's -w value.
func ParseWinKind(s string) (WinKind, error) {
	return parseChoice("window creation", s, []choice[WinKind]{{"create", WinCreate}, {"allocate", WinAllocate}, {"dynamic", WinDynamic}})
}

// OMBName is OSU's "# Window creation:" text.
func (w WinKind) OMBName() string {
	switch w {
	case WinCreate:
		return "MPI_Win_create"
	case WinDynamic:
		return "MPI_Win_create_dynamic"
	}
	return "MPI_Win_allocate"
}

// SyncKind is OSU's one-sided -s: how the operations of an epoch (one
// operation in the latency tests, a window in the bandwidth tests)
// complete.
type SyncKind uint8

const (
	// SyncDefault is the benchmark's own: SyncFlush, but for put_bibw
	// (BiBW), whose zero Setup has each side wait for its window of puts
	// without synchronizing with the other (OSU's default there is
	// SyncPSCW, which the CLI asks for).
	SyncDefault SyncKind = iota
	// SyncFlush (MPI_Win_flush): wait for the remote completion of the
	// epoch's operations (their handles, or a blocking operation).
	SyncFlush
	// SyncFlushLocal (MPI_Win_flush_local): pgas has no local-only
	// completion (an operation's handle completes when it is done at the
	// target), so it waits as SyncFlush does.
	SyncFlushLocal
	// SyncLock (MPI_Win_lock/unlock): each epoch holds a pgas.Lock, the
	// runtime's global lock (pgas has no per-target window lock), from
	// before its operations until they complete.
	SyncLock
	// SyncLockAll (MPI_Win_lock_all/unlock_all): each epoch is an access
	// region (PE.BeginRegion, EndRegion) of implicit-handle operations,
	// completed through the region's one handle.
	SyncLockAll
	// SyncPSCW (post/start/complete/wait): the target posts by raising a
	// flag at the origin, which waits for it (start), issues and completes
	// the epoch, then raises a flag at the target (complete), which waits
	// for it (wait).
	SyncPSCW
	// SyncFence (MPI_Win_fence): the epoch's operations complete, then
	// the origin and the target meet in a barrier of the two (a flag each
	// raises at the other).
	SyncFence
)

// ParseSyncKind parses OSU's -s value.
func ParseSyncKind(s string) (SyncKind, error) {
	return parseChoice("synchronization", s, []choice[SyncKind]{{"lock", SyncLock}, {"flush", SyncFlush},
		{"flush_local", SyncFlushLocal}, {"lock_all", SyncLockAll}, {"pscw", SyncPSCW}, {"fence", SyncFence}})
}

// OMBName is OSU's "# Synchronization:" text.
func (k SyncKind) OMBName() string {
	switch k {
	case SyncFlushLocal:
		return "MPI_Win_flush_local"
	case SyncLock:
		return "MPI_Win_lock/unlock"
	case SyncLockAll:
		return "MPI_Win_lock_all/unlock_all"
	case SyncPSCW:
		return "MPI_Win_post/start/complete/wait"
	case SyncFence:
		return "MPI_Win_fence"
	}
	return "MPI_Win_flush"
}

// syncOf is the setup's synchronization for a benchmark whose OSU default
// is def.
func (s Setup) syncOf(def SyncKind) SyncKind {
	if s.Sync == SyncDefault {
		return def
	}
	return s.Sync
}

// issue is how an epoch's operations are issued: blocking, with explicit
// handles, or with implicit ones (in an access region).
type issue uint8

const (
	issueBlocking issue = iota
	issueHandles
	issueImplicit
)

// epochs synchronizes the epochs of one-sided operations between an
// origin and a target.
type epochs struct {
	kind  SyncKind
	pe    *pgas.PE
	lock  *pgas.Lock
	flags int64 // two words on every PE: posts received, completes received
	n     uint64
}

// newEpochs sets up kind's synchronization; collective over all PEs.
// Only the kinds that need them allocate flags (pscw, fence) or a lock,
// so that the others run exactly as the tests did before -s.
func newEpochs(pe *pgas.PE, kind SyncKind) (*epochs, error) {
	e := &epochs{kind: kind, pe: pe}
	var err error
	switch kind {
	case SyncLock:
		e.lock, err = pgas.NewLock(pe)
	case SyncPSCW, SyncFence:
		if e.flags, err = pe.Alloc(16, 8); err == nil {
			err = pe.Barrier()
		}
	}
	return e, err
}

// targetActs says whether the target takes part in each epoch.
func (e *epochs) targetActs() bool { return e.kind == SyncPSCW || e.kind == SyncFence }

// raise adds one to word w of rank's flags.
func (e *epochs) raise(rank int, w int64) error {
	return pgas.Atomic(e.pe, pgas.AtomicAdd, pgas.Ptr[uint64](rank, e.flags+8*w), 1)
}

// await waits until this PE's word w reaches e.n.
func (e *epochs) await(w int64, what string) error {
	// The word is read in place, atomically, as pgas.Lock spins on its
	// own: a remote atomic in the condition would not let the network
	// progress.
	words, err := e.pe.Local(e.flags, 16)
	if err != nil {
		return err
	}
	return e.pe.WaitUntil(what, func() bool { return transport.LoadWord(words, 8*w, 8) >= e.n })
}

// origin runs one epoch at the origin: ops issues its operations the
// given way and returns their handles.
func (e *epochs) origin(target int, ops func(how issue) ([]pgas.Handle, error)) error {
	e.n++
	switch e.kind {
	case SyncPSCW:
		if err := e.await(0, "the target's post"); err != nil {
			return err
		}
	case SyncLock:
		if err := e.lock.Lock(); err != nil {
			return err
		}
	case SyncLockAll:
		if err := e.pe.BeginRegion(); err != nil {
			return err
		}
		if _, err := ops(issueImplicit); err != nil {
			return err
		}
		h, err := e.pe.EndRegion()
		if err != nil {
			return err
		}
		return h.Wait()
	}
	how := issueHandles
	if e.kind == SyncFlush || e.kind == SyncFlushLocal {
		how = issueBlocking
	}
	hs, err := ops(how)
	if err != nil {
		return err
	}
	if err := pgas.WaitAll(hs...); err != nil {
		return err
	}
	switch e.kind {
	case SyncLock:
		return e.lock.Unlock()
	case SyncPSCW:
		return e.raise(target, 1)
	case SyncFence:
		if err := e.raise(target, 1); err != nil {
			return err
		}
		return e.await(1, "the target's fence")
	}
	return nil
}

// target runs one epoch at the target (only when targetActs).
func (e *epochs) target(origin int) error {
	e.n++
	switch e.kind {
	case SyncPSCW:
		if err := e.raise(origin, 0); err != nil {
			return err
		}
		return e.await(1, "the origin's complete")
	case SyncFence:
		if err := e.raise(origin, 1); err != nil {
			return err
		}
		return e.await(1, "the origin's fence")
	}
	return nil
}

// winBuffer is the origin's buffer of n bytes for the window kind: a
// segment area (allocate) or program memory, pinned for the run (create).
// Dynamic windows pin per size (pinSize). pinned is the run's
// registration, nil but for create.
func (s Setup) winBuffer(pe *pgas.PE, n int64) (local []byte, pinned *pgas.Pinned, err error) {
	if s.Win == WinAllocate {
		off, err := pe.Alloc(max(n, 8), 64)
		if err != nil {
			return nil, nil, err
		}
		local, err = pe.Local(off, max(n, 8))
		return local, nil, err
	}
	local = make([]byte, max(n, 8))
	if s.Win == WinCreate {
		pinned, err = pe.Pin(local)
	}
	return local, pinned, err
}

// originSetup makes a one-sided test's window and synchronization
// (collective): the origin's buffer of n bytes, local (a segment area)
// unless the window kind asks for program memory, its registration when
// made for the run, and the epochs of kind.
func (s Setup) originSetup(pe *pgas.PE, local []byte, n int64, kind SyncKind) ([]byte, *pgas.Pinned, *epochs, error) {
	var pinned *pgas.Pinned
	if s.Win != WinAllocate {
		var err error
		if local, pinned, err = s.winBuffer(pe, n); err != nil {
			return nil, nil, nil, err
		}
	}
	e, err := newEpochs(pe, kind)
	return local, pinned, e, err
}

// winTrace, when not nil (tests), sees the origin's buffer of each size
// and whether a registration covers it.
var winTrace func(kind WinKind, buf []byte, pinned bool)

// sizeWindow runs body for one size; an origin's dynamic window buffer
// is attached (pinned) around it.
func (s Setup) sizeWindow(pe *pgas.PE, origin bool, local []byte, pinned *pgas.Pinned, body func() error) error {
	if !origin {
		return body()
	}
	if s.Win != WinDynamic {
		if winTrace != nil {
			winTrace(s.Win, local, pinned != nil)
		}
		return body()
	}
	p, err := pe.Pin(local)
	if err != nil {
		return err
	}
	if winTrace != nil {
		winTrace(s.Win, local, true)
	}
	if err := body(); err != nil {
		_ = p.Unpin()
		return err
	}
	return p.Unpin()
}

// mutual runs one epoch of a PE that is both origin and target of other
// (put_bibw): post, start, the operations, complete, wait; or, under
// fence, the operations and the barrier of the two; or, SyncDefault, the
// operations alone.
func (e *epochs) mutual(other int, ops func(how issue) ([]pgas.Handle, error)) error {
	e.n++
	if e.kind == SyncDefault {
		hs, err := ops(issueHandles)
		if err != nil {
			return err
		}
		return pgas.WaitAll(hs...)
	}
	if e.kind == SyncPSCW {
		if err := e.raise(other, 0); err != nil {
			return err
		}
		if err := e.await(0, "the partner's post"); err != nil {
			return err
		}
	}
	hs, err := ops(issueHandles)
	if err != nil {
		return err
	}
	if err := pgas.WaitAll(hs...); err != nil {
		return err
	}
	if err := e.raise(other, 1); err != nil {
		return err
	}
	return e.await(1, "the partner's complete")
}

// epochLatency times one size's epochs of a latency test: rank 0 runs
// iters+skip epochs of ops and adds the point (the mean time of an
// epoch); the peer takes its part in each when the synchronization asks
// for it; the other PEs do nothing.
func (s Setup) epochLatency(pe *pgas.PE, r *Result, e *epochs, peer, size, iters, skip int, ops func(how issue) ([]pgas.Handle, error)) error {
	switch {
	case pe.Rank() == 0:
		mean, samples, err := timed(pe, iters, skip, s.perIteration(), 1, nil, func() error { return e.origin(peer, ops) }, nil)
		if err != nil {
			return err
		}
		p := Point{Size: size, Value: mean, Iterations: iters}
		s.percentiles(&p, samples)
		r.Points = append(r.Points, p)
	case pe.Rank() == peer && e.targetActs():
		for range iters + skip {
			if err := e.target(0); err != nil {
				return err
			}
		}
	}
	return nil
}
