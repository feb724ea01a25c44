package fabric

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// What a backend gives the fabric and what it may ask of it. A backend
// fills a Config: its constants and packet formats, and the hooks that
// build its network (Build, returning its Topology, whose Routing routes
// every packet), make its nodes' host interfaces (NewHost: a Host,
// host.go), place its ranks' memory, name things for the trace and the
// report, translate addresses and watch registrations at the target NIC,
// and hand over its collective engine (Offload). While the job runs, the
// backend's own NIC units (the Aries collective engine) call the Machine's
// exported helpers: SendControl (control.go), HostToNIC and HostWrite
// (host.go), and those below. A Topology whose deterministic routes can be
// recomputed after a link failure is a Rerouter as well (fault.go).

// Config is what a backend makes a fabric of: its constants, its packet
// formats, and the hooks that build its network, host interfaces and
// report.
type Config struct {
	// Name is the backend's name: the job's, and the prefix of the
	// fabric's errors and messages.
	Name string
	// Params are the backend's constants, Sizes its packet formats.
	Params Params
	Sizes  Sizes
	// Options are the job's options (DefaultOptions and Options.Set).
	Options Options
	// Caps are the backend's capabilities (simnet sets Simulated).
	Caps conduit.Caps
	// PEsPerNode is the default number of PEs on a node (a job's
	// PEsPerNode overrides it).
	PEsPerNode int
	// Build makes the network for a job of nodes nodes when it starts:
	// the routers (Machine.NewRouter) and their links (Machine.NewLink),
	// with the backend's faults applied (Channel.Fail, Channel.Degrade).
	// It returns where the NICs are and the routing.
	Build func(m *Machine, nodes int) (Topology, error)
	// NewHost makes the host interface of a node; it is called for each
	// node in order once the network is built.
	NewHost func(node int) Host
	// Location is where in its node rank's memory is (a NUMA die; 0
	// everywhere if memory has no parts); it is called once per rank.
	Location func(j *simnet.Job, rank int) int
	// ChannelName names a channel for the trace.
	ChannelName func(c *Channel) string
	// Counters names the model's counters for the job's report; nil means
	// none.
	Counters func(s Stats) map[string]int64
	// Translate, if set, is the target NIC's address translation: a
	// request for n bytes at off in memory region region of rank (on
	// node) arrives at now; it returns when its translation is done and
	// the NIC may go on with it (a miss in a translation cache fetches
	// page-table entries).
	Translate func(node, rank int, now Time, region uint32, off int64, n int) Time
	// Registered, if set, is told of every registration (and, with
	// deregister, deregistration) of bytes as region id of ep's memory on
	// node, before its cost is booked; an error refuses it.
	Registered func(ep *simnet.Endpoint, node int, id uint32, bytes int64, deregister bool) error
	// Offload, if set, is the backend's collective engine: Start makes it
	// the job's (simnet.Job.Offload), and the endpoints hand their
	// offloaded collectives to it directly. In a partitioned job its
	// events must run in the nodes' partitions (Partitioning.Cut gives
	// it their Machines and kernels).
	Offload simnet.Offloader
	// Partitioning, if set, cuts the built network into partitions for
	// the workers option (partition.go); without it the option is refused.
	Partitioning func(m *Machine) Partitioning
	// ReroutePause is how long the management software keeps the network
	// quiesced after a link fails under deterministic routing, while it
	// computes and loads new routing tables (fault.go); the backend's
	// assumption, or its reroute_pause option.
	ReroutePause Time
}

// Topology is a backend's network: which router each node's NIC is attached
// to, and the routing. Config.Build makes it once the routers and their
// links exist.
type Topology interface {
	// RouterOf is the index (Router.ID) of the router node's NIC is
	// attached to.
	RouterOf(node int) int
	Routing
}

// NICPlacer is implemented by a Topology that says which of its router's
// NICs a node's is (the k of Machine.newNIC); without it the nodes of a
// router take its NICs in order.
type NICPlacer interface {
	NICSlot(node int) int
}

// Routing is the routing decision, made for each packet at each router it
// crosses on its way to another router's NICs.
type Routing interface {
	// Route chooses the link that takes p on from router r (one of r's
	// Links), or nil if p has no working way on: it is then dropped (Stats.Dropped) and its
	// transaction times out. Route may set p.VC, the virtual channel p
	// takes on that link, and p.Route, its own state for the packet.
	Route(r *Router, p *Packet) *Channel
}

// Now is the simulation's time, for a Routing that samples loads
// periodically.
func (m *Machine) Now() Time { return m.k.Now() }

// Job is the job the machine runs (nil before it starts).
func (m *Machine) Job() *simnet.Job { return m.job }

// Cycles is n cycles of the NIC's clock.
func (m *Machine) Cycles(n int64) Time { return m.cycles(n) }

// Tracing says whether the job is traced (the trace option).
func (m *Machine) Tracing() bool { return m.trace != nil }

// TraceNIC records a span of a NIC unit's work on node's NIC track of the
// trace, when the job is traced.
func (m *Machine) TraceNIC(node int, what string, start, end Time) {
	if m.trace != nil {
		m.traceNIC(m.nics[node], what, start, end)
	}
}

// Kernel is the kernel the machine's events run on: its partition's in a
// partitioned job.
func (m *Machine) Kernel() *sim.Kernel { return m.k }
