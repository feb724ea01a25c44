package pgas_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Tests of the collectives of coll.go: every collective for PE counts with
// odd sizes (binomial trees with missing subtrees), several element types,
// sizes from nothing to far beyond one Medium AM payload (chunking), every
// root, and results equal to a serial computation.

// colltPEs are the job sizes the collectives run on.
var colltPEs = []int{1, 2, 3, 4, 5, 7, 8}

// colltSmall are the element counts every operator is tried with (every
// root up to 64 elements); colltLarge runs the chunked path (4 KiB Medium
// payloads) on fewer roots and types.
var (
	colltSmall = []int{0, 1, 5, 33, 513, 1025}
	colltLarge = []int{100_003}
)

// colltConfig is the configuration of the collective jobs: small segments,
// the collectives do not use them.
func colltConfig(pes int) pgas.Config {
	return pgas.Config{PEs: pes, SegmentBytes: 1 << 20}
}

// colltInt is the integer element types.
type colltInt interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr
}

// colltPoint is a plain struct for the data-movement collectives.
type colltPoint struct {
	X   int32
	Y   float64
	Tag [3]byte
}

// colltMix is a deterministic hash of (a, b, c).
func colltMix(a, b, c int) uint64 {
	x := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F ^ uint64(c)*0x165667B19E3779F9
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	return x
}

// colltRef is the serial meaning of op on T.
func colltRef[T pgas.Number](op pgas.ReduceOp) func(a, b T) T {
	switch op {
	case pgas.Sum:
		return func(a, b T) T { return a + b }
	case pgas.Prod:
		return func(a, b T) T { return a * b }
	case pgas.Min:
		return func(a, b T) T {
			if b < a {
				return b
			}
			return a
		}
	case pgas.Max:
		return func(a, b T) T {
			if b > a {
				return b
			}
			return a
		}
	}
	panic("colltRef: " + op.String())
}

// colltBitRef is the serial meaning of a bitwise op on integer T.
func colltBitRef[T colltInt](op pgas.ReduceOp) func(a, b T) T {
	switch op {
	case pgas.And:
		return func(a, b T) T { return a & b }
	case pgas.Or:
		return func(a, b T) T { return a | b }
	case pgas.Xor:
		return func(a, b T) T { return a ^ b }
	}
	panic("colltBitRef: " + op.String())
}

// colltGen makes the element i of team rank r for one call (salt).
type colltGen[T any] func(r, i int) T

// colltSerial folds every rank's contribution in rank order.
func colltSerial[T any](size, n int, gen colltGen[T], f func(a, b T) T) []T {
	want := make([]T, n)
	for i := range n {
		acc := gen(0, i)
		for r := 1; r < size; r++ {
			acc = f(acc, gen(r, i))
		}
		want[i] = acc
	}
	return want
}

func colltFill[T any](r, n int, gen colltGen[T]) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = gen(r, i)
	}
	return s
}

func colltDiff[T comparable](got, want []T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("element %d of %d is %v, want %v", i, len(got), got[i], want[i])
		}
	}
	return ""
}

// colltReduce checks Reduce at every root (roots: nil means all) and
// Allreduce (separate and in place) of op over tm.
func colltReduce[T pgas.Number](tm *pgas.Team, what string, op pgas.ReduceOp, n int, roots []int, gen colltGen[T], f func(a, b T) T) error {
	size, me := tm.Size(), tm.Rank()
	want := colltSerial(size, n, gen, f)
	in := colltFill(me, n, gen)
	orig := slices.Clone(in)
	if roots == nil {
		for r := range size {
			roots = append(roots, r)
		}
	}
	var sentinel T = 42
	for _, root := range roots {
		out := make([]T, n)
		for i := range out {
			out[i] = sentinel
		}
		if err := pgas.Reduce(tm, root, op, in, out); err != nil {
			return fmt.Errorf("%s: Reduce %v of %d root %d: %w", what, op, n, root, err)
		}
		if me == root {
			if d := colltDiff(out, want); d != "" {
				return fmt.Errorf("%s: Reduce %v of %d at root %d (team size %d): %s", what, op, n, root, size, d)
			}
		} else {
			for i, v := range out {
				if v != sentinel {
					return fmt.Errorf("%s: Reduce %v of %d root %d: non-root rank %d's out[%d] changed to %v", what, op, n, root, me, i, v)
				}
			}
		}
		if d := colltDiff(in, orig); d != "" {
			return fmt.Errorf("%s: Reduce %v changed in: %s", what, op, d)
		}
	}
	out := make([]T, n)
	if err := pgas.Allreduce(tm, op, in, out); err != nil {
		return fmt.Errorf("%s: Allreduce %v of %d: %w", what, op, n, err)
	}
	if d := colltDiff(out, want); d != "" {
		return fmt.Errorf("%s: Allreduce %v of %d at rank %d (team size %d): %s", what, op, n, me, size, d)
	}
	if d := colltDiff(in, orig); d != "" {
		return fmt.Errorf("%s: Allreduce %v changed in: %s", what, op, d)
	}
	// In place.
	if err := pgas.Allreduce(tm, op, in, in); err != nil {
		return fmt.Errorf("%s: in-place Allreduce %v of %d: %w", what, op, n, err)
	}
	if d := colltDiff(in, want); d != "" {
		return fmt.Errorf("%s: in-place Allreduce %v of %d at rank %d (team size %d): %s", what, op, n, me, size, d)
	}
	return nil
}

