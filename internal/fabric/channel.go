package fabric

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/gopgas/gopgas/internal/sim"
)

// A channel is one direction of a link between two routers, or a processor
// tile between the NICs and their router. It sends one packet at a time, a
// link unit per unit time, with per-virtual-channel credits for the input
// buffer at its far end (virtual cut-through: a packet is sent whole or not
// at all, and only into room for all of it), alternating between the
// virtual channels that have a packet and room for it. A packet reaches the
// next router the flight time after it left, is routed RouterPipeline later
// and joins the queue of the output its routing chose; its input-buffer
// space goes back to the channel InputStage after its tail arrived (plus
// the flight back). An ejection tile delivers to the packet's NIC, which
// gives the space back when its receive pipeline takes the packet.

// creditReturn is input-buffer space coming back to a channel at a time:
// units of its virtual channel's own and shared units of the pool.
type creditReturn struct {
	at Time
	// units and shared are at most Params.InputBufferUnits, which
	// validate keeps within int32.
	units, shared int32
}

// Channel is one direction of a link, or a processor tile. Its fields are
// laid out for the packet path: its first 64 bytes hold what its load
// (Load), the routing's check for a failed link (Failed) and a send
// attempt read, with the way to its VCs' state (which sits together,
// apart), and the rest (configuration, counters) comes after.
type Channel struct {
	m        *Machine
	busy     Time // sending until then
	unitTime Time
	// vcs is the first of the state of each of the machine's VCs
	// (Params.VCs, in a row: vcList), made when the channel first queues
	// a packet (useVCs): a channel a job never uses costs no more than
	// this. A pointer rather than a slice, whose length every channel of
	// a machine shares, keeps a channel to 128 bytes (1.3 million on the
	// full Aries system).
	vcs         *vcState
	queued      int32 // packets in its VCs' queues
	queuedUnits int32 // their size
	// committed is the size of the packets crossing its router towards
	// it (Router.cross), counted in its Load.
	committed int32
	down      bool
	pending   bool // a send attempt is scheduled
	rr        uint8
	link      bool // between routers (not a processor tile)
	// nvcs is the length of vcs (Params.VCs, at most MaxVCs; 0 until
	// useVCs): a byte of the channel's own rather than the machine's
	// parameter, a load less at every look at a VC.
	nvcs uint8
	// queuedVCs has bit vc set while VC vc has a packet queued, and
	// returningVCs while it has credits on their way back (a list): a
	// send attempt reads the state of those VCs only, not every VC's
	// (two cache lines on Aries, of which most attempts need one).
	queuedVCs, returningVCs uint8
	// srcTile and dstTile are its tiles in the routers at its ends (tiled
	// routers only).
	srcTile, dstTile int16
	// shared is the space left in the pool every VC may use
	// (Params.SharedInputUnits, which validate keeps within int32).
	shared int32
	id     int32
	// dueFrom is at or before the earliest time a credit on its way back
	// to any VC comes back (no credit is due before it): until then
	// absorbAll has nothing to count. absorb does not keep it.
	dueFrom  Time
	from, to *Router // routers at its ends; from is nil for an injection tile, to for an ejection tile
	flight   Time

	fullTime Time  // unitTime with every lane working
	lanes    int16 // lanes carrying each packet together (a backend's link width)
	// stalled: it had something to send while the network was quiesced
	// (fault.go); it is kicked when traffic is released.
	stalled bool

	sent int64
	seq  uint32 // events it has scheduled (Origin)

	// A channel is 128 bytes, two cache lines, so that the channels of a
	// slab (newChannel) line up with the lines: its first line is what a
	// send attempt and a look at its load read first.
	_ [4]byte
}

// Origin is the channel's number among the kernel's actors and its count
// of events scheduled (sim.Actor).
func (c *Channel) Origin() (uint32, *uint32) { return c.m.origin + uint32(c.id), &c.seq }

// vcState is a channel's state for one virtual channel: the packets
// queued on it, the space it has in the far end's input buffer, and the
// space on its way back.
type vcState struct {
	q       pktQueue
	credits int32
	// returns are the credits on their way back, in time order (a
	// channel's packets leave in order and each returns its space a fixed
	// time after its tail arrives, so the times never decrease). They are
	// counted when the channel looks, not by events of their own. A VC
	// with none on their way has no list (queueReturn). It is the number of
	// the machine's list that holds them (Machine.returnList), 0 for none:
	// 32 bits rather than a pointer make the state 16 bytes, not 24.
	returns uint32
}

