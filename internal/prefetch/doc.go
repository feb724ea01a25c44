// Package prefetch asks the processor to bring a cache line into its
// caches ahead of a use (x86 PREFETCHT0, Arm PRFM PLDL1KEEP): unlike a
// load, the hint does not wait for the line, so the work between the
// hint and the use overlaps the miss. The simulated networks' state is
// read at random, each event's body, actor and packet a cache line
// somewhere in hundreds of megabytes, and the kernel knows which events
// run next before it runs them (docs/scale.md, "Lines asked for ahead").
//
// A hint changes nothing a program computes: on processors without one
// Line does nothing.
package prefetch
