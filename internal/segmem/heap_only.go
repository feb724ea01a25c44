//go:build !unix || race

package segmem

// lazy: segments are Go memory (Lazy).
const lazy = false

func mapPages(n int64) ([]byte, bool) { return nil, false }

func unmapPages(b []byte) {}
