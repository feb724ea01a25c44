package pgas_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gopgas/gopgas/pgas"
)

// The metamorphic test generates random race-free SPMD programs, runs them
// on the runtime, and compares every PE's memory and every value a get or
// a fetching atomic returned with a plain serial model of the same program.
//
// A program is a job of 2..5 PEs and a few phases. Every PE has a data area
// of B blocks of S bytes and four counters (two 64-bit words, and the two
// halves of one 8-byte word). In a phase each block has at most one writer
// (drawn per phase), gets read only blocks nobody writes in that phase,
// each counter takes only one commutative operation (add or xor) in that
// phase, and a PE's writes never overlap its own writes still in flight
// (the generator completes them first). The final state of a phase is then
// independent of timing: the model applies each PE's operations in program
// order. A Barrier ends each phase; then every PE checks its data area and
// counters, and the fetched values of each counter are checked to come
// from some serial order of the phase's operations on it.

type metatKind uint8

const (
	metatPut metatKind = iota
	metatGet
	metatAMO
	metatSync
	metatRegion
)

type metatForm uint8

const (
	metatSingle metatForm = iota
	metatVector
	metatIndexed
	metatStrided
)

type metatComp uint8

const (
	metatBlocking metatComp = iota
	metatNB
	metatNBI
)

type metatSyncKind uint8

const (
	metatQuiet metatSyncKind = iota
	metatSyncNBI
	metatSyncPuts
	metatSyncGets
	metatWaitHandles
	metatSyncKinds
)

// metatSpan is n bytes at off: relative to the start of the data area for
// remote spans, to the local buffer for local ones.
type metatSpan struct{ off, n int }

const metatCounters = 4 // per PE: [0], [1] 64-bit; [2], [3] the halves of one 8-byte word

type metatOp struct {
	kind   metatKind
	form   metatForm
	comp   metatComp
	strict bool
	inSeg  bool
	target int

	// Data operations: remote[k] pairs with local[k].
	remote   []metatSpan
	local    []metatSpan
	localLen int
	vlens    []int // vector: lengths of the local buffers
	block    int   // indexed: block size
	c0, c1   int   // strided: count
	rs, ls   int   // strided: remote and local stride
	seed     uint64
	expect   []byte // get: the local buffer after the get

	// Atomics on counter ctr of PE target.
	ctr     int
	amo     pgas.AtomicOp
	fetch   bool
	variant bool
	operand uint64
	got     uint64 // written by the PE that ran the op
	gotOK   bool

	// Sync.
	sync    metatSyncKind
	waitVar int

	// Region: implicit-handle sub-operations.
	sub []*metatOp
}

func (op *metatOp) String() string {
	mode := ""
	if op.strict {
		mode = " strict"
	}
	where := "Go buffer"
	if op.inSeg {
		where = "segment buffer"
	}
	comp := [...]string{"blocking", "NB", "NBI"}[op.comp]
	switch op.kind {
	case metatPut, metatGet:
		name := [...]string{"Put", "Get"}[op.kind]
		switch op.form {
		case metatVector:
			return fmt.Sprintf("%sV %s%s PE %d spans %v local lengths %v (%s)", name, comp, mode, op.target, op.remote, op.vlens, where)
		case metatIndexed:
			return fmt.Sprintf("%sIndexed %s%s PE %d blocks of %d at %v (%s)", name, comp, mode, op.target, op.block, op.remote, where)
		case metatStrided:
			return fmt.Sprintf("%sStrided %s%s PE %d at %d count [%d %d] remote stride %d local stride %d (%s)", name, comp, mode, op.target, op.remote[0].off, op.c0, op.c1, op.rs, op.ls, where)
		}
		return fmt.Sprintf("%s %s%s PE %d [%d,+%d) (%s)", name, comp, mode, op.target, op.remote[0].off, op.remote[0].n, where)
	case metatAMO:
		return fmt.Sprintf("atomic %v %#x on counter %d of PE %d (fetch %v, NB %v)", op.amo, op.operand, op.ctr, op.target, op.fetch, op.comp == metatNB)
	case metatSync:
		return fmt.Sprintf("sync %s", [...]string{"Quiet", "SyncNBI", "SyncNBIPuts", "SyncNBIGets", "wait handles"}[op.sync])
	default:
		var subs []string
		for _, s := range op.sub {
			subs = append(subs, s.String())
		}
		return fmt.Sprintf("region {%s}", strings.Join(subs, "; "))
	}
}

type metatPhase struct {
	owner [][]int                        // [pe][block]: the PE writing it, or -1
	class [][metatCounters]pgas.AtomicOp // [pe][counter]: add or xor
	ops   [][]*metatOp                   // [pe]: the PE's operations in order
	start [][metatCounters]uint64
	data  [][]byte // every data area at the end of the phase
	ctr   [][metatCounters]uint64
}

