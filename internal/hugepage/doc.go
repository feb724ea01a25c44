// Package hugepage puts the heap of a process that builds or runs a
// simulated network on transparent huge pages of 2 MiB, where the system
// leaves them to the program (transparent_hugepage/enabled set to
// madvise): a simulated network's state is read at random all over a
// heap of tens of megabytes to gigabytes, and with 4 KiB pages many of
// those reads miss the TLB. It changes no result: only how fast the
// memory is reached.
//
// While a machine is built or a simulation runs (Hold: fabric.New,
// sim.Kernel.Run, sim.Parallel.Run), every huge page's worth of the
// process's private writable anonymous mappings of which at least 7/8 is
// resident (mincore) is collapsed into a huge page (MADV_COLLAPSE, Linux
// 6.1 and later; best effort): at once, and then, as the heap grows, at a
// look at /proc/self/maps every Interval. Collapsing makes the whole of
// it resident, so sparse memory (a segment touched here and there, a large
// slice mostly unused) is left on small pages and costs no more than
// before. A huge page's worth is collapsed once: memory the Go runtime
// later gives back to the system is not collapsed again.
// PGAS_HUGEPAGES=off leaves the memory as the system gives it. Elsewhere
// than Linux it does nothing.
package hugepage
