package segmem

import (
	"testing"

	"github.com/gopgas/gopgas/internal/sysmem"
)

func TestAllocFree(t *testing.T) {
	before := Live()
	s, err := Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bytes) != 1<<20 {
		t.Fatalf("len %d", len(s.Bytes))
	}
	if got := Live() - before; got != 1<<20 {
		t.Errorf("Live grew by %d, want %d", got, 1<<20)
	}
	for i := 0; i < len(s.Bytes); i += 4096 {
		if s.Bytes[i] != 0 {
			t.Fatalf("byte %d is %d, not zero", i, s.Bytes[i])
		}
		s.Bytes[i] = 1
	}
	s.Free()
	s.Free()
	if got := Live() - before; got != 0 {
		t.Errorf("Live after Free: %d more than before", got)
	}
}

func TestAllocBad(t *testing.T) {
	for _, n := range []int64{0, -8, 7, 12} {
		if _, err := Alloc(n); err == nil {
			t.Errorf("Alloc(%d) succeeded", n)
		}
	}
}

// TestUntouchedIsFree: a large mapped segment costs resident memory only
// for the pages written.
func TestUntouchedIsFree(t *testing.T) {
	s, err := Alloc(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free()
	if !s.Mapped() {
		t.Skip("segments are Go memory here (no mmap, or the race detector)")
	}
	r0, ok := sysmem.Resident()
	if !ok {
		t.Skip("no /proc/self/statm")
	}
	for i := 0; i < 16; i++ {
		s.Bytes[i*(1<<26)] = 1
	}
	r1, _ := sysmem.Resident()
	if grew := r1 - r0; grew > 8<<20 {
		t.Errorf("touching 16 pages of a 1 GiB segment made %d bytes resident", grew)
	}
}

// TestSmallIsGoMemory: a segment smaller than a page is not mapped (a
// mapping would make a whole page resident for it once touched).
func TestSmallIsGoMemory(t *testing.T) {
	for _, n := range []int64{8, 128, minMapped - 8} {
		s, err := Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		if s.Mapped() || len(s.Bytes) != int(n) {
			t.Errorf("Alloc(%d): mapped %v, %d bytes; want Go memory of %d bytes", n, s.Mapped(), len(s.Bytes), n)
		}
		s.Free()
	}
	s, err := Alloc(minMapped)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free()
	if Lazy() && !s.Mapped() {
		t.Errorf("Alloc(%d) is not mapped", minMapped)
	}
}
