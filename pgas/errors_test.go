package pgas_test

// Bad input never panics (ARCHITECTURE.md, first invariant): every case
// below calls the public API with one wrong thing and checks that the call
// returns an error that matches the right sentinel, is a *pgas.Error naming
// the calling PE and the operation, and whose one-line message names the
// offending value.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

const (
	errtSegBytes = 1 << 20
	errtElems    = 16
	errtTail     = 4096
)

// errtConfig is a small job. The stall timeout is short so that a case that
// hangs by mistake fails as a deadlock instead of blocking the test run.
func errtConfig(pes int) pgas.Config {
	return pgas.Config{PEs: pes, SegmentBytes: errtSegBytes, StallTimeout: 5 * time.Second}
}

// errtRun runs a job and fails the test if it does not return within d.
func errtRun(t *testing.T, d time.Duration, cfg pgas.Config, prog func(pe *pgas.PE) error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- pgas.Run(cfg, prog) }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("pgas.Run did not return within %v", d)
		return nil
	}
}

// errtFixture is what every PE of a table job shares with the cases.
type errtFixture struct {
	pe               *pgas.PE
	rank, size, peer int
	seg              int64 // segment bytes
	tail             int64 // an allocation of errtTail bytes ending at the segment's end
	i64              pgas.Array[int64]
	i32              pgas.Array[int32]
	f64              pgas.Array[float64]
	lock             *pgas.Lock
	noop             am.Index // a registered handler that does nothing
}

func errtNewFixture(pe *pgas.PE) (*errtFixture, error) {
	f := &errtFixture{pe: pe, rank: pe.Rank(), size: pe.Size(), peer: (pe.Rank() + 1) % pe.Size(), seg: pe.Config().SegmentBytes}
	var err error
	if f.noop, err = pe.AM().Register("errt.noop", func(*am.Message) error { return nil }); err != nil {
		return nil, err
	}
	// The tail goes to the end of the segment: allocated after a block
	// that fills the rest of the heap, which is then freed for the others.
	head, err := pe.Alloc(f.seg-pgas.ReservedBytes-errtTail, 64)
	if err != nil {
		return nil, err
	}
	if f.tail, err = pe.Alloc(errtTail, 64); err != nil {
		return nil, err
	}
	if f.tail != f.seg-errtTail {
		return nil, fmt.Errorf("errt: the tail allocation is at %d, not at the segment's end", f.tail)
	}
	if err := pe.Free(head); err != nil {
		return nil, err
	}
	if f.i64, err = pgas.NewArray[int64](pe, errtElems); err != nil {
		return nil, err
	}
	if f.i32, err = pgas.NewArray[int32](pe, errtElems); err != nil {
		return nil, err
	}
	if f.f64, err = pgas.NewArray[float64](pe, errtElems); err != nil {
		return nil, err
	}
	if f.lock, err = pgas.NewLock(pe); err != nil {
		return nil, err
	}
	return f, nil
}

// errtCase is one bad call. Its expectations are checked on every PE.
type errtCase struct {
	name string
	op   string   // the Op the *pgas.Error names
	is   error    // the sentinel errors.Is must match; nil: none
	want []string // substrings of the message
	// amLayer: the error comes from package am, which returns plain errors
	// (no *pgas.Error); its message must name the calling PE instead.
	amLayer bool
	// zeroPE: the error is about the zero Handle, which belongs to no PE:
	// its *pgas.Error names PE -1.
	zeroPE bool
	bug    string // non-empty: a known bug, the case is skipped
	call   func() error
}

type errtOutcome struct {
	c        errtCase
	err      error
	panicked any
}

// errtNB completes the handle of a call that unexpectedly succeeded, so
// that nothing stays in flight, and returns the call's error.
func errtNB(h pgas.Handle, err error) error {
	if err == nil {
		if werr := h.Wait(); werr != nil {
			return fmt.Errorf("errt: the call succeeded, its handle failed: %v", werr)
		}
	}
	return err
}

// errtCheck asserts that err is rank's error of op matching sentinel and
// naming every want.
func errtCheck(t *testing.T, rank int, c errtCase, err error) {
	t.Helper()
	if !assert.Error(t, err, "PE %d: %s returned no error", rank, c.name) {
		return
	}
	msg := err.Error()
	if c.is != nil {
		assert.ErrorIs(t, err, c.is, "PE %d: %s", rank, msg)
	}
	if c.amLayer {
		assert.Contains(t, msg, fmt.Sprintf("PE %d", rank))
	} else {
		var pe *pgas.Error
		if assert.ErrorAs(t, err, &pe, "PE %d: %s", rank, msg) {
			wantPE := rank
			if c.zeroPE {
				wantPE = -1
			}
			assert.Equal(t, wantPE, pe.PE, "the PE of %q", msg)
			if c.op != "" {
				assert.Equal(t, c.op, pe.Op, "the operation of %q", msg)
			}
		}
		if c.op != "" {
			assert.Contains(t, msg, c.op)
		}
	}
	assert.NotContains(t, msg, "\n", "the message is one line")
	for _, w := range c.want {
		assert.Contains(t, msg, w, "PE %d", rank)
	}
}

// errtRunTable runs the cases build makes on every PE of one job, each
// guarded against panics, then checks every outcome in a subtest.
func errtRunTable(t *testing.T, pes int, build func(f *errtFixture) []errtCase) {
	t.Helper()
	errtRunJob(t, errtConfig(pes), func(f *errtFixture, run func(...errtCase)) error {
		run(build(f)...)
		return nil
	})
}

// errtRunJob is errtRunTable for a program that runs its cases itself,
// with run, around collective setup and checks of its own (an error it
// returns fails the test).
func errtRunJob(t *testing.T, cfg pgas.Config, prog func(f *errtFixture, run func(...errtCase)) error) {
	t.Helper()
	pes := cfg.PEs
	results := make([][]errtOutcome, pes)
	err := errtRun(t, 60*time.Second, cfg, func(pe *pgas.PE) error {
		f, err := errtNewFixture(pe)
		if err != nil {
			return err
		}
		var out []errtOutcome
		run := func(cs ...errtCase) {
			for _, c := range cs {
				o := errtOutcome{c: c}
				func() {
					defer func() { o.panicked = recover() }()
					o.err = c.call()
				}()
				out = append(out, o)
			}
		}
		if err := prog(f, run); err != nil {
			return err
		}
		results[pe.Rank()] = out
		return pe.Barrier()
	})
	require.NoError(t, err, "the job of bad calls must survive them")
	for i, o0 := range results[0] {
		t.Run(o0.c.name, func(t *testing.T) {
			for r := range pes {
				require.Len(t, results[r], len(results[0]), "PE %d ran another number of cases", r)
				o := results[r][i]
				if o.c.bug != "" {
					t.Logf("PE %d got: %v (panic: %v)", r, o.err, o.panicked)
					knownBug(t, o.c.bug)
				}
				if o.panicked != nil {
					t.Errorf("PE %d: %s panicked: %v", r, o.c.name, o.panicked)
					continue
				}
				errtCheck(t, r, o.c, o.err)
			}
		})
	}
}

// errtRMAOp is a one-sided operation moving n bytes at off of target.
type errtRMAOp struct {
	op   string
	call func(f *errtFixture, target int, off, n int64) error
}

var errtRMAOps = []errtRMAOp{
	{"Put", func(f *errtFixture, r int, off, n int64) error { return f.pe.Put(r, off, make([]byte, n)) }},
	{"Get", func(f *errtFixture, r int, off, n int64) error { return f.pe.Get(r, off, make([]byte, n)) }},
	{"PutNB", func(f *errtFixture, r int, off, n int64) error { return errtNB(f.pe.PutNB(r, off, make([]byte, n))) }},
	{"GetNB", func(f *errtFixture, r int, off, n int64) error { return errtNB(f.pe.GetNB(r, off, make([]byte, n))) }},
	{"PutNBI", func(f *errtFixture, r int, off, n int64) error { return f.pe.PutNBI(r, off, make([]byte, n)) }},
	{"GetNBI", func(f *errtFixture, r int, off, n int64) error { return f.pe.GetNBI(r, off, make([]byte, n)) }},
	{"PutV", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.PutV(r, []pgas.Span{{Off: f.tail, Len: 8}, {Off: off, Len: n}}, [][]byte{make([]byte, 8+n)})
	}},
	{"GetV", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.GetV(r, []pgas.Span{{Off: off, Len: n}}, [][]byte{make([]byte, n)})
	}},
	{"PutVNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.PutVNB(r, []pgas.Span{{Off: off, Len: n}}, [][]byte{make([]byte, n)}))
	}},
	{"GetVNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.GetVNB(r, []pgas.Span{{Off: off, Len: n}}, [][]byte{make([]byte, n)}))
	}},
	{"PutIndexed", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.PutIndexed(r, []int64{off, f.tail}, n, make([]byte, 2*n))
	}},
	{"GetIndexed", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.GetIndexed(r, []int64{off}, n, make([]byte, n))
	}},
	{"PutIndexedNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.PutIndexedNB(r, []int64{off}, n, make([]byte, n)))
	}},
	{"GetIndexedNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.GetIndexedNB(r, []int64{off}, n, make([]byte, n)))
	}},
	{"PutStrided", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.PutStrided(r, off, []int64{n}, make([]byte, n), []int64{n}, []int64{n, 1})
	}},
	{"GetStrided", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.GetStrided(r, off, []int64{n}, make([]byte, n), []int64{n}, []int64{n, 1})
	}},
	{"PutStridedNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.PutStridedNB(r, off, []int64{n}, make([]byte, n), []int64{n}, []int64{n, 1}))
	}},
	{"GetStridedNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.GetStridedNB(r, off, []int64{n}, make([]byte, n), []int64{n}, []int64{n, 1}))
	}},
	{"Put", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.With(pgas.Strict).Put(r, off, make([]byte, n))
	}},
	{"Get", func(f *errtFixture, r int, off, n int64) error {
		return f.pe.With(pgas.Strict).Get(r, off, make([]byte, n))
	}},
	{"PutNB", func(f *errtFixture, r int, off, n int64) error {
		return errtNB(f.pe.With(pgas.Strict).PutNB(r, off, make([]byte, n)))
	}},
}

