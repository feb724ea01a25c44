package fabric

import (
	"fmt"
	"math"
)

// Router is one router: its links to other routers, which the backend makes
// (Machine.NewLink), and its processor tiles to and from its NICs, which the
// fabric makes. A packet for one of its NICs leaves by the least loaded
// ejection tile; any other is routed by the Topology.
type Router struct {
	// ID is the router's index, from 0 in the order NewRouter made them.
	ID int

	// The fields a packet's crossing reads come first, in the router's
	// first cache line; the lists of its channels after them.
	m *Machine
	// buses is when each row bus and each column bus of a tiled router
	// is next free, in picoseconds after busBase; made when first needed.
	// A bus is never busy for long (a few packets' serialization), so the
	// times fit in 32 bits, and a time at or before busBase stands for
	// "free". They are kept in blocks (busBlock), one for each input row
	// and output column, that hold the two buses a packet crosses: the
	// row buses from that row's input tiles to the column, and the column
	// buses down it to each output row.
	buses   []uint32
	busBase Time
	seq     uint32 // events it has scheduled (Origin)

	links  []*Channel // towards other routers, in the order they were made
	inject []*Channel // from the NICs
	eject  []*Channel // to the NICs
}

// Origin is the router's number among the kernel's actors and its count
// of events scheduled (sim.Actor).
func (r *Router) Origin() (uint32, *uint32) {
	return r.m.origin + uint32(len(r.m.channels)+r.ID), &r.seq
}

// NewRouter makes the next router, with its processor tiles. Config.Build
// calls it.
func (m *Machine) NewRouter() *Router {
	if c := m.census; c != nil {
		c.routers++
		c.channels += 2 * m.p.ProcessorTiles
		return &Router{ID: c.routers - 1, m: m}
	}
	r := &Router{ID: len(m.routers), m: m}
	first := m.p.TileRows*m.p.TileColumns - m.p.ProcessorTiles // the processor tiles are the last
	for k := range m.p.ProcessorTiles {
		in := m.newChannel(nil, r, m.p.TileUnitTime, 0, 1)
		// Ejection tiles reach the router's NICs; a packet's NIC is chosen
		// on delivery, so each tile serves them all.
		out := m.newChannel(r, nil, m.p.TileUnitTime, 0, 1)
		if m.p.TileColumns > 0 {
			in.dstTile, out.srcTile = int16(first+k), int16(first+k)
		}
		r.inject = append(r.inject, in)
		r.eject = append(r.eject, out)
	}
	m.routers = append(m.routers, r)
	return r
}

// NewLink makes a link direction from one router to another: a channel
// sending a link unit per unitTime, each unit reaching the far end flight
// later, over lanes lanes that carry each packet together (Degrade takes
// some out of service). Config.Build calls it.
func (m *Machine) NewLink(from, to *Router, unitTime, flight Time, lanes int) *Channel {
	if cs := m.census; cs != nil {
		cs.channels++
		cs.links++
		return cs.link
	}
	c := m.newChannel(from, to, unitTime, flight, lanes)
	c.link = true
	from.links = append(from.links, c)
	return c
}

// Links are the router's links towards other routers, in the order they
// were made.
func (r *Router) Links() []*Channel { return r.links }

// Fire routes a packet that has crossed the router's pipeline, or queues
// one that has crossed a tiled router's buses for its output. A packet
// that arrives by a link that failed while it was on the wire is lost; one
// whose output failed while it crossed the buses is routed again; while
// the network is quiesced the router holds what arrives (fault.go).
func (r *Router) Fire(_ int32, data any) {
	p := data.(*Packet)
	m := r.m
	if f := p.fault; f != nil && f.wire != nil {
		w := f.wire
		f.wire = nil
		if w.FailedAt(m.k.Now()) {
			m.lose(p, w)
			return
		}
	}
	if out := p.hop; out != nil {
		p.hop = nil
		out.committed -= int32(p.Size)
		if !out.down {
			out.enqueue(p)
			return
		}
		p.unroute()
	}
	if m.quiesced {
		m.hold(r, p)
		return
	}
	r.route(p)
}

