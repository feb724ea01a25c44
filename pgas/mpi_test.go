//go:build mpi

package pgas_test

// The runtime's conduit-independent tests on the mpi backend, one PE per
// process: TestMPILaunch runs this test binary under mpiexec on 2 and 4
// processes, where TestMPISuite runs. Every process runs the same jobs in
// the same order (each subtest is a job or a fixed sequence of jobs, and
// the metamorphic programs come from the same seed), every PE checks what
// it can see itself, and a failure on one PE fails every PE's job, so
// every process reports the same outcome.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/mpi"
	"github.com/gopgas/gopgas/pgas"
)

// suiteEnv marks the processes the launcher starts; nodesEnv, when set,
// is the number of nodes the launch splits them into (MPICH's cliques).
const (
	suiteEnv = "GOPGAS_MPI_SUITE"
	nodesEnv = "GOPGAS_MPI_NODES"
)

func init() {
	leakOptions = append(leakOptions,
		goleak.IgnoreTopFunction("github.com/gopgas/gopgas/conduit/mpi.mpiThread"),
		goleak.IgnoreAnyFunction("github.com/gopgas/gopgas/conduit/mpi.mpiThread"),
		goleak.Cleanup(func(int) {
			if err := pgas.Finalize(); err != nil {
				fmt.Fprintln(os.Stderr, "pgas_test:", err)
			}
		}))
}

// mpiexec finds the launcher: MPIEXEC, or mpiexec on PATH.
func mpiexec(t *testing.T) string {
	if p := os.Getenv("MPIEXEC"); p != "" {
		return p
	}
	p, err := exec.LookPath("mpiexec")
	if err != nil {
		t.Skip("no mpiexec on PATH (set MPIEXEC)")
	}
	return p
}

// TestMPILaunch runs TestMPISuite under mpiexec -n 2 and -n 4, and its
// messaging tests alone on the other sizes they need (1, 3 and 6). The
// last launch runs the suite again on 4 processes split into two nodes:
// MPICH's cliques (MPIR_CVAR_NUM_CLIQUES) make it treat the processes of
// each half as a node of their own, so that between them MPI goes through
// its network module and the runtime finds no segment to load from or
// store to, as between the nodes of a cluster (TestMPISuite checks the
// node count under MPICH; other libraries ignore the variable).
func TestMPILaunch(t *testing.T) {
	if os.Getenv(suiteEnv) != "" {
		t.Skip("inside the launch")
	}
	launcher := mpiexec(t)
	seed := time.Now().UnixNano() % 1000000
	if s := os.Getenv("GOPGAS_MPI_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	for _, l := range []struct {
		n     int
		run   string
		nodes int
	}{{2, "^TestMPISuite$", 0}, {4, "^TestMPISuite$", 0}, {1, "^TestMPISuite$/^msg$", 0}, {3, "^TestMPISuite$/^msg$", 0},
		{6, "^TestMPISuite$/^msg$", 0}, {4, "^TestMPISuite$", 2}} {
		n := l.n
		name := fmt.Sprintf("n=%d", n)
		if l.nodes > 0 {
			name += fmt.Sprintf(",nodes=%d", l.nodes)
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"-n", strconv.Itoa(n)}
			if extra := os.Getenv("MPIEXEC_ARGS"); extra != "" {
				args = append(args, strings.Fields(extra)...)
			}
			args = append(args, os.Args[0], "-test.run", l.run, "-test.v", "-test.count=1",
				"-test.timeout=10m", fmt.Sprintf("-rapid.seed=%d", seed), "-rapid.checks=15")
			cmd := exec.Command(launcher, args...)
			cmd.Env = append(os.Environ(), suiteEnv+"=1")
			if l.nodes > 0 {
				cmd.Env = append(cmd.Env, fmt.Sprintf("MPIR_CVAR_NUM_CLIQUES=%d", l.nodes), fmt.Sprintf("%s=%d", nodesEnv, l.nodes))
			}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			text := out.String()
			passes := strings.Count(text, "--- PASS: TestMPISuite ")
			t.Logf("mpiexec -n %d (rapid seed %d): %v, %d processes passed, in %v", n, seed, err, passes, time.Since(start).Round(time.Millisecond))
			if err != nil || passes != n || strings.Contains(text, "--- FAIL") {
				t.Fatalf("%s %s: %v; %d of %d processes passed; output:\n%s", launcher, strings.Join(args, " "), err, passes, n, text)
			}
			if testing.Verbose() {
				t.Logf("output:\n%s", text)
			}
		})
	}
}

