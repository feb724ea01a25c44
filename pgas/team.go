package pgas

import (
	"cmp"
	"encoding/binary"

	"github.com/gopgas/gopgas/conduit"
	"math/bits"
	"slices"

	"github.com/gopgas/gopgas/internal/transport"
)

// Layout of the reserved part of every segment: word 0 is the word strict
// flushes read (transport.Engine.Flush), then the barrier flags.
const (
	// MaxTeams is the most teams a PE can belong to at once, the world
	// included.
	MaxTeams = 128
	// maxRounds bounds the dissemination barrier's rounds (teams of up to
	// 2^32 PEs).
	maxRounds = 32
	// barrierOff is where the barrier flags begin: one word per team and
	// round, written by that round's single partner.
	barrierOff  = 64
	reservedEnd = barrierOff + MaxTeams*maxRounds*8
)

var _ = [ReservedBytes - reservedEnd]struct{}{} // the layout fits

// Team is a set of PEs that synchronise and communicate collectively.
// Collectives and barriers of a team must be called by all its members in
// the same order.
type Team struct {
	pe      *PE
	id      int
	rank    int
	size    int
	members []int       // team rank -> global rank; nil for the world
	index   map[int]int // global rank -> team rank; nil for the world

	epoch    uint64             // barrier epoch
	notified bool               // between BarrierNotify and BarrierWait
	offload  conduit.Collective // an offloaded barrier in progress
	epochBuf [8]byte
	seq      uint32 // collectives issued
	dead     bool
	direct   int8   // every member reachable by load/store: 0 unknown, 1 yes, -1 no
	arEpoch  uint64 // allreduces through the flags (coll_direct.go)
}

type teamTable struct {
	used [MaxTeams / 64]uint64
}

func (tt *teamTable) take(id int)    { tt.used[id/64] |= 1 << (id % 64) }
func (tt *teamTable) release(id int) { tt.used[id/64] &^= 1 << (id % 64) }

func (pe *PE) newWorldTeam() *Team {
	pe.teams.take(0)
	return &Team{pe: pe, id: 0, rank: pe.rank, size: pe.size}
}

// Rank is this PE's rank in the team.
func (t *Team) Rank() int { return t.rank }

// Size is the number of PEs in the team.
func (t *Team) Size() int { return t.size }

// GlobalRank translates a team rank to a rank of the job, or -1.
func (t *Team) GlobalRank(teamRank int) int {
	if teamRank < 0 || teamRank >= t.size {
		return -1
	}
	if t.members == nil {
		return teamRank
	}
	return t.members[teamRank]
}

// TeamRank translates a rank of the job to a rank of the team, or -1 when
// that PE is not a member.
func (t *Team) TeamRank(globalRank int) int {
	if t.members == nil {
		if globalRank < 0 || globalRank >= t.size {
			return -1
		}
		return globalRank
	}
	if r, ok := t.index[globalRank]; ok {
		return r
	}
	return -1
}

// Translate translates a rank of team from to a rank of team to, or -1.
func Translate(from *Team, rank int, to *Team) int {
	return to.TeamRank(from.GlobalRank(rank))
}

func (t *Team) global(teamRank int) int {
	if t.members == nil {
		return teamRank
	}
	return t.members[teamRank]
}

func (t *Team) check(op string) error {
	if t.dead {
		return t.pe.errf(op, ErrArgument, "the team was destroyed")
	}
	return t.pe.blocking(op)
}

// Barrier returns once every member has entered it. It completes the PE's
// outstanding operations first.
func (t *Team) Barrier() error {
	if err := t.BarrierNotify(); err != nil {
		return err
	}
	return t.BarrierWait()
}

// BarrierNotify is the first half of a split-phase barrier: it completes
// the PE's outstanding operations and announces arrival. Work may be done
// before BarrierWait.
func (t *Team) BarrierNotify() error {
	pe := t.pe
	if err := t.check("BarrierNotify"); err != nil {
		return err
	}
	if t.notified {
		return pe.errf("BarrierNotify", ErrArgument, "BarrierNotify called twice without BarrierWait")
	}
	if err := pe.quiet("BarrierNotify"); err != nil {
		return err
	}
	t.notified = true
	if ce := pe.offload(t); ce != nil {
		c, err := ce.OffloadBarrier()
		if err != nil {
			t.notified = false
			return pe.wrap("BarrierNotify", err)
		}
		t.offload = c
		return nil
	}
	t.epoch++
	binary.NativeEndian.PutUint64(t.epochBuf[:], t.epoch)
	if t.size > 1 {
		return t.signal(0)
	}
	return nil
}

