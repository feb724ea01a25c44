package pgas_test

// Configuration resolution through pgas.Run: defaults (the calibration sheet,
// "Runtime defaults"), environment variables, explicit Config fields, and
// the one-line errors that reject invalid values at startup.

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit/smp"
	"github.com/gopgas/gopgas/internal/sysmem"
	"github.com/gopgas/gopgas/internal/units"
	"github.com/gopgas/gopgas/pgas"
)

// cfgtEnv is a fake environment holding exactly kv.
func cfgtEnv(kv map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := kv[name]
		return v, ok
	}
}

// cfgtBaseEnv keeps jobs small: one PE, a 256 KiB segment.
var cfgtBaseEnv = map[string]string{"PGAS_PES": "1", "PGAS_SEGMENT_SIZE": "256KiB"}

// cfgtMerge returns base overlaid with over.
func cfgtMerge(base, over map[string]string) map[string]string {
	m := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// cfgtSeen is what a PE observes of its job.
type cfgtSeen struct {
	cfg      pgas.Config
	size     int
	nodes    int
	access   pgas.Mode
	ordering pgas.Ordering
	backend  string
}

// cfgtResolve runs cfg and returns what PE 0 saw, or Run's error and
// whether the program ran at all.
func cfgtResolve(t *testing.T, cfg pgas.Config) (cfgtSeen, bool, error) {
	t.Helper()
	var seen cfgtSeen
	var ran atomic.Bool
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		ran.Store(true)
		if pe.Rank() == 0 {
			seen = cfgtSeen{
				cfg: pe.Config(), size: pe.Size(), nodes: pe.Nodes(),
				access: pe.DefaultAccess(), ordering: pe.Ordering(), backend: pe.Conduit(),
			}
		}
		return nil
	})
	return seen, ran.Load(), err
}

// cfgtField is the value of the Config field named name.
func cfgtField(c pgas.Config, name string) any {
	return reflect.ValueOf(c).FieldByName(name).Interface()
}

// cfgtSetting finds the setting of env variable env.
func cfgtSetting(t *testing.T, env string) pgas.Setting {
	t.Helper()
	for _, s := range pgas.Settings() {
		if s.Env == env {
			return s
		}
	}
	t.Fatalf("no setting for %s", env)
	return pgas.Setting{}
}

// TestConfigDefaults: with an empty environment every setting takes the
// default of the calibration sheet's runtime rows (and the package's own).
func TestConfigDefaults(t *testing.T) {
	seen, ran, err := cfgtResolve(t, pgas.Config{PEs: 1, Env: cfgtEnv(nil)})
	require.NoError(t, err)
	require.True(t, ran)
	c := seen.cfg
	cases := []struct {
		field string
		want  any
		src   string
	}{
		{"NetworkDepth", 12, "R-DEPTH"},
		{"NumPD", 16384, "R-PD standard"},
		{"BounceBytes", int64(262144), "R-BOUNCE standard"},
		{"BounceRegisterCutover", int64(8192), "R-CUT-BOUNCE"},
		{"PDBounceBytes", 128, "R-CUT-FMA"},
		{"FMARDMACutover", int64(4096), "FMA/RDMA cutover"},
		{"ChunkBytes", int64(1 << 20), "R-CHUNK"},
		{"PollBurst", 10, "R-BURST completions"},
		{"SmsgBurst", 20, "R-BURST messages"},
		{"SmsgPeerBurst", 4, "R-BURST peers"},
		{"Ordering", pgas.OrderDefault, "network ordering"},
		{"Access", pgas.Relaxed, "UPC default"},
		{"Direct", pgas.On, "direct load/store"},
		{"RequireRegistration", pgas.Off, "test setting"},
		{"Conduit", "smp", "real backend"},
		{"SegmentBytes", int64(64 << 20), "segment"},
		{"StallTimeout", 10 * time.Second, "deadlock detection"},
		{"Seed", uint64(1), "simulation seed"},
		{"PEsPerNode", 0, "backend's choice"},
		{"PEs", 1, "set explicitly"},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			assert.Equal(t, tc.want, cfgtField(c, tc.field), "%s (%s)", tc.field, tc.src)
		})
	}
	assert.Equal(t, pgas.Relaxed, seen.access, "PE.DefaultAccess")
	assert.Equal(t, pgas.OrderDefault, seen.ordering, "PE.Ordering")
	assert.Equal(t, "smp", seen.backend, "PE.Conduit")
	assert.Equal(t, 1, seen.nodes)
}

// TestConfigDefaultPEs: without PEs the job has the backend's default size.
func TestConfigDefaultPEs(t *testing.T) {
	seen, _, err := cfgtResolve(t, pgas.Config{Env: cfgtEnv(map[string]string{"PGAS_SEGMENT_SIZE": "128KiB"})})
	require.NoError(t, err)
	assert.Equal(t, smp.DefaultPEs(), seen.size)
	assert.Equal(t, smp.DefaultPEs(), seen.cfg.PEs)
}

