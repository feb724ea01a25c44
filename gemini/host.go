package gemini

import (
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// The host interface (WP 6.2) and the node's memory, and where the three
// ordering modes act. GNI exposes the modes as rules of the processor
// interface ([GNI-SRC] gni_pub.h, GNI_MEM_STRICT_PI_ORDERING and
// GNI_MEM_RELAXED_PI_ORDERING): by default non-posted requests (reads) may
// pass posted writes; strict ordering forbids it; relaxed ordering also lets
// posted writes pass posted writes (MOP II).
//
// The model's mechanism: the host bridge keeps the NIC's posted writes in
// order unless they may pass each other. A node's memory is four NUMA dies
// (MOP II, Figure 1) with their own memory controllers, so keeping two
// writes in order when they go to different dies means issuing the second
// only once the first has been acknowledged by its die; writes to the same
// die pipeline, their controller keeping them in order. A strict read must
// not pass any earlier write either, and the bridge issues it only once
// every earlier write has been acknowledged, its own die's included: a
// read travels HT's non-posted virtual channel, with buffers and flow
// control of its own, so on the way to its die it could overtake a write
// in the posted channel, and the ordering rules bind only the stream as
// the bridge receives it ([HT-ARCH]). (Aries' host interface has the same
// rule: a strict read after every earlier write.) Relaxed writes, and
// default and relaxed reads, are issued as soon as they reach the bridge.
// Reads complete in the order they were issued, except under relaxed
// ordering. Nor may a strict write pass an earlier read: under GNI's strict
// processor-interface ordering "all local memory and network operations
// are completed in the order they are issued ... without overtaking"
// (MOP II), where default ordering lets reads pass writes and writes pass
// reads, as PCI's and HT's posted writes may. A strict
// write to the die of an earlier read follows that read through the die's
// controller, which serves reads ahead of the writes it buffers and never
// a write ahead of an earlier read; one to another die is issued only once
// the read has read memory, as nothing orders the two on their separate
// ways (the reason a write to another die than the last waits for that
// one's acknowledgement). (Aries' host interface has no such rule: see
// aries/host.go.) With one PE per node, or a few on one die, the orders
// cost little; with PEs on several dies their interleaved
// streams switch dies often, and every switch waits a round trip: strict
// ordering cannot tell the ranks' independent transfers apart and makes them
// interfere (MOP III.A's conjecture).
//
// Links are modelled by reservation, in the order the events that book
// them happen. The NIC-to-host direction is a FIFO whose next free time
// moves forward with every transfer. The host-to-NIC direction carries a
// read's data, booked when the read is issued for when memory returns it,
// and the CPU's stores to the NIC: it is a calendar (fabric.Calendar) in
// which a store takes the idle link before data booked ahead, as it would
// in its own virtual channel, instead of queueing behind it. Were it a
// FIFO, the earlier reads are issued the longer the CPU's descriptor posts
// would wait, and the less constrained ordering modes would lose time
// there: default and relaxed fell up to 6% below strict with one PE per
// node.
//
// The interface's figures (HT bandwidth and latency, the bridge's posted
// buffer, the dies and their latencies) are in params.go.

// htTime is how long n bytes take on an HT link direction (9.6 GB/s).
func htTime(n int) Time { return Time(int64(n) * 1_000_000_000_000 / HTBytesPerSecond) }

// host is a node's processor side of the HT link (a fabric.Host whose
// locations are dies).
type host struct {
	down fabric.Calendar // host -> NIC link

	upFree    Time                     // NIC -> host posted writes: link free from then
	slots     [BridgePostedBuffer]Time // issue times of the last writes, by slot
	nWrites   int                      // posted writes so far
	lastIssue Time                     // issue time of the last write issued in order
	lastDie   int                      // its die
	lastAck   Time                     // its acknowledgement
	acked     Time                     // when every write so far is acknowledged
	readDone  Time                     // completion of the last ordered read
	readAt    [Dies]Time               // when the latest read of each die reads memory
	dieWrites [Dies]int64              // writes to each die (statistics)
	dieSwitch int64                    // ordered writes that waited for a die switch
}

func writeLatency(die int) Time {
	if die == NICDie {
		return LocalWriteLatency
	}
	return RemoteWriteLatency
}

func readLatency(die int) Time {
	if die == NICDie {
		return LocalReadLatency
	}
	return RemoteReadLatency
}

// ToNIC books n bytes (data and overhead) on the host -> NIC direction at
// time t and returns when they have reached the NIC.
func (h *host) ToNIC(t Time, n int) Time {
	return h.down.Book(t, htTime(n)) + HTLatency
}

// Write books a posted write of n data bytes in cnt HT transactions (one
// per packet; a coarse unit is a burst of them) to die, handed to the HT
// link at t. It returns when the link took it (the NIC is free of it then:
// a posted write needs no response) and when it is visible in memory.
func (h *host) Write(t Time, n, cnt, die int, order conduit.OrderingMode) (taken, visible Time) {
	slot := h.nWrites % BridgePostedBuffer
	taken = max(t, h.upFree, h.slots[slot])
	h.upFree = taken + htTime(n+cnt*HTOverheadBytes)
	issue := h.upFree + HTLatency
	if order == conduit.OrderStrict {
		for d, at := range h.readAt {
			if d != die {
				issue = max(issue, at)
			}
		}
	}
	if order != conduit.OrderRelaxed {
		issue = max(issue, h.lastIssue)
		if die != h.lastDie && h.nWrites > 0 {
			if h.lastAck > issue {
				h.dieSwitch++
			}
			issue = max(issue, h.lastAck)
		}
	}
	ack := issue + writeLatency(die)
	h.slots[slot] = issue
	h.nWrites++
	h.dieWrites[die]++
	if order != conduit.OrderRelaxed {
		h.lastIssue, h.lastDie, h.lastAck = issue, die, ack
	}
	h.acked = max(h.acked, ack)
	return taken, ack
}

// Read books a read of die's memory (cnt HT reads: one per packet)
// arriving from the NIC at t. The memory
// is read at snapshot; the data is on its way back to the NIC at done.
func (h *host) Read(t Time, cnt, die int, order conduit.OrderingMode) (snapshot, done Time) {
	// A read request travels the HT's non-posted channel: unless strict, it
	// passes the posted writes queued on the link.
	issue := t + htTime(HTOverheadBytes) + HTLatency
	// It takes its 12 bytes (per packet read) of the link's bandwidth
	// from the writes.
	h.upFree = max(h.upFree, t) + htTime(cnt*HTOverheadBytes)
	if order == conduit.OrderStrict {
		// Behind every earlier write, once each is acknowledged.
		issue = max(issue, h.upFree+HTLatency, h.acked)
	}
	l := readLatency(die)
	done = issue + l
	if order != conduit.OrderRelaxed {
		// Completions come back in the order the reads were issued: a read
		// of a near die waits behind an earlier one of a far die.
		done = max(done, h.readDone)
		h.readDone = done
	}
	snapshot = issue + l/2
	h.readAt[die] = max(h.readAt[die], snapshot)
	return snapshot, done
}

// hostBytes is a node's host interface's memory, for Plan.
const hostBytes = int64(unsafe.Sizeof(host{})) + 16

// dieOf is the NUMA die of a rank's core and memory: PEs fill a node's
// cores in order.
func dieOf(j *simnet.Job, rank int) int {
	local := rank % j.PEsPerNode()
	return (local % CoresPerNode) / (CoresPerNode / Dies)
}