// BarrierWait completes a barrier begun with BarrierNotify.
//
// The barrier is a dissemination barrier: in round k each member writes the
// epoch into a flag word of the member 2^k ranks ahead and waits for the
// member 2^k behind to do the same to it.
func (t *Team) BarrierWait() error {
	pe := t.pe
	if err := t.check("BarrierWait"); err != nil {
		return err
	}
	if !t.notified {
		return pe.errf("BarrierWait", ErrArgument, "BarrierWait without BarrierNotify")
	}
	t.notified = false
	if c := t.offload; c != nil {
		t.offload = nil
		_, err := pe.waitCollective("BarrierWait", c)
		return err
	}
	for k := 0; 1<<k < t.size; k++ {
		pe.flag = flagCond{seg: pe.seg, off: flagOff(t.id, k), want: t.epoch}
		if err := pe.eng.Wait("a barrier", &pe.flag); err != nil {
			return pe.wrap("BarrierWait", err)
		}
		if 1<<(k+1) < t.size {
			if err := t.signal(k + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

func flagOff(team, round int) int64 { return int64(barrierOff + (team*maxRounds+round)*8) }

// signal writes the epoch into round k's flag of the partner.
func (t *Team) signal(k int) error {
	pe := t.pe
	to := t.global((t.rank + 1<<k) % t.size)
	off := flagOff(t.id, k)
	if seg := pe.eng.Direct(to); seg != nil {
		transport.StoreWord(seg, off, 8, t.epoch)
		pe.eng.Wake(to)
		return nil
	}
	// Completion is collected by the next quiet, which comes before the
	// epoch buffer changes; a failure fails every wait from then on
	// (pollFaults), this barrier's first. The partner reads the flag
	// itself once it is visible, so the next quiet need not flush it: that
	// would cost every barrier under default or relaxed ordering a
	// strictly ordered get per round, which strict ordering does not pay.
	return pe.wrap("barrier", pe.eng.PutFlag(&pe.signalOp, to, off, t.epochBuf[:]))
}

// flagCond waits for a flag word of the PE's own segment to reach want.
type flagCond struct {
	seg  []byte
	off  int64
	want uint64
}

func (c *flagCond) Done() bool { return transport.LoadWord(c.seg, c.off, 8) >= c.want }

// Split divides the team: members passing the same color form a new team,
// ranked by key and then by rank in this team. It is collective over this
// team. A member passing a negative color joins no team and gets nil.
func (t *Team) Split(color, key int) (*Team, error) {
	pe := t.pe
	if err := t.check("Split"); err != nil {
		return nil, err
	}
	const rec = 8 + 8 + 8*len(teamTable{}.used)
	mine := make([]byte, rec)
	binary.LittleEndian.PutUint64(mine[0:], uint64(int64(color)))
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(key)))
	for i, w := range pe.teams.used {
		binary.LittleEndian.PutUint64(mine[16+8*i:], w)
	}
	all := make([]byte, rec*t.size)
	if err := t.allgatherBytes("Split", mine, all); err != nil {
		return nil, err
	}
	var used [MaxTeams / 64]uint64
	type member struct{ key, rank int }
	var same []member
	for r := range t.size {
		b := all[r*rec:]
		c, k := int(int64(binary.LittleEndian.Uint64(b))), int(int64(binary.LittleEndian.Uint64(b[8:])))
		for i := range used {
			used[i] |= binary.LittleEndian.Uint64(b[16+8*i:])
		}
		if color >= 0 && c == color {
			same = append(same, member{k, r})
		}
	}
	id := -1
	for i, w := range used {
		if w != ^uint64(0) {
			id = 64*i + bits.TrailingZeros64(^w)
			break
		}
	}
	if id < 0 {
		return nil, pe.errf("Split", ErrNoMemory, "all %d team slots are in use on some member", MaxTeams)
	}
	var nt *Team
	if color >= 0 {
		slices.SortStableFunc(same, func(a, b member) int {
			if c := cmp.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.rank, b.rank)
		})
		nt = &Team{pe: pe, id: id, size: len(same), members: make([]int, len(same)), index: make(map[int]int, len(same))}
		for i, m := range same {
			g := t.global(m.rank)
			nt.members[i] = g
			nt.index[g] = i
			if g == pe.rank {
				nt.rank = i
			}
		}
		// Flags may hold epochs of a destroyed team that had this slot:
		// clear them before any member can signal (the barrier below).
		for k := range maxRounds {
			transport.StoreWord(pe.seg, flagOff(id, k), 8, 0)
		}
		pe.clearDirectSlots(id)
		pe.teams.take(id)
	}
	if err := t.Barrier(); err != nil {
		return nil, err
	}
	return nt, nil
}

// Destroy releases the team. Every member must have completed its last
// collective on it; it may not be used afterwards. The world cannot be
// destroyed.
func (t *Team) Destroy() error {
	if t.id == 0 {
		return t.pe.errf("Destroy", ErrArgument, "the world team cannot be destroyed")
	}
	if t.dead {
		return t.pe.errf("Destroy", ErrArgument, "the team was already destroyed")
	}
	t.dead = true
	t.pe.teams.release(t.id)
	return nil
}

// Barrier is a barrier over all PEs.
func (pe *PE) Barrier() error { return pe.world.Barrier() }