// SetTiles gives a link the tile it leaves its router by and the tile it
// enters the far router by (Params.TileColumns).
func (c *Channel) SetTiles(src, dst int) {
	c.srcTile, c.dstTile = int16(src), int16(dst)
}

// slabBytes is the size of the blocks the machine makes its channels, VC
// states and credit return lists in: 32 KiB, the least the allocator
// makes as an object of its own pages. Its smaller objects that hold
// pointers begin with an 8-byte header, which would leave each channel,
// each channel's VC states and each list 8 bytes past a cache line (a
// 128-byte channel across three lines, a 32-byte list across two), and
// round an 8 KiB block up to 9.25 KiB; these start on a page, with no
// header and nothing rounded up.
const slabBytes = 32 << 10

// channelSlab is how many channels newChannel allocates at once, in a
// block of slabBytes.
const channelSlab = slabBytes / int(unsafe.Sizeof(Channel{}))

// newChannel makes a channel from one router to another (either nil for a
// tile) and gives it the next id.
func (m *Machine) newChannel(from, to *Router, unitTime, flight Time, lanes int) *Channel {
	if len(m.chanSlab) == 0 {
		m.chanSlab = make([]Channel, channelSlab)
	}
	c := &m.chanSlab[0]
	m.chanSlab = m.chanSlab[1:]
	*c = Channel{m: m, id: int32(len(m.channels)), from: from, to: to, unitTime: unitTime, fullTime: unitTime,
		flight: flight, lanes: int16(lanes)}
	c.shared = int32(m.p.SharedInputUnits)
	m.channels = append(m.channels, c)
	return c
}

// ID is the channel's number, unique in the machine. Channels are numbered
// router by router, each router's links (in the order they were made)
// before its injection tiles, and then every router's ejection tiles.
func (c *Channel) ID() int { return int(c.id) }

// From is the router sending on the channel; nil for an injection tile.
func (c *Channel) From() *Router { return c.from }

// To is the router at the channel's far end; nil for an ejection tile.
func (c *Channel) To() *Router { return c.to }

// Fail takes the channel out of service from the start of the job: Failed
// reports it, and the routing must not choose it. (Machine.FailAt fails a
// channel in the middle of a run.)
func (c *Channel) Fail() {
	c.down = true
	c.m.lossy = true
	c.m.setFailTime(c, -1)
}

// Failed says whether the channel is out of service, as its own router
// sees it. A router of another partition asks FailedAt.
func (c *Channel) Failed() bool { return c.down }

// FailedAt says whether the channel is out of service at time now, the
// clock of the router asking (Router.Now). On one kernel it is Failed; in
// a partitioned run, whose partitions run apart, a channel has failed
// once its failure time has come (fault.go), which no partition writes.
func (c *Channel) FailedAt(now Time) bool {
	if c.m.parts == nil {
		return c.down
	}
	t, ok := c.m.failTimes[c]
	return ok && t <= now
}

// MayFail says whether a channel of the machine may be out of service
// (Channel.Fail or Machine.FailAt was called); when not, no Failed is true
// and a routing need not ask.
func (m *Machine) MayFail() bool { return m.lossy }

// Degrade leaves lanes of the link's lanes working (1 to all of them): it
// sends each unit more slowly, in proportion.
func (c *Channel) Degrade(lanes int) {
	c.unitTime = c.fullTime * Time(c.lanes) / Time(lanes)
}

// Load is how much is waiting for or occupying the channel, in link units:
// the measure by which packets choose among tiles, and adaptive routing
// among links.
func (c *Channel) Load() int {
	l := int(c.queuedUnits) + int(c.committed)
	if now := c.m.k.Now(); c.busy > now {
		l += int((c.busy - now) / c.unitTime)
	}
	return l
}

// enqueue puts a packet in the channel's queue; an idle channel sends it
// at once.
func (c *Channel) enqueue(p *Packet) {
	if c.vcs == nil {
		c.useVCs()
	}
	c.vcList()[p.VC].q.push(p)
	c.queuedVCs |= 1 << p.VC
	c.queued++
	c.queuedUnits += int32(p.Size)
	if !c.pending && c.m.k.Now() >= c.busy {
		c.send()
		return
	}
	c.kick()
}