// TestBadInputRMA: one-sided transfers to ranks outside the job and ranges
// outside the segment, and malformed vector, indexed and strided shapes.
func TestBadInputRMA(t *testing.T) {
	errtRunTable(t, 2, func(f *errtFixture) []errtCase {
		var cs []errtCase
		for i, o := range errtRMAOps {
			label := o.op
			if i >= len(errtRMAOps)-3 {
				label = "strict " + o.op
			}
			for _, bad := range []int{-1, f.size, math.MaxInt32} {
				cs = append(cs, errtCase{
					name: fmt.Sprintf("%s to PE %d", label, bad), op: o.op, is: pgas.ErrBadPE,
					want: []string{fmt.Sprintf("PE %d outside the job [0,%d)", bad, f.size)},
					call: func() error { return o.call(f, bad, 0, 8) },
				})
			}
			for _, r := range []struct {
				what   string
				off, n int64
			}{
				{"negative offset", -8, 8},
				{"offset at the segment end", f.seg, 8},
				{"offset far past the segment", 1 << 50, 8},
				{"length overflowing the segment", f.seg - 4, 8},
				{"length larger than the segment", 0, f.seg + 8},
			} {
				cs = append(cs, errtCase{
					name: fmt.Sprintf("%s %s", label, r.what), op: o.op, is: pgas.ErrRange,
					want: []string{fmt.Sprintf("[%d,+%d)", r.off, r.n), fmt.Sprintf("%d-byte segment", f.seg)},
					call: func() error { return o.call(f, f.peer, r.off, r.n) },
				})
			}
		}
		pe, peer := f.pe, f.peer
		cs = append(cs,
			errtCase{
				name: "PutV span with a negative length", op: "PutV", is: pgas.ErrRange, want: []string{"[0,+-8)"},
				call: func() error { return pe.PutV(peer, []pgas.Span{{Off: 0, Len: -8}}, nil) },
			},
			errtCase{
				name: "GetV span of MaxInt64 bytes", op: "GetV", is: pgas.ErrRange, want: []string{fmt.Sprintf("[8,+%d)", int64(math.MaxInt64))},
				call: func() error {
					return pe.GetV(peer, []pgas.Span{{Off: 8, Len: math.MaxInt64}}, [][]byte{make([]byte, 8)})
				},
			},
			errtCase{
				name: "PutV spans and buffers of different sizes", op: "PutV", is: pgas.ErrArgument,
				want: []string{"remote spans hold 16 bytes but local buffers 8"},
				call: func() error {
					return pe.PutV(peer, []pgas.Span{{Off: f.tail, Len: 8}, {Off: f.tail + 64, Len: 8}}, [][]byte{make([]byte, 8)})
				},
			},
			errtCase{
				name: "GetVNB buffers larger than the spans", op: "GetVNB", is: pgas.ErrArgument,
				want: []string{"remote spans hold 8 bytes but local buffers 24"},
				call: func() error {
					return errtNB(pe.GetVNB(peer, []pgas.Span{{Off: f.tail, Len: 8}}, [][]byte{make([]byte, 8), make([]byte, 16)}))
				},
			},
			errtCase{
				name: "PutIndexed block of 0 bytes", op: "PutIndexed", is: pgas.ErrArgument, want: []string{"blocks of 0 bytes"},
				call: func() error { return pe.PutIndexed(peer, []int64{0}, 0, nil) },
			},
			errtCase{
				name: "PutIndexed buffer too small for the blocks", op: "PutIndexed", is: pgas.ErrArgument,
				want: []string{"2 blocks of 8 bytes need a 16-byte local buffer, got 8"},
				call: func() error { return pe.PutIndexed(peer, []int64{0, 64}, 8, make([]byte, 8)) },
			},
			errtCase{
				name: "GetIndexed negative block size", op: "GetIndexed", is: pgas.ErrArgument, want: []string{"blocks of -8 bytes"},
				call: func() error { return pe.GetIndexed(peer, []int64{0}, -8, make([]byte, 8)) },
			},
			errtCase{
				name: "GetIndexed second offset past the segment", op: "GetIndexed", is: pgas.ErrRange,
				want: []string{fmt.Sprintf("[%d,+8)", f.seg-4)},
				call: func() error { return pe.GetIndexed(peer, []int64{f.tail, f.seg - 4}, 8, make([]byte, 16)) },
			},
			errtCase{
				name: "PutStrided empty count", op: "PutStrided", is: pgas.ErrArgument, want: []string{"count has 0 entries"},
				call: func() error { return pe.PutStrided(peer, 0, nil, make([]byte, 8), nil, nil) },
			},
			errtCase{
				name: "PutStrided strides of the wrong length", op: "PutStrided", is: pgas.ErrArgument,
				want: []string{"count has 2 entries, strides 0 and 1 (want 1 each)"},
				call: func() error { return pe.PutStrided(peer, 0, nil, make([]byte, 16), []int64{8}, []int64{8, 2}) },
			},
			errtCase{
				name: "GetStrided zero count", op: "GetStrided", is: pgas.ErrArgument, want: []string{"count[1]=0"},
				call: func() error { return pe.GetStrided(peer, 0, []int64{8}, make([]byte, 16), []int64{8}, []int64{8, 0}) },
			},
			errtCase{
				name: "GetStrided negative count", op: "GetStrided", is: pgas.ErrArgument, want: []string{"count[0]=-8"},
				call: func() error { return pe.GetStrided(peer, 0, []int64{8}, make([]byte, 16), []int64{8}, []int64{-8, 2}) },
			},
			errtCase{
				name: "PutStrided negative stride", op: "PutStrided", is: pgas.ErrArgument, want: []string{"negative stride in dimension 1"},
				call: func() error { return pe.PutStrided(peer, 64, []int64{-8}, make([]byte, 16), []int64{8}, []int64{8, 2}) },
			},
			errtCase{
				name: "PutStrided local buffer too small", op: "PutStrided", is: pgas.ErrRange,
				want: []string{"local section reaches byte 24 of a 16-byte buffer"},
				call: func() error {
					return pe.PutStrided(peer, f.tail, []int64{8}, make([]byte, 16), []int64{8}, []int64{8, 3})
				},
			},
			errtCase{
				name: "GetStridedNB remote section running past the segment", op: "GetStridedNB", is: pgas.ErrRange,
				want: []string{fmt.Sprintf("[%d,+8)", f.seg)},
				call: func() error {
					return errtNB(pe.GetStridedNB(peer, f.seg-16, []int64{8}, make([]byte, 32), []int64{8}, []int64{8, 4}))
				},
			},
			errtCase{
				name: "PutStrided count whose product overflows int64", op: "PutStrided", is: pgas.ErrRange,
				call: func() error {
					return pe.PutStrided(peer, 0, []int64{8, 8}, make([]byte, 8), []int64{8, 8}, []int64{8, 1 << 32, 1 << 32})
				},
			},
			errtCase{
				name: "Local negative offset", op: "Local", is: pgas.ErrRange, want: []string{"[-1,+8)"},
				call: func() error { _, err := pe.Local(-1, 8); return err },
			},
			errtCase{
				name: "Local past the segment", op: "Local", is: pgas.ErrRange, want: []string{fmt.Sprintf("[%d,+16)", f.seg-8)},
				call: func() error { _, err := pe.Local(f.seg-8, 16); return err },
			},
			errtCase{
				name: "Local negative length", op: "Local", is: pgas.ErrRange, want: []string{"[0,+-1)"},
				call: func() error { _, err := pe.Local(0, -1); return err },
			},
			errtCase{
				name: "PutValue through a pointer to a bad PE", op: "PutValue", is: pgas.ErrBadPE, want: []string{"PE -1 outside the job"},
				call: func() error { return pgas.PutValue(pe, pgas.Ptr[int64](-1, 0), 1) },
			},
			errtCase{
				name: "GetValue through a pointer past the segment", op: "GetValue", is: pgas.ErrRange, want: []string{fmt.Sprintf("[%d,+8)", f.seg)},
				call: func() error { _, err := pgas.GetValue(pe, pgas.Ptr[int64](peer, f.seg)); return err },
			},
			errtCase{
				name: "PutValue through a pointer to a bad PE (sentinel and PE only)", op: "", is: pgas.ErrBadPE, want: []string{"PE 2 outside the job"},
				call: func() error { return pgas.PutValue(pe, pgas.Ptr[int64](2, 0), 1) },
			},
			errtCase{
				name: "GetValue through a pointer past the segment (sentinel and PE only)", op: "", is: pgas.ErrRange,
				want: []string{fmt.Sprintf("[%d,+8)", f.seg-4)},
				call: func() error { _, err := pgas.GetValue(pe, pgas.Ptr[int64](peer, f.seg-4)); return err },
			},
			errtCase{
				name: "WaitUntil with a nil condition", op: "WaitUntil", is: pgas.ErrArgument, want: []string{"nil condition"},
				call: func() error { return pe.WaitUntil("errt: nothing", nil) },
			},
			errtCase{
				name: "SetDefaultAccess with mode 0", op: "SetDefaultAccess", is: pgas.ErrArgument, want: []string{"mode 0"},
				call: func() error { return pe.SetDefaultAccess(pgas.Mode(0)) },
			},
			errtCase{
				name: "SetDefaultAccess with mode 7", op: "SetDefaultAccess", is: pgas.ErrArgument, want: []string{"mode 7"},
				call: func() error {
					err := pe.SetDefaultAccess(pgas.Mode(7))
					if m := pe.DefaultAccess(); m != pgas.Relaxed && m != pgas.Strict {
						return fmt.Errorf("errt: the default access became %v", m)
					}
					return err
				},
			},
			errtCase{
				name: "SetOrdering with mode 9", op: "SetOrdering", is: pgas.ErrArgument, want: []string{"OrderingMode(9)"},
				call: func() error { return pe.SetOrdering(pgas.Ordering(9)) },
			},
			errtCase{
				name: "SetOrdering with mode 9 (PE and message only)", op: "SetOrdering", want: []string{"OrderingMode(9)"},
				call: func() error { return pe.SetOrdering(pgas.Ordering(9)) },
			},
		)
		return cs
	})
}

