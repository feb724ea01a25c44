package pgas_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Every test of this file runs over the three configurations of the
// transport (eachPath): direct load/store, the post-descriptor path, and the
// post-descriptor path with registered local memory demanded (so that the
// bounce and registration paths run).

// rmatGen fills b with pseudo-random bytes determined by seed
// (splitmix64, eight bytes at a time).
func rmatGen(b []byte, seed uint64) {
	x := seed*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], next())
	}
	if i < len(b) {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], next())
		copy(b[i:], w[:])
	}
}

// rmatSource is a fixed random buffer patterns are cut from: generating
// megabytes under the race detector is slow, copying them is not.
var rmatSource = sync.OnceValue(func() []byte {
	b := make([]byte, 4*rmatMiB+rmatShifts)
	rmatGen(b, 42)
	return b
})

const rmatShifts = 4093

// rmatPattern is a read-only n-byte pattern determined by seed; do not
// modify it.
func rmatPattern(n int, seed uint64) []byte {
	src := rmatSource()
	if n > len(src)-rmatShifts {
		b := make([]byte, n)
		rmatGen(b, seed)
		return b
	}
	k := int(seed % rmatShifts)
	return src[k : k+n : k+n]
}

// rmatFill fills b with the pattern of seed.
func rmatFill(b []byte, seed uint64) { copy(b, rmatPattern(len(b), seed)) }

// rmatDiff describes the first difference between got and want.
func rmatDiff(what string, got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s: got %d bytes, want %d", what, len(got), len(want))
	}
	i := 0
	for got[i] == want[i] {
		i++
	}
	j := len(got) - 1
	for got[j] == want[j] {
		j--
	}
	return fmt.Errorf("%s: %d bytes differ in [%d,%d]: first at byte %d: got %#02x, want %#02x", what,
		rmatCountDiff(got, want), i, j, i, got[i], want[i])
}