// colltRoots is the roots to try n elements with: every one (nil) when
// all is set and n is small, else the first, last and middle ones. The
// chunked sizes run on fewer roots to keep the tests fast.
func colltRoots(size, n int, all bool) []int {
	if all && n <= 64 {
		return nil
	}
	return []int{0, size - 1, size / 2}
}

// colltReductions runs Sum, Prod, Min and Max of T. gen gives values whose
// sums and products are exact; prodGen small factors.
func colltReductions[T pgas.Number](tm *pgas.Team, what string, sizes []int, allRoots bool, gen, prodGen func(salt, r, i int) T) error {
	size := tm.Size()
	for _, n := range sizes {
		roots := colltRoots(size, n, allRoots)
		for k, op := range []pgas.ReduceOp{pgas.Sum, pgas.Prod, pgas.Min, pgas.Max} {
			g := gen
			if op == pgas.Prod {
				g = prodGen
			}
			salt := n*31 + k
			if err := colltReduce(tm, what, op, n, roots, func(r, i int) T { return g(salt, r, i) }, colltRef[T](op)); err != nil {
				return err
			}
		}
	}
	return nil
}

// colltBitwise runs And, Or and Xor of integer T on hashed bit patterns.
func colltBitwise[T colltInt](tm *pgas.Team, what string, sizes []int, allRoots bool) error {
	size := tm.Size()
	for _, n := range sizes {
		roots := colltRoots(size, n, allRoots)
		for k, op := range []pgas.ReduceOp{pgas.And, pgas.Or, pgas.Xor} {
			salt := n*7 + k
			gen := func(r, i int) T {
				h := colltMix(salt, r, i)
				if op == pgas.And {
					// Mostly ones, so that And keeps some bits.
					h |= colltMix(salt+1, r, i) | colltMix(salt+2, r, i)
				}
				return T(h)
			}
			if err := colltReduce(tm, what, op, n, roots, gen, colltBitRef[T](op)); err != nil {
				return err
			}
		}
	}
	return nil
}