// TestBadInputArray: element indices outside a distributed array and ranks
// outside the job.
func TestBadInputArray(t *testing.T) {
	errtRunTable(t, 2, func(f *errtFixture) []errtCase {
		a, peer := f.i64, f.peer
		one, two := make([]int64, 1), make([]int64, 2)
		type call struct {
			op string
			fn func(rank, i int) error
		}
		calls := []call{
			{"Put", func(r, i int) error { return a.Put(r, i, one) }},
			{"Get", func(r, i int) error { return a.Get(r, i, one) }},
			{"PutNB", func(r, i int) error { return errtNB(a.PutNB(r, i, one)) }},
			{"GetNB", func(r, i int) error { return errtNB(a.GetNB(r, i, one)) }},
			{"PutNBI", func(r, i int) error { return a.PutNBI(r, i, one) }},
			{"GetNBI", func(r, i int) error { return a.GetNBI(r, i, one) }},
			{"PutValue", func(r, i int) error { return a.PutValue(r, i, 7) }},
			{"GetValue", func(r, i int) error { _, err := a.GetValue(r, i); return err }},
			{"PutIndexed", func(r, i int) error { return a.PutIndexed(r, []int{0, i}, two) }},
			{"GetIndexed", func(r, i int) error { return a.GetIndexed(r, []int{i}, one) }},
			{"PutStrided", func(r, i int) error { return a.PutStrided(r, i, 1, one) }},
			{"GetStrided", func(r, i int) error { return a.GetStrided(r, i, 1, one) }},
			{"Put", func(r, i int) error { return a.With(pgas.Strict).Put(r, i, one) }},
		}
		var cs []errtCase
		for k, c := range calls {
			label := c.op
			if k == len(calls)-1 {
				label = "strict " + c.op
			}
			for _, i := range []int{-1, errtElems, math.MaxInt} {
				cs = append(cs, errtCase{
					name: fmt.Sprintf("Array.%s element %d", label, i), op: c.op, is: pgas.ErrRange,
					want: []string{fmt.Sprintf("elements [%d,+1) outside an array of %d", i, errtElems)},
					call: func() error { return c.fn(peer, i) },
				})
			}
			for _, r := range []int{-1, f.size} {
				cs = append(cs, errtCase{
					name: fmt.Sprintf("Array.%s on PE %d", label, r), op: c.op, is: pgas.ErrBadPE,
					want: []string{fmt.Sprintf("PE %d outside the job", r)},
					call: func() error { return c.fn(r, 0) },
				})
			}
		}
		cs = append(cs,
			errtCase{
				name: "Array.Put run past the last element", op: "Put", is: pgas.ErrRange,
				want: []string{fmt.Sprintf("elements [%d,+2) outside an array of %d", errtElems-1, errtElems)},
				call: func() error { return a.Put(peer, errtElems-1, two) },
			},
			errtCase{
				name: "Array.Get more elements than the array", op: "Get", is: pgas.ErrRange,
				want: []string{fmt.Sprintf("elements [0,+%d)", errtElems+1)},
				call: func() error { return a.Get(peer, 0, make([]int64, errtElems+1)) },
			},
			errtCase{
				name: "Array.PutIndexed fewer indices than values", op: "PutIndexed", is: pgas.ErrArgument,
				want: []string{"1 indices for 2 values"},
				call: func() error { return a.PutIndexed(peer, []int{0}, two) },
			},
			errtCase{
				name: "Array.PutStrided last element past the end", op: "PutStrided", is: pgas.ErrRange,
				want: []string{fmt.Sprintf("elements [%d,+1)", 4*4)},
				call: func() error { return a.PutStrided(peer, 0, 4, make([]int64, 5)) },
			},
			errtCase{
				name: "Array.PutStrided stride overflowing int", op: "PutStrided", is: pgas.ErrRange, want: []string{"outside an array of 16"},
				call: func() error { return a.PutStrided(peer, 0, math.MaxInt/2+1, make([]int64, 3)) },
			},
			errtCase{
				name: "Array.GetStrided stride 0", op: "GetStrided", is: pgas.ErrArgument, want: []string{"stride 0"},
				call: func() error { return a.GetStrided(peer, 0, 0, two) },
			},
			errtCase{
				name: "Array.PutStrided negative stride", op: "PutStrided", is: pgas.ErrArgument, want: []string{"stride -2"},
				call: func() error { return a.PutStrided(peer, 8, -2, two) },
			},
		)
		return cs
	})
}

// errtAtomicCases are the atomics on T at misaligned, out-of-range and
// bad-PE addresses. base is an aligned offset of a T on every PE.
func errtAtomicCases[T pgas.Word](f *errtFixture, typ string, base, width int64) []errtCase {
	pe := f.pe
	type call struct {
		label, op string
		fn        func(p pgas.GPtr[T]) error
	}
	calls := []call{
		{"Atomic", "Atomic", func(p pgas.GPtr[T]) error { return pgas.Atomic(pe, pgas.AtomicAdd, p, 1) }},
		{"FetchAtomic", "FetchAtomic", func(p pgas.GPtr[T]) error { _, err := pgas.FetchAtomic(pe, pgas.AtomicSwap, p, 1); return err }},
		{"FetchAdd", "FetchAtomic", func(p pgas.GPtr[T]) error { _, err := pgas.FetchAdd(pe, p, 1); return err }},
		{"CompareSwap", "CompareSwap", func(p pgas.GPtr[T]) error { _, err := pgas.CompareSwap(pe, p, 0, 1); return err }},
		{"AtomicLoad", "AtomicLoad", func(p pgas.GPtr[T]) error { _, err := pgas.AtomicLoad(pe, p); return err }},
		{"AtomicStore", "AtomicStore", func(p pgas.GPtr[T]) error { return pgas.AtomicStore(pe, p, 1) }},
		{"AtomicNB", "AtomicNB", func(p pgas.GPtr[T]) error { return errtNB(pgas.AtomicNB(pe, pgas.AtomicAdd, p, 1)) }},
		{"FetchAtomicNB", "FetchAtomicNB", func(p pgas.GPtr[T]) error {
			var res T
			return errtNB(pgas.FetchAtomicNB(pe, pgas.AtomicAdd, p, 1, &res))
		}},
		{"CompareSwapNB", "CompareSwapNB", func(p pgas.GPtr[T]) error {
			var res T
			return errtNB(pgas.CompareSwapNB(pe, p, 0, 1, &res))
		}},
	}
	var cs []errtCase
	for _, c := range calls {
		for _, off := range []int64{base + width/2, base + 1} {
			cs = append(cs, errtCase{
				name: fmt.Sprintf("%s[%s] misaligned offset %d", c.label, typ, off), op: c.op, is: pgas.ErrMisaligned,
				want: []string{fmt.Sprintf("offset %d on PE %d is not aligned to %d bytes", off, f.peer, width)},
				call: func() error { return c.fn(pgas.Ptr[T](f.peer, off)) },
			})
		}
		for _, off := range []int64{-width, f.seg, f.seg - width/2, math.MaxInt64 - width + 1} {
			cs = append(cs, errtCase{
				name: fmt.Sprintf("%s[%s] offset %d", c.label, typ, off), op: c.op, is: pgas.ErrRange,
				want: []string{fmt.Sprintf("[%d,+%d)", off, width)},
				call: func() error { return c.fn(pgas.Ptr[T](f.peer, off)) },
			})
		}
		for _, r := range []int{-1, f.size} {
			cs = append(cs, errtCase{
				name: fmt.Sprintf("%s[%s] on PE %d", c.label, typ, r), op: c.op, is: pgas.ErrBadPE,
				want: []string{fmt.Sprintf("PE %d outside the job", r)},
				call: func() error { return c.fn(pgas.Ptr[T](r, base)) },
			})
		}
	}
	return cs
}

// TestBadInputAtomic: atomics on misaligned words, outside the segment, on
// bad PEs; integer-only operations on float64; nil result pointers.
func TestBadInputAtomic(t *testing.T) {
	errtRunTable(t, 2, func(f *errtFixture) []errtCase {
		pe, peer := f.pe, f.peer
		var cs []errtCase
		cs = append(cs, errtAtomicCases[int64](f, "int64", f.i64.Offset(), 8)...)
		cs = append(cs, errtAtomicCases[uint32](f, "uint32", f.i32.Offset(), 4)...)
		cs = append(cs, errtAtomicCases[float64](f, "float64", f.f64.Offset(), 8)...)
		fp := f.f64.At(peer, 0)
		for _, op := range []pgas.AtomicOp{pgas.AtomicAnd, pgas.AtomicOr, pgas.AtomicXor, pgas.AtomicMin, pgas.AtomicMax} {
			want := []string{fmt.Sprintf("%v is not defined on float64", op)}
			cs = append(cs,
				errtCase{
					name: fmt.Sprintf("Atomic %v on float64", op), op: "Atomic", is: pgas.ErrArgument, want: want,
					call: func() error { return pgas.Atomic(pe, op, fp, 1) },
				},
				errtCase{
					name: fmt.Sprintf("FetchAtomic %v on float64", op), op: "FetchAtomic", is: pgas.ErrArgument, want: want,
					call: func() error { _, err := pgas.FetchAtomic(pe, op, fp, 1); return err },
				},
				errtCase{
					name: fmt.Sprintf("AtomicNB %v on float64", op), op: "AtomicNB", is: pgas.ErrArgument, want: want,
					call: func() error { return errtNB(pgas.AtomicNB(pe, op, fp, 1)) },
				},
				errtCase{
					name: fmt.Sprintf("FetchAtomicNB %v on float64", op), op: "FetchAtomicNB", is: pgas.ErrArgument, want: want,
					call: func() error {
						var res float64
						return errtNB(pgas.FetchAtomicNB(pe, op, fp, 1, &res))
					},
				},
			)
		}
		ip := f.i64.At(peer, 0)
		cs = append(cs,
			errtCase{
				name: "Atomic unknown operation", op: "Atomic", is: pgas.ErrArgument, want: []string{"unknown atomic operation 99"},
				call: func() error { return pgas.Atomic(pe, pgas.AtomicOp(99), ip, 1) },
			},
			errtCase{
				name: "FetchAtomic operation 0", op: "FetchAtomic", is: pgas.ErrArgument, want: []string{"unknown atomic operation 0"},
				call: func() error { _, err := pgas.FetchAtomic(pe, pgas.AtomicOp(0), ip, 1); return err },
			},
			errtCase{
				name: "FetchAtomicNB nil result", op: "FetchAtomicNB", is: pgas.ErrArgument, want: []string{"nil result"},
				call: func() error { return errtNB(pgas.FetchAtomicNB(pe, pgas.AtomicAdd, ip, 1, nil)) },
			},
			errtCase{
				name: "CompareSwapNB nil result", op: "CompareSwapNB", is: pgas.ErrArgument, want: []string{"nil result"},
				call: func() error { return errtNB(pgas.CompareSwapNB(pe, ip, 0, 1, nil)) },
			},
		)
		return cs
	})
}

