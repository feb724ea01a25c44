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
	t.rare().reads = make([]Time, m.p.BTEReadsOutstanding)
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
		slot := int(t.next) % m.p.BTEReadsOutstanding
		if t.kind == pktPut && t.x.reads[slot] > now {
			if wake < 0 || t.x.reads[slot] < wake {
				wake = t.x.reads[slot]
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
		} else {
			n.giveBack(&n.bteTagGrant)
			n.transmit(p)
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
	if wake >= 0 {
		n.bteNext = max(n.bteNext, wake)
		n.bteKick()
	}
}
