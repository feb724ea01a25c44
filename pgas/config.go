package pgas

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/conduit/mpi"
	"github.com/gopgas/gopgas/internal/units"
)

// Ordering is the network ordering mode (see conduit.OrderingMode).
type Ordering = conduit.OrderingMode

// The network ordering modes of [ORDERING]
// section II.
const (
	OrderStrict  = conduit.OrderStrict
	OrderDefault = conduit.OrderDefault
	OrderRelaxed = conduit.OrderRelaxed
)

// Switch is an on/off setting whose zero value means "not set".
type Switch uint8

const (
	Unset Switch = iota
	On
	Off
)

// Config configures a job. A zero field takes its value from the
// environment variable of the same setting (see Settings), or else from the
// default; a set field wins over the environment. Every value is checked
// when the job starts.
type Config struct {
	// Conduit names the backend: "smp" (shared memory), "mpi" (one PE per
	// process of an MPI launch; the default when an MPI launcher started
	// the process), or a simulated network. PGAS_CONDUIT.
	Conduit string
	// PEs is the number of processing elements. PGAS_PES; the default is
	// the backend's (on smp, the number of physical cores; on mpi, the
	// number of processes the launcher started, which a set value must
	// equal).
	PEs int
	// PEsPerNode is how many consecutive ranks share a node; 0 lets the
	// backend choose. PGAS_PES_PER_NODE.
	PEsPerNode int
	// SegmentBytes is the size of each PE's segment. PGAS_SEGMENT_SIZE.
	SegmentBytes int64
	// NetworkDepth is the number of AM credits per peer (R-DEPTH).
	// PGAS_NETWORKDEPTH.
	NetworkDepth int
	// NumPD is the number of post descriptors (R-PD). PGAS_NUM_PD.
	NumPD int
	// BounceBytes is the bounce-buffer pool size (R-BOUNCE).
	// PGAS_BOUNCE_SIZE.
	BounceBytes int64
	// BounceRegisterCutover is the bounce-buffer size: larger unregistered
	// transfers register their buffer instead (R-CUT-BOUNCE).
	// PGAS_BOUNCE_REGISTER_CUTOVER.
	BounceRegisterCutover int64
	// PDBounceBytes is the size of each post descriptor's own bounce
	// buffer (R-CUT-FMA). PGAS_PD_BOUNCE_SIZE.
	PDBounceBytes int
	// FMARDMACutover is the largest transfer sent by FMA; larger ones use
	// block transfers. PGAS_FMA_RDMA_CUTOVER.
	FMARDMACutover int64
	// ChunkBytes is the largest piece a transfer is split into (R-CHUNK).
	// PGAS_CHUNK_SIZE.
	ChunkBytes int64
	// PollBurst, SmsgBurst and SmsgPeerBurst bound the completions,
	// messages and peers one poll takes (R-BURST). PGAS_POLL_BURST,
	// PGAS_SMSG_BURST, PGAS_SMSG_PEER_BURST.
	PollBurst, SmsgBurst, SmsgPeerBurst int
	// Ordering is the network ordering mode. PGAS_ORDERING.
	Ordering Ordering
	// Access is every PE's default access mode, Relaxed or Strict.
	// PGAS_ACCESS.
	Access Mode
	// Direct lets the runtime load and store directly to peers' segments
	// when the backend maps them. PGAS_DIRECT.
	Direct Switch
	// RequireRegistration makes a backend that does not need registered
	// local memory demand it, so that the bounce and registration paths run
	// (a test setting). PGAS_REQUIRE_REGISTRATION.
	RequireRegistration Switch
	// StallTimeout is how long the real backend lets every PE wait without
	// progress before reporting a deadlock. PGAS_STALL_TIMEOUT.
	StallTimeout time.Duration
	// SimTimeLimit ends a job on a simulated backend with a
	// *conduit.LimitError once its virtual clock passes it (a runaway
	// program that polls forever advances virtual time without bound); a
	// negative value means no limit. PGAS_SIM_TIME_LIMIT.
	SimTimeLimit time.Duration
	// WallTimeLimit ends a job on any backend with a *conduit.LimitError
	// once it has run this long by the wall clock; a negative value means
	// no limit (the default). PGAS_WALL_TIME_LIMIT. Every PE's blocking
	// call then fails with that error. A PE that is computing outside the
	// runtime cannot be interrupted (Go cannot stop a goroutine): it learns
	// of the end at its next runtime call, and Run returns once it has.
	WallTimeLimit time.Duration
	// MemoryLimit is the most memory a job may be estimated to need
	// (Config.Plan): Run refuses a larger job before starting it, with one
	// line naming the estimate and the limit. A negative value means no
	// limit. PGAS_MEMORY_LIMIT; the default is 90% of the memory the
	// process may use (the machine's, or its control group's limit).
	MemoryLimit int64
	// ProgramBytes is the memory each PE's program will touch beyond what
	// the runtime holds: the pages of its segment's heap it uses and its
	// own buffers. The plan counts it (Plan.PerPEBytes), so that the
	// memory limit and the process's memory budget see it. 0: the program
	// holds little.
	ProgramBytes int64
	// Seed seeds every random choice of a simulated backend. PGAS_SEED.
	Seed uint64
	// MsgEagerShort: two-sided messages below it go eager in one mailbox
	// message (R-MPI-E0); it is capped at the largest Medium payload.
	// PGAS_MSG_EAGER_SHORT.
	MsgEagerShort int64
	// MsgEagerBuffer: messages below it (and at or above MsgEagerShort) go
	// eager through the runtime's pre-registered internal buffers, read by
	// FMA (R-MPI-E1); it is also the size of a slot of those buffers.
	// PGAS_MSG_EAGER_BUFFER.
	MsgEagerBuffer int64
	// MsgRendezvousPut: messages from MsgEagerBuffer up to it use the
	// receiver's get rendezvous (R-MPI-R0), those at or above it the
	// sender's put rendezvous (R-MPI-R1). 0 is the backend's choice:
	// DefaultRendezvousPut on a network, none on a real backend whose job
	// is on one node or maps every peer's segment (smp): there the
	// receiver reads every large message in one copy, and a put rendezvous
	// would only add hand-overs between the PEs. PGAS_MSG_RNDV_PUT.
	MsgRendezvousPut int64
	// MsgChunkBytes is the chunk the put rendezvous registers and puts at a
	// time (R-MPI-R1). PGAS_MSG_RNDV_CHUNK.
	MsgChunkBytes int64
	// MsgRendezvous off sends every message at or above MsgEagerShort
	// through the internal buffers, in pieces ([ORDERING] Figure 11
	// right). PGAS_MSG_RNDV.
	MsgRendezvous Switch
	// MsgRcacheEntries and MsgRcacheMaxBytes are the registration cache's
	// two controls: how many registrations it keeps, and the largest it
	// keeps (R-MPI-RCACHE). PGAS_MSG_RCACHE_ENTRIES,
	// PGAS_MSG_RCACHE_MAX_SIZE.
	MsgRcacheEntries  int
	MsgRcacheMaxBytes int64
	// MsgMatching is how matching messages keep their order: strict
	// mailboxes (Cray MPI) or sequence numbers (Open MPI).
	// PGAS_MSG_MATCHING.
	MsgMatching Matching
	// Options are backend-specific settings, each value whole (commas
	// included); the backend checks them. PGAS_OPTIONS, in the syntax of
	// conduit.ParseOptions; set, the field replaces the variable.
	Options map[string]string
	// Env looks up environment variables; nil means the process
	// environment.
	Env func(name string) (string, bool)
	// Report, when not nil, receives the backend's report of the job once
	// it has ended (simulated end time, events, model counters); a backend
	// with nothing to report leaves it zero.
	Report *Report
}

