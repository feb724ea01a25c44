package bench_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// quick is a small setup on the given backend.
func quick(conduit string) bench.Setup {
	return bench.Setup{Config: pgas.Config{Conduit: conduit}, Iterations: 3, Warmup: bench.NoWarmup, Window: 4}
}

// traced runs f with a buffer trace and returns the distinct send buffers
// of each size.
func traced(t *testing.T, f func() error) map[int]map[uintptr]int {
	var mu sync.Mutex
	seen := map[int]map[uintptr]int{}
	defer bench.SetBufferTrace(func(size int, buf []byte) {
		mu.Lock()
		defer mu.Unlock()
		if seen[size] == nil {
			seen[size] = map[uintptr]int{}
		}
		seen[size][uintptr(unsafe.Pointer(unsafe.SliceData(buf)))]++
	})()
	require.NoError(t, f())
	return seen
}

// -b single sends every message of a window from one buffer; -b multiple
// from a buffer per message, and afresh for each size.
func TestBuffers(t *testing.T) {
	s := quick("smp")
	s.Buffers = bench.BuffersSingle
	seen := traced(t, func() error { _, err := bench.MsgBW(s, []int{8, 16}); return err })
	assert.Len(t, seen[8], 1, "single: one send buffer")
	s.Buffers = bench.BuffersMultiple
	seen = traced(t, func() error { _, err := bench.MsgBW(s, []int{8, 16}); return err })
	assert.Len(t, seen[8], 4, "multiple: a buffer per message of the window of 4")
	for a := range seen[8] {
		assert.NotContains(t, seen[16], a, "multiple: the next size's buffers are new")
	}
	// Latency: both PEs send; multiple gives each size its own buffers.
	seen = traced(t, func() error { _, err := bench.MsgLatency(s, []int{8, 16}); return err })
	assert.Len(t, seen[8], 2)
	for a := range seen[8] {
		assert.NotContains(t, seen[16], a)
	}
}

// The one-sided bandwidth tests: -b single (the CLI's default, OSU's
// layout) moves every operation of a window from and to the same bytes;
// -b multiple, and the library's default, a slot per operation.
func TestOneSidedBuffers(t *testing.T) {
	for _, c := range []struct {
		b    bench.Buffers
		want int
	}{{bench.BuffersSingle, 1}, {bench.BuffersMultiple, 4}, {bench.BuffersWindow, 4}} {
		s := quick("smp")
		s.Buffers = c.b
		for name, f := range map[string]func(bench.Setup, []int) (*bench.Result, error){"put_bw": bench.PutBW, "get_bw": bench.GetBW, "put_bibw": bench.BiBW} {
			want := c.want
			if name == "put_bibw" {
				want *= 2 // both PEs put, each from its own buffers
			}
			seen := traced(t, func() error { _, err := f(s, []int{8, 16}); return err })
			assert.Len(t, seen[8], want, "%s, buffers %d: local buffers of a window of 4", name, c.b)
			assert.Len(t, seen[16], want, "%s, buffers %d", name, c.b)
		}
	}
}

// -u: under -c every iteration runs 1+N times, the first N untimed.
func TestValidationWarmup(t *testing.T) {
	s := quick("smp")
	s.Validate, s.ValidationWarmup = true, 2
	seen := traced(t, func() error {
		r, err := bench.MsgLatency(s, []int{8})
		if err == nil {
			assert.Zero(t, r.Points[0].Errors)
		}
		return err
	})
	n := 0
	for _, c := range seen[8] {
		n += c
	}
	// Two PEs, 3 iterations of 3 round trips each.
	assert.Equal(t, 2*3*3, n)
}

