// Package smp is the real shared-memory backend: every PE is a goroutine of
// one process, segments are ordinary memory, and puts, gets and atomics are
// real memory operations (atomics with sync/atomic on aligned words).
//
// A descriptor posted with Post is executed at once by the posting
// goroutine, and its completion event is queued for the next PollLocalCQ:
// the network path of the runtime therefore runs for real, only faster.
// Peers' segments are also offered for direct load/store (Caps.DirectAccess),
// which the runtime uses instead of Post unless told not to, as GASNet uses
// process-shared memory between PEs of one node.
//
// Short messages travel through one single-producer single-consumer ring per
// (sender, receiver) pair, created when the sender first talks to the
// receiver, and a two-level doorbell bitmap per receiver that tells it which
// rings to look at: a message costs no lock and no allocation. A payload
// that fits beside its header travels in the slot itself, so that a short
// message moves one cache line.
//
// Transfers to and from the segment move every aligned word whole, for PEs
// that poll their segments; transfers to and from other registrations
// (buffers the runtime hands over by message) are plain copies.
//
// A waiting PE polls, spinning while every PE has a processor and
// yielding its processor between polls when PEs outnumber processors, then
// sleeps until what it waits for wakes it or a short timer fires (see
// wait.go), so that a job with more PEs than processors, or on a machine
// other programs load, slows down gently. A PE that changes a peer's
// segment by load/store wakes it with Wake (conduit.Waker).
//
// When every PE still running has waited without any progress for
// JobConfig.StallTimeout, the job ends with a *conduit.DeadlockError. When
// JobConfig.WallTimeLimit is positive, the job ends with a
// *conduit.LimitError once it has run that long: every wait returns that
// error. A PE busy outside the runtime (a pure compute loop) cannot be
// interrupted; it learns of the end at its next runtime call.
//
// The backend registers as "smp". Its default job size is the number of
// physical cores.
//
// # Where things live
//
//   - smp.go: the job (Open, Plan, Run, the end of a job by failure) and
//     the endpoint: segments, offered for direct access; registrations
//     (internal/memreg, replaced whole so that peers read them without a
//     lock); Post, executed at once; the completion queues.
//   - mailbox.go: the short-message rings and their doorbells
//     (SendMessage, PollMessages), and the local completion queue.
//   - wait.go: waiting (WaitFor: spin or yield, then park), waking a
//     sleeping PE (Wake), and the job's watchdogs: the deadlock report and
//     the wall-clock time limit.
//   - pause_asm.go, pause_amd64.s, pause_arm64.s, pause_other.go: the
//     spin-wait hint a spinning wait issues between polls.
package smp