// TestBadInputHandle: handles completed twice, the zero Handle, spent
// handles among live ones, stale handles whose state was recycled.
func TestBadInputHandle(t *testing.T) {
	errtRunTable(t, 2, func(f *errtFixture) []errtCase {
		pe, peer, off := f.pe, f.peer, f.i64.Offset()
		buf := make([]byte, 8)
		spent := func() (pgas.Handle, error) {
			h, err := pe.PutNB(peer, off, buf)
			if err != nil {
				return h, fmt.Errorf("errt: PutNB: %v", err)
			}
			if err := h.Wait(); err != nil {
				return h, fmt.Errorf("errt: first Wait: %v", err)
			}
			return h, nil
		}
		return []errtCase{
			{
				name: "second Wait", op: "Wait", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					h, err := spent()
					if err != nil {
						return err
					}
					return h.Wait()
				},
			},
			{
				name: "Test after Wait", op: "Test", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					h, err := spent()
					if err != nil {
						return err
					}
					_, err = h.Test()
					return err
				},
			},
			{
				name: "Wait after Test reported done", op: "Wait", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					h, err := pe.GetNB(peer, off, buf)
					if err != nil {
						return fmt.Errorf("errt: GetNB: %v", err)
					}
					for done := false; !done; {
						if done, err = h.Test(); err != nil {
							return fmt.Errorf("errt: Test: %v", err)
						}
					}
					return h.Wait()
				},
			},
			{
				name: "Wait on the zero Handle", op: "Wait", is: pgas.ErrHandle, zeroPE: true, want: []string{"zero Handle"},
				call: func() error { return pgas.Handle{}.Wait() },
			},
			{
				name: "Test on the zero Handle", op: "Test", is: pgas.ErrHandle, zeroPE: true, want: []string{"zero Handle"},
				call: func() error { _, err := pgas.Handle{}.Test(); return err },
			},
			{
				name: "WaitAll with a spent handle", op: "Wait", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					h1, err := spent()
					if err != nil {
						return err
					}
					h2, err := pe.PutNB(peer, off+8, buf)
					if err != nil {
						return fmt.Errorf("errt: PutNB: %v", err)
					}
					h3, err := pe.GetNB(peer, off+16, make([]byte, 8))
					if err != nil {
						return fmt.Errorf("errt: GetNB: %v", err)
					}
					err = pgas.WaitAll(h2, h1, h3)
					if werr := h2.Wait(); !errors.Is(werr, pgas.ErrHandle) {
						return fmt.Errorf("errt: WaitAll left the live handle before the spent one unspent: %v", werr)
					}
					if werr := h3.Wait(); !errors.Is(werr, pgas.ErrHandle) {
						return fmt.Errorf("errt: WaitAll left the live handle after the spent one unspent: %v", werr)
					}
					return err
				},
			},
			{
				name: "WaitAll with the zero Handle", op: "Wait", is: pgas.ErrHandle, zeroPE: true, want: []string{"zero Handle"},
				call: func() error { return pgas.WaitAll(pgas.Handle{}) },
			},
			{
				name: "WaitSome with a spent handle", op: "WaitSome", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					h1, err := spent()
					if err != nil {
						return err
					}
					h2, err := pe.PutNB(peer, off, buf)
					if err != nil {
						return fmt.Errorf("errt: PutNB: %v", err)
					}
					_, err = pgas.WaitSome([]pgas.Handle{h2, h1})
					if werr := h2.Wait(); werr != nil {
						return fmt.Errorf("errt: the live handle after the failed WaitSome: %v", werr)
					}
					return err
				},
			},
			{
				name: "stale handle whose state was recycled", op: "Wait", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					h1, err := spent()
					if err != nil {
						return err
					}
					h2, err := pe.GetNB(peer, off, buf) // takes h1's recycled state
					if err != nil {
						return fmt.Errorf("errt: GetNB: %v", err)
					}
					err = h1.Wait()
					if werr := h2.Wait(); werr != nil {
						return fmt.Errorf("errt: the stale handle's Wait spoiled the new handle: %v", werr)
					}
					return err
				},
			},
			{
				name: "second Wait on an access region's handle", op: "Wait", is: pgas.ErrHandle, want: []string{"already completed"},
				call: func() error {
					if err := pe.BeginRegion(); err != nil {
						return fmt.Errorf("errt: BeginRegion: %v", err)
					}
					if err := pe.PutNBI(peer, off, buf); err != nil {
						return fmt.Errorf("errt: PutNBI: %v", err)
					}
					h, err := pe.EndRegion()
					if err != nil {
						return fmt.Errorf("errt: EndRegion: %v", err)
					}
					if err := h.Wait(); err != nil {
						return fmt.Errorf("errt: first Wait: %v", err)
					}
					return h.Wait()
				},
			},
			{
				name: "BeginRegion twice", op: "BeginRegion", is: pgas.ErrArgument, want: []string{"already open"},
				call: func() error {
					if err := pe.BeginRegion(); err != nil {
						return fmt.Errorf("errt: first BeginRegion: %v", err)
					}
					err := pe.BeginRegion()
					h, eerr := pe.EndRegion()
					if eerr != nil {
						return fmt.Errorf("errt: EndRegion after the failed BeginRegion: %v", eerr)
					}
					if werr := h.Wait(); werr != nil {
						return fmt.Errorf("errt: region Wait: %v", werr)
					}
					return err
				},
			},
			{
				name: "EndRegion without BeginRegion", op: "EndRegion", is: pgas.ErrArgument, want: []string{"no access region is open"},
				call: func() error { _, err := pe.EndRegion(); return err },
			},
		}
	})
}

