package pgas

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestAdmitHoldsOnMeasuredMemory: a job whose estimate fits the budget
// waits while a running job holds more than its own estimate said, and
// runs once that job ends.
func TestAdmitHoldsOnMeasuredMemory(t *testing.T) {
	runtime.GC()
	base := memoryInUse()
	SetMemoryBudget(base + 64<<20)
	defer SetMemoryBudget(0)
	running.Lock()
	held := running.held
	running.Unlock()

	cfg := Config{Conduit: "smp", PEs: 1, SegmentBytes: MinSegmentBytes}
	ready, release := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 2)
	go func() {
		errc <- Run(cfg, func(pe *PE) error {
			// 128 MiB the job's estimate does not know of.
			big := make([]byte, 128<<20)
			for i := 0; i < len(big); i += 4096 {
				big[i] = 1
			}
			runtime.GC()
			close(ready)
			<-release
			runtime.KeepAlive(big)
			return nil
		})
	}()
	<-ready
	var started atomic.Bool
	go func() {
		errc <- Run(cfg, func(pe *PE) error {
			started.Store(true)
			return nil
		})
	}()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		running.Lock()
		waited := running.held > held
		running.Unlock()
		if waited {
			break
		}
		if time.Now().After(end) || started.Load() {
			close(release)
			t.Fatalf("the second job was not held (started: %v)", started.Load())
		}
	}
	if started.Load() {
		t.Error("the second job started while the first held the budget")
	}
	close(release)
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if !started.Load() {
		t.Error("the second job did not run after the first ended")
	}
}

// TestAdmitByEstimate: jobs whose estimates together exceed the budget run
// one at a time, and one whose estimate alone exceeds it still runs.
func TestAdmitByEstimate(t *testing.T) {
	cfg := Config{Conduit: "smp", PEs: 1, SegmentBytes: MinSegmentBytes, ProgramBytes: 32 << 20}
	plan, err := cfg.Plan()
	if err != nil {
		t.Fatal(err)
	}
	// Room for one job's estimate, not two.
	SetMemoryBudget(plan.TotalBytes * 3 / 2)
	defer SetMemoryBudget(0)
	var now, most atomic.Int32
	errc := make(chan error, 4)
	for range 4 {
		go func() {
			errc <- Run(cfg, func(pe *PE) error {
				n := now.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(20 * time.Millisecond)
				now.Add(-1)
				return nil
			})
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if m := most.Load(); m != 1 {
		t.Errorf("%d jobs ran at once; the budget holds one", m)
	}
	// Alone over the budget: runs.
	SetMemoryBudget(plan.TotalBytes / 2)
	if err := Run(cfg, func(pe *PE) error { return nil }); err != nil {
		t.Fatal(err)
	}
}
