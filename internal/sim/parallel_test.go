package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
)

// toyNet is a model for the partitioned kernel's tests: routers in groups
// (runs of consecutive routers), the groups dealt out to partitions in
// runs, packets hopping between routers (a hop within a group takes at
// least local, one to another group at least remote), and PEs
// that inject packets at their home router, look at its state now and
// then (Sync) and wait (Block) until the packets sent to them arrive.
// Delays are multiples of 10 ps, so that many events share a time. Every
// router and PE folds what it sees, in the order it sees it, into a hash.
type toyNet struct {
	routers       []*toyRouter
	pes           []*toyPE
	kernels       []*Kernel // each router's partition's
	group         []int     // each router's group
	local, remote Time
}

type toyRouter struct {
	Source
	net   *toyNet
	id    int
	hash  uint64
	count int
	table []uint64 // state for the benchmark's cache misses
}

type toyPacket struct {
	payload uint64
	hops    int
	dst     int // the PE it is for, or -1
}

type toyPE struct {
	home      int
	hash      uint64
	got, want int
	proc      *Proc
}

// newToyNet makes routers routers in groups groups over the kernels
// given (group g in kernels[g*len(kernels)/groups]; groups a multiple of
// their number), each with a table of tableWords.
func newToyNet(kernels []*Kernel, routers, groups, tableWords int, local, remote Time) *toyNet {
	n := &toyNet{local: local, remote: remote}
	for i := range routers {
		g := i * groups / routers
		n.group = append(n.group, g)
		k := kernels[g*len(kernels)/groups]
		r := &toyRouter{net: n, id: i, table: make([]uint64, max(tableWords, 1))}
		r.Source.ID = k.NewOrigins(1)
		n.routers = append(n.routers, r)
		n.kernels = append(n.kernels, k)
	}
	return n
}

// send sends p from router (or PE home) at to router to, after the hop's
// delay (payload-dependent).
func (n *toyNet) send(at, to int, p *toyPacket) {
	k, dst := n.kernels[at], n.kernels[to]
	d := n.local
	if n.group[at] != n.group[to] {
		d = n.remote
	}
	d += Time(p.payload>>40%4) * 10
	k.Post(dst, k.Now()+d, n.routers[to], 0, p)
}

func (r *toyRouter) Fire(_ int32, data any) {
	p := data.(*toyPacket)
	n := r.net
	now := n.kernels[r.id].Now()
	r.hash = Mix64(r.hash ^ p.payload ^ uint64(now))
	r.count++
	r.table[p.payload%uint64(len(r.table))] += p.payload
	switch {
	case p.hops > 0:
		p.hops--
		p.payload = Mix64(p.payload + uint64(r.id))
		n.send(r.id, int(p.payload%uint64(len(n.routers))), p)
	case p.dst >= 0 && n.pes[p.dst].home != r.id:
		n.send(r.id, n.pes[p.dst].home, p)
	case p.dst >= 0:
		pe := n.pes[p.dst]
		pe.got++
		pe.hash = Mix64(pe.hash ^ p.payload ^ uint64(now))
		pe.proc.Wake()
	}
}

// spawn makes PE i at home router home, sending sends packets to the PEs
// i+7j+1 (mod pes) and then waiting for its own.
func (n *toyNet) spawn(home, sends, pes int) {
	pe := &toyPE{home: home}
	id := len(n.pes)
	n.pes = append(n.pes, pe)
	for j := range sends {
		for q := range pes {
			if (q+7*j+1)%pes == id {
				pe.want++
			}
		}
	}
	k := n.kernels[home]
	pe.proc = k.Spawn(func(p *Proc) error {
		for j := range sends {
			p.Advance(Time(Mix64(uint64(id<<20|j)) % 200))
			pkt := &toyPacket{payload: Mix64(uint64(id<<20 | j | 1<<40)), hops: 2 + j%3, dst: (id + 7*j + 1) % pes}
			k.At(p.Clock(), n.routers[home], 0, pkt)
			if j%3 == 0 {
				if err := p.Sync(); err != nil {
					return err
				}
				pe.hash = Mix64(pe.hash ^ uint64(n.routers[home].count) ^ uint64(p.Clock()))
			}
		}
		for pe.got < pe.want {
			if err := p.Block("packets"); err != nil {
				return err
			}
		}
		pe.hash = Mix64(pe.hash ^ uint64(p.Clock()))
		return nil
	})
}

