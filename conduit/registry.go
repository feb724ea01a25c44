package conduit

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// JobConfig is what a backend needs to start a job. The runtime fills it
// from its own validated configuration.
type JobConfig struct {
	// PEs is the number of processing elements, at least 1.
	PEs int
	// PEsPerNode is how many consecutive ranks share a node; 0 lets the
	// backend choose (the shared-memory backend puts every PE on one node).
	PEsPerNode int
	// SegmentBytes is the size of every PE's segment, a positive multiple
	// of 8.
	SegmentBytes int64
	// Ordering is the initial network ordering mode of every endpoint.
	Ordering OrderingMode
	// MailboxSlots is the number of messages each per-peer mailbox holds.
	MailboxSlots int
	// PeerBurst is how many peers' mailboxes one PollMessages call serves
	// before returning (R-BURST, SMSG_PEER_BURST).
	PeerBurst int
	// Seed seeds every random choice a backend makes.
	Seed uint64
	// RequireRegisteredLocal makes a backend that does not need registered
	// local buffers demand them anyway, so tests can exercise the runtime's
	// bounce-buffer and registration paths on it.
	RequireRegisteredLocal bool
	// NoDirectAccess makes a backend that could map peers' segments
	// directly (Caps.DirectAccess) report that it cannot, so every transfer
	// goes through Post.
	NoDirectAccess bool
	// StallTimeout is how long a real backend lets every PE wait without
	// progress before it reports a deadlock. Simulated backends detect
	// deadlock exactly and ignore it. Zero means the backend's default.
	StallTimeout time.Duration
	// SimTimeLimit, when positive, ends a simulated job with a *LimitError
	// once its virtual clock passes it. Real backends ignore it.
	SimTimeLimit Time
	// WallTimeLimit, when positive, ends a job on any backend with a
	// *LimitError once it has run this long by the wall clock.
	WallTimeLimit time.Duration
	// Options are backend-specific settings by name (for example a
	// simulated topology). A backend rejects names it does not know.
	Options map[string]string
}

// Validate checks the fields every backend relies on.
func (c *JobConfig) Validate() error {
	if c.PEs < 1 {
		return fmt.Errorf("conduit: PEs=%d: must be at least 1", c.PEs)
	}
	if c.PEsPerNode < 0 {
		return fmt.Errorf("conduit: PEsPerNode=%d: must not be negative", c.PEsPerNode)
	}
	if c.SegmentBytes <= 0 || c.SegmentBytes%8 != 0 {
		return fmt.Errorf("conduit: SegmentBytes=%d: must be a positive multiple of 8", c.SegmentBytes)
	}
	switch c.Ordering {
	case OrderStrict, OrderDefault, OrderRelaxed:
	default:
		return fmt.Errorf("conduit: Ordering=%v: must be strict, default or relaxed", c.Ordering)
	}
	if c.MailboxSlots < 1 {
		return fmt.Errorf("conduit: MailboxSlots=%d: must be at least 1", c.MailboxSlots)
	}
	if c.SimTimeLimit < 0 || c.WallTimeLimit < 0 {
		return fmt.Errorf("conduit: SimTimeLimit=%v, WallTimeLimit=%v: must not be negative", c.SimTimeLimit, c.WallTimeLimit)
	}
	if c.PeerBurst < 1 {
		return fmt.Errorf("conduit: PeerBurst=%d: must be at least 1", c.PeerBurst)
	}
	return nil
}

// Backend is what a backend registers.
type Backend struct {
	// Open starts a job.
	Open func(cfg JobConfig) (Job, error)
	// DefaultPEs is the job size used when the configuration names none.
	DefaultPEs func() int
	// Plan, when set, checks cfg as Open would (every option, the
	// topology) without starting the job or allocating its memory, and
	// estimates the memory the job will hold. A backend without it is
	// checked by Open itself.
	Plan func(cfg JobConfig) (Plan, error)
}

// Plan is a backend's estimate of a job before it starts: the resident
// memory the backend will hold for it, in two parts, so that the runtime
// can add its own per-PE state and refuse a job that cannot fit. Segment
// pages a program touches are not included.
type Plan struct {
	// Nodes is the number of nodes the job spans.
	Nodes int
	// PerPEBytes is the backend's memory per PE: its endpoint, the PE's
	// coroutine or goroutine, queues, the model's per-PE state.
	PerPEBytes int64
	// FixedBytes is the memory the backend holds whatever the number of
	// PEs: a simulated network's routers, links and NICs.
	FixedBytes int64
	// Detail says what FixedBytes counts ("a 4x4x4 torus: 64 routers,
	// 1,024 channels, 64 NICs"), or is empty.
	Detail string
}

// PlanJob checks cfg against the named backend and estimates its memory:
// the backend's Plan when it has one, otherwise an empty plan (the
// backend's Open will check cfg).
func PlanJob(name string, cfg JobConfig) (Plan, error) {
	b, err := Lookup(name)
	if err != nil {
		return Plan{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Plan{}, err
	}
	if b.Plan == nil {
		return Plan{}, nil
	}
	return b.Plan(cfg)
}

var registry struct {
	sync.Mutex
	backends map[string]Backend
}

// Register makes a backend available by name. It panics if the name is
// empty or taken: registration happens in package initialisation, where a
// clash is a programming error.
func Register(name string, b Backend) {
	registry.Lock()
	defer registry.Unlock()
	if name == "" || b.Open == nil || b.DefaultPEs == nil {
		panic("conduit: Register with empty name or incomplete Backend")
	}
	if registry.backends == nil {
		registry.backends = make(map[string]Backend)
	}
	if _, dup := registry.backends[name]; dup {
		panic("conduit: backend " + name + " registered twice")
	}
	registry.backends[name] = b
}

// Lookup returns the named backend.
func Lookup(name string) (Backend, error) {
	registry.Lock()
	b, ok := registry.backends[name]
	registry.Unlock()
	if !ok {
		return Backend{}, fmt.Errorf("conduit: unknown backend %q (registered: %s)", name, strings.Join(Backends(), ", "))
	}
	return b, nil
}

// Backends lists the registered backend names in order.
func Backends() []string {
	registry.Lock()
	defer registry.Unlock()
	names := make([]string, 0, len(registry.backends))
	for n := range registry.backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open validates cfg and starts a job on the named backend.
func Open(name string, cfg JobConfig) (Job, error) {
	b, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return b.Open(cfg)
}
