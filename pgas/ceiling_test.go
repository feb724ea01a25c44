package pgas

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/gopgas/gopgas/internal/segmem"
	"github.com/gopgas/gopgas/internal/sysmem"
)

// TestMemoryCeiling: Go's limit falls by the segment pages a job touches,
// rises again when they are freed, and is restored when the ceiling ends.
func TestMemoryCeiling(t *testing.T) {
	if _, ok := sysmem.Resident(); !ok {
		t.Skip("the system does not report resident memory")
	}
	prior := debug.SetMemoryLimit(-1)
	const ceil = 8 << 30
	SetMemoryCeiling(ceil)
	defer SetMemoryCeiling(0)
	if got := MemoryCeiling(); got != ceil {
		t.Fatalf("MemoryCeiling = %d, want %d", got, ceil)
	}
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	// wait polls until cond holds of the limit, or fails after 2 s.
	wait := func(what string, cond func(int64) bool) {
		t.Helper()
		for end := time.Now().Add(2 * time.Second); ; {
			l := limit()
			if cond(l) {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%s: Go's limit is %d", what, l)
			}
			time.Sleep(ceilingPeriod)
		}
	}
	wait("under the ceiling", func(l int64) bool { return l <= ceil && l > ceil-256<<20 })
	before := limit()

	seg, err := segmem.Alloc(256 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if !seg.Mapped() {
		seg.Free()
		t.Skip("segments are Go memory here; the ceiling has nothing to subtract")
	}
	// Mapping alone costs nothing resident; touching every page does.
	for i := 0; i < len(seg.Bytes); i += 4096 {
		seg.Bytes[i] = 1
	}
	wait("with 256 MiB of segment pages touched", func(l int64) bool { return l <= before-200<<20 })
	seg.Free()
	wait("with the segment freed", func(l int64) bool { return l > before-50<<20 })

	SetMemoryCeiling(0)
	if l := limit(); l != prior {
		t.Errorf("after the ceiling ended Go's limit is %d, want the prior %d", l, prior)
	}
	if MemoryCeiling() != 0 {
		t.Error("MemoryCeiling after it ended is not 0")
	}
}
