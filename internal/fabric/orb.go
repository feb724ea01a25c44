package fabric

import "math"

// The output request buffer (ORB): a NIC has Params.ORBEntries entries,
// one for each request packet it has sent whose response has not come
// back (a coarse unit holds one per packet it stands for). A request takes
// its entries as it enters the transmit pipeline (admit), and waits in the
// NIC's orbWait queue while there are not enough free; its response frees
// them (orbRelease, from nic.go's handling of responses), as does the end
// of its transaction (finish, txn.go). The block-transfer engine makes no
// request while the ORB is full and is woken when entries free
// (bteParked). Responses and control packets take no entries.

// orbRoom says whether cnt more entries are free.
// maxORBEntries is the most entries a NIC's ORB may have (Params): a
// transaction counts the entries it holds in 16 bits (txn.orbHeld).
const maxORBEntries = math.MaxUint16

func (n *nic) orbRoom(cnt int) bool { return n.orbUsed+cnt <= n.m.p.ORBEntries }

// admit takes ORB entries for a request packet entering the transmit
// pipeline at now, and starts its transaction's timer if it has not
// started. It says whether the packet goes on: a request of a transaction
// that has ended is dropped, and one that finds too few entries free
// waits for them (orbRelease transmits it again).
func (n *nic) admit(p *Packet, now Time) bool {
	t := p.t
	if t.done {
		// Its transaction timed out: the NIC sends no more of it.
		n.m.freePacket(p)
		return false
	}
	if !n.orbRoom(int(p.cnt)) {
		n.orbWait.push(p)
		return false
	}
	n.orbUsed += int(p.cnt)
	n.m.stats.ORBMax = max(n.m.stats.ORBMax, int64(n.orbUsed))
	t.orbHeld += uint16(p.cnt)
	t.alive = now
	if !t.timing {
		n.arm(t, now+n.m.p.TransactionTimeout)
	}
	return true
}

// orbRelease frees cnt entries of t's and lets waiting packets go.
func (n *nic) orbRelease(t *txn, cnt int) {
	cnt = min(cnt, int(t.orbHeld))
	if cnt == 0 {
		return
	}
	t.orbHeld -= uint16(cnt)
	n.orbUsed -= cnt
	n.bteGetBack(t, cnt)
	for n.orbWait.front() != nil && n.orbRoom(int(n.orbWait.front().cnt)) {
		n.transmit(n.orbWait.pop())
	}
	if n.be != nil && n.be.parked && n.orbRoom(1) {
		n.be.parked = false
		n.bteKick()
	}
}
