package fabric

// stack is a last-in first-out list of T kept in chunks of stackChunk made
// as it first needs them, for the machine's free lists (pieces of credit
// return lists, packet buffers): growing one copies nothing and leaves no
// garbage, where a slice grown by append leaves its old arrays (a third of
// the heap's growth in a run of the full Aries system that collects no
// garbage after its start: docs/scale.md). Its chunks stay made when it
// empties.
type stack[T any] struct {
	chunks [][]T
	n      int
}

// stackChunk is how many entries a chunk of a stack holds.
const stackChunk = 512

func (s *stack[T]) len() int { return s.n }

func (s *stack[T]) push(v T) {
	if s.n == len(s.chunks)*stackChunk {
		s.chunks = append(s.chunks, make([]T, stackChunk))
	}
	s.chunks[s.n/stackChunk][s.n%stackChunk] = v
	s.n++
}

// pop takes the entry pushed last; the stack must not be empty.
func (s *stack[T]) pop() T {
	s.n--
	e := &s.chunks[s.n/stackChunk][s.n%stackChunk]
	v := *e
	var zero T
	*e = zero
	return v
}
