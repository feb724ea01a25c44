package gemini

// The router (WP 3) is modelled at the packet level: each torus connection
// direction and each processor tile is a channel that sends one packet at a
// time, a phit per PhitTime (connections) or per router cycle (tiles), with
// per-virtual-channel credits for the input buffer at its far end (virtual
// cut-through: a packet is sent whole or not at all, and only into room for
// all of it). A packet arriving at a router is routed RouterPipeline later,
// when it joins the queue of the output it chose; its input-buffer space is
// returned to the upstream channel InputStage after it arrived. Routing is
// minimal: hashed deterministic (dimension order, a connection chosen by a
// hash of source, destination and optionally the address) or adaptive,
// packet by packet, over every connection of every dimension still to
// travel, by the load of the outputs.

// creditReturn is input-buffer space coming back to a channel at a time.
type creditReturn struct {
	at    Time
	phits int
}

// channel is one direction of a torus connection, or a processor tile
// between a NIC and the router.
type channel struct {
	m        *machine
	id       int
	from     int     // router sending on it
	to       *router // router at its far end, or nil
	eject    bool    // an ejection tile: delivers to the packet's NIC
	torus    bool    // a torus connection (not a processor tile)
	dim      Dim
	dir      Dir
	phitTime Time
	flight   Time
	infinite bool // no credit limit (the NIC takes what it is given)
	credits  [2]int
	q        [2]pktQueue
	busy     Time // sending until then
	pending  bool // a send attempt is scheduled
	// returns are the credits on their way back, in time order (a
	// channel's packets leave in order and each returns its space a fixed
	// time after its tail arrives, so the times never decrease). They are
	// counted when the channel looks, not by events of their own.
	returns [2][]creditReturn
	rr      uint8
	down    bool // the whole connection has failed
	lanes   int  // working links of its LinksPerConnection
	crcRate float64

	sent, retries int64
	busyTime      Time
}

// load is how much is waiting for or occupying the channel, in phits: the
// adaptive router's measure.
func (c *channel) load() int {
	l := c.q[0].phits + c.q[1].phits
	if now := c.m.k.Now(); c.busy > now {
		l += int((c.busy - now) / c.phitTime)
	}
	return l
}

// enqueue puts a packet in the channel's queue; an idle channel sends it
// at once.
func (c *channel) enqueue(p *packet) {
	c.q[p.vc].push(p)
	if !c.pending && c.m.k.Now() >= c.busy {
		c.send()
		return
	}
	c.kick()
}

// kick schedules a send attempt when the channel is next free.
func (c *channel) kick() { c.kickAt(c.busy) }

func (c *channel) kickAt(t Time) {
	if c.pending {
		return
	}
	c.pending = true
	c.m.k.At(max(c.m.k.Now(), t), c, 0, nil)
}

// Fire is a send attempt.
func (c *channel) Fire(int32, any) {
	c.pending = false
	c.send()
}

// absorb counts the credits that have come back by now.
func (c *channel) absorb(vc int) {
	now := c.m.k.Now()
	r := c.returns[vc]
	i := 0
	for i < len(r) && r[i].at <= now {
		c.credits[vc] += r[i].phits
		i++
	}
	if i > 0 {
		n := copy(r, r[i:])
		c.returns[vc] = r[:n]
	}
}

// send starts the next packet that has room downstream, alternating
// between the virtual channels.
func (c *channel) send() {
	now := c.m.k.Now()
	if now < c.busy {
		c.kick()
		return
	}
	var p *packet
	wake := Time(-1) // when a credit a waiting packet needs comes back
	for i := range 2 {
		vc := (int(c.rr) + i) % 2
		q := &c.q[vc]
		if q.n == 0 {
			continue
		}
		if !c.infinite {
			c.absorb(vc)
			if c.credits[vc] < creditsFor(q.head) {
				if r := c.returns[vc]; len(r) > 0 && (wake < 0 || r[0].at < wake) {
					wake = r[0].at
				}
				continue
			}
		}
		p = q.pop()
		c.rr = uint8(vc + 1)
		break
	}
	if p == nil {
		if wake >= 0 {
			c.kickAt(wake)
		}
		return // wait for a credit or a packet
	}
	if !c.infinite {
		c.credits[p.vc] -= creditsFor(p)
	}
	ser := Time(p.phits) * c.phitTime
	var extra Time // a retried packet arrives this much later
	occupy := ser
	if c.crcRate > 0 && c.m.k.Rand().Float64() < c.crcRate {
		// The far end finds a bad CRC and asks for the packet again; the
		// send buffer covers the round trip (WP 3.1), so the cost is time.
		c.retries++
		c.m.stats.CRCRetries++
		extra = ser + 2*c.flight
		occupy = 2 * ser
	}
	c.busy = now + occupy
	c.busyTime += occupy
	c.sent++
	c.m.stats.LinkPhits += int64(p.phits)
	if c.torus {
		c.m.stats.TorusPhits += int64(p.phits)
		c.m.stats.TorusPackets += int64(p.cnt)
	}
	c.m.traceLink(c, p, now, now+occupy)
	p.hops++
	head := now + c.flight + extra
	tail := head + ser
	if c.eject {
		p.via = c
		c.m.k.At(tail, c.m.nics[p.dst], nicRx, p)
	} else {
		c.m.k.At(head+RouterPipeline, c.to, 0, p)
		if !c.infinite {
			c.returns[p.vc] = append(c.returns[p.vc], creditReturn{tail + InputStage + c.flight, creditsFor(p)})
		}
	}
	if c.q[0].n+c.q[1].n > 0 {
		c.kick()
	}
}

