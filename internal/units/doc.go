// Package units is the one syntax of byte sizes used by every setting,
// flag and backend option: a non-negative integer with an optional unit.
//
// K, M, G and T are binary multiples (1K = 1024), with or without a
// trailing "B" or "iB" and in either case: 4K, 4k, 4KB, 4KiB and 4Ki are
// all 4096 bytes. This is the convention of GASNet's size settings and of
// the OSU Micro-Benchmarks' -m, where the sizes are powers of two; there is
// no decimal kilobyte. A bare number, or one with the unit "B", is bytes.
// Spaces around the number and between it and its unit are allowed.
package units
