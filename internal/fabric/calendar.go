package fabric

import "unsafe"

// A Calendar is one direction of a host link, for a backend's Host: it is
// booked in the order the NIC's events ask, but not necessarily in the
// order of the times they ask for. A read's data is booked when the read is
// issued, for when memory returns it; the CPU's stores to the NIC
// (descriptors, FMA windows) asked for meanwhile travel in another virtual
// channel of the link and take its idle time before that data instead of
// queueing behind it, as a single next-free time would make them. A
// booking takes the earliest gap at or after its time that holds it, and
// starts after every booking asked for no later, so that one stream keeps
// its order. The zero Calendar is an idle link.
//
// The calendar keeps calendarBookings separate busy intervals (touching
// ones merge); the oldest ones merge into a floor no booking starts
// before. That bound is a simulation device, not a hardware figure: at
// worst a store waits that could have used a gap among old bookings. Its
// room for them is made as they come (calendarFirst, then twice as much
// up to calendarBookings): most nodes' links hold a few at a time.
type Calendar struct {
	floor Time
	n     int
	b     []booking // room for bookings; the first n are the calendar's
}

// calendarBookings is the most bookings a calendar keeps, and
// calendarFirst the room its first booking makes. Assumed: a node's
// host-to-NIC link holds up to 16 bookings in the full-system benchmark's
// traffic (16 puts each way); 8 at first lets a quiet node's calendar take a
// quarter of the room.
const (
	calendarBookings = 32
	calendarFirst    = 8
)

// booking is a busy interval of a calendar: transfers back to back, in
// the order of the times they asked for, from first to last.
type booking struct{ from, to, first, last Time }

// Book books d of link time at or after t and returns when it ends.
func (c *Calendar) Book(t, d Time) Time {
	if c.n == calendarBookings {
		c.floor = max(c.floor, c.b[0].to)
		copy(c.b[:c.n-1], c.b[1:c.n])
		c.n--
	}
	start, i := c.gap(t, d, c.ended(t))
	end := start + d
	// It merges with a booking it touches if the times asked for stay in
	// order along the interval (so that a booking that must follow one of
	// them follows the whole interval).
	switch {
	case i > 0 && c.b[i-1].to == start && c.b[i-1].last <= t:
		p := &c.b[i-1]
		p.to, p.last = end, t
		if i < c.n && c.b[i].from == end && t <= c.b[i].first {
			p.to, p.last = c.b[i].to, c.b[i].last
			copy(c.b[i:c.n-1], c.b[i+1:c.n])
			c.n--
		}
	case i < c.n && c.b[i].from == end && t <= c.b[i].first:
		c.b[i].from, c.b[i].first = start, t
	default:
		if c.n == len(c.b) {
			b := make([]booking, max(calendarFirst, min(2*c.n, calendarBookings)))
			copy(b, c.b)
			c.b = b
		}
		copy(c.b[i+1:c.n+1], c.b[i:c.n])
		c.b[i] = booking{start, end, t, t}
		c.n++
	}
	return end
}

// ended is how many of the first bookings end by t. The bookings, in
// order, end in order, and those that end by t bear on nothing a booking
// at t does (its start is at or after t): gap may skip them. A calendar,
// whose oldest bookings leave only when it is full, holds mostly those.
func (c *Calendar) ended(t Time) int {
	lo, hi := 0, c.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.b[m].to <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// gap is where a booking of d at or after t goes, reading the bookings
// from the lo-th: its start, after every booking asked for no later, in
// the earliest gap that holds it; and the index of the first booking
// after it.
func (c *Calendar) gap(t, d Time, lo int) (start Time, i int) {
	start = max(t, c.floor)
	for i := lo; i < c.n; i++ {
		if c.b[i].first <= t {
			start = max(start, c.b[i].to)
		}
	}
	for i = lo; i < c.n; i++ {
		if c.b[i].to <= start {
			continue
		}
		if start+d <= c.b[i].from {
			break
		}
		start = c.b[i].to
	}
	return start, i
}

// Times is a ring of times by slot for a backend's host interface (its
// posted-write slots, its page-table fetches in flight): every slot is
// zero until set. Its slots are made timesPiece at a time, when one of
// them is first set, so that a node that uses a few costs a few.
type Times struct {
	pieces []*[timesPiece]Time
}

// timesPiece is how many slots a piece of Times holds.
const timesPiece = 16

// At is slot i's time (zero if never set).
func (s *Times) At(i int) Time {
	if k := i / timesPiece; k < len(s.pieces) && s.pieces[k] != nil {
		return s.pieces[k][i%timesPiece]
	}
	return 0
}

// Set sets slot i, of a ring of n slots, to t.
func (s *Times) Set(i, n int, t Time) {
	if s.pieces == nil {
		s.pieces = make([]*[timesPiece]Time, (n+timesPiece-1)/timesPiece)
	}
	k := i / timesPiece
	if s.pieces[k] == nil {
		s.pieces[k] = new([timesPiece]Time)
	}
	s.pieces[k][i%timesPiece] = t
}

// Bytes is the memory s holds.
func (s *Times) Bytes() int64 {
	b := int64(len(s.pieces)) * 8
	for _, p := range s.pieces {
		if p != nil {
			b += int64(unsafe.Sizeof(*p))
		}
	}
	return b
}
