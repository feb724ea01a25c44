//go:build amd64 || arm64

package prefetch

// Line hints that the cache line holding the byte at p will be read soon.
// p need not be valid memory: a hint never faults.
//
//go:noescape
func Line(p uintptr)
