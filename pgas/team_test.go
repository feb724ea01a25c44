package pgas_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Tests of team.go: Split, rank translation, barriers (whole and split
// phase) on the world and on sub-teams, Destroy and the reuse of team
// slots.

// teamtBusy does an amount of local work that depends on (a, b, c), so
// that PEs arrive at a synchronisation point in varying orders without
// sleeping.
func teamtBusy(a, b, c int) {
	x := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F ^ uint64(c+1)*0x165667B19E3779F9
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	n := int(x % 3000)
	if x%7 == 0 {
		n *= 20 // now and then one PE is much later
	}
	s := 0
	for i := range n {
		s += i ^ a
	}
	// Published, so that the compiler cannot drop the work.
	teamtSink.Add(int64(s))
}

var teamtSink atomic.Int64

// teamtFlags is one int64 word per PE, written by its owner with
// AtomicStore and read by everyone with AtomicLoad.
type teamtFlags struct {
	pe  *pgas.PE
	arr pgas.Array[int64]
}

func teamtNewFlags(pe *pgas.PE) (*teamtFlags, error) {
	arr, err := pgas.NewArray[int64](pe, 1)
	if err != nil {
		return nil, err
	}
	return &teamtFlags{pe: pe, arr: arr}, nil
}

func (f *teamtFlags) set(v int64) error {
	return pgas.AtomicStore(f.pe, f.arr.At(f.pe.Rank(), 0), v)
}

// check reads every member's flag: each must be in [lo, hi].
func (f *teamtFlags) check(tm *pgas.Team, what string, lo, hi int64) error {
	return f.checkFunc(tm, what, lo, func(int) int64 { return hi })
}

// checkFunc is check with an upper bound for each member (global rank).
func (f *teamtFlags) checkFunc(tm *pgas.Team, what string, lo int64, hiOf func(g int) int64) error {
	for r := range tm.Size() {
		g := tm.GlobalRank(r)
		hi := hiOf(g)
		v, err := pgas.AtomicLoad(f.pe, f.arr.At(g, 0))
		if err != nil {
			return err
		}
		if v < lo || v > hi {
			return fmt.Errorf("%s: PE %d left the barrier when PE %d's flag was %d, want it in [%d,%d]", what, f.pe.Rank(), g, v, lo, hi)
		}
	}
	return nil
}

// teamtMembers is what Split(color, key) must give a PE whose color is
// color: the ranks of parent passing that color, by key and then rank.
func teamtMembers(parent []int, colors, keys map[int]int, color int) []int {
	var m []int
	for _, g := range parent {
		if colors[g] == color {
			m = append(m, g)
		}
	}
	sort.SliceStable(m, func(i, j int) bool { return keys[m[i]] < keys[m[j]] })
	return m
}

// teamtCheckTeam checks a team's ranks and translations against its
// expected members (global ranks in team-rank order).
func teamtCheckTeam(pe *pgas.PE, tm *pgas.Team, members []int, what string) error {
	w := pe.World()
	if tm.Size() != len(members) {
		return fmt.Errorf("%s: size %d, want %d (%v)", what, tm.Size(), len(members), members)
	}
	me := slices.Index(members, pe.Rank())
	if tm.Rank() != me {
		return fmt.Errorf("%s: rank %d, want %d (members %v)", what, tm.Rank(), me, members)
	}
	for r, g := range members {
		if got := tm.GlobalRank(r); got != g {
			return fmt.Errorf("%s: GlobalRank(%d) = %d, want %d (members %v)", what, r, got, g, members)
		}
		if got := pgas.Translate(tm, r, w); got != g {
			return fmt.Errorf("%s: Translate(team, %d, world) = %d, want %d", what, r, got, g)
		}
	}
	for _, r := range []int{-1, len(members), len(members) + 5} {
		if got := tm.GlobalRank(r); got != -1 {
			return fmt.Errorf("%s: GlobalRank(%d) = %d, want -1", what, r, got)
		}
		if got := pgas.Translate(tm, r, w); got != -1 {
			return fmt.Errorf("%s: Translate(team, %d, world) = %d, want -1", what, r, got)
		}
	}
	for g := -2; g <= pe.Size()+1; g++ {
		want := slices.Index(members, g)
		if got := tm.TeamRank(g); got != want {
			return fmt.Errorf("%s: TeamRank(%d) = %d, want %d (members %v)", what, g, got, want, members)
		}
		if got := pgas.Translate(w, g, tm); got != want {
			return fmt.Errorf("%s: Translate(world, %d, team) = %d, want %d", what, g, got, want)
		}
	}
	// The team's collectives see the same membership.
	got := make([]int64, tm.Size())
	if err := pgas.Allgather(tm, []int64{int64(pe.Rank())}, got); err != nil {
		return err
	}
	for r, g := range members {
		if got[r] != int64(g) {
			return fmt.Errorf("%s: Allgather of global ranks %v, want %v", what, got, members)
		}
	}
	return tm.Barrier()
}

// TestTeamWorld checks the world team's ranks and that it cannot be
// destroyed.
func TestTeamWorld(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		err := pgas.Run(pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error {
			w := pe.World()
			if w.Size() != n || w.Rank() != pe.Rank() {
				return fmt.Errorf("world rank %d size %d, want %d and %d", w.Rank(), w.Size(), pe.Rank(), n)
			}
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			if err := teamtCheckTeam(pe, w, all, "world"); err != nil {
				return err
			}
			if err := w.Destroy(); !errors.Is(err, pgas.ErrArgument) {
				return fmt.Errorf("destroying the world: %v, want ErrArgument", err)
			}
			return w.Barrier() // still usable
		})
		if err != nil {
			t.Fatalf("PEs=%d: %v", n, err)
		}
	}
}

