package sim

import "math/bits"

// queue is the kernel's pending events: a set of distinct 64-bit keys
// (an event's time above slotBits, its slot below) from which pop takes
// the least, exactly the keys any priority queue would take, in the same
// order: only how fast changes.
//
// Most events are scheduled a few to a few hundred nanoseconds ahead (on
// BenchmarkBookSimTraffic's Aries traffic, 97% less than 2^18 ps ahead of
// the event that schedules them). Those go to a ring of buckets (the near
// keys): the ring spans 2^spanBits ps of times from the time of the key
// popped last (cur), each bucket a slice of it of 2^width ps, and a key
// goes straight to the bucket of its time, where a bucket's keys (at most
// bucketKeys) are kept in order. A pop finds the first non-empty bucket
// from cur's, round the ring, in a bitmap of the buckets (a word of it,
// or a summary word of the bitmap's words), and takes its least key: no
// key is dealt from bucket to bucket. The rest, keys further ahead, keys
// for a full bucket (many events at one time) and any key scheduled
// before cur (which the kernel never does), go to a radix heap (radix.go),
// where a key is dealt two or three times on its way to the front; pop
// takes the lesser of the two sides' least keys.
//
// Every near key's time lies in [cur, cur + the ring's span), so that no
// two slices of 2^width ps in it share a bucket: each bucket holds the
// keys of one slice, and going round the ring from cur's bucket meets the
// slices in time order. cur moves only up, to the least pending key's
// time, so this stays true as keys are taken. The ring starts with 64
// buckets and doubles (its buckets half as wide, its span the same) each
// time the near keys outnumber its buckets, up to 4,096 buckets (256 KiB
// of keys), or 256 (16 KiB) in a partition of a partitioned run, whose
// hundreds of partitions' rings would otherwise take tens of megabytes
// (docs/scale.md, "A partition's ring").
type queue struct {
	cur uint64 // time (above slotBits) of the key popped last
	// keys are the near keys, bucketKeys a bucket: bucket j's n =
	// count[j] keys are keys[j*bucketKeys:][:n], in decreasing order (its
	// least last). Bucket j holds the keys whose time >> width is j
	// modulo the ring's size, mask+1. Made by the first push.
	keys  []uint64
	count []uint8
	mask  uint64 // the ring's size less one
	width uint64
	// maxMask is the ring's largest size less one: 1<<ringMaxBits - 1
	// unless set before the first push (a partition's, ringPartBits).
	maxMask uint64
	// occ has bit j%64 of word j/64 set when bucket j has keys; sum has
	// bit w set when occ's word w has.
	occ  [1 << ringMaxBits / 64]uint64
	sum  uint64
	near int // keys in the ring
	// crowded: the ring is to be made, or its keys outnumber its buckets
	// and it may double (widen), which pop does.
	crowded bool

	far radixHeap
}

const (
	// spanBits is the ring's span of times from cur, in bits: keys up to
	// 2^spanBits ps (262 ns) ahead are near.
	spanBits = 18
	// ringMinBits and ringMaxBits are the ring's least and largest sizes,
	// in bits; ringPartBits is the largest in a partition of a partitioned
	// run (Parallel), where on the 16-group Aries workload a ring of
	// 1,024 buckets took 0.8% fewer instructions and one of 4,096 4.5%
	// more, and at the full system's peak they took about 30 and 140 MB
	// more.
	ringMinBits  = 6
	ringMaxBits  = 12
	ringPartBits = 8
	// farSpare is how many free chunks pop keeps the radix heap (stock),
	// so that a PE's posts seldom allocate one from the PE's stack, which
	// would grow it: TestPEStacksStayAtStart's bursts of posts at one time
	// left 2,602 bytes of stack per PE with 16, 2,282 with 64 (2,325
	// before the ring).
	farSpare = 64
	// bucketKeys is the most keys a bucket holds. Of 4, 8 and 16 (with
	// spans of 2^17, 2^18 and 2^19 ps) 8 and 2^18 took the fewest
	// instructions on BenchmarkBookSimTraffic's Aries traffic.
	bucketKeys = 8
)

