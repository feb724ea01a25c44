package fabric

import "github.com/gopgas/gopgas/conduit"

// The AMO unit: one operation at a time, in the order the requests
// arrive, on words it keeps in its cache.
//
// Ordering. An AMO is a non-posted request (its source waits for the
// response) whose result is also a posted write: "Host memory is updated
// each time the variable is updated" ([GEMINI-WP] 2.4; [ARIES-WP] AMO
// section). The ordering modes say which requests may pass which
// ([ORDERING] II): with strict ordering "all local memory and network
// operations are completed in the order they are issued ..., without
// overtaking"; the default lets non-posted requests pass posted writes,
// and relaxed ordering lets them pass each other as well. The model acts
// on that rule in two places:
//   - the NIC's AMO unit (amoStart): a strict AMO may not pass the posted
//     writes the NIC issued before it, so the unit applies it only once
//     every write it has handed to the host interface is visible
//     (nic.writesVisible, from Host.Write), and only once the AMOs ahead of
//     it have been performed and their write-throughs handed over: strict
//     AMOs to a cached word follow one another at the host's write
//     latency, where default and relaxed ones pipeline at the cache's
//     rate (AMOHitCycles);
//   - the host interface: the write-through is a posted write in the AMO's
//     mode, so later strict writes and reads do not overtake it there
//     (the backend's Host), and later AMOs queue behind it in the unit.

type amoKey struct {
	rank   int
	region uint32
	off    int64
}

type amoEntry struct {
	ready Time
	used  uint64
}

// amoUnit is a NIC's AMO unit.
type amoUnit struct {
	free  Time                 // the unit is busy until then
	cache map[amoKey]*amoEntry // its cache
	clock uint64               // counts its operations (amoEntry.used)
	fills []Time               // by slot: when each fill in flight is back
	n     int                  // fills made
	// q holds the AMOs the unit has not started, in order (amoDrain);
	// pending counts those started and not yet performed.
	q       pktQueue
	pending int
	wake    bool // a nicAMODrain is scheduled
	// done and log are the record of applied AMOs, kept on machines whose
	// links may fail (applyAMO); head is log's first entry not yet
	// expired.
	done map[amoRecordKey]amoOutcome
	log  []amoLogEntry
	head int
}

// amo queues an AMO request for the AMO unit, which is made for the NIC's
// first (most NICs of a job of puts never see one).
func (n *nic) amo(p *Packet) {
	if n.au == nil {
		n.au = &amoUnit{cache: make(map[amoKey]*amoEntry), fills: make([]Time, n.m.p.AMOFetchesOutstanding)}
	}
	n.au.q.push(p)
	n.amoDrain()
}

// amoDrain starts the queued AMOs in order until one must wait: for the
// unit to be free, a strict AMO for those ahead of it to be performed
// (performAMO drains again) and for the NIC's earlier writes to be
// visible, a miss for a fill slot and a host-read tag (reads.go grants it
// and drains again).
func (n *nic) amoDrain() {
	for n.au.q.front() != nil && n.amoStart(n.au.q.front()) {
		n.au.q.pop()
	}
	// A grant the unit did not use (its head hit, or waits for something
	// else) goes back.
	n.giveBack(&n.amoTagGrant)
}

// amoWakeAt drains the AMO queue again at t.
func (n *nic) amoWakeAt(t Time) {
	if !n.au.wake {
		n.au.wake = true
		n.m.k.At(t, n, nicAMODrain, nil)
	}
}

