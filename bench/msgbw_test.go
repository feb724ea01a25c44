package bench_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// The two-sided Figure 2 kernel runs on the shared-memory and simulated
// backends, records each size's protocol, follows PGAS_MSG_RNDV, and
// refuses an odd number of PEs.
func TestOrderingMsgBW(t *testing.T) {
	for _, cd := range []string{"smp", "gemini"} {
		for _, rndv := range []pgas.Switch{pgas.On, pgas.Off} {
			cfg := pgas.Config{Conduit: cd, Ordering: pgas.OrderRelaxed, MsgRendezvous: rndv}
			r, err := bench.OrderingMsgBW(bench.Setup{Config: cfg, Nodes: 2, PPN: 2, Window: 2, Iterations: 1, Warmup: 1}, []int{8, 16 << 10, 512 << 10})
			require.NoError(t, err, cd)
			require.Len(t, r.Points, 3)
			want := []string{"eager-short", "rendezvous-get", "rendezvous-put"}
			if cd == "smp" { // shared memory: no put rendezvous by default
				want[2] = "rendezvous-get"
			}
			if rndv == pgas.Off {
				want = []string{"eager-short", "eager-buffered", "eager-buffered"}
			}
			for i, p := range r.Points {
				assert.Greater(t, p.Value, 0.0, "%s %d B", cd, p.Size)
				assert.Greater(t, p.Rate, 0.0, "%s %d B", cd, p.Size)
				assert.Equal(t, want[i], p.Protocol, "%s %d B, rendezvous %v", cd, p.Size, rndv)
			}
			assert.Equal(t, "msg_bw", r.Benchmark)
		}
	}
	_, err := bench.OrderingMsgBW(bench.Setup{Config: pgas.Config{Conduit: "smp"}, Nodes: 1, PPN: 3, Iterations: 1}, []int{8})
	require.ErrorIs(t, err, bench.ErrBadSetup)
	assert.Contains(t, err.Error(), "odd")
}