// inject puts packets packets into the routers at set-up, without PEs.
func (n *toyNet) inject(packets int) {
	for i := range packets {
		at := i % len(n.routers)
		p := &toyPacket{payload: Mix64(uint64(i) + 99), hops: 3 + i%5, dst: -1}
		n.kernels[at].At(Time(i%13)*10, n.routers[at], 0, p)
	}
}

// state is everything the net's actors saw.
func (n *toyNet) state() string {
	s := ""
	for _, r := range n.routers {
		s += fmt.Sprintf("r%d:%x:%d ", r.id, r.hash, r.count)
	}
	for i, pe := range n.pes {
		s += fmt.Sprintf("pe%d:%x:%d ", i, pe.hash, pe.got)
	}
	return s
}

const (
	toyLocal  = 20
	toyRemote = 100
	toyGroups = 24 // a multiple of every test's partitions
)

// toyParallel runs the toy on parts partitions and workers workers: with
// pes PEs (one at every routers/pes-th router) or, with none, injected
// packets.
func toyParallel(t testing.TB, seed uint64, parts, workers, routers, pes int) (string, uint64, uint64) {
	r, err := NewParallel(seed, parts, toyRemote)
	require.NoError(t, err)
	ks := make([]*Kernel, parts)
	for i := range ks {
		ks[i] = r.Partition(i)
	}
	n := newToyNet(ks, routers, toyGroups, 1, toyLocal, toyRemote)
	if pes == 0 {
		n.inject(4 * routers)
	}
	for i := range pes {
		n.spawn(i*routers/pes, 12, pes)
	}
	require.NoError(t, r.Run(workers))
	return n.state(), r.Events(), r.Windows()
}

// TestParallelSameForAnyWorkers: the toy's every router and PE sees the
// same, and the run has the same events and windows, for 1, 2, 3 and as
// many workers as partitions, on several seeds and partitionings.
func TestParallelSameForAnyWorkers(t *testing.T) {
	for _, c := range []struct{ seed, parts, routers, pes int }{
		{1, 4, 48, 16}, {2, 4, 48, 16}, {3, 6, 48, 48}, {4, 2, 24, 0}, {5, 8, 72, 8},
	} {
		want, events, windows := toyParallel(t, uint64(c.seed), c.parts, 1, c.routers, c.pes)
		require.Greater(t, windows, uint64(5), "%+v", c)
		require.Greater(t, events, uint64(4*c.routers), "%+v", c)
		for _, w := range []int{2, 3, c.parts} {
			got, ev, win := toyParallel(t, uint64(c.seed), c.parts, w, c.routers, c.pes)
			require.Equal(t, want, got, "%+v, %d workers", c, w)
			require.Equal(t, events, ev, "%+v, %d workers", c, w)
			require.Equal(t, windows, win, "%+v, %d workers", c, w)
		}
	}
}

// TestParallelSameAsOneKernel: a model whose partitions share nothing
// gives, partitioned, what one kernel running all of it gives (events
// only: no PE's Sync meets a window's end), and its results depend on the
// seed.
func TestParallelSameAsOneKernel(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(4) {
		k := New(seed)
		n := newToyNet([]*Kernel{k}, 24, toyGroups, 1, toyLocal, toyRemote)
		n.inject(96)
		require.NoError(t, k.Run())
		want := n.state()
		seen[want] = true
		for _, parts := range []int{2, 3, 24} {
			got, events, _ := toyParallel(t, seed, parts, 2, 24, 0)
			require.Equal(t, want, got, "seed %d, %d partitions", seed, parts)
			require.Equal(t, k.Events(), events, "seed %d, %d partitions", seed, parts)
		}
	}
	require.Greater(t, len(seen), 1, "the order of simultaneous events does not follow the seed")
}

// TestParallelLookaheadBroken: an event sent to another partition sooner
// than the lookahead ends the job with an error naming both partitions.
func TestParallelLookaheadBroken(t *testing.T) {
	r, err := NewParallel(1, 2, 2*toyRemote)
	require.NoError(t, err)
	n := newToyNet([]*Kernel{r.Partition(0), r.Partition(1)}, 4, 2, 1, toyLocal, toyRemote)
	n.inject(8)
	err = r.Run(2)
	require.Error(t, err)
	require.Contains(t, err.Error(), "before its window's end")
	require.Regexp(t, `partition [01] sent partition [01]`, err.Error())
}

