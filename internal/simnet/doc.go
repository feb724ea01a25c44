// Package simnet is what the simulated backends (gemini, aries) share on
// the conduit side: a job of PEs running as coroutines of a sim.Kernel, and
// an Endpoint implementing conduit.Endpoint whose memory, registrations,
// completion queues and mailboxes are updated by a network model at the
// simulated moments things happen.
//
// A network model implements Network. The Endpoint does the bookkeeping a
// GNI-like interface needs and charges the host-side CPU costs the model
// names; the model moves packets and, at the right times, calls the
// Endpoint back: WriteMemory and ReadMemory when data commits or is read,
// ApplyAMO, CompleteLocal, RemoteEvent, DeliverMessage and MessageLost.
//
// # Time
//
// A PE's clock is its Proc's. Calls that only issue work (Post,
// SendMessage) run at the PE's clock, which may be ahead of the kernel's;
// calls that observe state (the polls, WaitFor) first let every event before
// the PE's clock happen (sim.Proc.Sync). A waiting PE blocks and is woken by
// anything that arrives for it: a completion, a message, a write to its
// memory, the end of the job.
//
// # Where things live
//
//   - simnet.go: what a model implements and uses: Network (and the
//     optional Counter and Tracer), Costs, the host-side CPU costs the
//     Endpoint charges, and Message, a short message in flight.
//   - job.go: Job, the PEs of one run on one Kernel (NewJob, Run, Report),
//     and the freeing of their segments at the end.
//   - endpoint.go: Endpoint, one PE's conduit.Endpoint: its segment and
//     registrations (internal/memreg), posting, completion queues,
//     messages in order from each sender, waiting, and the calls by which
//     the model commits what the network did (WriteMemory, ReadMemory,
//     ApplyAMO, CompleteLocal, RemoteEvent, DeliverMessage, MessageLost).
//   - offload.go: collective offload (conduit.CollectiveOffload): the
//     Endpoint hands barriers and allreduces to a model whose NICs reduce
//     in the network (Offloader, LocOffloader).
package simnet
