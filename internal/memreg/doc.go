// Package memreg is the table of memory registrations a backend's endpoint
// keeps: the buffers of its PE that descriptors may name, each under a
// registration ID, the segment first (conduit.SegmentID). A backend looks
// a registration up by ID when a descriptor names it as remote memory, and
// by address when the runtime asks whether a local buffer is registered
// (conduit.Endpoint.Registered) or a descriptor's local buffer must lie in
// the registration it names.
//
// The shared-memory backend (conduit/smp) and the simulated ones
// (internal/simnet) keep their registrations in a Table; memreg.go holds
// Region, Table and their lookups. A Table is not safe for concurrent
// use: a backend whose peers read it while its owner changes it replaces
// it whole (conduit/smp).
package memreg