// len is the number of pending keys.
func (q *queue) len() int { return q.near + q.far.len() }

// push adds key e, which must not be pending.
func (q *queue) push(e uint64) {
	if !q.pushNear(e) {
		q.pushFar(e)
	}
}

// pushNear adds e to its bucket of the ring, if it is near and the bucket
// has room, and says whether it did.
//
// A push is often a PE's post, from the PE's own stack, which its first
// 2 KiB hold only while the frames on it are small (Kernel.At): the ring
// is made, and doubled, by pop instead, on the kernel's stack (until it is
// made, every key goes to the radix heap); and the kernel calls pushNear
// and pushFar itself, so that the path to the radix heap's buckets is no
// deeper than it was before the ring.
func (q *queue) pushNear(e uint64) bool {
	t := e >> slotBits
	if t < q.cur || t>>(q.width&63)-q.cur>>(q.width&63) > q.mask || q.keys == nil {
		return false
	}
	j := t >> (q.width & 63) & q.mask
	n := uint64(q.count[j])
	if n == bucketKeys {
		return false
	}
	b := q.keys[j*bucketKeys : j*bucketKeys+bucketKeys]
	i := n
	for i > 0 && b[i-1] < e {
		b[i] = b[i-1]
		i--
	}
	b[i] = e
	q.count[j] = uint8(n + 1)
	q.occ[j/64] |= 1 << (j % 64)
	q.sum |= 1 << (j / 64)
	q.near++
	if q.near > int(q.mask) && q.mask < q.maxMask {
		q.crowded = true // widened by the next pop
	}
	return true
}

// pushFar adds e to the radix heap.
func (q *queue) pushFar(e uint64) {
	q.crowded = q.crowded || q.keys == nil
	q.far.push(e, q.cur<<slotBits)
}

// makeRing gives the queue an empty ring of 1<<n buckets.
func (q *queue) makeRing(n uint) {
	q.keys = make([]uint64, bucketKeys<<n)
	q.count = make([]uint8, 1<<n)
	q.mask, q.width = 1<<n-1, uint64(spanBits-n)
}

// widen doubles the ring: its near keys are dealt anew to buckets half as
// wide.
//
//go:noinline
func (q *queue) widen() {
	q.crowded = false
	if q.keys == nil {
		if q.maxMask == 0 {
			q.maxMask = 1<<ringMaxBits - 1
		}
		q.makeRing(ringMinBits)
		return
	}
	keys := q.takeNear(nil)
	q.makeRing(uint(bits.Len64(q.mask)) + 1)
	for _, e := range keys {
		q.push(e)
	}
}

// takeNear appends every near key to dst and empties the ring.
func (q *queue) takeNear(dst []uint64) []uint64 {
	for j, n := range q.count {
		dst = append(dst, q.keys[j*bucketKeys:][:n]...)
		q.count[j] = 0
	}
	q.occ, q.sum, q.near = [len(q.occ)]uint64{}, 0, 0
	return dst
}

// first is the ring's first non-empty bucket from cur's, round the ring;
// the ring must have keys.
func (q *queue) first() uint64 {
	s := q.cur >> (q.width & 63) & q.mask
	w := s / 64
	if b := q.occ[w%uint64(len(q.occ))] & (^uint64(0) << (s % 64)); b != 0 {
		return w*64 + uint64(bits.TrailingZeros64(b))
	}
	if m := q.sum &^ (2<<(w&63) - 1); m != 0 { // the words after w's (none when w is 63: 2<<63 is 0)
		w = uint64(bits.TrailingZeros64(m))
	} else {
		w = uint64(bits.TrailingZeros64(q.sum)) // round the ring
	}
	return w*64 + uint64(bits.TrailingZeros64(q.occ[w%uint64(len(q.occ))]))
}

// least is bucket j's least key; the bucket must have keys.
func (q *queue) least(j uint64) uint64 {
	return q.keys[j*bucketKeys+uint64(q.count[j])-1]
}