// Report is a backend's report of a finished job.
type Report = conduit.Report

// Limits of the settings.
const (
	// ReservedBytes is the part of every segment the runtime keeps for
	// itself (barrier flags and the like), ahead of the symmetric heap.
	ReservedBytes = 64 << 10
	// MinSegmentBytes is the smallest segment: the reserved part plus 64 KiB.
	MinSegmentBytes     = ReservedBytes + 64<<10
	maxSegmentBytes     = 1 << 40
	maxDepth            = 4096
	maxBounceCutover    = 32768
	maxPDBounce         = 128
	defaultSegmentBytes = 64 << 20
)

// Setting describes one configuration setting.
type Setting struct {
	Env     string // environment variable
	Field   string // Config field
	Default string // default value, as text
	Allowed string // allowed values, as text
	Doc     string // what it does
	// envOnly: a field set to its zero value cannot be told from unset.
	isSet func(c *Config) bool
	parse func(c *Config, s string) error // set the field from text
	check func(c *Config) error           // validate the field
	def   func(c *Config)                 // set the default
	// format writes the field as text that parse reads back the same.
	format func(c *Config) string
	// explain: the parse error says which part of the value is wrong,
	// and the message gives it before the allowed values.
	explain bool
}

// Text writes the setting's value in c as its environment variable would
// give it: parsing the text back sets the same value.
func (s Setting) Text(c Config) string { return s.format(&c) }

