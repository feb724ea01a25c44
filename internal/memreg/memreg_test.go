package memreg

import (
	"testing"

	"github.com/gopgas/gopgas/conduit"
)

func TestRegionContains(t *testing.T) {
	mem := make([]byte, 64)
	r := Region{ID: 3, Buf: mem[8:40]}
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"whole", mem[8:40], true},
		{"inside", mem[16:24], true},
		{"first byte", mem[8:9], true},
		{"last byte", mem[39:40], true},
		{"empty", mem[16:16], false},
		{"before", mem[0:8], false},
		{"straddles the start", mem[4:12], false},
		{"straddles the end", mem[36:44], false},
		{"after", mem[40:48], false},
		{"other memory", make([]byte, 8), false},
	} {
		if got := r.Contains(c.b); got != c.want {
			t.Errorf("%s: Contains = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTable(t *testing.T) {
	seg, buf := make([]byte, 128), make([]byte, 16)
	tab := Table{{ID: conduit.SegmentID, Buf: seg}, {ID: 7, Buf: buf}}
	if r := tab.Lookup(7); r == nil || &r.Buf[0] != &buf[0] {
		t.Fatalf("Lookup(7) = %v, want the second region", r)
	}
	if r := tab.Lookup(8); r != nil {
		t.Fatalf("Lookup(8) = %v, want nil", r)
	}
	h, ok := tab.Registered(2, buf[4:12])
	if want := (conduit.MemHandle{Owner: 2, ID: 7, Bytes: 16}); !ok || h != want {
		t.Fatalf("Registered = %v, %v; want %v, true", h, ok, want)
	}
	if h, ok := tab.Registered(2, make([]byte, 4)); ok {
		t.Fatalf("Registered of unregistered memory = %v, true", h)
	}
}
