package fabric

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A channel gets its VCs' state when it first queues a packet, each VC
// with all of its own space at the far end; one that never does has none.
func TestChannelVCStateOnFirstUse(t *testing.T) {
	m := bareMachine(t, 3, 1, 40, 0)
	a, b := m.NewRouter(), m.NewRouter()
	used, idle := m.NewLink(a, b, 1000, 5000, 1), m.NewLink(b, a, 1000, 5000, 1)
	assert.Nil(t, used.vcs)
	assert.Nil(t, used.pick(), "nothing to send before any packet")
	used.enqueue(&Packet{Size: 8, cnt: 1, VC: 1})
	require.Len(t, used.vcList(), m.p.VCs)
	assert.Equal(t, int32(40-8), used.vcList()[1].credits, "the packet took its space")
	assert.Equal(t, int32(40), used.vcList()[0].credits)
	assert.Equal(t, int32(40), used.vcList()[2].credits)
	m.k.RunUntil(1 << 40)
	assert.Nil(t, idle.vcs, "a channel that sent nothing")
	for _, r := range []*Router{a, b} {
		for _, c := range append(r.inject, r.eject...) {
			assert.Nil(t, c.vcs, "an unused tile")
		}
	}
}

// Credit returns kept in pieces of the machine's block keep their order
// and values as a list grows past each piece, for VCs growing in turn.
func TestCreditReturnLists(t *testing.T) {
	m := bareMachine(t, 3, 1, 40, 0)
	c := m.NewLink(m.NewRouter(), m.NewRouter(), 1000, 5000, 1)
	c.useVCs()
	for i := range 1000 {
		c.queueReturn(uint8(i%3), creditReturn{at: Time(i), units: int32(i)})
	}
	assert.Equal(t, uint8(0b111), c.returningVCs)
	for k, v := range c.vcList() {
		l := m.returnList(v.returns)
		rs := append([]creditReturn{l.first}, l.rest()...)
		require.Len(t, rs, 333+b2i(k == 0))
		require.Equal(t, len(rs), l.len())
		for j, r := range rs {
			assert.Equal(t, Time(3*j+k), r.at)
			assert.Equal(t, int32(3*j+k), r.units)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A packet queue held by its tail gives its packets back in the order
// they came, through pushes and pops interleaved, and is empty when they
// are all out.
func TestPacketQueueOrder(t *testing.T) {
	var q pktQueue
	assert.Nil(t, q.front())
	ps := make([]Packet, 6)
	var got []int
	take := func() {
		p := q.pop()
		assert.Nil(t, p.next, "a popped packet is linked to nothing")
		got = append(got, int(p.Size))
	}
	for i := range ps {
		ps[i].Size = int32(i)
		q.push(&ps[i])
		assert.Equal(t, &ps[len(got)], q.front(), "the oldest is at the front")
		if i%2 == 1 {
			take()
		}
	}
	for q.front() != nil {
		take()
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, got)
}

// A job may hold a transaction and a packet for each post in flight (the
// full Aries system's benchmark, 1.5 million at once): a transaction
// stays within 152 bytes (made 53 at a time, in 8 KiB) and a packet the
// 144-byte class, which their 32-bit counts and their rare parts
// (txnRare, with an AMO's identity and a remote event's data;
// pktFault, what only a machine whose links may fail uses), and a
// packet's one channel field for the router output it crosses to and the
// ejection tile it arrived by, make room for.
func TestPerPostStateSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(txn{}), uintptr(152))
	assert.LessOrEqual(t, unsafe.Sizeof(Packet{}), uintptr(144))
	assert.LessOrEqual(t, unsafe.Sizeof(txnRare{}), uintptr(112))
}

// A machine holds a channel for every link direction and tile (1.3
// million on the full Aries system), used or not: its fields are packed
// without padding (counts of lanes, its id and the pool's space in fewer
// than 64 bits), into two cache lines exactly, the first holding what its
// load reads, so that a slab's channels line up with the lines.
func TestChannelSize(t *testing.T) {
	var c Channel
	assert.Equal(t, uintptr(128), unsafe.Sizeof(c))
	for _, f := range []uintptr{unsafe.Offsetof(c.busy), unsafe.Offsetof(c.unitTime), unsafe.Offsetof(c.queuedUnits), unsafe.Offsetof(c.committed), unsafe.Offsetof(c.down),
		unsafe.Offsetof(c.queuedVCs), unsafe.Offsetof(c.returningVCs)} {
		assert.Less(t, f, uintptr(64))
	}
	slabSink = make([]Channel, channelSlab) // on the heap, as newChannel's
	assert.Zero(t, uintptr(unsafe.Pointer(&slabSink[0]))%64, "a slab's first channel starts a line")
}

var slabSink []Channel

// A channel's VC state is 16 bytes a VC (8 per channel used on Aries, 1.2
// million channels on the full system's traffic): its list of returns is
// named by a 32-bit number, not a pointer.
func TestVCStateSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(vcState{}), uintptr(16))
}

