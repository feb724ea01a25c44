// Package am is gopgas's active-message layer, after GASNet's core API and
// the design of its gemini-conduit ([GASNET-GEMINI],
// Active Message design).
//
// An active message names a handler that runs on the target PE when that PE
// makes progress: inside any blocking call of the runtime, or an explicit
// [Endpoint.Poll]. Messages come in three categories:
//
//   - Short: up to [MaxArgs] int32 arguments, no payload.
//   - Medium: arguments and a payload of up to [Endpoint.MaxMedium] bytes,
//     which the handler sees in a temporary buffer valid only while it runs.
//   - Long: arguments and a payload that lands at a given offset of the
//     target's segment before the handler runs. A payload that fits in one
//     message travels inline and is copied into place at the target; a
//     larger one is written by an RDMA put first and the message follows the
//     put's completion.
//
// Each is a Request or a Reply. A request handler may send at most one reply
// (to the requester) and must not block; a reply handler may not
// communicate at all. Breaking a rule returns an error; it never deadlocks.
//
// # Handlers
//
// Handlers live in a table of 256 entries. Indices below [FirstUserHandler]
// belong to the runtime; [Endpoint.Register] gives a program the next free
// index above them and records the handler's name for [Endpoint.Lookup].
// Programs are SPMD: every PE registers the same handlers in the same order,
// so an index means the same handler everywhere.
//
// # Flow control
//
// Every pair of PEs has a credit count per direction, [Config.Depth] deep
// (R-DEPTH, default 12). A request costs the sender one credit and waits,
// polling, while it has none. The credit comes back with the reply, or, when
// the handler sends none, in the header of any later message headed back to
// the requester; only when nothing is headed back by the time the target
// runs out of other work, or when it owes half a depth, does it send a
// hidden credit message. Per-peer state is created on first contact, so a
// PE that talks to few peers pays for few.
//
// # Failures
//
// A message the network fails to deliver after it was sent (on a simulated
// network, one whose route is lost: it times out like any transaction) is
// reported by the sender's endpoint ([conduit.MessageFailures]); from then
// on every poll of the sender fails with that error, naming the target and
// the cause, and so does whatever call it waits in: a request waiting for
// a credit, the runtime's collectives, a barrier. A lost credit message
// fails its sender the same way, instead of leaving the requester waiting
// for a credit for ever. A handler's error fails polls in the same way.
//
// When the runtime (package pgas) makes the endpoint, Long payloads must
// land inside live symmetric allocations ([Config.CheckLong]).
package am
