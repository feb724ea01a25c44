package pgas_test

// No silent wrong result: accesses to the runtime's reserved area, uses of
// freed memory, and access modes that are neither Relaxed nor Strict were
// once accepted (the first broke barriers, the second overwrote whatever
// was allocated next, the third silently used the default mode). Each is
// an error now, naming the operation, the PE and the bad value; the cases
// run on every PE of a job (errtRunJob) and must not disturb it.

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

// safetAtomic is an atomic entry point on an int64 word.
type safetAtomic struct {
	op   string
	call func(pe *pgas.PE, p pgas.GPtr[int64]) error
}

var safetAtomics = []safetAtomic{
	{"Atomic", func(pe *pgas.PE, p pgas.GPtr[int64]) error { return pgas.Atomic(pe, pgas.AtomicAdd, p, 1) }},
	{"FetchAtomic", func(pe *pgas.PE, p pgas.GPtr[int64]) error {
		_, err := pgas.FetchAtomic(pe, pgas.AtomicSwap, p, 1)
		return err
	}},
	{"CompareSwap", func(pe *pgas.PE, p pgas.GPtr[int64]) error { _, err := pgas.CompareSwap(pe, p, 0, 1); return err }},
	{"AtomicLoad", func(pe *pgas.PE, p pgas.GPtr[int64]) error { _, err := pgas.AtomicLoad(pe, p); return err }},
	{"AtomicStore", func(pe *pgas.PE, p pgas.GPtr[int64]) error { return pgas.AtomicStore(pe, p, 1) }},
	{"AtomicNB", func(pe *pgas.PE, p pgas.GPtr[int64]) error { return errtNB(pgas.AtomicNB(pe, pgas.AtomicAdd, p, 1)) }},
	{"FetchAtomicNB", func(pe *pgas.PE, p pgas.GPtr[int64]) error {
		var res int64
		return errtNB(pgas.FetchAtomicNB(pe, pgas.AtomicAdd, p, 1, &res))
	}},
	{"CompareSwapNB", func(pe *pgas.PE, p pgas.GPtr[int64]) error {
		var res int64
		return errtNB(pgas.CompareSwapNB(pe, p, 0, 1, &res))
	}},
	{"PutValue", func(pe *pgas.PE, p pgas.GPtr[int64]) error { return pgas.PutValue(pe, p, 1) }},
	{"GetValue", func(pe *pgas.PE, p pgas.GPtr[int64]) error { _, err := pgas.GetValue(pe, p); return err }},
}

// safetAccessorOp is every RMA method of an Accessor on 8 bytes at off.
type safetAccessorOp struct {
	op   string
	call func(acc pgas.Accessor, r int, off int64) error
}

