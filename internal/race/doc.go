// Package race tells whether the binary was built with the race detector,
// so that long simulation studies can stay out of race-enabled test runs.
package race
