// Package calibration runs the scenarios of the calibration sheet
// (docs/calibration.md: every published figure the simulated networks must
// reproduce) on the models and judges each against its published value.
//
// A Row is one line of the sheet: its ID, the published figure, its source
// (a key of docs/references.md and the section, figure or table), the
// check (within 10%, below a bound, in a range, exact) and the scenario
// that measures it: a pgas program run on the simulated backend under the
// row's conditions, or for the few figures no program can observe (a
// NIC's internal pipeline rate, packet sizes, topology tables) a
// measurement of the model's part in isolation. Nothing is scaled to
// match: a row the model misses fails, and where the miss is understood
// the row says why (Row.Miss).
//
// A Session evaluates rows, sharing the runs that several rows draw on
// (the ordering study feeds four rows) and running independent scenarios
// in parallel.
//
// Where each part lives:
//
//   - row.go: Row, Expect and the checks that judge a value; Measurement,
//     Status and Outcome.
//   - session.go: Session, which evaluates rows, runs each shared scenario
//     once and bounds how many run at once.
//   - sheet.go: the rows of every backend, and their lookup and selection
//     by ID.
//   - gemini.go, aries.go: each backend's rows as one table in the sheet's
//     order; gemini_scenarios.go, aries_scenarios.go: the scenarios that
//     measure them.
//   - scenarios.go: the scenarios both backends' rows use (ping-pongs,
//     exchanges, counter deltas, many-to-one atomics).
//   - markdown.go: the sheet as the Markdown of docs/calibration.md, which
//     this package's tests keep up to date.
//
// The subpackage caltest runs rows as the simulated backends' Go tests.
package calibration