type metatProg struct {
	pes, blocks, blockBytes int
	initSeed                uint64
	ctrInit                 [][metatCounters]uint64
	phases                  []*metatPhase
}

func (p *metatProg) areaBytes() int { return p.blocks * p.blockBytes }

// metatBytes is n pseudo-random bytes determined by seed.
func metatBytes(n int, seed uint64) []byte {
	b := make([]byte, n+8)
	x := seed ^ 0x2545F4914F6CDD1D
	for i := 0; i < n; i += 8 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		binary.LittleEndian.PutUint64(b[i:], z^(z>>31))
	}
	return b[:n:n]
}

func metatWidth(ctr int) int {
	if ctr < 2 {
		return 8
	}
	return 4
}

func metatMask(ctr int, v uint64) uint64 {
	if metatWidth(ctr) == 4 {
		return v & 0xFFFFFFFF
	}
	return v
}

func metatApplyAMO(op pgas.AtomicOp, ctr int, old, v uint64) uint64 {
	if op == pgas.AtomicAdd {
		return metatMask(ctr, old+v)
	}
	return metatMask(ctr, old^v)
}

// metatGen draws a program.
type metatGen struct {
	t    *rapid.T
	prog *metatProg
	data [][]byte // the model's data areas
	snap [][]byte // the data areas at the start of the phase
	ctr  [][metatCounters]uint64
	seq  uint64
}

func (g *metatGen) intRange(lo, hi int, label string) int {
	return rapid.IntRange(lo, hi).Draw(g.t, label)
}

func (g *metatGen) nextSeed() uint64 {
	g.seq++
	return g.seq*1000003 + g.prog.initSeed
}

// pendW is a write of a PE still in flight: completed by a handle, or by
// the implicit-handle syncs.
type metatPendW struct {
	target int
	span   metatSpan
	handle bool
}

func metatOverlaps(p []metatPendW, target int, spans []metatSpan) bool {
	for _, w := range p {
		if w.target != target {
			continue
		}
		for _, s := range spans {
			if s.n > 0 && w.span.n > 0 && s.off < w.span.off+w.span.n && w.span.off < s.off+s.n {
				return true
			}
		}
	}
	return false
}

// dataOp draws the shape of a put (or get) on block b of PE target.
func (g *metatGen) dataOp(kind metatKind, target, b int, allowNBI bool) *metatOp {
	S := g.prog.blockBytes
	bb := b * S
	op := &metatOp{kind: kind, target: target, seed: g.nextSeed()}
	maxForm := 3
	if !allowNBI {
		maxForm = 0
	}
	op.form = metatForm(g.intRange(0, maxForm, "form"))
	switch op.form {
	case metatSingle:
		off := g.intRange(0, S-1, "off")
		n := g.intRange(1, S-off, "len")
		op.remote = []metatSpan{{bb + off, n}}
		op.local = []metatSpan{{0, n}}
		op.localLen = n
	case metatVector:
		k := g.intRange(1, 4, "spans")
		cur, total := 0, 0
		var spans []metatSpan
		for range k {
			cur += g.intRange(0, min(16, S-cur), "gap")
			if cur >= S {
				break
			}
			n := g.intRange(0, S-cur, "spanLen")
			spans = append(spans, metatSpan{bb + cur, n})
			cur += n
			total += n
		}
		if len(spans) == 0 {
			spans = []metatSpan{{bb, 1}}
			total = 1
		}
		perm := rapid.Permutation(spans).Draw(g.t, "spanOrder")
		op.remote = perm
		lo := 0
		for _, s := range perm {
			op.local = append(op.local, metatSpan{lo, s.n})
			lo += s.n
		}
		m := g.intRange(1, 4, "localBuffers")
		cuts := []int{0, total}
		for range m - 1 {
			cuts = append(cuts, g.intRange(0, total, "cut"))
		}
		slices.Sort(cuts)
		for i := range m {
			op.vlens = append(op.vlens, cuts[i+1]-cuts[i])
		}
		op.localLen = total
	case metatIndexed:
		blk := g.intRange(1, min(S, 300), "blockLen")
		nslots := S / blk
		cnt := g.intRange(1, min(nslots, 6), "blocks")
		shift := g.intRange(0, S-nslots*blk, "shift")
		seen := map[int]bool{}
		for range cnt {
			s := g.intRange(0, nslots-1, "slot")
			if seen[s] {
				continue
			}
			seen[s] = true
			op.remote = append(op.remote, metatSpan{bb + shift + s*blk, blk})
			op.local = append(op.local, metatSpan{len(op.local) * blk, blk})
		}
		op.block = blk
		op.localLen = len(op.remote) * blk
	case metatStrided:
		c0 := g.intRange(1, S, "c0")
		var rs, c1 int
		if kind == metatPut {
			// Remote rows must not overlap.
			if 2*c0 <= S {
				rs = g.intRange(c0, S-c0, "rstride")
				c1 = g.intRange(1, min((S-c0)/rs+1, 16), "c1")
			} else {
				rs, c1 = c0, 1
			}
			// Local rows may overlap. (Not with stride 0: the runtime
			// refuses more rows than local bytes, see
			// TestRMAStridedLocalStrideZero.)
			op.ls = g.intRange(1, c0+8, "lstride")
		} else {
			// Remote rows may overlap (even stride 0); local ones may not.
			rs = g.intRange(0, S-c0, "rstride")
			maxc1 := 16
			if rs > 0 {
				maxc1 = min((S-c0)/rs+1, 16)
			}
			c1 = g.intRange(1, maxc1, "c1")
			op.ls = g.intRange(c0, c0+8, "lstride")
		}
		start := g.intRange(0, S-((c1-1)*rs+c0), "start")
		op.c0, op.c1, op.rs = c0, c1, rs
		for k := range c1 {
			op.remote = append(op.remote, metatSpan{bb + start + k*rs, c0})
			op.local = append(op.local, metatSpan{k * op.ls, c0})
		}
		op.localLen = (c1-1)*op.ls + c0
	}
	maxComp := 1
	if op.form == metatSingle && allowNBI {
		maxComp = 2
	}
	op.comp = metatComp(g.intRange(0, maxComp, "completion"))
	if !allowNBI {
		op.comp = metatNBI
	}
	op.strict = g.intRange(0, 5, "strict") == 0
	op.inSeg = rapid.Bool().Draw(g.t, "inSegment")
	return op
}