func rmatCountDiff(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// rmatLocal is n bytes of the PE's segment at off; the offset was checked
// by the allocation.
func rmatLocal(pe *pgas.PE, off, n int64) []byte {
	b, err := pe.Local(off, n)
	if err != nil {
		panic(err)
	}
	return b
}

// rmatPaths are the transport counters that tell which path a transfer
// took.
type rmatPaths struct {
	FMA, BTE, Chunked, PDBounced, Bounced, OneTimeRegs int64
}

func rmatPathsOf(pe *pgas.PE) rmatPaths {
	s := pe.Stats().Transport
	return rmatPaths{s.FMA, s.BTE, s.Chunked, s.PDBounced, s.Bounced, s.OneTimeRegs}
}

func (a rmatPaths) sub(b rmatPaths) rmatPaths {
	return rmatPaths{a.FMA - b.FMA, a.BTE - b.BTE, a.Chunked - b.Chunked, a.PDBounced - b.PDBounced, a.Bounced - b.Bounced, a.OneTimeRegs - b.OneTimeRegs}
}

func (a rmatPaths) add(b rmatPaths) rmatPaths {
	return rmatPaths{a.FMA + b.FMA, a.BTE + b.BTE, a.Chunked + b.Chunked, a.PDBounced + b.PDBounced, a.Bounced + b.Bounced, a.OneTimeRegs + b.OneTimeRegs}
}

// rmatLimits are the transport settings of a job.
type rmatLimits struct{ chunk, fma, pdBounce, bounceCut int64 }

func rmatLimitsOf(c pgas.Config) rmatLimits {
	return rmatLimits{c.ChunkBytes, c.FMARDMACutover, int64(c.PDBounceBytes), c.BounceRegisterCutover}
}

// rmatExpect computes the counters one n-byte transfer moves on the
// post-descriptor path: chunks of at most the chunk size, each by FMA or
// BTE, and (when registration is required and the buffer is not
// registered) each through the descriptor's buffer, a pooled bounce buffer
// or a one-time registration by its size.
func rmatExpect(n int64, l rmatLimits, needReg, registered bool) rmatPaths {
	var p rmatPaths
	if n > l.chunk {
		p.Chunked = 1
	}
	for left := n; left > 0; {
		c := min(left, l.chunk)
		left -= c
		if c > l.fma {
			p.BTE++
		} else {
			p.FMA++
		}
		if needReg && !registered {
			switch {
			case c <= l.pdBounce:
				p.PDBounced++
			case c <= l.bounceCut:
				p.Bounced++
			default:
				p.OneTimeRegs++
			}
		}
	}
	return p
}

// rmatModel tells what the transport of a PE's job does.
type rmatModel struct {
	smp, direct, needReg bool
	lim                  rmatLimits
}

func rmatModelOf(pe *pgas.PE) rmatModel {
	c := pe.Config()
	return rmatModel{
		smp:     pe.Conduit() == "smp",
		direct:  c.Direct == pgas.On,
		needReg: c.RequireRegistration == pgas.On,
		lim:     rmatLimitsOf(c),
	}
}

// check compares the counters a relaxed transfer of n bytes moved with
// what the transport must have done.
func (m rmatModel) check(what string, got rmatPaths, n int64, registered bool) error {
	if !m.smp {
		return nil
	}
	var want rmatPaths
	if !m.direct {
		want = rmatExpect(n, m.lim, m.needReg, registered)
	}
	if got != want {
		return fmt.Errorf("%s: transport paths %+v, want %+v", what, got, want)
	}
	return nil
}

const (
	rmatKiB = 1 << 10
	rmatMiB = 1 << 20
)

// rmatSizeBase is the configuration of the size tests: every cutover set
// explicitly so that the sizes straddle them.
var rmatSizeBase = pgas.Config{
	PEs:                   2,
	SegmentBytes:          16 * rmatMiB,
	ChunkBytes:            64 * rmatKiB,
	FMARDMACutover:        4096,
	PDBounceBytes:         128,
	BounceRegisterCutover: 8192,
	BounceBytes:           256 * rmatKiB,
}

var rmatSizes = []int{
	1, 2, 7, 8, 9, 127, 128, 129, 1000, 4095, 4096, 4097, 8191, 8192, 8193,
	65535, 65536, 65537, 3*65536 + 5, 1 * rmatMiB, 4 * rmatMiB,
}

// rmatMethod is how a transfer is issued and completed.
type rmatMethod int

const (
	rmatBlocking rmatMethod = iota
	rmatNBWait
	rmatNBTest
	rmatNBI
	rmatMethods
)

func (m rmatMethod) String() string {
	return [...]string{"blocking", "nb+wait", "nb+test", "nbi+sync"}[m]
}

func rmatPut(pe *pgas.PE, m rmatMethod, target int, off int64, src []byte) error {
	switch m {
	case rmatBlocking:
		return pe.Put(target, off, src)
	case rmatNBWait, rmatNBTest:
		h, err := pe.PutNB(target, off, src)
		if err != nil {
			return err
		}
		if m == rmatNBWait {
			return h.Wait()
		}
		return testLoop(h)
	default:
		if err := pe.PutNBI(target, off, src); err != nil {
			return err
		}
		return pe.SyncNBIPuts()
	}
}

func rmatGet(pe *pgas.PE, m rmatMethod, target int, off int64, dst []byte) error {
	switch m {
	case rmatBlocking:
		return pe.Get(target, off, dst)
	case rmatNBWait, rmatNBTest:
		h, err := pe.GetNB(target, off, dst)
		if err != nil {
			return err
		}
		if m == rmatNBWait {
			return h.Wait()
		}
		return testLoop(h)
	default:
		if err := pe.GetNBI(target, off, dst); err != nil {
			return err
		}
		return pe.SyncNBIGets()
	}
}

// TestRMASizes moves 1 B .. 4 MiB, straddling the PD bounce size, the FMA
// cutover, the bounce cutover and the chunk size, from buffers inside the
// segment and outside it, with every completion method, and checks both the
// bytes and the transport path each transfer took.
func TestRMASizes(t *testing.T) {
	eachPath(t, rmatSizeBase, func(pe *pgas.PE) error {
		const area = 4*rmatMiB + 64
		m := rmatModelOf(pe)
		remote, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		srcArea, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		dstArea, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		var total rmatPaths
		for i, n := range rmatSizes {
			for _, inSeg := range []bool{true, false} {
				for meth := range rmatMethods {
					// The largest sizes once each, blocking: 1 MiB from the
					// segment, 4 MiB from a Go buffer.
					if n >= rmatMiB && (meth != rmatBlocking || inSeg != (n == rmatMiB)) {
						continue
					}
					seed := uint64(i*100 + int(meth)*2)
					if inSeg {
						seed++
					}
					what := fmt.Sprintf("%d bytes, in segment %v, %v", n, inSeg, meth)
					roff := remote + int64(i%8)
					if pe.Rank() == 1 {
						rmatFill(rmatLocal(pe, roff, int64(n)), seed+5000)
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if pe.Rank() == 0 {
						var src, dst []byte
						if inSeg {
							src = rmatLocal(pe, srcArea+int64(i%3), int64(n))
							dst = rmatLocal(pe, dstArea+int64(i%5), int64(n))
							clear(dst)
						} else {
							src = make([]byte, n)
							dst = make([]byte, n)
						}
						before := rmatPathsOf(pe)
						if err := rmatGet(pe, meth, 1, roff, dst); err != nil {
							return fmt.Errorf("%s: get: %w", what, err)
						}
						d := rmatPathsOf(pe).sub(before)
						if err := m.check(what+": get", d, int64(n), inSeg); err != nil {
							return err
						}
						total = total.add(d)
						if err := rmatDiff(what+": get", dst, rmatPattern(n, seed+5000)); err != nil {
							return err
						}
						rmatFill(src, seed)
						before = rmatPathsOf(pe)
						if err := rmatPut(pe, meth, 1, roff, src); err != nil {
							return fmt.Errorf("%s: put: %w", what, err)
						}
						d = rmatPathsOf(pe).sub(before)
						if err := m.check(what+": put", d, int64(n), inSeg); err != nil {
							return err
						}
						total = total.add(d)
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if pe.Rank() == 1 {
						if err := rmatDiff(what+": put, at the target", rmatLocal(pe, roff, int64(n)), rmatPattern(n, seed)); err != nil {
							return err
						}
					}
				}
			}
		}
		if pe.Rank() == 0 && m.smp && !m.direct {
			// Every path of the transport ran.
			if total.FMA == 0 || total.BTE == 0 || total.Chunked == 0 {
				return fmt.Errorf("not every mechanism ran: %+v", total)
			}
			if m.needReg && (total.PDBounced == 0 || total.Bounced == 0 || total.OneTimeRegs == 0) {
				return fmt.Errorf("not every bounce path ran: %+v", total)
			}
			if !m.needReg && (total.PDBounced != 0 || total.Bounced != 0 || total.OneTimeRegs != 0) {
				return fmt.Errorf("buffers bounced although registration is not required: %+v", total)
			}
		}
		return nil
	})
}

// rmatSmallBase is the configuration of most tests: small cutovers, so that
// modest sizes take every path.
var rmatSmallBase = pgas.Config{
	SegmentBytes:          2 * rmatMiB,
	ChunkBytes:            4096,
	FMARDMACutover:        512,
	PDBounceBytes:         32,
	BounceRegisterCutover: 1024,
	BounceBytes:           64 * rmatKiB,
}

func rmatBase(pes int) pgas.Config {
	c := rmatSmallBase
	c.PEs = pes
	return c
}

// TestRMANonBlocking covers PutNB/GetNB with Wait, Test, WaitAll and
// WaitSome, and the rules of spent handles.
func TestRMANonBlocking(t *testing.T) {
	sizes := []int{1, 8, 33, 500, 513, 1025, 4097, 9000, 3, 16, 2048, 77}
	eachPath(t, rmatBase(3), func(pe *pgas.PE) error {
		const area = 64 * rmatKiB
		me, p := pe.Rank(), pe.Size()
		right, left := (me+1)%p, (me+p-1)%p
		in, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		stage, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		offs := make([]int64, len(sizes))
		var o int64
		for i, n := range sizes {
			offs[i] = o + int64(i%3)
			o += int64(n) + 8
		}
		// Puts to the right neighbour, completed by WaitSome.
		hs := make([]pgas.Handle, len(sizes))
		for i, n := range sizes {
			var src []byte
			if i%2 == 0 {
				src = rmatLocal(pe, stage+offs[i], int64(n))
			} else {
				src = make([]byte, n)
			}
			rmatFill(src, uint64(me*100+i))
			if hs[i], err = pe.PutNB(right, in+offs[i], src); err != nil {
				return err
			}
		}
		seen := make([]bool, len(hs))
		for left := len(hs); left > 0; {
			idx, err := pgas.WaitSome(hs)
			if err != nil {
				return err
			}
			if len(idx) == 0 {
				return fmt.Errorf("WaitSome returned no index with %d handles live", left)
			}
			for _, i := range idx {
				if i < 0 || i >= len(hs) || seen[i] {
					return fmt.Errorf("WaitSome returned index %d twice or out of range (returned %v)", i, idx)
				}
				if hs[i] != (pgas.Handle{}) {
					return fmt.Errorf("WaitSome left entry %d non-zero", i)
				}
				seen[i] = true
				left--
			}
		}
		if idx, err := pgas.WaitSome(hs); err != nil || len(idx) != 0 {
			return fmt.Errorf("WaitSome of zero handles: %v, %v; want nothing", idx, err)
		}
		if idx, err := pgas.WaitSome(nil); err != nil || len(idx) != 0 {
			return fmt.Errorf("WaitSome(nil): %v, %v; want nothing", idx, err)
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i, n := range sizes {
			if err := rmatDiff(fmt.Sprintf("PutNB %d from PE %d", i, left), rmatLocal(pe, in+offs[i], int64(n)), rmatPattern(n, uint64(left*100+i))); err != nil {
				return err
			}
		}
		// Gets back from the right neighbour (what this PE put there),
		// completed by Wait, Test and WaitAll.
		dsts := make([][]byte, len(sizes))
		for i, n := range sizes {
			if i%2 == 1 {
				dsts[i] = rmatLocal(pe, stage+offs[i], int64(n))
				clear(dsts[i])
			} else {
				dsts[i] = make([]byte, n)
			}
			if hs[i], err = pe.GetNB(right, in+offs[i], dsts[i]); err != nil {
				return err
			}
		}
		for i := range hs {
			switch i % 3 {
			case 0:
				err = hs[i].Wait()
			case 1:
				err = testLoop(hs[i])
			}
			if err != nil {
				return err
			}
		}
		var rest []pgas.Handle
		for i := range hs {
			if i%3 == 2 {
				rest = append(rest, hs[i])
			}
		}
		if err := pgas.WaitAll(rest...); err != nil {
			return err
		}
		for i, n := range sizes {
			if err := rmatDiff(fmt.Sprintf("GetNB %d", i), dsts[i], rmatPattern(n, uint64(me*100+i))); err != nil {
				return err
			}
		}
		// Spent and zero handles.
		for i, h := range hs {
			if err := h.Wait(); !errors.Is(err, pgas.ErrHandle) {
				return fmt.Errorf("second Wait of handle %d: %v, want ErrHandle", i, err)
			}
			if _, err := h.Test(); !errors.Is(err, pgas.ErrHandle) {
				return fmt.Errorf("Test of spent handle %d: %v, want ErrHandle", i, err)
			}
		}
		if err := (pgas.Handle{}).Wait(); !errors.Is(err, pgas.ErrHandle) {
			return fmt.Errorf("Wait of the zero Handle: %v, want ErrHandle", err)
		}
		if _, err := (pgas.Handle{}).Test(); !errors.Is(err, pgas.ErrHandle) {
			return fmt.Errorf("Test of the zero Handle: %v, want ErrHandle", err)
		}
		// WaitAll spends every valid handle even when one is spent.
		buf := make([]byte, 16)
		h1, err := pe.GetNB(right, in, buf[:8])
		if err != nil {
			return err
		}
		h2, err := pe.GetNB(right, in+8, buf[8:])
		if err != nil {
			return err
		}
		if err := pgas.WaitAll(h1, hs[0], h2); !errors.Is(err, pgas.ErrHandle) {
			return fmt.Errorf("WaitAll with a spent handle: %v, want ErrHandle", err)
		}
		if err := h2.Wait(); !errors.Is(err, pgas.ErrHandle) {
			return fmt.Errorf("WaitAll did not spend the handle after the spent one: %v", err)
		}
		image := make([]byte, 16)
		copy(image[offs[0]:], rmatPattern(sizes[0], uint64(me*100)))
		copy(image[offs[1]:], rmatPattern(sizes[1], uint64(me*100+1)))
		if err := rmatDiff("gets completed by WaitAll", buf, image); err != nil {
			return err
		}
		// WaitSome with a spent handle among live ones reports ErrHandle.
		h3, err := pe.GetNB(right, in, buf[:8])
		if err != nil {
			return err
		}
		if _, err := pgas.WaitSome([]pgas.Handle{h3, h1}); !errors.Is(err, pgas.ErrHandle) {
			return fmt.Errorf("WaitSome with a spent handle: %v, want ErrHandle", err)
		}
		if err := h3.Wait(); err != nil {
			return err
		}
		return pe.Barrier()
	})
}

// TestRMANBI covers the implicit-handle forms and every way of completing
// them: SyncNBIPuts, SyncNBIGets, SyncNBI, Quiet and Barrier.
func TestRMANBI(t *testing.T) {
	sizes := []int{1, 8, 31, 32, 33, 600, 1024, 1025, 5000, 12345}
	eachPath(t, rmatBase(3), func(pe *pgas.PE) error {
		const area = 32 * rmatKiB
		me, p := pe.Rank(), pe.Size()
		right, left := (me+1)%p, (me+p-1)%p
		in, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		stage, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		mixed, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		offs := make([]int64, len(sizes))
		var o int64
		for i, n := range sizes {
			offs[i] = o + int64(i%5)
			o += int64(n) + 8
		}
		seed := func(round, rank, i int) uint64 { return uint64(round*10000 + rank*100 + i) }
		put := func(round int) error {
			for i, n := range sizes {
				var src []byte
				if (i+round)%2 == 0 {
					src = rmatLocal(pe, stage+offs[i], int64(n))
				} else {
					src = make([]byte, n)
				}
				rmatFill(src, seed(round, me, i))
				if err := pe.PutNBI(right, in+offs[i], src); err != nil {
					return err
				}
			}
			return nil
		}
		checkIn := func(round int, how string) error {
			for i, n := range sizes {
				if err := rmatDiff(fmt.Sprintf("round %d (%s): PutNBI %d from PE %d", round, how, i, left), rmatLocal(pe, in+offs[i], int64(n)), rmatPattern(n, seed(round, left, i))); err != nil {
					return err
				}
			}
			return nil
		}
		// Gets read what this PE put on its right neighbour in a round.
		dsts := make([][]byte, len(sizes))
		get := func(round int) error {
			for i, n := range sizes {
				if (i+round)%2 == 1 {
					dsts[i] = rmatLocal(pe, stage+offs[i], int64(n))
					clear(dsts[i])
				} else {
					dsts[i] = make([]byte, n)
				}
				if err := pe.GetNBI(right, in+offs[i], dsts[i]); err != nil {
					return err
				}
			}
			return nil
		}
		checkGot := func(round int, how string) error {
			for i, n := range sizes {
				if err := rmatDiff(fmt.Sprintf("round %d (%s): GetNBI %d", round, how, i), dsts[i], rmatPattern(n, seed(round, me, i))); err != nil {
					return err
				}
			}
			return nil
		}
		type completion struct {
			name string
			put  func() error // completes the puts before a barrier
			get  func() error // completes the gets
		}
		ways := []completion{
			{"SyncNBIPuts/SyncNBIGets", pe.SyncNBIPuts, pe.SyncNBIGets},
			{"SyncNBI", pe.SyncNBI, pe.SyncNBI},
			{"Quiet", pe.Quiet, pe.Quiet},
			{"Barrier", func() error { return nil }, pe.Barrier},
		}
		for round, w := range ways {
			if err := put(round); err != nil {
				return err
			}
			if err := w.put(); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if err := checkIn(round, w.name); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if err := get(round); err != nil {
				return err
			}
			if err := w.get(); err != nil {
				return err
			}
			if err := checkGot(round, w.name); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		// Puts and gets to different places in flight together, completed
		// by one SyncNBI.
		round := len(ways)
		if err := get(round - 1); err != nil {
			return err
		}
		// The puts go to the left neighbour's mixed area, which nobody
		// reads in this round.
		for i, n := range sizes {
			if err := pe.PutNBI(left, mixed+offs[i], rmatPattern(n, seed(round, me, i))); err != nil {
				return err
			}
		}
		if err := pe.SyncNBI(); err != nil {
			return err
		}
		if err := checkGot(round-1, "mixed SyncNBI"); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i, n := range sizes {
			if err := rmatDiff(fmt.Sprintf("mixed SyncNBI: PutNBI %d from PE %d", i, right), rmatLocal(pe, mixed+offs[i], int64(n)), rmatPattern(n, seed(round, right, i))); err != nil {
				return err
			}
		}
		return pe.Barrier()
	})
}

// TestRMAManyNBI keeps 10000 eight-byte implicit-handle puts, then as many
// gets, in flight: more than the smallest descriptor pool.
func TestRMAManyNBI(t *testing.T) {
	const count = 10000
	base := rmatBase(2)
	base.NumPD = 4096
	eachPath(t, base, func(pe *pgas.PE) error {
		me, peer := pe.Rank(), 1-pe.Rank()
		area, err := pe.Alloc(max(8*count, 2000*300), 0)
		if err != nil {
			return err
		}
		src := rmatPattern(8*count, uint64(me+7))
		for i := range count {
			// Every other put is issued in reverse order, so that the pieces
			// do not arrive in address order.
			j := i
			if i%2 == 1 {
				j = count - i
			}
			if err := pe.PutNBI(peer, area+int64(8*j), src[8*j:8*j+8]); err != nil {
				return fmt.Errorf("put %d: %w", i, err)
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := rmatDiff("10000 NBI puts", rmatLocal(pe, area, 8*count), rmatPattern(8*count, uint64(peer+7))); err != nil {
			return err
		}
		dst := make([]byte, 8*count)
		for i := range count {
			if err := pe.GetNBI(peer, area+int64(8*i), dst[8*i:8*i+8]); err != nil {
				return fmt.Errorf("get %d: %w", i, err)
			}
		}
		if err := pe.SyncNBIGets(); err != nil {
			return err
		}
		if err := rmatDiff("10000 NBI gets", dst, src); err != nil {
			return err
		}
		if m := rmatModelOf(pe); m.smp && !m.direct {
			if s := pe.Stats().Transport; s.PDReclaims == 0 {
				return fmt.Errorf("20000 transfers with 4096 descriptors never reused a completed one: %+v", s)
			} else if m.needReg && s.PDBounced < 2*count {
				return fmt.Errorf("8-byte transfers from a Go buffer were not bounced through descriptors: %+v", s)
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		// Many transfers in flight through the bounce pool (600 bytes: 64
		// pooled buffers) and through one-time registrations (2000 bytes),
		// from and to Go buffers.
		for _, n := range []int{600, 2000} {
			const k = 300
			before := pe.Stats().Transport
			src := rmatPattern(n*k, uint64(n+me))
			for i := range k {
				if err := pe.PutNBI(peer, area+int64(n*i), src[n*i:n*(i+1)]); err != nil {
					return err
				}
			}
			if err := pe.SyncNBIPuts(); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if err := rmatDiff(fmt.Sprintf("%d NBI puts of %d bytes", k, n), rmatLocal(pe, area, int64(n*k)), rmatPattern(n*k, uint64(n+peer))); err != nil {
				return err
			}
			dst := make([]byte, n*k)
			for i := range k {
				if err := pe.GetNBI(peer, area+int64(n*i), dst[n*i:n*(i+1)]); err != nil {
					return err
				}
			}
			if err := pe.SyncNBIGets(); err != nil {
				return err
			}
			if err := rmatDiff(fmt.Sprintf("%d NBI gets of %d bytes", k, n), dst, src); err != nil {
				return err
			}
			if m := rmatModelOf(pe); m.smp && m.needReg {
				s := pe.Stats().Transport
				// The 64 pooled buffers come back from completions, found
				// either when the descriptors run out (a reclaim) or when
				// the buffers do (a wait).
				refills := s.BounceWaits + s.PDReclaims - before.BounceWaits - before.PDReclaims
				if n == 600 && (s.Bounced-before.Bounced != 2*k || refills == 0) {
					return fmt.Errorf("%d-byte transfers: %d bounced, %d refills of the pools; want %d and some", n, s.Bounced-before.Bounced, refills, 2*k)
				}
				if n == 2000 && s.OneTimeRegs-before.OneTimeRegs != 2*k {
					return fmt.Errorf("%d-byte transfers: %d one-time registrations, want %d", n, s.OneTimeRegs-before.OneTimeRegs, 2*k)
				}
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestRMAZeroLength: empty transfers of every form complete and change
// nothing.
func TestRMAZeroLength(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		peer := 1 - pe.Rank()
		off, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		copy(rmatLocal(pe, off, 64), rmatPattern(64, 3))
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := pe.Put(peer, off, nil); err != nil {
			return fmt.Errorf("empty Put: %w", err)
		}
		if err := pe.Get(peer, off+64, []byte{}); err != nil {
			return fmt.Errorf("empty Get at the end of the allocation: %w", err)
		}
		if err := pe.With(pgas.Strict).Put(peer, off, nil); err != nil {
			return fmt.Errorf("empty strict Put: %w", err)
		}
		h, err := pe.PutNB(peer, off, nil)
		if err != nil {
			return err
		}
		if err := h.Wait(); err != nil {
			return fmt.Errorf("empty PutNB: %w", err)
		}
		if err := pe.GetNBI(peer, off, nil); err != nil {
			return err
		}
		if err := pe.SyncNBI(); err != nil {
			return err
		}
		if err := pe.PutV(peer, []pgas.Span{{Off: off, Len: 0}}, [][]byte{{}, nil}); err != nil {
			return fmt.Errorf("empty PutV: %w", err)
		}
		if err := pe.GetV(peer, nil, nil); err != nil {
			return fmt.Errorf("GetV of nothing: %w", err)
		}
		if err := pe.PutIndexed(peer, nil, 8, nil); err != nil {
			return fmt.Errorf("PutIndexed of no blocks: %w", err)
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		return rmatDiff("after empty transfers", rmatLocal(pe, off, 64), rmatPattern(64, 3))
	})
}

// TestRMARegion covers access regions: the implicit-handle operations
// between BeginRegion and EndRegion complete through one Handle.
func TestRMARegion(t *testing.T) {
	sizes := []int{1, 16, 32, 33, 700, 1500, 6000}
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		const area = 16 * rmatKiB
		me, peer := pe.Rank(), 1-pe.Rank()
		in, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		src, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		offs := make([]int64, len(sizes))
		var o int64
		for i, n := range sizes {
			offs[i] = o + int64(i%3)
			o += int64(n) + 8
		}
		// The src area holds a pattern the peer reads; in receives the
		// peer's puts.
		for i, n := range sizes {
			rmatFill(rmatLocal(pe, src+offs[i], int64(n)), uint64(1000+me*100+i))
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		for round, useTest := range []bool{false, true} {
			if err := pe.BeginRegion(); err != nil {
				return err
			}
			if err := pe.BeginRegion(); !errors.Is(err, pgas.ErrArgument) {
				return fmt.Errorf("nested BeginRegion: %v, want ErrArgument", err)
			}
			dsts := make([][]byte, len(sizes))
			for i, n := range sizes {
				if err := pe.PutNBI(peer, in+offs[i], rmatPattern(n, uint64(round*10000+me*100+i))); err != nil {
					return err
				}
				dsts[i] = make([]byte, n)
				if err := pe.GetNBI(peer, src+offs[i], dsts[i]); err != nil {
					return err
				}
			}
			h, err := pe.EndRegion()
			if err != nil {
				return err
			}
			if _, err := pe.EndRegion(); !errors.Is(err, pgas.ErrArgument) {
				return fmt.Errorf("EndRegion without a region: %v, want ErrArgument", err)
			}
			if useTest {
				err = testLoop(h)
			} else {
				err = h.Wait()
			}
			if err != nil {
				return err
			}
			if err := h.Wait(); !errors.Is(err, pgas.ErrHandle) {
				return fmt.Errorf("second Wait of a region handle: %v, want ErrHandle", err)
			}
			for i, n := range sizes {
				if err := rmatDiff(fmt.Sprintf("region %d: GetNBI %d", round, i), dsts[i], rmatPattern(n, uint64(1000+peer*100+i))); err != nil {
					return err
				}
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			for i, n := range sizes {
				if err := rmatDiff(fmt.Sprintf("region %d: PutNBI %d", round, i), rmatLocal(pe, in+offs[i], int64(n)), rmatPattern(n, uint64(round*10000+peer*100+i))); err != nil {
					return err
				}
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		// An empty region has a handle that completes at once.
		if err := pe.BeginRegion(); err != nil {
			return err
		}
		h, err := pe.EndRegion()
		if err != nil {
			return err
		}
		if err := h.Wait(); err != nil {
			return fmt.Errorf("empty region: %w", err)
		}
		// Implicit-handle operations outside the region are not part of it:
		// they still complete at SyncNBI.
		if err := pe.PutNBI(peer, in, []byte{byte(me + 1)}); err != nil {
			return err
		}
		if err := pe.BeginRegion(); err != nil {
			return err
		}
		got := make([]byte, 4)
		if err := pe.GetNBI(peer, src+offs[2], got); err != nil {
			return err
		}
		if h, err = pe.EndRegion(); err != nil {
			return err
		}
		if err := pe.SyncNBI(); err != nil {
			return err
		}
		if err := h.Wait(); err != nil {
			return err
		}
		if err := rmatDiff("region get", got, rmatPattern(sizes[2], uint64(1000+peer*100+2))[:4]); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if b := rmatLocal(pe, in, 1)[0]; b != byte(peer+1) {
			return fmt.Errorf("PutNBI outside a region: got %d, want %d", b, peer+1)
		}
		return nil
	})
}

// rmatSpan is n bytes at off.
type rmatSpan struct{ off, n int64 }

// rmatRand is a small deterministic generator for test shapes.
type rmatRand struct{ x uint64 }

func (r *rmatRand) next() uint64 {
	r.x += 0x9E3779B97F4A7C15
	z := r.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn is in [0, n).
func (r *rmatRand) intn(n int) int { return int(r.next() % uint64(n)) }

// rmatSplit cuts total bytes into k pieces of random lengths (some may be
// empty).
func rmatSplit(r *rmatRand, total, k int) []int {
	cuts := make([]int, 0, k+1)
	cuts = append(cuts, 0, total)
	for range k - 1 {
		cuts = append(cuts, r.intn(total+1))
	}
	slices.Sort(cuts)
	lens := make([]int, k)
	for i := range k {
		lens[i] = cuts[i+1] - cuts[i]
	}
	return lens
}

// TestRMAVector covers PutV/GetV and their NB forms with local pieces that
// do not line up with the remote spans.
func TestRMAVector(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		const area = 64 * rmatKiB
		me, peer := pe.Rank(), 1-pe.Rank()
		remote, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		stage, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		for trial := range 24 {
			r := rmatRand{uint64(trial)}
			// Disjoint remote spans in random order, some empty, some
			// large enough to be chunked.
			nspan := 1 + r.intn(6)
			maxLen := []int{40, 1100, 9000}[trial%3]
			var spans []pgas.Span
			var o int64
			for range nspan {
				o += int64(r.intn(20))
				n := int64(r.intn(maxLen + 1))
				if o+n > area {
					break
				}
				spans = append(spans, pgas.Span{Off: remote + o, Len: n})
				o += n
			}
			for i := len(spans) - 1; i > 0; i-- {
				j := r.intn(i + 1)
				spans[i], spans[j] = spans[j], spans[i]
			}
			var total int64
			for _, s := range spans {
				total += s.Len
			}
			lens := rmatSplit(&r, int(total), 1+r.intn(5))
			nb := trial%2 == 1
			inSeg := trial%4 >= 2
			what := fmt.Sprintf("trial %d: spans %v, local lengths %v, nb %v, in segment %v", trial, spans, lens, nb, inSeg)

			// The target's region starts with a known image.
			image := rmatPattern(int(o)+8, uint64(trial*10+peer))
			mine := rmatPattern(int(o)+8, uint64(trial*10+me))
			copy(rmatLocal(pe, remote, int64(len(mine))), mine)
			if err := pe.Barrier(); err != nil {
				return err
			}
			// GetV reads the spans of the peer's image.
			var flat []byte
			if inSeg {
				flat = rmatLocal(pe, stage, total)
				clear(flat)
			} else {
				flat = make([]byte, total)
			}
			dst := cutBuffers(flat, lens)
			if nb {
				var h pgas.Handle
				h, err = pe.GetVNB(peer, spans, dst)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				err = h.Wait()
			} else {
				err = pe.GetV(peer, spans, dst)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			var want []byte
			for _, s := range spans {
				want = append(want, image[s.Off-remote:s.Off-remote+s.Len]...)
			}
			if err := rmatDiff(what+": GetV", flat, want); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			// PutV writes a fresh pattern to the peer's spans.
			data := rmatPattern(int(total), uint64(trial*10+me+5))
			copy(flat, data)
			src := cutBuffers(flat, lens)
			if nb {
				var h pgas.Handle
				h, err = pe.PutVNB(peer, spans, src)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				err = h.Wait()
			} else {
				err = pe.PutV(peer, spans, src)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			// This PE's region: its own image with the peer's data in the
			// spans, and nothing else changed.
			want = append([]byte(nil), mine...)
			theirs := rmatPattern(int(total), uint64(trial*10+peer+5))
			var k int64
			for _, s := range spans {
				copy(want[s.Off-remote:], theirs[k:k+s.Len])
				k += s.Len
			}
			if err := rmatDiff(what+": PutV at the target", rmatLocal(pe, remote, int64(len(want))), want); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		// Mismatched totals are refused.
		if err := pe.PutV(peer, []pgas.Span{{Off: remote, Len: 4}}, [][]byte{make([]byte, 3)}); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("PutV of 3 bytes to a 4-byte span: %v, want ErrArgument", err)
		}
		if err := pe.GetV(peer, []pgas.Span{{Off: remote, Len: 4}}, [][]byte{make([]byte, 5)}); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("GetV of a 4-byte span into 5 bytes: %v, want ErrArgument", err)
		}
		return pe.Barrier()
	})
}

// TestRMAIndexed covers PutIndexed/GetIndexed and their NB forms: blocks at
// listed offsets, in any order.
func TestRMAIndexed(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		const area = 64 * rmatKiB
		me, peer := pe.Rank(), 1-pe.Rank()
		remote, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		stage, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		for trial := range 16 {
			r := rmatRand{uint64(trial + 100)}
			block := int64([]int{1, 7, 8, 40, 600, 1500}[trial%6])
			slots := int(min(area/block, 40))
			nblk := 1 + r.intn(min(slots, 12))
			perm := make([]int, slots)
			for i := range perm {
				perm[i] = i
			}
			for i := slots - 1; i > 0; i-- {
				j := r.intn(i + 1)
				perm[i], perm[j] = perm[j], perm[i]
			}
			shift := int64(r.intn(8))
			offs := make([]int64, nblk)
			for i := range offs {
				offs[i] = remote + shift + int64(perm[i])*block
			}
			extent := int(shift + int64(slots)*block)
			nb := trial%2 == 1
			inSeg := trial%4 >= 2
			what := fmt.Sprintf("trial %d: %d blocks of %d bytes, nb %v, in segment %v", trial, nblk, block, nb, inSeg)
			image := rmatPattern(extent, uint64(trial*10+peer))
			mine := rmatPattern(extent, uint64(trial*10+me))
			copy(rmatLocal(pe, remote, int64(extent)), mine)
			if err := pe.Barrier(); err != nil {
				return err
			}
			var buf []byte
			if inSeg {
				buf = rmatLocal(pe, stage, block*int64(nblk))
				clear(buf)
			} else {
				buf = make([]byte, block*int64(nblk))
			}
			if nb {
				var h pgas.Handle
				h, err = pe.GetIndexedNB(peer, offs, block, buf)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				err = h.Wait()
			} else {
				err = pe.GetIndexed(peer, offs, block, buf)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			var want []byte
			for _, off := range offs {
				want = append(want, image[off-remote:off-remote+block]...)
			}
			if err := rmatDiff(what+": GetIndexed", buf, want); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			copy(buf, rmatPattern(len(buf), uint64(trial*10+me+5)))
			if nb {
				var h pgas.Handle
				h, err = pe.PutIndexedNB(peer, offs, block, buf)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				err = h.Wait()
			} else {
				err = pe.PutIndexed(peer, offs, block, buf)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			want = append([]byte(nil), mine...)
			theirs := rmatPattern(len(buf), uint64(trial*10+peer+5))
			for i, off := range offs {
				copy(want[off-remote:off-remote+block], theirs[int64(i)*block:])
			}
			if err := rmatDiff(what+": PutIndexed at the target", rmatLocal(pe, remote, int64(extent)), want); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		if err := pe.PutIndexed(peer, []int64{remote, remote + 8}, 8, make([]byte, 15)); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("PutIndexed with a short buffer: %v, want ErrArgument", err)
		}
		if err := pe.GetIndexed(peer, []int64{remote}, 0, nil); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("GetIndexed of 0-byte blocks: %v, want ErrArgument", err)
		}
		return pe.Barrier()
	})
}

// rmatStridedSpans lists the pieces of a strided section at off, as the
// runtime's documentation defines it: count[0] bytes, repeated count[1]
// times at stride strides[0], and so on.
func rmatStridedSpans(off int64, strides, count []int64) []rmatSpan {
	out := []rmatSpan{{off, count[0]}}
	for d := 1; d < len(count); d++ {
		var next []rmatSpan
		for k := range count[d] {
			for _, s := range out {
				next = append(next, rmatSpan{s.off + k*strides[d-1], s.n})
			}
		}
		out = next
	}
	return out
}

// TestRMAStrided covers PutStrided/GetStrided and their NB forms in two and
// three dimensions, with local and remote strides of their own, checking
// every byte of both sides, gaps included.
func TestRMAStrided(t *testing.T) {
	type shape struct {
		count, rstr, lstr []int64
	}
	shapes := []shape{
		{[]int64{5}, nil, nil},
		{[]int64{3, 4}, []int64{10}, []int64{3}},
		{[]int64{8, 16}, []int64{8}, []int64{24}},
		{[]int64{17, 5}, []int64{100}, []int64{20}},
		{[]int64{700, 3}, []int64{1030}, []int64{701}},
		{[]int64{2100, 3}, []int64{2200}, []int64{2100}},
		{[]int64{3, 4, 2}, []int64{7, 40}, []int64{3, 12}},
		{[]int64{1, 5, 3}, []int64{2, 13}, []int64{4, 25}},
		{[]int64{64, 3, 4}, []int64{80, 300}, []int64{64, 200}},
		{[]int64{9, 2, 3, 2}, []int64{11, 30, 100}, []int64{10, 20, 70}},
		{[]int64{1100, 2, 2}, []int64{1200, 2500}, []int64{1101, 2300}},
	}
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		const area = 32 * rmatKiB
		me, peer := pe.Rank(), 1-pe.Rank()
		remote, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		stage, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		for i, sh := range shapes {
			for variant := range 4 {
				nb, inSeg := variant%2 == 1, variant >= 2
				what := fmt.Sprintf("count %v, remote strides %v, local strides %v, nb %v, in segment %v", sh.count, sh.rstr, sh.lstr, nb, inSeg)
				seed := uint64(i*100 + variant*10)
				rbase := remote + int64(i%4)
				rspans := rmatStridedSpans(rbase, sh.rstr, sh.count)
				lspans := rmatStridedSpans(0, sh.lstr, sh.count)
				var rext, lext int64
				for k := range rspans {
					rext = max(rext, rspans[k].off+rspans[k].n-remote)
					lext = max(lext, lspans[k].off+lspans[k].n)
				}
				rext += 5
				lext += 3
				mine := rmatPattern(int(rext), seed+uint64(me))
				image := rmatPattern(int(rext), seed+uint64(peer))
				copy(rmatLocal(pe, remote, rext), mine)
				if err := pe.Barrier(); err != nil {
					return err
				}
				var local []byte
				if inSeg {
					local = rmatLocal(pe, stage+int64(i%3), lext)
				} else {
					local = make([]byte, lext)
				}
				sentinel := rmatPattern(int(lext), seed+7)
				copy(local, sentinel)
				if nb {
					var h pgas.Handle
					h, err = pe.GetStridedNB(peer, rbase, sh.rstr, local, sh.lstr, sh.count)
					if err != nil {
						return fmt.Errorf("%s: %w", what, err)
					}
					err = h.Wait()
				} else {
					err = pe.GetStrided(peer, rbase, sh.rstr, local, sh.lstr, sh.count)
				}
				if err != nil {
					return fmt.Errorf("%s: GetStrided: %w", what, err)
				}
				want := append([]byte(nil), sentinel...)
				for k := range rspans {
					copy(want[lspans[k].off:lspans[k].off+lspans[k].n], image[rspans[k].off-remote:])
				}
				if err := rmatDiff(what+": GetStrided", local, want); err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				data := rmatPattern(int(lext), seed+uint64(me)+3)
				copy(local, data)
				if nb {
					var h pgas.Handle
					h, err = pe.PutStridedNB(peer, rbase, sh.rstr, local, sh.lstr, sh.count)
					if err != nil {
						return fmt.Errorf("%s: %w", what, err)
					}
					err = h.Wait()
				} else {
					err = pe.PutStrided(peer, rbase, sh.rstr, local, sh.lstr, sh.count)
				}
				if err != nil {
					return fmt.Errorf("%s: PutStrided: %w", what, err)
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				theirs := rmatPattern(int(lext), seed+uint64(peer)+3)
				want = append([]byte(nil), mine...)
				for k := range rspans {
					copy(want[rspans[k].off-remote:rspans[k].off-remote+rspans[k].n], theirs[lspans[k].off:])
				}
				if err := rmatDiff(what+": PutStrided at the target", rmatLocal(pe, remote, rext), want); err != nil {
					return err
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
			}
		}
		// A zero remote stride reads the same bytes into every local row.
		row := rmatPattern(10, uint64(77+peer))
		copy(rmatLocal(pe, remote, 10), rmatPattern(10, uint64(77+me)))
		if err := pe.Barrier(); err != nil {
			return err
		}
		rows := make([]byte, 40)
		if err := pe.GetStrided(peer, remote, []int64{0}, rows, []int64{10}, []int64{10, 4}); err != nil {
			return err
		}
		if err := rmatDiff("GetStrided with remote stride 0", rows, bytes.Repeat(row, 4)); err != nil {
			return err
		}
		// Bad shapes are refused.
		if err := pe.PutStrided(peer, remote, []int64{8}, rows, nil, []int64{4, 2}); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("PutStrided with a missing local stride: %v, want ErrArgument", err)
		}
		if err := pe.GetStrided(peer, remote, []int64{8}, rows, []int64{8}, []int64{4, 0}); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("GetStrided with a zero count: %v, want ErrArgument", err)
		}
		if err := pe.GetStrided(peer, remote, []int64{8}, rows, []int64{33}, []int64{8, 2}); !errors.Is(err, pgas.ErrRange) {
			return fmt.Errorf("GetStrided beyond the local buffer: %v, want ErrRange", err)
		}
		return pe.Barrier()
	})
}

// rmatRec is a small struct element with padding inside.
type rmatRec struct {
	A int32
	B uint8
	C float64
	D [3]uint16
}

// rmatArray exercises every typed form of Array[T] between each PE and its
// right neighbour; val(owner, step, i) is the element a PE writes.
func rmatArray[T comparable](pe *pgas.PE, val func(rank, step, i int) T) error {
	const n = 96
	me, p := pe.Rank(), pe.Size()
	right, left := (me+1)%p, (me+p-1)%p
	a, err := pgas.NewArray[T](pe, n)
	if err != nil {
		return err
	}
	if a.Len() != n {
		return fmt.Errorf("Len %d, want %d", a.Len(), n)
	}
	loc := a.Local()
	var zero T
	for i, v := range loc {
		if v != zero {
			return fmt.Errorf("new array element %d is %v, not zero", i, v)
		}
	}
	// Nobody writes before everybody has checked.
	if err := pe.Barrier(); err != nil {
		return err
	}
	vals := func(rank, step, from, k int) []T {
		out := make([]T, k)
		for i := range out {
			out[i] = val(rank, step, from+i)
		}
		return out
	}
	check := func(what string, got, want []T) error {
		for i := range want {
			if got[i] != want[i] {
				return fmt.Errorf("%s: element %d is %v, want %v", what, i, got[i], want[i])
			}
		}
		return nil
	}
	// Each step writes the left part of the right neighbour's array in one
	// form, reads it back in the matching form, and the owner checks.
	type step struct {
		name string
		put  func(src []T) error // writes src to elements [0, len(src)) of right
		get  func(dst []T) error // reads elements [0, len(dst)) of right
	}
	steps := []step{
		{"Put/Get",
			func(src []T) error { return a.Put(right, 0, src) },
			func(dst []T) error { return a.Get(right, 0, dst) }},
		{"PutNB/GetNB",
			func(src []T) error {
				h, err := a.PutNB(right, 0, src)
				if err != nil {
					return err
				}
				return h.Wait()
			},
			func(dst []T) error {
				h, err := a.GetNB(right, 0, dst)
				if err != nil {
					return err
				}
				return h.Wait()
			}},
		{"PutNBI/GetNBI",
			func(src []T) error {
				// In two halves, completed together.
				if err := a.PutNBI(right, 0, src[:len(src)/2]); err != nil {
					return err
				}
				if err := a.PutNBI(right, len(src)/2, src[len(src)/2:]); err != nil {
					return err
				}
				return pe.SyncNBIPuts()
			},
			func(dst []T) error {
				if err := a.GetNBI(right, 0, dst[:len(dst)/2]); err != nil {
					return err
				}
				if err := a.GetNBI(right, len(dst)/2, dst[len(dst)/2:]); err != nil {
					return err
				}
				return pe.SyncNBIGets()
			}},
		{"PutValue/GetValue",
			func(src []T) error {
				for i, v := range src {
					if err := a.PutValue(right, i, v); err != nil {
						return err
					}
				}
				return nil
			},
			func(dst []T) error {
				for i := range dst {
					v, err := a.GetValue(right, i)
					if err != nil {
						return err
					}
					dst[i] = v
				}
				return nil
			}},
		{"pgas.PutValue/GetValue with GPtr",
			func(src []T) error {
				p := a.At(right, 0)
				for _, v := range src {
					if err := pgas.PutValue(pe, p, v); err != nil {
						return err
					}
					p = p.Add(1)
				}
				return nil
			},
			func(dst []T) error {
				for i := range dst {
					v, err := pgas.GetValue(pe, pgas.Ptr[T](right, a.At(right, i).Off))
					if err != nil {
						return err
					}
					dst[i] = v
				}
				return nil
			}},
		{"PutIndexed/GetIndexed",
			func(src []T) error {
				// Reversed indices with reversed values.
				idx := make([]int, len(src))
				rev := make([]T, len(src))
				for i := range src {
					idx[i] = len(src) - 1 - i
					rev[i] = src[len(src)-1-i]
				}
				return a.PutIndexed(right, idx, rev)
			},
			func(dst []T) error {
				// Odd indices first, then even ones.
				var idx []int
				for i := 1; i < len(dst); i += 2 {
					idx = append(idx, i)
				}
				for i := 0; i < len(dst); i += 2 {
					idx = append(idx, i)
				}
				tmp := make([]T, len(dst))
				if err := a.GetIndexed(right, idx, tmp); err != nil {
					return err
				}
				for k, i := range idx {
					dst[i] = tmp[k]
				}
				return nil
			}},
		{"PutStrided/GetStrided",
			func(src []T) error {
				// Even elements, then odd elements.
				var even, odd []T
				for i, v := range src {
					if i%2 == 0 {
						even = append(even, v)
					} else {
						odd = append(odd, v)
					}
				}
				if err := a.PutStrided(right, 0, 2, even); err != nil {
					return err
				}
				return a.PutStrided(right, 1, 2, odd)
			},
			func(dst []T) error {
				third := make([]T, (len(dst)+2)/3)
				for r := range 3 {
					k := (len(dst) - r + 2) / 3
					if err := a.GetStrided(right, r, 3, third[:k]); err != nil {
						return err
					}
					for j := range k {
						dst[r+3*j] = third[j]
					}
				}
				return nil
			}},
	}
	for si, st := range steps {
		k := 40 + si
		src := vals(me, si, 0, k)
		if err := st.put(src); err != nil {
			return fmt.Errorf("%s: put: %w", st.name, err)
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := check(st.name+": put, at the target", loc[:k], vals(left, si, 0, k)); err != nil {
			return err
		}
		// The rest of the array is untouched by this step.
		for i := k; i < n; i++ {
			if loc[i] != zero {
				return fmt.Errorf("%s: element %d beyond the put is %v", st.name, i, loc[i])
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		dst := make([]T, k)
		if err := st.get(dst); err != nil {
			return fmt.Errorf("%s: get: %w", st.name, err)
		}
		if err := check(st.name+": get", dst, src); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		clear(loc)
		if err := pe.Barrier(); err != nil {
			return err
		}
	}
	// The last element, through Local and GPtr.
	loc[n-1] = val(me, 99, n-1)
	if err := pe.Barrier(); err != nil {
		return err
	}
	if v, err := pgas.GetValue(pe, a.At(right, n-1)); err != nil || v != val(right, 99, n-1) {
		return fmt.Errorf("GetValue of the last element: %v, %v; want %v", v, err, val(right, 99, n-1))
	}
	// Bad indices and ranks are refused.
	if err := a.Put(right, n-1, make([]T, 2)); !errors.Is(err, pgas.ErrRange) {
		return fmt.Errorf("Put past the end: %v, want ErrRange", err)
	}
	if _, err := a.GetValue(right, -1); !errors.Is(err, pgas.ErrRange) {
		return fmt.Errorf("GetValue(-1): %v, want ErrRange", err)
	}
	if err := a.Get(p, 0, make([]T, 1)); !errors.Is(err, pgas.ErrBadPE) {
		return fmt.Errorf("Get from PE %d: %v, want ErrBadPE", p, err)
	}
	if err := a.PutStrided(right, 0, 0, make([]T, 2)); !errors.Is(err, pgas.ErrArgument) {
		return fmt.Errorf("PutStrided with stride 0: %v, want ErrArgument", err)
	}
	if err := a.GetStrided(right, 0, 2, make([]T, n/2+1)); !errors.Is(err, pgas.ErrRange) {
		return fmt.Errorf("GetStrided past the end: %v, want ErrRange", err)
	}
	if err := a.PutIndexed(right, []int{0, n}, make([]T, 2)); !errors.Is(err, pgas.ErrRange) {
		return fmt.Errorf("PutIndexed past the end: %v, want ErrRange", err)
	}
	if err := a.GetIndexed(right, []int{0}, make([]T, 2)); !errors.Is(err, pgas.ErrArgument) {
		return fmt.Errorf("GetIndexed with too few indices: %v, want ErrArgument", err)
	}
	if err := pe.Barrier(); err != nil {
		return err
	}
	return a.Free()
}

// TestRMAArrayTyped covers the typed forms of Array for int64, float64 and a
// struct.
func TestRMAArrayTyped(t *testing.T) {
	eachPath(t, rmatBase(3), func(pe *pgas.PE) error {
		if err := rmatArray(pe, func(r, s, i int) int64 {
			return int64(r+1)*1_000_003 - int64(s)*7919*int64(i+1) - 1<<40
		}); err != nil {
			return fmt.Errorf("int64: %w", err)
		}
		if err := rmatArray(pe, func(r, s, i int) float64 {
			return float64(r+1)*1e10 + float64(s) - float64(i)/8 + 0.5
		}); err != nil {
			return fmt.Errorf("float64: %w", err)
		}
		if err := rmatArray(pe, func(r, s, i int) rmatRec {
			return rmatRec{A: int32(-r*1000 - i - 1), B: uint8(s*31 + i), C: float64(i) / 3, D: [3]uint16{uint16(r), uint16(s), uint16(i + 1)}}
		}); err != nil {
			return fmt.Errorf("struct: %w", err)
		}
		if err := rmatArray(pe, func(r, s, i int) [3]byte { return [3]byte{byte(r + 1), byte(s), byte(i)} }); err != nil {
			return fmt.Errorf("[3]byte: %w", err)
		}
		return nil
	})
}

// TestRMAStrict covers the strict access mode: Accessor.With(Strict),
// SetDefaultAccess and Array.With give correct results, for sizes on
// every path.
func TestRMAStrict(t *testing.T) {
	sizes := []int{1, 12, 13, 40, 1032, 5000, 20000}
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		const area = 64 * rmatKiB
		me, peer := pe.Rank(), 1-pe.Rank()
		remote, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		stage, err := pe.Alloc(area, 0)
		if err != nil {
			return err
		}
		strict := pe.With(pgas.Strict)
		if strict.Mode() != pgas.Strict || pe.With(pgas.Relaxed).Mode() != pgas.Relaxed {
			return fmt.Errorf("With: modes %v and %v", strict.Mode(), pe.With(pgas.Relaxed).Mode())
		}
		if pe.DefaultAccess() != pgas.Relaxed {
			return fmt.Errorf("default access %v, want relaxed", pe.DefaultAccess())
		}
		type way struct {
			name string
			put  func(target int, off int64, src []byte) error
			get  func(target int, off int64, dst []byte) error
			set  pgas.Mode // default access mode during the way
		}
		ways := []way{
			{"With(Strict)", strict.Put, strict.Get, pgas.Relaxed},
			{"SetDefaultAccess(Strict)", pe.Put, pe.Get, pgas.Strict},
			{"SetDefaultAccess(Strict) NB", func(tg int, off int64, src []byte) error {
				h, err := pe.PutNB(tg, off, src)
				if err != nil {
					return err
				}
				return h.Wait()
			}, func(tg int, off int64, dst []byte) error {
				h, err := pe.GetNB(tg, off, dst)
				if err != nil {
					return err
				}
				return h.Wait()
			}, pgas.Strict},
			{"With(Strict) NBI", func(tg int, off int64, src []byte) error {
				if err := strict.PutNBI(tg, off, src); err != nil {
					return err
				}
				return pe.SyncNBIPuts()
			}, func(tg int, off int64, dst []byte) error {
				if err := strict.GetNBI(tg, off, dst); err != nil {
					return err
				}
				return pe.SyncNBIGets()
			}, pgas.Relaxed},
			{"With(Strict) PutV/GetV", func(tg int, off int64, src []byte) error {
				h := len(src) / 2
				return strict.PutV(tg, []pgas.Span{{Off: off + int64(h), Len: int64(len(src) - h)}, {Off: off, Len: int64(h)}}, [][]byte{src[h:], src[:h]})
			}, func(tg int, off int64, dst []byte) error {
				return strict.GetV(tg, []pgas.Span{{Off: off, Len: int64(len(dst))}}, [][]byte{dst})
			}, pgas.Relaxed},
		}
		for wi, w := range ways {
			if err := pe.SetDefaultAccess(w.set); err != nil {
				return err
			}
			if pe.DefaultAccess() != w.set {
				return fmt.Errorf("DefaultAccess %v after setting %v", pe.DefaultAccess(), w.set)
			}
			for i, n := range sizes {
				for _, inSeg := range []bool{false, true} {
					what := fmt.Sprintf("%s: %d bytes, in segment %v", w.name, n, inSeg)
					seed := uint64(wi*1000 + i*10)
					if inSeg {
						seed += 5
					}
					off := remote + int64(i%3)*4 + int64(i%2)
					var src, dst []byte
					if inSeg {
						src = rmatLocal(pe, stage, int64(n))
						dst = rmatLocal(pe, stage+int64(n)+8, int64(n))
						clear(dst)
					} else {
						src, dst = make([]byte, n), make([]byte, n)
					}
					copy(src, rmatPattern(n, seed+uint64(me)))
					if err := w.put(peer, off, src); err != nil {
						return fmt.Errorf("%s: put: %w", what, err)
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := rmatDiff(what+": put, at the target", rmatLocal(pe, off, int64(n)), rmatPattern(n, seed+uint64(peer))); err != nil {
						return err
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					if err := w.get(peer, off, dst); err != nil {
						return fmt.Errorf("%s: get: %w", what, err)
					}
					if err := rmatDiff(what+": get", dst, rmatPattern(n, seed+uint64(me))); err != nil {
						return err
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
				}
			}
		}
		if err := pe.SetDefaultAccess(pgas.Mode(0)); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("SetDefaultAccess(0): %v, want ErrArgument", err)
		}
		if err := pe.SetDefaultAccess(pgas.Relaxed); err != nil {
			return err
		}
		// Array.With(Strict).
		a, err := pgas.NewArray[int64](pe, 64)
		if err != nil {
			return err
		}
		sa := a.With(pgas.Strict)
		src := make([]int64, 64)
		for i := range src {
			src[i] = int64(me*1000+i) - 500
		}
		if err := sa.Put(peer, 0, src[:32]); err != nil {
			return err
		}
		for i := 32; i < 64; i++ {
			if err := sa.PutValue(peer, i, src[i]); err != nil {
				return err
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i, v := range a.Local() {
			if want := int64(peer*1000+i) - 500; v != want {
				return fmt.Errorf("Array.With(Strict) put: element %d is %d, want %d", i, v, want)
			}
		}
		got := make([]int64, 64)
		if err := sa.Get(peer, 0, got); err != nil {
			return err
		}
		v, err := sa.GetValue(peer, 63)
		if err != nil {
			return err
		}
		if !slices.Equal(got, src) || v != src[63] {
			return fmt.Errorf("Array.With(Strict) get: %v / %d, want %v", got, v, src)
		}
		return pe.Barrier()
	})
}

// TestRMAStrictMessagePassing: PE 0 strict-puts data then a flag to PE 2;
// PE 1 polls the flag with strict gets, then reads the data: it must always
// see the data of the round the flag announces.
func TestRMAStrictMessagePassing(t *testing.T) {
	const rounds = 300
	sizes := []int{8, 13, 64, 1000, 4096, 5003, 16384}
	base := rmatBase(3)
	for _, ord := range []pgas.Ordering{pgas.OrderDefault, pgas.OrderRelaxed} {
		base.Ordering = ord
		t.Run(fmt.Sprint(ord), func(t *testing.T) {
			eachPath(t, base, func(pe *pgas.PE) error {
				const host = 2
				strict := pe.With(pgas.Strict)
				data, err := pe.Alloc(32*rmatKiB, 0)
				if err != nil {
					return err
				}
				words, err := pe.Alloc(64, 0)
				if err != nil {
					return err
				}
				flag, ack := words, words+8
				word := make([]byte, 8)
				poll := func(target int, off int64, want uint64) error {
					for i := 0; ; i++ {
						if err := strict.Get(target, off, word); err != nil {
							return err
						}
						if binary.LittleEndian.Uint64(word) == want {
							return nil
						}
						if err := pe.Poll(); err != nil {
							return err
						}
						runtime.Gosched() // more PEs than processors
						if i > 1e8 {
							return fmt.Errorf("flag never reached %d", want)
						}
					}
				}
				switch pe.Rank() {
				case 0:
					for r := 1; r <= rounds; r++ {
						n := sizes[r%len(sizes)]
						off := data + int64(r%5)
						// The data in two puts (strict; relaxed blocking;
						// implicit-handle, not synced; non-blocking, not
						// waited for), then the flag, strict: it completes
						// the data first.
						payload := rmatPattern(n, uint64(r))
						var hs []pgas.Handle
						for k, part := range [][]byte{payload[:n/2], payload[n/2:]} {
							o := off + int64(k*(n/2))
							switch r % 4 {
							case 0:
								err = strict.Put(host, o, part)
							case 1:
								err = pe.Put(host, o, part)
							case 2:
								err = pe.PutNBI(host, o, part)
							case 3:
								var h pgas.Handle
								h, err = pe.PutNB(host, o, part)
								hs = append(hs, h)
							}
							if err != nil {
								return err
							}
						}
						binary.LittleEndian.PutUint64(word, uint64(r))
						if err := strict.Put(host, flag, word); err != nil {
							return err
						}
						if err := poll(0, ack, uint64(r)); err != nil {
							return err
						}
						if err := pgas.WaitAll(hs...); err != nil {
							return err
						}
					}
				case 1:
					for r := 1; r <= rounds; r++ {
						n := sizes[r%len(sizes)]
						off := data + int64(r%5)
						if err := poll(host, flag, uint64(r)); err != nil {
							return err
						}
						got := make([]byte, n)
						// Relaxed, strict, non-blocking and
						// implicit-handle reads of the data take turns.
						switch (r / 4) % 4 {
						case 0:
							err = pe.Get(host, off, got)
						case 1:
							err = strict.Get(host, off, got)
						case 2:
							var h pgas.Handle
							if h, err = pe.GetNB(host, off, got); err == nil {
								err = h.Wait()
							}
						case 3:
							if err = pe.GetNBI(host, off, got); err == nil {
								err = pe.SyncNBIGets()
							}
						}
						if err != nil {
							return err
						}
						if err := rmatDiff(fmt.Sprintf("round %d: data after the flag", r), got, rmatPattern(n, uint64(r))); err != nil {
							return err
						}
						binary.LittleEndian.PutUint64(word, uint64(r))
						if err := strict.Put(0, ack, word); err != nil {
							return err
						}
					}
				}
				return pe.Barrier()
			})
		})
	}
}

// TestRMAErrors: bad ranks and ranges are reported, never panic.
func TestRMAErrors(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		seg := pe.Config().SegmentBytes
		buf := make([]byte, 16)
		checks := []struct {
			name string
			err  error
			want error
		}{
			{"Put to PE -1", pe.Put(-1, pgas.ReservedBytes, buf), pgas.ErrBadPE},
			{"Get from PE 2", pe.Get(2, pgas.ReservedBytes, buf), pgas.ErrBadPE},
			{"Put past the segment", pe.Put(1, seg-8, buf), pgas.ErrRange},
			{"Get at a negative offset", pe.Get(1, -1, buf), pgas.ErrRange},
			{"strict Put past the segment", pe.With(pgas.Strict).Put(1, seg, buf[:1]), pgas.ErrRange},
			{"PutNBI past the segment", pe.PutNBI(0, seg-1, buf[:2]), pgas.ErrRange},
			{"PutV span past the segment", pe.PutV(1, []pgas.Span{{Off: seg - 4, Len: 8}}, [][]byte{buf[:8]}), pgas.ErrRange},
			{"GetIndexed block past the segment", pe.GetIndexed(1, []int64{0, seg - 4}, 8, buf), pgas.ErrRange},
		}
		for _, c := range checks {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			}
			var perr *pgas.Error
			if !errors.As(c.err, &perr) {
				return fmt.Errorf("%s: %T is not a *pgas.Error", c.name, c.err)
			}
		}
		if _, err := pe.GetNB(5, 0, buf); !errors.Is(err, pgas.ErrBadPE) {
			return fmt.Errorf("GetNB from PE 5: %v, want ErrBadPE", err)
		}
		if _, err := pe.Local(seg-4, 8); !errors.Is(err, pgas.ErrRange) {
			return fmt.Errorf("Local past the segment: %v, want ErrRange", err)
		}
		return pe.Barrier()
	})
}

// TestRMAWaitSomeDuplicate: a handle listed twice in WaitSome is completed
// once; the handles issued afterwards stay independent.
func TestRMAWaitSomeDuplicate(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		me, peer := pe.Rank(), 1-pe.Rank()
		off, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		copy(rmatLocal(pe, off, 64), rmatPattern(64, uint64(me)))
		if err := pe.Barrier(); err != nil {
			return err
		}
		h, err := pe.GetNB(peer, off, make([]byte, 8))
		if err != nil {
			return err
		}
		hs := []pgas.Handle{h, h}
		idx, err := pgas.WaitSome(hs)
		if err != nil && !errors.Is(err, pgas.ErrHandle) {
			return fmt.Errorf("WaitSome with a duplicate: %w", err)
		}
		if len(idx) == 0 {
			return fmt.Errorf("WaitSome with a duplicate completed nothing (err %v)", err)
		}
		// Two fresh operations, each with its own handle and buffer.
		a, b := make([]byte, 16), make([]byte, 16)
		ha, err := pe.GetNB(peer, off, a)
		if err != nil {
			return err
		}
		hb, err := pe.GetNB(peer, off+16, b)
		if err != nil {
			return err
		}
		if err := ha.Wait(); err != nil {
			return fmt.Errorf("first handle issued after WaitSome([h, h]): %w", err)
		}
		if err := hb.Wait(); err != nil {
			return fmt.Errorf("second handle issued after WaitSome([h, h]): %w", err)
		}
		want := rmatPattern(64, uint64(peer))
		if err := rmatDiff("first get", a, want[:16]); err != nil {
			return err
		}
		if err := rmatDiff("second get", b, want[16:32]); err != nil {
			return err
		}
		// Fetching atomics deliver their own results.
		w, err := pgas.NewArray[int64](pe, 2)
		if err != nil {
			return err
		}
		h, err = pgas.AtomicNB(pe, pgas.AtomicAdd, w.At(peer, 0), 0)
		if err != nil {
			return err
		}
		_, _ = pgas.WaitSome([]pgas.Handle{h, h})
		var r1, r2 int64 = -1, -1
		h1, err := pgas.FetchAtomicNB(pe, pgas.AtomicAdd, w.At(me, 0), 5, &r1)
		if err != nil {
			return err
		}
		h2, err := pgas.FetchAtomicNB(pe, pgas.AtomicAdd, w.At(me, 1), 7, &r2)
		if err != nil {
			return err
		}
		err1, err2 := h1.Wait(), h2.Wait()
		if err1 != nil || err2 != nil || r1 != 0 || r2 != 0 {
			return fmt.Errorf("fetching atomics after WaitSome([h, h]): errors %v, %v; results %d, %d (want 0, 0)", err1, err2, r1, r2)
		}
		return pe.Barrier()
	})
}

// TestRMACutoverExtremes runs transfers with the transport's cutovers at
// their limits: descriptor bounce buffers of one byte, and a bounce pool of
// two buffers of the largest size, with many transfers in flight.
func TestRMACutoverExtremes(t *testing.T) {
	sizes := []int{1, 2, 7, 8, 9, 100, 4096, 4097, 20000, 32768, 40000}
	for _, lim := range []struct {
		name string
		cfg  pgas.Config
	}{
		{"tiny", pgas.Config{PDBounceBytes: 1, BounceRegisterCutover: 1, BounceBytes: 64 * rmatKiB, FMARDMACutover: 1, ChunkBytes: 4096}},
		{"two-buffers", pgas.Config{PDBounceBytes: 128, BounceRegisterCutover: 32 * rmatKiB, BounceBytes: 64 * rmatKiB, FMARDMACutover: 1 << 30, ChunkBytes: 64 * rmatKiB}},
	} {
		t.Run(lim.name, func(t *testing.T) {
			base := lim.cfg
			base.PEs = 2
			base.SegmentBytes = 2 * rmatMiB
			eachPath(t, base, func(pe *pgas.PE) error {
				me, peer := pe.Rank(), 1-pe.Rank()
				m := rmatModelOf(pe)
				offs := make([]int64, len(sizes))
				var total int64
				for i, n := range sizes {
					offs[i] = total
					total += int64(n) + 3
				}
				area, err := pe.Alloc(total, 0)
				if err != nil {
					return err
				}
				// Blocking, one at a time, with the exact path checked.
				for i, n := range sizes {
					src := rmatPattern(n, uint64(i*10+me))
					before := rmatPathsOf(pe)
					if err := pe.Put(peer, area+offs[i], src); err != nil {
						return err
					}
					if err := m.check(fmt.Sprintf("put of %d bytes", n), rmatPathsOf(pe).sub(before), int64(n), false); err != nil {
						return err
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				for i, n := range sizes {
					if err := rmatDiff(fmt.Sprintf("put of %d bytes", n), rmatLocal(pe, area+offs[i], int64(n)), rmatPattern(n, uint64(i*10+peer))); err != nil {
						return err
					}
				}
				// All at once, implicit-handle, twice over.
				dst := make([][]byte, 2*len(sizes))
				for k := range dst {
					i := k % len(sizes)
					dst[k] = make([]byte, sizes[i])
					if err := pe.GetNBI(peer, area+offs[i], dst[k]); err != nil {
						return err
					}
				}
				if err := pe.Quiet(); err != nil {
					return err
				}
				for k := range dst {
					i := k % len(sizes)
					if err := rmatDiff(fmt.Sprintf("NBI get of %d bytes", sizes[i]), dst[k], rmatPattern(sizes[i], uint64(i*10+me))); err != nil {
						return err
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				return nil
			})
		})
	}
}

// TestRMAOverlappingLocal: a transfer whose local buffer overlaps its
// remote range (a PE moving bytes within its own segment) behaves like
// copy, the same in every configuration.
func TestRMAOverlappingLocal(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		me := pe.Rank()
		off, err := pe.Alloc(4096, 0)
		if err != nil {
			return err
		}
		for _, c := range []struct {
			name     string
			put      bool
			from, to int64
			n        int
		}{
			{"Put forwards by 1", true, 0, 1, 64},
			{"Put forwards by 9", true, 0, 9, 1000},
			{"Put backwards by 3", true, 3, 0, 100},
			{"Get forwards by 1", false, 0, 1, 64},
			{"Get backwards by 5", false, 5, 0, 300},
		} {
			b := rmatLocal(pe, off, 2048)
			for i := range b {
				b[i] = byte(i)
			}
			want := slices.Clone(b)
			copy(want[c.to:], want[c.from:c.from+int64(c.n)])
			if c.put {
				err = pe.Put(me, off+c.to, rmatLocal(pe, off+c.from, int64(c.n)))
			} else {
				err = pe.Get(me, off+c.from, rmatLocal(pe, off+c.to, int64(c.n)))
			}
			if err != nil {
				return err
			}
			if err := rmatDiff(c.name, b, want); err != nil {
				return err
			}
		}
		return pe.Barrier()
	})
}

// TestRMAStridedLocalStrideZero: a strided put may read one local row for
// every remote row (local stride 0), however many rows there are.
func TestRMAStridedLocalStrideZero(t *testing.T) {
	eachPath(t, rmatBase(2), func(pe *pgas.PE) error {
		me, peer := pe.Rank(), 1-pe.Rank()
		off, err := pe.Alloc(256, 0)
		if err != nil {
			return err
		}
		for _, c0 := range []int64{1, 3, 4, 8} {
			clear(rmatLocal(pe, off, 256))
			if err := pe.Barrier(); err != nil {
				return err
			}
			row := rmatPattern(int(c0), uint64(c0)+uint64(me))
			// Five copies of the row, 10 bytes apart.
			if err := pe.PutStrided(peer, off, []int64{10}, row, []int64{0}, []int64{c0, 5}); err != nil {
				return fmt.Errorf("PutStrided of one %d-byte row five times: %w", c0, err)
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			want := make([]byte, 256)
			theirs := rmatPattern(int(c0), uint64(c0)+uint64(peer))
			for k := range 5 {
				copy(want[10*k:], theirs)
			}
			if err := rmatDiff(fmt.Sprintf("one %d-byte row five times", c0), rmatLocal(pe, off, 256), want); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
}