// TestBadInputCollective: collectives with inconsistent lengths, roots
// outside the team, undefined reductions, pointer types; split barriers out
// of order; destroyed teams; the symmetric heap; locks; NewArray.
func TestBadInputCollective(t *testing.T) {
	errtRunTable(t, 3, func(f *errtFixture) []errtCase {
		pe, w, n := f.pe, f.pe.World(), f.size
		var cs []errtCase
		for _, root := range []int{-1, n} {
			want := []string{fmt.Sprintf("root %d outside the team [0,%d)", root, n)}
			cs = append(cs,
				errtCase{
					name: fmt.Sprintf("Broadcast root %d", root), op: "Broadcast", is: pgas.ErrBadPE, want: want,
					call: func() error { return pgas.Broadcast(w, root, make([]int64, 2)) },
				},
				errtCase{
					name: fmt.Sprintf("Reduce root %d", root), op: "Reduce", is: pgas.ErrBadPE, want: want,
					call: func() error { return pgas.Reduce(w, root, pgas.Sum, make([]int64, 2), make([]int64, 2)) },
				},
				errtCase{
					name: fmt.Sprintf("Gather root %d", root), op: "Gather", is: pgas.ErrBadPE, want: want,
					call: func() error { return pgas.Gather(w, root, make([]int64, 1), make([]int64, n)) },
				},
			)
		}
		for _, op := range []pgas.ReduceOp{pgas.And, pgas.Or, pgas.Xor} {
			cs = append(cs,
				errtCase{
					name: fmt.Sprintf("Allreduce %v on float64", op), op: "Allreduce", is: pgas.ErrArgument,
					want: []string{fmt.Sprintf("%v is not defined on float64", op)},
					call: func() error { return pgas.Allreduce(w, op, make([]float64, 2), make([]float64, 2)) },
				},
				errtCase{
					name: fmt.Sprintf("Reduce %v on float32", op), op: "Reduce", is: pgas.ErrArgument,
					want: []string{fmt.Sprintf("%v is not defined on float32", op)},
					call: func() error { return pgas.Reduce(w, 0, op, make([]float32, 2), make([]float32, 2)) },
				},
			)
		}
		cs = append(cs,
			errtCase{
				name: "Allreduce out shorter than in", op: "Allreduce", is: pgas.ErrArgument, want: []string{"out has 3 elements, in 4"},
				call: func() error { return pgas.Allreduce(w, pgas.Sum, make([]int64, 4), make([]int64, 3)) },
			},
			errtCase{
				name: "Allreduce unknown operator", op: "Allreduce", is: pgas.ErrArgument, want: []string{"unknown reduction ReduceOp(42)"},
				call: func() error { return pgas.Allreduce(w, pgas.ReduceOp(42), make([]int64, 1), make([]int64, 1)) },
			},
			errtCase{
				name: "Reduce out of another length at every PE", op: "Reduce", is: pgas.ErrArgument, want: []string{"out has 1 elements, in 2"},
				call: func() error { return pgas.Reduce(w, f.rank, pgas.Sum, make([]int64, 2), make([]int64, 1)) },
			},
			errtCase{
				name: "Alltoall length not a multiple of the team size", op: "Alltoall", is: pgas.ErrArgument,
				want: []string{fmt.Sprintf("in has %d and out %d elements", n+1, n+1), fmt.Sprintf("team size %d", n)},
				call: func() error { return pgas.Alltoall(w, make([]int32, n+1), make([]int32, n+1)) },
			},
			errtCase{
				name: "Alltoall in and out of different lengths", op: "Alltoall", is: pgas.ErrArgument,
				want: []string{fmt.Sprintf("in has %d and out %d elements", n, 2*n)},
				call: func() error { return pgas.Alltoall(w, make([]int32, n), make([]int32, 2*n)) },
			},
			errtCase{
				name: "Allgather out of the wrong length", op: "Allgather", is: pgas.ErrArgument,
				want: []string{fmt.Sprintf("out has 2 elements, want %d", 2*n)},
				call: func() error { return pgas.Allgather(w, make([]int64, 2), make([]int64, 2)) },
			},
			errtCase{
				name: "Broadcast of pointers", op: "Broadcast", is: pgas.ErrArgument, want: []string{"*int", "holds pointers"},
				call: func() error { return pgas.Broadcast(w, 0, make([]*int, 2)) },
			},
			errtCase{
				name: "Gather of strings", op: "Gather", is: pgas.ErrArgument, want: []string{"string", "holds pointers"},
				call: func() error { return pgas.Gather(w, 0, make([]string, 1), make([]string, n)) },
			},
			errtCase{
				name: "Allgather of slices", op: "Allgather", is: pgas.ErrArgument, want: []string{"[]int", "holds pointers"},
				call: func() error { return pgas.Allgather(w, make([][]int, 1), make([][]int, n)) },
			},
			errtCase{
				name: "Alltoall of structs with a pointer", op: "Alltoall", is: pgas.ErrArgument, want: []string{"holds pointers"},
				call: func() error {
					type s struct {
						A int64
						P *int64
					}
					return pgas.Alltoall(w, make([]s, n), make([]s, n))
				},
			},
			errtCase{
				name: "BarrierWait without BarrierNotify", op: "BarrierWait", is: pgas.ErrArgument, want: []string{"without BarrierNotify"},
				call: func() error { return w.BarrierWait() },
			},
			errtCase{
				name: "BarrierNotify twice", op: "BarrierNotify", is: pgas.ErrArgument, want: []string{"twice"},
				call: func() error {
					if err := w.BarrierNotify(); err != nil {
						return fmt.Errorf("errt: first BarrierNotify: %v", err)
					}
					err := w.BarrierNotify()
					if werr := w.BarrierWait(); werr != nil {
						return fmt.Errorf("errt: BarrierWait after the second BarrierNotify: %v", werr)
					}
					return err
				},
			},
			errtCase{
				name: "Destroy the world team", op: "Destroy", is: pgas.ErrArgument, want: []string{"world team cannot be destroyed"},
				call: func() error { return w.Destroy() },
			},
			errtCase{
				name: "Destroy a team twice", op: "Destroy", is: pgas.ErrArgument, want: []string{"already destroyed"},
				call: func() error {
					tm, err := w.Split(0, f.rank)
					if err != nil {
						return fmt.Errorf("errt: Split: %v", err)
					}
					if err := tm.Destroy(); err != nil {
						return fmt.Errorf("errt: first Destroy: %v", err)
					}
					return tm.Destroy()
				},
			},
			errtCase{
				name: "Barrier of a destroyed team", op: "BarrierNotify", is: pgas.ErrArgument, want: []string{"destroyed"},
				call: func() error {
					tm, err := w.Split(f.rank%2, f.rank)
					if err != nil {
						return fmt.Errorf("errt: Split: %v", err)
					}
					if err := tm.Destroy(); err != nil {
						return fmt.Errorf("errt: Destroy: %v", err)
					}
					return tm.Barrier()
				},
			},
			errtCase{
				name: "Allreduce on a destroyed team", op: "Allreduce", is: pgas.ErrArgument, want: []string{"destroyed"},
				call: func() error {
					tm, err := w.Split(0, -f.rank)
					if err != nil {
						return fmt.Errorf("errt: Split: %v", err)
					}
					if err := tm.Destroy(); err != nil {
						return fmt.Errorf("errt: Destroy: %v", err)
					}
					return pgas.Allreduce(tm, pgas.Sum, make([]int64, 1), make([]int64, 1))
				},
			},
			errtCase{
				name: "more teams than MaxTeams", op: "Split", is: pgas.ErrNoMemory, want: []string{fmt.Sprintf("all %d team slots", pgas.MaxTeams)},
				call: func() error {
					var teams []*pgas.Team
					defer func() {
						for _, tm := range teams {
							_ = tm.Destroy()
						}
					}()
					for range pgas.MaxTeams {
						tm, err := w.Split(0, f.rank)
						if err != nil {
							return err
						}
						teams = append(teams, tm)
					}
					return fmt.Errorf("errt: %d splits succeeded", len(teams))
				},
			},
			errtCase{
				name: "Alloc of 0 bytes", op: "Alloc", is: pgas.ErrArgument, want: []string{"0 bytes aligned to 64"},
				call: func() error { _, err := pe.Alloc(0, 0); return err },
			},
			errtCase{
				name: "Alloc of a negative size", op: "Alloc", is: pgas.ErrArgument, want: []string{"-8 bytes"},
				call: func() error { _, err := pe.Alloc(-8, 8); return err },
			},
			errtCase{
				name: "Alloc aligned to 3", op: "Alloc", is: pgas.ErrArgument, want: []string{"aligned to 3", "power-of-two"},
				call: func() error { _, err := pe.Alloc(64, 3); return err },
			},
			errtCase{
				name: "Alloc aligned to -8", op: "Alloc", is: pgas.ErrArgument, want: []string{"aligned to -8"},
				call: func() error { _, err := pe.Alloc(64, -8); return err },
			},
			errtCase{
				name: "Alloc of more than the heap", op: "Alloc", is: pgas.ErrNoMemory,
				want: []string{fmt.Sprintf("%d bytes", f.seg), "largest free block"},
				call: func() error { _, err := pe.Alloc(f.seg, 0); return err },
			},
			errtCase{
				name: "Alloc of a terabyte", op: "Alloc", is: pgas.ErrNoMemory, want: []string{"1099511627776 bytes", "largest free block"},
				call: func() error { _, err := pe.Alloc(1<<40, 8); return err },
			},
			errtCase{
				name: "Alloc aligned beyond the heap", op: "Alloc", is: pgas.ErrNoMemory, want: []string{"aligned to 4611686018427387904", "largest free block"},
				call: func() error { _, err := pe.Alloc(8, 1<<62); return err },
			},
			errtCase{
				name: "Alloc of different sizes on different PEs", op: "Alloc", is: pgas.ErrMismatch, want: []string{"disagree"},
				call: func() error {
					off, err := pe.Alloc(int64(64*(f.rank+1)), 0)
					if err == nil {
						_ = pe.Free(off)
					}
					return err
				},
			},
			errtCase{
				name: "Free of an offset never allocated", op: "Free", is: pgas.ErrArgument, want: []string{"offset 12345 is not a symmetric allocation"},
				call: func() error { return pe.Free(12345) },
			},
			errtCase{
				name: "Free of a negative offset", op: "Free", is: pgas.ErrArgument, want: []string{"offset -64 is not"},
				call: func() error { return pe.Free(-64) },
			},
			errtCase{
				name: "Free twice", op: "Free", is: pgas.ErrArgument, want: []string{"is not a symmetric allocation"},
				call: func() error {
					off, err := pe.Alloc(128, 0)
					if err != nil {
						return fmt.Errorf("errt: Alloc: %v", err)
					}
					if err := pe.Free(off); err != nil {
						return fmt.Errorf("errt: first Free: %v", err)
					}
					return pe.Free(off)
				},
			},
			errtCase{
				name: "NewArray of pointers", op: "NewArray", is: pgas.ErrArgument, want: []string{"*int", "holds pointers"},
				call: func() error { _, err := pgas.NewArray[*int](pe, 4); return err },
			},
			errtCase{
				name: "NewArray of a struct with a string", op: "NewArray", is: pgas.ErrArgument, want: []string{"holds pointers"},
				call: func() error {
					type s struct {
						N int64
						S string
					}
					_, err := pgas.NewArray[s](pe, 4)
					return err
				},
			},
			errtCase{
				name: "NewArray of slices", op: "NewArray", is: pgas.ErrArgument, want: []string{"[]int64"},
				call: func() error { _, err := pgas.NewArray[[]int64](pe, 4); return err },
			},
			errtCase{
				name: "NewArray of maps", op: "NewArray", is: pgas.ErrArgument, want: []string{"map[int]int"},
				call: func() error { _, err := pgas.NewArray[map[int]int](pe, 4); return err },
			},
			errtCase{
				name: "NewArray of an interface", op: "NewArray", is: pgas.ErrArgument, want: []string{"holds pointers"},
				call: func() error { _, err := pgas.NewArray[any](pe, 4); return err },
			},
			errtCase{
				name: "NewArray of arrays of pointers", op: "NewArray", is: pgas.ErrArgument, want: []string{"[2]*int"},
				call: func() error { _, err := pgas.NewArray[[2]*int](pe, 4); return err },
			},
			errtCase{
				name: "NewArray of 0 elements", op: "NewArray", is: pgas.ErrArgument, want: []string{"0 elements of 8 bytes"},
				call: func() error { _, err := pgas.NewArray[int64](pe, 0); return err },
			},
			errtCase{
				name: "NewArray of -3 elements", op: "NewArray", is: pgas.ErrArgument, want: []string{"-3 elements"},
				call: func() error { _, err := pgas.NewArray[int64](pe, -3); return err },
			},
			errtCase{
				name: "NewArray larger than the segment", op: "NewArray", is: pgas.ErrArgument, want: []string{fmt.Sprintf("%d elements", f.seg)},
				call: func() error { _, err := pgas.NewArray[int64](pe, int(f.seg)); return err },
			},
			errtCase{
				name: "NewArray of more than the heap", op: "Alloc", is: pgas.ErrNoMemory, want: []string{"largest free block"},
				call: func() error { _, err := pgas.NewArray[byte](pe, int(f.seg-8)); return err },
			},
			errtCase{
				name: "NewArray of empty structs", op: "NewArray", is: pgas.ErrArgument, want: []string{"of 0 bytes"},
				call: func() error { _, err := pgas.NewArray[struct{}](pe, 4); return err },
			},
			errtCase{
				name: "Lock.Unlock when not held", op: "Unlock", is: pgas.ErrArgument, want: []string{"not held"},
				call: func() error { return f.lock.Unlock() },
			},
		)
		return cs
	})
}

