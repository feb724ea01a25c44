//go:build amd64 || arm64

package smp

// pause tells the processor that this is a spin-wait loop (x86 PAUSE, Arm
// YIELD): the loop runs slower and cooler, leaves the core's shared
// resources to a sibling hardware thread, and under a hypervisor lets the
// host see a spinning virtual CPU.
//
//go:noescape
func pause()
