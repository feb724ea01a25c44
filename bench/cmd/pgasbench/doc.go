// Command pgasbench runs gopgas's benchmarks: the OSU-style
// microbenchmarks of package bench on any backend (the shared-memory one
// in wall-clock time, the simulated Cray networks in simulated time), the
// ordering study of [ORDERING] section III, and the
// calibration report of the simulated networks against the calibration sheet
// (docs/calibration.md).
//
// Usage:
//
//	pgasbench SUBCOMMAND [flags]
//	pgasbench SUBCOMMAND --help [--conduit NAME]
//	pgasbench help [SUBCOMMAND | settings]
//
// docs/pgasbench.md documents every subcommand, flag and output format.
// Every subcommand takes --cpuprofile, --memprofile and --exectrace (Go's
// profiles and execution trace of pgasbench itself); the benchmarks take
// --count N (N seeds on a simulated backend, N repeats on smp).
// Exit status: 0 on success, 1 when a run fails (or, with calibrate
// --check, when a row fails), 2 for bad flags or values, 130 when an
// interrupt stopped the command after it printed what it had measured.
package main
