package fabric

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
// worst a store waits that could have used a gap among old bookings.
type Calendar struct {
	floor Time
	n     int
	b     [calendarBookings]booking
}

const calendarBookings = 32

// booking is a busy interval of a calendar: transfers back to back, in
// the order of the times they asked for, from first to last.
type booking struct{ from, to, first, last Time }

// Book books d of link time at or after t and returns when it ends.
func (c *Calendar) Book(t, d Time) Time {
	if c.n == len(c.b) {
		c.floor = max(c.floor, c.b[0].to)
		copy(c.b[:c.n-1], c.b[1:c.n])
		c.n--
	}
	start := max(t, c.floor)
	for i := range c.n {
		if c.b[i].first <= t {
			start = max(start, c.b[i].to)
		}
	}
	i := 0
	for ; i < c.n; i++ {
		if c.b[i].to <= start {
			continue
		}
		if start+d <= c.b[i].from {
			break
		}
		start = c.b[i].to
	}
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
		copy(c.b[i+1:c.n+1], c.b[i:c.n])
		c.b[i] = booking{start, end, t, t}
		c.n++
	}
	return end
}
