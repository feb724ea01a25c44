package gemini_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/pgas"
)

// A block-transfer channel's non-posted requests ([GNI-SRC] gemini_hw.h):
// one long get alone (1 MiB, a single transfer, in default ordering, so
// in packets rather than coarse units), which the ORB would let hold all
// of its 1024 entries, keeps at most gemini.BTEMaxGets requests
// outstanding and reaches the quiesce count from which the channel paces
// them; a put reads its data with at most gemini.BTEReadsOutstanding reads
// in flight.
func TestBTEChannelPacing(t *testing.T) {
	require.Less(t, gemini.BTEMaxGets, gemini.ORBEntries, "the channel's limit is below the ORB's")
	for _, c := range []struct {
		op       func(bench.Setup, []int) (*bench.Result, error)
		counter  string
		atMost   int
		atLeast  int
		size     int
		describe string
		order    pgas.Ordering
	}{
		{bench.GetBW, "bte_gets_max", gemini.BTEMaxGets, gemini.BTEGetQuiesce + 1, 1 << 20, "get requests outstanding", pgas.OrderDefault},
		{bench.PutBW, "bte_reads_max", gemini.BTEReadsOutstanding, 1, 4 << 20, "reads of local memory in flight", pgas.OrderRelaxed},
	} {
		s := bench.Setup{Config: gem(0, 0, c.order, nil), Nodes: 2, PPN: 1, Mechanism: bench.BTE, Window: 1, Iterations: 2, Warmup: 1}
		r, err := c.op(s, []int{c.size})
		require.NoError(t, err)
		got := r.Report.Counters[c.counter]
		t.Logf("one transfer of %d bytes: at most %d %s, %.0f MB/s", c.size, got, c.describe, r.Points[0].Value)
		assert.LessOrEqual(t, got, int64(c.atMost), c.describe)
		assert.GreaterOrEqual(t, got, int64(c.atLeast), c.describe)
	}
}

// A block-transfer channel takes the next queued transfer once it has made
// its transfer's last request, not once that transfer completes ([GEMINI-WP]
// 2.2: no completion ordering among a Gemini's block transfers without a
// fence; [GNI-SRC] gemini_hw.h: a channel counts the sequence identifiers
// associated with it). So a NIC with 4 channels has more than 4 transfers
// in flight when its PEs post more, while no more than 4 are processed at
// once (G-BTE-CONC). A channel's get pacing counts the outstanding
// requests of every transfer it processed (TestBTEChannelPacing checks the
// limit).
func TestBTEChannelFreedAtLastRequest(t *testing.T) {
	s := bench.Setup{Config: gem(0, 0, pgas.OrderRelaxed, nil), Nodes: 2, PPN: 8, Mechanism: bench.BTE, Window: 4, Iterations: 2, Warmup: 1}
	r, err := bench.GetBW(s, []int{16 << 10})
	require.NoError(t, err)
	c := r.Report.Counters
	t.Logf("8 PEs x 4 gets of 16 KiB: %d processed at once, %d in flight at once, %d gets outstanding on a channel", c["bte_max_active"], c["bte_max_in_flight"], c["bte_gets_max"])
	assert.Equal(t, int64(gemini.BTEChannels), c["bte_max_active"], "transfers processed at once")
	assert.Greater(t, c["bte_max_in_flight"], int64(gemini.BTEChannels), "transfers in flight at once")
	assert.LessOrEqual(t, c["bte_gets_max"], int64(gemini.BTEMaxGets))
}