// applyPut updates the model with a put.
func (g *metatGen) applyPut(op *metatOp) {
	src := metatBytes(op.localLen, op.seed)
	for k, r := range op.remote {
		l := op.local[k]
		copy(g.data[op.target][r.off:r.off+r.n], src[l.off:l.off+l.n])
	}
}

// expectGet computes what a get leaves in its local buffer: the sentinel
// pattern, with the pieces read from the phase's starting image.
func (g *metatGen) expectGet(op *metatOp) {
	op.expect = metatBytes(op.localLen, op.seed)
	for k, r := range op.remote {
		l := op.local[k]
		copy(op.expect[l.off:l.off+l.n], g.snap[op.target][r.off:r.off+r.n])
	}
}

type metatBlock struct{ pe, b int }

func (g *metatGen) draw() *metatProg {
	p := &metatProg{
		pes:        g.intRange(metatMinPEs, metatMaxPEs, "pes"),
		blockBytes: rapid.SampledFrom([]int{16, 100, 1000, 5000}).Draw(g.t, "blockBytes"),
		blocks:     g.intRange(1, 5, "blocks"),
		initSeed:   rapid.Uint64().Draw(g.t, "initSeed"),
	}
	g.prog = p
	g.data = make([][]byte, p.pes)
	g.ctr = make([][metatCounters]uint64, p.pes)
	for r := range p.pes {
		g.data[r] = metatBytes(p.areaBytes(), p.initSeed+uint64(r))
		for c := range metatCounters {
			g.ctr[r][c] = metatMask(c, rapid.Uint64().Draw(g.t, "counterInit"))
		}
	}
	p.ctrInit = slices.Clone(g.ctr)
	nphases := g.intRange(1, 4, "phases")
	for range nphases {
		ph := &metatPhase{
			owner: make([][]int, p.pes),
			class: make([][metatCounters]pgas.AtomicOp, p.pes),
			ops:   make([][]*metatOp, p.pes),
			start: slices.Clone(g.ctr),
		}
		var free []metatBlock
		owned := make([][]metatBlock, p.pes)
		for r := range p.pes {
			ph.owner[r] = make([]int, p.blocks)
			for b := range p.blocks {
				w := g.intRange(-1, p.pes-1, "writer")
				ph.owner[r][b] = w
				if w < 0 {
					free = append(free, metatBlock{r, b})
				} else {
					owned[w] = append(owned[w], metatBlock{r, b})
				}
			}
			for c := range metatCounters {
				ph.class[r][c] = rapid.SampledFrom([]pgas.AtomicOp{pgas.AtomicAdd, pgas.AtomicXor}).Draw(g.t, "counterOp")
			}
		}
		g.snap = make([][]byte, p.pes)
		for r := range p.pes {
			g.snap[r] = slices.Clone(g.data[r])
		}
		amoCount := make([][metatCounters]int, p.pes)
		for r := range p.pes {
			var pend []metatPendW
			emit := func(op *metatOp) { ph.ops[r] = append(ph.ops[r], op) }
			quietIf := func(target int, spans []metatSpan) {
				if metatOverlaps(pend, target, spans) {
					emit(&metatOp{kind: metatSync, sync: metatQuiet})
					pend = nil
				}
			}
			nops := g.intRange(0, 8, "ops")
			for range nops {
				k := g.intRange(0, 99, "kind")
				switch {
				case k < 35 && len(owned[r]) > 0:
					blk := rapid.SampledFrom(owned[r]).Draw(g.t, "putBlock")
					op := g.dataOp(metatPut, blk.pe, blk.b, true)
					quietIf(op.target, op.remote)
					emit(op)
					g.applyPut(op)
					if op.comp != metatBlocking {
						for _, s := range op.remote {
							pend = append(pend, metatPendW{op.target, s, op.comp == metatNB})
						}
					}
				case k < 65 && len(free) > 0:
					blk := rapid.SampledFrom(free).Draw(g.t, "getBlock")
					op := g.dataOp(metatGet, blk.pe, blk.b, true)
					g.expectGet(op)
					emit(op)
				case k < 80:
					op := &metatOp{kind: metatAMO, target: g.intRange(0, p.pes-1, "amoPE"), ctr: g.intRange(0, metatCounters-1, "counter")}
					if amoCount[op.target][op.ctr] >= 8 {
						continue
					}
					amoCount[op.target][op.ctr]++
					op.amo = ph.class[op.target][op.ctr]
					if op.amo == pgas.AtomicAdd {
						op.operand = uint64(g.intRange(1, 1<<20, "addend"))
					} else {
						op.operand = metatMask(op.ctr, rapid.Uint64().Draw(g.t, "xor"))
					}
					op.fetch = rapid.Bool().Draw(g.t, "fetch")
					op.variant = rapid.Bool().Draw(g.t, "variant")
					op.comp = metatComp(g.intRange(0, 1, "amoNB"))
					emit(op)
					g.ctr[op.target][op.ctr] = metatApplyAMO(op.amo, op.ctr, g.ctr[op.target][op.ctr], op.operand)
				case k < 90:
					op := &metatOp{kind: metatSync, sync: metatSyncKind(g.intRange(0, int(metatSyncKinds)-1, "sync")), waitVar: g.intRange(0, 3, "waitVariant")}
					emit(op)
					switch op.sync {
					case metatQuiet:
						pend = nil
					case metatSyncNBI, metatSyncPuts, metatWaitHandles:
						wantHandle := op.sync == metatWaitHandles
						pend = slices.DeleteFunc(pend, func(w metatPendW) bool { return w.handle == wantHandle })
					}
				default:
					region := &metatOp{kind: metatRegion}
					nsub := g.intRange(1, 3, "regionOps")
					var puts []metatPendW
					for range nsub {
						isPut := len(owned[r]) > 0 && (len(free) == 0 || rapid.Bool().Draw(g.t, "regionPut"))
						if !isPut && len(free) == 0 {
							break
						}
						if isPut {
							blk := rapid.SampledFrom(owned[r]).Draw(g.t, "putBlock")
							op := g.dataOp(metatPut, blk.pe, blk.b, false)
							if metatOverlaps(puts, op.target, op.remote) {
								continue
							}
							region.sub = append(region.sub, op)
							for _, s := range op.remote {
								puts = append(puts, metatPendW{op.target, s, true})
							}
						} else {
							blk := rapid.SampledFrom(free).Draw(g.t, "getBlock")
							op := g.dataOp(metatGet, blk.pe, blk.b, false)
							g.expectGet(op)
							region.sub = append(region.sub, op)
						}
					}
					if len(region.sub) == 0 {
						continue
					}
					for _, w := range puts {
						quietIf(w.target, []metatSpan{w.span})
					}
					emit(region)
					for _, op := range region.sub {
						if op.kind == metatPut {
							g.applyPut(op)
						}
					}
					pend = append(pend, puts...)
				}
			}
		}
		ph.data = make([][]byte, p.pes)
		for r := range p.pes {
			ph.data[r] = slices.Clone(g.data[r])
		}
		ph.ctr = slices.Clone(g.ctr)
		p.phases = append(p.phases, ph)
	}
	return p
}

