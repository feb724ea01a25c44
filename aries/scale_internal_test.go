package aries

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
)

// cqWaiter is ready when n local completions have come.
type cqWaiter struct {
	ep conduit.Endpoint
	n  int
}

func (w *cqWaiter) Ready() (bool, error) {
	var evs [4]conduit.Event
	w.n -= w.ep.PollLocalCQ(evs[:])
	return w.n <= 0, nil
}

// scaleJob runs a job of nodes nodes (one PE each) on a system of groups
// groups, in which every PE puts 64 bytes to the next, and returns its
// machine's footprint before and after the run.
func scaleJob(t *testing.T, groups string, nodes int) (built, ran fabric.Footprint) {
	cfg := conduit.JobConfig{PEs: nodes, PEsPerNode: 1, SegmentBytes: 128, Ordering: conduit.OrderRelaxed,
		MailboxSlots: 1, PeerBurst: 1, Options: map[string]string{"groups": groups}}
	w, err := prepare(cfg)
	require.NoError(t, err)
	j, err := fabric.Open(w.config(), cfg)
	require.NoError(t, err)
	built = w.m.Footprint()
	err = j.Run(func(ep conduit.Endpoint) error {
		next := (ep.Rank() + 1) % ep.Size()
		d := &conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: next, Local: ep.Segment()[:64],
			LocalMem: ep.SegmentHandle(ep.Rank()), Remote: ep.SegmentHandle(next), RemoteOffset: 64}
		if err := ep.Post(d); err != nil {
			return err
		}
		return ep.WaitFor("put", &cqWaiter{ep: ep, n: 1})
	})
	require.NoError(t, err)
	return built, w.m.Footprint()
}

// A small job on the largest system makes state only for what it uses:
// the routers and channels of the system are built, but VC state only
// for the channels its packets cross, bus state only for the routers they
// cross, and NICs only for its nodes; and its credit-return lists go back
// to the machine once the credits are in.
func TestSmallJobOnFullSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 241-group system (about a second)")
	}
	built, ran := scaleJob(t, "241", 2)
	assert.Equal(t, MaxAries, built.Routers)
	assert.Zero(t, built.ChannelsUsed, "no VC state before the run")
	assert.Zero(t, built.RoutersUsed, "no bus state before the run")
	assert.Equal(t, 2, ran.NICs)
	// Nodes 0 and 1 share an Aries: each put and its response cross an
	// injection tile and an ejection tile of it.
	assert.LessOrEqual(t, ran.ChannelsUsed, 4*2)
	assert.Equal(t, 1, ran.RoutersUsed)
	assert.Less(t, ran.Bytes-built.Bytes, int64(64<<10), "the job's own state")
}

// The bytes of a built machine per Aries, by the fabric's accounting:
// what Build makes for every router of the system (its channels and
// lists), before any job's traffic. A bound, so that a change that makes
// more per router at build time (or no longer defers the per-use state)
// shows.
func TestBuiltBytesPerAries(t *testing.T) {
	built, ran := scaleJob(t, "2", 2)
	perAries := built.Bytes / int64(built.Routers)
	t.Logf("built: %d routers, %d channels, %d bytes (%d per Aries); after a put each: %d bytes", built.Routers, built.Channels, built.Bytes, perAries, ran.Bytes)
	// Up to 56 channels (40 network ports, 8 tiles each way) of 128 bytes
	// (fabric's TestChannelSize), each with a pointer in the machine's
	// list and in its router's, and the router itself.
	assert.Less(t, perAries, int64(56*(128+8+8)+400))
	assert.Equal(t, 2*AriesPerGroup, built.Routers)
	assert.Zero(t, built.ChannelsUsed)
}
