package pgas_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// The atomic tests run over the three configurations of the transport
// (eachPath): direct load/store, the post-descriptor path, and the
// post-descriptor path with registered local memory demanded.

func amotBase(pes int) pgas.Config {
	return pgas.Config{PEs: pes, SegmentBytes: pgas.MinSegmentBytes}
}

// amotInt is the integer word types.
type amotInt interface {
	~int32 | ~int64 | ~uint32 | ~uint64
}

// amotBits are interesting bit patterns; each type keeps its low bits.
var amotBits = []uint64{
	0, 1, 2, 7, 100,
	0xFFFFFFFFFFFFFFFF, // -1
	0xFFFFFFFFFFFFFFF9, // -7
	0x8000000000000000,
	0x7FFFFFFFFFFFFFFF,
	0x0000000080000000,
	0x000000007FFFFFFF,
	0x00000000FFFFFFFF,
	0x123456789ABCDEF0,
}

func amotValues[T amotInt]() []T {
	var out []T
	for _, b := range amotBits {
		v := T(b)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// amotApply is the definition of each operation, in Go arithmetic on T
// (so min and max are signed or unsigned as T is).
func amotApply[T amotInt](op pgas.AtomicOp, old, v T) T {
	switch op {
	case pgas.AtomicAdd:
		return old + v
	case pgas.AtomicAnd:
		return old & v
	case pgas.AtomicOr:
		return old | v
	case pgas.AtomicXor:
		return old ^ v
	case pgas.AtomicSwap:
		return v
	case pgas.AtomicMin:
		return min(old, v)
	case pgas.AtomicMax:
		return max(old, v)
	}
	panic("unknown op")
}

var amotIntOps = []pgas.AtomicOp{pgas.AtomicAdd, pgas.AtomicAnd, pgas.AtomicOr, pgas.AtomicXor, pgas.AtomicSwap, pgas.AtomicMin, pgas.AtomicMax}

// amotIntSemantics checks every operation on T for every pair of
// interesting values, through every form of the API, on the word at index
// base+1 of an array on target (at offset 4 mod 8 for 32-bit T, base being
// even), and that the neighbouring words never change.
func amotIntSemantics[T amotInt](pe *pgas.PE, a pgas.Array[T], target, base int, forms int) error {
	vals := amotValues[T]()
	p := a.At(target, base+1)
	var zero T
	sentinel := [2]T{^zero - 0x1234, 0x5A5A5A5A}
	if err := pgas.AtomicStore(pe, a.At(target, base), sentinel[0]); err != nil {
		return err
	}
	if err := pgas.AtomicStore(pe, a.At(target, base+2), sentinel[1]); err != nil {
		return err
	}
	n := 0
	for _, op := range amotIntOps {
		for _, old := range vals {
			for _, v := range vals {
				n++
				form := n % forms
				what := fmt.Sprintf("%T %v(old %v, operand %v) on PE %d, form %d", v, op, old, v, target, form)
				want := amotApply(op, old, v)
				if err := pgas.AtomicStore(pe, p, old); err != nil {
					return fmt.Errorf("%s: AtomicStore: %w", what, err)
				}
				var got T
				var err error
				fetched := true
				switch form {
				case 0:
					if op == pgas.AtomicAdd && n%2 == 0 {
						got, err = pgas.FetchAdd(pe, p, v)
					} else {
						got, err = pgas.FetchAtomic(pe, op, p, v)
					}
				case 1:
					err = pgas.Atomic(pe, op, p, v)
					fetched = false
				case 2:
					var h pgas.Handle
					if h, err = pgas.FetchAtomicNB(pe, op, p, v, &got); err == nil {
						err = h.Wait()
					}
				case 3:
					var h pgas.Handle
					if h, err = pgas.AtomicNB(pe, op, p, v); err == nil {
						err = testLoop(h)
					}
					fetched = false
				}
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				if fetched && got != old {
					return fmt.Errorf("%s: fetched %v, want %v", what, got, old)
				}
				now, err := pgas.AtomicLoad(pe, p)
				if err != nil {
					return fmt.Errorf("%s: AtomicLoad: %w", what, err)
				}
				if now != want {
					return fmt.Errorf("%s: word is %v, want %v", what, now, want)
				}
			}
		}
	}
	// Compare-and-swap, successful and failing.
	for _, old := range vals {
		for _, v := range vals {
			n++
			for _, ok := range []bool{true, false} {
				expect, want := old, v
				if !ok {
					expect, want = old^1, old
				}
				what := fmt.Sprintf("%T CompareSwap(word %v, expect %v, desired %v) on PE %d", v, old, expect, v, target)
				if err := pgas.AtomicStore(pe, p, old); err != nil {
					return err
				}
				var got T
				var err error
				if n%2 == 0 {
					got, err = pgas.CompareSwap(pe, p, expect, v)
				} else {
					var h pgas.Handle
					if h, err = pgas.CompareSwapNB(pe, p, expect, v, &got); err == nil {
						err = h.Wait()
					}
				}
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				now, err := pgas.AtomicLoad(pe, p)
				if err != nil {
					return err
				}
				if got != old || now != want {
					return fmt.Errorf("%s: returned %v and left %v, want %v and %v", what, got, now, old, want)
				}
			}
		}
	}
	for i, w := range []int{base, base + 2} {
		got, err := pgas.AtomicLoad(pe, a.At(target, w))
		if err != nil {
			return err
		}
		if got != sentinel[i] {
			return fmt.Errorf("%T: neighbouring word %d on PE %d changed to %v, want %v", got, w, target, got, sentinel[i])
		}
	}
	return nil
}

func amotRunInt[T amotInt](pe *pgas.PE) error {
	size := pe.Size()
	a, err := pgas.NewArray[T](pe, 4*size+1)
	if err != nil {
		return err
	}
	// Each PE works on words [4*rank, 4*rank+3) of the arrays of its
	// neighbour and of itself: nobody else touches them.
	me, peer := pe.Rank(), (pe.Rank()+1)%size
	for _, target := range []int{peer, me} {
		if err := amotIntSemantics(pe, a, target, 4*me, 4); err != nil {
			return err
		}
	}
	// The same in strict mode, through fewer forms.
	if err := pe.SetDefaultAccess(pgas.Strict); err != nil {
		return err
	}
	if err := amotIntSemantics(pe, a, peer, 4*me, 3); err != nil {
		return fmt.Errorf("strict: %w", err)
	}
	if err := pe.SetDefaultAccess(pgas.Relaxed); err != nil {
		return err
	}
	// What the atomics left is visible to plain reads after a barrier.
	var zero T
	if err := pgas.AtomicStore(pe, a.At(peer, 4*size), ^zero-T(me)); err != nil {
		return err
	}
	if err := pe.Barrier(); err != nil {
		return err
	}
	left := (me + size - 1) % size
	if got := a.Local()[4*size]; got != ^zero-T(left) {
		return fmt.Errorf("%T: word stored by PE %d reads %v locally, want %v", got, left, got, ^zero-T(left))
	}
	if err := pe.Barrier(); err != nil {
		return err
	}
	return a.Free()
}

// TestAtomicIntegerSemantics checks each integer operation on int32,
// int64, uint32 and uint64 words with exact results, signed and unsigned
// min and max included.
func TestAtomicIntegerSemantics(t *testing.T) {
	eachPath(t, amotBase(2), func(pe *pgas.PE) error {
		if err := amotRunInt[int32](pe); err != nil {
			return err
		}
		if err := amotRunInt[int64](pe); err != nil {
			return err
		}
		if err := amotRunInt[uint32](pe); err != nil {
			return err
		}
		if err := amotRunInt[uint64](pe); err != nil {
			return err
		}
		if m := pe.Config(); pe.Conduit() == "smp" {
			s := pe.Stats().Transport
			if m.Direct == pgas.Off && s.AMOs == 0 {
				return fmt.Errorf("no AMO descriptor was posted with Direct off: %+v", s)
			}
			if m.Direct == pgas.On && s.AMOs != 0 {
				return fmt.Errorf("AMO descriptors were posted with Direct on: %+v", s)
			}
		}
		return nil
	})
}

// TestAtomicSignedUnsigned pins down the cases where signed and unsigned
// minimum and maximum differ.
func TestAtomicSignedUnsigned(t *testing.T) {
	eachPath(t, amotBase(2), func(pe *pgas.PE) error {
		i32, err := pgas.NewArray[int32](pe, 2)
		if err != nil {
			return err
		}
		u32, err := pgas.NewArray[uint32](pe, 2)
		if err != nil {
			return err
		}
		i64, err := pgas.NewArray[int64](pe, 2)
		if err != nil {
			return err
		}
		u64, err := pgas.NewArray[uint64](pe, 2)
		if err != nil {
			return err
		}
		peer := 1 - pe.Rank()
		type c struct {
			name      string
			run       func() (old, now int64, err error)
			old, want int64
		}
		cases := []c{
			{"int32 min(5, -3)", func() (int64, int64, error) {
				return amotStoreOp(pe, i32.At(peer, 1), 5, pgas.AtomicMin, -3)
			}, 5, -3},
			{"int32 max(-5, 3)", func() (int64, int64, error) {
				return amotStoreOp(pe, i32.At(peer, 1), -5, pgas.AtomicMax, 3)
			}, -5, 3},
			{"uint32 min(5, 0xFFFFFFFD)", func() (int64, int64, error) {
				return amotStoreOp(pe, u32.At(peer, 1), 5, pgas.AtomicMin, 0xFFFFFFFD)
			}, 5, 5},
			{"uint32 max(0xFFFFFFFB, 3)", func() (int64, int64, error) {
				return amotStoreOp(pe, u32.At(peer, 1), 0xFFFFFFFB, pgas.AtomicMax, 3)
			}, 0xFFFFFFFB, 0xFFFFFFFB},
			{"int64 min(1, -1)", func() (int64, int64, error) {
				return amotStoreOp(pe, i64.At(peer, 1), 1, pgas.AtomicMin, -1)
			}, 1, -1},
			{"int64 max(math.MinInt64, 0)", func() (int64, int64, error) {
				return amotStoreOp(pe, i64.At(peer, 1), math.MinInt64, pgas.AtomicMax, 0)
			}, math.MinInt64, 0},
			{"uint64 min(1, 1<<63)", func() (int64, int64, error) {
				o, n, err := amotStoreOp(pe, u64.At(peer, 1), 1, pgas.AtomicMin, 1<<63)
				return o, n, err
			}, 1, 1},
			{"uint64 max(1<<63, 1)", func() (int64, int64, error) {
				o, n, err := amotStoreOp(pe, u64.At(peer, 1), 1<<63, pgas.AtomicMax, 1)
				return o, n, err
			}, math.MinInt64, math.MinInt64},
		}
		for _, c := range cases {
			old, now, err := c.run()
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if old != c.old || now != c.want {
				return fmt.Errorf("%s: fetched %d and left %d, want %d and %d", c.name, old, now, c.old, c.want)
			}
		}
		return pe.Barrier()
	})
}

// amotStoreOp stores init at p, applies op with v, and returns the fetched
// and the resulting value as int64 (bit patterns sign- or zero-extended as
// T).
func amotStoreOp[T amotInt](pe *pgas.PE, p pgas.GPtr[T], init T, op pgas.AtomicOp, v T) (int64, int64, error) {
	if err := pgas.AtomicStore(pe, p, init); err != nil {
		return 0, 0, err
	}
	old, err := pgas.FetchAtomic(pe, op, p, v)
	if err != nil {
		return 0, 0, err
	}
	now, err := pgas.AtomicLoad(pe, p)
	return int64(old), int64(now), err
}

// TestAtomicFloat64 checks add, swap, compare-and-swap, load and store on
// float64 words, and that the integer-only operations are refused.
func TestAtomicFloat64(t *testing.T) {
	vals := []float64{0, 1.5, -2.25, 3.0e-300, 1e300, -7, math.Inf(1), math.Copysign(0, -1), 0.1}
	eachPath(t, amotBase(2), func(pe *pgas.PE) error {
		a, err := pgas.NewArray[float64](pe, 8)
		if err != nil {
			return err
		}
		// Each PE works on words [4*rank, 4*rank+3) of both PEs.
		me, peer := pe.Rank(), 1-pe.Rank()
		base := 4 * me
		same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
		for _, target := range []int{peer, me} {
			p := a.At(target, base+1)
			if err := pgas.AtomicStore(pe, a.At(target, base), 42.5); err != nil {
				return err
			}
			if err := pgas.AtomicStore(pe, a.At(target, base+2), -42.5); err != nil {
				return err
			}
			n := 0
			for _, old := range vals {
				for _, v := range vals {
					type opCase struct {
						name string
						want float64
						do   func() (float64, bool, error) // fetched, whether fetched
					}
					cases := []opCase{
						{"FetchAdd", old + v, func() (float64, bool, error) { r, err := pgas.FetchAdd(pe, p, v); return r, true, err }},
						{"FetchAtomic add", old + v, func() (float64, bool, error) {
							r, err := pgas.FetchAtomic(pe, pgas.AtomicAdd, p, v)
							return r, true, err
						}},
						{"Atomic add", old + v, func() (float64, bool, error) { return 0, false, pgas.Atomic(pe, pgas.AtomicAdd, p, v) }},
						{"FetchAtomicNB add", old + v, func() (float64, bool, error) {
							var r float64
							h, err := pgas.FetchAtomicNB(pe, pgas.AtomicAdd, p, v, &r)
							if err == nil {
								err = h.Wait()
							}
							return r, true, err
						}},
						{"AtomicNB add", old + v, func() (float64, bool, error) {
							h, err := pgas.AtomicNB(pe, pgas.AtomicAdd, p, v)
							if err == nil {
								err = testLoop(h)
							}
							return 0, false, err
						}},
						{"FetchAtomic swap", v, func() (float64, bool, error) {
							r, err := pgas.FetchAtomic(pe, pgas.AtomicSwap, p, v)
							return r, true, err
						}},
						{"AtomicNB swap", v, func() (float64, bool, error) {
							h, err := pgas.AtomicNB(pe, pgas.AtomicSwap, p, v)
							if err == nil {
								err = h.Wait()
							}
							return 0, false, err
						}},
						{"CompareSwap hit", v, func() (float64, bool, error) { r, err := pgas.CompareSwap(pe, p, old, v); return r, true, err }},
						{"CompareSwap miss", old, func() (float64, bool, error) {
							r, err := pgas.CompareSwap(pe, p, old+1e-3, v)
							return r, true, err
						}},
						{"CompareSwapNB hit", v, func() (float64, bool, error) {
							var r float64
							h, err := pgas.CompareSwapNB(pe, p, old, v, &r)
							if err == nil {
								err = h.Wait()
							}
							return r, true, err
						}},
						{"AtomicStore", v, func() (float64, bool, error) { return 0, false, pgas.AtomicStore(pe, p, v) }},
					}
					for _, c := range cases {
						n++
						if c.name == "CompareSwap miss" && (math.IsInf(old, 0) || old == 1e300) {
							continue // old+1e-3 == old
						}
						what := fmt.Sprintf("float64 %s(old %v, operand %v) on PE %d", c.name, old, v, target)
						if err := pgas.AtomicStore(pe, p, old); err != nil {
							return err
						}
						got, fetched, err := c.do()
						if err != nil {
							return fmt.Errorf("%s: %w", what, err)
						}
						if fetched && !same(got, old) {
							return fmt.Errorf("%s: fetched %v, want %v", what, got, old)
						}
						now, err := pgas.AtomicLoad(pe, p)
						if err != nil {
							return err
						}
						if !same(now, c.want) {
							return fmt.Errorf("%s: word is %v, want %v", what, now, c.want)
						}
					}
				}
			}
			if x, err := pgas.AtomicLoad(pe, a.At(target, base)); err != nil || x != 42.5 {
				return fmt.Errorf("neighbouring float64 word: %v, %v; want 42.5", x, err)
			}
			if x, err := pgas.AtomicLoad(pe, a.At(target, base+2)); err != nil || x != -42.5 {
				return fmt.Errorf("neighbouring float64 word: %v, %v; want -42.5", x, err)
			}
		}
		p := a.At(peer, base+1)
		for _, op := range []pgas.AtomicOp{pgas.AtomicAnd, pgas.AtomicOr, pgas.AtomicXor, pgas.AtomicMin, pgas.AtomicMax} {
			if err := pgas.Atomic(pe, op, p, 1.0); !errors.Is(err, pgas.ErrArgument) {
				return fmt.Errorf("float64 %v: %v, want ErrArgument", op, err)
			}
			if _, err := pgas.FetchAtomic(pe, op, p, 1.0); !errors.Is(err, pgas.ErrArgument) {
				return fmt.Errorf("float64 fetching %v: %v, want ErrArgument", op, err)
			}
			var r float64
			if _, err := pgas.FetchAtomicNB(pe, op, p, 1.0, &r); !errors.Is(err, pgas.ErrArgument) {
				return fmt.Errorf("float64 NB %v: %v, want ErrArgument", op, err)
			}
		}
		return pe.Barrier()
	})
}

// TestAtomicErrors: misaligned, out-of-range and unknown atomics are
// refused with the right sentinel.
func TestAtomicErrors(t *testing.T) {
	eachPath(t, amotBase(2), func(pe *pgas.PE) error {
		off, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		seg := pe.Config().SegmentBytes
		var r64 int64
		var r32 uint32
		checks := []struct {
			name string
			err  error
			want error
		}{
			{"int64 at offset 4 mod 8", pgas.Atomic(pe, pgas.AtomicAdd, pgas.Ptr[int64](1, off+4), 1), pgas.ErrMisaligned},
			{"uint32 at offset 2 mod 4", func() error { _, err := pgas.FetchAdd(pe, pgas.Ptr[uint32](1, off+2), 1); return err }(), pgas.ErrMisaligned},
			{"float64 CompareSwap at offset 1", func() error { _, err := pgas.CompareSwap(pe, pgas.Ptr[float64](0, off+1), 0, 1); return err }(), pgas.ErrMisaligned},
			{"AtomicNB misaligned", func() error { _, err := pgas.AtomicNB(pe, pgas.AtomicOr, pgas.Ptr[int64](1, off+12), 1); return err }(), pgas.ErrMisaligned},
			{"past the segment", func() error { _, err := pgas.AtomicLoad(pe, pgas.Ptr[int64](1, seg)); return err }(), pgas.ErrRange},
			{"negative offset", pgas.AtomicStore(pe, pgas.Ptr[uint32](1, -4), 1), pgas.ErrRange},
			{"bad PE", pgas.Atomic(pe, pgas.AtomicAdd, pgas.Ptr[int64](2, off), 1), pgas.ErrBadPE},
			{"bad PE NB", func() error {
				_, err := pgas.FetchAtomicNB(pe, pgas.AtomicAdd, pgas.Ptr[int64](-1, off), 1, &r64)
				return err
			}(), pgas.ErrBadPE},
			{"op 0", pgas.Atomic(pe, pgas.AtomicOp(0), pgas.Ptr[int64](1, off), 1), pgas.ErrArgument},
			{"op 99", func() error {
				_, err := pgas.FetchAtomic(pe, pgas.AtomicOp(99), pgas.Ptr[uint32](1, off), 1)
				return err
			}(), pgas.ErrArgument},
			{"nil result", func() error {
				_, err := pgas.FetchAtomicNB[uint32](pe, pgas.AtomicAdd, pgas.Ptr[uint32](1, off), 1, nil)
				return err
			}(), pgas.ErrArgument},
			{"nil CompareSwapNB result", func() error { _, err := pgas.CompareSwapNB[int64](pe, pgas.Ptr[int64](1, off), 0, 1, nil); return err }(), pgas.ErrArgument},
			{"CompareSwapNB misaligned", func() error { _, err := pgas.CompareSwapNB(pe, pgas.Ptr[uint32](1, off+1), 0, 1, &r32); return err }(), pgas.ErrMisaligned},
		}
		for _, c := range checks {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			}
		}
		if pgas.AtomicAdd.String() != "add" || pgas.AtomicMax.String() != "max" || pgas.AtomicOp(0).String() == "add" {
			return fmt.Errorf("AtomicOp names: %v %v %v", pgas.AtomicAdd, pgas.AtomicMax, pgas.AtomicOp(0))
		}
		return pe.Barrier()
	})
}

// Contention: every PE updates words on PE 0 many times at once.

// amotWords is the layout of the contended words on PE 0.
type amotWords struct {
	i64, ticket, cas64 pgas.Array[int64]
	u32                pgas.Array[uint32] // [0] and [1] share one 8-byte word
	f64                pgas.Array[float64]
}

// TestAtomicContention: every PE adds to words of PE 0 through every form
// (blocking, fetching, non-blocking), takes tickets with FetchAdd, and
// increments with compare-and-swap loops, on 64-bit words, on both halves
// of one 8-byte word with 32-bit atomics, and on a float64: every total is
// exact, and the tickets are a permutation.
func TestAtomicContention(t *testing.T) {
	const pes, iters = 4, 250
	tickets := make([][]int64, pes)
	eachPath(t, amotBase(pes), func(pe *pgas.PE) error {
		me := pe.Rank()
		var w amotWords
		var err error
		if w.i64, err = pgas.NewArray[int64](pe, 1); err != nil {
			return err
		}
		if w.ticket, err = pgas.NewArray[int64](pe, 1); err != nil {
			return err
		}
		if w.cas64, err = pgas.NewArray[int64](pe, 1); err != nil {
			return err
		}
		if w.u32, err = pgas.NewArray[uint32](pe, 4); err != nil {
			return err
		}
		if w.f64, err = pgas.NewArray[float64](pe, 1); err != nil {
			return err
		}
		mine := make([]int64, 0, iters)
		var pending []pgas.Handle
		flush := func() error {
			err := pgas.WaitAll(pending...)
			pending = pending[:0]
			return err
		}
		for i := range iters {
			// i64 += 1 in one of four forms.
			switch i % 4 {
			case 0:
				err = pgas.Atomic(pe, pgas.AtomicAdd, w.i64.At(0, 0), 1)
			case 1:
				_, err = pgas.FetchAtomic(pe, pgas.AtomicAdd, w.i64.At(0, 0), 1)
			case 2:
				var h pgas.Handle
				if h, err = pgas.AtomicNB(pe, pgas.AtomicAdd, w.i64.At(0, 0), 1); err == nil {
					pending = append(pending, h)
				}
			case 3:
				var h pgas.Handle
				var sink int64
				if h, err = pgas.FetchAtomicNB(pe, pgas.AtomicAdd, w.i64.At(0, 0), 1, &sink); err == nil {
					err = h.Wait()
				}
			}
			if err != nil {
				return err
			}
			if len(pending) >= 16 {
				if err := flush(); err != nil {
					return err
				}
			}
			// A ticket.
			tk, err := pgas.FetchAdd(pe, w.ticket.At(0, 0), 1)
			if err != nil {
				return err
			}
			mine = append(mine, tk)
			// A compare-and-swap increment of a 64-bit word.
			if err := amotCASIncrement(pe, w.cas64.At(0, 0)); err != nil {
				return err
			}
			// The two halves of one 8-byte word: even PEs add 1 to the low
			// half and increment the high half by compare-and-swap, odd PEs
			// the other way round; the other 8-byte word gets xors.
			lo, hi := w.u32.At(0, 0), w.u32.At(0, 1)
			if me%2 == 1 {
				lo, hi = hi, lo
			}
			if err := pgas.Atomic(pe, pgas.AtomicAdd, lo, 1); err != nil {
				return err
			}
			if err := amotCASIncrement(pe, hi); err != nil {
				return err
			}
			if _, err := pgas.FetchAtomic(pe, pgas.AtomicXor, w.u32.At(0, 2+i%2), uint32(1)<<(me*8+i%8)); err != nil {
				return err
			}
			// float64 += 1 (exact in floating point at these magnitudes).
			if i%2 == 0 {
				_, err = pgas.FetchAdd(pe, w.f64.At(0, 0), 1.0)
			} else {
				err = pgas.Atomic(pe, pgas.AtomicAdd, w.f64.At(0, 0), 1.0)
			}
			if err != nil {
				return err
			}
			if i%16 == 0 {
				runtime.Gosched()
			}
		}
		if err := flush(); err != nil {
			return err
		}
		tickets[me] = mine
		if err := pe.Barrier(); err != nil {
			return err
		}
		if me == 0 {
			total := int64(pes * iters)
			if got := w.i64.Local()[0]; got != total {
				return fmt.Errorf("int64 adds: %d, want %d", got, total)
			}
			if got := w.ticket.Local()[0]; got != total {
				return fmt.Errorf("tickets: counter %d, want %d", got, total)
			}
			if got := w.cas64.Local()[0]; got != total {
				return fmt.Errorf("compare-and-swap increments: %d, want %d", got, total)
			}
			u := w.u32.Local()
			if u[0] != uint32(total) || u[1] != uint32(total) {
				return fmt.Errorf("32-bit halves of one word: %d and %d, want %d each", u[0], u[1], total)
			}
			// PE r xored bit r*8+i%8 into word 2+i%2 at iteration i.
			var want [2]uint32
			for r := range pes {
				for i := range iters {
					want[i%2] ^= uint32(1) << (r*8 + i%8)
				}
			}
			if u[2] != want[0] || u[3] != want[1] {
				return fmt.Errorf("32-bit xors: %#x and %#x, want %#x and %#x", u[2], u[3], want[0], want[1])
			}
			if got := w.f64.Local()[0]; got != float64(total) {
				return fmt.Errorf("float64 adds: %v, want %d", got, total)
			}
			// Every ticket was taken exactly once. (Each PE stored its
			// tickets before the barrier.)
			var all []int64
			for _, ts := range tickets {
				all = append(all, ts...)
			}
			slices.Sort(all)
			for i, v := range all {
				if v != int64(i) {
					return fmt.Errorf("tickets: sorted position %d holds %d: not a permutation of 0..%d", i, v, total-1)
				}
			}
			if int64(len(all)) != total {
				return fmt.Errorf("%d tickets, want %d", len(all), total)
			}
		}
		return pe.Barrier()
	})
}

// amotCASIncrement adds one to the word at p with a compare-and-swap loop.
func amotCASIncrement[T amotInt](pe *pgas.PE, p pgas.GPtr[T]) error {
	old, err := pgas.AtomicLoad(pe, p)
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		got, err := pgas.CompareSwap(pe, p, old, old+1)
		if err != nil {
			return err
		}
		if got == old {
			return nil
		}
		old = got
		if i%8 == 7 {
			runtime.Gosched()
		}
	}
}

