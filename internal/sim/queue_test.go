package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQueueTakesLeastKey: over random mixes of pushes, looks (min), pops
// and shifts, shaped like a kernel's (keys a short random time ahead of
// the last taken, some at its time with a lower slot, some after a look
// has moved the floor ahead), the queue takes exactly the least pending
// key every time, as a sorted reference does.
func TestQueueTakesLeastKey(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var q queue
		var ref []uint64 // pending keys, sorted
		used := map[uint64]bool{}
		now, last := uint64(0), uint64(0) // the last key taken, and its time
		push := func(e uint64) { pushBoth(&q, &ref, used, e) }
		for step := range 20000 {
			switch r := rng.IntN(100); {
			case r < 45: // an event ahead, near or far
				ahead := uint64(rng.IntN(1 << (1 + rng.IntN(30))))
				push((now+ahead)<<slotBits | uint64(rng.IntN(1<<slotBits)))
			case r < 50: // an event at the time of the last taken
				push(now<<slotBits | uint64(rng.IntN(64)))
			case r < 55: // a key next to the last taken, either side
				if e := last + uint64(rng.IntN(17)) - 8; e>>slotBits == now {
					push(e)
				}
			case r < 60: // a look, which may move the floor ahead
				if len(ref) > 0 {
					require.Equal(t, ref[0], q.min(), "seed %d step %d: min", seed, step)
				}
			case r < 99:
				if len(ref) > 0 {
					e := q.pop()
					require.Equal(t, ref[0], e, "seed %d step %d: pop", seed, step)
					ref = ref[1:]
					delete(used, e)
					now, last = e>>slotBits, e
				}
			default: // the kernel's base moves up to now
				d := now << slotBits
				q.shift(d)
				for i := range ref {
					ref[i] -= d
				}
				moved := map[uint64]bool{}
				for e := range used {
					moved[e-d] = true
				}
				used, now, last = moved, 0, last-d
			}
			require.Equal(t, len(ref), q.len(), "seed %d step %d: len", seed, step)
		}
		for len(ref) > 0 {
			require.Equal(t, ref[0], q.pop())
			ref = ref[1:]
		}
		require.Zero(t, q.len())
	}
}

// TestQueueRing: with keys spread evenly over spans of times around the
// ring's (so that the near keys go round the ring and past its end, and
// buckets fill), at several numbers pending (the ring at several sizes),
// the queue takes exactly the least pending key every time, as a sorted
// reference does; and so does a partition's queue, whose ring stops at
// 1<<ringPartBits buckets.
func TestQueueRing(t *testing.T) {
	for _, maxBits := range []int{ringMaxBits, ringPartBits} {
		for _, pending := range []int{10, 100, 1000, 5000, 20000} {
			for _, span := range []int{1 << 10, 1 << (spanBits - 2), 1 << spanBits, 1 << (spanBits + 1)} {
				queueRing(t, maxBits, pending, span)
			}
		}
	}
}

// queueRing is TestQueueRing's run of a queue whose ring may grow to
// 1<<maxBits buckets, with pending keys spread over span ps.
func queueRing(t *testing.T, maxBits, pending, span int) {
	rng := rand.New(rand.NewPCG(uint64(pending), uint64(span)))
	q := queue{maxMask: 1<<maxBits - 1}
	var ref []uint64
	used := map[uint64]bool{}
	now := uint64(0)
	push := func() {
		pushBoth(&q, &ref, used, (now+uint64(rng.IntN(span)))<<slotBits|uint64(rng.IntN(1<<slotBits)))
	}
	for range pending {
		push()
	}
	for step := range 20000 {
		e := q.pop()
		require.Equal(t, ref[0], e, "ring of %d bits, pending %d span %d step %d: pop", maxBits, pending, span, step)
		ref = ref[1:]
		delete(used, e)
		now = e >> slotBits
		for len(ref) < pending {
			push()
		}
		if step%7 == 0 {
			require.Equal(t, ref[0], q.min(), "ring of %d bits, pending %d span %d step %d: min", maxBits, pending, span, step)
		}
	}
	require.LessOrEqual(t, len(q.count), 1<<maxBits, "pending %d span %d: the ring's buckets", pending, span)
	if pending >= 20000 && span >= 1<<(spanBits-2) && span <= 1<<spanBits {
		require.Equal(t, 1<<maxBits, len(q.count), "pending %d span %d: a crowded ring at its largest", pending, span)
	}
}