// mpiCfg is a job on the mpi backend of the launch's size.
func mpiCfg(t *testing.T) pgas.Config {
	_, size, err := mpi.World()
	if err != nil {
		t.Fatal(err)
	}
	return pgas.Config{Conduit: "mpi", PEs: size, SegmentBytes: 1 << 20, StallTimeout: 20 * time.Second}
}

// paths are the configurations every check runs on: direct load/store
// within the node, and MPI's RMA with atomics performed by the target or
// by MPI, in default and strict ordering.
func mpiPaths(t *testing.T) []struct {
	name string
	cfg  pgas.Config
} {
	base := mpiCfg(t)
	direct, network, mpiAMO, strict := base, base, base, base
	direct.Direct = pgas.On
	network.Direct = pgas.Off
	mpiAMO.Direct = pgas.Off
	mpiAMO.Options = map[string]string{"amo": "mpi"}
	strict.Direct = pgas.Off
	strict.Ordering = pgas.OrderStrict
	strict.Access = pgas.Strict
	return []struct {
		name string
		cfg  pgas.Config
	}{{"direct", direct}, {"network", network}, {"amo=mpi", mpiAMO}, {"strict", strict}}
}

func TestMPISuite(t *testing.T) {
	if os.Getenv(suiteEnv) == "" {
		t.Skip("runs under mpiexec, started by TestMPILaunch")
	}
	rank, size, err := mpi.World()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PE %d of %d; %s", rank, size, mpi.Library())
	if want := os.Getenv(nodesEnv); want != "" && strings.Contains(mpi.Library(), "MPICH") {
		t.Run("nodes", func(t *testing.T) { mpiNodes(t, want) })
	}
	t.Run("rma", mpiRMA)
	t.Run("atomics", mpiAtomics)
	t.Run("collectives", mpiCollectives)
	t.Run("am", mpiAM)
	t.Run("locks", mpiLocks)
	t.Run("metamorphic", mpiMetamorphic)
	t.Run("bad-input", mpiBadInput)
	t.Run("failure", mpiFailure)
	t.Run("deadlock", mpiDeadlock)
	t.Run("busy-peer", mpiBusyPeer)
	t.Run("msg", mpiMsg)
}

