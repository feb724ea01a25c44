package report_test

import (
	"os"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

// A result printed in the OSU layout and in the gobench format.
func Example() {
	r := &bench.Result{
		Benchmark: "get_latency", Title: "OSU gopgas Get latency Test", Unit: "us", Column: "Latency (us)",
		Conduit: "smp", Nodes: 2, PPN: 1, Ordering: pgas.OrderDefault, Mechanism: bench.Auto,
		Points: []bench.Point{{Size: 8, Value: 0.4321}, {Size: 16, Value: 0.5}},
	}
	run := &report.Run{Result: r, Setup: report.Setup{Iterations: 1000, Warmup: 10, Seed: 1}}
	report.WriteOSU(os.Stdout, run)
	report.WriteGoBench(os.Stdout, run)
	// Output:
	// # OSU gopgas Get latency Test v7.4
	// # Window creation: symmetric segment (pgas.PE.Alloc)
	// # Synchronization: blocking operation (complete at return)
	// # Datatype: MPI_CHAR.
	// # Size          Latency (us)
	// 8                       0.43
	// 16                      0.50
	// # gopgas pgasbench v0.1, get_latency (OSU Micro-Benchmarks 7.4 output)
	// # Backend: smp (real)
	// # PEs: 2 (one process, shared memory; nominally 2 nodes x 1 PE per node)
	// # Ordering: default
	// # Mechanism: auto (FMA up to the runtime's cutover, block transfer above)
	// # Iterations: 1000, warm-up 10
	// # Time base: wall-clock time
	// pgasbench: 0.1
	// conduit: smp
	// timebase: wall-clock
	// pes: 2
	// nodes: 2
	// ppn: 1
	// ordering: default
	// mechanism: auto
	// seed: 1
	// pkg: github.com/gopgas/gopgas/bench
	// BenchmarkGetLatency/smp/size=8 1 432.10 ns/op
	// BenchmarkGetLatency/smp/size=16 1 500.00 ns/op
}