// TestBadInputAM: active-message calls with bad targets, unregistered
// handlers, too many arguments, oversized payloads, bad registrations.
func TestBadInputAM(t *testing.T) {
	errtRunTable(t, 2, func(f *errtFixture) []errtCase {
		a, peer, noop := f.pe.AM(), f.peer, f.noop
		args17 := make([]int32, am.MaxArgs+1)
		cs := []errtCase{
			{
				name: "RequestShort to an unregistered handler", amLayer: true, want: []string{"RequestShort", "handler 200 is not registered"},
				call: func() error { return a.RequestShort(peer, 200) },
			},
			{
				name: "RequestMedium to an unregistered handler", amLayer: true, want: []string{"RequestMedium", "handler 255 is not registered"},
				call: func() error { return a.RequestMedium(peer, 255, []byte{1}) },
			},
			{
				name: "RequestLong to an unregistered handler", amLayer: true, want: []string{"RequestLong", "handler 0 is not registered"},
				call: func() error { return a.RequestLong(peer, 0, []byte{1}, 0) },
			},
			{
				name: "RequestShort with too many arguments", amLayer: true, want: []string{"17 arguments (at most 16)"},
				call: func() error { return a.RequestShort(peer, noop, args17...) },
			},
			{
				name: "RequestMedium with too large a payload", amLayer: true, want: []string{fmt.Sprintf("%d bytes exceeds MaxMedium %d", a.MaxMedium()+1, a.MaxMedium())},
				call: func() error { return a.RequestMedium(peer, noop, make([]byte, a.MaxMedium()+1)) },
			},
			{
				name: "RequestLong outside the segment", amLayer: true, want: []string{fmt.Sprintf("destination [%d,+8)", f.seg-4), "outside"},
				call: func() error { return a.RequestLong(peer, noop, make([]byte, 8), f.seg-4) },
			},
			{
				name: "RequestLong at a negative offset", amLayer: true, want: []string{"destination [-8,+8)"},
				call: func() error { return a.RequestLong(peer, noop, make([]byte, 8), -8) },
			},
			{
				name: "RegisterAt a runtime index", amLayer: true, want: []string{"RegisterAt(5", "reserved"},
				call: func() error { return a.RegisterAt(5, "errt.reserved", func(*am.Message) error { return nil }) },
			},
			{
				name: "Register a nil handler", amLayer: true, want: []string{"errt.nil", "nil handler"},
				call: func() error { _, err := a.Register("errt.nil", nil); return err },
			},
			{
				name: "Register a name twice", amLayer: true, want: []string{"errt.noop", "already at"},
				call: func() error { _, err := a.Register("errt.noop", func(*am.Message) error { return nil }); return err },
			},
			{
				name: "RegisterAt a taken index", amLayer: true, want: []string{"taken by \"errt.noop\""},
				call: func() error { return a.RegisterAt(noop, "errt.other", func(*am.Message) error { return nil }) },
			},
		}
		for _, bad := range []int{-1, f.size} {
			cs = append(cs,
				errtCase{
					name: fmt.Sprintf("RequestShort to PE %d", bad), amLayer: true, want: []string{fmt.Sprintf("to PE %d: outside the job", bad)},
					call: func() error { return a.RequestShort(bad, noop) },
				},
				errtCase{
					name: fmt.Sprintf("RequestMedium to PE %d", bad), amLayer: true, want: []string{fmt.Sprintf("to PE %d: outside the job", bad)},
					call: func() error { return a.RequestMedium(bad, noop, []byte{1}) },
				},
				errtCase{
					name: fmt.Sprintf("RequestLong to PE %d", bad), amLayer: true, want: []string{fmt.Sprintf("to PE %d", bad)},
					call: func() error { return a.RequestLong(bad, noop, []byte{1}, 0) },
				},
			)
		}
		return cs
	})
}