// mpiNodes: the job has the launch's number of nodes, each PE's node is
// what its peers see, and a PE reaches by load and store exactly the
// segments of its own node's PEs.
func mpiNodes(t *testing.T, want string) {
	cfg := mpiCfg(t)
	cfg.Direct = pgas.On
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		if got := strconv.Itoa(pe.Nodes()); got != want {
			return fmt.Errorf("PE %d: %s nodes, the launch made %s", pe.Rank(), got, want)
		}
		nodes := make([]int64, pe.Size())
		nodes[pe.Rank()] = int64(pe.Node())
		if err := pgas.Allreduce(pe.World(), pgas.Sum, nodes, nodes); err != nil {
			return err
		}
		for r, n := range nodes {
			if got := pe.NodeOf(r); int64(got) != n {
				return fmt.Errorf("PE %d: PE %d is on node %d, it says %d", pe.Rank(), r, got, n)
			}
		}
		// A put to a PE of this node is a store (no descriptor posted);
		// to another node's, an MPI_Put.
		buf, err := pe.Alloc(8, 8)
		if err != nil {
			return err
		}
		for r, n := range nodes {
			before := pe.Stats().Transport
			if err := pe.Put(r, buf, []byte("12345678")); err != nil {
				return err
			}
			after := pe.Stats().Transport
			posted := after.FMA+after.BTE > before.FMA+before.BTE
			if posted == (n == int64(pe.Node())) {
				return fmt.Errorf("PE %d (node %d): a put to PE %d on node %d posted a descriptor: %t", pe.Rank(), pe.Node(), r, n, posted)
			}
		}
		return pe.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mpiBusyPeer: a receive that must ask the sender where its buffer lies
// waits for as long as the sender computes, here four stall timeouts,
// and ends well: a PE that computes is busy, not stalled, so the job is
// not deadlocked.
func mpiBusyPeer(t *testing.T) {
	cfg := mpiCfg(t)
	cfg.StallTimeout = 500 * time.Millisecond
	const n = 20000 // rendezvous: the receiver reads the sender's buffer
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		switch pe.Rank() {
		case 1:
			h, err := pe.Isend(0, 9, msgPattern(n, 1))
			if err != nil {
				return err
			}
			time.Sleep(4 * cfg.StallTimeout) // computing: not in the runtime
			return h.Wait()
		case 0:
			b := make([]byte, n)
			if _, err := pe.Recv(1, 9, b); err != nil {
				return err
			}
			if !bytes.Equal(b, msgPattern(n, 1)) {
				return errors.New("PE 0: the message from PE 1 is wrong")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mpiMsg runs the conduit-independent two-sided messaging tests on the
// mpi backend, those of the launch's size (msgMPI).
func mpiMsg(t *testing.T) {
	_, size, err := mpi.World()
	if err != nil {
		t.Fatal(err)
	}
	msgMPI = size
	defer func() { msgMPI = 0 }()
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"protocols", TestMsgProtocols}, {"non-overtaking", TestMsgNonOvertaking}, {"wildcards", TestMsgWildcards},
		{"truncate", TestMsgTruncate}, {"wait-some", TestMsgWaitSome}, {"teams", TestMsgTeams},
		{"rcache", TestMsgRcache}, {"no-rendezvous", TestMsgNoRendezvous}, {"sequence", TestMsgSequence},
		{"typed", TestMsgTyped}, {"self", TestMsgSelf}, {"all-to-all", TestMsgAllToAll}, {"deadlock", TestMsgDeadlock},
	} {
		t.Run(tc.name, tc.test)
	}
}

// pattern is the byte i of what PE r writes.
func pattern(r, i int) byte { return byte(r*31 + i*7 + 1) }

// mpiRMA: every PE puts a block to its right neighbour and gets its left
// neighbour's, in sizes across the FMA/block cutover and the chunk size,
// blocking and non-blocking.
func mpiRMA(t *testing.T) {
	for _, p := range mpiPaths(t) {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg
			cfg.ChunkBytes = 64 << 10
			err := pgas.Run(cfg, func(pe *pgas.PE) error {
				me, n := pe.Rank(), pe.Size()
				right, left := (me+1)%n, (me+n-1)%n
				const max = 200 << 10
				dst, err := pe.Alloc(max, 8)
				if err != nil {
					return err
				}
				for _, size := range []int{1, 8, 100, 4096, 5000, 65536, 150000, max} {
					src := make([]byte, size)
					for i := range src {
						src[i] = pattern(me, i+size)
					}
					if err := pe.Put(right, dst, src); err != nil {
						return err
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
					mine, err := pe.Local(dst, int64(size))
					if err != nil {
						return err
					}
					for i, b := range mine {
						if want := pattern(left, i+size); b != want {
							return fmt.Errorf("size %d: byte %d put by PE %d is %#x, want %#x", size, i, left, b, want)
						}
					}
					got := make([]byte, size)
					h, err := pe.GetNB(left, dst, got)
					if err != nil {
						return err
					}
					if err := h.Wait(); err != nil {
						return err
					}
					blocking := make([]byte, size)
					if err := pe.Get(left, dst, blocking); err != nil {
						return err
					}
					for i, b := range got {
						if want := pattern((left+n-1)%n, i+size); b != want || blocking[i] != want {
							return fmt.Errorf("size %d: byte %d got from PE %d is %#x (blocking: %#x), want %#x", size, i, left, b, blocking[i], want)
						}
					}
					if err := pe.Barrier(); err != nil {
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

// mpiAtomics: every operation, 32 and 64 bits, signed and unsigned,
// fetching, from every PE on its left neighbour's words; float64 add;
// then a contended fetch-add whose fetched values must all differ, and
// compare-and-swap rounds with one winner each.
func mpiAtomics(t *testing.T) {
	for _, p := range mpiPaths(t) {
		t.Run(p.name, func(t *testing.T) {
			err := pgas.Run(p.cfg, func(pe *pgas.PE) error {
				for _, f := range []func(*pgas.PE) error{atomicsOf[int64], atomicsOf[int32], atomicsOf[uint64], atomicsOf[uint32]} {
					if err := f(pe); err != nil {
						return err
					}
				}
				me, n := pe.Rank(), pe.Size()
				f64, err := pgas.NewArray[float64](pe, 1)
				if err != nil {
					return err
				}
				ctr, err := pgas.NewArray[uint64](pe, 1)
				if err != nil {
					return err
				}
				f64.Local()[0] = 0.5
				ctr.Local()[0] = 0 // the heap's memory is reused
				if err := pe.Barrier(); err != nil {
					return err
				}
				if _, err := pgas.FetchAtomic(pe, pgas.AtomicAdd, f64.At((me+n-1)%n, 0), 0.25); err != nil {
					return err
				}
				const per = 50
				seen := map[uint64]bool{}
				for range per {
					old, err := pgas.FetchAdd(pe, ctr.At(0, 0), 1)
					if err != nil {
						return err
					}
					if seen[old] {
						return fmt.Errorf("fetch-add fetched %d twice", old)
					}
					seen[old] = true
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if got := f64.Local()[0]; got != 0.75 {
					return fmt.Errorf("PE %d: float64 add: %v, want 0.75", me, got)
				}
				if me == 0 {
					if got := ctr.Local()[0]; got != uint64(per*n) {
						return fmt.Errorf("contended counter %d, want %d", got, per*n)
					}
				}
				if err := pe.Barrier(); err != nil { // PE 0 has read the counter
					return err
				}
				wins := []int64{0}
				for round := range 5 {
					old, err := pgas.CompareSwap(pe, ctr.At(0, 0), uint64(per*n+round), uint64(per*n+round+1))
					if err != nil {
						return err
					}
					if old == uint64(per*n+round) {
						wins[0]++
					}
					if err := pe.Barrier(); err != nil {
						return err
					}
				}
				if err := pgas.Allreduce(pe.World(), pgas.Sum, wins, wins); err != nil {
					return err
				}
				if wins[0] != 5 {
					return fmt.Errorf("compare-and-swap: %d winners in 5 rounds, want 5", wins[0])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

type atomicInt interface {
	~int32 | ~int64 | ~uint32 | ~uint64
}

// atomicsOf applies every operation to the left neighbour's words of type
// T, checks the fetched values, and each PE checks its own words.
func atomicsOf[T atomicInt](pe *pgas.PE) error {
	ops := []pgas.AtomicOp{pgas.AtomicAdd, pgas.AtomicAnd, pgas.AtomicOr, pgas.AtomicXor, pgas.AtomicSwap, pgas.AtomicMin, pgas.AtomicMax}
	me, n := pe.Rank(), pe.Size()
	a, err := pgas.NewArray[T](pe, len(ops))
	if err != nil {
		return err
	}
	start := func(r, k int) T { return T(int64(r*1000+k*17) - 300) }
	operand := func(r, k int) T { return T(int64(k*13+r*5) - 40) }
	for k := range ops {
		a.Local()[k] = start(me, k)
	}
	if err := pe.Barrier(); err != nil {
		return err
	}
	target := (me + n - 1) % n
	for k, op := range ops {
		old, err := pgas.FetchAtomic(pe, op, a.At(target, k), operand(target, k))
		if err != nil {
			return err
		}
		if old != start(target, k) {
			return fmt.Errorf("%T %v on PE %d word %d fetched %v, want %v", old, op, target, k, old, start(target, k))
		}
	}
	if err := pe.Barrier(); err != nil {
		return err
	}
	for k, op := range ops {
		old, v := start(me, k), operand(me, k)
		var want T
		switch op {
		case pgas.AtomicAdd:
			want = old + v
		case pgas.AtomicAnd:
			want = old & v
		case pgas.AtomicOr:
			want = old | v
		case pgas.AtomicXor:
			want = old ^ v
		case pgas.AtomicSwap:
			want = v
		case pgas.AtomicMin:
			want = min(old, v)
		case pgas.AtomicMax:
			want = max(old, v)
		}
		if got := a.Local()[k]; got != want {
			return fmt.Errorf("PE %d word %d after %T %v: %v, want %v", me, k, got, op, got, want)
		}
	}
	return a.Free()
}

// mpiCollectives: the world's barrier and allreduces (offloaded to MPI)
// and a split team's (the runtime's own), broadcast, allgather.
func mpiCollectives(t *testing.T) {
	for _, p := range mpiPaths(t)[:2] {
		t.Run(p.name, func(t *testing.T) {
			err := pgas.Run(p.cfg, func(pe *pgas.PE) error {
				me, n := pe.Rank(), pe.Size()
				sum := []int64{int64(me + 1)}
				if err := pgas.Allreduce(pe.World(), pgas.Sum, sum, sum); err != nil {
					return err
				}
				if want := int64(n * (n + 1) / 2); sum[0] != want {
					return fmt.Errorf("sum %d, want %d", sum[0], want)
				}
				mx := []float64{float64(me) + 0.5}
				if err := pgas.Allreduce(pe.World(), pgas.Max, mx, mx); err != nil {
					return err
				}
				if mx[0] != float64(n-1)+0.5 {
					return fmt.Errorf("float max %v", mx[0])
				}
				mn := []int32{int32(-me)}
				if err := pgas.Allreduce(pe.World(), pgas.Min, mn, mn); err != nil {
					return err
				}
				if mn[0] != int32(1-n) {
					return fmt.Errorf("int32 min %d, want %d", mn[0], 1-n)
				}
				x := []uint64{1 << me}
				if err := pgas.Allreduce(pe.World(), pgas.Xor, x, x); err != nil {
					return err
				}
				if x[0] != 1<<n-1 {
					return fmt.Errorf("xor %#x", x[0])
				}
				vec := []int64{int64(me), 1, int64(-me)}
				if err := pgas.Allreduce(pe.World(), pgas.Sum, vec, vec); err != nil {
					return err
				}
				if vec[1] != int64(n) || vec[0] != -vec[2] {
					return fmt.Errorf("vector sum %v", vec)
				}
				buf := []int32{0, 0}
				if me == n-1 {
					buf = []int32{42, -7}
				}
				if err := pgas.Broadcast(pe.World(), n-1, buf); err != nil {
					return err
				}
				if buf[0] != 42 || buf[1] != -7 {
					return fmt.Errorf("broadcast %v", buf)
				}
				all := make([]int64, n)
				if err := pgas.Allgather(pe.World(), []int64{int64(me * me)}, all); err != nil {
					return err
				}
				for r, v := range all {
					if v != int64(r*r) {
						return fmt.Errorf("allgather %v", all)
					}
				}
				half, err := pe.World().Split(me%2, me)
				if err != nil {
					return err
				}
				hs := []int64{int64(me)}
				if err := pgas.Allreduce(half, pgas.Sum, hs, hs); err != nil {
					return err
				}
				want := int64(0)
				for r := me % 2; r < n; r += 2 {
					want += int64(r)
				}
				if hs[0] != want {
					return fmt.Errorf("split team of parity %d: sum %d, want %d", me%2, hs[0], want)
				}
				if err := half.Barrier(); err != nil {
					return err
				}
				for range 20 {
					if err := pe.Barrier(); err != nil {
						return err
					}
				}
				return half.Destroy()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// mpiAM: requests of every category around the ring, with replies, and a
// burst past the credits.
func mpiAM(t *testing.T) {
	for _, p := range mpiPaths(t)[:2] {
		t.Run(p.name, func(t *testing.T) {
			err := pgas.Run(p.cfg, func(pe *pgas.PE) error {
				me, n := pe.Rank(), pe.Size()
				ep := pe.AM()
				land, err := pe.Alloc(64<<10, 8)
				if err != nil {
					return err
				}
				var got, replies int
				var bad error
				pong, err := ep.Register("mpi.pong", func(m *am.Message) error { replies++; return nil })
				if err != nil {
					return err
				}
				ping, err := ep.Register("mpi.ping", func(m *am.Message) error {
					size := int(m.Args[0])
					if m.Category() == am.Medium && len(m.Payload) != size {
						bad = fmt.Errorf("medium of %d bytes arrived with %d", size, len(m.Payload))
					}
					for i, b := range m.Payload {
						if b != pattern(m.Source(), i) {
							bad = fmt.Errorf("payload byte %d from PE %d is %#x", i, m.Source(), b)
							break
						}
					}
					got++
					return m.ReplyShort(pong)
				})
				if err != nil {
					return err
				}
				// Handlers are registered by each PE for itself: nobody
				// sends before everyone has.
				if err := pe.Barrier(); err != nil {
					return err
				}
				right := (me + 1) % n
				payload := make([]byte, 20000)
				for i := range payload {
					payload[i] = pattern(me, i)
				}
				const burst = 200
				for i := range burst {
					switch i % 3 {
					case 0:
						err = ep.RequestShort(right, ping, 0)
					case 1:
						size := min(i*10, ep.MaxMedium())
						err = ep.RequestMedium(right, ping, payload[:size], int32(size))
					default:
						err = ep.RequestLong(right, ping, payload, land, int32(len(payload)))
					}
					if err != nil {
						return err
					}
				}
				if err := pe.WaitUntil("the replies", func() bool { return replies == burst && got == burst }); err != nil {
					return err
				}
				if bad != nil {
					return bad
				}
				return pe.Barrier()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// mpiLocks: a counter updated with plain gets and puts under the lock.
func mpiLocks(t *testing.T) {
	for _, p := range mpiPaths(t) {
		t.Run(p.name, func(t *testing.T) {
			err := pgas.Run(p.cfg, func(pe *pgas.PE) error {
				l, err := pgas.NewLock(pe)
				if err != nil {
					return err
				}
				c, err := pgas.NewArray[int64](pe, 1)
				if err != nil {
					return err
				}
				const per = 30
				v := []int64{0}
				for range per {
					if err := l.Lock(); err != nil {
						return err
					}
					if err := c.Get(0, 0, v); err != nil {
						return err
					}
					v[0]++
					if err := c.Put(0, 0, v); err != nil {
						return err
					}
					if err := l.Unlock(); err != nil {
						return err
					}
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				if pe.Rank() == 0 && c.Local()[0] != int64(per*pe.Size()) {
					return fmt.Errorf("counter %d under the lock, want %d", c.Local()[0], per*pe.Size())
				}
				return l.Free()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// mpiMetamorphic runs the metamorphic programs (metamorphic_test.go) with
// the launch's size; the PEs share the values their atomics fetched so
// that every process can check them.
func mpiMetamorphic(t *testing.T) {
	_, size, _ := mpi.World()
	metatMinPEs, metatMaxPEs = size, size
	metatShare = shareFetches
	defer func() { metatMinPEs, metatMaxPEs, metatShare = 2, 5, nil }()
	for _, p := range mpiPaths(t) {
		cfg := metatBase
		cfg.Conduit, cfg.PEs, cfg.Direct, cfg.Ordering, cfg.Options = "mpi", size, p.cfg.Direct, p.cfg.Ordering, p.cfg.Options
		t.Run(p.name, func(t *testing.T) {
			runs := 0
			rapid.Check(t, func(rt *rapid.T) {
				prog := (&metatGen{t: rt}).draw()
				if _, err := prog.exec(cfg); err != nil {
					rt.Fatalf("%v", err)
				}
				if err := prog.checkFetches(); err != nil {
					rt.Fatalf("%v", err)
				}
				runs++
			})
			t.Logf("%d programs", runs)
		})
	}
}

// shareFetches gives every PE the values every atomic fetched: each PE
// fills in its own operations' and an allreduce sums them.
func shareFetches(pe *pgas.PE, p *metatProg) error {
	var all []*metatOp
	for _, ph := range p.phases {
		for _, ops := range ph.ops {
			all = append(all, ops...)
		}
	}
	if len(all) == 0 {
		return nil
	}
	vals := make([]uint64, 2*len(all))
	for i, op := range all {
		if op.gotOK {
			vals[2*i], vals[2*i+1] = op.got, 1
		}
	}
	if err := pgas.Allreduce(pe.World(), pgas.Sum, vals, vals); err != nil {
		return err
	}
	for i, op := range all {
		op.got, op.gotOK = vals[2*i], vals[2*i+1] != 0
	}
	return nil
}

// mpiBadInput: settings the launch cannot run are refused, on every
// process, with a message naming them; a bad range fails the job.
func mpiBadInput(t *testing.T) {
	cfg := mpiCfg(t)
	wrong := cfg
	wrong.PEs = cfg.PEs + 1
	err := pgas.Run(wrong, func(*pgas.PE) error { return nil })
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("PEs=%d", wrong.PEs)) || !strings.Contains(err.Error(), "leave PGAS_PES unset") {
		t.Errorf("PEs=%d on %d processes: %v", wrong.PEs, cfg.PEs, err)
	}
	opt := cfg
	opt.Options = map[string]string{"amo": "sometimes"}
	if err := pgas.Run(opt, func(*pgas.PE) error { return nil }); err == nil || !strings.Contains(err.Error(), `amo="sometimes"`) {
		t.Errorf("amo=sometimes: %v", err)
	}
	for _, v := range []string{"soon", "-1ms", "11s"} {
		opt.Options = map[string]string{"settle": v}
		if err := pgas.Run(opt, func(*pgas.PE) error { return nil }); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("settle=%q", v)) {
			t.Errorf("settle=%s: %v", v, err)
		}
	}
	// The settle runs before the program: a job of 60 ms of it lasts at
	// least that long; one without it runs.
	opt.Options = map[string]string{"settle": "60ms"}
	start := time.Now()
	if err := pgas.Run(opt, func(*pgas.PE) error { return nil }); err != nil {
		t.Errorf("settle=60ms: %v", err)
	} else if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("settle=60ms: the job took %v", d)
	}
	opt.Options = map[string]string{"settle": "0"}
	if err := pgas.Run(opt, func(*pgas.PE) error { return nil }); err != nil {
		t.Errorf("settle=0: %v", err)
	}
	opt.Options = map[string]string{"topology": "torus"}
	if err := pgas.Run(opt, func(*pgas.PE) error { return nil }); err == nil || !strings.Contains(err.Error(), `"topology"`) {
		t.Errorf("unknown option: %v", err)
	}
	ppn := cfg
	ppn.PEsPerNode = 1
	if cfg.PEs > 1 {
		if err := pgas.Run(ppn, func(*pgas.PE) error { return nil }); err == nil || !strings.Contains(err.Error(), "PEsPerNode=1") {
			t.Errorf("PEsPerNode=1 on one node: %v", err)
		}
	}
	// Processes that disagree on the segment size: every one is told.
	rank, _, _ := mpi.World()
	odd := cfg
	if rank == 0 {
		odd.SegmentBytes *= 2
	}
	if err := pgas.Run(odd, func(*pgas.PE) error { return nil }); err == nil || !strings.Contains(err.Error(), "different settings") {
		t.Errorf("segment sizes that differ between processes: %v", err)
	}
	// A put outside the segment fails on the PE that made it; the others'
	// waits end with ErrJobAborted.
	err = pgas.Run(cfg, func(pe *pgas.PE) error {
		if pe.Rank() == pe.Size()-1 {
			return pe.Put(0, cfg.SegmentBytes-4, make([]byte, 8))
		}
		return pe.Barrier()
	})
	switch {
	case rank == cfg.PEs-1 && !errors.Is(err, pgas.ErrRange):
		t.Errorf("the PE that put out of range: %v, want ErrRange", err)
	case rank != cfg.PEs-1 && !errors.Is(err, conduit.ErrJobAborted):
		t.Errorf("another PE: %v, want ErrJobAborted", err)
	}
	// The job after a failed one runs.
	if err := pgas.Run(cfg, func(pe *pgas.PE) error { return pe.Barrier() }); err != nil {
		t.Errorf("the job after a failed one: %v", err)
	}
}

// mpiFailure: a PE whose program returns an error ends the job on every
// process, which reports the PE and its error.
func mpiFailure(t *testing.T) {
	cfg := mpiCfg(t)
	rank, _, _ := mpi.World()
	boom := errors.New("boom")
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		if pe.Rank() == 0 {
			return boom
		}
		return pe.WaitUntil("Godot", func() bool { return false })
	})
	if rank == 0 {
		if !errors.Is(err, boom) {
			t.Errorf("PE 0: %v, want its own error", err)
		}
	} else if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("PE %d: %v, want PE 0's boom", rank, err)
	}
}

// mpiDeadlock: every PE waits for what nobody will do; the job ends with
// a *conduit.DeadlockError naming what each PE waits for.
func mpiDeadlock(t *testing.T) {
	cfg := mpiCfg(t)
	cfg.StallTimeout = 500 * time.Millisecond
	start := time.Now()
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		return pe.WaitUntil(fmt.Sprintf("a miracle %d", pe.Rank()), func() bool { return false })
	})
	var d *conduit.DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("%v, want a DeadlockError", err)
	}
	for r := range cfg.PEs {
		if w := d.Waiting[r]; !strings.Contains(w, fmt.Sprintf("a miracle %d", r)) {
			t.Errorf("PE %d waits for %q in the report %v", r, w, d)
		}
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("detection took %v with a stall timeout of %v", took, cfg.StallTimeout)
	}
}
