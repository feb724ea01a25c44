package fabric

import (
	"fmt"
	"os"
	"sort"

	"github.com/gopgas/gopgas/conduit"
)

// The hazard checker watches for a get that reads bytes of the target's
// memory which a put posted earlier (by any PE) is to write, before that
// put's data there is visible, so that it returns the old value. With
// relaxed ordering the get's request can overtake the put's packets in the
// network (adaptive routing) and its non-posted read can pass the put's
// posted writes at the target's host; a program that needs the new value
// must order the two itself (a strict access or a fence in the runtime).
// The checker cannot know whether the program meant the get to see the
// put: it reports every such overtaking, with the PEs, the bytes and the
// simulated times.

// Hazard is one get that read bytes around an earlier put.
type Hazard struct {
	Reader, Writer, Target int // ranks
	Region                 uint32
	Off, Bytes             int64 // the bytes both touched (offsets in the region)
	PutPosted, GetPosted   Time  // when each was posted
	ReadAt                 Time  // when the get read the memory
	ReaderOrder            conduit.OrderingMode
}

func (h Hazard) String() string {
	return fmt.Sprintf("hazard: PE %d's get (%v ordering, posted at %v) read PE %d's bytes [%d,+%d) of region %d at %v, before PE %d's put to them (posted at %v) was visible there",
		h.Reader, h.ReaderOrder, h.GetPosted, h.Target, h.Off, h.Bytes, h.Region, h.ReadAt, h.Writer, h.PutPosted)
}

// putTrack is a put whose data is not all visible yet.
type putTrack struct {
	t       *txn
	visible []bool // by packet (or coarse unit)
	left    int
}

type hazardChecker struct {
	m       *Machine
	mode    string
	pending map[[2]int][]*putTrack // by (target rank, region)
	tracks  map[*txn]*putTrack
	found   []Hazard
}

func newHazardChecker(m *Machine, mode string) *hazardChecker {
	if mode == "" || mode == "off" {
		return nil
	}
	return &hazardChecker{m: m, mode: mode, pending: make(map[[2]int][]*putTrack), tracks: make(map[*txn]*putTrack)}
}

func hazardKey(t *txn) [2]int { return [2]int{t.tep.Rank(), int(t.region)} }

// posted records a put as it is posted.
func (h *hazardChecker) posted(t *txn) {
	if h == nil || t.kind != pktPut {
		return
	}
	h.track(t)
}

// track starts following put t. It is apart from posted, which Post
// calls on the PE's stack, to keep Post's frame small.
//
//go:noinline
func (h *hazardChecker) track(t *txn) {
	pt := &putTrack{t: t, visible: make([]bool, t.npkts), left: int(t.npkts)}
	h.tracks[t] = pt
	k := hazardKey(t)
	h.pending[k] = append(h.pending[k], pt)
}

// writeVisible records that a put's packet is visible.
func (h *hazardChecker) writeVisible(t *txn, p *Packet) {
	if h == nil {
		return
	}
	pt := h.tracks[t]
	if pt == nil {
		return
	}
	i := int(p.off) / (max(int(t.unit), 1) * h.m.p.MaxPacketData)
	if i < len(pt.visible) && !pt.visible[i] {
		pt.visible[i] = true
		pt.left--
	}
	if pt.left == 0 {
		h.drop(pt)
	}
}

// ended forgets a transaction that ended without all its data (failed).
func (h *hazardChecker) ended(t *txn) {
	if h == nil {
		return
	}
	if pt := h.tracks[t]; pt != nil && t.status != conduit.StatusOK {
		h.drop(pt)
	}
}

func (h *hazardChecker) drop(pt *putTrack) {
	delete(h.tracks, pt.t)
	k := hazardKey(pt.t)
	l := h.pending[k]
	for i, x := range l {
		if x == pt {
			l = append(l[:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(h.pending, k)
	} else {
		h.pending[k] = l
	}
}

// read checks a get's read of packet p, now, against the puts posted
// before the get whose data there is not yet visible.
func (h *hazardChecker) read(t *txn, p *Packet, now Time) {
	if h == nil {
		return
	}
	lo := t.roff + int64(p.off)
	hi := lo + int64(p.n)
	var found []Hazard
	for _, pt := range h.pending[hazardKey(t)] {
		w := pt.t
		if w.born >= t.born || w.roff >= hi || w.roff+int64(w.size) <= lo {
			continue
		}
		// The put's units overlapping [lo, hi) that are not visible.
		u := int64(max(int(w.unit), 1) * h.m.p.MaxPacketData)
		first, last := (max(lo, w.roff)-w.roff)/u, (min(hi, w.roff+int64(w.size))-1-w.roff)/u
		for i := first; i <= last && int(i) < len(pt.visible); i++ {
			if pt.visible[i] {
				continue
			}
			o := max(lo, w.roff+i*u)
			e := min(hi, w.roff+(i+1)*u, w.roff+int64(w.size))
			found = append(found, Hazard{
				Reader: t.ep.Rank(), Writer: w.ep.Rank(), Target: t.tep.Rank(), Region: t.region,
				Off: o, Bytes: e - o, PutPosted: w.born, GetPosted: t.born, ReadAt: now, ReaderOrder: t.order,
			})
		}
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].Off != found[j].Off {
			return found[i].Off < found[j].Off
		}
		return found[i].Writer < found[j].Writer
	})
	for _, hz := range found {
		h.found = append(h.found, hz)
		h.m.stats.Hazards++
		switch h.mode {
		case "log":
			fmt.Fprintln(os.Stderr, h.m.name+":", hz)
		case "fail":
			h.m.k.Fail(fmt.Errorf("%s: %v", h.m.name, hz))
		}
	}
}
