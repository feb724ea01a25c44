package fabric

import (
	"math/bits"

	"github.com/gopgas/gopgas/internal/sim"
)

// The block-transfer engine: a NIC has Params.BTEChannels channels, each
// processing one transfer's descriptor at a time, and the transfers
// beyond them wait in its queue. The CPU only writes the transfer's
// descriptor (postBTE); the engine makes the requests of the channels'
// transfers in turn, reading a put's data from local memory itself
// (bteSend). A channel takes the next queued transfer as soon as it has
// made its transfer's last request: the transfer's packets are then
// tracked by its sequence identifier until it completes, as the earlier
// ones' are. So transfers on one NIC complete in any order: "By default
// there is no guarantee of completion ordering in block transfers issued
// by a given Gemini. Fence operations are used where necessary to ensure
// that one transfer is completed before another starts" ([GEMINI-WP] 2.2;
// [ARIES-WP], Aries NIC, says the same of Aries). A channel counts the
// sequence identifiers associated with it, and a descriptor's fence mode
// makes it wait for the transfers before it ([GNI-SRC] gemini_hw.h: the
// BTE TX channel descriptor's ssid_in_use and ssid_max_num,
// GHAL_TXD_MODE_BTE_FENCE). The runtime orders transfers by waiting for
// their completion (pgas.Fence is a quiet), so it posts no fenced
// descriptor and the model has no fence.

// The bits of txn.bte.
const (
	bteOn          = 0x80 // a block transfer
	bteHolding     = 0x40 // its channel is processing it
	bteAdmitted    = 0x20 // it was given a channel and has not ended
	bteChannelMask = 0x1f // its channel
	// maxBTEChannels is the most channels a NIC may have (Params).
	maxBTEChannels = bteChannelMask + 1
)

// postBTE hands a put or a get to its NIC's block-transfer engine: the
// CPU writes the descriptor (BTEPost), which crosses the host interface to
// the engine's queue.
func (m *Machine) postBTE(t *txn, p *sim.Proc) {
	t.bte = bteOn
	if t.kind == pktPut {
		t.rare().reads = make([]Time, m.p.BTEReadsOutstanding)
	}
	p.Advance(m.p.BTEPost)
	m.k.At(t.src.host.ToNIC(p.Clock(), m.p.BTEDescriptorBytes), t.src, nicBTEQueue, t)
}

// bteQueue queues a transfer whose descriptor has reached the NIC.
func (n *nic) bteQueue(t *txn) {
	if n.be == nil {
		n.be = &bteEngine{ch: make([]bteChan, n.m.p.BTEChannels)}
	}
	n.be.q = append(n.be.q, t)
	n.bteStart()
}

// bteRelease frees the channel of transfer t, which has made its last
// request or has ended, for the next queued transfer. The engine is not
// woken: a caller outside it (a transfer ending, bteEnded) does that.
func (n *nic) bteRelease(t *txn) {
	t.bte &^= bteHolding
	n.be.chanBusy &^= 1 << (t.bte & bteChannelMask)
	n.bteAdmit()
}

// bteEnded counts transfer t, which has ended, out of its NIC's transfers
// in flight, and frees its channel if it still holds it.
func (n *nic) bteEnded(t *txn) {
	if t.bte&bteAdmitted == 0 {
		return
	}
	t.bte &^= bteAdmitted
	n.be.inFlight--
	if t.bte&bteHolding != 0 {
		n.bteRelease(t)
		n.bteKick()
	}
}

// bteStart starts queued block transfers while a channel is free, and
// wakes the engine.
func (n *nic) bteStart() {
	n.bteAdmit()
	n.bteKick()
}

// bteAdmit gives free channels, lowest first, to queued transfers.
func (n *nic) bteAdmit() {
	all := uint64(1)<<n.m.p.BTEChannels - 1
	for n.be.chanBusy != all && len(n.be.q) > 0 {
		t := n.be.q[0]
		n.be.q[0] = nil
		n.be.q = n.be.q[1:]
		ch := bits.TrailingZeros64(^n.be.chanBusy)
		n.be.chanBusy |= 1 << ch
		t.bte = bteOn | bteHolding | bteAdmitted | uint8(ch)
		n.be.inFlight++
		n.m.stats.BTEMaxInFlight = max(n.m.stats.BTEMaxInFlight, int64(n.be.inFlight))
		active := bits.OnesCount64(n.be.chanBusy)
		n.m.stats.BTEMaxActive = max(n.m.stats.BTEMaxActive, int64(active))
		n.be.run = append(n.be.run, t)
	}
}

