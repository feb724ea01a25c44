package aries_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
)

// Flagged get responses: Aries "augments FMA get functionality with an
// optional 'flagged response' feature. When this feature is used, the get
// response data is accompanied by a flag word written to local memory. The
// application may poll on the flag word to determine the arrival of
// responses to individual get requests." ([ARIES-WP] Remote Memory
// Access.)

const (
	flagSegmentBytes = 64 << 10
	flagDataOffset   = 8 << 10  // of the get's data, in PE 1's segment and PE 0's
	flagWordOffset   = 32 << 10 // of the flag word, in PE 0's segment
	flagValue        = 0xf1a9_0000_0000_0001
)

// flagData is byte i of the data PE 1 serves.
func flagData(i int) byte { return byte(i*7 + 1) }

// flagTimes are what PE 0 saw of one flagged get, on its clock: when it
// posted it, saw its flag, and saw its completion.
type flagTimes struct {
	posted, flag, cq conduit.Time
}

// flagWaiter adapts a function to conduit.Waiter.
type flagWaiter func() (bool, error)

func (f flagWaiter) Ready() (bool, error) { return f() }

// flagJob runs a job of two PEs on two nodes in which PE 0 gets n bytes
// from PE 1 by FMA, in ordering mode order, with a flag word. PE 0 polls
// the flag; when it sees it it checks that the data is in place and that
// its completion queue is still empty, clears the flag, and waits for the
// completion, after which the flag must still be clear (it is written
// once).
func flagJob(t *testing.T, n int, order conduit.OrderingMode) flagTimes {
	t.Helper()
	var ft flagTimes
	err := flagRun(func(ep conduit.Endpoint) error {
		seg, own := ep.Segment(), ep.SegmentHandle(ep.Rank())
		if ep.Rank() == 1 {
			// At time 0, long before the get reads it.
			for i := range n {
				seg[flagDataOffset+i] = flagData(i)
			}
			return nil
		}
		local, flag := seg[flagDataOffset:flagDataOffset+n], seg[flagWordOffset:flagWordOffset+8]
		d := &conduit.PostDesc{Type: conduit.Get, Mech: conduit.FMA, Order: order, Target: 1,
			Local: local, LocalMem: own, Remote: ep.SegmentHandle(1), RemoteOffset: flagDataOffset,
			Flag: &conduit.FlagWord{Word: flag, Mem: own, Value: flagValue}}
		ft.posted = ep.Now()
		if err := ep.Post(d); err != nil {
			return err
		}
		if err := ep.WaitFor("the flag", flagWaiter(func() (bool, error) {
			return conduit.LoadFlag(flag) == flagValue, nil
		})); err != nil {
			return err
		}
		ft.flag = ep.Now()
		for i := range n {
			if local[i] != flagData(i) {
				return fmt.Errorf("flag seen at %v, but byte %d of %d is %#x, want %#x", ft.flag, i, n, local[i], flagData(i))
			}
		}
		var evs [1]conduit.Event
		if ep.PollLocalCQ(evs[:]) != 0 {
			return fmt.Errorf("the completion is on the queue when the flag is seen at %v", ft.flag)
		}
		conduit.StoreFlag(flag, 0)
		ev, err := flagEvent(ep)
		if err != nil {
			return err
		}
		ft.cq = ep.Now()
		if ev.Desc != d || ev.Status != conduit.StatusOK {
			return fmt.Errorf("completion of %p with %v %q, want %p ok", ev.Desc, ev.Status, ev.Detail, d)
		}
		if v := conduit.LoadFlag(flag); v != 0 {
			return fmt.Errorf("the flag was written again (%#x) after PE 0 cleared it at %v", v, ft.flag)
		}
		return nil
	})
	require.NoError(t, err, "%d bytes, %v", n, order)
	return ft
}

// flagRun runs main on a job of two PEs on two nodes.
func flagRun(main func(ep conduit.Endpoint) error) error {
	job, err := conduit.Open(aries.Name, conduit.JobConfig{PEs: 2, PEsPerNode: 1, SegmentBytes: flagSegmentBytes,
		Ordering: conduit.OrderDefault, MailboxSlots: 1, PeerBurst: 1})
	if err != nil {
		return err
	}
	return job.Run(func(ep conduit.Endpoint) error {
		if !ep.Caps().FlaggedGet {
			return fmt.Errorf("aries: Caps.FlaggedGet is false")
		}
		return main(ep)
	})
}

// flagEvent waits for one local completion.
func flagEvent(ep conduit.Endpoint) (conduit.Event, error) {
	var evs [1]conduit.Event
	err := ep.WaitFor("the completion", flagWaiter(func() (bool, error) {
		return ep.PollLocalCQ(evs[:]) == 1, nil
	}))
	return evs[0], err
}

// A PE polling the flag word of an 8-byte get sees it, with the data in
// place, before the completion event is on its queue: the completion
// entry is a host write of its own after the data's.
func TestFlaggedGetBeforeCompletion(t *testing.T) {
	ft := flagJob(t, 8, conduit.OrderInherit)
	gap := ft.cq - ft.flag
	t.Logf("8-byte flagged get: flag seen %v after the post, completion %v after the flag", ft.flag-ft.posted, gap)
	assert.Positive(t, int64(gap), "the flag comes before the completion")
	assert.Equal(t, ft, flagJob(t, 8, conduit.OrderInherit), "a job repeats exactly")
}