// TestConfigSettingsDefaultsMatch: the Default text of every setting is the
// value a job really gets.
func TestConfigSettingsDefaultsMatch(t *testing.T) {
	seen, _, err := cfgtResolve(t, pgas.Config{PEs: 1, Env: cfgtEnv(nil)})
	require.NoError(t, err)
	for _, s := range pgas.Settings() {
		switch s.Field {
		case "PEs", "PEsPerNode":
			continue // computed by the backend (TestConfigDefaultPEs)
		case "MsgRendezvousPut":
			assert.Zero(t, seen.cfg.MsgRendezvousPut, "the backend's choice (TestMsgRendezvousPutDefault)")
			continue
		case "Options":
			assert.Empty(t, seen.cfg.Options, "no backend options by default")
			continue
		case "MemoryLimit":
			total, ok := sysmem.Total()
			if ok {
				assert.Equal(t, total/10*9, seen.cfg.MemoryLimit, "90%% of %d", total)
			} else {
				assert.Negative(t, seen.cfg.MemoryLimit, "no limit where the system does not say")
			}
			continue
		}
		t.Run(s.Env, func(t *testing.T) {
			v := cfgtField(seen.cfg, s.Field)
			got := fmt.Sprint(v)
			switch v := v.(type) {
			case pgas.Switch:
				got = map[pgas.Switch]string{pgas.On: "on", pgas.Off: "off"}[v]
			case int64: // a size, in the one size syntax
				n, err := units.ParseBytes(s.Default)
				require.NoError(t, err, "the documented default of %s: %q", s.Env, s.Default)
				assert.Equal(t, n, v, "the documented default of %s: %q", s.Env, s.Default)
				return
			case time.Duration:
				if v < 0 {
					got = "off" // a time limit that is not set
				}
			}
			// The text may add a readable form: "262144 (256 KiB)".
			num, _, _ := strings.Cut(s.Default, " (")
			assert.Equal(t, num, got, "the documented default of %s: %q", s.Env, s.Default)
		})
	}
}