// TestAtomicContentionStrict repeats a shorter contended count with every
// PE in strict mode, with the non-blocking forms in flight together.
func TestAtomicContentionStrict(t *testing.T) {
	const pes, iters = 3, 120
	base := amotBase(pes)
	base.Access = pgas.Strict
	eachPath(t, base, func(pe *pgas.PE) error {
		a, err := pgas.NewArray[uint64](pe, 2)
		if err != nil {
			return err
		}
		b, err := pgas.NewArray[int32](pe, 2)
		if err != nil {
			return err
		}
		olds := make([]uint64, iters)
		hs := make([]pgas.Handle, iters)
		for i := range iters {
			if hs[i], err = pgas.FetchAtomicNB(pe, pgas.AtomicAdd, a.At(0, 1), 3, &olds[i]); err != nil {
				return err
			}
			if err := amotCASIncrement(pe, b.At(0, 1)); err != nil {
				return err
			}
			if err := pgas.Atomic(pe, pgas.AtomicAdd, b.At(0, 0), -1); err != nil {
				return err
			}
		}
		if err := pgas.WaitAll(hs...); err != nil {
			return err
		}
		for i, o := range olds {
			if o%3 != 0 || o >= 3*pes*iters {
				return fmt.Errorf("fetch-add %d returned %d: not a multiple of 3 below %d", i, o, 3*pes*iters)
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			if got := a.Local()[1]; got != 3*pes*iters {
				return fmt.Errorf("strict adds: %d, want %d", got, 3*pes*iters)
			}
			if got := b.Local(); got[1] != pes*iters || got[0] != -pes*iters {
				return fmt.Errorf("strict 32-bit halves: %v, want [%d %d]", got, -pes*iters, pes*iters)
			}
		}
		return pe.Barrier()
	})
}
