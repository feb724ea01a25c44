package pgas_test

import (
	"errors"
	"os"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Helpers the tests of several files share.

// pathConfig is a job configuration named after the transport path its
// transfers take.
type pathConfig struct {
	name string
	cfg  pgas.Config
}

// pathConfigs returns base in the three configurations of the transport:
// direct load/store ("direct"), the post-descriptor path ("network"), and
// the post-descriptor path with registered local memory demanded
// ("registration"), so that the bounce and registration paths run.
func pathConfigs(base pgas.Config) []pathConfig {
	direct, network, reg := base, base, base
	direct.Direct = pgas.On
	direct.RequireRegistration = pgas.Off
	network.Direct = pgas.Off
	network.RequireRegistration = pgas.Off
	reg.Direct = pgas.Off
	reg.RequireRegistration = pgas.On
	return []pathConfig{{"direct", direct}, {"network", network}, {"registration", reg}}
}

// eachPath runs prog as a job in every configuration of pathConfigs, one
// subtest each.
func eachPath(t *testing.T, base pgas.Config, prog func(pe *pgas.PE) error) {
	t.Helper()
	for _, c := range pathConfigs(base) {
		t.Run(c.name, func(t *testing.T) {
			if err := pgas.Run(c.cfg, prog); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// pathSetup is a configuration of a job of any size, named after the
// transport path its transfers take.
type pathSetup struct {
	name string
	cfg  func(pes int) pgas.Config
}

// pathSetups: direct load/store, everything through Post, and Post with
// registered local memory demanded (where even the barrier's epoch buffer
// bounces), on segments of the smallest size.
var pathSetups = []pathSetup{
	{"direct", func(n int) pgas.Config {
		return pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes, Direct: pgas.On}
	}},
	{"post", func(n int) pgas.Config {
		return pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes, Direct: pgas.Off}
	}},
	{"post+reg", func(n int) pgas.Config {
		return pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes, Direct: pgas.Off, RequireRegistration: pgas.On}
	}},
}

// testLoop polls h with Test until it completes, and fails if it never
// does.
func testLoop(h pgas.Handle) error {
	for i := 0; ; i++ {
		ok, err := h.Test()
		if err != nil || ok {
			return err
		}
		if i > 1e7 {
			return errors.New("Test never reported completion")
		}
	}
}

// cutBuffers cuts buf into consecutive pieces of the given lengths.
func cutBuffers(buf []byte, lens []int) [][]byte {
	out := make([][]byte, len(lens))
	o := 0
	for i, n := range lens {
		out[i] = buf[o : o+n : o+n]
		o += n
	}
	return out
}

// knownBug skips a test of a known bug, unless GOPGAS_RUN_KNOWN_BUGS is
// set (to check a fix).
func knownBug(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("GOPGAS_RUN_KNOWN_BUGS") == "" {
		t.Skip("BUG: " + what)
	}
	t.Log("known bug, run anyway: " + what)
}