// vcSlab is how many VC states useVCs allocates at once, in a block of
// slabBytes (256 channels' on Aries, 8 VCs each).
const vcSlab = slabBytes / int(unsafe.Sizeof(vcState{}))

// useVCs gives the channel its VCs' state, each with all of its own
// input-buffer space at the far end.
func (c *Channel) useVCs() {
	m := c.m
	n := m.p.VCs
	if len(m.vcSlab) < n {
		m.vcSlab = make([]vcState, max(vcSlab, n))
	}
	c.vcs, c.nvcs = &m.vcSlab[0], uint8(n)
	m.vcSlab = m.vcSlab[n:]
	vcs := c.vcList()
	for vc := range vcs {
		vcs[vc].credits = int32(m.p.InputBufferUnits)
	}
	c.dueFrom = math.MaxInt64
}

// vcList is the state of the channel's VCs (nil before it first queued a
// packet).
func (c *Channel) vcList() []vcState { return unsafe.Slice(c.vcs, c.nvcs) }

// kick schedules a send attempt when the channel is next free.
func (c *Channel) kick() { c.kickAt(c.busy) }

func (c *Channel) kickAt(t Time) {
	if c.pending {
		return
	}
	c.pending = true
	c.m.k.At(max(c.m.k.Now(), t), c, 0, nil)
}

// Fire is a send attempt.
func (c *Channel) Fire(int32, any) {
	c.pending = false
	c.send()
}

// absorbAll counts the credits of every VC that have come back by now,
// finding the channel's next due time in the same pass.
func (c *Channel) absorbAll() {
	now := c.m.k.Now()
	if now < c.dueFrom {
		return
	}
	due := Time(math.MaxInt64)
	vcs := c.vcList()
	for r := c.returningVCs; r != 0; r &= r - 1 {
		vc := bits.TrailingZeros8(r)
		due = min(due, c.absorbVC(vc, &vcs[vc], now))
	}
	c.dueFrom = due
}

// absorbVC counts the credits of VC vc, whose state is v, that have come
// back by now, and returns when its next comes back (math.MaxInt64: none
// is on its way).
func (c *Channel) absorbVC(vc int, v *vcState, now Time) Time {
	if c.returningVCs>>vc&1 == 0 {
		return math.MaxInt64
	}
	l := c.m.returnList(v.returns)
	if l.first.at > now {
		return l.first.at
	}
	v.credits += l.first.units
	c.shared += l.first.shared
	r := l.rest()
	i := 0
	for i < len(r) && r[i].at <= now {
		v.credits += r[i].units
		c.shared += r[i].shared
		i++
	}
	if i == len(r) {
		// The list goes back to the machine with its piece: a channel
		// holds lists only for the credits it has on their way back.
		l.setLen(0)
		l.next, c.m.freeReturnLists = c.m.freeReturnLists, v.returns
		v.returns = 0
		c.returningVCs &^= 1 << vc
		return math.MaxInt64
	}
	l.first = r[i]
	l.setLen(1 + copy(r, r[i+1:]))
	return l.first.at
}

// send starts the next packet that has room downstream, taking the virtual
// channels in turn: it takes the packet's credits, draws whether the far
// end finds a bad CRC, and puts the packet on the wire.
func (c *Channel) send() {
	now := c.m.k.Now()
	if now < c.busy {
		c.kick()
		return
	}
	if c.m.quiesced {
		c.m.stall(c)
		return
	}
	p := c.pick()
	if p == nil {
		return // wait for a credit or a packet
	}
	need := c.take(p)
	ser := Time(p.Size) * c.unitTime
	occupy, extra := c.crc(ser)
	c.occupy(p, now, occupy)
	p.Hops++
	head := now + c.flight + extra
	c.arrive(p, head, head+ser, need)
	if c.queued > 0 {
		c.kick()
	}
}

