//go:build !unix || race

package segmem

func mapPages(n int64) ([]byte, bool) { return nil, false }

func unmapPages(b []byte) {}
