// Package simtest holds the scenarios the simulated backends' tests share:
// small pgas programs that measure one mechanism of the model (a hot
// target's gets and puts, one PE's atomics on one word), run the same way
// on gemini and aries, each backend's test comparing the figure with what
// its own parameters predict.
package simtest
