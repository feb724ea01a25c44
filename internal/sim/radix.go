package sim

import "math/bits"

// radixHeap holds the queue's keys beyond its ring (queue.go): a set of
// distinct 64-bit keys from which pop takes the least. It is a radix heap
// (Ahuja, Mehlhorn, Orlin and Tarjan's monotone priority queue) with a side
// heap for keys below its floor, so that it takes exactly the keys a binary
// or 4-ary heap would, in the same order: only how fast changes.
//
// The floor (last) is the least key taken last (or, in an empty heap, the
// floor its push was given). A key above
// it is kept in the bucket of the highest digit (radixBits bits) in which
// it differs from the floor and of its own value there, so every key of a
// bucket is below every key of the buckets after it (bucket 0 is the floor
// itself). A pop takes the floor if it is pending; otherwise it finds the
// least key of the lowest non-empty bucket, makes it the floor, and deals
// that bucket's other keys out to buckets of lower digits (they agree with
// the new floor on that digit). A key thus moves down a digit or more each
// time it is dealt, at most 16 times; on the simulators' workloads it is
// put in a bucket 2.3 to 3.3 times on average, its push included
// (counted on a calibration scenario and on BenchmarkBookSimTraffic, when
// it held every key), and
// a pop scans about as many keys, in sequence, where a 4-ary heap's pop
// makes four unpredictable comparisons at each level of its height, with a
// cache miss at each level once it outgrows the caches.
//
// A key below the floor (the queue pushes none: its keys are at or after
// the time taken last, the floor it gives an empty heap) goes to a binary
// min-heap of its own, all of whose keys are below every bucket's, and pop
// takes from it first; min looks without moving the floor.
//
// Buckets are lists of chunks of chunkKeys keys from one free list: the
// queue's memory is that of its most pending keys (plus a chunk per
// bucket), and dealing a bucket out frees its chunks as it goes.
type radixHeap struct {
	last    uint64 // the floor
	hasLast bool   // the floor is a pending key (bucket 0)
	n       int    // keys in the buckets, the floor's included
	least   uint64 // the least pending key, when there is one
	// full has bit j set when bucket j has keys.
	full  [(buckets + 63) / 64]uint64
	tail  [buckets]*chunk // a bucket's last chunk (nil: none)
	low   [buckets]uint64 // a non-empty bucket's least key
	free  *chunk          // the free chunks' list
	spare int             // its length
	made  int             // chunks made
	side  []uint64        // a binary min-heap of the keys below the floor
}

// chunkKeys is how many keys a chunk of a bucket holds: with its count
// and link first, a chunk is 256 bytes (four cache lines), the first
// holding the count and the first keys. Larger chunks were no faster on a
// calibration scenario (1.58 CPU s with 254 keys against 1.56 with 30,
// medians of five runs) and cost a sparse bucket more.
const chunkKeys = 30

// chunk is part of a bucket: keys[:n], and next, the chunk before it in
// the bucket (or, free, the next free chunk).
type chunk struct {
	n    int
	next *chunk
	keys [chunkKeys]uint64
}

// len is the number of pending keys.
func (q *radixHeap) len() int { return q.n + len(q.side) }

// push adds key e, which must not be pending. floor is at or below every
// key to be pushed while the heap has keys (the queue's time taken last):
// an empty heap's floor moves there, so that they go to the buckets, not
// to the side heap.
func (q *radixHeap) push(e, floor uint64) {
	if q.n == 0 && len(q.side) == 0 {
		q.last, q.least = min(e, floor), e
	} else if e < q.least {
		q.least = e
	}
	if e < q.last {
		q.pushSide(e)
		return
	}
	q.n++
	if e == q.last {
		q.hasLast = true
		return
	}
	q.add(bucket(e, q.last), e)
}

// Digits of radixBits bits, from the lowest: a key above the floor goes
// to the bucket of the highest digit in which it differs from the floor
// and of its own value of that digit.
const (
	radixBits = 4
	radix     = 1 << radixBits
	levels    = (64 + radixBits - 1) / radixBits
	buckets   = levels * radix
)

// bucket is the bucket of key e above floor last, found in unsigned
// arithmetic, so that dividing by the digit's width and taking the digit
// are shifts and masks: every key is dealt here two to three times.
func bucket(e, last uint64) int {
	level := uint(bits.Len64(e^last)-1) / radixBits
	return int(level*radix + uint(e>>(level*radixBits&63))%radix)
}

// add appends e to bucket j, taking a new chunk when its last is full.
// settle, where most keys are dealt, does the same in its loop.
func (q *radixHeap) add(j int, e uint64) {
	c := q.tail[j]
	if c == nil || c.n == chunkKeys {
		c = q.grow(j)
	}
	c.keys[c.n] = e
	c.n++
	q.low[j] = min(q.low[j], e)
}

