// Package dragonflytest checks routes for the tests of the dragonfly and
// aries packages: that a path is a walk over real links of a Dragonfly
// from its source to its destination (CheckPath), that a minimal path keeps
// the whitepaper's hop limits (CheckMinimal, calibration row A-MINHOPS), and
// formats histograms of path lengths for the tests' logs (Histogram).
//
// Everything is in check.go.
package dragonflytest
