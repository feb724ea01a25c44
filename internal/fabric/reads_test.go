package fabric_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
	"github.com/gopgas/gopgas/pgas"
)

// The ring of fabric_test.go with the host-read tags an option of the
// test's own (host_read_tags, default 0: no limit).
const tagRingName = "fabric-ring-tags"

// flatRead and flatToNIC are flatHost's read latency (to the data leaving
// for the NIC) and its host-to-NIC latency and time per byte.
const (
	flatRead       = 150 * ns
	flatToNIC      = 50 * ns
	flatNICPerByte = 100 * ps
)

func openTagRing(jc conduit.JobConfig) (conduit.Job, error) {
	w := &ring{failFrom: -1}
	p := ringParams
	opts := fabric.DefaultOptions(p)
	for k, v := range jc.Options {
		if k == "host_read_tags" {
			var err error
			if p.HostReadTags, err = strconv.Atoi(v); err != nil {
				return nil, err
			}
			continue
		}
		if known, err := opts.Set(k, v); !known || err != nil {
			return nil, err
		}
	}
	return fabric.Open(fabric.Config{
		Name: tagRingName, Params: p, Sizes: ringSizes, Options: opts, PEsPerNode: 2,
		Caps:     conduit.Caps{AMOOps: conduit.NewAMOSet(conduit.AMOAdd, conduit.AMOCSwap)},
		Build:    w.build,
		NewHost:  func(int) fabric.Host { return &flatHost{} },
		Location: func(*simnet.Job, int) int { return 0 },
		Counters: func(s fabric.Stats) map[string]int64 {
			return map[string]int64{"amo_hits": s.AMOHits, "amo_misses": s.AMOMisses}
		},
	}, jc)
}

func init() {
	conduit.Register(tagRingName, conduit.Backend{Open: openTagRing, DefaultPEs: func() int { return 4 }})
}

// manyGets is the bandwidth, in GB/s, at which the PEs of nodes 1..3 of
// the ring get window blocks of size bytes each from rank 0 at once:
// everything node 0's NIC reads from its host.
func manyGets(t *testing.T, tags string, size, window int) float64 {
	t.Helper()
	return manyGetsAndPuts(t, tags, size, window, 0)
}

// manyGetsAndPuts is manyGets with node 0's two PEs also putting puts
// blocks of 16 KiB each (block transfers, whose data node 0's NIC reads
// from its host) to ranks 2 and 3: the bandwidth counts both.
func manyGetsAndPuts(t *testing.T, tags string, size, window, puts int) float64 {
	t.Helper()
	const pes, block = 8, 16 << 10
	var gbps float64
	cfg := pgas.Config{Conduit: tagRingName, PEs: pes, PEsPerNode: 2, Ordering: pgas.OrderDefault,
		Options: map[string]string{"host_read_tags": tags}}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(int64(size*window), 64)
		if err != nil {
			return err
		}
		land, err := pe.Alloc(int64(2*block*(puts+1)), 64)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		start := pe.Now()
		if pe.Node() == 0 && puts > 0 {
			src, err := pe.Local(land, block)
			if err != nil {
				return err
			}
			hs := make([]pgas.Handle, puts)
			for i := range hs {
				if hs[i], err = pe.PutNB(2+pe.Rank(), land+int64(block*(pe.Rank()*puts+i)), src); err != nil {
					return err
				}
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
		}
		if pe.Node() != 0 {
			buf, err := pe.Local(base, int64(size*window))
			if err != nil {
				return err
			}
			hs := make([]pgas.Handle, window)
			for i := range hs {
				if hs[i], err = pe.GetNB(0, base+int64(size*i), buf[size*i:size*(i+1)]); err != nil {
					return err
				}
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
		}
		end := []int64{int64(pe.Now() - start)}
		if err := pgas.Allreduce(pe.World(), pgas.Max, end, end); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			gbps = float64((pes-2)*window*size+2*puts*block) / time.Duration(end[0]).Seconds() / 1e9
		}
		return nil
	})
	require.NoError(t, err)
	return gbps
}

