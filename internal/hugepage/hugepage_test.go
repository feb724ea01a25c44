package hugepage

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mb = 1 << 20

// sample is a /proc/self/maps text: the Go heap (unnamed, and named),
// a file's data, the stack, a shared mapping, a read-only one, a brk heap
// smaller than a huge page, and a malformed line.
const sample = `00400000-00a00000 r-xp 00000000 fe:00 1234    /usr/bin/prog
00a00000-00c00000 rw-p 00600000 fe:00 1234    /usr/bin/prog
00c00000-02e00000 rw-p 00000000 00:00 0
c000000000-c004000000 rw-p 00000000 00:00 0
c004000000-c008100000 rw-p 00000000 00:00 0                            [anon: Go: heap]
7f0000000000-7f0000800000 rw-s 00000000 00:05 99                       /dev/shm/x
7f0000800000-7f0001000000 r--p 00000000 00:00 0
7ffe00000000-7ffe00400000 rw-p 00000000 00:00 0                        [stack]
55d000000000-55d000021000 rw-p 00000000 00:00 0                        [heap]
zz-yy rw-p 00000000 00:00 0
`

func TestHeapSpans(t *testing.T) {
	got := heapSpans(nil, []byte(sample))
	assert.Equal(t, []span{
		{0x00c00000, 0x02e00000},     // anonymous, aligned already
		{0xc000000000, 0xc004000000}, // the Go heap
		{0xc004000000, 0xc008000000}, // named, its tail short of a huge page left out
	}, got)
}

func TestUncoveredAndInsert(t *testing.T) {
	var done []span
	done = insert(done, span{4 * mb, 8 * mb})
	done = insert(done, span{12 * mb, 16 * mb})
	assert.Equal(t, []span{{0, 4 * mb}, {8 * mb, 12 * mb}, {16 * mb, 20 * mb}}, uncovered(nil, done, span{0, 20 * mb}))
	assert.Empty(t, uncovered(nil, done, span{4 * mb, 8 * mb}), "done already")
	assert.Equal(t, []span{{8 * mb, 10 * mb}}, uncovered(nil, done, span{6 * mb, 10 * mb}))
	done = insert(done, span{8 * mb, 12 * mb})
	assert.Equal(t, []span{{4 * mb, 16 * mb}}, done, "touching spans merge")
	done = insert(done, span{0, 2 * mb})
	assert.Equal(t, []span{{0, 2 * mb}, {4 * mb, 16 * mb}}, done)
}

// fake is an advisor over a maps text whose memory is resident where
// dense says (a huge page's worth of addresses a count of resident
// pages, all of it by default), recording what it collapses.
type fake struct {
	mu        sync.Mutex
	text      string
	dense     map[uintptr]int
	collapsed []span
}

func (f *fake) advisor() *advisor {
	return &advisor{
		read: func(buf []byte) ([]byte, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return append(buf[:0], f.text...), nil
		},
		resident: func(lo, hi uintptr, vec []byte) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			for i := range vec {
				hp := (lo + uintptr(i)*pageSize) &^ (Size - 1)
				n, ok := f.dense[hp]
				if !ok {
					n = Size / pageSize
				}
				vec[i] = b2u(i%(Size/pageSize) < n)
			}
			return nil
		},
		collapse: func(lo, hi uintptr) { f.mu.Lock(); f.collapsed = append(f.collapsed, span{lo, hi}); f.mu.Unlock() },
	}
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// TestCollapsesDense: a hold collapses every huge page's worth of the
// heap's mappings that is at least 15/16 resident, a later look only what
// has become dense or been mapped since, a hold Forget later all of them
// again (memory given back splits huge pages), and a released hold stops
// the looking.
func TestCollapsesDense(t *testing.T) {
	f := &fake{
		text: "c000000000-c000800000 rw-p 00000000 00:00 0\n",
		// The second huge page's worth is half resident, the third
		// 15/16, the fourth one page short of it.
		dense: map[uintptr]int{0xc000200000: 256, 0xc000400000: 480, 0xc000600000: 479},
	}
	a := f.advisor()
	release := a.hold()
	f.mu.Lock()
	assert.Equal(t, []span{{0xc000000000, 0xc000200000}, {0xc000400000, 0xc000600000}}, f.collapsed, "the dense ones")
	f.collapsed = nil
	// A sparse one fills, and the mapping grows.
	delete(f.dense, 0xc000200000)
	f.text = "c000000000-c000a00000 rw-p 00000000 00:00 0\n"
	f.mu.Unlock()
	a.mu.Lock()
	a.scanLocked()
	a.mu.Unlock()
	f.mu.Lock()
	assert.Equal(t, []span{{0xc000200000, 0xc000400000}, {0xc000800000, 0xc000a00000}}, f.collapsed, "only what is new, or newly dense")
	f.collapsed = nil
	f.mu.Unlock()
	// A second hold soon after tries nothing again; one Forget later,
	// every dense one.
	a.hold()()
	assert.Empty(t, f.collapsed)
	a.mu.Lock()
	a.forgot = a.forgot.Add(-Forget)
	a.mu.Unlock()
	a.hold()()
	assert.Len(t, f.collapsed, 4)
	release()
	release() // a second call does nothing
	a.mu.Lock()
	assert.Zero(t, a.holds)
	assert.Nil(t, a.stop, "the loop was told to stop")
	a.mu.Unlock()
}

// TestOffSwitch: PGAS_HUGEPAGES=off gives no advice.
func TestOffSwitch(t *testing.T) {
	for _, v := range []string{"off", "0", "false", "NO"} {
		t.Setenv(Env, v)
		assert.False(t, Enabled(), v)
	}
	t.Setenv(Env, "")
	assert.Equal(t, supported, Enabled())
}

// TestHugePagesGiven is the advice on this process: memory the heap
// holds when a hold is taken ends up on huge pages, where the kernel has
// transparent huge pages at all.
func TestHugePagesGiven(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are advised on Linux only")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("this kernel gives no transparent huge pages")
	}
	before := anonHuge(t)
	b := make([]byte, 64*mb)
	for i := range b {
		b[i] = byte(i)
	}
	release := Hold()
	defer release()
	after := anonHuge(t)
	if after-before < 32*mb {
		t.Skipf("the kernel collapsed %d MiB of a 64 MiB buffer into huge pages: none free, or no MADV_COLLAPSE (Linux 6.1)", (after-before)/mb)
	}
	// A sparse buffer (a page touched in every 64) stays on small pages:
	// collapsing would make it resident whole.
	sparse := make([]byte, 64*mb)
	for i := 0; i < len(sparse); i += 64 * pageSize {
		sparse[i] = 1
	}
	proc.mu.Lock()
	proc.scanLocked()
	proc.mu.Unlock()
	assert.Less(t, anonHuge(t)-after, int64(4*mb), "the sparse buffer was not collapsed")
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d of the buffer is %d after the collapse, not %d", i, b[i], byte(i))
		}
	}
}

// anonHuge is the process's anonymous memory on huge pages, in bytes.
func anonHuge(t *testing.T) int64 {
	text, err := os.ReadFile("/proc/self/smaps_rollup")
	require.NoError(t, err)
	for _, line := range strings.Split(string(text), "\n") {
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			var kb int64
			_, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Skip("no AnonHugePages in smaps_rollup")
	return 0
}
