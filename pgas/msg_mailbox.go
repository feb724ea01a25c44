package pgas

// The mailbox limit of eager-short messages. A short message travels in
// one mailbox message (GNI's SMSG): every PE keeps, for every peer, a
// mailbox of NetworkDepth fixed-size slots in registered memory, so the
// mailboxes of a job take memory in proportion to its rank count per PE
// (O(N) per node, O(N^2) overall: [GASNET-GEMINI], "Future work"). Cray
// MPICH keeps that memory bounded by shrinking the slot, and with it the
// eager-short limit, as the job grows: the limit "depends on the number of
// ranks" ([ORDERING] V.E; R-MPI-E0). The rule here: a PE's mailboxes share
// MsgMailboxBytes, the slot is that over (ranks - 1) x NetworkDepth,
// rounded down to a multiple of msgMailboxAlign and never below
// MsgMailboxMinBytes, and the eager-short limit is the smaller of the slot
// and the MsgEagerShort setting (the limit of small jobs).

const (
	// MsgMailboxBytes is the registered memory a PE's mailboxes share.
	// Assumed: the documents give the growth (O(N) per node) and the limit
	// at the paper's job sizes (512 B up to 96 ranks, [ORDERING] II, V.E)
	// but not the budget; 4 MiB keeps 512-byte slots up to 683 ranks at
	// the default 12 credits and halves them at each doubling beyond.
	MsgMailboxBytes = 4 << 20
	// MsgMailboxMinBytes is the smallest slot: a message header and a
	// little payload. Assumed (a 64-byte cache line).
	MsgMailboxMinBytes = 64
	// msgMailboxAlign is the slot's alignment: 8-byte words.
	msgMailboxAlign = 8
)

// MailboxSlotBytes is the size of one mailbox slot in a job of pes PEs with
// depth credits per peer: MsgMailboxBytes shared by every peer's depth
// slots, at least MsgMailboxMinBytes.
func MailboxSlotBytes(pes, depth int) int64 {
	peers := int64(max(pes-1, 1))
	slot := int64(MsgMailboxBytes) / (peers * int64(max(depth, 1)))
	slot -= slot % msgMailboxAlign
	return max(slot, MsgMailboxMinBytes)
}

// EagerShortLimit is the eager-short limit of a job of pes PEs with depth
// credits per peer under the MsgEagerShort setting: messages below it go
// in one mailbox message.
func EagerShortLimit(setting int64, pes, depth int) int64 {
	return min(setting, MailboxSlotBytes(pes, depth))
}