// pick takes the next packet that has room in the far end's buffer, the
// virtual channels in turn from c.rr. With none, it returns nil, and a
// send attempt comes when the first credit a waiting packet needs comes
// back (if any is on its way).
func (c *Channel) pick() *Packet {
	if c.vcs == nil {
		return nil // it never had a packet
	}
	wake := Time(-1) // when a credit a waiting packet needs comes back
	vcs := int(c.nvcs)
	pooled := c.m.p.SharedInputUnits > 0
	if pooled {
		// Pool space comes back with any VC's packets.
		c.absorbAll()
	}
	blocked := false // a packet waits for pool space
	states := c.vcList()
	for i, vc := 0, int(c.rr); i < vcs; i, vc = i+1, vc+1 {
		if vc == vcs {
			vc = 0
		}
		if c.queuedVCs>>vc&1 == 0 {
			continue
		}
		q := &states[vc].q
		head := q.front()
		if !pooled {
			// Only vc's own returns: the channel's next due time
			// (dueFrom) is kept for absorbAll, since finding it here
			// would read every other VC's returns as well.
			c.absorbVC(vc, &states[vc], c.m.k.Now())
		}
		if int(states[vc].credits)+int(c.shared) < c.creditsFor(head) {
			if pooled {
				blocked = true
			} else {
				wake = c.firstReturn(vc, wake)
			}
			continue
		}
		p := q.pop()
		if q.front() == nil {
			c.queuedVCs &^= 1 << vc
		}
		c.rr = uint8(vc + 1)
		if int(c.rr) == vcs {
			c.rr = 0
		}
		return p
	}
	if blocked {
		// Space of any VC may be what it waits for.
		for r := c.returningVCs; r != 0; r &= r - 1 {
			wake = c.firstReturn(bits.TrailingZeros8(r), wake)
		}
	}
	if wake >= 0 {
		c.kickAt(wake)
	}
	return nil
}

// firstReturn is the earlier of wake (none if negative) and when vc's
// next credit comes back, if one is on its way.
func (c *Channel) firstReturn(vc int, wake Time) Time {
	if c.returningVCs>>vc&1 == 0 {
		return wake // no list: nothing on its way
	}
	if at := c.m.returnList(c.vcList()[vc].returns).first.at; wake < 0 || at < wake {
		return at
	}
	return wake
}

// take takes p out of the queue and the space it needs in the far end's
// buffer, its VC's own first and then the pool's, and returns how much
// that is.
func (c *Channel) take(p *Packet) (need int) {
	c.queued--
	c.queuedUnits -= int32(p.Size)
	need = c.creditsFor(p)
	v := &c.vcList()[p.VC]
	own := min(need, int(v.credits))
	v.credits -= int32(own)
	c.shared -= int32(need - own)
	p.pooled = int32(need - own)
	return need
}

// crc draws whether the far end finds a bad CRC in a packet that takes ser
// to send and asks for it again; the send buffer covers the round trip, so
// the cost is time. It returns how long the packet occupies the channel,
// and how much later than at first sending it arrives.
func (c *Channel) crc(ser Time) (occupy, extra Time) {
	occupy = ser
	if rate := c.m.opts.CRCErrorRate; rate > 0 && c.crcDraw() < rate {
		c.m.stats.CRCRetries++
		extra = ser + 2*c.flight
		occupy = 2 * ser
	}
	return occupy, extra
}

// crcDraw is the channel's draw for its next packet's CRC, uniform in
// [0, 1): the channel's own random stream, a hash of the run's seed, its
// number and how many packets it has sent, so that a draw depends on the
// channel's history alone, not on the order of other channels' events.
func (c *Channel) crcDraw() float64 {
	x := sim.Mix64(c.m.k.Seed() ^ 0x9e3779b97f4a7c15*uint64(c.id+1))
	x = sim.Mix64(x + uint64(c.sent))
	return float64(x>>11) / (1 << 53)
}

// occupy makes the channel busy with p for occupy from now, and counts it.
func (c *Channel) occupy(p *Packet, now, occupy Time) {
	c.busy = now + occupy
	c.sent++
	c.m.stats.ChannelUnits += int64(p.Size)
	if c.link {
		c.m.stats.LinkUnits += int64(p.Size)
		c.m.stats.LinkPackets += int64(p.cnt)
	}
	if c.m.trace != nil {
		c.m.traceLink(c, p, now, now+occupy)
	}
}