// Settings lists every setting, in the order of the README's table.
func Settings() []Setting { return settings }

var settings = []Setting{
	conduitSetting(),
	intSetting("PGAS_PES", "PEs", "physical cores (smp); processes (mpi)", 1, 1<<20, "number of PEs",
		func(c *Config) *int { return &c.PEs }, nil),
	intSetting("PGAS_PES_PER_NODE", "PEsPerNode", "backend's choice", 0, 1<<20, "consecutive ranks per node (0: backend's choice)",
		func(c *Config) *int { return &c.PEsPerNode }, nil),
	bytesSetting("PGAS_SEGMENT_SIZE", "SegmentBytes", defaultSegmentBytes, MinSegmentBytes, maxSegmentBytes, "bytes of each PE's segment (multiple of 8)",
		func(c *Config) *int64 { return &c.SegmentBytes }),
	intSetting("PGAS_NETWORKDEPTH", "NetworkDepth", "12", 1, maxDepth, "AM credits per peer (R-DEPTH)",
		func(c *Config) *int { return &c.NetworkDepth }, func(c *Config) { c.NetworkDepth = 12 }),
	intSetting("PGAS_NUM_PD", "NumPD", "16384", 4096, 1<<24, "post descriptors (R-PD)",
		func(c *Config) *int { return &c.NumPD }, func(c *Config) { c.NumPD = 16384 }),
	bytesSetting("PGAS_BOUNCE_SIZE", "BounceBytes", 262144, 65536, 1<<30, "bounce-buffer pool bytes (R-BOUNCE)",
		func(c *Config) *int64 { return &c.BounceBytes }),
	bytesSetting("PGAS_BOUNCE_REGISTER_CUTOVER", "BounceRegisterCutover", 8192, 1, maxBounceCutover, "bounce buffer size; larger unregistered transfers register (R-CUT-BOUNCE)",
		func(c *Config) *int64 { return &c.BounceRegisterCutover }),
	intSetting("PGAS_PD_BOUNCE_SIZE", "PDBounceBytes", "128", 1, maxPDBounce, "bytes of each descriptor's own bounce buffer (R-CUT-FMA)",
		func(c *Config) *int { return &c.PDBounceBytes }, func(c *Config) { c.PDBounceBytes = 128 }),
	bytesSetting("PGAS_FMA_RDMA_CUTOVER", "FMARDMACutover", 4096, 1, 1<<30, "largest transfer sent by FMA; larger use block transfer",
		func(c *Config) *int64 { return &c.FMARDMACutover }),
	bytesSetting("PGAS_CHUNK_SIZE", "ChunkBytes", 1<<20, 4096, 1<<40, "largest piece of a transfer (R-CHUNK)",
		func(c *Config) *int64 { return &c.ChunkBytes }),
	intSetting("PGAS_POLL_BURST", "PollBurst", "10", 1, 1<<16, "completions taken per poll (R-BURST)",
		func(c *Config) *int { return &c.PollBurst }, func(c *Config) { c.PollBurst = 10 }),
	intSetting("PGAS_SMSG_BURST", "SmsgBurst", "20", 1, 1<<16, "messages taken per poll (R-BURST)",
		func(c *Config) *int { return &c.SmsgBurst }, func(c *Config) { c.SmsgBurst = 20 }),
	intSetting("PGAS_SMSG_PEER_BURST", "SmsgPeerBurst", "4", 1, 1<<16, "peers served per poll (R-BURST)",
		func(c *Config) *int { return &c.SmsgPeerBurst }, func(c *Config) { c.SmsgPeerBurst = 4 }),
	{
		Env: "PGAS_ORDERING", Field: "Ordering", Default: "default", Allowed: "strict, default, relaxed",
		Doc:   "network ordering mode",
		isSet: func(c *Config) bool { return c.Ordering != conduit.OrderInherit },
		parse: func(c *Config, s string) (err error) { c.Ordering, err = conduit.ParseOrdering(s); return },
		check: func(c *Config) error {
			if c.Ordering > OrderRelaxed {
				return fmt.Errorf("%v", c.Ordering)
			}
			return nil
		},
		def:    func(c *Config) { c.Ordering = OrderDefault },
		format: func(c *Config) string { return c.Ordering.String() },
	},
	{
		Env: "PGAS_ACCESS", Field: "Access", Default: "relaxed", Allowed: "strict, relaxed",
		Doc:   "default access mode of every PE",
		isSet: func(c *Config) bool { return c.Access != 0 },
		parse: func(c *Config, s string) (err error) { c.Access, err = parseMode(s); return },
		check: func(c *Config) error {
			if c.Access != Relaxed && c.Access != Strict {
				return fmt.Errorf("%v", c.Access)
			}
			return nil
		},
		def:    func(c *Config) { c.Access = Relaxed },
		format: func(c *Config) string { return c.Access.String() },
	},
	switchSetting("PGAS_DIRECT", "Direct", On, "load/store to peers' segments the backend maps",
		func(c *Config) *Switch { return &c.Direct }),
	switchSetting("PGAS_REQUIRE_REGISTRATION", "RequireRegistration", Off, "demand registered local memory on every backend (testing)",
		func(c *Config) *Switch { return &c.RequireRegistration }),
	{
		Env: "PGAS_STALL_TIMEOUT", Field: "StallTimeout", Default: "10s", Allowed: "a duration from 1ms to 24h",
		Doc:   "real backend: how long every PE may wait without progress before a deadlock is reported",
		isSet: func(c *Config) bool { return c.StallTimeout != 0 },
		parse: func(c *Config, s string) (err error) { c.StallTimeout, err = time.ParseDuration(s); return },
		check: func(c *Config) error {
			if c.StallTimeout < time.Millisecond || c.StallTimeout > 24*time.Hour {
				return fmt.Errorf("%v", c.StallTimeout)
			}
			return nil
		},
		def:    func(c *Config) { c.StallTimeout = 10 * time.Second },
		format: func(c *Config) string { return c.StallTimeout.String() },
	},
	limitSetting("PGAS_SIM_TIME_LIMIT", "SimTimeLimit", DefaultSimTimeLimit,
		"simulated backends: end the job with an error naming what each PE was doing once virtual time passes this",
		func(c *Config) *time.Duration { return &c.SimTimeLimit }),
	limitSetting("PGAS_WALL_TIME_LIMIT", "WallTimeLimit", 0,
		"end the job with an error naming what each PE was doing once it has run this long by the wall clock",
		func(c *Config) *time.Duration { return &c.WallTimeLimit }),
	{
		Env: "PGAS_MEMORY_LIMIT", Field: "MemoryLimit", Default: "90% of physical memory",
		Allowed: "bytes in [16MiB, 1024TiB] (K, M, G, T binary), or off", Doc: "refuse a job whose estimated memory exceeds this, before it starts",
		isSet: func(c *Config) bool { return c.MemoryLimit != 0 },
		parse: func(c *Config, s string) error {
			if t := strings.ToLower(strings.TrimSpace(s)); t == "off" || t == "none" {
				c.MemoryLimit = -1
				return nil
			}
			v, err := units.ParseBytes(s)
			c.MemoryLimit = v
			return err
		},
		check: func(c *Config) error {
			if v := c.MemoryLimit; v >= 0 && (v < 16<<20 || v > 1<<50) {
				return fmt.Errorf("%d", v)
			}
			return nil
		},
		def: func(c *Config) { c.MemoryLimit = defaultMemoryLimit() },
		format: func(c *Config) string {
			if c.MemoryLimit < 0 {
				return "off"
			}
			return units.FormatBytes(c.MemoryLimit)
		},
	},
	{
		Env: "PGAS_OPTIONS", Field: "Options", Default: "none",
		Allowed: "key=value options of the backend separated by commas; an item without = continues the previous value (exclude=3,7-9,routing=adaptive is exclude=3,7-9 and routing=adaptive)",
		Doc:     "backend options (the simulated networks' topology, routing, faults, trace, hazard checker)",
		isSet:   func(c *Config) bool { return len(c.Options) > 0 },
		parse:   func(c *Config, s string) (err error) { c.Options, err = conduit.ParseOptions(s); return },
		explain: true,
		check:   func(c *Config) error { return nil },
		def:     func(c *Config) {},
		format: func(c *Config) string {
			t, _ := conduit.FormatOptions(c.Options)
			return t
		},
	},
	bytesSetting("PGAS_MSG_EAGER_SHORT", "MsgEagerShort", 512, 1, 4096, "two-sided: below it, eager in one mailbox message; large jobs lower it to their mailbox slot (pgas.EagerShortLimit, R-MPI-E0)",
		func(c *Config) *int64 { return &c.MsgEagerShort }),
	bytesSetting("PGAS_MSG_EAGER_BUFFER", "MsgEagerBuffer", 8192, 1, 1<<20, "two-sided: below it, eager through pre-registered internal buffers read by FMA; also their slot size (R-MPI-E1)",
		func(c *Config) *int64 { return &c.MsgEagerBuffer }),
	rendezvousPutSetting(),
	bytesSetting("PGAS_MSG_RNDV_CHUNK", "MsgChunkBytes", 512<<10, 4096, 1<<40, "two-sided: chunk the put rendezvous registers and puts at a time (R-MPI-R1; assumed)",
		func(c *Config) *int64 { return &c.MsgChunkBytes }),
	switchSetting("PGAS_MSG_RNDV", "MsgRendezvous", On, "two-sided: off sends every message through the internal buffers, in pieces ([ORDERING] Figure 11 right)",
		func(c *Config) *Switch { return &c.MsgRendezvous }),
	intSetting("PGAS_MSG_RCACHE_ENTRIES", "MsgRcacheEntries", "64", 1, 1<<20, "two-sided: registrations the registration cache keeps (R-MPI-RCACHE; assumed)",
		func(c *Config) *int { return &c.MsgRcacheEntries }, func(c *Config) { c.MsgRcacheEntries = 64 }),
	bytesSetting("PGAS_MSG_RCACHE_MAX_SIZE", "MsgRcacheMaxBytes", 4<<20, 4096, 1<<40, "two-sided: largest registration the cache keeps; larger ones are made per transfer (R-MPI-RCACHE; assumed)",
		func(c *Config) *int64 { return &c.MsgRcacheMaxBytes }),
	{
		Env: "PGAS_MSG_MATCHING", Field: "MsgMatching", Default: "strict", Allowed: "strict, sequence",
		Doc:   "two-sided: matching messages through strictly ordered mailboxes (Cray MPI) or by sequence numbers over the job's ordering (Open MPI)",
		isSet: func(c *Config) bool { return c.MsgMatching != 0 },
		parse: func(c *Config, s string) (err error) { c.MsgMatching, err = parseMatching(s); return },
		check: func(c *Config) error {
			if c.MsgMatching != MatchStrict && c.MsgMatching != MatchSequence {
				return fmt.Errorf("%v", c.MsgMatching)
			}
			return nil
		},
		def:    func(c *Config) { c.MsgMatching = MatchStrict },
		format: func(c *Config) string { return c.MsgMatching.String() },
	},
	{
		Env: "PGAS_SEED", Field: "Seed", Default: "1", Allowed: "an unsigned 64-bit integer",
		Doc:    "seed of a simulated backend's random choices and of the order in which its simultaneous events are taken",
		isSet:  func(c *Config) bool { return c.Seed != 0 },
		parse:  func(c *Config, s string) (err error) { c.Seed, err = strconv.ParseUint(s, 0, 64); return },
		check:  func(c *Config) error { return nil },
		def:    func(c *Config) { c.Seed = 1 },
		format: func(c *Config) string { return strconv.FormatUint(c.Seed, 10) },
	},
}

