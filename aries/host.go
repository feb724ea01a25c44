package aries

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"unsafe"
)

// The host interface: each NIC's own 16X PCI-Express Gen3 link to its
// node (A-PCIE; Aries NIC, Aries Performance), 16 GB/s each way, 24 bytes
// of overhead on every transfer and a further loss to alignment and flow
// control (PCIeEfficiencyPercent). The NIC's writes into memory are posted;
// its reads (a get's data at the target, page-table fetches) are
// non-posted and "a PCI-Express read is required on the remote node" for
// every get (A-LAT-GET).
//
// Ordering: PCI-Express keeps posted writes in order unless they carry
// the relaxed-ordering attribute, and a read may not pass an earlier
// posted write in the same direction. The model: strict writes become
// visible in the order the NIC issued them, and strict reads after every
// earlier write; default writes keep their order but reads pass them;
// relaxed writes and reads take whatever order memory returns them in.
// A strict write does not wait for earlier reads, as it does on Gemini's
// HT interface (gemini/host.go): PCI-Express lets a posted write pass a
// read, and with that rule here strict block-transfer gets of 16 KiB
// with 16 PEs per node on 4 nodes fell from 24.7 to 5.8 GB/s, where the
// ordering paper sees Aries barely care about ordering (A-ORD, [ORDERING]
// VI.B).
// Memory on the second socket answers QPILatency later each way.
//
// The host-to-NIC direction is a calendar (fabric.Calendar), as on Gemini:
// a read's data is booked when the read is issued, for when memory returns
// it, and the CPU's stores to the NIC use the idle link before it instead
// of queueing behind it.

// pcieTime is how long n bytes take on a PCI-Express direction.
func pcieTime(n int) Time {
	return Time(int64(n) * 1_000_000_000_000 * 100 / (PCIeBytesPerSecond * PCIeEfficiencyPercent))
}

// host is a node's side of its NIC's PCI-Express link (a fabric.Host whose
// locations are sockets).
type host struct {
	down   fabric.Calendar // host -> NIC
	upFree Time            // NIC -> host free from then

	slots     fabric.Times // visibility of the last writes, by slot (BridgePostedBuffer)
	nWrites   int
	lastWrite Time // visibility of the last ordered write
	readDone  Time // completion of the last ordered read
}

// memLatency is the latency of a write or a read of memory on socket loc.
func memLatency(base Time, loc int) Time {
	if loc > 0 {
		return base + 2*QPILatency
	}
	return base
}

// ToNIC books bytes (data and overhead) on the host -> NIC direction at t
// and returns when they have reached the NIC.
func (h *host) ToNIC(t Time, bytes int) Time {
	return h.down.Book(t, pcieTime(bytes)) + PCIeLatency
}

// Write books a posted write of n data bytes in cnt PCI-Express transfers
// to memory on socket loc, handed to the link at t.
func (h *host) Write(t Time, n, cnt, loc int, order conduit.OrderingMode) (taken, visible Time) {
	slot := h.nWrites % BridgePostedBuffer
	taken = max(t, h.upFree, h.slots.At(slot)-PCIeLatency)
	h.upFree = taken + pcieTime(n+cnt*PCIeOverheadBytes)
	visible = h.upFree + PCIeLatency + memLatency(MemoryWriteLatency, loc)
	if order != conduit.OrderRelaxed {
		visible = max(visible, h.lastWrite)
		h.lastWrite = visible
	}
	h.slots.Set(slot, BridgePostedBuffer, visible)
	h.nWrites++
	return taken, visible
}

// Read books cnt reads of memory on socket loc arriving from the NIC at t:
// each read request crosses the link up (its overhead), memory answers,
// and the data starts back down at done.
func (h *host) Read(t Time, cnt, loc int, order conduit.OrderingMode) (snapshot, done Time) {
	start := max(t, h.upFree)
	h.upFree = start + pcieTime(cnt*PCIeOverheadBytes)
	issue := h.upFree + PCIeLatency
	if order == conduit.OrderStrict {
		// Not before the writes ahead of it are visible.
		issue = max(issue, h.lastWrite)
	}
	l := memLatency(MemoryReadLatency, loc)
	done = issue + l
	if order != conduit.OrderRelaxed {
		done = max(done, h.readDone)
		h.readDone = done
	}
	return issue + l/2, done
}

// hostBytes is a node's memory besides the fabric's NIC, for Plan: its
// host interface, its IOMMU with the PTE cache's sets in use
// (plannedPTESets), its vMDH CAM and the collective engine's per-node
// state.
const hostBytes = int64(unsafe.Sizeof(host{})) + int64(unsafe.Sizeof(iommu{})) + plannedPTESets*int64(unsafe.Sizeof(pteSetLines{})) +
	int64(unsafe.Sizeof(vmdhCAM{})) + plannedHostRoom + 1024

// plannedHostRoom is what Plan counts for the host interface's and the
// IOMMU's state made as they are used: the host-to-NIC calendar's room for
// its bookings and the slots (fabric.Times) of the posted writes and the
// page-table fetches in flight. Assumed: a busy node's, as in the
// full-system benchmark's traffic (16 puts each way: up to 16 bookings of
// 32 bytes and 49 posted writes, four pieces of 16 slots, and a piece of
// fetch slots).
const plannedHostRoom = 16*32 + 4*(16*8+8) + 2*8 + 16*8

// plannedPTESets is how many of a node's PTE cache sets Plan counts as
// made (a set is made when first filled). Assumed: a job's requests name
// a few pages of each of a few memory domains (the segments, the
// mailboxes, a registered buffer), each group of pages one set, and a
// busy node may fill them all; a quarter of the sets is the estimate.
const plannedPTESets = PTECacheSets / 4
