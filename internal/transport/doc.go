// Package transport is the runtime's machinery between the user-facing
// layers (pgas, am) and a conduit: the post-descriptor pool, the bounce
// buffer pool, the choice of FMA or block transfer, bouncing or one-time
// registration of unregistered local buffers, the splitting of large
// transfers, completion tracking, and the load/store shortcut to segments
// the backend maps. It follows the RDMA design of GASNet's gemini-conduit
// ([GASNET-GEMINI], RDMA and Event Processing) with the defaults of
// the calibration sheet's runtime rows (R-*).
//
// An Engine belongs to one PE and is not safe for concurrent use. The
// layers above hand it one operation at a time as an Op, which collects
// the descriptors the operation became and is done when the last of them
// completes; they wait for it with Wait, which polls the conduit (and the
// pollers registered with AddPoller, active messages among them).
//
// Where each part lives:
//   - engine.go: Engine, its Settings and Stats; Op; polling, completion
//     processing and the retry of timed-out descriptors; waiting; the
//     descriptor pool's reclaiming; Flush, which makes relaxed puts
//     globally visible.
//   - xfer.go: Put and Get, their splitting into pieces, and the posting of
//     one descriptor (mechanism, registered local memory or a bounce
//     buffer); AMO, and the compare-and-swap emulation of the atomics a
//     backend lacks.
//   - direct.go: the load/store shortcut. Direct is the one test of whether
//     a target's segment may be reached without a descriptor; Wake, the
//     atomic word accesses and CopyStrict serve the accesses that take it.
//   - pool.go: the pools of post descriptors (with their own small bounce
//     buffers) and of bounce buffers.
package transport
