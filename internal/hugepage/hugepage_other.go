//go:build !linux

package hugepage

const supported = false

func residentPages(lo, hi uintptr, vec []byte) error { return nil }

func collapseRange(lo, hi uintptr) {}