// cfgtApplied are environment settings and what they must produce. Every
// setting appears in at least one row (TestConfigEnvCoversEverySetting).
var cfgtApplied = []struct {
	name  string
	env   map[string]string
	check func(t *testing.T, s cfgtSeen)
}{
	{"segment size with MiB suffix", map[string]string{"PGAS_SEGMENT_SIZE": "2MiB"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(2<<20), s.cfg.SegmentBytes)
	}},
	{"segment size with a space and a B suffix: binary, as every size", map[string]string{"PGAS_SEGMENT_SIZE": "2 MB"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(2<<20), s.cfg.SegmentBytes)
	}},
	{"segment size of 128K is the minimum", map[string]string{"PGAS_SEGMENT_SIZE": "128K"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(pgas.MinSegmentBytes), s.cfg.SegmentBytes)
	}},
	{"FMA/RDMA cutover 2K is 2048 bytes", map[string]string{"PGAS_FMA_RDMA_CUTOVER": "2K"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(2048), s.cfg.FMARDMACutover)
	}},
	{"simulated time limit", map[string]string{"PGAS_SIM_TIME_LIMIT": "250ms"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 250*time.Millisecond, s.cfg.SimTimeLimit)
	}},
	{"simulated time limit off", map[string]string{"PGAS_SIM_TIME_LIMIT": "off"}, func(t *testing.T, s cfgtSeen) {
		assert.Negative(t, s.cfg.SimTimeLimit)
	}},
	{"memory limit", map[string]string{"PGAS_MEMORY_LIMIT": "8G"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(8<<30), s.cfg.MemoryLimit)
	}},
	{"memory limit off", map[string]string{"PGAS_MEMORY_LIMIT": "off"}, func(t *testing.T, s cfgtSeen) {
		assert.Negative(t, s.cfg.MemoryLimit)
	}},
	{"wall-clock time limit", map[string]string{"PGAS_WALL_TIME_LIMIT": "2h"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 2*time.Hour, s.cfg.WallTimeLimit)
	}},
	{"segment size minimum in bytes", map[string]string{"PGAS_SEGMENT_SIZE": fmt.Sprint(pgas.MinSegmentBytes)}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(pgas.MinSegmentBytes), s.cfg.SegmentBytes)
	}},
	{"chunk size with KiB suffix", map[string]string{"PGAS_CHUNK_SIZE": "64KiB"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(64<<10), s.cfg.ChunkBytes)
	}},
	{"network depth", map[string]string{"PGAS_NETWORKDEPTH": "8"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 8, s.cfg.NetworkDepth)
	}},
	{"two-sided messaging protocols", map[string]string{"PGAS_MSG_EAGER_SHORT": "1K", "PGAS_MSG_EAGER_BUFFER": "16K",
		"PGAS_MSG_RNDV_PUT": "1M", "PGAS_MSG_RNDV_CHUNK": "256K", "PGAS_MSG_RNDV": "off",
		"PGAS_MSG_RCACHE_ENTRIES": "8", "PGAS_MSG_RCACHE_MAX_SIZE": "1M", "PGAS_MSG_MATCHING": "sequence"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(1024), s.cfg.MsgEagerShort)
		assert.Equal(t, int64(16<<10), s.cfg.MsgEagerBuffer)
		assert.Equal(t, int64(1<<20), s.cfg.MsgRendezvousPut)
		assert.Equal(t, int64(256<<10), s.cfg.MsgChunkBytes)
		assert.Equal(t, pgas.Off, s.cfg.MsgRendezvous)
		assert.Equal(t, 8, s.cfg.MsgRcacheEntries)
		assert.Equal(t, int64(1<<20), s.cfg.MsgRcacheMaxBytes)
		assert.Equal(t, pgas.MatchSequence, s.cfg.MsgMatching)
	}},
	{"network depth with spaces", map[string]string{"PGAS_NETWORKDEPTH": " 4096 "}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 4096, s.cfg.NetworkDepth)
	}},
	{"network depth empty means unset", map[string]string{"PGAS_NETWORKDEPTH": ""}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 12, s.cfg.NetworkDepth)
	}},
	{"post descriptors at the minimum", map[string]string{"PGAS_NUM_PD": "4096"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 4096, s.cfg.NumPD)
	}},
	{"bounce pool", map[string]string{"PGAS_BOUNCE_SIZE": "128KiB"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(128<<10), s.cfg.BounceBytes)
	}},
	{"bounce cutover at its maximum", map[string]string{"PGAS_BOUNCE_REGISTER_CUTOVER": "32KiB"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(32768), s.cfg.BounceRegisterCutover)
	}},
	{"bounce pool at its minimum with the largest cutover", map[string]string{"PGAS_BOUNCE_SIZE": "64KiB", "PGAS_BOUNCE_REGISTER_CUTOVER": "32768"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(65536), s.cfg.BounceBytes)
		assert.Equal(t, int64(32768), s.cfg.BounceRegisterCutover)
	}},
	{"descriptor bounce size", map[string]string{"PGAS_PD_BOUNCE_SIZE": "64"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 64, s.cfg.PDBounceBytes)
	}},
	{"FMA/RDMA cutover", map[string]string{"PGAS_FMA_RDMA_CUTOVER": "8KiB"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, int64(8192), s.cfg.FMARDMACutover)
	}},
	{"poll bursts", map[string]string{"PGAS_POLL_BURST": "3", "PGAS_SMSG_BURST": "7", "PGAS_SMSG_PEER_BURST": "2"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 3, s.cfg.PollBurst)
		assert.Equal(t, 7, s.cfg.SmsgBurst)
		assert.Equal(t, 2, s.cfg.SmsgPeerBurst)
	}},
	{"relaxed ordering", map[string]string{"PGAS_ORDERING": "relaxed"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.OrderRelaxed, s.cfg.Ordering)
		assert.Equal(t, pgas.OrderRelaxed, s.ordering)
	}},
	{"strict ordering", map[string]string{"PGAS_ORDERING": "strict"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.OrderStrict, s.cfg.Ordering)
		assert.Equal(t, pgas.OrderStrict, s.ordering)
	}},
	{"strict access", map[string]string{"PGAS_ACCESS": "strict"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.Strict, s.cfg.Access)
		assert.Equal(t, pgas.Strict, s.access)
	}},
	{"direct off", map[string]string{"PGAS_DIRECT": "off"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.Off, s.cfg.Direct)
	}},
	{"direct 0", map[string]string{"PGAS_DIRECT": "0"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.Off, s.cfg.Direct)
	}},
	{"direct FALSE", map[string]string{"PGAS_DIRECT": "FALSE"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.Off, s.cfg.Direct)
	}},
	{"direct true", map[string]string{"PGAS_DIRECT": "true"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.On, s.cfg.Direct)
	}},
	{"require registration", map[string]string{"PGAS_REQUIRE_REGISTRATION": "on"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.On, s.cfg.RequireRegistration)
	}},
	{"require registration yes", map[string]string{"PGAS_REQUIRE_REGISTRATION": "yes"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, pgas.On, s.cfg.RequireRegistration)
	}},
	{"stall timeout", map[string]string{"PGAS_STALL_TIMEOUT": "1500ms"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 1500*time.Millisecond, s.cfg.StallTimeout)
	}},
	{"backend options", map[string]string{"PGAS_CONDUIT": "gemini", "PGAS_OPTIONS": "routing=adaptive, hazards=log"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, map[string]string{"routing": "adaptive", "hazards": "log"}, s.cfg.Options)
	}},
	{"backend option lists", map[string]string{"PGAS_CONDUIT": "aries", "PGAS_OPTIONS": "exclude=3,7-9,routing=adaptive"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, map[string]string{"exclude": "3,7-9", "routing": "adaptive"}, s.cfg.Options)
	}},
	{"seed", map[string]string{"PGAS_SEED": "42"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, uint64(42), s.cfg.Seed)
	}},
	{"seed in hex", map[string]string{"PGAS_SEED": "0x10"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, uint64(16), s.cfg.Seed)
	}},
	{"PEs", map[string]string{"PGAS_PES": "3"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 3, s.cfg.PEs)
		assert.Equal(t, 3, s.size)
		assert.Equal(t, 1, s.nodes)
	}},
	{"PEs per node", map[string]string{"PGAS_PES": "4", "PGAS_PES_PER_NODE": "2"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, 2, s.cfg.PEsPerNode)
		assert.Equal(t, 2, s.nodes)
	}},
	{"conduit", map[string]string{"PGAS_CONDUIT": "smp"}, func(t *testing.T, s cfgtSeen) {
		assert.Equal(t, "smp", s.cfg.Conduit)
		assert.Equal(t, "smp", s.backend)
	}},
}