// popBucket takes the least key of bucket j, which must have keys.
func (q *queue) popBucket(j uint64) uint64 {
	n := uint64(q.count[j]) - 1
	e := q.keys[j*bucketKeys+n]
	q.count[j] = uint8(n)
	if n == 0 {
		q.occ[j/64] &^= 1 << (j % 64)
		if q.occ[j/64] == 0 {
			q.sum &^= 1 << (j / 64)
		}
	}
	q.near--
	return e
}

// nextInBucket is the least key of the ring's bucket that popNext took
// its key from last, if that bucket has keys left: a cheap guess at the
// next key, for prefetching (it may not be the least pending key).
func (q *queue) nextInBucket() (uint64, bool) {
	if q.near == 0 {
		return 0, false
	}
	j := q.cur >> (q.width & 63) & q.mask
	if q.count[j] == 0 {
		return 0, false
	}
	return q.least(j), true
}

// popFar takes far's least key.
func (q *queue) popFar() uint64 {
	e := q.far.pop()
	if q.far.len() > 0 {
		q.far.least = q.far.min()
	}
	return e
}

// min is the least pending key; the queue must not be empty.
func (q *queue) min() uint64 {
	if q.near > 0 {
		if m := q.least(q.first()); q.far.len() == 0 || m < q.far.least {
			return m
		}
	}
	return q.far.least
}

// pop takes the least pending key; the queue must not be empty.
func (q *queue) pop() uint64 {
	e, _ := q.popNext()
	return e
}

// popNext takes the least pending key, as pop, and says whether another
// pending key has its time (sameTime's answer, from the bucket it took the
// key from); the queue must not be empty.
func (q *queue) popNext() (uint64, bool) {
	if q.crowded {
		q.widen()
	}
	if q.far.spare < farSpare {
		q.far.stock(farSpare)
	}
	if q.near > 0 {
		j := q.first()
		if q.far.len() == 0 || q.least(j) < q.far.least {
			e := q.popBucket(j)
			t := e >> slotBits
			q.cur = t
			// Another key of time t is next in j, t's bucket, or far's least.
			return e, q.count[j] > 0 && q.least(j)>>slotBits == t || q.far.len() > 0 && q.far.least>>slotBits == t
		}
	}
	e := q.popFar()
	q.cur = e >> slotBits
	return e, q.sameTime(e)
}

// sameTime says whether a pending key has the time of key e, the one pop
// returned last: it would be the least near key, in cur's bucket, or far's
// least.
func (q *queue) sameTime(e uint64) bool {
	t := e >> slotBits
	if t != q.cur {
		return q.len() > 0 && q.min()>>slotBits == t
	}
	if q.near > 0 {
		if j := t >> (q.width & 63) & q.mask; q.count[j] > 0 && q.least(j)>>slotBits == t {
			return true
		}
	}
	return q.far.len() > 0 && q.far.least>>slotBits == t
}

// takeTime appends to dst every pending key of key e's time, e being the
// key pop returned last, takes them from the queue and returns dst, in no
// particular order (the kernel sorts them by tie-break); false, having
// taken nothing, when e was not the key pop returned last.
func (q *queue) takeTime(dst []uint64, e uint64) ([]uint64, bool) {
	t := e >> slotBits
	if t != q.cur {
		return dst, false
	}
	if q.near > 0 {
		j := t >> (q.width & 63) & q.mask
		for q.count[j] > 0 && q.least(j)>>slotBits == t {
			dst = append(dst, q.popBucket(j))
		}
	}
	for q.far.len() > 0 && q.far.least>>slotBits == t {
		dst = append(dst, q.popFar())
	}
	return dst, true
}

// shift takes d, a whole number of times (above slotBits), from every
// key, each of which must be at least d (the kernel's keys when it moves
// its base up to now). Rare: the keys are dealt anew.
func (q *queue) shift(d uint64) {
	keys := q.takeNear(nil)
	q.far.shift(d)
	if q.far.len() > 0 {
		q.far.least = q.far.min()
	}
	q.cur -= min(q.cur, d>>slotBits)
	for _, e := range keys {
		q.push(e - d)
	}
}

// room is how many keys the queue has room for without allocating: its
// buckets' capacity and its radix heap's chunks'.
func (q *queue) room() int {
	return len(q.keys) + q.far.made*chunkKeys
}