// DefaultSimTimeLimit is the default of PGAS_SIM_TIME_LIMIT: far beyond
// any benchmark (the OSU bandwidth sweeps to 4 MiB simulate about a second)
// yet an end to a program that spins forever.
const DefaultSimTimeLimit = time.Minute

// limitSetting is a time limit: a duration, "off" (also "none", "0") for no
// limit, which the Config field holds as a negative value.
func limitSetting(env, field string, def time.Duration, doc string, f func(*Config) *time.Duration) Setting {
	defText := "off"
	if def > 0 {
		defText = def.String()
	}
	return Setting{
		Env: env, Field: field, Default: defText,
		Allowed: "a duration from 1us to 8760h (200us, 2.5s, 10m, 1h), or off", Doc: doc,
		isSet: func(c *Config) bool { return *f(c) != 0 },
		parse: func(c *Config, s string) error {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "off", "none", "0":
				*f(c) = -1
				return nil
			}
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil {
				return err
			}
			*f(c) = d
			return nil
		},
		check: func(c *Config) error {
			if v := *f(c); v >= 0 && (v < time.Microsecond || v > maxTimeLimit) {
				return fmt.Errorf("%v", v)
			}
			return nil
		},
		def: func(c *Config) {
			*f(c) = def
			if def == 0 {
				*f(c) = -1
			}
		},
		format: func(c *Config) string {
			if *f(c) < 0 {
				return "off"
			}
			return f(c).String()
		},
	}
}