// TestConfigEnvApplied: environment values reach the job.
func TestConfigEnvApplied(t *testing.T) {
	for _, tc := range cfgtApplied {
		t.Run(tc.name, func(t *testing.T) {
			seen, ran, err := cfgtResolve(t, pgas.Config{Env: cfgtEnv(cfgtMerge(cfgtBaseEnv, tc.env))})
			require.NoError(t, err)
			require.True(t, ran)
			tc.check(t, seen)
		})
	}
}

// TestConfigEnvCoversEverySetting: the rows of TestConfigEnvApplied set
// every variable of Settings.
func TestConfigEnvCoversEverySetting(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range cfgtApplied {
		for k := range tc.env {
			covered[k] = true
		}
	}
	for _, s := range pgas.Settings() {
		assert.True(t, covered[s.Env], "no row of cfgtApplied sets %s", s.Env)
	}
}

// TestConfigProcessEnvironment: a nil Config.Env reads the process
// environment.
func TestConfigProcessEnvironment(t *testing.T) {
	t.Setenv("PGAS_NETWORKDEPTH", "9")
	t.Setenv("PGAS_SEGMENT_SIZE", "256KiB")
	seen, _, err := cfgtResolve(t, pgas.Config{PEs: 1})
	require.NoError(t, err)
	assert.Equal(t, 9, seen.cfg.NetworkDepth)
	assert.Equal(t, int64(256<<10), seen.cfg.SegmentBytes)
}

// TestConfigExplicitWins: a field set in Config wins over the environment,
// even over an invalid environment value.
func TestConfigExplicitWins(t *testing.T) {
	cases := []struct {
		name  string
		cfg   pgas.Config
		env   map[string]string
		check func(t *testing.T, s cfgtSeen)
	}{
		{"network depth", pgas.Config{NetworkDepth: 5}, map[string]string{"PGAS_NETWORKDEPTH": "7"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, 5, s.cfg.NetworkDepth)
		}},
		{"network depth over an invalid value", pgas.Config{NetworkDepth: 5}, map[string]string{"PGAS_NETWORKDEPTH": "twelve"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, 5, s.cfg.NetworkDepth)
		}},
		{"segment size", pgas.Config{SegmentBytes: 512 << 10}, map[string]string{"PGAS_SEGMENT_SIZE": "2MiB"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, int64(512<<10), s.cfg.SegmentBytes)
		}},
		{"PEs", pgas.Config{PEs: 2}, map[string]string{"PGAS_PES": "3"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, 2, s.size)
		}},
		{"chunk size", pgas.Config{ChunkBytes: 8192}, map[string]string{"PGAS_CHUNK_SIZE": "64KiB"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, int64(8192), s.cfg.ChunkBytes)
		}},
		{"access", pgas.Config{Access: pgas.Strict}, map[string]string{"PGAS_ACCESS": "relaxed"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, pgas.Strict, s.access)
		}},
		{"ordering", pgas.Config{Ordering: pgas.OrderStrict}, map[string]string{"PGAS_ORDERING": "relaxed"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, pgas.OrderStrict, s.ordering)
		}},
		{"direct", pgas.Config{Direct: pgas.Off}, map[string]string{"PGAS_DIRECT": "on"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, pgas.Off, s.cfg.Direct)
		}},
		{"stall timeout", pgas.Config{StallTimeout: 3 * time.Second}, map[string]string{"PGAS_STALL_TIMEOUT": "never"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, 3*time.Second, s.cfg.StallTimeout)
		}},
		{"conduit over an unknown one", pgas.Config{Conduit: "smp"}, map[string]string{"PGAS_CONDUIT": "nosuch"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, "smp", s.backend)
		}},
		{"seed", pgas.Config{Seed: 7}, map[string]string{"PGAS_SEED": "9"}, func(t *testing.T, s cfgtSeen) {
			assert.Equal(t, uint64(7), s.cfg.Seed)
		}},
		{"bursts", pgas.Config{PollBurst: 1, SmsgBurst: 2, SmsgPeerBurst: 3},
			map[string]string{"PGAS_POLL_BURST": "30", "PGAS_SMSG_BURST": "30", "PGAS_SMSG_PEER_BURST": "30"}, func(t *testing.T, s cfgtSeen) {
				assert.Equal(t, [3]int{1, 2, 3}, [3]int{s.cfg.PollBurst, s.cfg.SmsgBurst, s.cfg.SmsgPeerBurst})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Env = cfgtEnv(cfgtMerge(cfgtBaseEnv, tc.env))
			seen, _, err := cfgtResolve(t, cfg)
			require.NoError(t, err)
			tc.check(t, seen)
		})
	}
}