// -c log:DIR: a corrupted message fails validation and is described in
// DIR/log-RANK.log, element by element in the element type.
func TestValidationLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	s := quick("smp")
	s.Validate, s.ValidationLog, s.Datatype = true, dir, bench.Int
	var once sync.Once
	defer bench.SetBufferTrace(func(size int, buf []byte) {
		if size == 8 {
			once.Do(func() { buf[5] ^= 0xff }) // element 1 of the first message
		}
	})()
	r, err := bench.MsgBW(s, []int{2, 8})
	require.NoError(t, err)
	require.Len(t, r.Points, 1, "sizes below an MPI_INT are skipped")
	assert.Equal(t, 1, r.Points[0].Errors)
	b, err := os.ReadFile(filepath.Join(dir, "log-1.log"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 3, string(b))
	assert.Equal(t, "Size: 8, Iteration:0, Datatype: MPI_INT", lines[0])
	assert.Equal(t, []string{"Position", "Expected", "Actual"}, strings.Fields(lines[1]))
	assert.Equal(t, "1", strings.Fields(lines[2])[0])
}

// -w: allocate uses a segment area; create program memory registered
// once; dynamic program memory registered for each size.
func TestWinKinds(t *testing.T) {
	for _, kind := range []bench.WinKind{bench.WinAllocate, bench.WinCreate, bench.WinDynamic} {
		var bufs []uintptr
		var pinned []bool
		restore := bench.SetWinTrace(func(k bench.WinKind, buf []byte, p bool) {
			assert.Equal(t, kind, k)
			bufs = append(bufs, uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
			pinned = append(pinned, p)
		})
		s := quick("gemini")
		s.Win = kind
		r, err := bench.PutBW(s, []int{8, 64})
		restore()
		require.NoError(t, err, kind.OMBName())
		assert.Equal(t, kind.OMBName(), r.WinCreation)
		require.Len(t, pinned, 2, "one trace per size")
		assert.Equal(t, kind != bench.WinAllocate, pinned[0], "%s registered", kind.OMBName())
		assert.Equal(t, bufs[0], bufs[1])
	}
}

// -s: every synchronization runs to completion on both backends, and the
// ones that add messages per epoch (lock, pscw, fence) make a put's
// simulated latency longer than flush's.
func TestSyncKinds(t *testing.T) {
	lat := map[bench.SyncKind]float64{}
	for _, kind := range []bench.SyncKind{bench.SyncFlush, bench.SyncFlushLocal, bench.SyncLock, bench.SyncLockAll, bench.SyncPSCW, bench.SyncFence} {
		for _, c := range []string{"smp", "gemini"} {
			s := quick(c)
			s.Sync = kind
			r, err := bench.PutLatency(s, []int{8})
			require.NoError(t, err, "%s %s", c, kind.OMBName())
			assert.Equal(t, kind.OMBName(), r.Sync)
			if c == "gemini" {
				lat[kind] = r.Points[0].Value
			}
			_, err = bench.GetBW(s, []int{8})
			require.NoError(t, err, "%s %s", c, kind.OMBName())
			if kind == bench.SyncPSCW || kind == bench.SyncFence {
				_, err = bench.BiBW(s, []int{8})
				require.NoError(t, err, "%s %s", c, kind.OMBName())
			}
		}
	}
	for _, k := range []bench.SyncKind{bench.SyncLock, bench.SyncPSCW, bench.SyncFence} {
		assert.Greater(t, lat[k], lat[bench.SyncFlush], k.OMBName())
	}
	_, err := bench.BiBW(bench.Setup{Config: pgas.Config{Conduit: "smp"}, Sync: bench.SyncLock}, []int{8})
	assert.ErrorIs(t, err, bench.ErrBadSetup)
	// The zero Setup keeps put_bibw's plain windows, and says so.
	r, err := bench.BiBW(quick("gemini"), []int{8})
	require.NoError(t, err)
	assert.Empty(t, r.Sync)
}

// -l: the in-place collectives give the right results.
func TestInPlace(t *testing.T) {
	s := quick("smp")
	s.InPlace, s.Validate, s.Nodes, s.PPN = true, true, 2, 2
	for _, c := range []bench.Collective{bench.Allreduce, bench.Alltoall} {
		r, err := bench.Collectives(s, c, []int{8, 64})
		require.NoError(t, err)
		for _, p := range r.Points {
			assert.Zero(t, p.Errors, "%s %d", c, p.Size)
		}
	}
}

// -T: the element type's OSU name, the sizes of at least one element.
func TestDatatypes(t *testing.T) {
	for _, d := range bench.Datatypes {
		s := quick("smp")
		s.Datatype, s.Validate = d, true
		r, err := bench.MsgLatency(s, []int{1, 2, 4, 8})
		require.NoError(t, err)
		assert.Equal(t, d.OMBName(), r.Datatype)
		assert.Len(t, r.Points, map[int]int{1: 4, 4: 2}[d.Bytes()])
		for _, p := range r.Points {
			assert.Zero(t, p.Errors)
		}
	}
	_, err := bench.ParseDatatype("mpi_double")
	assert.ErrorContains(t, err, `"mpi_double"`)
}

// The atomic latency tests under every synchronization: -c finds the
// target word as the operations left it; -T mpi_int runs on an int32.
func TestAtomicSyncAndValidation(t *testing.T) {
	for _, kind := range []bench.SyncKind{bench.SyncFlush, bench.SyncLock, bench.SyncLockAll, bench.SyncPSCW, bench.SyncFence} {
		for _, name := range []string{"fop_latency", "cas_latency", "acc_latency"} {
			s := quick("gemini")
			s.Sync, s.Validate = kind, true
			if kind == bench.SyncFence {
				s.Datatype = bench.Int
			}
			r, err := bench.AtomicLatency(s, name)
			require.NoError(t, err, "%s %s", name, kind.OMBName())
			require.Len(t, r.Points, 1)
			assert.Zero(t, r.Points[0].Errors, "%s %s", name, kind.OMBName())
			assert.Equal(t, map[bool]int{true: 4, false: 8}[kind == bench.SyncFence], r.Points[0].Size)
		}
	}
	s := quick("smp")
	s.Datatype = bench.Float
	_, err := bench.AtomicLatency(s, "fop_latency")
	assert.ErrorIs(t, err, bench.ErrBadSetup)
}

// -u in the collectives: the untimed repetitions run on fresh input, so
// that validation still passes, in place or not.
func TestCollectiveValidationWarmup(t *testing.T) {
	for _, inPlace := range []bool{false, true} {
		s := quick("smp")
		s.Validate, s.ValidationWarmup, s.InPlace, s.Nodes, s.PPN = true, 2, inPlace, 1, 3
		for _, c := range []bench.Collective{bench.Broadcast, bench.Allreduce, bench.Alltoall} {
			r, err := bench.Collectives(s, c, []int{8, 32})
			require.NoError(t, err)
			for _, p := range r.Points {
				assert.Zero(t, p.Errors, "%s %d in place %v", c, p.Size, inPlace)
			}
		}
	}
}

// -D: the sender packs the layout's bytes, the receiver unpacks them into
// the same places; the message carries the layout's bytes only.
func TestLayouts(t *testing.T) {
	src := []byte("abcdefghijklmnop")
	file := filepath.Join(t.TempDir(), "indx")
	require.NoError(t, os.WriteFile(file, []byte("# displacement,length\n0,2\n5, 3\n14,4\n"), 0o644))
	for _, tc := range []struct {
		spec, msg, dst string
	}{
		{"cont", "abcdefghijklmnop", "abcdefghijklmnop"},
		{"vect:4:2", "abefijmn", "ab..ef..ij..mn.."},
		{"vect:8:3", "abcijk", "abc.....ijk....."},
		{"indx:" + file, "abfghop", "ab...fgh......op"},
	} {
		l, err := bench.ParseLayout(tc.spec, os.ReadFile)
		require.NoError(t, err, tc.spec)
		msg, dst := bench.RoundTrip(l, src)
		assert.Equal(t, tc.msg, string(msg), tc.spec)
		assert.Equal(t, tc.dst, strings.ReplaceAll(string(dst), "\x00", "."), tc.spec)
		assert.Equal(t, len(tc.msg), l.Transmit(len(src)), tc.spec)
	}
	for _, bad := range []string{"vect:0:2", "vect:4", "cont:1", "indx:", "strided:2", "indx:" + file + "x"} {
		_, err := bench.ParseLayout(bad, os.ReadFile)
		assert.Error(t, err, bad)
	}
	// A run: the points carry the transmit size, which the bandwidth
	// counts; validation is refused, as OSU's.
	l, _ := bench.ParseLayout("vect:4:1", os.ReadFile)
	s := quick("gemini")
	s.Layout = l
	r, err := bench.MsgBW(s, []int{64, 256})
	require.NoError(t, err)
	assert.True(t, r.DDT)
	assert.Equal(t, []int{16, 64}, []int{r.Points[0].Transmit, r.Points[1].Transmit})
	s.Validate = true
	_, err = bench.MsgLatency(s, []int{8})
	assert.ErrorIs(t, err, bench.ErrBadSetup)
}

// -T in the collectives: every type's elements move and add up right,
// in place or not; sizes below an element are skipped.
func TestCollectiveDatatypes(t *testing.T) {
	for _, d := range bench.Datatypes {
		for _, inPlace := range []bool{false, true} {
			s := quick("gemini")
			s.Datatype, s.Typed, s.Validate, s.InPlace, s.Nodes, s.PPN = d, true, true, inPlace, 2, 2
			for _, c := range []bench.Collective{bench.Broadcast, bench.Allreduce, bench.Alltoall} {
				r, err := bench.Collectives(s, c, []int{1, 2, 4, 64})
				require.NoError(t, err)
				assert.Equal(t, d.OMBName(), r.Datatype)
				assert.Len(t, r.Points, map[int]int{1: 4, 4: 2}[d.Bytes()], "%s %s", c, d.OMBName())
				for _, p := range r.Points {
					assert.Zero(t, p.Errors, "%s %s %d in place %v", c, d.OMBName(), p.Size, inPlace)
				}
			}
		}
	}
}

// osu_mbw_mr's -p: one pair of four PEs sends half the aggregate of two
// (the result says how many ran); more pairs than half the PEs, or a
// negative count, is a bad setup. -V: a figure and a rate per window.
func TestMBWMRPairsAndWindows(t *testing.T) {
	s := bench.Setup{Config: pgas.Config{Conduit: "gemini", Seed: 3}, Nodes: 2, PPN: 2, Iterations: 3, Warmup: 1, Window: 8}
	bw := map[int]float64{}
	for _, pairs := range []int{1, 2} {
		s.Pairs = pairs
		r, err := bench.MsgMBWMR(s, []int{1024})
		if err != nil {
			t.Fatal(err)
		}
		if r.Pairs != pairs || len(r.Points) != 1 {
			t.Fatalf("-p %d: result of %d pairs, %d points", pairs, r.Pairs, len(r.Points))
		}
		bw[pairs] = r.Points[0].Value
	}
	if !(bw[2] > 1.5*bw[1]) {
		t.Errorf("one pair %.2f MB/s, two %.2f MB/s: want two well above one", bw[1], bw[2])
	}
	for _, bad := range []int{3, -1} {
		s.Pairs = bad
		if _, err := bench.MsgMBWMR(s, []int{8}); !errors.Is(err, bench.ErrBadSetup) || !strings.Contains(err.Error(), fmt.Sprintf("%d pairs", bad)) {
			t.Errorf("%d pairs of 4 PEs: %v", bad, err)
		}
	}
	s.Pairs, s.VaryWindow, s.Iterations = 0, true, 1
	r, err := bench.MsgMBWMR(s, []int{8, 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Points {
		if len(r.Windows) != len(bench.VariedWindows) || len(p.ByWindow) != len(r.Windows) || len(p.RateByWindow) != len(r.Windows) {
			t.Fatalf("size %d: windows %v, figures %v, rates %v", p.Size, r.Windows, p.ByWindow, p.RateByWindow)
		}
		// Deeper windows overlap more messages: 128 beats 1.
		if !(p.ByWindow[len(p.ByWindow)-1] > p.ByWindow[0]) {
			t.Errorf("size %d: window 1 %.2f MB/s, window 128 %.2f", p.Size, p.ByWindow[0], p.ByWindow[len(p.ByWindow)-1])
		}
	}
}