// route sends p on towards its destination: out of an ejection tile if it
// is for one of the router's NICs, else by the link the Topology chooses.
func (r *Router) route(p *Packet) {
	m := r.m
	var c *Channel
	if int(p.DstRouter) == r.ID {
		c = leastLoaded(m.nics[p.Dst].eject)
	} else {
		p.routedVC = p.VC
		if m.lossy {
			p.faults().route = p.Route
		}
		if c = m.topo.Route(r, p); c == nil {
			m.stats.Dropped++
			if p.kind == pktCtl {
				// No transaction times out for it, and whatever waits for
				// it waits for ever: the job ends with the reason.
				m.k.Fail(fmt.Errorf("%s: a control packet from node %d to node %d was lost at router %d: no working way on (a failed link on a deterministic route)", m.name, p.Src, p.Dst, r.ID))
			}
			m.freePacket(p)
			return
		}
	}
	if m.p.TileColumns == 0 {
		c.enqueue(p)
		return
	}
	r.cross(p, c)
}

// cross takes p from its input tile to output out's column buffer through
// the tiled router (Params.TileColumns): across the row bus from its input
// tile to the sub-switch in out's column, then down that sub-switch's
// column bus to out's row. Each bus carries a packet at a time, a link unit
// per TileUnitTime, in the order packets come; a packet starts on the
// column bus when its head has reached the sub-switch (cut-through). Until
// it reaches the column buffer it counts in out's load. It returns when
// that is.
func (r *Router) cross(p *Packet, out *Channel) Time {
	m := r.m
	rows, cols := m.p.TileRows, m.p.TileColumns
	if r.buses == nil {
		r.buses = make([]uint32, rows*cols*busBlock(rows, cols))
	}
	in, o := int(p.inTile), int(out.srcTile)
	ser := Time(p.Size) * m.p.TileUnitTime
	ri, ci := busIndex(rows, cols, in, o)
	row := &r.buses[ri]
	start := max(m.k.Now(), r.busBase+Time(*row))
	col := &r.buses[ci]
	at := max(start+m.p.RowBus, r.busBase+Time(*col))
	r.setBus(row, start+ser)
	r.setBus(col, at+ser)
	out.committed += int32(p.Size)
	p.hop = out
	at += m.p.ColumnBus
	m.k.At(at, r, 0, p)
	return at
}

// busBlock is the length of a block of a tiled router's buses (Router.buses)
// for rows of cols tiles: the row buses of an input row's cols tiles to one
// output column, then that column's rows column buses, rounded up to 16
// (64 bytes). So the two buses of a crossing are in one cache line (Aries:
// 8 and 6 of a block's 16), where by bus kind they were two lines apart.
func busBlock(rows, cols int) int { return (cols + rows + 15) &^ 15 }

// busIndex is where in Router.buses the row bus and the column bus are that
// a packet from input tile in to output tile o crosses, tiles numbered
// row by row.
func busIndex(rows, cols, in, o int) (row, col int) {
	block := (in/cols*cols + o%cols) * busBlock(rows, cols)
	return block + in%cols, block + cols + o/cols
}

// setBus makes *b, one of the router's buses, free at t (not before now).
// When t is too far after busBase for 32 bits, the base moves up to now
// first: a time at or before now stands for free either way.
func (r *Router) setBus(b *uint32, t Time) {
	if t-r.busBase > math.MaxUint32 {
		now := r.m.k.Now()
		for i, v := range r.buses {
			r.buses[i] = uint32(max(r.busBase+Time(v)-now, 0))
		}
		r.busBase = now
		if t-now > math.MaxUint32 {
			// A bus busy for more than 4 ms (a model gone wrong) ends
			// the job.
			r.m.k.Fail(fmt.Errorf("%s: router %d: a bus busy until %v, %v from now", r.m.name, r.ID, t, t-now))
			t = now + math.MaxUint32
		}
	}
	*b = uint32(t - r.busBase)
}

// numberChannels numbers the channels in the documented order (Channel.ID),
// whatever order Build made them in.
func (m *Machine) numberChannels() {
	m.channels = m.channels[:0]
	add := func(cs []*Channel) {
		for _, c := range cs {
			c.id = int32(len(m.channels))
			m.channels = append(m.channels, c)
		}
	}
	for _, r := range m.routers {
		add(r.links)
		add(r.inject)
	}
	for _, r := range m.routers {
		add(r.eject)
	}
}
