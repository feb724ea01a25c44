package gemini_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
)

// Gemini has no flagged get responses (an Aries addition): its Caps say
// so, and a flagged get fails at the post with ErrUnsupported, completing
// nothing and writing nothing.
func TestFlaggedGetUnsupported(t *testing.T) {
	job, err := conduit.Open(gemini.Name, conduit.JobConfig{PEs: 2, PEsPerNode: 1, SegmentBytes: 4096,
		Ordering: conduit.OrderDefault, MailboxSlots: 1, PeerBurst: 1})
	require.NoError(t, err)
	err = job.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() == 1 {
			return nil
		}
		assert.False(t, ep.Caps().FlaggedGet)
		seg, own := ep.Segment(), ep.SegmentHandle(0)
		d := &conduit.PostDesc{Type: conduit.Get, Mech: conduit.FMA, Target: 1, Local: seg[:64], LocalMem: own,
			Remote: ep.SegmentHandle(1), Flag: &conduit.FlagWord{Word: seg[64:72], Mem: own, Value: 1}}
		err := ep.Post(d)
		if !errors.Is(err, conduit.ErrUnsupported) {
			return fmt.Errorf("flagged get: %v, want an error wrapping ErrUnsupported", err)
		}
		assert.ErrorContains(t, err, "gemini: PE 0: post get to PE 1 with a flag word")
		var evs [1]conduit.Event
		assert.Zero(t, ep.PollLocalCQ(evs[:]), "a rejected post completes nothing")
		assert.Zero(t, conduit.LoadFlag(seg[64:72]))
		// The same get without its flag is fine.
		d.Flag = nil
		if err := ep.Post(d); err != nil {
			return err
		}
		return ep.WaitFor("the get", waiter(func() (bool, error) {
			if ep.PollLocalCQ(evs[:]) == 0 {
				return false, nil
			}
			return true, evs[0].Err()
		}))
	})
	require.NoError(t, err)
}

// waiter adapts a function to conduit.Waiter.
type waiter func() (bool, error)

func (f waiter) Ready() (bool, error) { return f() }