// cfgtCheckRejected asserts that err rejected a configuration at startup in
// one line naming every want.
func cfgtCheckRejected(t *testing.T, ran bool, err error, want ...string) {
	t.Helper()
	require.Error(t, err, "the configuration must be rejected")
	assert.False(t, ran, "the program must not run")
	msg := err.Error()
	assert.NotContains(t, msg, "\n", "one line")
	for _, w := range want {
		assert.Contains(t, msg, w)
	}
}

// TestConfigInvalidEnv: every invalid environment value is rejected with a
// one-line error naming the variable, the value and the allowed range.
func TestConfigInvalidEnv(t *testing.T) {
	cases := []struct {
		env, value string
		bug        string
	}{
		{"PGAS_NETWORKDEPTH", "0", ""},
		{"PGAS_NETWORKDEPTH", "twelve", ""},
		{"PGAS_NETWORKDEPTH", "4097", ""},
		{"PGAS_NETWORKDEPTH", "-1", ""},
		{"PGAS_NETWORKDEPTH", "1e3", ""},
		{"PGAS_NUM_PD", "4095", ""},
		{"PGAS_NUM_PD", "0", ""},
		{"PGAS_BOUNCE_SIZE", "1000", ""},
		{"PGAS_BOUNCE_SIZE", "2GiB", ""},
		{"PGAS_BOUNCE_REGISTER_CUTOVER", "32769", ""},
		{"PGAS_BOUNCE_REGISTER_CUTOVER", "0", ""},
		{"PGAS_PD_BOUNCE_SIZE", "129", ""},
		{"PGAS_FMA_RDMA_CUTOVER", "0", ""},
		{"PGAS_CHUNK_SIZE", "1KiB", ""},
		{"PGAS_CHUNK_SIZE", "big", ""},
		{"PGAS_POLL_BURST", "0", ""},
		{"PGAS_SMSG_BURST", "65537", ""},
		{"PGAS_SMSG_PEER_BURST", "x", ""},
		{"PGAS_ORDERING", "sideways", ""},
		{"PGAS_ORDERING", "inherit", ""},
		{"PGAS_ORDERING", "Strict", ""},
		{"PGAS_ACCESS", "loose", ""},
		{"PGAS_DIRECT", "maybe", ""},
		{"PGAS_REQUIRE_REGISTRATION", "2", ""},
		{"PGAS_CONDUIT", "nosuch", ""},
		{"PGAS_STALL_TIMEOUT", "never", ""},
		{"PGAS_STALL_TIMEOUT", "10", ""},
		{"PGAS_STALL_TIMEOUT", "0s", ""},
		{"PGAS_STALL_TIMEOUT", "25h", ""},
		{"PGAS_STALL_TIMEOUT", "-1s", ""},
		{"PGAS_SEGMENT_SIZE", "12", ""},
		{"PGAS_SEGMENT_SIZE", "lots", ""},
		{"PGAS_SEGMENT_SIZE", "2TiB", ""},
		{"PGAS_SEGMENT_SIZE", "100EiB", ""},
		{"PGAS_SEGMENT_SIZE", "1000001", ""},
		{"PGAS_PES", "0", ""},
		{"PGAS_PES", "-2", ""},
		{"PGAS_PES", "two", ""},
		{"PGAS_PES_PER_NODE", "-1", ""},
		{"PGAS_OPTIONS", "routing", ""},
		{"PGAS_OPTIONS", "=adaptive", ""},
		{"PGAS_OPTIONS", "routing=adaptive,routing=deterministic", ""},
		{"PGAS_OPTIONS", "3,exclude=4", ""},
		{"PGAS_SEED", "-1", ""},
		{"PGAS_SEED", "18446744073709551616", ""},
	}
	for _, tc := range cases {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			s := cfgtSetting(t, tc.env)
			env := cfgtMerge(cfgtBaseEnv, map[string]string{tc.env: tc.value})
			_, ran, err := cfgtResolve(t, pgas.Config{Env: cfgtEnv(env)})
			if tc.bug != "" {
				t.Logf("got: %v", err)
				knownBug(t, tc.bug)
			}
			cfgtCheckRejected(t, ran, err, tc.env, tc.value, s.Allowed)
		})
	}
}

