// Package segmem allocates the memory of PE segments so that a segment
// costs resident memory only for the pages a program touches.
//
// A segment is large (64 MiB by default) and mostly untouched: a benchmark
// writes a few of its pages, a simulated job of thousands of PEs touches a
// few kilobytes of each. Go's allocator must zero a large allocation that
// reuses freed heap memory, which touches every page, and it returns freed
// memory to the system only gradually; a study that runs hundreds of jobs
// one after another then holds the sum of their segments. On systems with
// mmap, Alloc maps fresh anonymous pages instead (zero-filled by the kernel
// on first touch, reserved without being charged) and Free unmaps them at
// once. Elsewhere, and under the race detector (whose shadow memory covers
// only Go's heap, so that races on segment memory stay visible), segments
// are ordinary zeroed Go memory.
//
// A segment's memory must not be used after Free: the runtime frees a job's
// segments when the job ends.
package segmem
