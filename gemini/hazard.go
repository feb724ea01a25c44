package gemini

import (
	"fmt"
	"os"
	"sort"

	"github.com/gopgas/gopgas/conduit"
)

// The hazard checker watches for the race of MOP IV.A, Figure 7: a put
// acknowledged (so complete, for its issuer) but not yet visible in the
// target's memory, and a get of the same bytes that reads the memory in
// between, getting the old value. Under strict ordering the get cannot pass
// the write and waits; under default or relaxed ordering it may.

// Hazard is one get that read around a put.
type Hazard struct {
	Reader, Writer, Target int // ranks
	Region                 uint32
	Off, Bytes             int64 // the bytes both touched
	PutAcked, PutVisible   Time  // when the put was acknowledged and became visible
	ReadAt                 Time  // when the get read the memory
	ReaderOrder            conduit.OrderingMode
}

func (h Hazard) String() string {
	return fmt.Sprintf("hazard: PE %d's %v get read PE %d's bytes [%d,+%d) (region %d) at %v, after PE %d's put to them was acknowledged at %v but before it became visible at %v",
		h.Reader, h.ReaderOrder, h.Target, h.Off, h.Bytes, h.Region, h.ReadAt, h.Writer, h.PutAcked, h.PutVisible)
}

type pendingWrite struct {
	t       *txn
	off     int64 // in the region
	n       int64
	acked   Time
	visible Time
}

type hazardChecker struct {
	m       *machine
	mode    string
	pending map[[2]int]map[*packet]pendingWrite // by (target rank, region)
	found   []Hazard
}

func newHazardChecker(m *machine, mode string) *hazardChecker {
	if mode == "" || mode == "off" {
		return nil
	}
	return &hazardChecker{m: m, mode: mode, pending: make(map[[2]int]map[*packet]pendingWrite)}
}

func (h *hazardChecker) writePending(t *txn, p *packet, acked, visible Time) {
	if h == nil {
		return
	}
	k := [2]int{t.tep.Rank(), int(t.region)}
	if h.pending[k] == nil {
		h.pending[k] = make(map[*packet]pendingWrite)
	}
	h.pending[k][p] = pendingWrite{t: t, off: t.roff + p.off, n: int64(p.n), acked: acked, visible: visible}
}

func (h *hazardChecker) writeVisible(t *txn, p *packet) {
	if h == nil {
		return
	}
	delete(h.pending[[2]int{t.tep.Rank(), int(t.region)}], p)
}

// read checks a get's read, now, against the pending writes.
func (h *hazardChecker) read(t *txn, p *packet, now Time) {
	if h == nil {
		return
	}
	lo, hi := t.roff+p.off, t.roff+p.off+int64(p.n)
	var found []Hazard
	for _, w := range h.pending[[2]int{t.tep.Rank(), int(t.region)}] {
		if w.acked > now || w.off >= hi || w.off+w.n <= lo {
			continue
		}
		o := max(lo, w.off)
		found = append(found, Hazard{
			Reader: t.ep.Rank(), Writer: w.t.ep.Rank(), Target: t.tep.Rank(), Region: t.region,
			Off: o, Bytes: min(hi, w.off+w.n) - o, PutAcked: w.acked, PutVisible: w.visible, ReadAt: now, ReaderOrder: t.order,
		})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Off < found[j].Off })
	for _, hz := range found {
		h.found = append(h.found, hz)
		switch h.mode {
		case "log":
			fmt.Fprintln(os.Stderr, "gemini:", hz)
		case "fail":
			h.m.k.Fail(fmt.Errorf("gemini: %v", hz))
		}
	}
}
