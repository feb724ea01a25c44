// Package caltest runs calibration rows as Go tests, for the simulated
// backends' test suites (aries and gemini calibration_*_test.go).
//
// CheckRows evaluates rows by ID in one session per test binary, each as
// a subtest, and skips a row the model is known to miss with its reason.
// Long and NotUnderRace keep the long studies out of -short runs and of
// runs under the race detector, which would make them take minutes; CI
// runs every test again without it. Everything is in caltest.go.
package caltest
