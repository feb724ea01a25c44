package aries

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// A-CE-SHAPE: 4 virtual CEs per NIC, trees of radix up to 32, 32- and
// 64-bit integer, logical and float operations, min and max with location,
// no product.
func TestCEShape(t *testing.T) {
	assert.Equal(t, 4, CEsPerNIC)
	assert.Equal(t, 32, CEMaxRadix)
	for _, w := range []int{4, 8} {
		for _, k := range []conduit.ReduceKind{conduit.ReduceInt, conduit.ReduceUint, conduit.ReduceFloat} {
			for _, op := range []conduit.ReduceOp{conduit.ReduceSum, conduit.ReduceMin, conduit.ReduceMax} {
				assert.True(t, ceSupports(op, k, w), "%v %v %d", op, k, w)
			}
			assert.False(t, ceSupports(conduit.ReduceProd, k, w), "no product")
		}
		for _, op := range []conduit.ReduceOp{conduit.ReduceAnd, conduit.ReduceOr, conduit.ReduceXor} {
			assert.True(t, ceSupports(op, conduit.ReduceUint, w))
			assert.False(t, ceSupports(op, conduit.ReduceFloat, w), "logical ops on floats")
		}
	}
	assert.False(t, ceSupports(conduit.ReduceSum, conduit.ReduceInt, 2))
	_, err := newCETree(10, 33)
	require.Error(t, err)
	_, err = newCETree(0, 32)
	require.Error(t, err)
}

func TestCETree(t *testing.T) {
	tr, err := newCETree(750, 32)
	require.NoError(t, err)
	assert.Equal(t, 2, tr.depth(), "750 nodes: root, 32, then the rest")
	seen := map[int]bool{0: true}
	for i := range 750 {
		for k := range tr.children(i) {
			c := tr.child(i, k)
			assert.Equal(t, i, tr.parent(c))
			assert.False(t, seen[c])
			seen[c] = true
		}
	}
	assert.Len(t, seen, 750, "every node is in the tree once")
	big, _ := newCETree(33825, 32)
	assert.Equal(t, 3, big.depth())
	one, _ := newCETree(1, 32)
	assert.Equal(t, 0, one.depth())
	assert.Equal(t, -1, one.parent(0))
}

// Tests of the collective engine (ce.go) through the conduit, below
// the runtime: jobs of this package's backend whose PEs call the
// endpoints' CollectiveOffload directly.

// ceTestJob opens a job of pes PEs, perNode to a node, with backend
// options opts, and returns it and its engine.
func ceTestJob(t testing.TB, pes, perNode int, opts map[string]string) (*simnet.Job, *engine) {
	t.Helper()
	o, err := parseOptions(opts)
	require.NoError(t, err)
	cfg := newNetwork(o).config()
	j, err := fabric.Open(cfg, conduit.JobConfig{PEs: pes, PEsPerNode: perNode, SegmentBytes: 8, Ordering: conduit.OrderDefault,
		MailboxSlots: 1, PeerBurst: 1, Seed: 7})
	require.NoError(t, err)
	return j, cfg.Offload.(*engine)
}

// ceWaitAll waits for every collective of cs and returns their results.
func ceWaitAll(ep conduit.Endpoint, cs []conduit.Collective) ([]uint64, error) {
	res, _, err := ceWaitTimes(ep, cs)
	return res, err
}

// ceWaitTimes waits for every collective of cs and returns their results
// and when the PE saw each done.
func ceWaitTimes(ep conduit.Endpoint, cs []conduit.Collective) ([]uint64, []Time, error) {
	res := make([]uint64, len(cs))
	at := make([]Time, len(cs))
	done := make([]bool, len(cs))
	var ferr error
	err := ep.WaitFor("collectives", ceWaiter(func() bool {
		all := true
		for i, c := range cs {
			if done[i] {
				continue
			}
			d, r, err := c.Test()
			if err != nil && ferr == nil {
				ferr = err
			}
			done[i], res[i], at[i] = d || err != nil, r, ep.Now()
			all = all && done[i]
		}
		return all
	}))
	if err == nil {
		err = ferr
	}
	return res, at, err
}

type ceWaiter func() bool

func (f ceWaiter) Ready() (bool, error) { return f(), nil }