// A 1 KiB get moves in 16 packets, whose responses become visible in
// whatever order they come back (here the first waits for the target's
// IOMMU to fetch its page-table entry and comes back last): the flag is
// written once, after all of them. Its lead over the completion is then
// that of a one-packet get; written with any earlier packet's data it
// would lead by more, and written with each it would be seen again after
// PE 0 cleared it.
func TestFlaggedGetMultiPacket(t *testing.T) {
	small := flagJob(t, aries.MaxPacketData, conduit.OrderInherit)
	lead := small.cq - small.flag
	for _, order := range []conduit.OrderingMode{conduit.OrderStrict, conduit.OrderDefault, conduit.OrderRelaxed} {
		ft := flagJob(t, 1024, order)
		gap := ft.cq - ft.flag
		t.Logf("1 KiB %v flagged get: flag seen %v after the post, completion %v after the flag (one packet: %v)",
			order, ft.flag-ft.posted, gap, lead)
		assert.Positive(t, int64(gap), "%v: the flag comes before the completion", order)
		assert.InDelta(t, float64(lead), float64(gap), float64(flagLeadTolerance), "%v: the flag leads the completion by one host write", order)
		assert.Equal(t, ft, flagJob(t, 1024, order), "%v: a job repeats exactly", order)
	}
}

// flagLeadTolerance is how far a flag's lead over its completion may vary
// with the get's size: the completion entry's host write may queue behind
// other writes, but not behind the get's own data.
const flagLeadTolerance = 10 * conduit.Nanosecond

// A get the target rejects (beyond its segment, with a handle that claims
// more), wholly or in part, completes with an error and writes no flag.
func TestFlaggedGetFailed(t *testing.T) {
	err := flagRun(func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			return nil
		}
		seg, own := ep.Segment(), ep.SegmentHandle(0)
		remote := ep.SegmentHandle(1)
		remote.Bytes *= 2
		for _, c := range []struct {
			n   int
			off int64
		}{
			{8, flagSegmentBytes},
			{1024, flagSegmentBytes},
			{1024, flagSegmentBytes - 512}, // half of its packets are served
		} {
			n, flag := c.n, seg[flagWordOffset:flagWordOffset+8]
			d := &conduit.PostDesc{Type: conduit.Get, Mech: conduit.FMA, Target: 1,
				Local: seg[flagDataOffset : flagDataOffset+n], LocalMem: own, Remote: remote, RemoteOffset: c.off,
				Flag: &conduit.FlagWord{Word: flag, Mem: own, Value: flagValue}}
			if err := ep.Post(d); err != nil {
				return err
			}
			ev, err := flagEvent(ep)
			if err != nil {
				return err
			}
			if ev.Status != conduit.StatusError {
				return fmt.Errorf("%d-byte get at %d, beyond the segment, completed with %v %q, want error", n, c.off, ev.Status, ev.Detail)
			}
			if v := conduit.LoadFlag(flag); v != 0 {
				return fmt.Errorf("%d-byte get at %d, beyond the segment, wrote the flag (%#x)", n, c.off, v)
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// Aries rejects a flag where the conduit does: on a put, an AMO or a BTE
// get, and outside registered memory; ErrUnsupported is for backends that
// lack the feature.
func TestFlaggedPostRejected(t *testing.T) {
	err := flagRun(func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			return nil
		}
		seg, own := ep.Segment(), ep.SegmentHandle(0)
		get := func(mod func(d *conduit.PostDesc)) *conduit.PostDesc {
			d := &conduit.PostDesc{Type: conduit.Get, Mech: conduit.FMA, Target: 1, Local: seg[:64], LocalMem: own,
				Remote: ep.SegmentHandle(1), Flag: &conduit.FlagWord{Word: seg[64:72], Mem: own, Value: 1}}
			mod(d)
			return d
		}
		for name, c := range map[string]struct {
			d    *conduit.PostDesc
			want string
		}{
			"put":          {get(func(d *conduit.PostDesc) { d.Type = conduit.Put }), "post put to PE 1: a flag word"},
			"bte":          {get(func(d *conduit.PostDesc) { d.Mech = conduit.BTE }), "not BTE"},
			"unregistered": {get(func(d *conduit.PostDesc) { d.Flag.Word, d.Flag.Mem = make([]byte, 16)[8:], conduit.MemHandle{} }), "flag word of 8 bytes is not inside registration 0"},
			"misaligned":   {get(func(d *conduit.PostDesc) { d.Flag.Word = seg[68:76] }), "not aligned to 8 bytes"},
		} {
			err := ep.Post(c.d)
			if err == nil {
				return fmt.Errorf("%s: accepted", name)
			}
			assert.ErrorContains(t, err, c.want, name)
			assert.ErrorContains(t, err, "aries: PE 0", name)
			assert.False(t, errors.Is(err, conduit.ErrUnsupported), "%s: %v", name, err)
		}
		var evs [1]conduit.Event
		assert.Zero(t, ep.PollLocalCQ(evs[:]), "a rejected post completes nothing")
		return nil
	})
	require.NoError(t, err)
}