// Execution.

const metatScratch = 64 << 10

type metatHandle struct {
	h     pgas.Handle
	ops   []*metatOp
	after func() // delivers a non-blocking atomic's result
}

type metatExec struct {
	pe      *pgas.PE
	prog    *metatProg
	phase   int
	data    int64
	scratch int64
	used    int
	c64     pgas.Array[uint64]
	c32     pgas.Array[uint32]
	handles []metatHandle
	nbiGets []*metatOp
	bufs    map[*metatOp][]byte
}

func (x *metatExec) fail(op *metatOp, format string, args ...any) error {
	return fmt.Errorf("phase %d, PE %d, %v: %s", x.phase, x.pe.Rank(), op, fmt.Sprintf(format, args...))
}

// buffer gives op its local buffer, in the segment's scratch area when the
// op asks and there is room, holding the put's data or the get's sentinel.
func (x *metatExec) buffer(op *metatOp) []byte {
	var b []byte
	if op.inSeg && x.used+op.localLen <= metatScratch {
		var err error
		if b, err = x.pe.Local(x.scratch+int64(x.used), int64(op.localLen)); err != nil {
			panic(err)
		}
		x.used += (op.localLen + 7) &^ 7
	} else {
		b = make([]byte, op.localLen)
	}
	copy(b, metatBytes(op.localLen, op.seed))
	if op.kind == metatGet {
		x.bufs[op] = b
	}
	return b
}

