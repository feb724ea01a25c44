package sparse

// Ranks are split 12 / 6 / 6 bits: a top level of one pointer per 4096
// ranks (2 KiB for a million), then 64 pointers per 4096 ranks and 64 per
// 64 ranks, each made when a rank in its range is first stored.
const (
	leafBits = 6
	midBits  = 6
	leafSize = 1 << leafBits
	midSize  = 1 << midBits
)

type leaf[T any] [leafSize]*T
type mid[T any] [midSize]*leaf[T]

// Table maps ranks in [0, n) to *T. The zero Table holds nothing and must
// be sized with New; a Table is not safe for concurrent use.
type Table[T any] struct {
	top []*mid[T]
	n   int
}

// New makes a table for ranks in [0, n).
func New[T any](n int) Table[T] {
	return Table[T]{top: make([]*mid[T], (n+leafSize*midSize-1)/(leafSize*midSize)), n: n}
}

// Len is the number of ranks the table covers.
func (t *Table[T]) Len() int { return t.n }

// Get returns rank r's entry, or nil. r must be in [0, Len).
func (t *Table[T]) Get(r int) *T {
	m := t.top[r>>(leafBits+midBits)]
	if m == nil {
		return nil
	}
	l := m[(r>>leafBits)&(midSize-1)]
	if l == nil {
		return nil
	}
	return l[r&(leafSize-1)]
}

// Set stores v as rank r's entry. r must be in [0, Len).
func (t *Table[T]) Set(r int, v *T) {
	m := t.top[r>>(leafBits+midBits)]
	if m == nil {
		m = new(mid[T])
		t.top[r>>(leafBits+midBits)] = m
	}
	l := m[(r>>leafBits)&(midSize-1)]
	if l == nil {
		l = new(leaf[T])
		m[(r>>leafBits)&(midSize-1)] = l
	}
	l[r&(leafSize-1)] = v
}