// colltMove checks Broadcast and Gather at every root (or the given ones),
// Allgather and Alltoall of n elements per member.
func colltMove[T comparable](tm *pgas.Team, what string, n int, roots []int, gen func(salt, r, i int) T) error {
	size, me := tm.Size(), tm.Rank()
	if roots == nil {
		for r := range size {
			roots = append(roots, r)
		}
	}
	for _, root := range roots {
		salt := n*13 + root
		g := func(r, i int) T { return gen(salt, r, i) }
		// Broadcast: root's values everywhere.
		buf := colltFill(me, n, g)
		if err := pgas.Broadcast(tm, root, buf); err != nil {
			return fmt.Errorf("%s: Broadcast of %d root %d: %w", what, n, root, err)
		}
		if d := colltDiff(buf, colltFill(root, n, g)); d != "" {
			return fmt.Errorf("%s: Broadcast of %d root %d (team size %d) at rank %d: %s", what, n, root, size, me, d)
		}
		// Gather: out is only root's; the others pass nil.
		in := colltFill(me, n, g)
		var out []T
		if me == root {
			out = make([]T, n*size)
		}
		if err := pgas.Gather(tm, root, in, out); err != nil {
			return fmt.Errorf("%s: Gather of %d root %d: %w", what, n, root, err)
		}
		if me == root {
			var want []T
			for r := range size {
				want = append(want, colltFill(r, n, g)...)
			}
			if d := colltDiff(out, want); d != "" {
				return fmt.Errorf("%s: Gather of %d at root %d (team size %d): %s", what, n, root, size, d)
			}
		}
	}
	salt := n*17 + 1
	g := func(r, i int) T { return gen(salt, r, i) }
	in := colltFill(me, n, g)
	out := make([]T, n*size)
	if err := pgas.Allgather(tm, in, out); err != nil {
		return fmt.Errorf("%s: Allgather of %d: %w", what, n, err)
	}
	var want []T
	for r := range size {
		want = append(want, colltFill(r, n, g)...)
	}
	if d := colltDiff(out, want); d != "" {
		return fmt.Errorf("%s: Allgather of %d (team size %d) at rank %d: %s", what, n, size, me, d)
	}
	// Alltoall: block j of rank r's in is elements [j*n, (j+1)*n) of gen(r).
	in = colltFill(me, n*size, g)
	out = make([]T, n*size)
	if err := pgas.Alltoall(tm, in, out); err != nil {
		return fmt.Errorf("%s: Alltoall of %d: %w", what, n, err)
	}
	want = want[:0]
	for r := range size {
		want = append(want, colltFill(r, n*size, g)[me*n:(me+1)*n]...)
	}
	if d := colltDiff(out, want); d != "" {
		return fmt.Errorf("%s: Alltoall of %d per block (team size %d) at rank %d: %s", what, n, size, me, d)
	}
	return nil
}

// Generators. Sum generators give small integers (exact in floating
// point, negative ones for Min/Max); product generators give factors whose
// products stay exact.

func colltGenInt8(salt, r, i int) int8 { return int8(colltMix(salt, r, i)%17) - 8 }
func colltProdInt8(salt, r, i int) int8 {
	return [...]int8{1, -1, 2, -2, 3, 1, -1, 5}[colltMix(salt, r, i)%8]
}
func colltGenInt32(salt, r, i int) int32 { return int32(colltMix(salt, r, i)%2001) - 1000 }
func colltProdInt32(salt, r, i int) int32 {
	return [...]int32{1, -1, 2, -3, 7, 1, -1, 1 << 20}[colltMix(salt, r, i)%8]
}

// colltGenUint64 spans the whole range, high bit included, so that an
// unsigned Min/Max that compares as signed fails.
func colltGenUint64(salt, r, i int) uint64 { return colltMix(salt, r, i) }
func colltProdUint64(salt, r, i int) uint64 {
	return colltMix(salt, r, i) | 1 // wraps; odd so it never reaches 0
}
func colltGenFloat32(salt, r, i int) float32 { return float32(int(colltMix(salt, r, i)%33) - 16) }
func colltProdFloat32(salt, r, i int) float32 {
	return [...]float32{1, -1, 2, -2, 0.5, -0.5, 4, 0.25}[colltMix(salt, r, i)%8]
}
func colltGenFloat64(salt, r, i int) float64 {
	return float64(int(colltMix(salt, r, i)%2049)-1024) / 8 // exact: multiples of 1/8
}
func colltProdFloat64(salt, r, i int) float64 {
	return [...]float64{1, -1, 2, -2, 0.5, -0.5, 1024, 1.0 / 1024}[colltMix(salt, r, i)%8]
}
func colltGenPoint(salt, r, i int) colltPoint {
	h := colltMix(salt, r, i)
	return colltPoint{X: int32(h), Y: float64(int32(h>>32)) / 4, Tag: [3]byte{byte(r), byte(i), byte(salt)}}
}