// More collectives than a NIC has CEs at once: collective n waits at a
// NIC for CE n mod 4 to finish collective n-4; the results come out right
// and in order. Four at once never wait. 79 PEs on 40 nodes (a tree of
// depth 2, the last node with one PE).
func TestCEPipelined(t *testing.T) {
	for _, calls := range []int{CEsPerNIC, 3*CEsPerNIC + 1} {
		t.Run(fmt.Sprint(calls), func(t *testing.T) {
			const pes = 79
			j, e := ceTestJob(t, pes, 2, nil)
			err := j.Run(func(ep conduit.Endpoint) error {
				ce := ep.(conduit.CollectiveOffload)
				cs := make([]conduit.Collective, calls)
				for i := range cs {
					var err error
					if i%3 == 2 {
						cs[i], err = ce.OffloadBarrier()
					} else {
						cs[i], err = ce.OffloadAllreduce(conduit.ReduceSum, conduit.ReduceInt, 8, uint64(ep.Rank()*(i+1)))
					}
					if err != nil {
						return err
					}
				}
				res, at, err := ceWaitTimes(ep, cs)
				if err != nil {
					return err
				}
				for i := CEsPerNIC; i < calls; i++ {
					if at[i] <= at[i-CEsPerNIC] {
						return fmt.Errorf("PE %d: collective %d done at %v, collective %d on the same CE at %v", ep.Rank(), i, at[i], i-CEsPerNIC, at[i-CEsPerNIC])
					}
				}
				for i, r := range res {
					want := uint64(pes * (pes - 1) / 2 * (i + 1))
					if i%3 == 2 {
						want = 0
					}
					if r != want {
						return fmt.Errorf("PE %d: collective %d: %d, want %d", ep.Rank(), i, r, want)
					}
				}
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, int64(calls), e.stats().Collectives)
			assert.Equal(t, int64(calls*2*(j.Nodes()-1)), e.stats().Packets, "one packet up and one down per node but the root")
			if calls <= CEsPerNIC {
				assert.Zero(t, e.stats().Waits, "no collective waits for a CE")
			} else {
				assert.Positive(t, e.stats().Waits, "collectives wait for their CE")
			}
		})
	}
}

// MINLOC and MAXLOC: the identifier travels with the value through the
// nodes' local reductions and the tree; ties keep the smallest.
func TestCELocation(t *testing.T) {
	const pes = 70
	j, e := ceTestJob(t, pes, 4, nil)
	value := func(r int) int64 { return int64((r * 37) % 11) } // ties
	err := j.Run(func(cep conduit.Endpoint) error {
		ep := cep.(*simnet.Endpoint)
		r := ep.Rank()
		var cs []*ceColl
		for _, op := range []conduit.ReduceOp{conduit.ReduceMin, conduit.ReduceMax} {
			c, err := e.start(ep, "test", ceCall{op: op, kind: conduit.ReduceInt, width: 8}, ceOperand{bits: uint64(value(r)), loc: uint64(1000 - r)})
			if err != nil {
				return err
			}
			cs = append(cs, c)
		}
		if _, err := ceWaitAll(ep, []conduit.Collective{cs[0], cs[1]}); err != nil {
			return err
		}
		minV, minL, maxV, maxL := int64(100), uint64(0), int64(-1), uint64(0)
		for q := range pes {
			v, l := value(q), uint64(1000-q)
			if v < minV || (v == minV && l < minL) {
				minV, minL = v, l
			}
			if v > maxV || (v == maxV && l < maxL) {
				maxV, maxL = v, l
			}
		}
		if got := cs[0].res; got != (ceOperand{bits: uint64(minV), loc: minL}) {
			return fmt.Errorf("PE %d: MINLOC %+v, want %d at %d", r, got, minV, minL)
		}
		if got := cs[1].res; got != (ceOperand{bits: uint64(maxV), loc: maxL}) {
			return fmt.Errorf("PE %d: MAXLOC %+v, want %d at %d", r, got, maxV, maxL)
		}
		return nil
	})
	require.NoError(t, err)
}

// What the engine refuses: operations it does not have fail with
// ErrUnsupported (the runtime falls back to software), a 4-byte value with
// high bits is an error, and PEs that call different collectives all get
// an error naming the collective, and the job goes on.
func TestCEErrors(t *testing.T) {
	j, _ := ceTestJob(t, 6, 2, nil)
	err := j.Run(func(ep conduit.Endpoint) error {
		ce := ep.(conduit.CollectiveOffload)
		for _, c := range []struct {
			op    conduit.ReduceOp
			kind  conduit.ReduceKind
			width int
			want  string
		}{
			{conduit.ReduceProd, conduit.ReduceFloat, 8, "no product of 8-byte float"},
			{conduit.ReduceXor, conduit.ReduceFloat, 4, "no xor of 4-byte float"},
			{conduit.ReduceSum, conduit.ReduceInt, 2, "no sum of 2-byte int"},
			{0, conduit.ReduceInt, 8, "no ReduceOp(0) of 8-byte int"},
			{conduit.ReduceMin, 9, 8, "no min of 8-byte ReduceKind(9)"},
		} {
			_, err := ce.OffloadAllreduce(c.op, c.kind, c.width, 1)
			assert.ErrorIs(t, err, conduit.ErrUnsupported)
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), c.want)
				assert.Contains(t, err.Error(), "OffloadAllreduce")
			}
		}
		_, err := ce.OffloadAllreduce(conduit.ReduceSum, conduit.ReduceUint, 4, 1<<32)
		if assert.Error(t, err) {
			assert.NotErrorIs(t, err, conduit.ErrUnsupported)
			assert.Contains(t, err.Error(), "value 0x100000000 does not fit width 4")
		}
		// PE 0 barriers where the others reduce (its node's local
		// reduction finds out), then PEs 0 and 1, node 0 (the CE of the
		// tree's root finds out); then all agree again.
		for n, barrier := range []int{1, 2} {
			var c conduit.Collective
			if ep.Rank() < barrier {
				c, err = ce.OffloadBarrier()
			} else {
				c, err = ce.OffloadAllreduce(conduit.ReduceMax, conduit.ReduceInt, 8, 3)
			}
			if err != nil {
				return err
			}
			_, err = ceWaitAll(ep, []conduit.Collective{c})
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), fmt.Sprintf("collective %d:", n))
				assert.Contains(t, err.Error(), "barrier")
				assert.Contains(t, err.Error(), "allreduce max of 8-byte int")
			}
		}
		c, err := ce.OffloadAllreduce(conduit.ReduceMax, conduit.ReduceInt, 8, uint64(ep.Rank()))
		if err != nil {
			return err
		}
		res, err := ceWaitAll(ep, []conduit.Collective{c})
		if err != nil {
			return err
		}
		assert.Equal(t, uint64(5), res[0])
		return nil
	})
	require.NoError(t, err)
	// Without the engine (ce=false) every call is unsupported.
	j, _ = ceTestJob(t, 4, 2, map[string]string{"ce": "false"})
	err = j.Run(func(ep conduit.Endpoint) error {
		assert.False(t, ep.Caps().CollectiveOffload)
		_, err := ep.(conduit.CollectiveOffload).OffloadBarrier()
		assert.ErrorIs(t, err, conduit.ErrUnsupported)
		_, err = ep.(conduit.CollectiveOffload).OffloadAllreduce(conduit.ReduceSum, conduit.ReduceInt, 8, 1)
		assert.ErrorIs(t, err, conduit.ErrUnsupported)
		return nil
	})
	require.NoError(t, err)
}