var safetAccessorOps = []safetAccessorOp{
	{"Put", func(acc pgas.Accessor, r int, off int64) error { return acc.Put(r, off, make([]byte, 8)) }},
	{"Get", func(acc pgas.Accessor, r int, off int64) error { return acc.Get(r, off, make([]byte, 8)) }},
	{"PutNB", func(acc pgas.Accessor, r int, off int64) error { return errtNB(acc.PutNB(r, off, make([]byte, 8))) }},
	{"GetNB", func(acc pgas.Accessor, r int, off int64) error { return errtNB(acc.GetNB(r, off, make([]byte, 8))) }},
	{"PutNBI", func(acc pgas.Accessor, r int, off int64) error { return acc.PutNBI(r, off, make([]byte, 8)) }},
	{"GetNBI", func(acc pgas.Accessor, r int, off int64) error { return acc.GetNBI(r, off, make([]byte, 8)) }},
	{"PutV", func(acc pgas.Accessor, r int, off int64) error {
		return acc.PutV(r, []pgas.Span{{Off: off, Len: 8}}, [][]byte{make([]byte, 8)})
	}},
	{"GetV", func(acc pgas.Accessor, r int, off int64) error {
		return acc.GetV(r, []pgas.Span{{Off: off, Len: 8}}, [][]byte{make([]byte, 8)})
	}},
	{"PutVNB", func(acc pgas.Accessor, r int, off int64) error {
		return errtNB(acc.PutVNB(r, []pgas.Span{{Off: off, Len: 8}}, [][]byte{make([]byte, 8)}))
	}},
	{"GetVNB", func(acc pgas.Accessor, r int, off int64) error {
		return errtNB(acc.GetVNB(r, []pgas.Span{{Off: off, Len: 8}}, [][]byte{make([]byte, 8)}))
	}},
	{"PutIndexed", func(acc pgas.Accessor, r int, off int64) error {
		return acc.PutIndexed(r, []int64{off}, 8, make([]byte, 8))
	}},
	{"GetIndexed", func(acc pgas.Accessor, r int, off int64) error {
		return acc.GetIndexed(r, []int64{off}, 8, make([]byte, 8))
	}},
	{"PutIndexedNB", func(acc pgas.Accessor, r int, off int64) error {
		return errtNB(acc.PutIndexedNB(r, []int64{off}, 8, make([]byte, 8)))
	}},
	{"GetIndexedNB", func(acc pgas.Accessor, r int, off int64) error {
		return errtNB(acc.GetIndexedNB(r, []int64{off}, 8, make([]byte, 8)))
	}},
	{"PutStrided", func(acc pgas.Accessor, r int, off int64) error {
		return acc.PutStrided(r, off, []int64{8}, make([]byte, 8), []int64{8}, []int64{8, 1})
	}},
	{"GetStrided", func(acc pgas.Accessor, r int, off int64) error {
		return acc.GetStrided(r, off, []int64{8}, make([]byte, 8), []int64{8}, []int64{8, 1})
	}},
	{"PutStridedNB", func(acc pgas.Accessor, r int, off int64) error {
		return errtNB(acc.PutStridedNB(r, off, []int64{8}, make([]byte, 8), []int64{8}, []int64{8, 1}))
	}},
	{"GetStridedNB", func(acc pgas.Accessor, r int, off int64) error {
		return errtNB(acc.GetStridedNB(r, off, []int64{8}, make([]byte, 8), []int64{8}, []int64{8, 1}))
	}},
}

// safetArrayOp is every RMA method of an Array[int64] on element 1 (and 2
// for the indexed and strided forms) of PE r.
type safetArrayOp struct {
	op   string
	call func(a pgas.Array[int64], r int) error
}

var safetArrayOps = []safetArrayOp{
	{"Put", func(a pgas.Array[int64], r int) error { return a.Put(r, 1, []int64{7}) }},
	{"Get", func(a pgas.Array[int64], r int) error { return a.Get(r, 1, make([]int64, 1)) }},
	{"PutNB", func(a pgas.Array[int64], r int) error { return errtNB(a.PutNB(r, 1, []int64{7})) }},
	{"GetNB", func(a pgas.Array[int64], r int) error { return errtNB(a.GetNB(r, 1, make([]int64, 1))) }},
	{"PutNBI", func(a pgas.Array[int64], r int) error { return a.PutNBI(r, 1, []int64{7}) }},
	{"GetNBI", func(a pgas.Array[int64], r int) error { return a.GetNBI(r, 1, make([]int64, 1)) }},
	{"PutValue", func(a pgas.Array[int64], r int) error { return a.PutValue(r, 1, 7) }},
	{"GetValue", func(a pgas.Array[int64], r int) error { _, err := a.GetValue(r, 1); return err }},
	{"PutIndexed", func(a pgas.Array[int64], r int) error { return a.PutIndexed(r, []int{1, 2}, []int64{7, 8}) }},
	{"GetIndexed", func(a pgas.Array[int64], r int) error { return a.GetIndexed(r, []int{1, 2}, make([]int64, 2)) }},
	{"PutStrided", func(a pgas.Array[int64], r int) error { return a.PutStrided(r, 1, 1, []int64{7, 8}) }},
	{"GetStrided", func(a pgas.Array[int64], r int) error { return a.GetStrided(r, 1, 1, make([]int64, 2)) }},
}

