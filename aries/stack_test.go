package aries_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simtest"
)

// The PEs' goroutine stacks stay at the 2 KiB a goroutine starts with
// through a run of the full-system benchmark's traffic (every node puts to
// 16 others at once), here on 4 groups: the post's and the wait's frames
// fit in what the runtime leaves of a first stack, and a post takes its
// transaction from the machine's stock rather than the allocator's slow
// path (docs/scale.md). A PE whose stack grew would hold 4 KiB, and its
// first 2 KiB would stay with the runtime's stack pool. The stacks in use
// are read while the job runs, divided by its PEs (the test's own
// goroutines add a little). It runs in a process of its own, with the
// runtime's adaptive first stacks off: after other tests, the runtime may
// start every goroutine with 4 KiB (their average use at a collection).
func TestPEStacksStayAtStart(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector's instrumentation makes frames larger")
	}
	if os.Getenv(stackChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPEStacksStayAtStart$", "-test.v")
		cmd.Env = append(os.Environ(), stackChildEnv+"=1", "GODEBUG=adaptivestackstart=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the test's own process: %v\n%s", err, out)
		}
		t.Logf("the test's own process:\n%s", out)
		return
	}
	const groups = 4
	nodes := groups * aries.NodesPerGroup
	var perPE uint64
	tr := simtest.Traffic{Nodes: nodes, Puts: 16, Size: 64, Seed: 7,
		Options: map[string]string{"groups": fmt.Sprint(groups)},
		Kernel: func(k *sim.Kernel) {
			var events uint64
			k.Observe(func(sim.Time, sim.Actor) {
				if events++; events%20_000 == 0 {
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					perPE = max(perPE, ms.StackInuse/uint64(nodes))
				}
			})
		}}
	if _, err := tr.Run(aries.Name); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes of stack per PE at most", perPE)
	if perPE == 0 || perPE > 2560 {
		t.Errorf("%d bytes of goroutine stack per PE, want at most 2560 (2 KiB stacks)", perPE)
	}
}

// stackChildEnv marks the process TestPEStacksStayAtStart starts.
const stackChildEnv = "GOPGAS_PE_STACK_TEST"