// TestConfigEnvZeroValues: values the Allowed text admits must be accepted
// even when they equal a field's zero value.
func TestConfigEnvZeroValues(t *testing.T) {
	cases := []struct {
		env, value string
		bug        string
		check      func(t *testing.T, s cfgtSeen)
	}{
		{"PGAS_PES_PER_NODE", "0", "",
			func(t *testing.T, s cfgtSeen) { assert.Equal(t, 0, s.cfg.PEsPerNode) }},
		{"PGAS_SEED", "0", "",
			// 0 is a seed like any other when it comes from the
			// environment (a zero Config field means "not set").
			func(t *testing.T, s cfgtSeen) { assert.Zero(t, s.cfg.Seed) }},
	}
	for _, tc := range cases {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			env := cfgtMerge(cfgtBaseEnv, map[string]string{tc.env: tc.value})
			seen, _, err := cfgtResolve(t, pgas.Config{Env: cfgtEnv(env)})
			if tc.bug != "" {
				t.Logf("got: %v", err)
				knownBug(t, tc.bug)
			}
			require.NoError(t, err)
			tc.check(t, seen)
		})
	}
}

// TestConfigInvalidFields: explicit Config fields out of range are rejected
// with a one-line error naming the field, the value and the allowed range.
func TestConfigInvalidFields(t *testing.T) {
	cases := []struct {
		name  string
		cfg   pgas.Config
		env   string // the setting, for its Allowed text
		value string // how the value is printed
	}{
		{"NetworkDepth -1", pgas.Config{NetworkDepth: -1}, "PGAS_NETWORKDEPTH", "Config.NetworkDepth=-1"},
		{"NetworkDepth 4097", pgas.Config{NetworkDepth: 4097}, "PGAS_NETWORKDEPTH", "Config.NetworkDepth=4097"},
		{"NumPD 4095", pgas.Config{NumPD: 4095}, "PGAS_NUM_PD", "Config.NumPD=4095"},
		{"BounceBytes 1000", pgas.Config{BounceBytes: 1000}, "PGAS_BOUNCE_SIZE", "Config.BounceBytes=1000"},
		{"BounceRegisterCutover 32769", pgas.Config{BounceRegisterCutover: 32769}, "PGAS_BOUNCE_REGISTER_CUTOVER", "Config.BounceRegisterCutover=32769"},
		{"PDBounceBytes 129", pgas.Config{PDBounceBytes: 129}, "PGAS_PD_BOUNCE_SIZE", "Config.PDBounceBytes=129"},
		{"FMARDMACutover -5", pgas.Config{FMARDMACutover: -5}, "PGAS_FMA_RDMA_CUTOVER", "Config.FMARDMACutover=-5"},
		{"ChunkBytes 100", pgas.Config{ChunkBytes: 100}, "PGAS_CHUNK_SIZE", "Config.ChunkBytes=100"},
		{"PollBurst -1", pgas.Config{PollBurst: -1}, "PGAS_POLL_BURST", "Config.PollBurst=-1"},
		{"SmsgBurst 1<<17", pgas.Config{SmsgBurst: 1 << 17}, "PGAS_SMSG_BURST", "Config.SmsgBurst=131072"},
		{"SmsgPeerBurst -4", pgas.Config{SmsgPeerBurst: -4}, "PGAS_SMSG_PEER_BURST", "Config.SmsgPeerBurst=-4"},
		{"SegmentBytes 12", pgas.Config{SegmentBytes: 12}, "PGAS_SEGMENT_SIZE", "Config.SegmentBytes=12"},
		{"SegmentBytes 2TiB", pgas.Config{SegmentBytes: 2 << 40}, "PGAS_SEGMENT_SIZE", "Config.SegmentBytes=2199023255552"},
		{"PEs -1", pgas.Config{PEs: -1}, "PGAS_PES", "Config.PEs=-1"},
		{"PEsPerNode -1", pgas.Config{PEsPerNode: -1}, "PGAS_PES_PER_NODE", "Config.PEsPerNode=-1"},
		{"Conduit nosuch", pgas.Config{Conduit: "nosuch"}, "PGAS_CONDUIT", `Config.Conduit="nosuch"`},
		{"Ordering 9", pgas.Config{Ordering: pgas.Ordering(9)}, "PGAS_ORDERING", "Config.Ordering=OrderingMode(9)"},
		{"Access 9", pgas.Config{Access: pgas.Mode(9)}, "PGAS_ACCESS", "Config.Access=Mode(9)"},
		{"Direct 9", pgas.Config{Direct: pgas.Switch(9)}, "PGAS_DIRECT", "Config.Direct=9"},
		{"RequireRegistration 3", pgas.Config{RequireRegistration: pgas.Switch(3)}, "PGAS_REQUIRE_REGISTRATION", "Config.RequireRegistration=3"},
		{"StallTimeout 1µs", pgas.Config{StallTimeout: time.Microsecond}, "PGAS_STALL_TIMEOUT", "Config.StallTimeout=1µs"},
		{"StallTimeout -1s", pgas.Config{StallTimeout: -time.Second}, "PGAS_STALL_TIMEOUT", "Config.StallTimeout=-1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cfgtSetting(t, tc.env)
			cfg := tc.cfg
			cfg.Env = cfgtEnv(cfgtBaseEnv)
			_, ran, err := cfgtResolve(t, cfg)
			cfgtCheckRejected(t, ran, err, tc.value, s.Allowed)
		})
	}
}

