package hugepage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Size is the huge page size collapsed into: x86-64's and arm64's 2 MiB.
const Size = 2 << 20

// Interval is how often the process's mappings are looked at again while
// a simulation holds the advice.
const Interval = 250 * time.Millisecond

// Env is the environment variable that turns the advice off: off, 0,
// false or no.
const Env = "PGAS_HUGEPAGES"

// span is a range of addresses [lo, hi).
type span struct{ lo, hi uintptr }

// advisor is the process's state: the holds of running simulations, and
// the buffers of its looks at the mappings, with which a look allocates
// nothing once they have grown (the simulations' steady state is
// allocation-free, and the heap's counts are the process's).
type advisor struct {
	mu    sync.Mutex
	holds int
	// stop ends the goroutine that looks again every Interval (nil:
	// none runs).
	stop chan struct{}
	// read reads the process's mappings into buf, grown as needed;
	// resident sets vec[i] odd when page i of [lo, hi) is in memory
	// (mincore); collapse puts [lo, hi) on huge pages (MADV_COLLAPSE).
	read     func(buf []byte) ([]byte, error)
	resident func(lo, hi uintptr, vec []byte) error
	collapse func(lo, hi uintptr)
	buf      []byte
	spans    []span
	parts    []span
	vec      []byte
	// done is the huge pages' worths collapsed, or tried and refused
	// (sorted, disjoint): a look does not try them again. It is
	// forgotten when a hold is taken, at most every Forget: memory the
	// Go runtime gives back splits its huge pages, and a new machine is
	// built in that memory.
	done   []span
	forgot time.Time
}

var proc = &advisor{read: readMaps, resident: residentPages, collapse: collapseRange}

// Forget is how often at most a hold makes the looks try every huge
// page's worth again.
const Forget = 2 * time.Second

// pageSize is the small page whose residency decides whether a huge
// page's worth is collapsed.
const pageSize = 4096

// denseSixteenths is how much of a huge page's worth must be resident,
// in sixteenths, for it to be collapsed: collapsing fills the rest, so
// sparse memory (a segment a job touches here and there, a large slice
// mostly unused) stays on small pages and costs no more than it did, and
// what the Go runtime has given back to the system and collapsing takes
// again is at most a sixteenth of what is collapsed.
const denseSixteenths = 15

// Enabled says whether the advice is given: on Linux, unless Env says
// off.
func Enabled() bool {
	if !supported {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv(Env))) {
	case "off", "0", "false", "no":
		return false
	}
	return true
}

// Hold is called by a simulation as it starts to build or run: the heap
// is collapsed now, and again every Interval until every hold is released.
// The returned function releases the hold (once, however often called).
func Hold() (release func()) {
	if !Enabled() {
		return func() {}
	}
	return proc.hold()
}

func (a *advisor) hold() func() {
	a.mu.Lock()
	a.holds++
	if now := time.Now(); now.Sub(a.forgot) >= Forget {
		a.done, a.forgot = a.done[:0], now
	}
	a.scanLocked()
	if a.stop == nil {
		a.stop = make(chan struct{})
		go a.loop(a.stop)
	}
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			if a.holds--; a.holds == 0 {
				close(a.stop) // the loop ends at once
				a.stop = nil
			}
			a.mu.Unlock()
		})
	}
}

// loop looks at the mappings every Interval until stop is closed.
func (a *advisor) loop(stop chan struct{}) {
	t := time.NewTicker(Interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		a.mu.Lock()
		if a.stop == stop {
			a.scanLocked()
		}
		a.mu.Unlock()
	}
}

// scanLocked collapses the huge pages' worths of the heap's mappings
// that are resident enough and not tried yet.
func (a *advisor) scanLocked() {
	text, err := a.read(a.buf)
	a.buf = text[:0]
	if err != nil {
		return
	}
	a.spans = heapSpans(a.spans[:0], text)
	for _, s := range a.spans {
		a.parts = uncovered(a.parts[:0], a.done, s)
		for _, p := range a.parts {
			a.collapseDense(p)
		}
	}
}