// A job has a NIC for each of its nodes (92,544 on the full Aries system):
// the block-transfer engine's state is made for a NIC's first block
// transfer (bteEngine), so that a NIC fits the allocator's 448-byte size
// class rather than the 640-byte one.
func TestNICSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(nic{}), uintptr(448))
	assert.LessOrEqual(t, unsafe.Sizeof(pipeline{}), uintptr(80))
}

// A VC that has carried a packet keeps its list of credit returns until
// the channel next looks (2 million lists at once on the full Aries
// system): a list is 32 bytes, its first return in it (most lists hold no
// other), its piece named by the piece's first return and its length and
// piece size packed in one word.
func TestReturnListSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(returnList{}), uintptr(32))
	m := bareMachine(t, 1, 1, 40, 0)
	c := m.NewLink(m.NewRouter(), m.NewRouter(), 1000, 5000, 1)
	c.useVCs()
	v := &c.vcList()[0]
	c.queueReturn(0, creditReturn{at: 0})
	l := m.returnList(v.returns)
	assert.Equal(t, 1, l.len())
	assert.Zero(t, l.cap(), "a list of one return has no piece")
	for i := 1; i < 6; i++ {
		c.queueReturn(0, creditReturn{at: Time(i)})
	}
	assert.Equal(t, 6, l.len())
	assert.Equal(t, 8, l.cap(), "pieces of 1, 2, 4, then 8 returns for those after the first")
	l.setLen(2)
	assert.Equal(t, 2, l.len())
	assert.Equal(t, 8, l.cap(), "a shorter list keeps its piece")
}

// Credits come back in their lists' order as the channel looks: those due
// by now are counted, the first due after them becomes the list's first,
// and the list goes back to the machine, its piece with it, once empty; a
// list taken from the machine again starts with the next return.
func TestCreditReturnsAbsorbed(t *testing.T) {
	m := bareMachine(t, 3, 1, 40, 0)
	a, b := m.NewRouter(), m.NewRouter()
	c := m.NewLink(a, b, 1000, 5000, 1)
	c.useVCs()
	v := &c.vcList()[0]
	v.credits = 0
	assert.Zero(t, uintptr(unsafe.Pointer(v))%64, "a block's first VC states start a line")
	for i := 1; i <= 5; i++ {
		c.queueReturn(0, creditReturn{at: Time(100 * i), units: int32(i)})
	}
	assert.Equal(t, Time(100), c.absorbVC(0, v, 99), "nothing due yet")
	assert.Zero(t, v.credits)
	assert.Equal(t, Time(400), c.absorbVC(0, v, 350), "the first three due")
	assert.Equal(t, int32(1+2+3), v.credits)
	l := m.returnList(v.returns)
	assert.Zero(t, uintptr(unsafe.Pointer(l))%32, "a list in one line")
	assert.Equal(t, 2, l.len())
	assert.Equal(t, Time(400), l.first.at)
	assert.Equal(t, Time(500), l.rest()[0].at)
	id := v.returns
	assert.Equal(t, Time(math.MaxInt64), c.absorbVC(0, v, 500), "the rest")
	assert.Equal(t, int32(15), v.credits)
	assert.Zero(t, v.returns, "the list is back with the machine")
	c.queueReturn(0, creditReturn{at: 600, units: 7})
	assert.Equal(t, id, v.returns, "the list made free last")
	assert.Equal(t, 1, m.returnList(id).len())
	assert.Equal(t, Time(600), c.absorbVC(0, v, 599))
}