// TestReservedAreaRefused: every operation taking a raw offset refuses the
// reserved area at the start of each segment (the runtime's flush word and
// barrier flags), naming the offset, the target PE and the first usable
// offset.
func TestReservedAreaRefused(t *testing.T) {
	var replyErr [2]error
	errtRunJob(t, errtConfig(2), func(f *errtFixture, run func(...errtCase)) error {
		pe, peer := f.pe, f.peer
		first := fmt.Sprintf("the first usable offset is %d", pgas.ReservedBytes)
		for _, off := range []int64{0, 64, pgas.ReservedBytes - 8, pgas.ReservedBytes - 4} {
			want := []string{fmt.Sprintf("offset %d on PE %d is in the runtime's reserved area", off, peer), first}
			for i, o := range errtRMAOps {
				label := o.op
				if i >= len(errtRMAOps)-3 {
					label = "strict " + o.op
				}
				run(errtCase{
					name: fmt.Sprintf("%s at %d", label, off), op: o.op, is: pgas.ErrRange, want: want,
					call: func() error { return o.call(f, peer, off, 8) },
				})
			}
			if off%8 == 0 {
				for _, a := range safetAtomics {
					run(errtCase{
						name: fmt.Sprintf("%s at %d", a.op, off), op: a.op, is: pgas.ErrRange, want: want,
						call: func() error { return a.call(pe, pgas.Ptr[int64](peer, off)) },
					})
				}
			}
			run(
				errtCase{
					name: fmt.Sprintf("Local at %d", off), op: "Local", is: pgas.ErrRange,
					want: []string{fmt.Sprintf("offset %d on PE %d is in the runtime's reserved area", off, f.rank), first},
					call: func() error { _, err := pe.Local(off, 8); return err },
				},
				errtCase{
					name: fmt.Sprintf("RequestLong to %d", off), is: pgas.ErrRange, amLayer: true,
					want: append([]string{"RequestLong to PE"}, want...),
					call: func() error { return pe.AM().RequestLong(peer, f.noop, make([]byte, 8), off) },
				},
				errtCase{
					name: fmt.Sprintf("empty Put at %d", off), op: "Put", is: pgas.ErrRange, want: want,
					call: func() error { return pe.Put(peer, off, nil) },
				},
			)
		}
		// A reply landing in the requester's reserved area.
		h, err := pe.AM().Register("safet.replylong", func(m *am.Message) error {
			replyErr[pe.Rank()] = m.ReplyLong(f.noop, []byte{1}, 64)
			return nil
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := pe.AM().RequestShort(peer, h); err != nil {
			return err
		}
		if err := pe.WaitUntil("the request", func() bool { return replyErr[pe.Rank()] != nil }); err != nil {
			return err
		}
		run(errtCase{
			name: "ReplyLong to 64", is: pgas.ErrRange, amLayer: true,
			want: []string{"ReplyLong to PE", fmt.Sprintf("offset 64 on PE %d is in the runtime's reserved area", peer), first},
			call: func() error { return replyErr[pe.Rank()] },
		})
		return nil
	})
}

// TestReservedAreaKeepsBarriers: a put of a large epoch into a barrier
// flag used to make every later barrier pass at once (a stale read after
// the barrier in 20 rounds of 20 on smp); refused, the barriers keep
// synchronising.
func TestReservedAreaKeepsBarriers(t *testing.T) {
	const rounds = 20
	for _, c := range pathConfigs(pgas.Config{PEs: 2, SegmentBytes: 1 << 20}) {
		t.Run(c.name, func(t *testing.T) {
			err := errtRun(t, 60*time.Second, c.cfg, func(pe *pgas.PE) error {
				a, err := pgas.NewArray[int64](pe, 1)
				if err != nil {
					return err
				}
				epoch := []byte{0, 0, 0, 0, 0, 0, 0, 1} // 1<<56 on a little-endian machine
				flags := []int64{0, 64, 64 + 8, 64 + 32*8}
				if pe.Rank() == 0 {
					for _, off := range flags {
						for what, err := range map[string]error{
							"Put":         pe.Put(1, off, epoch),
							"strict Put":  pe.With(pgas.Strict).Put(1, off, epoch),
							"PutNBI":      pe.PutNBI(1, off, epoch),
							"AtomicStore": pgas.AtomicStore(pe, pgas.Ptr[int64](1, off), 1<<56),
						} {
							if !errors.Is(err, pgas.ErrRange) {
								return fmt.Errorf("%s to the reserved offset %d: %v, want ErrRange", what, off, err)
							}
						}
					}
				}
				stale := 0
				for r := range rounds {
					if pe.Rank() == 0 {
						if err := a.Put(1, 0, []int64{int64(r + 1)}); err != nil {
							return err
						}
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if pe.Rank() == 1 && a.Local()[0] != int64(r+1) {
						stale++
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
				}
				if stale > 0 {
					return fmt.Errorf("PE %d: a stale read after the barrier in %d rounds of %d", pe.Rank(), stale, rounds)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUseAfterFree: an Array, a copy of it, a GPtr taken from it, a Lock,
// and raw offsets all fail once their allocation is freed, even when the
// memory has been allocated again; what was allocated in its place is
// untouched. Pointers carry their allocation: one outside it fails even
// where another allocation lies, and one sent to another PE means the same
// there.
func TestUseAfterFree(t *testing.T) {
	errtRunJob(t, errtConfig(2), func(f *errtFixture, run func(...errtCase)) error {
		pe, me, peer := f.pe, f.rank, f.peer
		const n = 16
		a, err := pgas.NewArray[int64](pe, n)
		if err != nil {
			return err
		}
		cp, p := a, a.At(peer, 3)
		raw := a.Offset()
		if err := a.Free(); err != nil {
			return err
		}
		b, err := pgas.NewArray[int64](pe, n)
		if err != nil {
			return err
		}
		if b.Offset() != raw {
			return fmt.Errorf("the new array is at %d, not in the freed one's place %d: the test needs the reuse", b.Offset(), raw)
		}
		for i := range b.Local() {
			b.Local()[i] = int64(100*me + i)
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		freed := fmt.Sprintf("the array of %d elements at offset %d was freed", n, raw)
		for _, arr := range []struct {
			label string
			a     pgas.Array[int64]
		}{{"freed array", a}, {"copy of the freed array", cp}, {"strict freed array", a.With(pgas.Strict)}} {
			for _, o := range safetArrayOps {
				run(errtCase{
					name: fmt.Sprintf("%s %s", arr.label, o.op), op: o.op, is: pgas.ErrNotAllocated, want: []string{freed},
					call: func() error { return o.call(arr.a, peer) },
				})
			}
		}
		if a.Local() != nil || cp.Local() != nil {
			return fmt.Errorf("Local of a freed array is not nil")
		}
		for _, o := range safetAtomics {
			run(errtCase{
				name: "pointer into the freed array: " + o.op, op: o.op, is: pgas.ErrNotAllocated,
				want: []string{fmt.Sprintf("range [%d,+8) on PE %d: its allocation was freed", raw+24, peer)},
				call: func() error { return o.call(pe, p) },
			})
		}
		run(errtCase{
			name: "Free of a freed array's copy", op: "Free", is: pgas.ErrNotAllocated,
			want: []string{fmt.Sprintf("the array at offset %d was freed already", raw)},
			call: cp.Free,
		})
		// Nothing of that reached the array in the freed one's place.
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i, v := range b.Local() {
			if v != int64(100*me+i) {
				return fmt.Errorf("PE %d: element %d of the array allocated in the freed one's place is %d, want %d", me, i, v, 100*me+i)
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		// Raw offsets are checked against the live allocations: fine while
		// the new array lives there, refused once it is freed too.
		if err := pe.Put(peer, raw+8, make([]byte, 8)); err != nil {
			return fmt.Errorf("a raw put into a live allocation: %v", err)
		}
		if err := b.Free(); err != nil {
			return err
		}
		notLive := fmt.Sprintf("range [%d,+8) on PE %d is not inside a live symmetric allocation", raw, peer)
		for _, o := range errtRMAOps {
			run(errtCase{
				name: "raw offset of freed memory: " + o.op, op: o.op, is: pgas.ErrNotAllocated, want: []string{notLive},
				call: func() error { return o.call(f, peer, raw, 8) },
			})
		}
		for _, o := range safetAtomics {
			run(errtCase{
				name: "raw pointer to freed memory: " + o.op, op: o.op, is: pgas.ErrNotAllocated, want: []string{notLive},
				call: func() error { return o.call(pe, pgas.Ptr[int64](peer, raw)) },
			})
		}
		run(
			errtCase{
				name: "Local of freed memory", op: "Local", is: pgas.ErrNotAllocated,
				want: []string{fmt.Sprintf("range [%d,+8) on PE %d is not inside a live symmetric allocation", raw, me)},
				call: func() error { _, err := pe.Local(raw, 8); return err },
			},
			errtCase{
				name: "RequestLong into freed memory", is: pgas.ErrNotAllocated, amLayer: true,
				want: []string{"RequestLong to PE", notLive},
				call: func() error { return pe.AM().RequestLong(peer, f.noop, make([]byte, 8), raw) },
			},
			errtCase{
				name: "Free of a freed offset", op: "Free", is: pgas.ErrArgument,
				want: []string{fmt.Sprintf("offset %d is not a symmetric allocation (never allocated, or freed already)", raw)},
				call: func() error { return pe.Free(raw) },
			},
		)
		// A raw range across the end of an allocation, into the next one.
		x, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		if _, err := pe.Alloc(64, 0); err != nil {
			return err
		}
		run(errtCase{
			name: "raw range across two allocations", op: "Put", is: pgas.ErrRange,
			want: []string{fmt.Sprintf("range [%d,+64) on PE %d runs past the end of its allocation [%d,+64)", x+32, peer, x)},
			call: func() error { return pe.Put(peer, x+32, make([]byte, 64)) },
		})
		// A pointer past its array, where the next allocation lies.
		c, err := pgas.NewArray[int64](pe, 8)
		if err != nil {
			return err
		}
		d, err := pgas.NewArray[int64](pe, 8)
		if err != nil {
			return err
		}
		past := c.At(peer, 7).Add(1)
		if past.Off != d.Offset() {
			return fmt.Errorf("the next array is at %d, not right after the first (%d): the test needs it there", d.Offset(), past.Off)
		}
		for _, o := range safetAtomics {
			run(errtCase{
				name: "pointer past its array: " + o.op, op: o.op, is: pgas.ErrRange,
				want: []string{fmt.Sprintf("range [%d,+8) on PE %d is outside its allocation [%d,+64)", past.Off, peer, c.Offset())},
				call: func() error { return o.call(pe, past) },
			})
		}
		if err := pgas.PutValue(pe, pgas.Ptr[int64](peer, past.Off), 5); err != nil {
			return fmt.Errorf("the same address as a raw pointer (into the next allocation): %v", err)
		}
		// A lock.
		l, err := pgas.NewLock(pe)
		if err != nil {
			return err
		}
		if err := l.Free(); err != nil {
			return err
		}
		lockFreed := []string{"the lock at offset", "was freed"}
		run(
			errtCase{name: "Lock of a freed lock", op: "Lock", is: pgas.ErrNotAllocated, want: lockFreed, call: l.Lock},
			errtCase{name: "TryLock of a freed lock", op: "TryLock", is: pgas.ErrNotAllocated, want: lockFreed,
				call: func() error { _, err := l.TryLock(); return err }},
			errtCase{name: "Unlock of a freed lock", op: "Unlock", is: pgas.ErrNotAllocated, want: lockFreed, call: l.Unlock},
			errtCase{name: "Free of a freed lock", op: "Free", is: pgas.ErrNotAllocated, want: lockFreed, call: l.Free},
		)
		// A pointer sent to another PE carries its allocation there.
		ptrs, err := pgas.NewArray[pgas.GPtr[int64]](pe, 1)
		if err != nil {
			return err
		}
		e, err := pgas.NewArray[int64](pe, 4)
		if err != nil {
			return err
		}
		if err := ptrs.PutValue(peer, 0, e.At(me, 2)); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		got := ptrs.Local()[0]
		if got != e.At(peer, 2) {
			return fmt.Errorf("PE %d received the pointer %+v, want %+v", me, got, e.At(peer, 2))
		}
		if err := pgas.PutValue(pe, got, int64(1000+me)); err != nil {
			return fmt.Errorf("a received pointer to a live array: %v", err)
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if v := e.Local()[2]; v != int64(1000+peer) {
			return fmt.Errorf("PE %d: the put through the received pointer left %d, want %d", me, v, 1000+peer)
		}
		if err := e.Free(); err != nil {
			return err
		}
		run(errtCase{
			name: "received pointer into a freed array", op: "PutValue", is: pgas.ErrNotAllocated,
			want: []string{"its allocation was freed"},
			call: func() error { return pgas.PutValue(pe, got, 1) },
		})
		return nil
	})
}

// TestBadModeRefused: an Accessor or Array of a mode other than Relaxed
// and Strict (PE.With, Array.With) fails every operation, naming the mode,
// instead of using the default; so do the zero Accessor, Array and Lock.
func TestBadModeRefused(t *testing.T) {
	errtRunJob(t, errtConfig(2), func(f *errtFixture, run func(...errtCase)) error {
		pe, peer := f.pe, f.peer
		def := pe.DefaultAccess()
		for _, m := range []pgas.Mode{0, 3, 9, 255} {
			acc := pe.With(m)
			if acc.Mode() != m {
				return fmt.Errorf("With(%v).Mode() is %v", m, acc.Mode())
			}
			want := []string{fmt.Sprintf("access mode %v (given to With) is neither Relaxed nor Strict", m)}
			for _, o := range safetAccessorOps {
				run(errtCase{
					name: fmt.Sprintf("With(%v).%s", m, o.op), op: o.op, is: pgas.ErrArgument, want: want,
					call: func() error { return o.call(acc, peer, f.tail) },
				})
			}
			arr := f.i64.With(m)
			for _, o := range safetArrayOps {
				run(errtCase{
					name: fmt.Sprintf("Array.With(%v).%s", m, o.op), op: o.op, is: pgas.ErrArgument, want: want,
					call: func() error { return o.call(arr, peer) },
				})
			}
		}
		if pe.DefaultAccess() != def {
			return fmt.Errorf("the default access mode changed from %v to %v", def, pe.DefaultAccess())
		}
		var acc pgas.Accessor
		for _, o := range safetAccessorOps {
			run(errtCase{
				name: "zero Accessor " + o.op, op: o.op, is: pgas.ErrArgument, zeroPE: true, want: []string{"the zero Accessor"},
				call: func() error { return o.call(acc, peer, f.tail) },
			})
		}
		var arr pgas.Array[int64]
		for _, o := range safetArrayOps {
			run(errtCase{
				name: "zero Array " + o.op, op: o.op, is: pgas.ErrArgument, zeroPE: true, want: []string{"the zero Array"},
				call: func() error { return o.call(arr, peer) },
			})
		}
		if arr.Local() != nil {
			return fmt.Errorf("Local of the zero Array is not nil")
		}
		var l pgas.Lock
		run(
			errtCase{name: "zero Array Free", op: "Free", is: pgas.ErrArgument, zeroPE: true, want: []string{"the zero Array"}, call: arr.Free},
			errtCase{name: "zero Lock Lock", op: "Lock", is: pgas.ErrArgument, zeroPE: true, want: []string{"zero Lock"}, call: l.Lock},
			errtCase{name: "zero Lock Free", op: "Free", is: pgas.ErrArgument, zeroPE: true, want: []string{"zero Lock"}, call: l.Free},
		)
		return nil
	})
}
