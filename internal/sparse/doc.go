// Package sparse is a table of per-peer state indexed by rank that costs
// memory only for the peers a PE deals with: a PE of a job of a million
// PEs that talks to a few neighbours holds a few kilobytes, not a pointer
// per PE of the job.
package sparse