// checkGet compares a completed get's buffer with the model.
func (x *metatExec) checkGet(op *metatOp) error {
	got := x.bufs[op]
	delete(x.bufs, op)
	if slices.Equal(got, op.expect) {
		return nil
	}
	i := 0
	for got[i] == op.expect[i] {
		i++
	}
	return x.fail(op, "local buffer byte %d is %#02x, want %#02x", i, got[i], op.expect[i])
}

func (x *metatExec) acc(op *metatOp) pgas.Accessor {
	if op.strict {
		return x.pe.With(pgas.Strict)
	}
	return x.pe.Accessor // the PE's default mode, relaxed
}

func (x *metatExec) spans(op *metatOp) []pgas.Span {
	out := make([]pgas.Span, len(op.remote))
	for i, s := range op.remote {
		out[i] = pgas.Span{Off: x.data + int64(s.off), Len: int64(s.n)}
	}
	return out
}

// data runs a put or get; region tells that it belongs to an access region
// (whose handle the caller collects).
func (x *metatExec) dataOp(op *metatOp, region bool) error {
	a := x.acc(op)
	buf := x.buffer(op)
	put := op.kind == metatPut
	off := x.data + int64(op.remote[0].off)
	var h pgas.Handle
	var err error
	switch op.form {
	case metatSingle:
		switch {
		case op.comp == metatBlocking && put:
			err = a.Put(op.target, off, buf)
		case op.comp == metatBlocking:
			err = a.Get(op.target, off, buf)
		case op.comp == metatNB && put:
			h, err = a.PutNB(op.target, off, buf)
		case op.comp == metatNB:
			h, err = a.GetNB(op.target, off, buf)
		case put:
			err = a.PutNBI(op.target, off, buf)
		default:
			err = a.GetNBI(op.target, off, buf)
		}
	case metatVector:
		spans, bufs := x.spans(op), cutBuffers(buf, op.vlens)
		switch {
		case op.comp == metatBlocking && put:
			err = a.PutV(op.target, spans, bufs)
		case op.comp == metatBlocking:
			err = a.GetV(op.target, spans, bufs)
		case put:
			h, err = a.PutVNB(op.target, spans, bufs)
		default:
			h, err = a.GetVNB(op.target, spans, bufs)
		}
	case metatIndexed:
		offs := make([]int64, len(op.remote))
		for i, s := range op.remote {
			offs[i] = x.data + int64(s.off)
		}
		blk := int64(op.block)
		switch {
		case op.comp == metatBlocking && put:
			err = a.PutIndexed(op.target, offs, blk, buf)
		case op.comp == metatBlocking:
			err = a.GetIndexed(op.target, offs, blk, buf)
		case put:
			h, err = a.PutIndexedNB(op.target, offs, blk, buf)
		default:
			h, err = a.GetIndexedNB(op.target, offs, blk, buf)
		}
	case metatStrided:
		rs, ls, count := []int64{int64(op.rs)}, []int64{int64(op.ls)}, []int64{int64(op.c0), int64(op.c1)}
		switch {
		case op.comp == metatBlocking && put:
			err = a.PutStrided(op.target, off, rs, buf, ls, count)
		case op.comp == metatBlocking:
			err = a.GetStrided(op.target, off, rs, buf, ls, count)
		case put:
			h, err = a.PutStridedNB(op.target, off, rs, buf, ls, count)
		default:
			h, err = a.GetStridedNB(op.target, off, rs, buf, ls, count)
		}
	}
	if err != nil {
		return x.fail(op, "%v", err)
	}
	switch {
	case op.comp == metatNB:
		x.handles = append(x.handles, metatHandle{h: h, ops: []*metatOp{op}})
	case op.comp == metatBlocking && !put:
		return x.checkGet(op)
	case op.comp == metatNBI && !put && !region:
		x.nbiGets = append(x.nbiGets, op)
	}
	return nil
}

