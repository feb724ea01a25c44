package gemini_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
)

// A put with a destination-side event delivers its data to the target's
// remote completion queue, on both simulated networks, however the
// transactions it shares the machine with are reused: PE 0 sends puts
// with and without an event in turn (each reusing the last one's
// transaction), and PE 1 must see exactly the events' data, in order.
func TestRemoteEventData(t *testing.T) {
	for _, name := range []string{gemini.Name, aries.Name} {
		t.Run(name, func(t *testing.T) {
			job, err := conduit.Open(name, conduit.JobConfig{PEs: 2, PEsPerNode: 1, SegmentBytes: 4096,
				Ordering: conduit.OrderStrict, MailboxSlots: 1, PeerBurst: 1})
			require.NoError(t, err)
			data := []uint64{0, 11, 0, 22, 0, 0, 33}
			var got []conduit.Event
			err = job.Run(func(ep conduit.Endpoint) error {
				evs := make([]conduit.Event, 4)
				if ep.Rank() == 1 {
					want := 3
					return ep.WaitFor("remote events", waiter(func() (bool, error) {
						n := ep.PollRemoteCQ(evs)
						got = append(got, evs[:n]...)
						return len(got) >= want, nil
					}))
				}
				for i, v := range data {
					d := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 1,
						Local: ep.Segment()[:8], LocalMem: ep.SegmentHandle(0),
						Remote: ep.SegmentHandle(1), RemoteOffset: int64(8 * i),
						RemoteEvent: v != 0, RemoteData: v}
					if err := ep.Post(d); err != nil {
						return err
					}
					if err := ep.WaitFor("the put", waiter(func() (bool, error) {
						n := ep.PollLocalCQ(evs)
						for _, ev := range evs[:n] {
							if ev.Status != conduit.StatusOK {
								return false, fmt.Errorf("put %d: %v", i, ev.Status)
							}
						}
						return n > 0, nil
					})); err != nil {
						return err
					}
				}
				return nil
			})
			require.NoError(t, err)
			if assert.Len(t, got, 3) {
				for i, v := range []uint64{11, 22, 33} {
					assert.Equal(t, 0, got[i].Source, "event %d's source", i)
					assert.Equal(t, v, got[i].Data, "event %d's data", i)
				}
			}
		})
	}
}