// maxTimeLimit bounds the time limits (a year), far from overflowing
// picoseconds.
const maxTimeLimit = 8760 * time.Hour

// conduitSetting is PGAS_CONDUIT. Its default is smp, or mpi when an MPI
// launcher started the process (mpi.Launcher: mpiexec, mpirun, srun), so
// that `mpiexec -n 4 ./prog` runs one job of four PEs and not four jobs.
func conduitSetting() Setting {
	s := strSetting("PGAS_CONDUIT", "Conduit", "smp (mpi under an MPI launcher: mpiexec, mpirun, srun)", "a registered backend: "+strings.Join(conduit.Backends(), ", "),
		"the network backend", func(c *Config) *string { return &c.Conduit })
	s.def = func(c *Config) {
		c.Conduit = "smp"
		if _, _, _, ok := mpi.Launcher(c.lookupEnv); ok {
			c.Conduit = mpi.Name
		}
	}
	return s
}

func strSetting(env, field, def, allowed, doc string, f func(*Config) *string) Setting {
	return Setting{
		Env: env, Field: field, Default: def, Allowed: allowed, Doc: doc,
		isSet: func(c *Config) bool { return *f(c) != "" },
		parse: func(c *Config, s string) error { *f(c) = s; return nil },
		check: func(c *Config) error {
			if _, err := conduit.Lookup(*f(c)); err != nil {
				return fmt.Errorf("%q", *f(c))
			}
			return nil
		},
		def:    func(c *Config) { *f(c) = def },
		format: func(c *Config) string { return *f(c) },
	}
}

