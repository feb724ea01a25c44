package aries

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/option"
)

// The 70-bit network address: fields at their places, round trips, and
// every field's range.
func TestNetworkAddressPack(t *testing.T) {
	for _, a := range []NetworkAddress{
		{},
		{Node: 1},
		{MDH: 1},
		{Offset: 1},
		{Node: MaxNodeID - 1, MDH: MDHsPerNIC - 1, Offset: uint64(MaxOffset) - 1},
		{Node: 92543, MDH: 17, Offset: 3 << 30},
	} {
		lo, hi, err := a.Pack()
		require.NoError(t, err, "%+v", a)
		b, err := UnpackNetworkAddress(lo, hi)
		require.NoError(t, err)
		assert.Equal(t, a, b)
	}
	lo, hi, err := NetworkAddress{Node: 1}.Pack()
	require.NoError(t, err)
	assert.Equal(t, uint64(1)<<52, lo, "the node above the MDH and the offset")
	assert.Zero(t, hi)
	lo, hi, err = NetworkAddress{Node: 1 << 17}.Pack()
	require.NoError(t, err)
	assert.Zero(t, lo)
	assert.Equal(t, uint8(1<<5), hi, "the node's top bit is bit 69")
	for _, c := range []struct {
		a    NetworkAddress
		want string
	}{
		{NetworkAddress{Node: MaxNodeID}, "node 262144"},
		{NetworkAddress{MDH: MDHsPerNIC}, "MDH 4096"},
		{NetworkAddress{Offset: uint64(MaxOffset)}, "offset 1099511627776"},
	} {
		_, _, err := c.a.Pack()
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
	_, err = UnpackNetworkAddress(0, 1<<6)
	assert.ErrorContains(t, err, "more than 70 bits")
}

// The vMDH CAM: a match adds its base to the packet's value; misses,
// duplicates and a full CAM are refused.
func TestVMDHCAM(t *testing.T) {
	var c vmdhCAM
	require.NoError(t, c.add(JobVMDH, 100))
	mdh, ok := c.lookup(JobVMDH, 7)
	assert.True(t, ok)
	assert.Equal(t, uint16(107), mdh)
	_, ok = c.lookup(JobVMDH+1, 7)
	assert.False(t, ok, "a handle the CAM does not hold")
	_, ok = c.lookup(JobVMDH, MDHsPerNIC-100)
	assert.False(t, ok, "an MDH beyond 12 bits")
	assert.ErrorContains(t, c.add(JobVMDH, 5), "already mapped")
	for v := uint16(2); len(c.entries) < CAMEntries; v++ {
		require.NoError(t, c.add(v, 0))
	}
	assert.ErrorContains(t, c.add(999, 0), "all 16 entries in use")
}

// A memory domain holds the segment at 0 and each registered region at
// huge-page-aligned offsets of its own after it; freed offsets are reused
// and coalesce; the 40-bit space runs out with an error.
func TestMemoryDomain(t *testing.T) {
	d := newDomain(3 << 20)
	off, ok := d.offset(conduit.SegmentID)
	assert.True(t, ok)
	assert.Zero(t, off)
	a, err := d.place(5, 100)
	require.NoError(t, err)
	assert.Equal(t, int64(4<<20), a, "after the segment, on a huge page")
	b, err := d.place(6, 5<<20)
	require.NoError(t, err)
	assert.Equal(t, int64(6<<20), b)
	c, err := d.place(7, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(12<<20), c)
	got, ok := d.offset(6)
	assert.True(t, ok)
	assert.Equal(t, b, got)
	_, ok = d.offset(99)
	assert.False(t, ok)

	_, ok = d.release(5)
	assert.True(t, ok)
	_, ok = d.release(6)
	assert.True(t, ok)
	_, ok = d.release(6)
	assert.False(t, ok, "released twice")
	// 5 and 6 coalesced: 8 MiB at 4 MiB.
	e, err := d.place(8, 8<<20)
	require.NoError(t, err)
	assert.Equal(t, int64(4<<20), e)
	_, ok = d.release(7)
	assert.True(t, ok)
	_, ok = d.release(8)
	assert.True(t, ok)
	assert.Equal(t, []span{{4 << 20, MaxOffset - 4<<20}}, d.free, "everything after the segment is one free span again")

	_, err = d.place(9, MaxOffset)
	assert.ErrorContains(t, err, "40-bit offsets")
	full := newDomain(MaxOffset)
	_, err = full.place(1, 1)
	assert.Error(t, err, "a segment of the whole domain leaves nothing")
}

// Invalidation drops the PTE entries of a range of a domain and nothing
// else.
func TestPTECacheInvalidate(t *testing.T) {
	var c PTECache
	for _, mdh := range []uint32{1, 2} {
		for p := range int64(32) {
			_, err := c.Translate(mdh, p*SmallPageBytes, SmallPageBytes)
			require.NoError(t, err)
		}
	}
	// Pages 8..23 of domain 1: entries 1 and 2.
	c.Invalidate(1, 8*SmallPageBytes, 16*SmallPageBytes, SmallPageBytes)
	for _, x := range []struct {
		mdh  uint32
		page int64
		miss bool
	}{{1, 0, false}, {1, 8, true}, {1, 16, true}, {1, 24, false}, {2, 8, false}, {2, 16, false}} {
		reads, err := c.Translate(x.mdh, x.page*SmallPageBytes, SmallPageBytes)
		require.NoError(t, err)
		assert.Equal(t, x.miss, reads > 0, "domain %d page %d", x.mdh, x.page)
	}
	// A range larger than the cache: every entry of the domain goes.
	c.Invalidate(2, 0, 1<<40, SmallPageBytes)
	reads, err := c.Translate(2, 0, SmallPageBytes)
	require.NoError(t, err)
	assert.Positive(t, reads)
}

// A hit on an entry whose page-table fetch is still under way waits for
// it: the packets of one transfer behind a miss do not pass it.
func TestPTEFetchPending(t *testing.T) {
	var c PTECache
	line, reads, err := c.lookup(3, 0, SmallPageBytes)
	require.NoError(t, err)
	require.Positive(t, reads)
	line.ready = 5000
	again, reads, err := c.lookup(3, SmallPageBytes, SmallPageBytes)
	require.NoError(t, err)
	assert.Zero(t, reads)
	assert.Equal(t, Time(5000), again.ready, "the same entry, with its fetch's time")
}

// Node lists and the virtual-to-physical node map.
func TestVirtualNodes(t *testing.T) {
	ex, err := option.ParseNodeList("9,3,7-8,3", MaxNodes-1)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 7, 8, 9}, ex)
	assert.Equal(t, []int{0, 1, 2, 4, 5, 6, 10, 11}, physicalNodes(8, ex))
	assert.Equal(t, []int{0, 1}, physicalNodes(2, nil))
	for _, bad := range []string{"", "x", "3-", "-3", "5-2", "1,,2", "92544"} {
		_, err := option.ParseNodeList(bad, MaxNodes-1)
		assert.Error(t, err, "%q", bad)
	}
}
