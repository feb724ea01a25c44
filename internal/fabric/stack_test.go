package fabric

import "testing"

// A stack hands its entries back last in, first out, across its chunks,
// and keeps its chunks when it empties, so that filling it again makes
// none.
func TestStackOrderAndChunks(t *testing.T) {
	var s stack[int]
	n := 2*stackChunk + 3
	for round := range 2 {
		for i := range n {
			s.push(i)
		}
		if s.len() != n || len(s.chunks) != 3 {
			t.Fatalf("round %d: %d entries in %d chunks, want %d in 3", round, s.len(), len(s.chunks), n)
		}
		for i := n - 1; i >= 0; i-- {
			if v := s.pop(); v != i {
				t.Fatalf("round %d: popped %d, want %d", round, v, i)
			}
		}
		if s.len() != 0 {
			t.Fatalf("round %d: %d entries left", round, s.len())
		}
	}
}
