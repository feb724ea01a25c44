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
	visible []Time // by packet (or coarse unit): when it became visible, notVisible until then
	left    int
}

// notVisible marks a put's unit whose data is not visible yet.
const notVisible Time = -1

type hazardChecker struct {
	m       *Machine
	mode    string
	pending map[[2]int][]*putTrack // by (target rank, region)
	tracks  map[*txn]*putTrack
	found   []Hazard
	// log, in a partitioned machine's checkers (one per partition), takes
	// down what happens in the partition's window instead; the machine's
	// first checker judges all of it at the window's end (settle).
	log *hazardLog
}

func newHazardChecker(m *Machine, mode string) *hazardChecker {
	if mode == "" || mode == "off" {
		return nil
	}
	return &hazardChecker{m: m, mode: mode, pending: make(map[[2]int][]*putTrack), tracks: make(map[*txn]*putTrack)}
}

// A partitioned machine's hazard checker. A put is posted in its source's
// partition, its data becomes visible and gets read in its target's, so
// no partition can hold the puts' state while the others run. Each
// partition's checker logs its posts, visible units, reads and failed
// puts during a window, and at the window's end, while no partition runs,
// the shared checker takes every partition's posts, then their visible
// units (with their times), then judges the window's reads in the order of
// their times (then partition, then order in the partition): a read at R
// finds the puts posted before its get whose units were not visible at R.
// Then the puts whose data is all visible are forgotten. A read and the
// put it missed are always in one window or the put was posted in an
// earlier one, so every hazard one kernel would find at those times is
// found, and the result does not depend on the workers.

// hazardLog is what one partition's checker took down in a window.
type hazardLog struct {
	posts []*txn
	seen  []unitSeen
	reads []hazardRead
	ends  []*txn
}

type unitSeen struct {
	t    *txn
	unit int
	at   Time
}

type hazardRead struct {
	t      *txn
	lo, hi int64
	at     Time
	m      *Machine // the partition's
}

// partition gives each of a partitioned machine's parts a checker that
// logs, and has the shared one judge at every window's end.
func (h *hazardChecker) partition(parts []*Machine, between func(func(Time))) {
	for _, c := range parts {
		c.hazards = &hazardChecker{m: c, mode: h.mode, log: &hazardLog{}}
	}
	between(func(Time) { h.settle(parts) })
}

// settle judges what the partitions logged in the window just run.
func (h *hazardChecker) settle(parts []*Machine) {
	for _, c := range parts {
		for _, t := range c.hazards.log.posts {
			h.track(t)
		}
	}
	for _, c := range parts {
		for _, s := range c.hazards.log.seen {
			if pt := h.tracks[s.t]; pt != nil && pt.visible[s.unit] == notVisible {
				pt.visible[s.unit] = s.at
				pt.left--
			}
		}
	}
	var reads []hazardRead
	for _, c := range parts {
		reads = append(reads, c.hazards.log.reads...)
	}
	sort.SliceStable(reads, func(i, j int) bool { return reads[i].at < reads[j].at })
	for _, r := range reads {
		h.check(r.m, r.t, r.lo, r.hi, r.at)
	}
	for _, c := range parts {
		l := c.hazards.log
		for _, s := range l.seen {
			if pt := h.tracks[s.t]; pt != nil && pt.left == 0 {
				h.drop(pt)
			}
		}
		for _, t := range l.ends {
			h.ended(t)
		}
		clear(l.posts)
		clear(l.seen)
		clear(l.reads)
		clear(l.ends)
		l.posts, l.seen, l.reads, l.ends = l.posts[:0], l.seen[:0], l.reads[:0], l.ends[:0]
	}
}

func hazardKey(t *txn) [2]int { return [2]int{t.tep.Rank(), int(t.region)} }

// posted records a put as it is posted.
func (h *hazardChecker) posted(t *txn) {
	if h == nil || t.kind != pktPut {
		return
	}
	if h.log != nil {
		h.log.posts = append(h.log.posts, t)
		return
	}
	h.track(t)
}

// track starts following put t. It is apart from posted, which Post
// calls on the PE's stack, to keep Post's frame small.
//
//go:noinline
func (h *hazardChecker) track(t *txn) {
	pt := &putTrack{t: t, visible: make([]Time, t.npkts), left: int(t.npkts)}
	for i := range pt.visible {
		pt.visible[i] = notVisible
	}
	h.tracks[t] = pt
	k := hazardKey(t)
	h.pending[k] = append(h.pending[k], pt)
}

// writeVisible records that a put's packet is visible.
func (h *hazardChecker) writeVisible(t *txn, p *Packet) {
	if h == nil {
		return
	}
	i := int(p.off) / (max(int(t.unit), 1) * h.m.p.MaxPacketData)
	if h.log != nil {
		if i < int(t.npkts) {
			h.log.seen = append(h.log.seen, unitSeen{t: t, unit: i, at: h.m.k.Now()})
		}
		return
	}
	pt := h.tracks[t]
	if pt == nil {
		return
	}
	if i < len(pt.visible) && pt.visible[i] == notVisible {
		pt.visible[i] = h.m.k.Now()
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
	if h.log != nil {
		h.log.ends = append(h.log.ends, t)
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
	if h.log != nil {
		h.log.reads = append(h.log.reads, hazardRead{t: t, lo: lo, hi: hi, at: now, m: h.m})
		return
	}
	h.check(h.m, t, lo, hi, now)
}

// check checks get t's read of [lo, hi) at now, at a target on m (its
// partition's), against the puts posted before the get whose data there
// was not visible at now.
func (h *hazardChecker) check(m *Machine, t *txn, lo, hi int64, now Time) {
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
			if v := pt.visible[i]; v != notVisible && v <= now {
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
		m.stats.Hazards++
		switch h.mode {
		case "log":
			fmt.Fprintln(os.Stderr, m.name+":", hz)
		case "fail":
			m.k.Fail(fmt.Errorf("%s: %v", m.name, hz))
		}
	}
}
