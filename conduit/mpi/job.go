//go:build mpi

package mpi

/*
#include "gp.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// Limits of the short-message system: those of the shared-memory backend,
// so that the runtime's active messages are the same on both.
const (
	// MaxHeaderBytes bounds a message header.
	MaxHeaderBytes = 88
	// MaxPayloadBytes bounds a message payload (the largest Medium active
	// message).
	MaxPayloadBytes = 4096
	// slotBytes is one message buffer: a 2-byte header length, the header
	// and the payload, rounded up.
	slotBytes = 4352
)

// DefaultStallTimeout is how long every PE must wait without progress
// before the job is declared deadlocked, when JobConfig.StallTimeout is 0.
const DefaultStallTimeout = 10 * time.Second

// DefaultSettle is how long a job's processes run before the program
// starts, once every window exists (the option settle; see job.settleDown).
const DefaultSettle = 20 * time.Millisecond

// AMO modes (the option amo).
const (
	amoAM  = "am"
	amoMPI = "mpi"
)

// Communicators of a job, duplicated from MPI_COMM_WORLD (gp.h).
const (
	commAM   = C.GP_AM
	commCtl  = C.GP_CTL
	commDone = C.GP_DONE
	commColl = C.GP_COLL
)

type job struct {
	cfg   conduit.JobConfig
	c     *C.gp_job
	rank  int
	size  int
	start time.Time
	stall time.Duration
	amo   string
	// settle is the option settle: how long run spins before the PE
	// program starts (see job.settleDown).
	settle time.Duration

	nodeOf    []int
	nodes     int
	nodeRank  int // rank in the node's communicator
	nodeRanks []int
	// oversubscribed: more processes on this host than processors, so
	// waits yield the processor after every poll and resched stays out of
	// Go's scheduler.
	oversubscribed bool
	noDynamic      bool // a job of one process without a dynamic window (postSelf)
	seg            []byte
	direct         [][]byte // peers' segments by rank, nil when not mapped

	ep      *endpoint
	started bool

	// The end of the job.
	aborted  bool
	abortErr error // what waits return
	rootErr  error // what Run returns when the job was aborted
	doneSent bool
	allDone  bool

	// Message counts, for the drain at the exit: what this process sent
	// to each process on the control and AM communicators, and what it
	// received.
	ctlSent, amSent []int64
	ctlRecv, amRecv int64
	ctlBuf          []byte

	dl deadlock
}

// Open starts a job: one PE in this process, the job being the MPI
// launch's processes. Every process of the launch must open it with the
// same configuration; Open checks that they did.
func Open(cfg conduit.JobConfig) (conduit.Job, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	amo, settle := amoAM, DefaultSettle
	for k, v := range cfg.Options {
		switch k {
		case "amo":
			if v != amoAM && v != amoMPI {
				return nil, fmt.Errorf("mpi: option amo=%q: must be am or mpi", v)
			}
			amo = v
		case "settle":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 || d > maxSettle {
				return nil, fmt.Errorf("mpi: option settle=%q: must be a duration from 0 to %v (e.g. 20ms)", v, maxSettle)
			}
			settle = d
		default:
			return nil, fmt.Errorf("mpi: unknown option %q (the backend's options are amo=am|mpi and settle=DURATION)", k)
		}
	}
	if err := startMPI(); err != nil {
		return nil, err
	}
	if cfg.PEs != proc.size {
		return nil, fmt.Errorf("mpi: PEs=%d, but the MPI launch has %d processes and runs one PE in each: leave PGAS_PES unset or set it to %d", cfg.PEs, proc.size, proc.size)
	}
	if !proc.busy.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("mpi: PE %d: a job is already open in this process (one at a time)", proc.rank)
	}
	j := &job{cfg: cfg, rank: proc.rank, size: proc.size, amo: amo, settle: settle, stall: cfg.StallTimeout}
	if j.stall <= 0 {
		j.stall = DefaultStallTimeout
	}
	var err error
	onThread(func() { err = j.open() })
	if err != nil {
		if j.c != nil {
			onThread(func() { j.free() })
		}
		proc.busy.Store(false)
		return nil, err
	}
	j.start = time.Now()
	return j, nil
}

// open makes the job's communicators and windows, collectively.
func (j *job) open() error {
	// Every process must agree on what the job is before anything is
	// allocated: a mismatch would make the windows' sizes differ.
	opts := make([]string, 0, len(j.cfg.Options))
	for k, v := range j.cfg.Options {
		opts = append(opts, k+"="+v)
	}
	slices.Sort(opts)
	vals := []int64{int64(j.cfg.PEs), j.cfg.SegmentBytes, int64(j.cfg.MailboxSlots), int64(j.cfg.PeerBurst),
		int64(j.cfg.Ordering), boolInt(j.cfg.NoDirectAccess), int64(j.stall), hashString(strings.Join(opts, ","))}
	var same C.int
	if err := check("MPI_Allreduce (comparing the job's configuration)", j.rank, C.gp_check_config((*C.int64_t)(unsafe.Pointer(&vals[0])), C.int(len(vals)), &same)); err != nil {
		proc.broken.Store(true)
		return err
	}
	if same == 0 {
		return fmt.Errorf("mpi: PE %d: the processes of the launch opened the job with different settings (PEs, segment size, mailbox slots, ordering, direct access, stall timeout or options): every process must run the same configuration", j.rank)
	}
	j.c = C.gp_new()
	for _, w := range []struct {
		which C.int
		name  string
	}{{commAM, "active messages"}, {commCtl, "control"}, {commDone, "termination"}, {commColl, "collectives"}} {
		if err := check("MPI_Comm_dup ("+w.name+")", j.rank, C.gp_dup(j.c, w.which)); err != nil {
			return err
		}
	}
	var nrank, nsize C.int
	if err := check("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)", j.rank, C.gp_split_shm(j.c, &nrank, &nsize)); err != nil {
		return err
	}
	j.nodeRank = int(nrank)
	// A node is named by its lowest world rank; nodes are numbered in
	// that order, and a rank's place in its node's communicator is its
	// place among the node's ranks in world order (MPI_Comm_split_type
	// with key 0 keeps the world's order).
	var leader C.int
	if err := check("MPI_Allreduce (node leader)", j.rank, C.gp_node_leader(j.c, &leader)); err != nil {
		return err
	}
	leaders := make([]C.int, j.size)
	if err := check("MPI_Allgather (node of every rank)", j.rank, C.gp_allgather_int(leader, &leaders[0])); err != nil {
		return err
	}
	j.nodeOf = make([]int, j.size)
	j.nodeRanks = make([]int, j.size)
	nodeOfLeader := map[int]int{}
	members := map[int]int{}
	for r := range j.size {
		l := int(leaders[r])
		n, ok := nodeOfLeader[l]
		if !ok {
			n = len(nodeOfLeader)
			nodeOfLeader[l] = n
		}
		j.nodeOf[r] = n
		j.nodeRanks[r] = members[n]
		members[n]++
	}
	j.nodes = len(nodeOfLeader)
	if ppn := j.cfg.PEsPerNode; ppn != 0 {
		for n, c := range members {
			if c != ppn {
				return fmt.Errorf("mpi: PEsPerNode=%d, but the launcher put %d processes on node %d: the launcher places processes (leave PGAS_PES_PER_NODE unset, or give the launcher's own option, such as mpiexec -ppn)", ppn, c, n)
			}
		}
	}
	// Oversubscribed: more of the job's processes on this host than it
	// has processors. Counted by host name, not by MPI's node (nsize):
	// MPICH's cliques split one host into several nodes, and their
	// processes share its processors all the same.
	host, _ := os.Hostname()
	hosts := make([]C.int, j.size)
	if err := check("MPI_Allgather (host of every rank)", j.rank, C.gp_allgather_int(C.int(int32(hashString(host))), &hosts[0])); err != nil {
		return err
	}
	onHost := 0
	for _, h := range hosts {
		if h == hosts[j.rank] {
			onHost++
		}
	}
	j.oversubscribed = max(onHost, int(nsize)) > runtime.NumCPU()
	var unified C.int
	// Without direct access the segment is an MPI_Win_allocate window with
	// MPICH (its fastest RMA); Open MPI 4.1 crashed in MPI_Win_sync on
	// such a window in this backend's tests, so other libraries keep the
	// shared segment and the created window.
	mpich := strings.HasPrefix(proc.version, "MPICH")
	shared := 0
	switch {
	case !mpich && j.nodes == 1:
		// Open MPI 4.1 crashed in MPI_Compare_and_swap on a window
		// created over node-shared memory: RMA goes through the shared
		// window itself.
		shared = 2
	case j.directAccess() || !mpich:
		shared = 1
	}
	call := "MPI_Win_allocate (the segment)"
	if shared > 0 {
		call = "MPI_Win_allocate_shared, MPI_Win_create (the segment)"
	}
	if err := check(call, j.rank, C.gp_win_segment(j.c, C.int64_t(j.cfg.SegmentBytes), C.int(shared), C.int(boolInt(mpich)), &unified)); err != nil {
		return err
	}
	if unified == 0 {
		return fmt.Errorf("mpi: PE %d: the segment's window has the separate memory model; the runtime polls window memory with loads and needs MPI_WIN_UNIFIED", j.rank)
	}
	j.seg = unsafe.Slice((*byte)(unsafe.Pointer(j.c.base)), j.cfg.SegmentBytes)
	j.direct = make([][]byte, j.size)
	for r := range j.size {
		if !j.directAccess() || j.nodeOf[r] != j.nodeOf[j.rank] {
			continue
		}
		var base unsafe.Pointer
		if err := check("MPI_Win_shared_query", j.rank, C.gp_shared_query(j.c, C.int(j.nodeRanks[r]), &base)); err != nil {
			return err
		}
		j.direct[r] = unsafe.Slice((*byte)(base), j.cfg.SegmentBytes)
	}
	if err := check("MPI_Win_create_dynamic (registered memory)", j.rank, C.gp_win_dynamic(j.c)); err != nil {
		if j.size > 1 {
			return err
		}
		// Open MPI 4.1 makes no dynamic window for a single process
		// (its one-process component has none): a job of one process
		// reaches its own registrations by load and store (postSelf).
		j.noDynamic = true
	}
	nrecv := min(max(16, j.cfg.MailboxSlots*(j.size-1)), 256)
	nsend := min(max(64, j.cfg.MailboxSlots*(j.size-1)), 4096)
	if err := check("allocating message buffers", j.rank, C.gp_msg_init(j.c, C.int(nrecv), C.int(nsend), slotBytes)); err != nil {
		return err
	}
	if err := check("allocating atomic operands", j.rank, C.gp_amo_slots(j.c, amoSlots)); err != nil {
		return err
	}
	for i := range nrecv {
		if err := check("MPI_Irecv (active messages)", j.rank, C.gp_post_recv(j.c, C.int(i))); err != nil {
			return err
		}
	}
	j.ctlSent = make([]int64, j.size)
	j.amSent = make([]int64, j.size)
	j.ep = newEndpoint(j, nrecv)
	j.dl.init(j)
	// No process touches another's segment before every window exists.
	var ok C.int
	one := []int64{1}
	if err := check("MPI_Allreduce (start of the job)", j.rank, C.gp_check_config((*C.int64_t)(unsafe.Pointer(&one[0])), 1, &ok)); err != nil {
		proc.broken.Store(true)
		return err
	}
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// hashString is FNV-1a, to compare option strings across processes.
func hashString(s string) int64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return int64(h >> 1)
}

// Run runs main on the MPI thread as this process's PE and returns when
// every process's PE has returned.
func (j *job) Run(main func(conduit.Endpoint) error) error {
	if j.started {
		return fmt.Errorf("mpi: Run called twice on one job")
	}
	j.started = true
	var err error
	onThread(func() { err = j.run(main) })
	proc.busy.Store(false)
	return err
}

func (j *job) run(main func(conduit.Endpoint) error) (err error) {
	ep := j.ep
	j.settleDown()
	var mainErr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				mainErr = fmt.Errorf("mpi: PE %d panicked: %v", j.rank, r)
			}
		}()
		mainErr = main(ep)
	}()
	if mainErr != nil {
		j.fail(mainErr)
	}
	if terr := j.teardown(); terr != nil && mainErr == nil && !j.aborted {
		return terr
	}
	if j.aborted {
		if mainErr != nil && j.rootErr == mainErr {
			return mainErr
		}
		return j.rootErr
	}
	return mainErr
}

// maxSettle bounds the option settle.
const maxSettle = 10 * time.Second

// settleDown spins for the option settle's time before the PE program
// starts, so that the program does not start while Go's sysmon thread
// polls at its fastest.
//
// When a cgo call lasts more than 10 ms with nothing else to run (MPI_Init,
// or a collective of the job's start waiting for a later process), sysmon
// takes the call's processor away, finds every processor idle and sleeps;
// when the call returns it starts again from its shortest period, 20 us,
// for 50 rounds, and only then doubles its period up to 10 ms. Each round
// wakes its thread, and on a node whose cores all run a spinning process
// (the usual MPI job) that wake-up preempts one of them. With Linux's
// default timer slack of 50 us a round takes about 85 us: the 50 rounds
// last about 4 ms and the doubling about 10 ms more. A short benchmark, or
// the first exchanges of a program, starting inside that window ran up to
// 40% slower (an 8-byte blocking put 0.62 us against 0.44 us a few
// milliseconds later). The processes start the program together (the
// start of the job is a collective) and none has waited since, so after
// the spin sysmon polls at most every few milliseconds. Assumed: 20 ms,
// about the 50 rounds and the doubling together; the option settle
// changes it, 0 turns it off.
func (j *job) settleDown() {
	if j.settle <= 0 {
		return
	}
	// The endpoint's pass through Go's scheduler every few milliseconds
	// (resched) keeps sysmon from preempting the spin.
	for t0 := time.Now(); time.Since(t0) < j.settle; {
		j.ep.resched()
	}
}

// fail ends the job because this PE failed: every other process is told,
// and its waits fail with ErrJobAborted.
func (j *job) fail(err error) {
	if j.aborted {
		return
	}
	j.aborted = true
	j.rootErr = err
	j.abortErr = fmt.Errorf("%w: PE %d failed: %v", conduit.ErrJobAborted, j.rank, err)
	msg := []byte(err.Error())
	if len(msg) > slotBytes {
		msg = msg[:slotBytes]
	}
	for r := range j.size {
		if r != j.rank {
			// Nothing to do about a failure to tell: the job is ending
			// with this PE's error already.
			_ = j.sendCtl(r, tagAbort, msg)
		}
	}
}

// abortedBy records another process's report that the job has ended.
func (j *job) abortedBy(src int, root, wait error) {
	if j.aborted {
		return
	}
	j.aborted = true
	j.rootErr, j.abortErr = root, wait
}

// teardown ends the job in step with every other process: the done
// barrier (every PE's program has returned or failed), then an exchange
// of how many messages each process sent to each, then the drain of what
// is still in flight, and only then the collective frees.
func (j *job) teardown() error {
	ep := j.ep
	ep.Done()
	j.dl.report(stateDone, "")
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	for i := 0; !j.allDone; i++ {
		var done C.int
		if err := check("MPI_Test (done barrier)", j.rank, C.gp_done_test(j.c, &done)); err != nil {
			keep(err)
			break
		}
		if done != 0 {
			j.allDone = true
			break
		}
		j.pollCtl()
		ep.drainAM()
		if i%slowEvery == 0 {
			j.dl.check(time.Now())
		}
		j.pause(i)
	}
	// Complete whatever is still in flight.
	keep(check("MPI_Win_flush_all (segment)", j.rank, C.gp_flush_all(j.c, 0, 0)))
	if !j.noDynamic {
		keep(check("MPI_Win_flush_all (registered memory)", j.rank, C.gp_flush_all(j.c, 1, 0)))
	}
	ep.pending = ep.pending[:0]
	// Every process now only receives: exchange the counts of messages
	// sent, so that each knows how many are still to arrive.
	counts := make([]int64, 2*j.size)
	copy(counts, j.ctlSent)
	copy(counts[j.size:], j.amSent)
	if err := check("MPI_Iallreduce (message counts at exit)", j.rank, C.gp_exit_start(j.c, (*C.int64_t)(unsafe.Pointer(&counts[0])), C.int(len(counts)))); err != nil {
		keep(err)
		proc.broken.Store(true)
		return firstErr
	}
	for i := 1; ; i++ {
		var done C.int
		if err := check("MPI_Test (message counts at exit)", j.rank, C.gp_exit_test(j.c, &done)); err != nil {
			keep(err)
			proc.broken.Store(true)
			return firstErr
		}
		if done != 0 {
			break
		}
		j.pollCtl()
		ep.drainAM()
		j.pause(i)
	}
	wantCtl := int64(C.gp_exit_count(j.c, C.int(j.rank)))
	wantAM := int64(C.gp_exit_count(j.c, C.int(j.size+j.rank)))
	deadline := time.Now().Add(j.stall)
	for i := 1; j.ctlRecv < wantCtl || j.amRecv < wantAM || j.c.nactive > 0; i++ {
		j.pollCtl()
		ep.drainAM()
		ep.reap()
		j.pause(i)
		if time.Now().After(deadline) {
			keep(fmt.Errorf("mpi: PE %d: at exit, %d of %d control and %d of %d active messages arrived and %d sends are unfinished after %v",
				j.rank, j.ctlRecv, wantCtl, j.amRecv, wantAM, j.c.nactive, j.stall))
			proc.broken.Store(true)
			return firstErr
		}
	}
	keep(j.free())
	return firstErr
}

// free releases the job's MPI objects (collectively: the windows' frees
// synchronise).
func (j *job) free() error {
	if j.ep != nil {
		// The runtime keeps its registrations to the end; the windows'
		// frees below let go of them in MPI, and the pins go here.
		for _, r := range j.ep.order {
			if r.id != conduit.SegmentID {
				r.pin.Unpin()
			}
		}
		j.ep.order, j.ep.regs, j.ep.seg = nil, nil, nil
	}
	var where C.int
	rc := C.gp_free(j.c, &where)
	j.c = nil
	j.seg, j.direct = nil, nil
	call := [...]string{"freeing the job", "MPI_Cancel (active-message receives)", "MPI_Win_unlock_all", "MPI_Win_free", "MPI_Comm_free"}[where]
	return check(call, j.rank, rc)
}

func (j *job) now() conduit.Time { return conduit.FromDuration(time.Since(j.start)) }

var errEnded = errors.New("mpi: the job has ended")