// intSetting: def nil means the default is computed elsewhere (PEs).
func intSetting(env, field, defText string, lo, hi int, doc string, f func(*Config) *int, def func(*Config)) Setting {
	return Setting{
		Env: env, Field: field, Default: defText, Allowed: fmt.Sprintf("an integer in [%d, %d]", lo, hi), Doc: doc,
		isSet: func(c *Config) bool { return *f(c) != 0 },
		parse: func(c *Config, s string) error {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return err
			}
			*f(c) = v
			return nil
		},
		check: func(c *Config) error {
			if v := *f(c); v < lo || v > hi {
				return fmt.Errorf("%d", v)
			}
			return nil
		},
		def: func(c *Config) {
			if def != nil {
				def(c)
			}
		},
		format: func(c *Config) string { return strconv.Itoa(*f(c)) },
	}
}

// DefaultRendezvousPut is where the put rendezvous begins on a network
// (R-MPI-R1, Cray MPICH on Gemini, [ORDERING] V.E).
const DefaultRendezvousPut = 512 << 10

// rendezvousPutSetting is PGAS_MSG_RNDV_PUT: bytes, 0 (the default) for
// the backend's choice.
func rendezvousPutSetting() Setting {
	s := bytesSetting("PGAS_MSG_RNDV_PUT", "MsgRendezvousPut", 0, 0, 1<<40,
		"two-sided: below it, rendezvous by the receiver's get (R-MPI-R0); at and above it, by the sender's puts (R-MPI-R1); "+
			"0: the backend's choice, 512KiB on a network, none on a real backend within one node or with every peer's segment mapped (the receiver reads every large message)",
		func(c *Config) *int64 { return &c.MsgRendezvousPut })
	s.Default = "0 (backend's choice: 512KiB on a network, R-MPI-R1; none on smp and within one node)"
	return s
}

