// Package sim is the discrete-event kernel the simulated networks share: an
// event queue ordered by virtual time, integer picosecond time, and a
// scheduler that runs processing elements (PEs) as coroutines, one at a
// time, against virtual time.
//
// # Time model
//
// The kernel's clock, Now, is the time of the event being processed. Each
// PE has a clock of its own (Proc.Clock), which the CPU time it spends
// advances (Proc.Advance). A PE runs until it must observe the state of the
// simulated machine (Proc.Sync), which first lets every event before its
// clock happen, or until it waits (Proc.Block), when the kernel runs events
// until something wakes it. A PE may therefore run ahead of the kernel while
// it only issues work: what it issues is scheduled at its own clock.
//
// Same events, same seed: the same run, bit for bit. Nothing here reads the
// wall clock but the wall-clock limit (SetLimits), and events at the same
// time run in a deterministic order that depends only on what the actors
// did: by the number of the actor that scheduled them (Actor.Origin, given
// out by NewOrigins), then in the order that actor scheduled them. A model
// draws its random choices from streams of its own actors (a hash of Seed
// and the actor's history), not from the kernel's one stream, wherever the
// order of different actors' events would otherwise decide a draw.
//
// A Kernel is used by one goroutine at a time: the one that calls Run, and
// the PE coroutines it resumes, which run only while it waits. The
// partitions of a Parallel run are each used by one worker at a time.
//
// # Where things live
//
//   - kernel.go: the Kernel and its slab of event bodies: At and After
//     schedule an event for an Actor, Step and RunUntil process them, Now
//     and Events tell where the run is, NewOrigins numbers the actors for
//     the order of simultaneous events, and Seed and Rand are the run's
//     seed and a random source seeded with it (for tests and set-up; a
//     model's draws come from its actors' own streams).
//   - queue.go: the pending events' keys, a radix heap that takes the
//     least key first, exactly as a binary heap would.
//   - parallel.go: Parallel, a run of partitions, each a Kernel, in
//     conservative windows of the run's lookahead, on one or more workers
//     with the same results for any number (docs/parallel-kernel.md):
//     Kernel.Post schedules an event for another partition.
//   - proc.go: Proc, a PE run as a coroutine (Spawn, Advance, Sync, Block,
//     Wake), and the running of a job: Run until every PE has returned,
//     the end of a job by a PE's failure, a deadlock (every PE blocked, no
//     event pending) or a limit (SetLimits), and the error that says which.
package sim
