package fabric

// The block-transfer engine: a NIC serves Params.BTEChannels transfers at
// once, in turn, the others waiting in its queue.

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
// read is back.
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
		slot := t.next % m.p.BTEReadsOutstanding
		if t.kind == pktPut && t.reads[slot] > now {
			if wake < 0 || t.reads[slot] < wake {
				wake = t.reads[slot]
			}
			n.bteCur++
			n.bteBurst = 0
			tried++
			continue
		}
		if n.orbUsed+max(t.unit, 1) > m.p.ORBEntries {
			n.bteParked = true
			return
		}
		p := n.request(t, t.next)
		t.next++
		if t.kind == pktPut {
			_, done := n.host.Read(now, p.cnt, t.srcLoc, t.order)
			arrive := n.host.ToNIC(done, p.n+p.cnt*m.p.HostOverheadBytes)
			t.reads[slot] = arrive
			m.k.At(arrive, n, nicTx, p)
		} else {
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
	if wake >= 0 {
		n.bteNext = max(n.bteNext, wake)
		n.bteKick()
	}
}