func metatAtomic[T uint32 | uint64](x *metatExec, op *metatOp, p pgas.GPtr[T]) error {
	pe, v := x.pe, T(op.operand)
	var err error
	if op.comp == metatNB {
		var h pgas.Handle
		if op.fetch {
			res := new(T)
			if h, err = pgas.FetchAtomicNB(pe, op.amo, p, v, res); err == nil {
				x.handles = append(x.handles, metatHandle{h: h, after: func() { op.got, op.gotOK = uint64(*res), true }})
			}
		} else if h, err = pgas.AtomicNB(pe, op.amo, p, v); err == nil {
			x.handles = append(x.handles, metatHandle{h: h})
		}
	} else if op.fetch {
		var old T
		if op.variant && op.amo == pgas.AtomicAdd {
			old, err = pgas.FetchAdd(pe, p, v)
		} else {
			old, err = pgas.FetchAtomic(pe, op.amo, p, v)
		}
		op.got, op.gotOK = uint64(old), true
	} else {
		err = pgas.Atomic(pe, op.amo, p, v)
	}
	if err != nil {
		return x.fail(op, "%v", err)
	}
	return nil
}

// complete finishes a handle's operations after it completed.
func (x *metatExec) complete(e metatHandle) error {
	if e.after != nil {
		e.after()
	}
	for _, op := range e.ops {
		if op.kind == metatGet {
			if err := x.checkGet(op); err != nil {
				return err
			}
		}
	}
	return nil
}

// waitHandles completes every handle in one of four ways.
func (x *metatExec) waitHandles(variant int) error {
	hs := x.handles
	x.handles = nil
	switch variant {
	case 0:
		all := make([]pgas.Handle, len(hs))
		for i, e := range hs {
			all[i] = e.h
		}
		if err := pgas.WaitAll(all...); err != nil {
			return fmt.Errorf("phase %d, PE %d: WaitAll: %w", x.phase, x.pe.Rank(), err)
		}
	case 1:
		live := make([]pgas.Handle, len(hs))
		for i, e := range hs {
			live[i] = e.h
		}
		for left := len(hs); left > 0; {
			idx, err := pgas.WaitSome(live)
			if err != nil {
				return fmt.Errorf("phase %d, PE %d: WaitSome: %w", x.phase, x.pe.Rank(), err)
			}
			if len(idx) == 0 {
				return fmt.Errorf("phase %d, PE %d: WaitSome returned nothing with %d handles live", x.phase, x.pe.Rank(), left)
			}
			for _, i := range idx {
				if live[i] != (pgas.Handle{}) {
					return fmt.Errorf("phase %d, PE %d: WaitSome did not clear entry %d", x.phase, x.pe.Rank(), i)
				}
				if err := x.complete(hs[i]); err != nil {
					return err
				}
				left--
			}
		}
		return nil
	case 2:
		for _, e := range hs {
			for i := 0; ; i++ {
				ok, err := e.h.Test()
				if err != nil {
					return fmt.Errorf("phase %d, PE %d: Test: %w", x.phase, x.pe.Rank(), err)
				}
				if ok {
					break
				}
				if i > 1e7 {
					return fmt.Errorf("phase %d, PE %d: Test never completed", x.phase, x.pe.Rank())
				}
			}
		}
	default:
		for i := len(hs) - 1; i >= 0; i-- {
			if err := hs[i].h.Wait(); err != nil {
				return fmt.Errorf("phase %d, PE %d: Wait: %w", x.phase, x.pe.Rank(), err)
			}
		}
	}
	for _, e := range hs {
		if err := x.complete(e); err != nil {
			return err
		}
	}
	return nil
}

func (x *metatExec) checkNBIGets() error {
	gets := x.nbiGets
	x.nbiGets = nil
	for _, op := range gets {
		if err := x.checkGet(op); err != nil {
			return err
		}
	}
	return nil
}

func (x *metatExec) run(op *metatOp) error {
	pe := x.pe
	switch op.kind {
	case metatPut, metatGet:
		return x.dataOp(op, false)
	case metatAMO:
		if op.ctr < 2 {
			return metatAtomic(x, op, x.c64.At(op.target, op.ctr))
		}
		return metatAtomic(x, op, x.c32.At(op.target, op.ctr-2))
	case metatRegion:
		if err := pe.BeginRegion(); err != nil {
			return x.fail(op, "BeginRegion: %v", err)
		}
		for _, s := range op.sub {
			if err := x.dataOp(s, true); err != nil {
				return err
			}
		}
		h, err := pe.EndRegion()
		if err != nil {
			return x.fail(op, "EndRegion: %v", err)
		}
		x.handles = append(x.handles, metatHandle{h: h, ops: op.sub})
		return nil
	}
	var err error
	switch op.sync {
	case metatQuiet:
		if err = pe.Quiet(); err == nil {
			err = x.checkNBIGets()
		}
	case metatSyncNBI:
		if err = pe.SyncNBI(); err == nil {
			err = x.checkNBIGets()
		}
	case metatSyncPuts:
		err = pe.SyncNBIPuts()
	case metatSyncGets:
		if err = pe.SyncNBIGets(); err == nil {
			err = x.checkNBIGets()
		}
	case metatWaitHandles:
		err = x.waitHandles(op.waitVar)
	}
	if err != nil {
		return x.fail(op, "%v", err)
	}
	return nil
}