// TestTeamSplit splits by colors and keys: parity with keys reversing the
// order, ties broken by rank, some PEs passing a negative color.
func TestTeamSplit(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error {
				me := pe.Rank()
				w := pe.World()
				world := make([]int, n)
				for i := range world {
					world[i] = i
				}
				type split struct {
					what   string
					colors func(g int) int
					keys   func(g int) int
				}
				var teams []*pgas.Team
				for _, s := range []split{
					{"parity, reversed", func(g int) int { return g % 2 }, func(g int) int { return -g }},
					{"halves, in order", func(g int) int { return g * 2 / n }, func(g int) int { return g }},
					{"one color, equal keys", func(g int) int { return 7 }, func(g int) int { return 0 }},
					{"one color, tied keys", func(g int) int { return 0 }, func(g int) int { return (n - g) / 2 }},
					{"thirds, large keys, some out", func(g int) int {
						if g%3 == 1 {
							return -1
						}
						return g % 3 * 1000
					}, func(g int) int { return (g * 7919) % 13 * 1 << 40 }},
					{"all out but one", func(g int) int {
						if g == n-1 {
							return 3
						}
						return -5
					}, func(g int) int { return 0 }},
				} {
					colors, keys := map[int]int{}, map[int]int{}
					for _, g := range world {
						colors[g], keys[g] = s.colors(g), s.keys(g)
					}
					tm, err := w.Split(colors[me], keys[me])
					if err != nil {
						return fmt.Errorf("%s: %w", s.what, err)
					}
					if colors[me] < 0 {
						if tm != nil {
							return fmt.Errorf("%s: a negative color gave a team of %d", s.what, tm.Size())
						}
						continue
					}
					if tm == nil {
						return fmt.Errorf("%s: no team for color %d", s.what, colors[me])
					}
					members := teamtMembers(world, colors, keys, colors[me])
					if err := teamtCheckTeam(pe, tm, members, s.what); err != nil {
						return err
					}
					teams = append(teams, tm)
				}
				// Translate between two sub-teams.
				if len(teams) >= 2 {
					a, b := teams[0], teams[1]
					for r := -1; r <= a.Size(); r++ {
						want := b.TeamRank(a.GlobalRank(r))
						if got := pgas.Translate(a, r, b); got != want {
							return fmt.Errorf("Translate(parity, %d, halves) = %d, want %d", r, got, want)
						}
					}
				}
				// A collective over the world still matches up after the
				// splits (each used the world's sequence numbers).
				v := []int64{int64(me)}
				if err := pgas.Allreduce(w, pgas.Sum, v, v); err != nil {
					return err
				}
				if v[0] != int64(n*(n-1)/2) {
					return fmt.Errorf("world sum %d", v[0])
				}
				for _, tm := range teams {
					if err := tm.Destroy(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTeamNested splits sub-teams again, three levels deep, and runs
// barriers and collectives on every level, interleaved.
func TestTeamNested(t *testing.T) {
	for _, n := range []int{1, 3, 6, 8} {
		t.Run(fmt.Sprintf("PEs=%d", n), func(t *testing.T) {
			err := pgas.Run(pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error {
				me := pe.Rank()
				all := make([]int, n)
				for i := range all {
					all[i] = i
				}
				// Level 1: halves, reversed.
				c1, k1 := map[int]int{}, map[int]int{}
				for _, g := range all {
					c1[g], k1[g] = g*2/n, -g
				}
				l1, err := pe.World().Split(c1[me], k1[me])
				if err != nil {
					return err
				}
				m1 := teamtMembers(all, c1, k1, c1[me])
				if err := teamtCheckTeam(pe, l1, m1, "level 1"); err != nil {
					return err
				}
				// Level 2: by parity of the rank in level 1, keys by global
				// rank.
				c2, k2 := map[int]int{}, map[int]int{}
				for i, g := range m1 {
					c2[g], k2[g] = i%2, g
				}
				l2, err := l1.Split(c2[me], k2[me])
				if err != nil {
					return err
				}
				m2 := teamtMembers(m1, c2, k2, c2[me])
				if err := teamtCheckTeam(pe, l2, m2, "level 2"); err != nil {
					return err
				}
				// Level 3: the first member of level 2 stays out.
				c3, k3 := map[int]int{}, map[int]int{}
				for i, g := range m2 {
					c3[g], k3[g] = 0, -i
					if i == 0 {
						c3[g] = -1
					}
				}
				l3, err := l2.Split(c3[me], k3[me])
				if err != nil {
					return err
				}
				if c3[me] < 0 {
					if l3 != nil {
						return errors.New("level 3: got a team with a negative color")
					}
				} else {
					m3 := teamtMembers(m2, c3, k3, 0)
					if err := teamtCheckTeam(pe, l3, m3, "level 3"); err != nil {
						return err
					}
					for r := range l3.Size() {
						if got, want := pgas.Translate(l3, r, l1), slices.Index(m1, m3[r]); got != want {
							return fmt.Errorf("Translate(level 3, %d, level 1) = %d, want %d", r, got, want)
						}
						if got, want := pgas.Translate(l3, r, l2), slices.Index(m2, m3[r]); got != want {
							return fmt.Errorf("Translate(level 3, %d, level 2) = %d, want %d", r, got, want)
						}
					}
				}
				// Interleave collectives on all levels.
				levels := []*pgas.Team{pe.World(), l1, l2, l3}
				for it := range 20 {
					for d, tm := range levels {
						if tm == nil {
							continue
						}
						v := []int64{int64(me + it), int64(1)}
						if err := pgas.Allreduce(tm, pgas.Sum, v, v); err != nil {
							return err
						}
						want := int64(0)
						for r := range tm.Size() {
							want += int64(tm.GlobalRank(r) + it)
						}
						if v[0] != want || v[1] != int64(tm.Size()) {
							return fmt.Errorf("level %d iteration %d: Allreduce %v, want [%d %d]", d, it, v, want, tm.Size())
						}
						if it%4 == d {
							if err := tm.Barrier(); err != nil {
								return err
							}
						}
					}
				}
				for _, tm := range []*pgas.Team{l3, l2, l1} {
					if tm != nil {
						if err := tm.Destroy(); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTeamDestroyErrors checks the use of destroyed teams.
func TestTeamDestroyErrors(t *testing.T) {
	err := pgas.Run(pgas.Config{PEs: 3, SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error {
		tm, err := pe.World().Split(0, 0)
		if err != nil {
			return err
		}
		if err := tm.Destroy(); err != nil {
			return err
		}
		if err := tm.Destroy(); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("second Destroy: %v, want ErrArgument", err)
		}
		if err := tm.Barrier(); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("Barrier on a destroyed team: %v, want ErrArgument", err)
		}
		if err := tm.BarrierNotify(); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("BarrierNotify on a destroyed team: %v, want ErrArgument", err)
		}
		if err := pgas.Allreduce(tm, pgas.Sum, []int32{1}, make([]int32, 1)); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("Allreduce on a destroyed team: %v, want ErrArgument", err)
		}
		if err := pgas.Broadcast(tm, 0, []int32{1}); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("Broadcast on a destroyed team: %v, want ErrArgument", err)
		}
		if _, err := tm.Split(0, 0); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("Split of a destroyed team: %v, want ErrArgument", err)
		}
		return pe.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTeamSlotReuse creates and destroys teams many more times than there
// are team slots, with a few teams alive at once so that slots are freed
// and reused in varying positions. Each new team's barriers must still
// synchronise: the flags of the slot's previous team hold its epochs.
func TestTeamSlotReuse(t *testing.T) {
	for _, s := range pathSetups {
		for _, n := range map[string][]int{"direct": {2, 5}, "post": {5}, "post+reg": {3}}[s.name] {
			t.Run(fmt.Sprintf("%s/PEs=%d", s.name, n), func(t *testing.T) {
				err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
					me := pe.Rank()
					flags, err := teamtNewFlags(pe)
					if err != nil {
						return err
					}
					var live []*pgas.Team
					splits := 0
					stamp := int64(0)
					for it := 0; splits < pgas.MaxTeams+30; it++ {
						color := (me + it) % 2
						if n > 2 && (me+it)%5 == 0 {
							color = -1 // out of this round's teams
						}
						tm, err := pe.World().Split(color, (me*it)%3)
						if err != nil {
							return fmt.Errorf("split %d: %w", splits, err)
						}
						splits++
						if tm != nil {
							// Several barriers, so that the slot's flags
							// carry high epochs to the next team there.
							for b := range 2 + it%3 {
								stamp++
								if err := flags.set(stamp); err != nil {
									return err
								}
								teamtBusy(it, me, b)
								if err := tm.Barrier(); err != nil {
									return err
								}
								// Members are all in this same iteration: no
								// world synchronisation happened since the
								// Split, and every member counts the same
								// stamps (it, b) since then.
								if err := flags.check(tm, fmt.Sprintf("split %d barrier %d", splits, b), stamp, stamp+1); err != nil {
									return err
								}
							}
							v := []int32{1}
							if err := pgas.Allreduce(tm, pgas.Sum, v, v); err != nil {
								return err
							}
							if int(v[0]) != tm.Size() {
								return fmt.Errorf("split %d: team of %d counted %d", splits, tm.Size(), v[0])
							}
							live = append(live, tm)
						}
						// Keep up to it%4 teams alive; destroy the oldest.
						for len(live) > it%4 {
							if err := live[0].Destroy(); err != nil {
								return err
							}
							live = live[1:]
						}
						// Stamps of PEs in different teams drift apart; a
						// world allreduce aligns them for the next round.
						v := []int64{stamp}
						if err := pgas.Allreduce(pe.World(), pgas.Max, v, v); err != nil {
							return err
						}
						stamp = v[0]
					}
					for _, tm := range live {
						if err := tm.Destroy(); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTeamExhaustSlots fills every team slot, checks that the next Split
// fails everywhere with ErrNoMemory, then frees them and splits again.
func TestTeamExhaustSlots(t *testing.T) {
	err := pgas.Run(pgas.Config{PEs: 4, SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error {
		me := pe.Rank()
		var teams []*pgas.Team
		var everyone *pgas.Team // the last team all PEs are in
		for i := 1; i < pgas.MaxTeams; i++ {
			// PE 0 stays out of every other team: its slots stay free,
			// but the others' are taken, and a slot must be free on all.
			color := i % 2
			if me == 0 && i%2 == 1 {
				color = -1
			}
			tm, err := pe.World().Split(color, 0)
			if err != nil {
				return fmt.Errorf("split %d: %w", i, err)
			}
			if tm != nil {
				teams = append(teams, tm)
			}
			if i%2 == 0 {
				everyone = tm
			}
		}
		if _, err := pe.World().Split(0, 0); !errors.Is(err, pgas.ErrNoMemory) {
			return fmt.Errorf("split with every slot in use: %v, want ErrNoMemory", err)
		}
		// The world still works, and so does the last team.
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := everyone.Barrier(); err != nil {
			return err
		}
		for _, tm := range teams {
			if err := tm.Destroy(); err != nil {
				return err
			}
		}
		tm, err := pe.World().Split(0, -me)
		if err != nil {
			return err
		}
		if err := tm.Barrier(); err != nil {
			return err
		}
		return tm.Destroy()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTeamSplitPhase checks BarrierNotify / local work / BarrierWait: no
// PE leaves BarrierWait before every member has notified, and a put issued
// before BarrierNotify is visible after BarrierWait.
func TestTeamSplitPhase(t *testing.T) {
	for _, s := range pathSetups {
		for _, n := range map[string][]int{"direct": {1, 2, 3, 5, 8}, "post": {2, 5}, "post+reg": {3}}[s.name] {
			t.Run(fmt.Sprintf("%s/PEs=%d", s.name, n), func(t *testing.T) {
				err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
					me := pe.Rank()
					flags, err := teamtNewFlags(pe)
					if err != nil {
						return err
					}
					mail, err := pgas.NewArray[int64](pe, 1)
					if err != nil {
						return err
					}
					sub, err := pe.World().Split(me%2, -me)
					if err != nil {
						return err
					}
					stamp := int64(0)
					for it := range 100 {
						tm := pe.World()
						if it%3 == 1 {
							tm = sub
						}
						stamp++
						teamtBusy(it, me, 1)
						if err := flags.set(stamp); err != nil {
							return err
						}
						right := tm.GlobalRank((tm.Rank() + 1) % tm.Size())
						if err := mail.PutNBI(right, 0, []int64{stamp*100 + int64(me)}); err != nil {
							return err
						}
						if err := tm.BarrierNotify(); err != nil {
							return err
						}
						// Local work between the halves, with checks that
						// are independent of the barrier.
						teamtBusy(it, me, 2)
						if it == 7 {
							if err := tm.BarrierNotify(); !errors.Is(err, pgas.ErrArgument) {
								return fmt.Errorf("BarrierNotify twice: %v, want ErrArgument", err)
							}
						}
						if err := tm.BarrierWait(); err != nil {
							return err
						}
						if err := flags.check(tm, fmt.Sprintf("iteration %d", it), stamp, stamp+1); err != nil {
							return err
						}
						left := tm.GlobalRank((tm.Rank() + tm.Size() - 1) % tm.Size())
						if got, want := mail.Local()[0], stamp*100+int64(left); got != want {
							return fmt.Errorf("iteration %d: PE %d's put before the barrier reads %d, want %d", it, left, got, want)
						}
						// Nobody overwrites the mail before everyone read it.
						if err := tm.Barrier(); err != nil {
							return err
						}
						if tm != pe.World() {
							// Align the stamps of the two sub-teams.
							v := []int64{stamp}
							if err := pgas.Allreduce(pe.World(), pgas.Max, v, v); err != nil {
								return err
							}
							stamp = v[0]
						}
					}
					if err := pe.World().BarrierWait(); !errors.Is(err, pgas.ErrArgument) {
						return fmt.Errorf("BarrierWait without BarrierNotify: %v, want ErrArgument", err)
					}
					return sub.Destroy()
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTeamManyBarriers runs 1000 consecutive barriers, alternating the
// world and sub-teams, with PEs arriving in varying orders: after each, a
// PE sees no peer's flag behind, and none further ahead than the next
// barrier the two share.
func TestTeamManyBarriers(t *testing.T) {
	for _, s := range pathSetups {
		for _, n := range map[string][]int{"direct": {2, 8}, "post": {5}, "post+reg": {3}}[s.name] {
			t.Run(fmt.Sprintf("%s/PEs=%d", s.name, n), func(t *testing.T) {
				err := pgas.Run(s.cfg(n), func(pe *pgas.PE) error {
					me := pe.Rank()
					flags, err := teamtNewFlags(pe)
					if err != nil {
						return err
					}
					third, err := pe.World().Split(me%3, me)
					if err != nil {
						return err
					}
					const iters = 1000
					subteam := func(i int) bool { return i%10 >= 7 }
					// hi is how far peer g can have got after barrier i:
					// up to the next barrier it shares with this PE.
					hi := func(i int, g int) int64 {
						j := i + 1
						for j < iters && subteam(j) && g%3 != me%3 {
							j++
						}
						return int64(j + 1)
					}
					stamp := int64(0)
					for i := range iters {
						tm := pe.World()
						if subteam(i) {
							tm = third
						}
						stamp++
						if err := flags.set(stamp); err != nil {
							return err
						}
						teamtBusy(i, me, 0)
						if err := tm.Barrier(); err != nil {
							return err
						}
						if err := flags.checkFunc(tm, fmt.Sprintf("barrier %d", i), stamp, func(g int) int64 { return hi(i, g) }); err != nil {
							return err
						}
					}
					return third.Destroy()
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTeamSplitExtremeKeys splits with keys at the ends of the int range:
// members must be ordered by key, so a comparison that subtracts keys
// (and overflows) would misorder them.
func TestTeamSplitExtremeKeys(t *testing.T) {
	const n = 5
	keyOf := func(g int) int {
		return []int{math.MaxInt, math.MinInt, 0, math.MaxInt - 1, math.MinInt + 1}[g]
	}
	err := pgas.Run(pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes}, func(pe *pgas.PE) error {
		tm, err := pe.World().Split(0, keyOf(pe.Rank()))
		if err != nil {
			return err
		}
		all := []int{0, 1, 2, 3, 4}
		colors, keys := map[int]int{}, map[int]int{}
		for _, g := range all {
			colors[g], keys[g] = 0, keyOf(g)
		}
		want := teamtMembers(all, colors, keys, 0) // [1 4 2 3 0]
		got := make([]int, n)
		for r := range got {
			got[r] = tm.GlobalRank(r)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("members by key %v, want %v", got, want)
		}
		return tm.Destroy()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBarrierSignalsNotFlushed: a barrier costs the same descriptors under
// every ordering. Its signals are flag puts the partner reads itself, so the
// next barrier's quiet does not flush them with strictly ordered gets (which
// would make default and relaxed barriers dearer than strict ones); a data
// put before a barrier is still flushed.
func TestBarrierSignalsNotFlushed(t *testing.T) {
	const barriers = 5
	posted := func(order pgas.Ordering, put bool) int64 {
		t.Helper()
		var fma atomic.Int64
		cfg := pgas.Config{Conduit: "gemini", PEs: 8, PEsPerNode: 2, SegmentBytes: pgas.MinSegmentBytes, Ordering: order}
		err := pgas.Run(cfg, func(pe *pgas.PE) error {
			off, err := pe.Alloc(8, 0)
			if err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			before := pe.Stats().Transport.FMA
			if put {
				if err := pe.Put((pe.Rank()+2)%pe.Size(), off, []byte("12345678")); err != nil {
					return err
				}
			}
			for range barriers {
				if err := pe.Barrier(); err != nil {
					return err
				}
			}
			fma.Add(pe.Stats().Transport.FMA - before)
			return nil
		})
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		return fma.Load()
	}
	strict := posted(pgas.OrderStrict, false)
	// 8 PEs: 3 rounds, a signal per PE in each.
	if strict != barriers*8*3 {
		t.Errorf("strict: %d descriptors for %d barriers of 8 PEs, want %d", strict, barriers, barriers*8*3)
	}
	for _, o := range []pgas.Ordering{pgas.OrderDefault, pgas.OrderRelaxed} {
		if got := posted(o, false); got != strict {
			t.Errorf("%v: %d descriptors for %d barriers, strict %d", o, got, barriers, strict)
		}
		// The put (1) and, before the first barrier, its flush (1).
		if got := posted(o, true); got != strict+2*8 {
			t.Errorf("%v: %d descriptors for a put and %d barriers, want %d", o, got, barriers, strict+2*8)
		}
	}
	if got := posted(pgas.OrderStrict, true); got != strict+8 {
		t.Errorf("strict: %d descriptors for a put and %d barriers, want %d", got, barriers, strict+8)
	}
}