// giveBack returns the space p held in the far end's buffer now (an
// ejection tile's packet taken by its NIC) and lets the channel send.
func (c *channel) giveBack(p *packet) {
	c.returns[p.vc] = append(c.returns[p.vc], creditReturn{c.m.k.Now(), creditsFor(p)})
	if c.q[0].n+c.q[1].n > 0 {
		c.kick()
	}
}

// router is one Gemini's router.
type router struct {
	m  *machine
	id int
	// out[dim][dirIndex] are the connections towards the neighbour in that
	// direction (2 in x and z, 1 in y; none at an open edge).
	out [DimCount][2][]*channel
	// eject[i] is processor tile i towards the NICs; inject[i] the tile
	// from the NICs into the router.
	eject  [ProcessorTiles]*channel
	inject [ProcessorTiles]*channel
	nics   [NodesPerGemini]*nic
}

func dirIndex(d Dir) int {
	if d < 0 {
		return 1
	}
	return 0
}

// Fire routes a packet that has crossed the router's pipeline.
func (r *router) Fire(_ int32, data any) {
	p := data.(*packet)
	m := r.m
	if p.dstG == r.id {
		leastLoaded(r.eject[:]).enqueue(p)
		return
	}
	var c *channel
	if p.adaptive {
		c = r.adaptive(p)
	} else {
		c = r.deterministic(p)
	}
	if c == nil {
		// No working route: the packet is lost; its transaction will time
		// out (WP 3.1: routing around a lost connection needs new tables).
		m.stats.Dropped++
		m.freePacket(p)
		return
	}
	c.enqueue(p)
}

// deterministic follows dimension order x, y, z; among the parallel
// connections, and between the two directions half way round a ring, the
// packet's hash chooses.
func (r *router) deterministic(p *packet) *channel {
	t := r.m.torus
	for d := range Dim(DimCount) {
		n, dir, tie := t.Delta(r.id, p.dstG, d)
		if n == 0 {
			continue
		}
		if tie && p.hash>>8&1 == 1 {
			dir = -dir
		}
		conns := r.out[d][dirIndex(dir)]
		if len(conns) == 0 {
			return nil
		}
		c := conns[int(p.hash%uint64(len(conns)))]
		if c.down {
			return nil
		}
		return c
	}
	return nil
}

// adaptive chooses the least loaded working connection of every dimension
// and direction still minimal; the hash breaks ties, so equal loads spread.
func (r *router) adaptive(p *packet) *channel {
	t := r.m.torus
	var best *channel
	bestLoad := 0
	k := 0
	for d := range Dim(DimCount) {
		n, dir, tie := t.Delta(r.id, p.dstG, d)
		if n == 0 {
			continue
		}
		dirs := [2]Dir{dir, -dir}
		nd := 1
		if tie {
			nd = 2
		}
		for _, dd := range dirs[:nd] {
			for _, c := range r.out[d][dirIndex(dd)] {
				if c.down {
					continue
				}
				l := c.load()*4 + int((p.hash+uint64(k))%4)
				k++
				if best == nil || l < bestLoad {
					best, bestLoad = c, l
				}
			}
		}
	}
	return best
}

// creditsFor is the input-buffer space a packet needs to be sent: all of
// it. A coarse unit is a stream of packets, each of which the far end
// drains while the next arrives: it holds one packet's space.
func creditsFor(p *packet) int { return min((p.phits+p.cnt-1)/p.cnt, InputBufferPhits) }

// leastLoaded picks the channel with the least load, the first on ties.
func leastLoaded(cs []*channel) *channel {
	best := cs[0]
	bl := best.load()
	for _, c := range cs[1:] {
		if l := c.load(); l < bl {
			best, bl = c, l
		}
	}
	return best
}
