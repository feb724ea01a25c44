package bench

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/gopgas/gopgas/internal/transport"
	"github.com/gopgas/gopgas/pgas"
)

// AtomicRow is one row of the atomics benchmark.
type AtomicRow struct {
	// Name is the operation and type, as "fadd int64".
	Name string
	// Rate is million operations per second with a window of non-blocking
	// operations in flight.
	Rate float64
	// Latency is the time of one blocking operation in microseconds.
	Latency float64
}

// atomicCase is one operation on one type, run by rank 0 on its peer's
// word: blocking (latency) and windowed non-blocking (rate).
type atomicCase struct {
	name string
	run  func(pe *pgas.PE, peer int, off int64, nb bool, hs []pgas.Handle) error
}

func opCase[T pgas.Word](name string, op pgas.AtomicOp, fetch bool) atomicCase {
	return atomicCase{name: name, run: func(pe *pgas.PE, peer int, off int64, nb bool, hs []pgas.Handle) error {
		p := pgas.Ptr[T](peer, off)
		var result T
		if !nb {
			if fetch {
				_, err := pgas.FetchAtomic(pe, op, p, 1)
				return err
			}
			return pgas.Atomic(pe, op, p, 1)
		}
		var err error
		for i := range hs {
			if fetch {
				hs[i], err = pgas.FetchAtomicNB(pe, op, p, 1, &result)
			} else {
				hs[i], err = pgas.AtomicNB(pe, op, p, 1)
			}
			if err != nil {
				return err
			}
		}
		return pgas.WaitAll(hs...)
	}}
}

func cswapCase[T pgas.Word](name string) atomicCase {
	return atomicCase{name: name, run: func(pe *pgas.PE, peer int, off int64, nb bool, hs []pgas.Handle) error {
		p := pgas.Ptr[T](peer, off)
		var result T
		if !nb {
			_, err := pgas.CompareSwap(pe, p, 0, 0)
			return err
		}
		var err error
		for i := range hs {
			if hs[i], err = pgas.CompareSwapNB(pe, p, 0, 0, &result); err != nil {
				return err
			}
		}
		return pgas.WaitAll(hs...)
	}}
}

func typedCases[T pgas.Word](typ string, integer bool) []atomicCase {
	cs := []atomicCase{
		opCase[T]("add "+typ, pgas.AtomicAdd, false),
		opCase[T]("fadd "+typ, pgas.AtomicAdd, true),
		opCase[T]("swap "+typ, pgas.AtomicSwap, true),
		cswapCase[T]("cswap " + typ),
	}
	if integer {
		for _, op := range []pgas.AtomicOp{pgas.AtomicAnd, pgas.AtomicOr, pgas.AtomicXor, pgas.AtomicMin, pgas.AtomicMax} {
			cs = append(cs, opCase[T](op.String()+" "+typ, op, false), opCase[T]("f"+op.String()+" "+typ, op, true))
		}
	}
	return cs
}

// atomicCases are every operation of the runtime on every type.
func atomicCases() []atomicCase {
	var cs []atomicCase
	cs = append(cs, typedCases[int64]("int64", true)...)
	cs = append(cs, typedCases[uint64]("uint64", true)...)
	cs = append(cs, typedCases[int32]("int32", true)...)
	cs = append(cs, typedCases[uint32]("uint32", true)...)
	cs = append(cs, typedCases[float64]("float64", false)...)
	return cs
}