// checkState compares the PE's data area and counters with the model.
func (x *metatExec) checkState(ph *metatPhase) error {
	me := x.pe.Rank()
	got, err := x.pe.Local(x.data, int64(x.prog.areaBytes()))
	if err != nil {
		return err
	}
	want := ph.data[me]
	if !slices.Equal(got, want) {
		i := 0
		for got[i] == want[i] {
			i++
		}
		j := len(got) - 1
		for got[j] == want[j] {
			j--
		}
		S := x.prog.blockBytes
		return fmt.Errorf("after phase %d, PE %d's data area differs in bytes [%d,%d]: first at byte %d (block %d, offset %d, written this phase by PE %d): got %#02x, want %#02x",
			x.phase, me, i, j, i, i/S, i%S, ph.owner[me][i/S], got[i], want[i])
	}
	c64, c32 := x.c64.Local(), x.c32.Local()
	vals := [metatCounters]uint64{c64[0], c64[1], uint64(c32[0]), uint64(c32[1])}
	if vals != ph.ctr[me] {
		return fmt.Errorf("after phase %d, PE %d's counters are %#x, want %#x (operations this phase: %v)", x.phase, me, vals, ph.ctr[me], ph.class[me])
	}
	return nil
}

// metatStats are a run's transport counters, summed over PEs.
type metatStats struct {
	smp                                                bool
	FMA, BTE, Chunked, PDBounced, Bounced, OneTimeRegs int64
}

func (s *metatStats) add(pe *pgas.PE) {
	t := pe.Stats().Transport
	s.smp = pe.Conduit() == "smp"
	s.FMA += t.FMA
	s.BTE += t.BTE
	s.Chunked += t.Chunked
	s.PDBounced += t.PDBounced
	s.Bounced += t.Bounced
	s.OneTimeRegs += t.OneTimeRegs
}

func (p *metatProg) exec(cfg pgas.Config) (metatStats, error) {
	cfg.PEs = p.pes
	stats := make([]metatStats, p.pes)
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		me := pe.Rank()
		x := &metatExec{pe: pe, prog: p, bufs: map[*metatOp][]byte{}}
		var err error
		if x.data, err = pe.Alloc(int64(p.areaBytes()), 0); err != nil {
			return err
		}
		if x.scratch, err = pe.Alloc(metatScratch, 0); err != nil {
			return err
		}
		if x.c64, err = pgas.NewArray[uint64](pe, 2); err != nil {
			return err
		}
		if x.c32, err = pgas.NewArray[uint32](pe, 2); err != nil {
			return err
		}
		area, err := pe.Local(x.data, int64(p.areaBytes()))
		if err != nil {
			return err
		}
		copy(area, metatBytes(p.areaBytes(), p.initSeed+uint64(me)))
		x.c64.Local()[0], x.c64.Local()[1] = p.ctrInit[me][0], p.ctrInit[me][1]
		x.c32.Local()[0], x.c32.Local()[1] = uint32(p.ctrInit[me][2]), uint32(p.ctrInit[me][3])
		if err := pe.Barrier(); err != nil {
			return err
		}
		for i, ph := range p.phases {
			x.phase, x.used = i, 0
			for _, op := range ph.ops[me] {
				if err := x.run(op); err != nil {
					return err
				}
			}
			if err := x.waitHandles(0); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			// The barrier completed the implicit-handle gets.
			if err := x.checkNBIGets(); err != nil {
				return err
			}
			if len(x.bufs) != 0 {
				return fmt.Errorf("phase %d, PE %d: %d gets never completed", i, me, len(x.bufs))
			}
			if err := x.checkState(ph); err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		stats[me].add(pe)
		if metatShare != nil {
			return metatShare(pe, p)
		}
		return nil
	})
	var total metatStats
	for _, s := range stats {
		total.smp = s.smp
		total.FMA += s.FMA
		total.BTE += s.BTE
		total.Chunked += s.Chunked
		total.PDBounced += s.PDBounced
		total.Bounced += s.Bounced
		total.OneTimeRegs += s.OneTimeRegs
	}
	return total, err
}

