package race

import "testing"

// SkipStudy skips a simulation study on one kernel, with no goroutines of
// its own to race, when built with -race: the race detector slows it many
// times over and has nothing to check in it. CI runs it without the race
// detector, in its long-studies stage (every package importing this one).
func SkipStudy(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("a single-kernel simulation study: run without -race")
	}
}
