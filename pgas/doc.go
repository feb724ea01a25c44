// Package pgas is gopgas's user API: SPMD programs over a partitioned
// global address space, in the style of UPC, OpenSHMEM and GASNet.
//
// # Usage
//
// Run starts a job of N processing elements (PEs), each a goroutine running
// the same program with its own rank:
//
//	err := pgas.Run(pgas.Config{PEs: 4}, func(pe *pgas.PE) error {
//		a, err := pgas.NewArray[int64](pe, 1024) // symmetric: same offset on every PE
//		if err != nil {
//			return err
//		}
//		right := (pe.Rank() + 1) % pe.Size()
//		if err := a.Put(right, 0, []int64{int64(pe.Rank())}); err != nil {
//			return err
//		}
//		if err := pe.Barrier(); err != nil {
//			return err
//		}
//		fmt.Println(pe.Rank(), "got", a.Local()[0])
//		return nil
//	})
//
// The same program runs unchanged on every backend: Config.Conduit (or
// PGAS_CONDUIT) chooses the real shared-memory one ("smp", the default),
// the real multi-node one over MPI ("mpi": one PE per process of an
// mpiexec launch, built in with the build tag mpi, and the default when a
// launcher started the process), or a simulated network.
//
// # Memory
//
// Every PE has a segment of Config.SegmentBytes. The runtime keeps the first
// ReservedBytes; the rest is the symmetric heap, from which PE.Alloc and
// NewArray take the same offset on every PE (they are collective). Remote
// memory is named by (rank, offset), or by a typed global pointer GPtr.
// A PE reads and writes its own part of the heap directly (Array.Local,
// PE.Local) and other PEs' parts with one-sided operations.
//
// Every access must lie inside one live allocation: the reserved area, memory
// never allocated and memory freed (PE.Free, Array.Free) are refused before
// anything moves. The issuing PE checks the target's offsets on its own copy
// of the heap, which is the same on every PE. An Array, a Lock and a GPtr
// taken from an Array (Array.At) also carry their allocation's generation, so
// that they fail once it is freed even if the memory has been allocated
// again; a raw offset can only be checked against whatever is allocated
// there now.
//
// A segment costs resident memory only for the pages a program touches
// (on systems with mmap; see internal/segmem), so a large segment that is
// mostly unused is cheap. Run frees every segment when it returns: the
// slices Array.Local and PE.Local return are valid only until then, as a
// GASNet segment is only until gasnet_exit and an OpenSHMEM symmetric heap
// only until shmem_finalize. Copy out what must outlive the job before the
// program returns; touching a segment's memory after Run has returned
// faults.
//
// # One-sided operations
//
// Put and Get move bytes between a local buffer and a PE's segment; their
// NB forms return a Handle (Wait, Test, WaitAll, WaitSome); their NBI forms
// complete at SyncNBI, Quiet, Fence or Barrier, or through the Handle of an
// access region (BeginRegion, EndRegion). PutV, PutIndexed and PutStrided
// (and the Get forms) move vectors of spans, blocks at listed offsets, and
// strided sections. Atomic, FetchAtomic, CompareSwap, AtomicLoad,
// AtomicStore and their NB forms operate on 32- and 64-bit integer words and
// on float64 words. The documentation of Accessor states the completion of
// each call.
//
// # Strict and relaxed
//
// Accesses follow UPC's memory model. A Relaxed access (the default) may be
// reordered with other relaxed accesses and is complete only after a
// fence, quiet, barrier or wait. A Strict access first completes every
// earlier access of its PE, uses strict network ordering, and is globally
// complete on return, so it is ordered with respect to all earlier and later
// accesses. PE.SetDefaultAccess sets a PE's default; PE.With(Strict) and
// Array.With(Strict) choose per operation. Under relaxed network ordering
// (Config.Ordering) a get may pass an earlier put to the same location on
// the network ([ORDERING], Figure 7); Quiet
// therefore also flushes: it makes every completed put globally visible.
//
// # Synchronisation and collectives
//
// Barrier, the split-phase BarrierNotify/BarrierWait, Fence (orders puts)
// and Quiet (completes everything). Teams (PE.World, Team.Split) carry
// barriers and the collectives Broadcast, Reduce, Allreduce (Sum, Prod, Min,
// Max, And, Or, Xor), AllreduceLoc (Min and Max of values with their
// locations, as MPI's MINLOC and MAXLOC), Gather, Allgather and Alltoall,
// generic in the element type. On a backend with a collective engine
// (aries) the world team's barrier and single-element reductions run on
// it. NewLock makes a global lock.
//
// # Two-sided messaging
//
// Send, Recv, Isend, Irecv, Probe and Iprobe (on the PE for the world,
// on a Team for its members; SendT and RecvT for typed slices) follow
// MPI's matching rules: any-source and any-tag receives (AnySource,
// AnyTag), messages between a pair matched in the order sent, receives in
// the order posted, a Status with the real size. The protocols are those
// of Cray MPICH on Gemini ([ORDERING] V.E): eager in one mailbox message,
// eager through pre-registered internal buffers, rendezvous by the
// receiver's get and by the sender's chunked puts, with a registration
// cache; the PGAS_MSG_* settings set their thresholds. Messages move while
// the PEs are in messaging calls or wait on messaging handles, as in MPI.
//
// # Active messages
//
// PE.AM returns the PE's active-message endpoint (package am): handlers run
// on the target when it makes progress, inside any blocking call or
// PE.Poll. Register handlers on every PE, in the same order, then Barrier
// before sending.
//
// # Errors
//
// No bad input panics: a rank outside the job, a range outside the segment
// or in its reserved area, memory that is not allocated (freed, or never
// allocated), an access mode that is neither Relaxed nor Strict, a
// misaligned atomic, a second wait on a handle, an unknown handler, a PE
// used after its program returned, a blocking call inside a handler. Each
// returns an *Error naming the PE, the operation and the value, wrapping a
// sentinel (ErrBadPE, ErrRange, ErrNotAllocated, ErrArgument, ErrMisaligned,
// ErrHandle, ErrEnded, ErrInHandler, ...) for errors.Is.
//
// A transfer of the runtime's own that fails (on a simulated network, a
// barrier signal or a collective's or active-message layer's message whose
// route is lost: it times out) fails the call the PE waits in, and every
// later blocking call of the PE, with that transfer's error, naming the peer
// and the cause; it does not leave the job to end as a deadlock.
//
// # Concurrency
//
// A PE belongs to the goroutine Run started for it. Programs may start
// goroutines of their own for local work, but only the PE's goroutine may
// call its methods.
package pgas
