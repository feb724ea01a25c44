package fabric

// The NIC's reads of host memory and their tags. A read the NIC makes of
// its host's memory is a non-posted request (a HyperTransport or
// PCI-Express read): it carries a tag that names it until its data comes
// back, and the requester has only so many tags (Params.HostReadTags).
// Everything the NIC reads from its host shares them: the data of the gets
// it answers as a target (getArrived), the put data the block-transfer
// engine reads (bteSend), the AMO cache's fills (amoStart). A read waits
// for a free tag, and its tag frees when its data is back at the NIC; so
// however many requests are waiting, the NIC reads at most HostReadTags x
// 64 bytes per read round trip. Posted writes (a put's data, an AMO's
// write-through) take no tag.
//
// Reads wait their turn in order: a get in the queue (readQ) is read as
// soon as a tag frees for it; an engine (the block-transfer engine, the
// AMO unit) waits as a single entry, and when its turn comes it is granted
// a tag kept for it (readsRes) until its next step uses it or gives it
// back. A coarse unit's reads take a tag each, so a unit may take a
// granted tag and a few more than are free.

// readWaiter is an entry of the queue of reads waiting for a tag: a get's
// request, or an engine.
type readWaiter struct {
	p   *Packet // the get, or nil
	eng uint8   // otherwise the engine: readBTE or readAMO
}

// The engines that wait for tags.
const (
	readBTE = iota + 1
	readAMO
)

// readFree says whether a read that has not waited may take a tag now: one
// is free and nothing waits ahead of it.
func (n *nic) readFree() bool {
	lim := n.m.p.HostReadTags
	return lim == 0 || (n.readHead == len(n.readQ) && n.readsOut+n.readsRes < lim)
}

// readUse takes cnt tags for a read the NIC makes now: the grant of an
// engine's (if *grant), or free ones.
func (n *nic) readUse(cnt int, grant *bool) {
	if n.m.p.HostReadTags == 0 {
		return
	}
	if grant != nil && *grant {
		*grant = false
		n.readsRes--
	}
	n.readsOut += cnt
}

// readWait queues a get's request for a tag.
func (n *nic) readWait(p *Packet) {
	n.readQ = append(n.readQ, readWaiter{p: p})
}

// engineWait queues an engine for a tag, once: *waiting says it is queued.
func (n *nic) engineWait(eng uint8, waiting *bool) {
	if !*waiting {
		*waiting = true
		n.readQ = append(n.readQ, readWaiter{eng: eng})
	}
}

// readRelease frees cnt tags at t, when a read's data is back at the NIC.
func (n *nic) readRelease(t Time, cnt int) {
	if n.m.p.HostReadTags > 0 {
		n.m.k.At(t, n, nicReadFree, cnt)
	}
}

// giveBack returns an engine's grant it did not use.
func (n *nic) giveBack(grant *bool) {
	if *grant {
		*grant = false
		n.readsRes--
		n.readServe()
	}
}

// readFreed frees cnt tags now and serves the waiting reads.
func (n *nic) readFreed(cnt int) {
	n.readsOut -= cnt
	n.readServe()
}

// readServe gives free tags to the waiting reads in order.
func (n *nic) readServe() {
	lim := n.m.p.HostReadTags
	for n.readHead < len(n.readQ) && n.readsOut+n.readsRes < lim {
		w := n.readQ[n.readHead]
		n.readQ[n.readHead] = readWaiter{}
		n.readHead++
		switch {
		case w.p != nil:
			n.readUse(int(w.p.cnt), nil)
			n.getRead(w.p)
		case w.eng == readBTE:
			n.bteTagWait, n.bteTagGrant = false, true
			n.readsRes++
			n.bteKick()
		case w.eng == readAMO:
			n.amoTagWait, n.amoTagGrant = false, true
			n.readsRes++
			n.amoDrain()
		}
	}
	if n.readHead == len(n.readQ) {
		n.readQ, n.readHead = n.readQ[:0], 0
	} else if n.readHead > 64 && 2*n.readHead >= len(n.readQ) {
		k := copy(n.readQ, n.readQ[n.readHead:])
		clear(n.readQ[k:])
		n.readQ, n.readHead = n.readQ[:k], 0
	}
}

// readBack books the data of a read of cnt packets (data bytes in all)
// crossing the host interface to the NIC from t, and returns when it has
// all arrived. Each packet's data crosses in turn and frees its tag as it
// arrives, so a coarse unit holds its tags as its packets would have.
func (n *nic) readBack(t Time, data, cnt int) Time {
	m := n.m
	over := m.p.HostOverheadBytes
	if m.p.HostReadTags == 0 {
		return n.host.ToNIC(t, data+cnt*over)
	}
	var back Time
	for i := range cnt {
		b := m.p.MaxPacketData
		if i == cnt-1 {
			b = max(data-i*b, 0)
		}
		back = n.host.ToNIC(t, b+over)
		n.readRelease(back, 1)
	}
	return back
}
