package fabric_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
	"github.com/gopgas/gopgas/pgas"
)

// A small backend on the fabric, with nothing of Gemini's: a bidirectional
// ring of routers with two nodes each, eight virtual channels (requests on
// 0-3, responses on 4-7, one more per hop, which keeps the ring free of
// credit cycles), 16-byte flits, and a host interface whose memory has no
// parts.

const ringName = "fabric-ring"

const (
	ps = fabric.Time(1)
	ns = 1000 * ps
	us = 1000 * ns
)

var ringParams = fabric.Params{
	VCs: 8, RequestVC: 0, ResponseVC: 4, ProcessorTiles: 2, TileUnitTime: 1 * ns, InputBufferUnits: 32,
	RouterPipeline: 50 * ns, InputStage: 5 * ns, MaxPacketData: 64,
	NICClockHz: 1_000_000_000, NICPacketCycles: 4, NICMinPacketCycles: 1, NICLatencyCycles: 20, SSIDCycles: 10, RMTCycles: 2,
	BTEChannels: 2, BTEReadsOutstanding: 8, BTEBurstPackets: 2, ORBEntries: 64,
	AMOHitCycles: 4, AMOMissCycles: 10, AMOCacheEntries: 4, AMOFetchesOutstanding: 2,
	TransactionTimeout: 1000 * us, CQEntryBytes: 16, HostOverheadBytes: 8, FMAControlBytes: 8, BTEDescriptorBytes: 64,
	CoarseBytes: 4096, CoarsePackets: 4,
	FMAPost: 50 * ns, FMAPutPerPacket: 5 * ns, FMAGetPerPacket: 5 * ns, BTEPost: 500 * ns, SMSGSend: 100 * ns,
	PollCQ: 10 * ns, PollMessages: 10 * ns, PerMessage: 50 * ns, Wait: 10 * ns,
	RegisterCall: 500 * ns, RegisterPerPage: 100 * ns, RegisterHandoff: 100 * ns, PageBytes: 4096,
}

// flits is the size of a packet of a one-flit header and data bytes.
func flits(data int) int { return 1 + (data+15)/16 }

var ringSizes = fabric.Sizes{Request: flits, GetRequest: 1, DataResponse: flits, Response: 1, ErrorResponse: 1}

// ring is one job's network.
type ring struct {
	cw, ccw  []*fabric.Channel // by router: the links to the next and the previous router
	failFrom int               // a router whose links have failed, or -1
	// What the routing saw: decisions whose packet's route state was not
	// what the routing left there, and packets by the VC it chose.
	badState int
	byVC     [fabric.MaxVCs]int
	hosts    []*flatHost
}

func (w *ring) build(m *fabric.Machine, nodes int) (fabric.Topology, error) {
	n := max(2, (nodes+1)/2)
	rs := make([]*fabric.Router, n)
	for i := range rs {
		rs[i] = m.NewRouter()
	}
	for i, r := range rs {
		w.cw = append(w.cw, m.NewLink(r, rs[(i+1)%n], 2*ns, 10*ns, 2))
		w.ccw = append(w.ccw, m.NewLink(r, rs[(i+n-1)%n], 2*ns, 10*ns, 2))
	}
	if w.failFrom >= 0 {
		w.cw[w.failFrom].Fail()
		w.ccw[w.failFrom].Fail()
	}
	w.ccw[n-1].Degrade(1)
	return w, nil
}

func (w *ring) RouterOf(node int) int { return node / 2 }

func (w *ring) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	if p.Route[0] != int32(p.Hops-1) {
		w.badState++
	}
	p.Route[0]++
	p.VC = p.VC&^3 | uint8(min(p.Route[0], 3))
	w.byVC[p.VC]++
	n := len(w.cw)
	c := w.ccw[r.ID]
	if (int(p.DstRouter)-r.ID+n)%n <= n/2 {
		c = w.cw[r.ID]
	}
	if c.Failed() {
		return nil
	}
	return c
}

// flatHost is a host interface with fixed latencies and one memory.
type flatHost struct {
	down, up Time
	badLoc   int
	entries  int // writes of one completion entry's size (ringParams.CQEntryBytes)
}

type Time = fabric.Time

func (h *flatHost) ToNIC(t Time, bytes int) Time {
	h.down = max(t, h.down) + Time(bytes)*100*ps
	return h.down + 50*ns
}

func (h *flatHost) Write(t Time, n, cnt, loc int, _ conduit.OrderingMode) (taken, visible Time) {
	if loc != 0 {
		h.badLoc++
	}
	if n == ringParams.CQEntryBytes && cnt == 1 {
		h.entries++
	}
	taken = max(t, h.up)
	h.up = taken + Time(n+8*cnt)*100*ps
	return h.up, h.up + 100*ns
}

func (h *flatHost) Read(t Time, _, loc int, _ conduit.OrderingMode) (snapshot, done Time) {
	if loc != 0 {
		h.badLoc++
	}
	return t + 100*ns, t + 150*ns
}

// lastRing is the network of the last job opened, for the tests to look
// at.
var lastRing *ring

