package simtest

import (
	"testing"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// The traffic holds a descriptor for each post in flight (1.5 million at
// once on the full Aries system) and a completion count for each PE: the
// descriptor has no padding and keeps the rare flagged get's fields
// behind a pointer (conduit.FlagWord), and the PEs of a simulated job share their
// completion buffer rather than hold 16 events each.
func TestPerPostStateSize(t *testing.T) {
	if got := unsafe.Sizeof(conduit.PostDesc{}); got > 144 {
		t.Errorf("conduit.PostDesc is %d bytes, more than 144", got)
	}
	if got := unsafe.Sizeof(completions{}); got > 48 {
		t.Errorf("a PE's completions are %d bytes, more than 48", got)
	}
}