func bytesSetting(env, field string, def, lo, hi int64, doc string, f func(*Config) *int64) Setting {
	return Setting{
		Env: env, Field: field, Default: units.FormatBytes(def),
		Allowed: fmt.Sprintf("bytes in [%s, %s] (K, M, G, T binary: 4K = 4096)", units.FormatBytes(lo), units.FormatBytes(hi)), Doc: doc,
		isSet: func(c *Config) bool { return *f(c) != 0 },
		parse: func(c *Config, s string) error {
			v, err := units.ParseBytes(s)
			if err != nil {
				return err
			}
			*f(c) = v
			return nil
		},
		check: func(c *Config) error {
			if v := *f(c); v < lo || v > hi {
				return fmt.Errorf("%d", v)
			}
			return nil
		},
		def:    func(c *Config) { *f(c) = def },
		format: func(c *Config) string { return units.FormatBytes(*f(c)) },
	}
}

func switchSetting(env, field string, def Switch, doc string, f func(*Config) *Switch) Setting {
	return Setting{
		Env: env, Field: field, Default: map[Switch]string{On: "on", Off: "off"}[def], Allowed: "on, off (also 1/0, true/false)", Doc: doc,
		isSet: func(c *Config) bool { return *f(c) != Unset },
		parse: func(c *Config, s string) error {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "on", "1", "true", "yes":
				*f(c) = On
			case "off", "0", "false", "no":
				*f(c) = Off
			default:
				return fmt.Errorf("not on or off")
			}
			return nil
		},
		check: func(c *Config) error {
			if v := *f(c); v != On && v != Off {
				return fmt.Errorf("%d", v)
			}
			return nil
		},
		def:    func(c *Config) { *f(c) = def },
		format: func(c *Config) string { return map[Switch]string{On: "on", Off: "off"}[*f(c)] },
	}
}

