//go:build !linux

package smp

// osYield does nothing where the backend knows no system call for it.
func osYield() {}