// checkFetches verifies that the values fetched from each counter in each
// phase come from one serial order of that phase's operations on it: the
// operations commute, so the counter's value after a set of them is known,
// and some order must give every fetching operation the value it saw.
func (p *metatProg) checkFetches() error {
	for pi, ph := range p.phases {
		for r := range p.pes {
			for c := range metatCounters {
				var ops []*metatOp
				for _, list := range ph.ops {
					for _, op := range list {
						if op.kind == metatAMO && op.target == r && op.ctr == c {
							ops = append(ops, op)
						}
					}
				}
				for _, op := range ops {
					if op.fetch && !op.gotOK {
						return fmt.Errorf("phase %d: %v never delivered its result", pi, op)
					}
				}
				n := len(ops)
				if n == 0 {
					continue
				}
				val := make([]uint64, 1<<n)
				ok := make([]bool, 1<<n)
				ok[0] = true
				val[0] = ph.start[r][c]
				for m := 1; m < 1<<n; m++ {
					i := 0
					for m&(1<<i) == 0 {
						i++
					}
					val[m] = metatApplyAMO(ops[i].amo, c, val[m&^(1<<i)], ops[i].operand)
				}
				for m := range 1 << n {
					if !ok[m] {
						continue
					}
					for i, op := range ops {
						if m&(1<<i) == 0 && (!op.fetch || op.got == val[m]) {
							ok[m|1<<i] = true
						}
					}
				}
				if !ok[1<<n-1] {
					var desc []string
					for _, op := range ops {
						s := op.String()
						if op.fetch {
							s += fmt.Sprintf(" fetched %#x", op.got)
						}
						desc = append(desc, s)
					}
					return fmt.Errorf("phase %d: the values fetched from counter %d of PE %d (starting at %#x) fit no serial order of: %s",
						pi, c, r, ph.start[r][c], strings.Join(desc, "; "))
				}
			}
		}
	}
	return nil
}

func (p *metatProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d PEs, %d blocks of %d bytes each\n", p.pes, p.blocks, p.blockBytes)
	for i, ph := range p.phases {
		fmt.Fprintf(&b, "phase %d: writers %v, counter operations %v\n", i, ph.owner, ph.class)
		for r, ops := range ph.ops {
			for _, op := range ops {
				fmt.Fprintf(&b, "  PE %d: %v\n", r, op)
			}
		}
	}
	return b.String()
}

// The number of PEs a program draws, and what a PE does at the end of a
// program: the test under mpiexec (mpi_test.go) draws the launch's size
// and shares the fetched values, as its PEs run in separate processes.
var (
	metatMinPEs, metatMaxPEs = 2, 5
	metatShare               func(pe *pgas.PE, p *metatProg) error
)

// metatBase is the metamorphic job: small cutovers, so that blocks of a few
// kilobytes take every path of the transport.
var metatBase = pgas.Config{
	SegmentBytes:          512 << 10,
	ChunkBytes:            4096,
	FMARDMACutover:        512,
	PDBounceBytes:         32,
	BounceRegisterCutover: 1024,
	BounceBytes:           64 << 10,
}

func TestMetamorphic(t *testing.T) {
	// The three configurations of the transport, and the simulated Gemini,
	// which must give the same results in each network ordering mode.
	gemDefault, gemRelaxed := metatBase, metatBase
	gemDefault.Conduit, gemRelaxed.Conduit = "gemini", "gemini"
	gemDefault.PEsPerNode, gemRelaxed.PEsPerNode = 2, 2
	gemRelaxed.Ordering = pgas.OrderRelaxed
	for _, c := range append(pathConfigs(metatBase), pathConfig{"gemini", gemDefault}, pathConfig{"gemini-relaxed", gemRelaxed}) {
		t.Run(c.name, func(t *testing.T) {
			var total metatStats
			runs := 0
			rapid.Check(t, func(rt *rapid.T) {
				g := &metatGen{t: rt}
				prog := g.draw()
				rt.Logf("program:\n%v", prog)
				stats, err := prog.exec(c.cfg)
				if err != nil {
					rt.Fatalf("%v", err)
				}
				if err := prog.checkFetches(); err != nil {
					rt.Fatalf("%v", err)
				}
				runs++
				total.smp = stats.smp
				total.FMA += stats.FMA
				total.BTE += stats.BTE
				total.Chunked += stats.Chunked
				total.PDBounced += stats.PDBounced
				total.Bounced += stats.Bounced
				total.OneTimeRegs += stats.OneTimeRegs
			})
			t.Logf("%d programs; transport paths: %+v", runs, total)
			// With enough programs, every path of the transport ran.
			if runs >= 50 && total.smp && c.cfg.Direct == pgas.Off {
				if total.FMA == 0 || total.BTE == 0 || total.Chunked == 0 {
					t.Errorf("not every mechanism ran in %d programs: %+v", runs, total)
				}
				if c.cfg.RequireRegistration == pgas.On && (total.PDBounced == 0 || total.Bounced == 0 || total.OneTimeRegs == 0) {
					t.Errorf("not every bounce path ran in %d programs: %+v", runs, total)
				}
			}
		})
	}
}
