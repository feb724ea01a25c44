package fabric_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// Control packets (control.go) on the ring backend: a token goes round
// every node's NIC and back to node 0 without any PE's help, each hop a
// packet through the real network; offloaded collectives reach the
// backend's engine (Config.Offload) or fail with ErrUnsupported.

// ringJob opens a job of the ring backend with an engine.
func ringJob(t *testing.T, pes int, offload simnet.Offloader, caps conduit.Caps, opts map[string]string) *simnet.Job {
	t.Helper()
	w := &ring{failFrom: -1}
	o := fabric.DefaultOptions(ringParams)
	for k, v := range opts {
		known, err := o.Set(k, v)
		require.True(t, known, k)
		require.NoError(t, err)
	}
	j, err := fabric.Open(fabric.Config{
		Name: ringName, Params: ringParams, Sizes: ringSizes, Options: o, PEsPerNode: 2, Caps: caps,
		Build: w.build, NewHost: func(int) fabric.Host { return &flatHost{} },
		Location: func(*simnet.Job, int) int { return 0 }, Offload: offload,
	}, conduit.JobConfig{PEs: pes, SegmentBytes: 4096, Ordering: conduit.OrderDefault, MailboxSlots: 4, PeerBurst: 1, Seed: 1})
	require.NoError(t, err)
	return j
}

// tokenRound has PE 0 send a token round the NICs of every node, and
// returns when it came back and the arrival times.
func tokenRound(t *testing.T, pes int, opts map[string]string) (arrivals []fabric.Time, stats fabric.Stats) {
	j := ringJob(t, pes, nil, conduit.Caps{}, opts)
	m := j.Net.(*fabric.Machine)
	err := j.Run(func(cep conduit.Endpoint) error {
		ep := cep.(*simnet.Endpoint)
		if ep.Rank() != 0 {
			return nil
		}
		nodes := j.Nodes()
		home := false
		var deliver func(here int) func(fabric.Time)
		deliver = func(here int) func(fabric.Time) {
			return func(at fabric.Time) {
				arrivals = append(arrivals, at)
				if here == 0 {
					home = true
					ep.Wake()
					return
				}
				// The receiving NIC sends it on 10 ns later.
				next := (here + 1) % nodes
				if err := m.SendControl(at+10*ns, here, next, 2, deliver(next)); err != nil {
					t.Error(err)
				}
			}
		}
		arrivals = append(arrivals, ep.Now())
		if err := m.SendControl(ep.Now(), 0, 1, 2, deliver(1)); err != nil {
			return err
		}
		return ep.WaitFor("the token", waitFunc(func() bool { return home }))
	})
	require.NoError(t, err)
	return arrivals, m.Stats()
}

type waitFunc func() bool

func (f waitFunc) Ready() (bool, error) { return f(), nil }

func TestControlPacketsGoRound(t *testing.T) {
	for _, opts := range []map[string]string{nil, {"routing": "deterministic"}} {
		t.Run(fmt.Sprint(opts), func(t *testing.T) {
			arrivals, stats := tokenRound(t, 16, opts)
			require.Len(t, arrivals, 9, "8 nodes and back to node 0")
			for i := 1; i < len(arrivals); i++ {
				// At least the transmit and receive pipelines' latency (20
				// cycles at 1 GHz each) and a router (50 ns), and another
				// router and a link to a node of the next router.
				from, to := i-1, i%8
				least := 90 * ns
				if from/2 != to/2 {
					least += 60 * ns
				}
				assert.Greater(t, arrivals[i]-arrivals[i-1], least, "hop %d", i)
				assert.Less(t, arrivals[i]-arrivals[i-1], least+50*ns, "hop %d", i)
			}
			assert.Equal(t, int64(8), stats.Packets, "one packet per hop")
			assert.Positive(t, stats.LinkUnits)
			assert.Zero(t, stats.Transactions, "control packets are no transactions")
			again, _ := tokenRound(t, 16, opts)
			assert.Equal(t, arrivals, again, "the same run ran differently")
		})
	}
}

func TestControlPacketErrors(t *testing.T) {
	j := ringJob(t, 4, nil, conduit.Caps{}, nil)
	m := j.Net.(*fabric.Machine)
	nop := func(fabric.Time) {}
	err := j.Run(func(cep conduit.Endpoint) error {
		if cep.Rank() != 0 {
			return nil
		}
		for _, c := range []struct {
			src, dst, size int
			at             fabric.Time
			f              func(fabric.Time)
			want           string
		}{
			{0, 2, 1, 0, nop, "node 2"},
			{-1, 0, 1, 0, nop, "node -1"},
			{0, 1, 0, 0, nop, "0 link units"},
			{0, 1, 1000, 0, nop, "1000 link units"},
			{0, 1, 1, -1, nop, "before now"},
			{0, 1, 1, 0, nil, "deliver"},
		} {
			err := m.SendControl(c.at, c.src, c.dst, c.size, c.f)
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), c.want)
				assert.Contains(t, err.Error(), "SendControl")
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// countingEngine answers every call with a collective that is done.
type countingEngine struct{ barriers, allreduces int }

type doneColl uint64

func (c doneColl) Test() (bool, uint64, error) { return true, uint64(c), nil }

func (e *countingEngine) OffloadBarrier(*simnet.Endpoint) (conduit.Collective, error) {
	e.barriers++
	return doneColl(0), nil
}

func (e *countingEngine) OffloadAllreduce(_ *simnet.Endpoint, _ conduit.ReduceOp, _ conduit.ReduceKind, _ int, v uint64) (conduit.Collective, error) {
	e.allreduces++
	return doneColl(v), nil
}

// TestOffloadEngine: the job's endpoints reach the backend's engine
// directly (simnet.Job.Offload), and fail with ErrUnsupported without one
// or with the capability off.
func TestOffloadEngine(t *testing.T) {
	for _, c := range []struct {
		name    string
		engine  bool
		caps    bool
		offload bool
	}{
		{"engine", true, true, true},
		{"no engine", false, true, false},
		{"engine off", true, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng := &countingEngine{}
			var o simnet.Offloader
			if c.engine {
				o = eng
			}
			j := ringJob(t, 4, o, conduit.Caps{CollectiveOffload: c.caps}, nil)
			err := j.Run(func(cep conduit.Endpoint) error {
				ce, ok := cep.(conduit.CollectiveOffload)
				require.True(t, ok)
				b, berr := ce.OffloadBarrier()
				a, aerr := ce.OffloadAllreduce(conduit.ReduceSum, conduit.ReduceInt, 8, 7)
				if !c.offload {
					assert.True(t, errors.Is(berr, conduit.ErrUnsupported), "%v", berr)
					assert.True(t, errors.Is(aerr, conduit.ErrUnsupported), "%v", aerr)
					return nil
				}
				require.NoError(t, berr)
				require.NoError(t, aerr)
				done, _, _ := b.Test()
				assert.True(t, done)
				_, v, _ := a.Test()
				assert.Equal(t, uint64(7), v)
				return nil
			})
			require.NoError(t, err)
			if c.offload {
				assert.Equal(t, countingEngine{4, 4}, *eng)
			} else {
				assert.Equal(t, countingEngine{}, *eng)
			}
		})
	}
}