// grow gives bucket j a new last chunk, linked to its old one.
//
//go:noinline
func (q *radixHeap) grow(j int) *chunk {
	if q.tail[j] == nil {
		q.low[j] = ^uint64(0)
	}
	c := q.newChunk(q.tail[j])
	q.tail[j] = c
	q.full[uint(j)/64] |= 1 << (uint(j) % 64)
	return c
}

// newChunk is a free chunk linked to next: the free list's first, or a
// new one.
func (q *radixHeap) newChunk(next *chunk) *chunk {
	c := q.free
	if c == nil {
		c = new(chunk)
		q.made++
	} else {
		q.free = c.next
		q.spare--
	}
	c.n, c.next = 0, next
	return c
}

// stock makes the free list n chunks long at least. The queue calls it on
// the kernel's stack, so that a PE's push seldom takes a new chunk, and
// the allocator's path, from its own (queue.pushNear).
//
//go:noinline
func (q *radixHeap) stock(n int) {
	for q.spare < n {
		q.release(new(chunk))
		q.made++
	}
}

// release puts c on the free list.
func (q *radixHeap) release(c *chunk) {
	c.next = q.free
	q.free = c
	q.spare++
}

// min is the least pending key; the queue must not be empty. It leaves
// the floor where it is: the lowest non-empty bucket's least key is kept
// (low), and settling there would send the keys scheduled next below it
// (a PE's Sync looks at the next event's time, then its post schedules
// events sooner) to the side heap, each a heap push and pop.
func (q *radixHeap) min() uint64 {
	if len(q.side) > 0 {
		return q.side[0]
	}
	if q.hasLast {
		return q.last
	}
	w := 0
	for q.full[w] == 0 {
		w++
	}
	return q.low[w*64+bits.TrailingZeros64(q.full[w])]
}

// pop takes the least pending key; the queue must not be empty.
func (q *radixHeap) pop() uint64 {
	if len(q.side) > 0 {
		return q.popSide()
	}
	if !q.hasLast {
		q.settle()
	}
	q.hasLast = false
	q.n--
	return q.last
}

// settle makes the least key of the lowest non-empty bucket the floor and
// deals that bucket's other keys out to the buckets below. Bucket 0 must
// be empty and some bucket not.
func (q *radixHeap) settle() {
	w := 0
	for q.full[w] == 0 {
		w++
	}
	j := w*64 + bits.TrailingZeros64(q.full[w])
	m := q.low[j]
	q.last, q.hasLast = m, true
	c := q.tail[j]
	q.tail[j] = nil
	q.full[w] &^= 1 << (j % 64)
	for c != nil {
		for _, e := range c.keys[:c.n] {
			if e != m {
				// add, inlined: no call, and no registers saved
				// around one, for each key dealt.
				j := bucket(e, m)
				t := q.tail[j]
				if t == nil || t.n == chunkKeys {
					t = q.grow(j)
				}
				t.keys[t.n] = e
				t.n++
				q.low[j] = min(q.low[j], e)
			}
		}
		next := c.next
		q.release(c)
		c = next
	}
}

// shift takes d from every key, each of which must be at least d (the
// kernel's keys when it moves its base up to now). Rare: the buckets are
// dealt anew.
func (q *radixHeap) shift(d uint64) {
	for i := range q.side {
		q.side[i] -= d
	}
	var keys []uint64
	if q.hasLast {
		keys = append(keys, q.last)
	}
	for j := range q.tail {
		for c := q.tail[j]; c != nil; {
			keys = append(keys, c.keys[:c.n]...)
			next := c.next
			q.release(c)
			c = next
		}
		q.tail[j] = nil
	}
	q.full, q.n, q.hasLast = [(buckets + 63) / 64]uint64{}, 0, false
	q.last -= d
	for _, e := range keys {
		q.push(e-d, 0)
	}
}

// pushSide adds e to the side heap.
func (q *radixHeap) pushSide(e uint64) { q.side = heapPush(q.side, e, sideKey) }

// popSide takes the side heap's least key.
func (q *radixHeap) popSide() uint64 {
	var top uint64
	top, q.side = heapPop(q.side, sideKey)
	return top
}

// sideKey is a side heap entry's key: the entry itself.
func sideKey(e uint64) uint64 { return e }

// heapPush adds x to binary min-heap h, ordered by key, and returns it.
func heapPush[T any](h []T, x T, key func(T) uint64) []T {
	h = append(h, x)
	kx := key(x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if kx >= key(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	return h
}

// heapPop takes the least of binary min-heap h, ordered by key, and
// returns it and the heap.
func heapPop[T any](h []T, key func(T) uint64) (T, []T) {
	top := h[0]
	n := len(h) - 1
	last := h[n]
	kl := key(last)
	h = h[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && key(h[c+1]) < key(h[c]) {
			c++
		}
		if key(h[c]) >= kl {
			break
		}
		h[i] = h[c]
		i = c
	}
	if n > 0 {
		h[i] = last
	}
	return top, h
}