func openRing(jc conduit.JobConfig) (conduit.Job, error) {
	return openRingWith(ringName, ringParams, jc)
}

func openRingWith(name string, params fabric.Params, jc conduit.JobConfig) (conduit.Job, error) {
	w := &ring{failFrom: -1}
	opts := fabric.DefaultOptions(params)
	for k, v := range jc.Options {
		if k == "fail_router" {
			var err error
			if w.failFrom, err = strconv.Atoi(v); err != nil {
				return nil, err
			}
			continue
		}
		if known, err := opts.Set(k, v); !known || err != nil {
			return nil, fmt.Errorf("%s: option %s=%q: known %v, %v", name, k, v, known, err)
		}
	}
	lastRing = w
	j, err := fabric.Open(fabric.Config{
		Name: name, Params: params, Sizes: ringSizes, Options: opts, PEsPerNode: 2,
		Caps:  conduit.Caps{AMOOps: conduit.NewAMOSet(conduit.AMOAdd, conduit.AMOCSwap)},
		Build: w.build,
		NewHost: func(int) fabric.Host {
			h := &flatHost{}
			w.hosts = append(w.hosts, h)
			return h
		},
		Location: func(*simnet.Job, int) int { return 0 },
		Counters: func(s fabric.Stats) map[string]int64 {
			return map[string]int64{"link_flits": s.LinkUnits, "dropped": s.Dropped, "transactions": s.Transactions, "amo_misses": s.AMOMisses}
		},
	}, jc)
	if err != nil {
		return nil, err
	}
	return j, nil
}

func init() {
	conduit.Register(ringName, conduit.Backend{Open: openRing, DefaultPEs: func() int { return 4 }})
}

// exchange has every PE put a pattern of size bytes to the next PE, add
// to a counter of PE 0's, and get back what the next PE received; it
// checks the data and the counter.
func exchange(t *testing.T, cfg pgas.Config, size int) pgas.Report {
	t.Helper()
	var rep pgas.Report
	cfg.Report = &rep
	cfg.SegmentBytes = pgas.MinSegmentBytes + 4*int64(size)
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		n, me := pe.Size(), pe.Rank()
		next := (me + 1) % n
		buf, err := pe.Alloc(int64(size), 64)
		if err != nil {
			return err
		}
		ctr, err := pe.Alloc(8, 8)
		if err != nil {
			return err
		}
		src, err := pe.Alloc(int64(size), 64)
		if err != nil {
			return err
		}
		pattern := func(rank int) []byte {
			b := make([]byte, size)
			for i := 0; i+8 <= size; i += 8 {
				binary.LittleEndian.PutUint64(b[i:], uint64(rank)<<32|uint64(i))
			}
			return b
		}
		s, err := pe.Local(src, int64(size))
		if err != nil {
			return err
		}
		copy(s, pattern(me))
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := pe.Put(next, buf, s); err != nil {
			return err
		}
		if _, err := pgas.FetchAdd(pe, pgas.Ptr[uint64](0, ctr), 1); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if err := pe.Get(next, buf, s); err != nil {
			return err
		}
		if !assert.Equal(t, pattern(me), s, "PE %d got back something else", me) {
			return fmt.Errorf("PE %d: wrong data", me)
		}
		if me == 0 {
			v, err := pgas.GetValue(pe, pgas.Ptr[uint64](0, ctr))
			if err != nil {
				return err
			}
			assert.Equal(t, uint64(n), v)
		}
		return pe.Barrier()
	})
	require.NoError(t, err)
	return rep
}

// Puts, gets, AMOs and the runtime's messages reach their targets and back
// over eight virtual channels, with the routing's own state in each packet,
// packet by packet and in coarse units; the same job runs the same.
func TestRingMovesData(t *testing.T) {
	for _, order := range []pgas.Ordering{pgas.OrderStrict, pgas.OrderRelaxed} {
		for _, size := range []int{8, 200, 16 << 10} {
			t.Run(fmt.Sprintf("%v/%d", order, size), func(t *testing.T) {
				cfg := pgas.Config{Conduit: ringName, PEs: 16, PEsPerNode: 2, Ordering: order, Seed: 3,
					Options: map[string]string{"crc_error_rate": "0.01", "routing": "by-order"}}
				rep := exchange(t, cfg, size)
				w := lastRing
				assert.Zero(t, w.badState, "a packet's route state was not as the routing left it")
				for _, h := range w.hosts {
					assert.Zero(t, h.badLoc, "a location other than 0")
				}
				assert.Positive(t, w.byVC[1]+w.byVC[2], "requests on their later VCs")
				assert.Positive(t, w.byVC[5]+w.byVC[6], "responses on their later VCs")
				assert.Zero(t, w.byVC[0]+w.byVC[4], "the routing moves every packet on")
				assert.Positive(t, rep.Counters["link_flits"])
				assert.Zero(t, rep.Counters["dropped"])
				assert.Equal(t, rep, exchange(t, cfg, size), "the same job ran differently")
			})
		}
	}
}

