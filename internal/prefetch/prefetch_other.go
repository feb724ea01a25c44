//go:build !amd64 && !arm64

package prefetch

// Line does nothing on processors without a prefetch hint.
func Line(p uintptr) {}