// Atomics runs every atomic operation of the runtime on every type from
// rank 0 to a word of its peer: latency of a blocking one and the rate of
// windows of non-blocking ones (osu_oshm_atomics). Only names matching
// filter (a substring; "" for all) run.
func Atomics(s Setup, filter string) ([]AtomicRow, *Result, error) {
	var cases []atomicCase
	for _, c := range atomicCases() {
		if filter == "" || contains(c.name, filter) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return nil, nil, fmt.Errorf("%w: atomics: no operation matches %q", ErrBadSetup, filter)
	}
	w := s.window()
	rows := make([]AtomicRow, 0, len(cases))
	j := &job{name: "atomics", title: "OSU-style Atomic Operations Test", unit: "Mops/s", column: "Million ops/s",
		nodes: 2, ppn: 1, minPEs: 2, segment: 64}
	r, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		off, err := pe.Alloc(8, 8)
		if err != nil {
			return err
		}
		peer := peerOf(pe)
		hs := make([]pgas.Handle, w)
		for i, c := range cases {
			iters, skip := s.iterations(8, true)
			if err := pe.Barrier(); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				lat, _, err := timed(pe, iters, skip, false, 1, nil, func() error { return c.run(pe, peer, off, false, nil) }, nil)
				if err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
				iters, skip = s.iterations(8, false)
				per, _, err := timed(pe, iters, skip, false, 1, nil, func() error { return c.run(pe, peer, off, true, hs) }, nil)
				if err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
				rows = append(rows, AtomicRow{Name: c.name, Latency: lat, Rate: float64(w) / per})
			}
			s.progress(pe, i, len(cases))
		}
		return pe.Barrier()
	})
	return rows, r, err
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// ManyToOne is the AMO-cache experiment of
// [GEMINI-HOTI], Figure 9: every PE not on node 0
// posts windows of non-blocking 64-bit atomic adds to words of rank 0,
// either all to one word (vars 1: AMO cache hits) or each to one of vars
// words chosen at random (8192: misses). The figure is the aggregate rate
// in million operations per second. Defaults: 4 nodes, 24 PEs per node.
func ManyToOne(s Setup, vars int) (*Result, error) {
	if vars < 1 {
		return nil, fmt.Errorf("%w: many-to-one atomics on %d variables", ErrBadSetup, vars)
	}
	w := s.window()
	j := &job{name: "atomics_many_to_one", title: fmt.Sprintf("Many-to-one atomic add on %d variable(s)", vars), unit: "Mops/s",
		column: "Million ops/s", nodes: 4, ppn: 24, minPEs: 2, segment: int64(vars) * 8}
	return s.run(j, func(pe *pgas.PE, r *Result) error {
		base, err := pe.Alloc(int64(vars)*8, 64)
		if err != nil {
			return err
		}
		active := pe.Node() != pe.NodeOf(0)
		if pe.Nodes() == 1 {
			active = pe.Rank() != 0
		}
		senders := []int64{0}
		if active {
			senders[0] = 1
		}
		if err := pgas.Allreduce(pe.World(), pgas.Sum, senders, senders); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(pe.Config().Seed, uint64(pe.Rank())))
		hs := make([]pgas.Handle, w)
		iters, skip := s.iterations(8, false)
		start, err := together(pe, iters, skip, active, func() error {
			for x := range hs {
				v := int64(0)
				if vars > 1 {
					v = rng.Int64N(int64(vars))
				}
				var err error
				if hs[x], err = pgas.AtomicNB(pe, pgas.AtomicAdd, pgas.Ptr[int64](0, base+8*v), 1); err != nil {
					return err
				}
			}
			return pgas.WaitAll(hs...)
		})
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			d := pe.Now() - start
			ops := float64(w) * float64(iters) * float64(senders[0])
			r.Points = append(r.Points, Point{Size: 8, Value: ops / d.Seconds() / 1e6, Rate: ops / d.Seconds()})
			// Every add must have landed.
			words, err := pe.Local(base, int64(vars)*8)
			if err != nil {
				return err
			}
			var total int64
			for i := range vars {
				total += int64(binary.LittleEndian.Uint64(words[8*i:]))
			}
			if want := int64(w) * int64(iters+skip) * senders[0]; total != want {
				return fmt.Errorf("bench: many-to-one: the words sum to %d, want %d", total, want)
			}
		}
		return nil
	})
}

