// Package study runs the ordering study: section III of
// [ORDERING] reproduced on a backend.
//
// For each network ordering mode (strict, default, relaxed) it measures
// the bidirectional multi-pair benchmark of the paper's Figure 2
// (bench.OrderingBW: every PE gets from (rank + pairs) mod ranks, one
// operation outstanding per PE):
//
//   - bandwidth against message size for FMA, block transfer (BTE) and the
//     runtime's automatic choice, 4 nodes x 24 PEs per node = 48 pairs
//     (the paper's Figure 3);
//   - bandwidth against PEs per node (1, 2, 3, 4, 6, 8, 12, 16, 24) for
//     chosen sizes (16 KiB and 64 KiB), FMA and BTE (Figures 4 and 5).
//
// Summarize derives what the paper reads off those figures: the
// relaxed/strict bandwidth ratio at each concurrency (up to 4.6 on the
// Cray XE6 at 24 PEs per node, section III.A), where strict ordering
// peaks (4 PEs per node on the XE6) and the sizes where FMA and BTE trade
// the lead (near 4 KiB on the XE6).
//
// The simulated backends are deterministic, so a few iterations measure a
// point (Iterations); the independent points run in parallel (Parallel),
// the costliest first, and the results do not depend on how many run at
// once.
//
// # Usage
//
//	cfg := study.Default()
//	cfg.Base.Conduit = "gemini"
//	res, err := study.Run(ctx, cfg)
//	...
//	res.WriteText(os.Stdout)            // tables and summary
//	paths, err := res.SavePlots(dir, "svg")
package study