// resolve fills unset fields from the environment and defaults and checks
// every value. Errors are one line naming the variable or field, the value
// and the allowed range.
// Resolve returns the configuration a job would run with: every unset
// field from its environment variable or its default, every value
// checked. Run does this itself; Resolve lets a tool check a configuration
// and see the result before starting a long job.
func (cfg Config) Resolve() (Config, error) { return cfg.resolve() }

// lookupEnv looks a variable up in Env, or in the process environment.
func (c Config) lookupEnv(name string) (string, bool) {
	if c.Env != nil {
		return c.Env(name)
	}
	return os.LookupEnv(name)
}

func (cfg Config) resolve() (Config, error) {
	c := cfg
	env := c.lookupEnv
	// source names where each setting's value came from, for errors.
	source := make(map[string]string, len(settings))
	for i := range settings {
		s := &settings[i]
		if s.isSet(&c) {
			if err := s.check(&c); err != nil {
				return c, fmt.Errorf("pgas: Config.%s=%v: must be %s", s.Field, err, s.Allowed)
			}
			source[s.Field] = "Config." + s.Field
			continue
		}
		if v, ok := env(s.Env); ok && v != "" {
			if err := s.parse(&c, v); err != nil {
				if s.explain {
					return c, fmt.Errorf("pgas: %s=%q: %v; must be %s", s.Env, v, err, s.Allowed)
				}
				return c, fmt.Errorf("pgas: %s=%q: must be %s", s.Env, v, s.Allowed)
			}
			if err := s.check(&c); err != nil {
				return c, fmt.Errorf("pgas: %s=%q: must be %s", s.Env, v, s.Allowed)
			}
			source[s.Field] = s.Env
			continue
		}
		s.def(&c)
		source[s.Field] = "the default " + s.Field
	}
	if c.PEs == 0 {
		b, err := conduit.Lookup(c.Conduit)
		if err != nil {
			return c, err
		}
		c.PEs = b.DefaultPEs()
	}
	// The ranges of the settings make the bounce cutover (at most 32 KiB)
	// smaller than the bounce pool (at least 64 KiB); these two depend on
	// nothing else.
	switch {
	case c.SegmentBytes%8 != 0:
		return c, fmt.Errorf("pgas: %s=%d: must be a multiple of 8 and %s", source["SegmentBytes"], c.SegmentBytes, settingByField("SegmentBytes").Allowed)
	case c.PEsPerNode > c.PEs:
		return c, fmt.Errorf("pgas: %s=%d: must be at most the number of PEs, %d", source["PEsPerNode"], c.PEsPerNode, c.PEs)
	case c.MsgEagerBuffer < c.MsgEagerShort:
		return c, fmt.Errorf("pgas: %s=%d: must be at least %s, %d", source["MsgEagerBuffer"], c.MsgEagerBuffer, source["MsgEagerShort"], c.MsgEagerShort)
	case c.MsgRendezvousPut != 0 && c.MsgRendezvousPut < c.MsgEagerBuffer:
		return c, fmt.Errorf("pgas: %s=%d: must be at least %s, %d", source["MsgRendezvousPut"], c.MsgRendezvousPut, source["MsgEagerBuffer"], c.MsgEagerBuffer)
	}
	return c, nil
}

func settingByField(field string) *Setting {
	for i := range settings {
		if settings[i].Field == field {
			return &settings[i]
		}
	}
	panic("pgas: no setting " + field)
}

// SettingsTable renders the settings as the Markdown table of the README.
func SettingsTable() string {
	var b strings.Builder
	b.WriteString("| Variable | Config field | Default | Allowed | What it does |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", s.Env, s.Field, s.Default, s.Allowed, s.Doc)
	}
	return b.String()
}