// bteKick makes sure the block-transfer engine runs if it has work.
func (n *nic) bteKick() {
	if n.be.busy || len(n.be.run) == 0 {
		return
	}
	n.be.busy = true
	n.m.k.At(max(n.m.k.Now(), n.be.next), n, nicBTESend, nil)
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
	n.be.busy = false
	m := n.m
	now := m.k.Now()
	wake := Time(-1)
	parked := false
	for tried := 0; len(n.be.run) > 0 && tried < len(n.be.run); {
		i := n.be.cur % len(n.be.run)
		t := n.be.run[i]
		if t.done || t.next >= t.npkts {
			// Every request made (or the transfer ended): its channel
			// takes the next queued transfer, which joins the turn.
			n.be.run = append(n.be.run[:i], n.be.run[i+1:]...)
			n.be.burst = 0
			if t.bte&bteHolding != 0 {
				n.bteRelease(t)
			}
			continue
		}
		slot := 0
		if t.kind == pktPut {
			slot = int(t.next) % len(t.x.reads)
		}
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
			n.be.cur++
			n.be.burst = 0
			tried++
			continue
		}
		if !n.orbRoom(max(int(t.unit), 1)) {
			n.be.parked = true
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
			ch := t.bte & bteChannelMask
			c := &n.be.ch[ch]
			c.gets += int32(p.cnt)
			gets := c.gets
			m.stats.BTEGetsMax = max(m.stats.BTEGetsMax, int64(gets))
			if q := m.p.BTEGetQuiesce; q > 0 && int(gets) >= q {
				c.paced = now + m.cycles(m.p.BTEGetDelayCycles)
			}
		}
		if n.be.burst++; n.be.burst >= m.p.BTEBurstPackets {
			n.be.burst = 0
			n.be.cur++
		}
		n.be.next = now + m.cycles(m.p.NICPacketCycles*int64(p.cnt))
		n.bteKick()
		return
	}
	n.giveBack(&n.bteTagGrant)
	if parked {
		// A get waits for its channel's responses: the ORB's release of
		// an entry wakes the engine.
		n.be.parked = true
	}
	if wake >= 0 {
		n.be.next = max(n.be.next, wake)
		n.bteKick()
	}
}

// The pacing of a block-transfer channel's non-posted requests ([GNI-SRC]
// gemini_hw.h, the channel's non-posted operational control; its reads
// of local memory are limited by BTEReadsOutstanding alone). A get
// request holds an ORB entry from when the engine makes it (only when an
// entry is free, so the NIC takes it at once: admit) until its response is
// back (bteGetBack), so a channel's gets in process are the ORB entries of
// the get transfers it has processed and that have not completed
// (bteChan.gets); a put's reads in flight are its read slots not yet back.

// bteEngine is a NIC's block-transfer engine, made for its first block
// transfer (bteQueue): a NIC of a job of FMA puts never has one, and a
// job may have a NIC for each of 92,544 nodes.
type bteEngine struct {
	q        []*txn    // waiting for a channel
	chanBusy uint64    // the channels processing a transfer, a bit each
	ch       []bteChan // each channel's pacing
	run      []*txn    // transfers with packets still to make
	inFlight int       // transfers given a channel that have not ended
	cur      int       // whose turn it is
	burst    int       // packets made in this turn
	next     Time      // the engine can make a packet from then
	busy     bool      // the engine's next step is scheduled
	parked   bool      // waiting for an ORB entry
}

// bteChan is a block-transfer channel's pacing state.
type bteChan struct {
	gets  int32 // its get requests in process
	paced Time  // its next get request waits until then
}

// bteGetBack counts cnt responses of get transfer t back: its channel has
// that many fewer gets in process.
func (n *nic) bteGetBack(t *txn, cnt int) {
	if t.bte != 0 && t.kind == pktGet {
		n.be.ch[t.bte&bteChannelMask].gets -= int32(cnt)
	}
}

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

// bteHeld says whether t's channel may make t's next request (slot: a
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
	c := &n.be.ch[t.bte&bteChannelMask]
	if m.p.BTEMaxGets > 0 && int(c.gets)+max(int(t.unit), 1) > m.p.BTEMaxGets {
		return -1
	}
	if c.paced > now {
		return c.paced
	}
	return 0
}
