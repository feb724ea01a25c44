// Package bench holds gopgas's microbenchmarks: OSU-style latency,
// bandwidth, message-rate, atomic and collective benchmarks, and the
// bidirectional multi-pair benchmark of the message-ordering paper
// ([ORDERING], Figure 2). Each runs a
// pgas job on any backend and returns one Point per message size; on a
// simulated backend the times are simulated, on the shared-memory one
// they are wall-clock (Result.TimeBase says which).
//
// The command bench/cmd/pgasbench prints the results in the OSU
// Micro-Benchmarks' formats; package calibration runs them under the
// conditions of the calibration sheet's rows.
package bench
