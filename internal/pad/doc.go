// Package pad allocates per-PE hot state on cache lines of its own, so that
// PEs running on different cores do not slow each other down by writing
// neighbouring words (false sharing).
package pad