// TestQueueMemoryBounded: the queue's chunks are those of its most
// pending keys, plus one per bucket, and a queue that keeps the same
// number pending allocates nothing.
func TestQueueMemoryBounded(t *testing.T) {
	var q queue
	rng := rand.New(rand.NewPCG(3, 4))
	const pending = 100_000
	now := uint64(0)
	slot := uint64(0)
	next := func() uint64 {
		slot = (slot + 1) & slotMask
		return (now+uint64(rng.IntN(1<<20)))<<slotBits | slot
	}
	for range pending {
		q.push(next())
	}
	cycle := func() {
		now = q.pop() >> slotBits
		q.push(next())
	}
	for range 10 * pending {
		cycle()
	}
	t.Logf("room for %d keys, %d near", q.room(), q.near)
	require.LessOrEqual(t, q.room(), 3*pending+2*buckets*chunkKeys)
	require.Zero(t, testing.AllocsPerRun(1000, cycle))
}

// TestQueueSameTime: after each pop (popNext), popNext and sameTime say
// whether another pending key has the popped key's time, as a sorted
// reference does, over keys whose times often coincide (a few times, many
// slots each) and pushes between pops, some of them below the floor.
func TestQueueSameTime(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 2))
		var q queue
		var ref []uint64
		used := map[uint64]bool{}
		base := uint64(0)
		push := func(e uint64) { pushBoth(&q, &ref, used, e) }
		for range 2000 {
			pushShared(rng, base, 4, push)
			if len(ref) == 0 {
				continue
			}
			e, same := q.popNext()
			require.Equal(t, ref[0], e, "seed %d", seed)
			ref = ref[1:]
			want := len(ref) > 0 && ref[0]>>slotBits == e>>slotBits
			require.Equal(t, want, same, "seed %d, key %#x: popNext", seed, e)
			require.Equal(t, want, q.sameTime(e), "seed %d, key %#x", seed, e)
			base = e >> slotBits
		}
	}
}

// pushBoth pushes key e, unless it was used before, to q and to ref, its
// sorted reference.
func pushBoth(q *queue, ref *[]uint64, used map[uint64]bool, e uint64) {
	if used[e] {
		return
	}
	used[e] = true
	q.push(e)
	i, _ := slices.BinarySearch(*ref, e)
	*ref = slices.Insert(*ref, i, e)
}

// TestQueueTakeTime: after a pop, takeTime takes exactly the pending keys
// of the popped key's time, when the popped key was the buckets' floor,
// and the pops after it go on in order, over keys whose times often
// coincide, with pushes between pops, some of them below the floor.
func TestQueueTakeTime(t *testing.T) {
	taken := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var q queue
		var ref []uint64
		used := map[uint64]bool{}
		base := uint64(0)
		push := func(e uint64) { pushBoth(&q, &ref, used, e) }
		for i := range 3000 {
			pushShared(rng, base, 5, push)
			if len(ref) == 0 {
				continue
			}
			e := q.pop()
			require.Equal(t, ref[0], e, "seed %d", seed)
			ref = ref[1:]
			base = e >> slotBits
			if i%3 != 0 {
				continue
			}
			keys, ok := q.takeTime(nil, e)
			if !ok {
				require.Empty(t, keys)
				continue
			}
			var want []uint64
			for len(ref) > 0 && ref[0]>>slotBits == e>>slotBits {
				want, ref = append(want, ref[0]), ref[1:]
			}
			slices.Sort(keys)
			require.Equal(t, want, keys, "seed %d, key %#x", seed, e)
			require.Equal(t, len(ref), q.len(), "seed %d", seed)
			taken += len(keys)
		}
		for len(ref) > 0 {
			require.Equal(t, ref[0], q.pop(), "seed %d", seed)
			ref = ref[1:]
		}
		require.Zero(t, q.len())
	}
	require.Greater(t, taken, 1000, "the keys of shared times were taken")
}

// pushShared pushes fewer than n keys of times from base to base+3
// (times often shared), any slot.
func pushShared(rng *rand.Rand, base uint64, n int, push func(uint64)) {
	for range rng.IntN(n) {
		tm := base + uint64(rng.IntN(4))
		push(tm<<slotBits | uint64(rng.IntN(1<<slotBits)))
	}
}

// TestPartitionRingSmaller: a partitioned run's kernels keep their rings
// to 1<<ringPartBits buckets (a full system has hundreds of partitions);
// one kernel's may grow to 1<<ringMaxBits.
func TestPartitionRingSmaller(t *testing.T) {
	r, err := NewParallel(1, 3, 100)
	require.NoError(t, err)
	for i := range r.Partitions() {
		require.Equal(t, uint64(1<<ringPartBits-1), r.Partition(i).queue.maxMask, "partition %d", i)
	}
	k := New(1)
	k.queue.push(1 << slotBits)
	k.queue.pop()
	require.Equal(t, uint64(1<<ringMaxBits-1), k.queue.maxMask)
}