// arrive schedules p's arrival at the far end, its head at head and its
// tail at tail: an ejection tile hands it to its NIC when its tail is in
// (the NIC gives the space back: giveBack); a link hands it to the far
// router RouterPipeline after its head, and need units of credit come back
// InputStage after its tail, plus the flight back.
func (c *Channel) arrive(p *Packet, head, tail Time, need int) {
	if c.to == nil {
		p.hop = c
		c.m.k.At(tail, c.m.nics[p.Dst], nicRx, p)
		return
	}
	p.inTile = c.dstTile
	if c.m.lossy {
		p.faults().wire = c
	}
	if c.m.parts != nil && c.to.m != c.m {
		c.m.k.Post(c.to.m.k, head+c.m.p.RouterPipeline, c.to, 0, p) // into another partition
	} else {
		c.m.k.At(head+c.m.p.RouterPipeline, c.to, 0, p)
	}
	c.queueReturn(p.VC, creditReturn{tail + c.m.p.InputStage + c.flight, int32(need) - p.pooled, p.pooled})
}

// returnSlab is how many credit returns queueReturn carves from the
// machine's block at once (8 KiB): a partitioned machine has a block in
// each partition.
const returnSlab = 512

// returnList is a VC's credits on their way back (vcState.returns): the
// first in the list itself and the rest in a piece of the machine's block
// of credit returns. A VC that has carried a packet keeps a list until the
// channel next looks (2 million at once on the full Aries system), and
// most lists hold one return and nothing else (minReturns), so a list is
// 32 bytes: its first return, its piece named by the piece's first
// return, and its length and its piece's size (a power of two) in one
// word, rather than a slice and its own number. A list of one return
// needs no piece, and is one cache line to read, not a line for the list
// and another for its piece.
type returnList struct {
	first creditReturn  // its first return, when it has one
	p     *creditReturn // its piece's first return (its second on); nil before it has one
	nc    uint32        // its length (the low returnLenBits) and log2 of its piece's size
	next  uint32        // on the machine's free lists, the number of the next (0: none)
}

// returnLenBits is how many bits of returnList.nc hold its length: a
// list longer than that (a VC with more than 134 million packets' credits
// on their way back) ends the job (queueReturn).
const returnLenBits = 27

// len is how many returns the list holds, its first included.
func (l *returnList) len() int { return int(l.nc & (1<<returnLenBits - 1)) }

// cap is the size of the list's piece (0 before it has one).
func (l *returnList) cap() int {
	if l.p == nil {
		return 0
	}
	return 1 << (l.nc >> returnLenBits)
}

// rest is the list's returns after its first, in its piece (none for a
// list of one, or none).
func (l *returnList) rest() []creditReturn {
	if l.p == nil {
		return nil
	}
	return unsafe.Slice(l.p, l.cap())[:max(l.len()-1, 0)]
}

// setLen makes the list's length n, its first return included.
func (l *returnList) setLen(n int) { l.nc = l.nc&^(1<<returnLenBits-1) | uint32(n) }

// setPiece makes r, whose capacity is a power of two, the list's piece,
// and its returns the list's after the first.
func (l *returnList) setPiece(r []creditReturn) {
	l.p = unsafe.SliceData(r[:cap(r)])
	l.nc = uint32(bits.TrailingZeros(uint(cap(r))))<<returnLenBits | uint32(1+len(r))
}

// returnListChunk is how many lists the machine makes at once, in a block
// of slabBytes.
const returnListChunk = uint32(slabBytes / unsafe.Sizeof(returnList{}))

// returnList is the machine's list number id (from 1).
func (m *Machine) returnList(id uint32) *returnList {
	i := id - 1
	return &m.returnLists[i/returnListChunk][i%returnListChunk]
}

// newReturnList is a list with no returns, and its number: one a VC has
// left, or a new one.
func (m *Machine) newReturnList() (uint32, *returnList) {
	if id := m.freeReturnLists; id != 0 {
		l := m.returnList(id)
		m.freeReturnLists, l.next = l.next, 0
		return id, l
	}
	n := m.returnListsMade
	if n%returnListChunk == 0 {
		m.returnLists = append(m.returnLists, make([]returnList, returnListChunk))
	}
	m.returnListsMade++
	return n + 1, &m.returnLists[n/returnListChunk][n%returnListChunk]
}