// TestBadInputUnknownHandlerAtTarget: a message naming a handler the target
// never registered fails the target's blocking call, and so the job, with
// an error that names the handler; nothing panics.
func TestBadInputUnknownHandlerAtTarget(t *testing.T) {
	errs := make([]error, 2)
	err := errtRun(t, 20*time.Second, errtConfig(2), func(pe *pgas.PE) error {
		if pe.Rank() == 0 {
			h, err := pe.AM().Register("errt.only-on-0", func(*am.Message) error { return nil })
			if err != nil {
				return err
			}
			if err := pe.AM().RequestShort(1, h); err != nil {
				return err
			}
			errs[0] = pe.Barrier()
			return errs[0]
		}
		// Poll until the message arrives and fails the poll.
		for {
			if err := pe.Poll(); err != nil {
				errs[1] = err
				return err
			}
		}
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "handler 128, which is not registered")
	var pe *pgas.Error
	if assert.ErrorAs(t, err, &pe) {
		assert.Equal(t, 1, pe.PE, "the target reports it")
	}
	assert.NotContains(t, err.Error(), "\n")
	if errs[0] != nil {
		assert.ErrorIs(t, errs[0], pgas.ErrJobAborted)
	}
}

// errtRecord is the outcome of one call made where it is not allowed.
type errtRecord struct {
	what string
	op   string // the *pgas.Error's Op; "" for an am error
	is   error
	err  error
	// anyPE: an am error that cannot name the PE.
	anyPE bool
}

// TestBadInputInsideHandler: blocking and communicating calls made from
// active-message handlers fail with ErrInHandler or am.ErrRule, and the
// job survives.
func TestBadInputInsideHandler(t *testing.T) {
	recs := make([][]errtRecord, 2)
	err := errtRun(t, 30*time.Second, errtConfig(2), func(pe *pgas.PE) error {
		me := pe.Rank()
		a, err := pgas.NewArray[int64](pe, 8)
		if err != nil {
			return err
		}
		lock, err := pgas.NewLock(pe)
		if err != nil {
			return err
		}
		rec := func(what, op string, is, err error) {
			recs[me] = append(recs[me], errtRecord{what: what, op: op, is: is, err: err})
		}
		buf := make([]byte, 8)
		// A handle issued by the program, waited for inside the handler.
		pending, err := a.GetNB((me+1)%2, 0, make([]int64, 1))
		if err != nil {
			return err
		}
		var hReq, hRep am.Index
		var kept *am.Message
		gotReply := false
		hReq, err = pe.AM().Register("errt.request", func(m *am.Message) error {
			src := m.Source()
			rec("Barrier", "BarrierNotify", pgas.ErrInHandler, pe.Barrier())
			rec("BarrierNotify", "BarrierNotify", pgas.ErrInHandler, pe.World().BarrierNotify())
			rec("Put", "Put", pgas.ErrInHandler, pe.Put(src, a.Offset(), buf))
			rec("Get", "Get", pgas.ErrInHandler, pe.Get(src, a.Offset(), buf))
			rec("strict Put", "Put", pgas.ErrInHandler, pe.With(pgas.Strict).Put(src, a.Offset(), buf))
			rec("PutNB", "PutNB", pgas.ErrInHandler, errtNB(pe.PutNB(src, a.Offset(), buf)))
			rec("GetNBI", "GetNBI", pgas.ErrInHandler, pe.GetNBI(src, a.Offset(), buf))
			rec("PutV", "PutV", pgas.ErrInHandler, pe.PutV(src, []pgas.Span{{Off: a.Offset(), Len: 8}}, [][]byte{buf}))
			rec("Array.Put", "Put", pgas.ErrInHandler, a.Put(src, 0, []int64{1}))
			rec("Array.GetValue", "GetValue", pgas.ErrInHandler, func() error { _, err := a.GetValue(src, 0); return err }())
			rec("Quiet", "Quiet", pgas.ErrInHandler, pe.Quiet())
			rec("Fence", "Fence", pgas.ErrInHandler, pe.Fence())
			rec("SyncNBI", "SyncNBIPuts", pgas.ErrInHandler, pe.SyncNBI())
			rec("Poll", "Poll", pgas.ErrInHandler, pe.Poll())
			rec("WaitUntil", "WaitUntil", pgas.ErrInHandler, pe.WaitUntil("errt: anything", func() bool { return true }))
			rec("Atomic", "Atomic", pgas.ErrInHandler, pgas.Atomic(pe, pgas.AtomicAdd, a.At(src, 1), 1))
			rec("FetchAdd", "FetchAtomic", pgas.ErrInHandler, func() error { _, err := pgas.FetchAdd(pe, a.At(src, 1), 1); return err }())
			rec("AtomicNB", "AtomicNB", pgas.ErrInHandler, errtNB(pgas.AtomicNB(pe, pgas.AtomicAdd, a.At(src, 1), 1)))
			rec("Handle.Wait", "Wait", pgas.ErrInHandler, pending.Wait())
			rec("WaitSome", "WaitSome", pgas.ErrInHandler, func() error { _, err := pgas.WaitSome([]pgas.Handle{pending}); return err }())
			rec("Alloc", "Alloc", pgas.ErrInHandler, func() error { _, err := pe.Alloc(64, 0); return err }())
			rec("NewArray", "Alloc", pgas.ErrInHandler, func() error { _, err := pgas.NewArray[int64](pe, 4); return err }())
			rec("Free", "Free", pgas.ErrInHandler, pe.Free(a.Offset()))
			rec("Allreduce", "Allreduce", pgas.ErrInHandler, pgas.Allreduce(pe.World(), pgas.Sum, []int64{1}, make([]int64, 1)))
			rec("Broadcast", "Broadcast", pgas.ErrInHandler, pgas.Broadcast(pe.World(), 0, []int64{1}))
			rec("Split", "Split", pgas.ErrInHandler, func() error { _, err := pe.World().Split(0, 0); return err }())
			rec("Lock", "Lock", pgas.ErrInHandler, lock.Lock())
			rec("TryLock", "TryLock", pgas.ErrInHandler, func() error { _, err := lock.TryLock(); return err }())
			rec("RequestShort", "", am.ErrRule, pe.AM().RequestShort(src, hReq))
			rec("RequestMedium", "", am.ErrRule, pe.AM().RequestMedium(src, hReq, []byte{1}))
			rec("first ReplyShort", "", nil, m.ReplyShort(hRep, 1))
			rec("second ReplyShort", "", am.ErrRule, m.ReplyShort(hRep, 2))
			kept = m
			return nil
		})
		if err != nil {
			return err
		}
		hRep, err = pe.AM().Register("errt.reply", func(m *am.Message) error {
			if len(m.Args) != 1 || m.Args[0] != 1 {
				rec("a second reply arrived", "", nil, fmt.Errorf("errt: reply with arguments %v", m.Args))
			}
			rec("reply handler ReplyShort", "", am.ErrRule, m.ReplyShort(hRep))
			rec("reply handler RequestShort", "", am.ErrRule, pe.AM().RequestShort(m.Source(), hReq))
			rec("reply handler Put", "Put", pgas.ErrInHandler, pe.Put(m.Source(), a.Offset(), buf))
			rec("reply handler Barrier", "BarrierNotify", pgas.ErrInHandler, pe.Barrier())
			gotReply = true
			return nil
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if me == 0 {
			if err := pe.AM().RequestShort(1, hReq); err != nil {
				return err
			}
			for !gotReply {
				if err := pe.Poll(); err != nil {
					return err
				}
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if me == 1 {
			if kept == nil {
				return errors.New("errt: the request handler never ran")
			}
			recs[1] = append(recs[1], errtRecord{what: "ReplyShort after the handler returned", is: am.ErrRule, err: kept.ReplyShort(hRep), anyPE: true})
		}
		if err := pending.Wait(); err != nil {
			return fmt.Errorf("errt: the handle waited for in the handler: %w", err)
		}
		return pe.Barrier()
	})
	require.NoError(t, err, "the job survives the handlers' bad calls")
	require.NotEmpty(t, recs[1], "PE 1 ran the request handler")
	require.NotEmpty(t, recs[0], "PE 0 ran the reply handler")
	for rank, rs := range recs {
		for _, r := range rs {
			t.Run(fmt.Sprintf("PE %d %s", rank, r.what), func(t *testing.T) {
				if r.is == nil {
					assert.NoError(t, r.err)
					return
				}
				if !assert.Error(t, r.err) {
					return
				}
				assert.ErrorIs(t, r.err, r.is, "%v", r.err)
				assert.NotContains(t, r.err.Error(), "\n")
				if r.op == "" {
					if !r.anyPE {
						assert.Contains(t, r.err.Error(), fmt.Sprintf("PE %d", rank))
					}
					return
				}
				var pe *pgas.Error
				if assert.ErrorAs(t, r.err, &pe, "%v", r.err) {
					assert.Equal(t, rank, pe.PE)
					assert.Equal(t, r.op, pe.Op, "%v", r.err)
				}
			})
		}
	}
}

// TestBadInputAfterEnd: a PE kept past the end of its job fails every call
// with ErrEnded.
func TestBadInputAfterEnd(t *testing.T) {
	var (
		saved   *pgas.PE
		arr     pgas.Array[int64]
		lock    *pgas.Lock
		team    *pgas.Team
		pending pgas.Handle
		noop    am.Index
		allocd  int64
	)
	err := errtRun(t, 20*time.Second, errtConfig(2), func(pe *pgas.PE) error {
		a, err := pgas.NewArray[int64](pe, errtElems)
		if err != nil {
			return err
		}
		l, err := pgas.NewLock(pe)
		if err != nil {
			return err
		}
		tm, err := pe.World().Split(0, pe.Rank())
		if err != nil {
			return err
		}
		off, err := pe.Alloc(64, 0)
		if err != nil {
			return err
		}
		h, err := pe.AM().Register("errt.noop", func(*am.Message) error { return nil })
		if err != nil {
			return err
		}
		if pe.Rank() == 0 {
			saved, arr, lock, team, noop, allocd = pe, a, l, tm, h, off
			// Left pending at the end of the program on purpose.
			if pending, err = a.PutNB(1, 0, []int64{1}); err != nil {
				return err
			}
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	require.NotNil(t, saved)
	pe := saved
	buf := make([]byte, 8)
	cases := []struct {
		name, op string
		bug      string
		call     func() error
	}{
		{"Put", "Put", "", func() error { return pe.Put(1, arr.Offset(), buf) }},
		{"Put to itself", "Put", "", func() error { return pe.Put(0, arr.Offset(), buf) }},
		{"Get", "Get", "", func() error { return pe.Get(1, arr.Offset(), buf) }},
		{"strict Put", "Put", "", func() error { return pe.With(pgas.Strict).Put(1, arr.Offset(), buf) }},
		{"PutNB", "PutNB", "", func() error { return errtNB(pe.PutNB(1, arr.Offset(), buf)) }},
		{"GetNBI", "GetNBI", "", func() error { return pe.GetNBI(1, arr.Offset(), buf) }},
		{"PutV", "PutV", "", func() error { return pe.PutV(1, []pgas.Span{{Off: arr.Offset(), Len: 8}}, [][]byte{buf}) }},
		{"GetStrided", "GetStrided", "", func() error {
			return pe.GetStrided(1, arr.Offset(), []int64{8}, buf, []int64{8}, []int64{8, 1})
		}},
		{"Array.Put", "Put", "", func() error { return arr.Put(1, 0, []int64{1}) }},
		{"Array.Get", "Get", "", func() error { return arr.Get(1, 0, make([]int64, 1)) }},
		{"Array.GetValue", "GetValue", "", func() error { _, err := arr.GetValue(0, 0); return err }},
		{"Array.PutIndexed", "PutIndexed", "", func() error { return arr.PutIndexed(1, []int{1}, []int64{1}) }},
		{"Barrier", "BarrierNotify", "", func() error { return pe.Barrier() }},
		{"BarrierWait", "BarrierWait", "", func() error { return pe.World().BarrierWait() }},
		{"team Barrier", "BarrierNotify", "", func() error { return team.Barrier() }},
		{"Quiet", "Quiet", "", func() error { return pe.Quiet() }},
		{"Fence", "Fence", "", func() error { return pe.Fence() }},
		{"SyncNBI", "SyncNBIPuts", "", func() error { return pe.SyncNBI() }},
		{"Poll", "Poll", "", func() error { return pe.Poll() }},
		{"WaitUntil", "WaitUntil", "", func() error { return pe.WaitUntil("errt: anything", func() bool { return true }) }},
		{"Alloc", "Alloc", "", func() error { _, err := pe.Alloc(64, 0); return err }},
		{"Free", "Free", "", func() error { return pe.Free(allocd) }},
		{"NewArray", "Alloc", "", func() error { _, err := pgas.NewArray[int64](pe, 4); return err }},
		{"Atomic", "Atomic", "", func() error { return pgas.Atomic(pe, pgas.AtomicAdd, arr.At(1, 0), 1) }},
		{"FetchAdd on itself", "FetchAtomic", "", func() error { _, err := pgas.FetchAdd(pe, arr.At(0, 0), 1); return err }},
		{"CompareSwap", "CompareSwap", "", func() error { _, err := pgas.CompareSwap(pe, arr.At(1, 0), 0, 1); return err }},
		{"AtomicLoad", "AtomicLoad", "", func() error { _, err := pgas.AtomicLoad(pe, arr.At(1, 0)); return err }},
		{"AtomicStore", "AtomicStore", "", func() error { return pgas.AtomicStore(pe, arr.At(1, 0), 1) }},
		{"AtomicNB", "AtomicNB", "", func() error { return errtNB(pgas.AtomicNB(pe, pgas.AtomicAdd, arr.At(1, 0), 1)) }},
		{"Handle.Wait of a handle left pending", "Wait", "", func() error { return pending.Wait() }},
		{"Handle.Test of a handle left pending", "Test", "", func() error { _, err := pending.Test(); return err }},
		{"BeginRegion", "BeginRegion", "", func() error { return pe.BeginRegion() }},
		{"EndRegion", "EndRegion", "", func() error { _, err := pe.EndRegion(); return err }},
		{"Lock", "Lock", "", func() error { return lock.Lock() }},
		{"TryLock", "TryLock", "", func() error { _, err := lock.TryLock(); return err }},
		{"Unlock", "Unlock", "", func() error { return lock.Unlock() }},
		{"Split", "Split", "", func() error { _, err := pe.World().Split(0, 0); return err }},
		{"Allreduce", "Allreduce", "", func() error { return pgas.Allreduce(pe.World(), pgas.Sum, []int64{1}, make([]int64, 1)) }},
		{"Broadcast", "Broadcast", "", func() error { return pgas.Broadcast(pe.World(), 0, []int64{1}) }},
		{"Local", "Local", "", func() error { _, err := pe.Local(arr.Offset(), 8); return err }},
		{"SetOrdering", "SetOrdering", "", func() error { return pe.SetOrdering(pgas.OrderStrict) }},
		{"AM RequestShort", "", "", func() error { return pe.AM().RequestShort(1, noop) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			var panicked any
			func() {
				defer func() { panicked = recover() }()
				err = c.call()
			}()
			if c.bug != "" {
				t.Logf("got: %v (panic: %v)", err, panicked)
				knownBug(t, c.bug)
			}
			require.Nil(t, panicked, "panicked")
			errtCheck(t, 0, errtCase{name: c.name, op: c.op, is: pgas.ErrEnded, want: []string{"returned"}, amLayer: strings.HasPrefix(c.name, "AM")}, err)
		})
	}
}

// errtSentinel is the error a PE's program returns on purpose.
var errtSentinel = errors.New("errt: deliberate failure")

// TestBadInputPanickingPE: a PE whose program panics ends the job; Run
// returns a *PanicError with its rank and value, and the other PEs'
// blocking calls fail with ErrJobAborted instead of hanging.
func TestBadInputPanickingPE(t *testing.T) {
	errs := make([]error, 3)
	err := errtRun(t, 20*time.Second, errtConfig(3), func(pe *pgas.PE) error {
		if pe.Rank() == 1 {
			panic("errt: deliberate panic")
		}
		errs[pe.Rank()] = pe.Barrier()
		return errs[pe.Rank()]
	})
	require.Error(t, err)
	var pan *pgas.PanicError
	require.ErrorAs(t, err, &pan, "%v", err)
	assert.Equal(t, 1, pan.PE)
	assert.Equal(t, "errt: deliberate panic", pan.Value)
	assert.Contains(t, string(pan.Stack), "errors_test.go", "the stack shows where the program panicked")
	assert.Contains(t, err.Error(), "PE 1 panicked: errt: deliberate panic")
	for _, r := range []int{0, 2} {
		if assert.Error(t, errs[r], "PE %d's Barrier", r) {
			assert.ErrorIs(t, errs[r], pgas.ErrJobAborted, "PE %d: %v", r, errs[r])
			assert.Contains(t, errs[r].Error(), "PE 1")
		}
	}
}

// TestBadInputFailingPE: the first error a PE's program returns is Run's
// error, and the other PEs, blocked wherever they are, end with errors
// wrapping ErrJobAborted.
func TestBadInputFailingPE(t *testing.T) {
	blockers := []struct {
		name  string
		block func(pe *pgas.PE, l *pgas.Lock) error
	}{
		{"Barrier", func(pe *pgas.PE, _ *pgas.Lock) error { return pe.Barrier() }},
		{"Allreduce", func(pe *pgas.PE, _ *pgas.Lock) error {
			return pgas.Allreduce(pe.World(), pgas.Sum, []int64{1}, make([]int64, 1))
		}},
		{"Broadcast from the failing PE", func(pe *pgas.PE, _ *pgas.Lock) error {
			return pgas.Broadcast(pe.World(), 1, make([]int64, 4))
		}},
		{"Lock held by the failing PE", func(pe *pgas.PE, l *pgas.Lock) error { return l.Lock() }},
	}
	for _, b := range blockers {
		t.Run(b.name, func(t *testing.T) {
			errs := make([]error, 3)
			err := errtRun(t, 20*time.Second, errtConfig(3), func(pe *pgas.PE) error {
				l, err := pgas.NewLock(pe)
				if err != nil {
					return err
				}
				if pe.Rank() == 1 {
					if err := l.Lock(); err != nil {
						return err
					}
				}
				// PE 1 may fail while the others are still on their way
				// out of this barrier: then it is the call the abort ends.
				if err := pe.Barrier(); err != nil {
					errs[pe.Rank()] = err
					return err
				}
				if pe.Rank() == 1 {
					return fmt.Errorf("errt: PE 1 gives up: %w", errtSentinel)
				}
				errs[pe.Rank()] = b.block(pe, l)
				return errs[pe.Rank()]
			})
			require.Error(t, err)
			assert.ErrorIs(t, err, errtSentinel, "%v", err)
			assert.NotErrorIs(t, err, pgas.ErrJobAborted, "Run returns the root cause, not an echo: %v", err)
			var pe *pgas.Error
			if assert.ErrorAs(t, err, &pe) {
				assert.Equal(t, 1, pe.PE)
			}
			for _, r := range []int{0, 2} {
				if assert.Error(t, errs[r], "PE %d stayed blocked (in %s) until the abort", r, b.name) {
					assert.ErrorIs(t, errs[r], pgas.ErrJobAborted, "PE %d: %v", r, errs[r])
					assert.Contains(t, errs[r].Error(), "PE 1 failed")
					assert.Contains(t, errs[r].Error(), "deliberate failure")
				}
			}
		})
	}
}

// TestBadInputCollectiveMismatch: PEs that disagree in a collective get
// ErrMismatch where the disagreement shows, and the team stays usable.
func TestBadInputCollectiveMismatch(t *testing.T) {
	errs := make([]error, 2)
	after := make([]error, 2)
	err := errtRun(t, 20*time.Second, errtConfig(2), func(pe *pgas.PE) error {
		buf := make([]int64, 2+pe.Rank()) // PE 0 broadcasts 2, PE 1 expects 3
		errs[pe.Rank()] = pgas.Broadcast(pe.World(), 0, buf)
		out := make([]int64, 1)
		after[pe.Rank()] = pgas.Allreduce(pe.World(), pgas.Sum, []int64{1}, out)
		if after[pe.Rank()] == nil && out[0] != 2 {
			after[pe.Rank()] = fmt.Errorf("errt: Allreduce gave %d", out[0])
		}
		return nil
	})
	require.NoError(t, err)
	assert.NoError(t, errs[0], "the root sees nothing wrong")
	errtCheck(t, 1, errtCase{op: "Broadcast", is: pgas.ErrMismatch, want: []string{"PE 0 contributed 16 bytes where 24 were expected"}}, errs[1])
	assert.NoError(t, after[0])
	assert.NoError(t, after[1])
}

// TestBadInputCollectiveRootOnlyCheck: a bad argument that only the root of
// a collective can see must not leave the team unusable.
func TestBadInputCollectiveRootOnlyCheck(t *testing.T) {
	errs := make([]error, 2)
	after := make([]error, 2)
	cfg := errtConfig(2)
	cfg.StallTimeout = 300 * time.Millisecond
	err := errtRun(t, 20*time.Second, cfg, func(pe *pgas.PE) error {
		errs[pe.Rank()] = pgas.Gather(pe.World(), 0, make([]int64, 1), make([]int64, 1))
		after[pe.Rank()] = pgas.Allreduce(pe.World(), pgas.Sum, []int64{1}, make([]int64, 1))
		return after[pe.Rank()]
	})
	require.NoError(t, err)
	errtCheck(t, 0, errtCase{op: "Gather", is: pgas.ErrArgument, want: []string{"out has 1 elements, want 2"}}, errs[0])
}

// TestBadInputAllocHuge: an allocation whose end overflows int64 is refused.
func TestBadInputAllocHuge(t *testing.T) {
	errs := make([]error, 2)
	offs := make([]int64, 2)
	err := errtRun(t, 20*time.Second, errtConfig(2), func(pe *pgas.PE) error {
		offs[pe.Rank()], errs[pe.Rank()] = pe.Alloc(math.MaxInt64, 0)
		return nil
	})
	require.NoError(t, err)
	t.Logf("Alloc(MaxInt64) returned offsets %v", offs)
	for r, e := range errs {
		errtCheck(t, r, errtCase{op: "Alloc", is: pgas.ErrNoMemory, want: []string{"largest free block"}}, e)
	}
}

// TestBadInputUnlockByNonHolder: Unlock of a lock another PE holds is an
// error, not a hang.
func TestBadInputUnlockByNonHolder(t *testing.T) {
	var unlockErr error
	cfg := errtConfig(2)
	cfg.StallTimeout = 300 * time.Millisecond
	err := errtRun(t, 20*time.Second, cfg, func(pe *pgas.PE) error {
		l, err := pgas.NewLock(pe)
		if err != nil {
			return err
		}
		if pe.Rank() == 1 {
			if err := l.Lock(); err != nil {
				return err
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			unlockErr = l.Unlock()
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 1 {
			return l.Unlock()
		}
		return nil
	})
	require.NoError(t, err)
	errtCheck(t, 0, errtCase{op: "Unlock", is: pgas.ErrArgument, want: []string{"not held"}}, unlockErr)
}

// TestBadInputDeadlock: PEs that wait for things that can never happen end
// the job with a *conduit.DeadlockError that names each PE and what it
// waits for, soon after the stall timeout, instead of hanging.
func TestBadInputDeadlock(t *testing.T) {
	cases := []struct {
		name     string
		pes      int
		waiting  map[int]string // rank -> what its wait names
		finished []int
		prog     func(pe *pgas.PE) error
	}{
		{
			name: "barrier against a broadcast nobody sends", pes: 2,
			waiting: map[int]string{0: "barrier", 1: "Broadcast"},
			prog: func(pe *pgas.PE) error {
				if pe.Rank() == 0 {
					return pe.Barrier()
				}
				return pgas.Broadcast(pe.World(), 0, make([]int64, 1))
			},
		},
		{
			name: "two PEs in BarrierWait of two different teams", pes: 2,
			waiting: map[int]string{0: "barrier", 1: "barrier"},
			prog: func(pe *pgas.PE) error {
				// Two teams of the same two PEs: PE 0 waits in one, PE 1
				// in the other.
				var teams [2]*pgas.Team
				for k := range teams {
					tm, err := pe.World().Split(0, pe.Rank())
					if err != nil {
						return err
					}
					teams[k] = tm
				}
				tm := teams[pe.Rank()]
				if err := tm.BarrierNotify(); err != nil {
					return err
				}
				return tm.BarrierWait()
			},
		},
		{
			name: "cycle of barriers of three different teams", pes: 3,
			waiting: map[int]string{0: "barrier", 1: "barrier", 2: "barrier"},
			prog: func(pe *pgas.PE) error {
				r := pe.Rank()
				// Team k holds PEs k and k+1 (mod 3); each PE waits in the
				// barrier of the team it shares with the next one, which
				// that one never enters.
				var teams [3]*pgas.Team
				for k := range 3 {
					color := -1
					if r == k || r == (k+1)%3 {
						color = 0
					}
					tm, err := pe.World().Split(color, r)
					if err != nil {
						return err
					}
					teams[k] = tm
				}
				return teams[r].Barrier()
			},
		},
		{
			name: "WaitUntil for a flag nobody sets", pes: 2,
			waiting: map[int]string{0: "errt: a flag nobody sets", 1: "barrier"},
			prog: func(pe *pgas.PE) error {
				if pe.Rank() == 0 {
					return pe.WaitUntil("errt: a flag nobody sets", func() bool { return false })
				}
				return pe.Barrier()
			},
		},
		{
			name: "one PE finished, the other in a barrier", pes: 2,
			waiting: map[int]string{1: "barrier"}, finished: []int{0},
			prog: func(pe *pgas.PE) error {
				if pe.Rank() == 0 {
					return nil
				}
				return pe.Barrier()
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := errtConfig(c.pes)
			cfg.Conduit = "smp" // the stall timeout is the real backend's
			cfg.StallTimeout = 200 * time.Millisecond
			start := time.Now()
			err := errtRun(t, 20*time.Second, cfg, c.prog)
			elapsed := time.Since(start)
			require.Error(t, err)
			var dl *conduit.DeadlockError
			require.ErrorAs(t, err, &dl, "%v", err)
			assert.Less(t, elapsed, 10*time.Second)
			assert.Len(t, dl.Waiting, len(c.waiting), "%v", err)
			for r, what := range c.waiting {
				assert.Contains(t, dl.Waiting[r], what, "PE %d: %v", r, err)
				assert.Contains(t, err.Error(), fmt.Sprintf("PE %d waits for", r))
			}
			assert.ElementsMatch(t, c.finished, dl.Finished, "%v", err)
			assert.NotContains(t, strings.TrimSpace(err.Error()), "\n")
		})
	}
}
