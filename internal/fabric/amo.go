package fabric

import "github.com/gopgas/gopgas/conduit"

// The AMO unit: one operation at a time, on words it keeps in its cache.

type amoKey struct {
	rank   int
	region uint32
	off    int64
}

type amoEntry struct {
	ready Time
	used  uint64
}

// amo runs an AMO request through the AMO unit: a hit in the AMO cache
// takes AMOHitCycles, a miss AMOMissCycles and a read of host memory,
// which overlaps other operations up to AMOFetchesOutstanding.
func (n *nic) amo(p *Packet) {
	m := n.m
	now := m.k.Now()
	t := p.t
	if err := t.tep.CheckMemory(t.region, t.roff, int64(t.width)); err != nil {
		t.fail(conduit.StatusError, err.Error())
		p.failed = true
		n.response(p, pktAMORsp, m.sizes.ErrorResponse)
		n.transmit(p)
		return
	}
	k := amoKey{t.tep.Rank(), t.region, t.roff &^ (amoOperandBytes - 1)}
	start := max(now, n.amoFree)
	n.amoClock++
	e, hit := n.amoCache[k]
	var at Time
	if hit {
		n.amoFree = start + m.amoHit
		at = max(n.amoFree, e.ready)
		m.stats.AMOHits++
	} else {
		slot := n.amoN % len(n.amoFills)
		n.amoN++
		start = max(start, n.amoFills[slot])
		n.amoFree = start + m.amoMiss
		_, done := n.host.Read(start, 1, t.dstLoc, t.order)
		n.amoFills[slot] = done
		at = max(n.amoFree, done)
		if len(n.amoCache) >= m.p.AMOCacheEntries {
			n.amoEvict()
		}
		e = &amoEntry{}
		n.amoCache[k] = e
		m.stats.AMOMisses++
	}
	e.ready = at
	e.used = n.amoClock
	m.k.At(at, n, nicAMO, p)
}

// amoEvict drops the least recently used word from the AMO cache.
func (n *nic) amoEvict() {
	var victim amoKey
	var oldest uint64 = ^uint64(0)
	for k, e := range n.amoCache {
		if e.used < oldest || (e.used == oldest && lessKey(k, victim)) {
			victim, oldest = k, e.used
		}
	}
	delete(n.amoCache, victim)
}

func lessKey(a, b amoKey) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.region != b.region {
		return a.region < b.region
	}
	return a.off < b.off
}

// performAMO updates the word, writes it through to host memory, and
// answers.
func (n *nic) performAMO(p *Packet) {
	m := n.m
	t := p.t
	old, err := t.tep.ApplyAMO(t.region, t.roff, t.amo, t.width, t.operand, t.compare)
	if err != nil {
		t.fail(conduit.StatusError, err.Error())
		p.failed = true
	}
	p.old = old
	n.host.Write(m.k.Now(), int(t.width), 1, t.dstLoc, t.order)
	size := m.sizes.response(p.failed)
	if t.fetch && !p.failed {
		size = m.sizes.DataResponse(int(t.width))
	}
	n.response(p, pktAMORsp, size)
	n.transmit(p)
}
