package aries_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/pgas"
)

// A single task's FMA is driven by its core, through its write-combining
// buffers, each held until its store has crossed PCI-Express: one PE puts
// by FMA at FMAStoreBuffers x 64 bytes per crossing, far below what the
// block-transfer engine moves for it ("FMA transfers are lower latency
// but require the involvement of the CPU", [ARIES-WP]).
func TestFMABelowBTEForOneTask(t *testing.T) {
	race.SkipStudy(t)
	bytes := int64(64 + aries.PCIeOverheadBytes)
	crossing := time.Duration(bytes*1_000_000_000_000*100/(aries.PCIeBytesPerSecond*aries.PCIeEfficiencyPercent))/1000 +
		time.Duration(aries.PCIeLatency/1000)
	want := float64(aries.FMAStoreBuffers*64) / crossing.Seconds() / 1e6
	bw := func(m bench.Mechanism) float64 {
		s := bench.Setup{Config: pgas.Config{Conduit: "aries", Ordering: pgas.OrderRelaxed}, Nodes: 2, PPN: 1, Mechanism: m, Window: 4, Iterations: 2, Warmup: 1}
		r, err := bench.PutBW(s, []int{1 << 20})
		require.NoError(t, err)
		return r.Points[0].Value
	}
	fma, bte := bw(bench.FMA), bw(bench.BTE)
	assert.InEpsilon(t, want, fma, 0.03, "one core's FMA put bandwidth")
	t.Logf("FMA %.1f MB/s (want %.1f), BTE %.1f MB/s", fma, want, bte)
	assert.Less(t, fma, 0.6*bte, "FMA %.0f MB/s vs block transfer %.0f MB/s", fma, bte)
}
