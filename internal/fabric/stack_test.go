package fabric

import "testing"

// A stack hands its entries back last in, first out, across its chunks,
// and keeps its chunks when it empties, so that filling it again makes
// none.
// Its chunks grow from stackFirst entries, doubling, to stackChunk.
func TestStackOrderAndChunks(t *testing.T) {
	var s stack[int]
	made, chunks := 0, 0
	for size := stackFirst; size < stackChunk; size *= 2 {
		made += size
		chunks++
	}
	n := made + 2*stackChunk + 3
	for round := range 2 {
		for i := range n {
			s.push(i)
		}
		if s.len() != n || len(s.chunks) != chunks+3 {
			t.Fatalf("round %d: %d entries in %d chunks, want %d in %d", round, s.len(), len(s.chunks), n, chunks+3)
		}
		for i, c := range s.chunks {
			if want := min(stackFirst<<i, stackChunk); len(c) != want {
				t.Fatalf("round %d: chunk %d holds %d, want %d", round, i, len(c), want)
			}
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
