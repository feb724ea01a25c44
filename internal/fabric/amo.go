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
// answers. On a machine whose links may fail it first looks the
// transaction up in the record of applied AMOs: a retry of one already
// applied is answered from the record and not applied again.
func (n *nic) performAMO(p *Packet) {
	m := n.m
	t := p.t
	var key amoRecordKey
	if m.lossy {
		key = amoRecordKey{t.ep.Rank(), t.id}
		n.expireAMORecords()
		if rec, ok := n.amoDone[key]; ok {
			m.stats.AMOReplays++
			p.old, p.failed = rec.old, rec.detail != ""
			if p.failed {
				t.fail(conduit.StatusError, rec.detail)
			}
			n.amoRespond(p)
			return
		}
	}
	old, err := t.tep.ApplyAMO(t.region, t.roff, t.amo, t.width, t.operand, t.compare)
	detail := ""
	if err != nil {
		detail = err.Error()
		t.fail(conduit.StatusError, detail)
		p.failed = true
	}
	p.old = old
	if m.lossy {
		n.amoDone[key] = amoOutcome{old: old, detail: detail}
		n.amoLog = append(n.amoLog, amoLogEntry{key, m.k.Now()})
	}
	n.host.Write(m.k.Now(), int(t.width), 1, t.dstLoc, t.order)
	n.amoRespond(p)
}

// amoRespond turns an AMO request into its response and sends it.
func (n *nic) amoRespond(p *Packet) {
	m := n.m
	t := p.t
	size := m.sizes.response(p.failed)
	if t.fetch && !p.failed {
		size = m.sizes.DataResponse(int(t.width))
	}
	n.response(p, pktAMORsp, size)
	n.transmit(p)
}

// The record of applied AMOs. The transport retries a transaction that
// timed out (conduit.PostDesc.Retry), and a timed-out AMO may have been
// applied at the target with only its response lost; applying it again
// would count it twice. The Cray documents say only that completion
// events carry the status "allowing software to recover from errors"
// ([GEMINI-WP] 3.1); they do not describe how an AMO is retried. The
// model assumes the mechanism of InfiniBand's responder resources: a
// target that has executed an atomic keeps its result, and answers a
// duplicate of the request (a retry carrying the same identity) from that
// record instead of executing it again. Here the target NIC remembers the
// outcome (the fetched value, or the error) of every AMO it applies, by
// source PE and transaction identity (the first attempt's
// conduit.PostDesc.TxnID, which a retry carries), for at least
// AMORecordTimeouts transaction timeouts, and answers any later attempt
// from the record. Only machines whose links may fail keep it: elsewhere
// no transaction times out for a lost packet and none is retried.

// AMORecordTimeouts is how many transaction timeouts a target NIC keeps
// the record of an applied AMO: a retry is posted when the runtime
// processes the timeout, one timeout after the request at most plus the
// time its PE takes to poll. Assumed: four timeouts (40 ms on both
// backends) cover a PE that computes for up to three timeouts between
// polls; a retry later than that would be applied again.
const AMORecordTimeouts = 4

// amoRecordKey names an applied AMO: its source PE and transaction
// identity.
type amoRecordKey struct {
	src int
	id  uint64
}

// amoOutcome is what a target NIC remembers of an applied AMO: the old
// value, or why it failed.
type amoOutcome struct {
	old    uint64
	detail string
}

// amoLogEntry is an applied AMO in the order of application, for expiry.
type amoLogEntry struct {
	key amoRecordKey
	at  Time
}

// expireAMORecords forgets the AMOs applied more than AMORecordTimeouts
// transaction timeouts ago.
func (n *nic) expireAMORecords() {
	if n.amoDone == nil {
		n.amoDone = make(map[amoRecordKey]amoOutcome)
	}
	limit := n.m.k.Now() - AMORecordTimeouts*n.m.p.TransactionTimeout
	for n.amoHead < len(n.amoLog) && n.amoLog[n.amoHead].at < limit {
		delete(n.amoDone, n.amoLog[n.amoHead].key)
		n.amoHead++
	}
	if n.amoHead > 0 && 2*n.amoHead >= len(n.amoLog) {
		n.amoLog = append(n.amoLog[:0], n.amoLog[n.amoHead:]...)
		n.amoHead = 0
	}
}
