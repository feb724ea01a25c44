//go:build !amd64 && !arm64

package smp

// pause does nothing on processors without a spin-wait hint.
func pause() {}