// amoStart runs an AMO request through the AMO unit, or says it must
// wait: a hit in the AMO cache takes AMOHitCycles, a miss AMOMissCycles
// and a read of host memory (a fill, which holds a host-read tag until its
// data is back), which overlaps other operations up to
// AMOFetchesOutstanding. A strict AMO starts only once the AMOs ahead of it
// are performed and every write the NIC issued is visible.
func (n *nic) amoStart(p *Packet) bool {
	m := n.m
	now := m.k.Now()
	t := p.t
	if err := t.tep.CheckMemory(t.region, t.roff, int64(t.width)); err != nil {
		t.fail(conduit.StatusError, err.Error())
		p.failed = true
		n.response(p, pktAMORsp, m.sizes.ErrorResponse)
		n.transmit(p)
		return true
	}
	strict := t.order == conduit.OrderStrict
	if strict && n.au.pending > 0 {
		return false
	}
	start := n.au.free
	if strict {
		start = max(start, n.writesVisible)
	}
	k := amoKey{t.tep.Rank(), t.region, t.roff &^ (amoOperandBytes - 1)}
	e, hit := n.au.cache[k]
	slot := n.au.n % len(n.au.fills)
	if !hit {
		start = max(start, n.au.fills[slot])
	}
	if start > now {
		n.amoWakeAt(start)
		return false
	}
	if !hit && !n.amoTagGrant && !n.readFree() {
		n.engineWait(readAMO, &n.amoTagWait)
		return false
	}
	n.au.clock++
	var at Time
	if hit {
		n.au.free = now + m.amoHit
		at = max(n.au.free, e.ready)
		m.stats.AMOHits++
	} else {
		n.au.n++
		n.au.free = now + m.amoMiss
		n.readUse(1, &n.amoTagGrant)
		_, done := n.host.Read(now, 1, m.dstLoc(t), t.order)
		n.readRelease(done, 1)
		n.au.fills[slot] = done
		at = max(n.au.free, done)
		if len(n.au.cache) >= m.p.AMOCacheEntries {
			n.amoEvict()
		}
		e = &amoEntry{}
		n.au.cache[k] = e
		m.stats.AMOMisses++
	}
	e.ready = at
	e.used = n.au.clock
	n.au.pending++
	m.k.At(at, n, nicAMO, p)
	return true
}

// amoEvict drops the least recently used word from the AMO cache.
func (n *nic) amoEvict() {
	var victim amoKey
	var oldest uint64 = ^uint64(0)
	for k, e := range n.au.cache {
		if e.used < oldest || (e.used == oldest && lessKey(k, victim)) {
			victim, oldest = k, e.used
		}
	}
	delete(n.au.cache, victim)
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
	n.applyAMO(p)
	n.au.pending--
	n.amoDrain()
}

// applyAMO is performAMO's work on the word.
func (n *nic) applyAMO(p *Packet) {
	m := n.m
	t := p.t
	var key amoRecordKey
	if m.lossy {
		key = amoRecordKey{t.ep.Rank(), t.x.id}
		n.expireAMORecords()
		if rec, ok := n.au.done[key]; ok {
			m.stats.AMOReplays++
			p.old, p.failed = rec.old, rec.detail != ""
			if p.failed {
				t.fail(conduit.StatusError, rec.detail)
			}
			n.amoRespond(p)
			return
		}
	}
	old, err := t.tep.ApplyAMO(t.region, t.roff, t.amo, t.width, t.x.operand, t.x.compare)
	detail := ""
	if err != nil {
		detail = err.Error()
		t.fail(conduit.StatusError, detail)
		p.failed = true
	}
	p.old = old
	if m.lossy {
		n.au.done[key] = amoOutcome{old: old, detail: detail}
		n.au.log = append(n.au.log, amoLogEntry{key, m.k.Now()})
	}
	_, visible := n.host.Write(m.k.Now(), int(t.width), 1, m.dstLoc(t), t.order)
	n.writesVisible = max(n.writesVisible, visible)
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
	if n.au.done == nil {
		n.au.done = make(map[amoRecordKey]amoOutcome)
	}
	limit := n.m.k.Now() - AMORecordTimeouts*n.m.p.TransactionTimeout
	for n.au.head < len(n.au.log) && n.au.log[n.au.head].at < limit {
		delete(n.au.done, n.au.log[n.au.head].key)
		n.au.head++
	}
	if n.au.head > 0 && 2*n.au.head >= len(n.au.log) {
		n.au.log = append(n.au.log[:0], n.au.log[n.au.head:]...)
		n.au.head = 0
	}
}