// queueReturn puts r on its way back to VC vc, after the VC's other
// credits on their way back. A VC has a list only while it has credits on
// their way back: it takes one from the machine's free lists, which
// absorbVC gives the lists it empties back to, pieces and all. The first return is kept in the list; a piece for the
// rest comes from a block shared by the machine's channels, not from an
// allocation of its own: a list whose piece is full moves to a piece
// twice its size, and the piece it leaves goes on the machine's free list
// of pieces of its size for the next list that grows to that size. So the
// lists and pieces in use are those of the credits on their way back now,
// and the free ones at most the most that ever were at once.
func (c *Channel) queueReturn(vc uint8, r creditReturn) {
	m, v := c.m, &c.vcList()[vc]
	c.returningVCs |= 1 << vc
	c.dueFrom = min(c.dueFrom, r.at)
	var l *returnList
	if v.returns == 0 {
		v.returns, l = m.newReturnList()
	} else {
		l = m.returnList(v.returns)
	}
	n, size := l.len(), l.cap()
	switch {
	case n == 0:
		l.first = r
		l.setLen(1)
		return
	case n == 1<<returnLenBits-1:
		m.k.Fail(fmt.Errorf("%s: a VC with %d credit returns on their way back", m.name, n))
		return
	case n-1 == size:
		old := l.rest()
		grown := m.returnPiece(max(minReturns, 2*size))[:n-1]
		copy(grown, old)
		if size > 0 {
			k := bits.Len(uint(size / minReturns))
			for len(m.returnFree) <= k {
				m.returnFree = append(m.returnFree, stack[[]creditReturn]{})
			}
			m.returnFree[k].push(old[:0])
		}
		l.setPiece(grown)
	}
	unsafe.Slice(l.p, n)[n-1] = r
	l.setLen(n + 1)
}

// minReturns is the smallest piece of a credit return list: one return,
// the list's second. A VC's list holds what the channel has not yet looked
// at, and a channel looks only when it has a packet to send on the VC, so
// most lists hold the last packet's return and nothing else (1.07 returns
// a list on average, counted on 40 groups of the Aries system under
// uniform random traffic), which the list keeps itself: a larger first
// piece would be mostly empty.
const minReturns = 1

// returnPiece is an empty piece of n credit returns (minReturns times a
// power of two): a freed one of that size, or a new one from the block.
func (m *Machine) returnPiece(n int) []creditReturn {
	if k := bits.Len(uint(n / minReturns)); k < len(m.returnFree) {
		if f := &m.returnFree[k]; f.len() > 0 {
			return f.pop()
		}
	}
	if len(m.returnSlab) < n {
		m.returnSlab = make([]creditReturn, max(n, returnSlab))
	}
	piece := m.returnSlab[:0:n]
	m.returnSlab = m.returnSlab[n:]
	return piece
}

// giveBack returns the space p held in the far end's buffer now (an
// ejection tile's packet taken by its NIC) and lets the channel send.
func (c *Channel) giveBack(p *Packet) {
	c.queueReturn(p.VC, creditReturn{c.m.k.Now(), int32(c.creditsFor(p)) - p.pooled, p.pooled})
	if c.queued > 0 {
		c.kick()
	}
}

// creditsFor is the input-buffer space a packet needs to be sent, from its
// VC's own space first and then the pool: all of
// it. A coarse unit is a stream of packets, each of which the far end
// drains while the next arrives: it holds one packet's space.
func (c *Channel) creditsFor(p *Packet) int {
	if p.cnt == 1 {
		// A packet, not a coarse unit: its size (no division on the
		// path of every packet's every hop).
		return min(int(p.Size), c.m.p.InputBufferUnits)
	}
	return min(int((p.Size+p.cnt-1)/p.cnt), c.m.p.InputBufferUnits)
}

// leastLoaded picks the channel with the least load, the first on ties.
func leastLoaded(cs []*Channel) *Channel {
	best := cs[0]
	bl := best.Load()
	for _, c := range cs[1:] {
		if bl == 0 {
			// No load is below none: the first idle one is the least
			// loaded, and the rest need not be read.
			break
		}
		if l := c.Load(); l < bl {
			best, bl = c, l
		}
	}
	return best
}