// TestConfigCrossField: settings valid one by one but not together.
func TestConfigCrossField(t *testing.T) {
	cases := []struct {
		name string
		cfg  pgas.Config
		env  map[string]string
		want []string
		// names: the setting the message must name as well.
		names string
		bug   string
	}{
		{
			name: "PEsPerNode larger than PEs", cfg: pgas.Config{PEs: 2, PEsPerNode: 4},
			want: []string{"PEsPerNode=4", "at most the number of PEs, 2"}, names: "PEsPerNode",
		},
		{
			name: "PGAS_PES_PER_NODE larger than PGAS_PES", env: map[string]string{"PGAS_PES": "2", "PGAS_PES_PER_NODE": "3"},
			want: []string{"PGAS_PES_PER_NODE=3", "at most the number of PEs, 2"}, names: "PGAS_PES_PER_NODE",
		},
		{
			name: "PEsPerNode larger than PEs (values)", cfg: pgas.Config{PEs: 2, PEsPerNode: 4},
			want: []string{"=4", "2"},
		},
		{
			// The ranges already exclude it (cutover at most 32768, pool at
			// least 65536), so the per-field check rejects it first.
			name: "BounceRegisterCutover larger than BounceBytes", cfg: pgas.Config{BounceBytes: 65536, BounceRegisterCutover: 65537},
			want: []string{"Config.BounceRegisterCutover=65537", cfgtSettingAllowed("PGAS_BOUNCE_REGISTER_CUTOVER")},
		},
		{
			name: "PGAS_BOUNCE_REGISTER_CUTOVER larger than PGAS_BOUNCE_SIZE",
			env:  map[string]string{"PGAS_BOUNCE_SIZE": "64KiB", "PGAS_BOUNCE_REGISTER_CUTOVER": "128KiB"},
			want: []string{"PGAS_BOUNCE_REGISTER_CUTOVER", "128KiB"},
		},
		{
			name: "SegmentBytes not a multiple of 8", cfg: pgas.Config{SegmentBytes: pgas.MinSegmentBytes + 4},
			want: []string{fmt.Sprint(pgas.MinSegmentBytes + 4), "multiple of 8"},
		},
		{
			name: "SegmentBytes not a multiple of 8 names the field", cfg: pgas.Config{SegmentBytes: pgas.MinSegmentBytes + 4},
			want: []string{fmt.Sprint(pgas.MinSegmentBytes + 4), "multiple of 8"}, names: "SegmentBytes",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Env = cfgtEnv(cfgtMerge(cfgtBaseEnv, tc.env))
			_, ran, err := cfgtResolve(t, cfg)
			if tc.bug != "" {
				t.Logf("got: %v", err)
				knownBug(t, tc.bug)
			}
			want := tc.want
			if tc.names != "" {
				want = append(want[:len(want):len(want)], tc.names)
			}
			cfgtCheckRejected(t, ran, err, want...)
		})
	}
}

// cfgtSettingAllowed is the Allowed text of env's setting, or "" if none.
func cfgtSettingAllowed(env string) string {
	for _, s := range pgas.Settings() {
		if s.Env == env {
			return s.Allowed
		}
	}
	return ""
}