// colltAllTypes runs every reduction and data movement of every element
// type over tm.
func colltAllTypes(tm *pgas.Team, sizes []int, allRoots bool, what string) error {
	steps := []func() error{
		func() error {
			return colltReductions(tm, what+"/int8", sizes, allRoots, colltGenInt8, colltProdInt8)
		},
		func() error { return colltBitwise[int8](tm, what+"/int8", sizes, allRoots) },
		func() error {
			return colltReductions(tm, what+"/int32", sizes, allRoots, colltGenInt32, colltProdInt32)
		},
		func() error { return colltBitwise[int32](tm, what+"/int32", sizes, allRoots) },
		func() error {
			return colltReductions(tm, what+"/uint64", sizes, allRoots, colltGenUint64, colltProdUint64)
		},
		func() error { return colltBitwise[uint64](tm, what+"/uint64", sizes, allRoots) },
		func() error {
			return colltReductions(tm, what+"/float32", sizes, allRoots, colltGenFloat32, colltProdFloat32)
		},
		func() error {
			return colltReductions(tm, what+"/float64", sizes, allRoots, colltGenFloat64, colltProdFloat64)
		},
	}
	for _, n := range sizes {
		roots := colltRoots(tm.Size(), n, allRoots)
		steps = append(steps,
			func() error { return colltMove(tm, what+"/int8", n, roots, colltGenInt8) },
			func() error { return colltMove(tm, what+"/int32", n, roots, colltGenInt32) },
			func() error { return colltMove(tm, what+"/uint64", n, roots, colltGenUint64) },
			func() error { return colltMove(tm, what+"/float32", n, roots, colltGenFloat32) },
			func() error { return colltMove(tm, what+"/float64", n, roots, colltGenFloat64) },
			func() error { return colltMove(tm, what+"/point", n, roots, colltGenPoint) },
		)
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// TestCollAllSmall runs every collective, type, operator and root with
// small and few-chunk sizes on every job size.
func TestCollAllSmall(t *testing.T) {
	for _, n := range colltPEs {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				return colltAllTypes(pe.World(), colltSmall, true, "world")
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollLarge moves and reduces ~100k elements: far more than one 4 KiB
// Medium payload, so contributions arrive in many chunks.
func TestCollLarge(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				tm := pe.World()
				big := colltLarge[0]
				roots := []int{n - 1}
				salt := func(r, i int) int32 { return colltGenInt32(5, r, i) }
				if err := colltReduce(tm, "large/int32", pgas.Sum, big, roots, salt, colltRef[int32](pgas.Sum)); err != nil {
					return err
				}
				fl := func(r, i int) float64 { return colltGenFloat64(6, r, i) }
				if err := colltReduce(tm, "large/float64", pgas.Max, big, []int{0}, fl, colltRef[float64](pgas.Max)); err != nil {
					return err
				}
				u := func(r, i int) uint64 { return colltMix(7, r, i) }
				if err := colltReduce(tm, "large/uint64", pgas.Xor, big/3, []int{n / 2}, u, colltBitRef[uint64](pgas.Xor)); err != nil {
					return err
				}
				if err := colltMove(tm, "large/int8", big, []int{n / 2}, colltGenInt8); err != nil {
					return err
				}
				// Alltoall and Allgather of big/size per member keep the
				// totals near big.
				return colltMove(tm, "large/point", big/(4*n), []int{0}, colltGenPoint)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollBackToBack issues collectives of different kinds, roots and
// sizes with no barrier between them, and with PEs running ahead by
// varying amounts of local work: only the sequence numbers keep their
// messages apart.
func TestCollBackToBack(t *testing.T) {
	for _, n := range colltPEs {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				tm := pe.World()
				me := pe.Rank()
				sink := 0
				for it := range 40 {
					// Uneven local work: some PEs enter each collective late.
					for k := range int(colltMix(it, me, 0) % 5000) {
						sink += k
					}
					root := it % n
					m := []int{0, 1, 7, 600, 1500}[it%5]
					// Broadcast.
					b := colltFill(me, m, func(r, i int) int64 { return int64(colltMix(it, r, i)) })
					if err := pgas.Broadcast(tm, root, b); err != nil {
						return err
					}
					if d := colltDiff(b, colltFill(root, m, func(r, i int) int64 { return int64(colltMix(it, r, i)) })); d != "" {
						return fmt.Errorf("iteration %d Broadcast: %s", it, d)
					}
					// Reduce to another root, then Allreduce.
					g := func(r, i int) int32 { return colltGenInt32(it, r, i) }
					if err := colltReduce(tm, fmt.Sprint("b2b ", it), pgas.Sum, m, []int{(root + 1) % n}, g, colltRef[int32](pgas.Sum)); err != nil {
						return err
					}
					// Gather and Allgather and Alltoall, one after another.
					if err := colltMove(tm, fmt.Sprint("b2b ", it), m%64, []int{(root + 2) % n}, colltGenFloat32); err != nil {
						return err
					}
					var one [1]uint64
					one[0] = uint64(me + it)
					if err := pgas.Allreduce(tm, pgas.Max, one[:], one[:]); err != nil {
						return err
					}
					if one[0] != uint64(n-1+it) {
						return fmt.Errorf("iteration %d: one-element Max %d, want %d", it, one[0], n-1+it)
					}
				}
				_ = sink
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollTeamsInterleaved runs collectives on several teams, a PE taking
// part in several of them: halves, odd/even, and the world reversed by
// key. Members of different teams interleave them in different orders, so
// contributions for one team arrive while the receiver is inside another
// team's collective.
func TestCollTeamsInterleaved(t *testing.T) {
	for _, n := range []int{2, 3, 5, 7, 8} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				w := pe.World()
				me := pe.Rank()
				half, err := w.Split(me*2/n, me)
				if err != nil {
					return err
				}
				parity, err := w.Split(me%2, -me)
				if err != nil {
					return err
				}
				rev, err := w.Split(0, n-me)
				if err != nil {
					return err
				}
				teams := []*pgas.Team{w, half, parity, rev}
				names := []string{"world", "half", "parity", "reversed"}
				for it := range 12 {
					// World, half and reversed overlap in PEs of both
					// parities, so every PE calls them in one order (which
					// changes between iterations). The parity team goes in
					// at a place that depends on the PE's parity: each
					// parity team's members still agree, and no cycle of
					// waits can form, but odd and even PEs run the teams'
					// collectives in different orders.
					order := []int{0, 1, 3}
					if it%3 == 2 {
						slices.Reverse(order)
					}
					order = slices.Insert(order, (it+me%2*2)%4, 2)
					for _, k := range order {
						tm := teams[k]
						m := []int{1, 3, 700, 1100}[(it+k)%4]
						g := func(r, i int) int64 { return int64(colltMix(it*10+k, tm.GlobalRank(r), i)%1000) - 500 }
						if err := colltReduce(tm, fmt.Sprintf("%s it %d", names[k], it), pgas.Sum, m, []int{it % tm.Size()}, g, colltRef[int64](pgas.Sum)); err != nil {
							return err
						}
						if err := colltMove(tm, fmt.Sprintf("%s it %d", names[k], it), m%50, []int{(it + 1) % tm.Size()}, colltGenUint64); err != nil {
							return err
						}
					}
				}
				for _, tm := range teams[1:] {
					if err := tm.Destroy(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollSubteamAllTypes runs the whole matrix on sub-teams of a 7-PE job
// (sizes 4 and 3, members not contiguous in the world).
func TestCollSubteamAllTypes(t *testing.T) {
	err := pgas.Run(colltConfig(7), func(pe *pgas.PE) error {
		tm, err := pe.World().Split(pe.Rank()%2, pe.Rank())
		if err != nil {
			return err
		}
		if err := colltAllTypes(tm, []int{0, 1, 5, 513}, true, fmt.Sprint("parity ", pe.Rank()%2)); err != nil {
			return err
		}
		return tm.Destroy()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCollErrors checks argument errors that every member makes alike:
// they fail before the collective begins, so later collectives still
// match up.
func TestCollErrors(t *testing.T) {
	for _, n := range []int{1, 3, 4} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				tm := pe.World()
				check := func(what string, err, want error) error {
					if !errors.Is(err, want) {
						return fmt.Errorf("%s: error %v, want %v", what, err, want)
					}
					var perr *pgas.Error
					if !errors.As(err, &perr) {
						return fmt.Errorf("%s: error %T is not a *pgas.Error", what, err)
					}
					return nil
				}
				buf := []int32{1, 2}
				for _, c := range []struct {
					what string
					err  error
					want error
				}{
					{"Broadcast root -1", pgas.Broadcast(tm, -1, buf), pgas.ErrBadPE},
					{"Broadcast root size", pgas.Broadcast(tm, n, buf), pgas.ErrBadPE},
					{"Reduce root size", pgas.Reduce(tm, n, pgas.Sum, buf, buf), pgas.ErrBadPE},
					{"Gather root -1", pgas.Gather(tm, -1, buf, nil), pgas.ErrBadPE},
					{"Broadcast pointers", pgas.Broadcast(tm, 0, []*int{nil}), pgas.ErrArgument},
					{"Allgather pointers", pgas.Allgather(tm, []string{"a"}, make([]string, n)), pgas.ErrArgument},
					{"Allreduce And float", pgas.Allreduce(tm, pgas.And, []float64{1}, make([]float64, 1)), pgas.ErrArgument},
					{"Reduce Xor float32", pgas.Reduce(tm, 0, pgas.Xor, []float32{1}, make([]float32, 1)), pgas.ErrArgument},
					{"Allreduce unknown op", pgas.Allreduce(tm, pgas.ReduceOp(99), buf, buf), pgas.ErrArgument},
					{"Allreduce short out", pgas.Allreduce(tm, pgas.Sum, buf, buf[:1]), pgas.ErrArgument},
					{"Allgather short out", pgas.Allgather(tm, buf, make([]int32, 2*n-1)), pgas.ErrArgument},
					{"Alltoall not a multiple", pgas.Alltoall(tm, make([]int32, n+1), make([]int32, n+1)), pgas.ErrArgument},
					{"Alltoall lengths differ", pgas.Alltoall(tm, make([]int32, n), make([]int32, 2*n)), pgas.ErrArgument},
				} {
					if n == 1 && c.what == "Alltoall not a multiple" {
						continue // every length is a multiple of 1
					}
					if err := check(c.what, c.err, c.want); err != nil {
						return err
					}
				}
				if got := pgas.ReduceOp(99).String(); got != "ReduceOp(99)" {
					return fmt.Errorf("ReduceOp(99).String() = %q", got)
				}
				for op, name := range map[pgas.ReduceOp]string{pgas.Sum: "sum", pgas.Prod: "prod", pgas.Min: "min", pgas.Max: "max", pgas.And: "and", pgas.Or: "or", pgas.Xor: "xor"} {
					if op.String() != name {
						return fmt.Errorf("%d.String() = %q, want %q", op, op.String(), name)
					}
				}
				// The failed calls consumed nothing: collectives still match.
				return colltReduce(tm, "after errors", pgas.Sum, 700, nil, func(r, i int) int64 { return int64(r*1000 + i) }, colltRef[int64](pgas.Sum))
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollChunkBoundaries moves contributions of exactly one, two and
// three 4 KiB Medium payloads and one element either side.
func TestCollChunkBoundaries(t *testing.T) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				tm := pe.World()
				for _, m := range []int{1023, 1024, 1025, 2048, 3072, 3073} { // int32: 4 bytes each
					g := func(r, i int) int32 { return colltGenInt32(m, r, i) }
					if err := colltReduce(tm, "boundary", pgas.Sum, m, []int{n - 1}, g, colltRef[int32](pgas.Sum)); err != nil {
						return err
					}
					if err := colltMove(tm, "boundary", m, []int{1}, colltGenInt32); err != nil {
						return err
					}
				}
				for _, m := range []int{4095, 4096, 4097, 8192} { // bytes
					if err := colltMove(tm, "boundary/int8", m, []int{0}, colltGenInt8); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollManyInFlight lets roots run far ahead: a broadcast root and the
// senders of a gather return as soon as their data is sent, so many
// collectives' contributions queue up at PEs busy elsewhere, beyond the
// active-message credits.
func TestCollManyInFlight(t *testing.T) {
	for _, n := range []int{2, 5} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(colltConfig(n), func(pe *pgas.PE) error {
				tm := pe.World()
				me := pe.Rank()
				const rounds = 150
				sink := 0
				// Root 0 broadcasts rounds times; the others start late.
				if me != 0 {
					for k := range 200000 {
						sink += k
					}
				}
				for it := range rounds {
					b := []int64{0, 0, 0}
					if me == 0 {
						b = []int64{int64(it), int64(-it), int64(it * it)}
					}
					if err := pgas.Broadcast(tm, 0, b); err != nil {
						return err
					}
					if b[0] != int64(it) || b[1] != int64(-it) || b[2] != int64(it*it) {
						return fmt.Errorf("broadcast %d: %v", it, b)
					}
				}
				// Everybody but the last PE gathers at it; it starts late.
				if me == n-1 {
					for k := range 200000 {
						sink += k
					}
				}
				for it := range rounds {
					in := []int32{int32(me*1000 + it)}
					var out []int32
					if me == n-1 {
						out = make([]int32, n)
					}
					if err := pgas.Gather(tm, n-1, in, out); err != nil {
						return err
					}
					if me == n-1 {
						for r, v := range out {
							if v != int32(r*1000+it) {
								return fmt.Errorf("gather %d: %v", it, out)
							}
						}
					}
				}
				_ = sink
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
