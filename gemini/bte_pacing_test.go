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
// one long get alone, which the ORB would let hold all of its 1024
// entries, keeps at most gemini.BTEMaxGets requests outstanding and
// reaches the quiesce count from which the channel paces them; a put reads
// its data with at most gemini.BTEReadsOutstanding reads in flight.
func TestBTEChannelPacing(t *testing.T) {
	require.Less(t, gemini.BTEMaxGets, gemini.ORBEntries, "the channel's limit is below the ORB's")
	for _, c := range []struct {
		op       func(bench.Setup, []int) (*bench.Result, error)
		counter  string
		atMost   int
		atLeast  int
		size     int
		describe string
	}{
		{bench.GetBW, "bte_gets_max", gemini.BTEMaxGets, gemini.BTEGetQuiesce + 1, 16 << 20, "get requests outstanding"},
		{bench.PutBW, "bte_reads_max", gemini.BTEReadsOutstanding, 1, 4 << 20, "reads of local memory in flight"},
	} {
		s := bench.Setup{Config: gem(0, 0, pgas.OrderRelaxed, nil), Nodes: 2, PPN: 1, Mechanism: bench.BTE, Window: 1, Iterations: 2, Warmup: 1}
		r, err := c.op(s, []int{c.size})
		require.NoError(t, err)
		got := r.Report.Counters[c.counter]
		t.Logf("one transfer of %d bytes: at most %d %s, %.0f MB/s", c.size, got, c.describe, r.Points[0].Value)
		assert.LessOrEqual(t, got, int64(c.atMost), c.describe)
		assert.GreaterOrEqual(t, got, int64(c.atLeast), c.describe)
	}
}
