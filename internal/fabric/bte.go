package fabric

import "github.com/gopgas/gopgas/internal/sim"

// The block-transfer engine: a NIC serves Params.BTEChannels transfers at
// once, in turn, the others waiting in its queue. The CPU only writes the
// transfer's descriptor (postBTE); the engine makes the requests, reading
// a put's data from local memory itself (bteSend), and a transfer holds
// its channel until it completes (bteEnd).

// postBTE hands a put or a get to its NIC's block-transfer engine: the
// CPU writes the descriptor (BTEPost), which crosses the host interface to
// the engine's queue.
func (m *Machine) postBTE(t *txn, p *sim.Proc) {
	t.bte = true
	slots := 1 // a get's pacing (bteHeld)
	if t.kind == pktPut {
		slots = m.p.BTEReadsOutstanding
	}
	t.rare().reads = make([]Time, slots)
	p.Advance(m.p.BTEPost)
	m.k.At(t.src.host.ToNIC(p.Clock(), m.p.BTEDescriptorBytes), t.src, nicBTEQueue, t)
}

// bteQueue queues a transfer whose descriptor has reached the NIC.
func (n *nic) bteQueue(t *txn) {
	n.bteQ = append(n.bteQ, t)
	n.bteStart()
}

// bteEnd frees the channel of a transfer that completed, for the next
// queued one.
func (n *nic) bteEnd() {
	n.bteActive--
	n.bteStart()
}

// bteStart starts queued block transfers while a channel is free.
func (n *nic) bteStart() {
	for n.bteActive < n.m.p.BTEChannels && len(n.bteQ) > 0 {
		t := n.bteQ[0]
		n.bteQ[0] = nil
		n.bteQ = n.bteQ[1:]
		n.bteActive++
		n.m.stats.BTEMaxActive = max(n.m.stats.BTEMaxActive, int64(n.bteActive))
		n.bteRun = append(n.bteRun, t)
	}
	n.bteKick()
}

// bteKick makes sure the block-transfer engine runs if it has work.
func (n *nic) bteKick() {
	if n.bteBusy || len(n.bteRun) == 0 {
		return
	}
	n.bteBusy = true
	n.m.k.At(max(n.m.k.Now(), n.bteNext), n, nicBTESend, nil)
}

// bteSend is the block-transfer engine making its next packet. It serves
// the transfers that hold a channel in turn, BTEBurstPackets packets at a
// time: a get request, or a put whose data it first reads from local
// memory, keeping at most BTEReadsOutstanding reads in flight for each
// transfer. A put whose reads are all in flight is passed over until one
// returns; when every transfer waits so, the engine sleeps until the first
// read is back. Each read also holds host-read tags, shared with the rest
// of the NIC's reads (reads.go): without a free one the engine sleeps
// until it is granted one.
func (n *nic) bteSend() {
	n.bteBusy = false
	m := n.m
	now := m.k.Now()
	wake := Time(-1)
	parked := false
	for tried := 0; len(n.bteRun) > 0 && tried < len(n.bteRun); {
		i := n.bteCur % len(n.bteRun)
		t := n.bteRun[i]
		if t.done || t.next >= t.npkts {
			// Every packet made: the transfer keeps its channel until it
			// completes, but the engine has nothing more to do for it.
			n.bteRun = append(n.bteRun[:i], n.bteRun[i+1:]...)
			n.bteBurst = 0
			continue
		}
		slot := int(t.next) % len(t.x.reads)
		if until := n.bteHeld(t, slot, now); until != 0 {
			// Its channel may not make the request yet: it waits for a
			// read to come back or for its pacing delay (until > 0), or
			// for a get's response (until < 0: the ORB's release wakes
			// the engine, below).
			if until > 0 && (wake < 0 || until < wake) {
				wake = until
			}
			if until < 0 {
				parked = true
			}
			n.bteCur++
			n.bteBurst = 0
			tried++
			continue
		}
		if !n.orbRoom(max(int(t.unit), 1)) {
			n.bteParked = true
			n.giveBack(&n.bteTagGrant)
			return
		}
		if t.kind == pktPut && !n.bteTagGrant && !n.readFree() {
			// No host-read tag: the engine sleeps until it is granted one
			// (reads.go).
			n.engineWait(readBTE, &n.bteTagWait)
			return
		}
		p := n.request(t, int(t.next))
		t.next++
		if t.kind == pktPut {
			n.readUse(int(p.cnt), &n.bteTagGrant)
			_, done := n.host.Read(now, int(p.cnt), m.srcLoc(t), t.order)
			arrive := n.readBack(done, int(p.n), int(p.cnt))
			t.x.reads[slot] = arrive
			m.k.At(arrive, n, nicTx, p)
			m.stats.BTEReadsMax = max(m.stats.BTEReadsMax, int64(bteReadsInFlight(t, now)))
		} else {
			n.giveBack(&n.bteTagGrant)
			n.transmit(p)
			gets := bteGetsInProcess(t)
			m.stats.BTEGetsMax = max(m.stats.BTEGetsMax, int64(gets))
			if q := m.p.BTEGetQuiesce; q > 0 && gets >= q {
				t.x.reads[0] = now + m.cycles(m.p.BTEGetDelayCycles)
			}
		}
		if n.bteBurst++; n.bteBurst >= m.p.BTEBurstPackets {
			n.bteBurst = 0
			n.bteCur++
		}
		n.bteNext = now + m.cycles(m.p.NICPacketCycles*int64(p.cnt))
		n.bteKick()
		return
	}
	n.giveBack(&n.bteTagGrant)
	if parked {
		// A get waits for its channel's responses: the ORB's release of
		// an entry wakes the engine.
		n.bteParked = true
	}
	if wake >= 0 {
		n.bteNext = max(n.bteNext, wake)
		n.bteKick()
	}
}

// The pacing of a block-transfer channel's non-posted requests ([GNI-SRC]
// gemini_hw.h, the channel's non-posted operational control; its reads
// of local memory are limited by BTEReadsOutstanding alone). A get
// request holds an ORB entry from when the engine makes it (only when an
// entry is free, so the NIC takes it at once: admit) until its response is
// back, so a transfer's ORB entries are its gets in process; a put's reads
// in flight are its read slots not yet back.

// bteGetsInProcess is how many of get transfer t's requests are
// outstanding.
func bteGetsInProcess(t *txn) int { return int(t.orbHeld) }

// bteReadsInFlight is how many of put transfer t's reads of local memory
// are in flight at now.
func bteReadsInFlight(t *txn, now Time) int {
	c := 0
	for _, r := range t.x.reads {
		if r > now {
			c++
		}
	}
	return c
}

// bteHeld says whether t's channel may make its next request (slot: a
// put's read slot) at now: 0 if it may, the time it may if it waits for a
// read or its pacing delay, -1 if it waits for a get's response.
func (n *nic) bteHeld(t *txn, slot int, now Time) Time {
	m := n.m
	if t.kind == pktPut {
		if t.x.reads[slot] > now {
			return t.x.reads[slot]
		}
		return 0
	}
	if m.p.BTEMaxGets > 0 && bteGetsInProcess(t)+max(int(t.unit), 1) > m.p.BTEMaxGets {
		return -1
	}
	if t.x.reads[0] > now {
		return t.x.reads[0]
	}
	return 0
}