// ceTestLatency is the time PE 0 takes for an allreduce of pes PEs,
// perNode to a node, all starting at once, and the job's end.
func ceTestLatency(t *testing.T, pes, perNode int) (lat, end Time) {
	j, _ := ceTestJob(t, pes, perNode, nil)
	err := j.Run(func(ep conduit.Endpoint) error {
		start := ep.Now()
		c, err := ep.(conduit.CollectiveOffload).OffloadAllreduce(conduit.ReduceSum, conduit.ReduceFloat, 8, math.Float64bits(1))
		if err != nil {
			return err
		}
		res, err := ceWaitAll(ep, []conduit.Collective{c})
		if err != nil {
			return err
		}
		if got := math.Float64frombits(res[0]); got != float64(pes) {
			return fmt.Errorf("sum %v, want %d", got, pes)
		}
		if ep.Rank() == 0 {
			lat = ep.Now() - start
		}
		return nil
	})
	require.NoError(t, err)
	return lat, j.K.Now()
}

// The model's latency: a node alone pays its local reduction (4 levels
// for 16 PEs), the store to its NIC, one combine, the result's write to
// memory and the local broadcast; each level of the tree adds packets
// both ways and combines; the same job takes the same time.
func TestCELatency(t *testing.T) {
	one, end := ceTestLatency(t, 16, 16)
	least := 4*LocalReducePerLevel + FMALaunch + 2*PCIeLatency + MemoryWriteLatency + LocalReducePerLevel
	assert.Greater(t, one, least)
	assert.Less(t, one, least+200*ns)
	t.Logf("1 node: %v", one)
	again, end2 := ceTestLatency(t, 16, 16)
	assert.Equal(t, one, again)
	assert.Equal(t, end, end2)
	prev := one
	for _, nodes := range []int{2, 33, 100} {
		lat, _ := ceTestLatency(t, 16*nodes, 16)
		t.Logf("%d nodes: %v", nodes, lat)
		assert.Greater(t, lat, prev, "%d nodes", nodes)
		assert.Less(t, lat, 10*us, "%d nodes", nodes)
		prev = lat
	}
}

// A PE waiting for a collective sleeps until the result comes: one PE
// late by a millisecond costs the others a few events, not a poll every
// Wait; the trace shows the CE's work.
func TestCEWaitSleeps(t *testing.T) {
	trace := t.TempDir() + "/trace.json"
	j, _ := ceTestJob(t, 32, 4, map[string]string{"trace": trace})
	err := j.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() == 0 {
			ep.Charge(1000 * us)
		}
		c, err := ep.(conduit.CollectiveOffload).OffloadBarrier()
		if err != nil {
			return err
		}
		_, err = ceWaitAll(ep, []conduit.Collective{c})
		if ep.Now() < 1000*us {
			return fmt.Errorf("PE %d left the barrier at %v", ep.Rank(), ep.Now())
		}
		return err
	})
	require.NoError(t, err)
	assert.Less(t, j.K.Events(), uint64(32*20), "events")
	b, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Contains(t, string(b), "ce barrier")
	assert.Regexp(t, `"name":"ctl","pid":2,"tid":\d+,"ts":[0-9.]+,"dur":[0-9.]+,"args":\{"src_node":1,"dst_node":0,`, string(b),
		"a CE packet from node 1 received at node 0's NIC")
}