// AtomicLatency is one of OSU's one-sided atomic latency tests on a 64-bit
// integer of rank n/2 (a 32-bit one with Setup.Datatype Int, OSU's -T
// mpi_int), from rank 0, blocking: "fop_latency" (osu_fop_latency, a
// fetching add), "cas_latency" (osu_cas_latency, a compare-and-swap) or
// "acc_latency" (osu_acc_latency, a non-fetching add). One point, of the
// word's size; microseconds per operation over OSU's latency iterations.
// Setup.Sync completes each operation as OSU's -s (an access region
// around a blocking operation for lock_all: pgas has no implicit-handle
// atomics); Setup.Win only names the window, the result landing in a
// program variable and the word lying in the segment whatever it is.
// With Setup.Validate the target checks its word at the end: the count of
// adds, or the compare-and-swap's unchanged 0.
func AtomicLatency(s Setup, name string) (*Result, error) {
	var c atomicCase
	var title string
	size := 8
	switch s.Datatype {
	case Char, Int:
	default:
		return nil, fmt.Errorf("%w: %s: datatype %s: pgas's atomics are on 32- and 64-bit integers and 64-bit floats", ErrBadSetup, name, s.Datatype.OMBName())
	}
	wide := s.Datatype != Int
	switch {
	case name == "fop_latency" && wide:
		c, title = opCase[int64]("fadd int64", pgas.AtomicAdd, true), "OSU gopgas Fetch_and_op latency Test"
	case name == "fop_latency":
		c, title = opCase[int32]("fadd int32", pgas.AtomicAdd, true), "OSU gopgas Fetch_and_op latency Test"
	case name == "cas_latency" && wide:
		c, title = cswapCase[int64]("cswap int64"), "OSU gopgas Compare_and_swap latency Test"
	case name == "cas_latency":
		c, title = cswapCase[int32]("cswap int32"), "OSU gopgas Compare_and_swap latency Test"
	case name == "acc_latency" && wide:
		c, title = opCase[int64]("add int64", pgas.AtomicAdd, false), "OSU gopgas Accumulate latency Test"
	case name == "acc_latency":
		c, title = opCase[int32]("add int32", pgas.AtomicAdd, false), "OSU gopgas Accumulate latency Test"
	default:
		return nil, fmt.Errorf("%w: atomic latency test %q: not fop_latency, cas_latency or acc_latency", ErrBadSetup, name)
	}
	if !wide {
		size = 4
	}
	kind := s.syncOf(SyncFlush)
	j := p2pJob(name, title, "us", "Latency (us)", []int{size}, 64)
	res, err := s.run(j, func(pe *pgas.PE, r *Result) error {
		off, err := pe.Alloc(8, 8)
		if err != nil {
			return err
		}
		e, err := newEpochs(pe, kind)
		if err != nil {
			return err
		}
		peer := peerOf(pe)
		hs := make([]pgas.Handle, 1)
		ops := func(how issue) ([]pgas.Handle, error) {
			// Non-blocking: one operation with its handle, waited for.
			return nil, c.run(pe, peer, off, how == issueHandles, hs)
		}
		iters, skip := s.iterations(size, true)
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := s.epochLatency(pe, r, e, peer, size, iters, skip, ops); err != nil {
			return err
		}
		s.progress(pe, 0, 1)
		if err := pe.Barrier(); err != nil {
			return err
		}
		if !s.Validate {
			return nil
		}
		bad := []float64{0}
		if pe.Rank() == peer {
			word, err := pe.Local(off, 8)
			if err != nil {
				return err
			}
			got := transport.LoadWord(word, 0, size)
			want := uint64(iters + skip)
			if name == "cas_latency" {
				want = 0
			}
			if got != want {
				bad[0] = 1
			}
		}
		if err := pgas.Allreduce(pe.World(), pgas.Sum, bad, bad); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			r.Points[0].Errors = int(bad[0])
		}
		return nil
	})
	if res != nil {
		res.WinCreation, res.Sync, res.Validated = s.Win.OMBName(), kind.OMBName(), s.Validate
		if s.Datatype == Int {
			res.Datatype = Int.OMBName()
		}
	}
	return res, err
}