// TestConfigSettings: Settings lists every environment variable once, with
// its field, default, allowed values and documentation, and covers every
// Config field.
func TestConfigSettings(t *testing.T) {
	settings := pgas.Settings()
	require.NotEmpty(t, settings)
	envs := map[string]int{}
	fields := map[string]int{}
	cfgType := reflect.TypeOf(pgas.Config{})
	for _, s := range settings {
		envs[s.Env]++
		fields[s.Field]++
		t.Run(s.Env, func(t *testing.T) {
			assert.True(t, strings.HasPrefix(s.Env, "PGAS_"), "variable %q", s.Env)
			assert.Equal(t, strings.ToUpper(s.Env), s.Env)
			assert.NotEmpty(t, strings.TrimSpace(s.Default), "Default")
			assert.NotEmpty(t, strings.TrimSpace(s.Allowed), "Allowed")
			assert.NotEmpty(t, strings.TrimSpace(s.Doc), "Doc")
			_, ok := cfgType.FieldByName(s.Field)
			assert.True(t, ok, "Field %q is not a field of pgas.Config", s.Field)
			for _, text := range []string{s.Default, s.Allowed, s.Doc} {
				assert.NotContains(t, text, "\n")
				assert.NotContains(t, text, "|", "a pipe would break the Markdown table")
			}
		})
	}
	for env, n := range envs {
		assert.Equal(t, 1, n, "%s is listed %d times", env, n)
	}
	for f, n := range fields {
		assert.Equal(t, 1, n, "field %s has %d settings", f, n)
	}
	for i := range cfgType.NumField() {
		f := cfgType.Field(i)
		switch f.Name {
		case "Env", "Report", "ProgramBytes":
			continue // not settings: the lookup itself, an output, and the program's own declaration of its memory
		}
		assert.Equal(t, 1, fields[f.Name], "Config.%s has no setting", f.Name)
	}
	for _, want := range []string{
		"PGAS_CONDUIT", "PGAS_PES", "PGAS_PES_PER_NODE", "PGAS_SEGMENT_SIZE", "PGAS_NETWORKDEPTH", "PGAS_NUM_PD",
		"PGAS_BOUNCE_SIZE", "PGAS_BOUNCE_REGISTER_CUTOVER", "PGAS_PD_BOUNCE_SIZE", "PGAS_FMA_RDMA_CUTOVER",
		"PGAS_CHUNK_SIZE", "PGAS_POLL_BURST", "PGAS_SMSG_BURST", "PGAS_SMSG_PEER_BURST", "PGAS_ORDERING",
		"PGAS_ACCESS", "PGAS_DIRECT", "PGAS_REQUIRE_REGISTRATION", "PGAS_STALL_TIMEOUT", "PGAS_OPTIONS", "PGAS_SEED",
	} {
		assert.Equal(t, 1, envs[want], "%s is not listed", want)
	}
}

// TestConfigSettingsTable: the Markdown table has a header, a separator and
// one row per setting, in order, each with five cells.
func TestConfigSettingsTable(t *testing.T) {
	table := pgas.SettingsTable()
	require.True(t, strings.HasSuffix(table, "\n"))
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	settings := pgas.Settings()
	require.Len(t, lines, 2+len(settings), "header, separator and one row per setting")
	assert.Equal(t, "|---|---|---|---|---|", lines[1])
	assert.Equal(t, 6, strings.Count(lines[0], "|"))
	for i, s := range settings {
		row := lines[2+i]
		t.Run(s.Env, func(t *testing.T) {
			assert.True(t, strings.HasPrefix(row, "| `"+s.Env+"` | `"+s.Field+"` |"), "row %q", row)
			assert.Equal(t, 6, strings.Count(row, "|"), "five cells: %q", row)
			cells := strings.Split(strings.Trim(row, "|"), "|")
			require.Len(t, cells, 5)
			assert.Equal(t, s.Default, strings.TrimSpace(cells[2]))
			assert.Equal(t, s.Allowed, strings.TrimSpace(cells[3]))
			assert.Equal(t, s.Doc, strings.TrimSpace(cells[4]))
		})
	}
}

// TestConfigRunNilProgram: Run refuses a nil program without starting.
func TestConfigRunNilProgram(t *testing.T) {
	err := pgas.Run(pgas.Config{PEs: 1, Env: cfgtEnv(cfgtBaseEnv)}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nil program")
}

// A bad PGAS_OPTIONS names the item that is wrong.
func TestConfigOptionsItem(t *testing.T) {
	for env, want := range map[string]string{
		"routing=adaptive,routing=deterministic": `item "routing=deterministic": option routing given twice`,
		"3,exclude=4":                            `item "3" is not key=value`,
		"a=1, =2":                                `item " =2" has no key`,
	} {
		_, err := pgas.Config{Env: cfgtEnv(map[string]string{"PGAS_OPTIONS": env})}.Resolve()
		if assert.Error(t, err, env) {
			assert.Contains(t, err.Error(), `pgas: PGAS_OPTIONS=`+strconv.Quote(env)+`: `+want, env)
		}
	}
}
