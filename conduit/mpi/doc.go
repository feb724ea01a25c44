// Package mpi is the conduit over MPI-3: a real multi-node backend whose
// jobs are launched by mpiexec (or mpirun, or srun), one PE per process,
// after the mapping of GASNet's mpi-conduit and of OSHMPI (OpenSHMEM over
// MPI-3). It registers as "mpi".
//
// The backend needs cgo and an MPI library and is built only with the
// build tag mpi (go build -tags mpi); without the tag the package
// registers a stand-in whose Open says how to build it in, so the default
// build stays pure Go. The C flags come from pkg-config's "mpi" package,
// or, with the extra tag mpicc, from CGO_CFLAGS and CGO_LDFLAGS (set them
// from `mpicc -show`, or from `pkg-config --cflags --libs mpich`).
//
// # Bootstrap
//
// The job is the launch: its size is MPI_COMM_WORLD's, the PE's rank is
// the process's rank, and the nodes are the groups of
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), numbered in the order of
// their lowest rank. JobConfig.PEs must equal the number of processes
// (pgas: PGAS_PES unset or equal to it), and JobConfig.PEsPerNode must be
// 0 or the number every node has: the launcher places the processes.
// Every process must open the job with the same configuration; Open
// compares the processes' settings (an MPI_Allreduce) and fails on every
// process if they differ. A process may run several jobs, one after the
// other, each with communicators and windows of its own.
//
// # Threading
//
// MPI is initialised once per process, on first use, by a goroutine that
// locks itself to its OS thread for the life of the process and asks for
// MPI_THREAD_FUNNELED. Every later MPI call is made on that thread: Open
// and Run hand their work to it, and the PE's program runs there. One
// thread is all one PE per process needs; MPI_THREAD_MULTIPLE would make
// the library lock on every call for nothing. Finalize (called by
// pgas.Main and pgas.Finalize) ends MPI; a process must call it before it
// exits.
//
// # Segments and registered memory
//
// When the runtime may load and store peers' segments
// (Caps.DirectAccess: not with PGAS_DIRECT=off, nor with amo=mpi on a job
// of several nodes), each PE's segment is allocated with
// MPI_Win_allocate_shared over the processes of its node, which map each
// other's segments (MPI_Win_shared_query), and RMA goes through a second
// window created over MPI_COMM_WORLD on the same memory (MPI_Win_create):
// MPICH 4.0 (ch4:ucx) moves large puts and gets to a shared window's
// memory several times slower than to a created one's (0.3 to 0.6 GB/s
// against 3 to 5 GB/s at 256 KiB and 1 MiB on the development machine).
// Otherwise, with MPICH, the segment is an MPI_Win_allocate window over
// MPI_COMM_WORLD, whose memory MPI chooses; within a node MPICH maps such
// a window itself and its RMA is the fastest it has. With other libraries
// the segment is always node-shared, and on a job of one node RMA goes
// through the shared window itself: in this backend's tests Open MPI 4.1
// crashed in MPI_Win_sync on an MPI_Win_allocate window and in
// MPI_Compare_and_swap on a window created over node-shared memory (a job
// of several nodes on Open MPI, which takes the created window, has not
// been tried). Every window is in
// a passive-target epoch from the start until the end of the job, and
// must have MPI's unified memory model (Open refuses a separate one). The
// segment's RMA window is opened, with MPICH, with a shared lock on every
// process (MPI_Win_lock with MPI_MODE_NOCHECK, which is what
// MPI_Win_lock_all means) because MPICH 4.0 completes MPI_Win_flush to
// one target several times faster inside a lock on that target (measured
// once on a quiet machine: 8-byte put and flush 0.27 against 1.2 us);
// with other libraries, and for the shared and dynamic windows, with
// MPI_Win_lock_all (Open MPI 4.1's MPI_Win_sync crashed on a window
// locked target by target). MPI_Win_free releases the
// segments when Run returns.
//
// Local buffers must be registered (Caps.NeedsRegisteredLocal): MPI keeps
// a pointer to an operation's buffer until the operation completes, which
// cgo allows only for pinned memory. Register pins the buffer
// (runtime.Pinner) and attaches it to a dynamic window
// (MPI_Win_create_dynamic, MPI_Win_attach), so that other PEs can name it
// too: a PE learns where another's registration lies by asking it once
// over the control communicator. A buffer that overlaps an attached one
// is pinned but not attached again. Open MPI 4.1 makes no dynamic window
// for a job of one process; such a job reaches its own registrations by
// load and store.
//
// # RMA and ordering
//
// A put or get is an MPI_Put or MPI_Get; it completes at the next
// MPI_Win_flush to its target (MPI_Win_flush_all past four targets),
// after which a put is complete at the target and visible to every PE (a
// stronger completion than the contract asks under default and relaxed
// ordering), a get's data is in the local buffer and an MPI atomic has
// its result. The ordering modes map as follows: under OrderStrict every
// operation is flushed as Post issues it, so that nothing overtakes; under
// OrderDefault and OrderRelaxed operations follow MPI's own rules, which
// order nothing between puts and gets in flight (default is as relaxed
// here), and PollLocalCQ flushes what is pending. Operations longer than
// 1 GiB are issued in pieces (MPI counts are ints).
//
// A blocking put or get (the pieces of PE.Put and PE.Get, which the
// runtime would wait for at once) takes a shorter path, PostSync
// (conduit.SyncPoster): the MPI_Put or MPI_Get, the MPI_Win_flush to its
// target and the MPI_Win_sync a wait ends with, in one C call, complete
// when it returns, without the completion queue and the wait loop (and,
// for a piece whose local buffer is registered, without a descriptor
// from the runtime's pool). It leaves other targets' pending operations
// pending, which no ordering mode forbids: the operation is complete
// before the PE goes on.
//
// The runtime polls words of its own segment that other PEs write with
// MPI_Put (barrier flags, lock words). In the unified model such a write
// becomes visible to the process's loads after MPI_Win_sync, so every
// check of a wait's condition but the first follows an MPI_Win_sync, made
// in the same C call as the poll's flush or its probe of the receives when
// the poll makes one, and a wait ends with one (or with a memory fence
// when one came after the last check began); the polls themselves
// (flushes, MPI_Test on the receives, MPI_Iprobe) drive MPI's progress.
//
// # Polling and progress
//
// Each call into C costs the cgo transition, so the hot paths make one:
// a poll of what arrives is one call (the sync, MPI_Iprobe on the control
// communicator, MPI_Test on the ring's next receive), whose findings are
// left in C memory rather than in Go variables passed by address (which
// would be allocated on every poll). A blocking put or get completes at
// its flush, which MPI progresses by itself: inside a wait, the poll
// right after the local completion queue handed out completions skips
// the receives and control messages, at most 15 times in a row, so that
// a PE that only puts still serves what is addressed to it every 16
// blocking operations (amPollEvery), and a wait whose condition those
// completions did not meet polls everything in its next round. A wait
// still not ready after 64 polls drives MPI's progress in C between
// polls, up to 16 rounds of probe and tests (the offloaded collective's
// too) that stop at the first arrival: MPICH over UCX's shared-memory
// transport completes a put or get only when its target's progress
// engine serves it, and a PE waiting in a barrier is often that target.
// A word of the segment written by another PE is then seen up to one
// such spin later.
//
// A PE runs on the thread locked to MPI and, while it spins in a wait or
// sits in a long MPI call, never passes through Go's scheduler; Go's
// sysmon thread then takes its processor away every 10 ms and polls every
// 20 us, and on a node whose cores all run spinning processes those
// wake-ups preempt them thousands of times a second. The PE therefore
// calls runtime.Gosched every 5 ms (before a flush and on a wait's slow
// path): one handoff of the locked thread per period instead.
//
// sysmon also polls every 20 us for 50 rounds (about 4 ms with Linux's
// timer slack) after any cgo call that kept the process's processors
// idle for 10 ms, such as MPI_Init or a collective of the job's start
// that waits for a later process, and each of those wake-ups preempts a
// spinning process on a node whose cores are all busy. A job therefore
// spins for 20 ms once every window exists, before the program starts
// (option settle=DURATION, PGAS_OPTIONS=settle=0 to skip it): a short
// program or benchmark would otherwise run its first milliseconds up to
// 40% slower (job.settleDown has the figures).
//
// # Atomics and MPI's atomicity rule
//
// MPI makes accumulate operations on one location atomic only with
// respect to each other with the same predefined datatype, and, under
// the default accumulate_ops of same_op_no_op, only when they use the
// same operation or MPI_NO_OP. A PGAS program mixes operations on one
// word (the runtime's own lock mixes swap and compare-and-swap on its
// tail word), and the CPU's atomics on a node's shared segments are not
// MPI's. The backend therefore offers two ways, chosen by the option amo
// (PGAS_OPTIONS=amo=am or amo=mpi):
//
//   - amo=am, the default: the target performs the atomic. The request
//     travels over the control communicator; the target applies it with
//     the CPU's atomics (conduit.ApplyAMO) when it polls, and replies
//     with the old value. Every operation of the contract, 32- and
//     64-bit and float64 add, is atomic with respect to every other and
//     to the node's direct load/store access, whatever the mix, as with
//     OSHMPI's active-message atomics. The target must poll (wait in the
//     runtime) for its atomics to progress.
//   - amo=mpi: MPI performs it, with MPI_Fetch_and_op (fetching),
//     MPI_Accumulate (not fetching) and MPI_Compare_and_swap, on
//     MPI_UINT32_T/MPI_UINT64_T (MPI_INT32_T/MPI_INT64_T for signed
//     minimum and maximum, MPI_DOUBLE for float add); an atomic read (a
//     fetching OR with 0) is MPI_NO_OP. No target involvement, but the
//     program must keep MPI's rule: concurrent atomics on one word use
//     one operation (and reads). Unsigned minimum and maximum are left to
//     the runtime's compare-and-swap loop (MPICH 4.0.2 compares
//     MPI_UINT64_T as signed in them). Direct load/store access is then
//     offered only on a job of one node, where the runtime uses the CPU's
//     atomics for every PE and MPI's for none.
//
// # Active messages
//
// Short messages go over a communicator of their own, duplicated from
// MPI_COMM_WORLD: SendMessage copies header and payload into a send
// buffer of C memory and starts an MPI_Isend; the receiver keeps a ring of
// receives posted in advance (MPI_Irecv with MPI_ANY_SOURCE), which MPI
// matches in posting order, so each sender's messages are handed out in
// the order they were sent. PollMessages tests the ring's head, hands out
// up to JobConfig.PeerBurst senders' messages and posts the previous
// batch's receives again. A target's mailbox is JobConfig.MailboxSlots
// unfinished sends; past them SendMessage returns ErrMailboxFull. The
// runtime's credits work as on every backend.
//
// # Collectives
//
// The backend implements conduit.CollectiveOffload: the world's barrier
// and single-value allreduces (sum, product, minimum, maximum; and, or,
// xor of integers) are MPI_Ibarrier and MPI_Iallreduce on a communicator
// of their own, tested by the runtime's wait loop. The runtime offloads
// only the world team; split teams use its own algorithms.
//
// # Failure, deadlock and termination
//
// A PE whose program fails tells every other process over the control
// communicator; their waits then fail with an error wrapping
// conduit.ErrJobAborted that carries the failing PE's error, and their Run
// returns it. A wait that has made no progress for half of
// JobConfig.StallTimeout is reported to rank 0, which ends the job with a
// *conduit.DeadlockError, sent to every process, once every PE has been
// waiting or finished without a report for the other half. A wait past
// JobConfig.WallTimeLimit ends the job with a *conduit.LimitError.
//
// Done starts an MPI_Ibarrier that AllDone tests. When the program has
// returned, Run waits for it, completes the outstanding operations, sums
// over all processes how many control and active messages each sent to
// each (MPI_Iallreduce), receives what is still in flight to it, waits for
// its own sends, and only then frees the windows and communicators, which
// are collective: no message is left behind for the next job. A failed MPI
// call returns an error naming the call, the PE and MPI's error string
// (MPI_ERRORS_RETURN is set on every communicator and window).
package mpi
