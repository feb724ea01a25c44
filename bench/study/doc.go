// Package study runs the ordering study: sections III to V of
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
// and, with relaxed ordering only:
//
//   - FMA put bandwidth against message size (8 B..256 KiB) for 1, 2 and 4
//     PEs per node on 2 nodes, OSU mbw_mr style, window 16
//     ([GEMINI-HOTI] V.A, Figure 8);
//   - gets of 8 B, 8 KiB, 256 KiB and 2 MiB against PEs per node (1, 2, 4,
//     8, 16, 24) and window (1, 2), automatic mechanism, with the local
//     buffers in the registered segment (shared) or outside it
//     (non-shared) ([ORDERING] V, Figure 9);
//   - section V's two-sided bandwidth (bench.MsgBW: Isend/Irecv with the
//     runtime's Cray MPICH protocols, relaxed data, strictly ordered
//     matching) at 8 B, 8 KiB, 256 KiB and 2 MiB against PEs per node (1,
//     2, 4, 8, 12, 16, 24) and window (1, 8, 64 up to 8 KiB; 1, 2 above),
//     with rendezvous and, at 8 KiB and 256 KiB, without, beside the
//     one-sided counterpart of every point ([ORDERING] V.E, Figure 11).
//
// Summarize derives what the paper reads off those figures: the
// relaxed/strict bandwidth ratio at each concurrency (up to 4.6 on the
// Cray XE6 at 24 PEs per node, section III.A), where strict ordering
// peaks (4 PEs per node on the XE6) and the sizes where FMA and BTE trade
// the lead (near 4 KiB on the XE6); the smallest size at which each
// PEs-per-node put curve reaches 90% of the put peak (falling with more
// PEs per node on the XE6); the worst non-shared slowdown (at most 6%) and
// the shared bandwidth at 4 PEs per node over the best (one-sided
// saturates the network with four cores); and for section V each size's
// protocol, the PEs per node each curve needs for 90% of its best (up to
// 24 two-sided, 4 one-sided on the XE6), the two-sided/one-sided ratios
// and where each two-sided curve peaks. The calibration rows G-FMA-PPN,
// G-NONSHARED, G-1S-SAT and G-MPI-* read the same figures with the same
// functions.
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
