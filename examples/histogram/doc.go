// Command histogram builds a distributed histogram with remote atomics.
//
// It demonstrates a distributed array (pgas.NewArray) whose elements are
// spread over the processing elements (PEs), global pointers into it
// (Array.At), remote atomic updates (pgas.Atomic with pgas.AtomicAdd), and
// collectives (pgas.Allgather, pgas.Allreduce).
//
// Bin b of the histogram lives on PE b % n at local index b / n. Every PE
// draws -n pseudo-random values from a generator seeded by -seed and its
// rank, and for each value atomically increments the value's bin, wherever
// it lives. Many PEs hit the same bins at the same time; the atomics make
// every increment count. After a barrier every PE gathers the whole
// histogram and compares it with a serial histogram of all PEs' values,
// recomputed locally from the same seeds. Any difference makes the program
// fail.
//
//	PGAS_PES=4 go run ./examples/histogram -n 10000 -bins 64
package main