// A NIC reads its host's memory with at most HostReadTags reads
// outstanding, each holding its tag until its data is back at the NIC:
// many requesters' gets from one node come back at tags x 64 bytes per
// read round trip (the flat host's read latency, then the data's crossing
// to the NIC), however many wait; without the limit the same gets go
// several times faster.
func TestHostReadTagsLimitReads(t *testing.T) {
	const tags, size, window = 4, 256, 64
	roundTrip := flatRead + flatToNIC + Time(64+ringParams.HostOverheadBytes)*flatNICPerByte
	want := float64(tags*64) / (float64(roundTrip) / 1e12) / 1e9
	got := manyGets(t, strconv.Itoa(tags), size, window)
	assert.InDelta(t, 1, got/want, 0.03, "%d tags: %.3f GB/s, want %.3f GB/s (a read every %v / %d)", tags, got, want, roundTrip, tags)
	twice := manyGets(t, strconv.Itoa(2*tags), size, window)
	assert.InDelta(t, 2, twice/got, 0.06, "%d tags: %.3f GB/s, twice %.3f GB/s", 2*tags, twice, got)
	// The block-transfer engine's reads of put data take the same tags:
	// node 0 reads gets' and puts' data together at the same rate.
	both := manyGetsAndPuts(t, strconv.Itoa(tags), size, window, 3)
	assert.InDelta(t, 1, both/want, 0.05, "%d tags, gets and puts: %.3f GB/s, want %.3f GB/s", tags, both, want)
	free := manyGets(t, "0", size, window)
	assert.Greater(t, free, 3*got, "no limit: %.3f GB/s; %d tags: %.3f GB/s", free, tags, got)
	t.Logf("gets from one node: %d tags %.3f GB/s (%.3f expected), %d tags %.3f GB/s, no limit %.3f GB/s; with its puts, %d tags %.3f GB/s", tags, got, want, 2*tags, twice, free, tags, both)
}

// amoRate is the rate, in millions per second, of rounds windows of
// window non-blocking atomic adds from rank 0 to one word of rank 2 (on
// the next node), in ordering mode order.
func amoRate(t *testing.T, order pgas.Ordering, window, rounds int) (rate float64, rep pgas.Report) {
	t.Helper()
	cfg := pgas.Config{Conduit: tagRingName, PEs: 4, PEsPerNode: 2, Ordering: order, Report: &rep}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(8, 8)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() != 0 {
			return nil
		}
		// A first add brings the word into the AMO cache.
		if err := pgas.Atomic(pe, pgas.AtomicAdd, pgas.Ptr[int64](2, base), 1); err != nil {
			return err
		}
		start := pe.Now()
		hs := make([]pgas.Handle, window)
		for range rounds {
			for i := range hs {
				if hs[i], err = pgas.AtomicNB(pe, pgas.AtomicAdd, pgas.Ptr[int64](2, base), 1); err != nil {
					return err
				}
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
		}
		rate = float64(window*rounds) / (pe.Now() - start).Seconds() / 1e6
		v, err := pgas.GetValue(pe, pgas.Ptr[int64](2, base))
		if err != nil {
			return err
		}
		if want := int64(window*rounds + 1); v != want {
			t.Errorf("%v: the word is %d, want %d", order, v, want)
		}
		return nil
	})
	require.NoError(t, err)
	return rate, rep
}

// A strict AMO may not pass the posted writes before it, its
// predecessor's write-through of the word among them: one PE's strict adds
// to one cached word follow one another at the host's write latency (the
// flat host's 100 ns and the word's 16 bytes on its link, plus the unit's
// AMOHitCycles), where default and relaxed ones pipeline at the cache's
// rate and go as fast as the PE issues them.
func TestStrictAMOsWaitForEarlierWrites(t *testing.T) {
	const window, rounds = 512, 1
	strict, rep := amoRate(t, pgas.OrderStrict, window, rounds)
	def, _ := amoRate(t, pgas.OrderDefault, window, rounds)
	relaxed, _ := amoRate(t, pgas.OrderRelaxed, window, rounds)
	assert.Equal(t, int64(1), rep.Counters["amo_misses"], "every add but the first hits the AMO cache")
	period := 100*ns + Time(8+ringParams.HostOverheadBytes)*100*ps + Time(ringParams.AMOHitCycles)*ns
	want := 1 / (float64(period) / 1e12) / 1e6
	// The first add waits for nothing, and the last response's return
	// adds a round trip: the rate is a little below one add per period.
	assert.InDelta(t, 1, strict/want, 0.02, "strict: %.2f M/s, want %.2f M/s (one add per %v)", strict, want, period)
	assert.Greater(t, def, 1.5*strict, "default %.2f M/s, strict %.2f M/s", def, strict)
	assert.InDelta(t, def, relaxed, 0.01*def, "default and relaxed AMOs both pipeline")
	t.Logf("one PE's adds to one cached word: strict %.2f M/s (%.2f M/s at one per %v), default %.2f M/s, relaxed %.2f M/s", strict, want, period, def, relaxed)
}
