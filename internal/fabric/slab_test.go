package fabric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Packets, transactions and packet buffers are made a block at a time
// when their free list is empty, and reused from it without allocating:
// a new high of the population in flight costs one allocation per block.
func TestSlabs(t *testing.T) {
	m := &Machine{p: Params{MaxPacketData: 64}}

	var pkts []*Packet
	allocs := testing.AllocsPerRun(1, func() {
		pkts = pkts[:0]
		for range packetSlab {
			pkts = append(pkts, m.newPacket())
		}
	})
	assert.LessOrEqual(t, allocs, 2.0, "a block of %d packets (and the test's slice) in a couple of allocations", packetSlab)
	seen := map[*Packet]bool{}
	for _, p := range pkts {
		assert.False(t, seen[p], "every packet of a block is handed out once")
		seen[p] = true
	}
	assert.Nil(t, m.freePkts, "a block's packets all handed out")
	for _, p := range pkts {
		m.freePacket(p)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { m.freePacket(m.newPacket()) }), "a freed packet is reused")

	m.stockTxns()
	assert.EqualValues(t, txnSlab, m.freeTxnCount, "a block of transactions")
	n := 0
	for x := m.freeTxns; x != nil; x = x.tNext {
		n++
	}
	assert.EqualValues(t, txnSlab, n, "the free list holds them all")
	assert.Zero(t, testing.AllocsPerRun(100, m.stockTxns), "a stock above its floor is left as it is")

	p := m.newPacket()
	data := []byte("sixty-four bytes at most")
	m.holdData(p, data)
	require.Equal(t, data, p.bytes())
	left := m.freeBufs.len()
	assert.Equal(t, bufSlabBytes/64-1, left, "a block of buffers, one taken")
	other := m.freeBufs.pop()
	assert.Equal(t, 64, len(other))
	assert.Equal(t, 64, cap(other), "a buffer cannot grow into its neighbour")
	m.freeBufs.push(other)
	m.freePacket(p)
	assert.Equal(t, left+1, m.freeBufs.len(), "the buffer back with the packet")
}