// TestParallelErrors: bad arguments, a PE's failure (the earliest wins,
// whatever the workers), a deadlock over partitions that names the PEs
// by their run-wide numbers, and the simulated time limit.
func TestParallelErrors(t *testing.T) {
	_, err := NewParallel(1, 0, 10)
	require.ErrorContains(t, err, "0 partitions")
	_, err = NewParallel(1, 2, 0)
	require.ErrorContains(t, err, "lookahead of 0")

	for _, w := range []int{1, 2} {
		r, err := NewParallel(1, 2, 100)
		require.NoError(t, err)
		late, early := errors.New("late"), errors.New("early")
		r.Partition(0).Spawn(func(p *Proc) error { p.Advance(500); return p.Sync() })
		r.Partition(0).Spawn(func(p *Proc) error { p.Advance(900); _ = p.Sync(); return late })
		r.Partition(1).Spawn(func(p *Proc) error { p.Advance(450); _ = p.Sync(); return early })
		r.Partition(1).Spawn(func(p *Proc) error { return p.Block("never") })
		require.ErrorIs(t, r.Run(w), early, "%d workers", w)
		require.Error(t, r.Run(w), "a second Run")

		r, err = NewParallel(1, 2, 100)
		require.NoError(t, err)
		r.Partition(0).Spawn(func(p *Proc) error { return nil })
		r.Partition(1).Spawn(func(p *Proc) error { p.Advance(300); _ = p.Sync(); return p.Block("a packet") })
		err = r.Run(w)
		var d *conduit.DeadlockError
		require.ErrorAs(t, err, &d, "%d workers", w)
		require.Equal(t, map[int]string{1: "a packet"}, d.Waiting)
		require.Equal(t, []int{0}, d.Finished)

		r, err = NewParallel(1, 2, 100)
		require.NoError(t, err)
		r.SetLimits(1000, 0)
		r.Partition(1).Spawn(func(p *Proc) error {
			for {
				p.Advance(70)
				if err := p.Sync(); err != nil {
					return err
				}
			}
		})
		var l *conduit.LimitError
		require.ErrorAs(t, r.Run(w), &l, "%d workers", w)
		require.LessOrEqual(t, l.At, Time(1000))
	}
	r, err := NewParallel(1, 2, 100)
	require.NoError(t, err)
	require.ErrorContains(t, r.Partition(0).Run(), "run by its Parallel")
}

// TestParallelSyncSeesOtherPartitions: a PE that syncs to a clock past
// its window's end sees what another partition sent it before that clock,
// though its own partition had nothing pending when it synced.
func TestParallelSyncSeesOtherPartitions(t *testing.T) {
	for _, w := range []int{1, 2} {
		r, err := NewParallel(1, 2, 100)
		require.NoError(t, err)
		seen := Time(-1)
		flag := actorFunc(func(int32, any) { seen = r.Partition(0).Now() })
		sender := actorFunc(func(int32, any) { r.Partition(1).Post(r.Partition(0), 150, flag, 0, nil) })
		r.Partition(1).At(0, sender, 0, nil)
		var saw Time
		r.Partition(0).Spawn(func(p *Proc) error {
			p.Advance(200)
			err := p.Sync()
			saw = seen
			return err
		})
		require.NoError(t, r.Run(w))
		require.Equal(t, Time(150), saw, "%d workers", w)
	}
}

// An outbox sorted by destination gives each destination exactly the
// events sent to it, whatever the order they were sent in, and sorts
// again from scratch after more are sent.
func TestOutboxSort(t *testing.T) {
	const parts = 7
	rng := rand.New(rand.NewPCG(3, 4))
	o := outbox{ends: make([]int32, parts), next: make([]int32, parts)}
	for round := range 3 {
		want := make([]map[int32]bool, parts)
		for d := range want {
			want[d] = map[int32]bool{}
		}
		n := 50 * round // none in the first round
		for i := range n {
			d := int32(rng.IntN(parts - 1)) // the last is sent none
			o.sent = append(o.sent, remoteEvent{code: int32(i), dst: d})
			want[d][int32(i)] = true
			if i == n/2 {
				o.sort() // as after a window, then more sent between
				o.sorted = false
			}
		}
		o.sort()
		total := 0
		for d := range parts {
			got := o.to(d)
			total += len(got)
			if len(got) != len(want[d]) {
				t.Fatalf("round %d: destination %d got %d events, want %d", round, d, len(got), len(want[d]))
			}
			for _, e := range got {
				if e.dst != int32(d) || !want[d][e.code] {
					t.Fatalf("round %d: destination %d got event %d for %d", round, d, e.code, e.dst)
				}
			}
		}
		if total != n {
			t.Fatalf("round %d: %d events given out, %d sent", round, total, n)
		}
		o.empty()
	}
}
