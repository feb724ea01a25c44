package conduit

import "sync/atomic"

// Waker is implemented by endpoints whose waiting PEs may sleep instead of
// polling (the shared-memory backend, when a wait lasts). The backend wakes a
// PE itself for what passes through it: a message, a posted put or AMO, a
// remote event, the end of the job. A PE that changes another PE's memory by
// load/store, through [Endpoint.DirectSegment], calls Wake(rank) afterwards,
// so that the other PE, if it sleeps waiting for that change, wakes at once
// rather than at its next timed poll.
//
// Sleeping returns the job's flags, by rank, that are set while a PE
// sleeps in a wait: a table the job's endpoints share, which callers only
// read. A caller reads the target's flag and calls Wake only when it is
// set, so that a store to a PE that is awake costs one load and no call.
type Waker interface {
	Sleeping() []*atomic.Bool
	Wake(rank int)
}

// Ender is implemented by endpoints that can tell cheaply that their job
// has ended. EndFlag returns a flag that becomes true, and stays true, once
// [Endpoint.Err] returns an error. The runtime reads it on its load/store
// fast paths, which never wait, so that a program polling with them still
// ends with its job; reading a flag costs less than calling Err.
type Ender interface {
	EndFlag() *atomic.Bool
}
