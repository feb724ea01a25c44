// Command hello is the smallest gopgas program: every processing element
// (PE) of an SPMD job prints one greeting, and the greetings come out in
// rank order.
//
// It demonstrates pgas.Main, which resolves the job's configuration from
// the PGAS_* environment variables (PGAS_PES=4 go run ./examples/hello),
// and using Barrier to order the PEs' side effects: in round r only PE r
// prints, and nobody starts round r+1 before PE r has finished printing.
// Finally the PEs count themselves with an Allreduce and fail if the count
// is not the job's size.
//
// Output, with PGAS_PES=3:
//
//	hello from PE 0 of 3 (node 0)
//	hello from PE 1 of 3 (node 0)
//	hello from PE 2 of 3 (node 0)
//	hello: 3 PEs on 1 node(s), smp backend
package main
