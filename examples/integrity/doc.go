// Command integrity checks that one-sided transfers and atomics deliver
// exactly what was sent, exactly once.
//
// Every processing element (PE) puts a block of bytes to every PE
// (itself too), in sizes from -min to -max bytes in steps of -factor;
// after a barrier every PE checks every byte it received, then gets back
// from every PE the block it put there and checks every byte of that.
// Each block's bytes are a sequence drawn from its source, its target, its
// size and the round, so a block delivered to the wrong place, a stale
// block or a torn one shows. Then every PE makes -adds fetch-adds of 1 to
// a counter on every PE, all in flight at once; each owner checks that its
// counter grew by exactly -adds per PE and that the values fetched from
// it were each fetched once. The whole is repeated -rounds times. Any
// difference makes the program fail with exit status 1.
//
// It is meant for simulated networks whose links fail during the run: a
// link failing under a transfer loses packets, the transfer times out and
// the runtime retries it, and an AMO whose response was lost is retried
// without being applied twice.
//
//	PGAS_PES=8 PGAS_CONDUIT=gemini PGAS_PES_PER_NODE=1 \
//		PGAS_OPTIONS="routing=deterministic,fail=0:x:+:0@40us" go run ./examples/integrity
package main
