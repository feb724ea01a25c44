package fabric

// stack is a last-in first-out list of T kept in chunks made as it first
// needs them, for the machine's free lists (pieces of credit return
// lists, packet buffers): growing one copies nothing and leaves no
// garbage, where a slice grown by append leaves its old arrays (a third of
// the heap's growth in a run of the full Aries system that collects no
// garbage after its start: docs/scale.md). The first chunk holds
// stackFirst entries and each next one twice its predecessor's, up to
// stackChunk: a partitioned machine has a set of free lists in each
// partition (241 on the full Aries system), most of which stay short, so
// that a first chunk of stackChunk entries in every one (12 KiB of
// slices) made 20 MB of free lists of credit-return pieces that held
// little. Its chunks stay made when it empties.
type stack[T any] struct {
	chunks [][]T
	cur    int // the chunk the top is in (or the next entry goes to)
	off    int // entries in chunk cur
	n      int
}

// stackFirst and stackChunk are the entries of a stack's first chunk and
// the most of any.
const (
	stackFirst = 8
	stackChunk = 512
)

func (s *stack[T]) len() int { return s.n }

func (s *stack[T]) push(v T) {
	if s.cur == len(s.chunks) || s.off == len(s.chunks[s.cur]) {
		if s.cur < len(s.chunks) {
			s.cur, s.off = s.cur+1, 0
		}
		if s.cur == len(s.chunks) {
			size := stackFirst
			if s.cur > 0 {
				size = min(2*len(s.chunks[s.cur-1]), stackChunk)
			}
			s.chunks = append(s.chunks, make([]T, size))
		}
	}
	s.chunks[s.cur][s.off] = v
	s.off++
	s.n++
}

// pop takes the entry pushed last; the stack must not be empty.
func (s *stack[T]) pop() T {
	if s.off == 0 {
		s.cur--
		s.off = len(s.chunks[s.cur])
	}
	s.off--
	s.n--
	e := &s.chunks[s.cur][s.off]
	v := *e
	var zero T
	*e = zero
	return v
}
