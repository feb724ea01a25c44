// Command ring passes a token around the ring of processing elements (PEs)
// with active messages.
//
// It demonstrates the active-message layer (package am) as a program uses
// it through pe.AM():
//
//   - every PE registers the same handlers in the same order, then meets
//     the others at a Barrier before anyone sends;
//   - a request handler runs on the target inside its progress calls; it
//     must not block, so it only records the token and answers with a
//     reply, and the PE's own loop does the forwarding;
//   - a reply handler runs back on the sender (here it checks the
//     acknowledged value);
//   - a PE waits for a message with pe.WaitUntil, which makes progress
//     (runs handlers) until the handler has recorded the token, and fails
//     instead of hanging if another PE fails or nobody can make progress.
//
// PE 0 starts each lap by sending the token, incremented, to PE 1; every
// PE forwards it, incremented, to (rank+1) % n, and PE 0 receives it back.
// After lap l PE 0 must hold exactly l*n, and PE k in lap l must receive
// (l-1)*n + k; any other value makes the program fail.
//
//	PGAS_PES=4 go run ./examples/ring -laps 100
package main