// collapseDense collapses the huge pages' worths of p (aligned) of which
// at least denseSixteenths are resident, and counts them done.
func (a *advisor) collapseDense(p span) {
	n := int((p.hi - p.lo) / pageSize)
	if cap(a.vec) < n {
		a.vec = make([]byte, n)
	}
	vec := a.vec[:n]
	if a.resident(p.lo, p.hi, vec) != nil {
		return // unmapped meanwhile: the next look sees what is there
	}
	const per = Size / pageSize
	for i := 0; i < n; i += per {
		in := 0
		for _, v := range vec[i : i+per] {
			in += int(v & 1)
		}
		if in*16 >= per*denseSixteenths {
			lo := p.lo + uintptr(i)*pageSize
			a.collapse(lo, lo+Size)
			a.done = insert(a.done, span{lo, lo + Size})
		}
	}
}

// maps is /proc/self/maps, kept open: each look reads it again from the
// start.
var (
	mapsOnce sync.Once
	maps     *os.File
	mapsErr  error
)

// readMaps reads /proc/self/maps into buf, grown until the text fits.
func readMaps(buf []byte) ([]byte, error) {
	mapsOnce.Do(func() { maps, mapsErr = os.Open("/proc/self/maps") })
	if mapsErr != nil {
		return buf[:0], mapsErr
	}
	if cap(buf) < 64<<10 {
		buf = make([]byte, 64<<10)
	}
	buf = buf[:cap(buf)]
	for {
		n, err := maps.ReadAt(buf, 0)
		if errors.Is(err, io.EOF) || err == nil && n < len(buf) {
			return buf[:n], nil
		}
		if err != nil {
			return buf[:0], err
		}
		buf = make([]byte, 2*len(buf))
	}
}

// heapSpans appends to out the huge-page-aligned parts, of a huge page or
// more, of the private writable anonymous mappings in a /proc/self/maps
// text: the Go heap (no name, or "[anon: Go: heap]" where the kernel
// names mappings), the brk heap and other anonymous memory; not the
// stack, files or shared memory.
func heapSpans(out []span, text []byte) []span {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		var f [6][]byte // range, perms, offset, device, inode, name
		n := 0
		for n < 5 {
			line = bytes.TrimLeft(line, " \t")
			if len(line) == 0 {
				break
			}
			i := bytes.IndexAny(line, " \t")
			if i < 0 {
				i = len(line)
			}
			f[n], line = line[:i], line[i:]
			n++
		}
		f[5] = bytes.TrimSpace(line)
		if n < 5 || string(f[1]) != "rw-p" || string(f[4]) != "0" {
			continue
		}
		if name := f[5]; len(name) > 0 && string(name) != "[heap]" && !bytes.HasPrefix(name, []byte("[anon:")) {
			continue
		}
		i := bytes.IndexByte(f[0], '-')
		if i < 0 {
			continue
		}
		l, ok1 := hex(f[0][:i])
		h, ok2 := hex(f[0][i+1:])
		if !ok1 || !ok2 {
			continue
		}
		if s := (span{uintptr((l + Size - 1) &^ (Size - 1)), uintptr(h &^ (Size - 1))}); s.lo < s.hi {
			out = append(out, s)
		}
	}
	return out
}

// hex is the value of a hexadecimal address.
func hex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// uncovered appends to out the parts of s that no span of done (sorted,
// disjoint) covers.
func uncovered(out, done []span, s span) []span {
	lo := s.lo
	i, _ := slices.BinarySearchFunc(done, lo, func(d span, x uintptr) int {
		switch {
		case d.hi <= x:
			return -1
		case d.lo > x:
			return 1
		}
		return 0
	})
	for ; i < len(done) && lo < s.hi; i++ {
		d := done[i]
		if d.lo >= s.hi {
			break
		}
		if d.lo > lo {
			out = append(out, span{lo, d.lo})
		}
		lo = max(lo, d.hi)
	}
	if lo < s.hi {
		out = append(out, span{lo, s.hi})
	}
	return out
}

// insert adds p, which no span of done overlaps, to done (sorted,
// disjoint), merging it with the spans it touches.
func insert(done []span, p span) []span {
	i, _ := slices.BinarySearchFunc(done, p.lo, func(d span, x uintptr) int {
		switch {
		case d.lo < x:
			return -1
		case d.lo > x:
			return 1
		}
		return 0
	})
	done = slices.Insert(done, i, p)
	if i+1 < len(done) && done[i].hi == done[i+1].lo {
		done[i].hi = done[i+1].hi
		done = slices.Delete(done, i+1, i+2)
	}
	if i > 0 && done[i-1].hi == done[i].lo {
		done[i-1].hi = done[i].hi
		done = slices.Delete(done, i, i+1)
	}
	return done
}
