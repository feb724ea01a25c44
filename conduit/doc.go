// Package conduit is the contract between the gopgas runtime and a network.
//
// It is modelled on Cray's Generic Network Interface (GNI), the API under
// GASNet's gemini-conduit ([GASNET-GEMINI]), so that
// the same runtime runs unchanged over a real shared-memory backend
// (conduit/smp) and over the simulated Gemini and Aries networks.
//
// # What a backend provides
//
//   - Job bootstrap: a [Job] launches one goroutine per processing element (PE)
//     and hands each an [Endpoint] that knows its rank, the job size and the
//     node of every rank ([Endpoint.Node]). How many PEs share a node matters
//     to the simulated backends, whose nodes share a NIC.
//   - Memory registration: [Endpoint.Register] pins a local region and returns
//     a [MemHandle] (a GNI memory domain handle, MDH) that remote PEs name in
//     their transfers; [Endpoint.Registered] says whether a local buffer lies
//     in registered memory. Every PE's segment is registered by the backend at
//     start-up; [Endpoint.SegmentHandle] gives the MDH of any rank's segment.
//   - Post descriptors ([PostDesc]) for FMA-class and block-transfer-class put
//     and get, and for atomic memory operations (AMOs). [Endpoint.Post] starts
//     one; its completion arrives later as an [Event] on the local completion
//     queue ([Endpoint.PollLocalCQ]). A put may also raise a destination-side
//     event at the target ([Endpoint.PollRemoteCQ]).
//   - Short messages with per-peer mailboxes ([Endpoint.SendMessage],
//     [Endpoint.PollMessages]): the transport of active messages. The sender
//     never overruns a mailbox because the runtime's credit protocol reserves
//     space first; a backend still reports [ErrMailboxFull] rather than
//     dropping a message.
//   - The network ordering mode ([OrderingMode]) of
//     [ORDERING] section II: strict (nothing
//     overtakes), default (non-posted requests may pass posted ones) and
//     relaxed (both may pass). It is set per endpoint and may be overridden
//     per descriptor.
//   - Capabilities ([Caps]) the runtime adapts to: whether local buffers must
//     be registered, whether 32-bit and floating-point AMOs exist (the runtime
//     falls back to compare-and-swap loops where they do not), whether peers'
//     segments can be addressed directly by load/store, and whether
//     collectives can be offloaded ([CollectiveOffload]).
//   - The clock ([Endpoint.Now], [Endpoint.Charge]) and the one place a PE
//     waits: [Endpoint.WaitFor]. A real backend polls there, and may let a
//     long wait sleep until woken ([Waker]); a simulated one advances
//     virtual time there, delivering events until the waiter is ready.
//     Nothing in the runtime blocks anywhere else.
//   - A registry of backends by name ([Register], [Open]).
//
// # Completion semantics
//
// The local event of a put means the data has been delivered at the target:
// under [OrderStrict] it is globally visible, so any later access by any PE
// observes it; under [OrderDefault] and [OrderRelaxed] a later non-posted
// request (a get or fetching AMO) issued by another PE may still be served
// before the write commits, exactly as on Gemini's HyperTransport
// ([ORDERING] section IV.A, Figure 7). The
// local event of a get means the data is in the local buffer. The local event
// of an AMO means it was performed at the target and, for fetching AMOs, that
// [PostDesc.Result] holds the old value.
//
// # Timeouts and retries
//
// A simulated network whose links fail loses packets; the transaction
// they belonged to completes with [StatusTimeout], and its data may or
// may not have been delivered. The runtime may post the same descriptor
// again with [PostDesc.Retry] set, leaving [PostDesc.TxnID] as the
// backend set it on the first post: a put or get is simply done again,
// and an AMO is applied at most once per identity (a retry of one whose
// response was lost returns the first application's old value). Short
// messages are the backend's to deliver: one whose packets were lost is
// sent again, and delivered once.
//
// # Flagged get responses
//
// Where [Caps.FlaggedGet] is set (Aries, and the shared-memory backend), an
// FMA get may carry a flag word: [PostDesc.Flag], a [FlagWord] naming an
// 8-byte-aligned word of local memory apart from the get's buffer
// (registered, named by its Mem, where [Caps.NeedsRegisteredLocal] is
// set), and the Value to store. Once all of the get's data is in [PostDesc.Local]
// the backend stores the Value into the word in one atomic native-endian
// write ([StoreFlag]); a PE may poll it ([LoadFlag], inside
// [Endpoint.WaitFor]) to learn of that one get's arrival without draining
// its completion queue. This is the Aries "flagged response"
// ([ARIES-WP], Remote Memory Access): "the get
// response data is accompanied by a flag word written to local memory. The
// application may poll on the flag word to determine the arrival of
// responses to individual get requests."
//
// The rules: the flag is never visible before the data; the get's
// completion event still arrives, at the same time as the flag or later, and
// the descriptor is the backend's until then; a get that fails (an error or
// a timeout) does not write the flag, so a PE polling it must also watch
// its completion queue or bound its wait. The flag is written once, so the
// runtime clears it (or picks a fresh Value) before reusing it.
// [CheckPost] rejects a flag on a put, an AMO or a BTE get, and one that is
// not 8 bytes, not aligned or overlaps Local; a backend without the
// capability rejects a flagged post with an error wrapping
// [ErrUnsupported].
//
// # Concurrency
//
// An Endpoint belongs to the goroutine its Job started for it: none of its
// methods may be called from another goroutine. The functions at package
// level are safe for concurrent use.
package conduit