// A router whose links have failed: its packets are dropped and the
// transaction times out. The first to cross it is the allocation's
// collective (a message between the routers, PEs 0-3 on router 0 and 4-7
// on router 1, which the ring cannot route around), ahead of the put; its
// sender's wait fails with the timeout, naming a PE on the other router.
func TestRingLostRouteTimesOut(t *testing.T) {
	err := pgas.Run(pgas.Config{Conduit: ringName, PEs: 8, PEsPerNode: 2, Options: map[string]string{"fail_router": "0"}}, func(pe *pgas.PE) error {
		off, err := pe.Alloc(64, 0)
		if err != nil || pe.Rank() != 0 {
			return err
		}
		return pe.Put(4, off, make([]byte, 64))
	})
	require.Error(t, err)
	var dl *conduit.DeadlockError
	assert.False(t, errors.As(err, &dl), "not a deadlock: %v", err)
	var pe *pgas.Error
	require.ErrorAs(t, err, &pe)
	m := regexp.MustCompile(`no response from PE (\d+) within`).FindStringSubmatch(err.Error())
	require.NotNil(t, m, "the error names the peer: %v", err)
	peer, _ := strconv.Atoi(m[1])
	assert.NotEqual(t, pe.PE/4, peer/4, "PE %d's peer %d is on the other router", pe.PE, peer)
	assert.Contains(t, err.Error(), "timeout")
	assert.Contains(t, err.Error(), "(a lost route?)")
}

func TestOptions(t *testing.T) {
	o := fabric.DefaultOptions(ringParams)
	assert.Equal(t, 4096, o.CoarseBytes)
	assert.Equal(t, 4, o.CoarsePackets)
	names := fabric.OptionNames(ringParams, nil)
	assert.Contains(t, names["coarse_packets"], "default 4")
	for name, value := range map[string]string{"routing": "deterministic", "hash_address": "true", "crc_error_rate": "0.5",
		"trace": "x.json", "coarse_bytes": "0", "coarse_packets": "2", "hazards": "log"} {
		known, err := o.Set(name, value)
		assert.True(t, known, name)
		assert.NoError(t, err, name)
		assert.Contains(t, names, name)
	}
	assert.Equal(t, fabric.Options{Routing: fabric.RouteDeterministic, HashAddress: true, CRCErrorRate: 0.5, TracePath: "x.json",
		Hazards: "log", CoarseBytes: 0, CoarsePackets: 2}, o)
	for name, value := range map[string]string{"routing": "sideways", "hash_address": "maybe", "crc_error_rate": "1",
		"coarse_bytes": "-1", "coarse_packets": "0", "hazards": "sometimes"} {
		known, err := o.Set(name, value)
		assert.True(t, known, name)
		assert.Error(t, err, name)
	}
	for _, bad := range []string{"NaN", "Inf", "-Inf", "-0.1", ""} {
		_, err := o.Set("crc_error_rate", bad)
		assert.Error(t, err, bad)
	}
	for _, bad := range []string{"2T", "-1", "x"} {
		_, err := o.Set("coarse_bytes", bad)
		assert.Error(t, err, bad)
	}
	for name, value := range map[string]string{"coarse_packets": "65537", "trace": " ", "hash_address": ""} {
		_, err := o.Set(name, value)
		assert.Error(t, err, "%s=%q", name, value)
	}
	assert.Equal(t, fabric.Options{Routing: fabric.RouteDeterministic, HashAddress: true, CRCErrorRate: 0.5, TracePath: "x.json",
		Hazards: "log", CoarseBytes: 0, CoarsePackets: 2}, o, "bad values leave the options as they were")
	known, err := o.Set(" coarse_bytes ", " 64K ")
	assert.True(t, known)
	assert.NoError(t, err)
	assert.Equal(t, 65536, o.CoarseBytes)
	known, _ = o.Set("torus", "2x2x2")
	assert.False(t, known)
	assert.Contains(t, names["crc_error_rate"], "allowed: a number in [0, 1)")
	assert.Equal(t, "by-order", fabric.RouteByOrder.String())
}

func TestBadParams(t *testing.T) {
	p := ringParams
	p.VCs = fabric.MaxVCs + 1
	_, err := fabric.New(fabric.Config{Name: ringName, Params: p, Sizes: ringSizes})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "virtual channels")
}

// A post larger than a transaction's 32-bit counts hold is refused, naming
// the PE and the size, before anything of it is made (the slice is never
// touched, nor the segments, so their pages are not made either).
func TestPostTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("maps 6 GiB of address space")
	}
	j, err := conduit.Open(ringName, conduit.JobConfig{PEs: 2, PEsPerNode: 1, SegmentBytes: math.MaxInt32 + 1, Ordering: conduit.OrderRelaxed, MailboxSlots: 1, PeerBurst: 1})
	require.NoError(t, err)
	huge := make([]byte, math.MaxInt32+1)
	err = j.Run(func(ep conduit.Endpoint) error {
		if ep.Rank() != 0 {
			return nil
		}
		return ep.Post(&conduit.PostDesc{Type: conduit.Put, Mech: conduit.FMA, Target: 1, Local: huge,
			Remote: ep.SegmentHandle(1)})
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PE 0")
	assert.Contains(t, err.Error(), "2147483648 bytes")
}
