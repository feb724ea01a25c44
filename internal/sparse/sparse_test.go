package sparse

import (
	"math/rand/v2"
	"testing"
)

func TestTable(t *testing.T) {
	const n = 1<<20 + 5
	tab := New[int](n)
	if tab.Len() != n {
		t.Fatalf("Len %d", tab.Len())
	}
	want := map[int]*int{}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		r := rng.IntN(n)
		v := new(int)
		*v = r
		tab.Set(r, v)
		want[r] = v
	}
	for _, r := range []int{0, n - 1} {
		v := new(int)
		tab.Set(r, v)
		want[r] = v
	}
	for r, v := range want {
		if got := tab.Get(r); got != v {
			t.Fatalf("Get(%d) = %p, want %p", r, got, v)
		}
	}
	for range 5000 {
		r := rng.IntN(n)
		if got := tab.Get(r); got != want[r] {
			t.Fatalf("Get(%d) = %p, want %p", r, got, want[r])
		}
	}
	if len(tab.top) != (n+4095)/4096 {
		t.Errorf("top level of %d for %d ranks", len(tab.top), n)
	}
}

func BenchmarkGet(b *testing.B) {
	tab := New[int](1 << 16)
	for r := range 1 << 16 {
		tab.Set(r, new(int))
	}
	b.ResetTimer()
	s := 0
	for i := range b.N {
		if tab.Get(i&(1<<16-1)) != nil {
			s++
		}
	}
	_ = s
}
