package gemini

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini/torus"
	"github.com/gopgas/gopgas/internal/fabric"
)

// Assembly: the backend's entry points, and the fabric.Machine of one job
// built from the options (options.go) and the blocks: parameters
// (params.go), packet formats (packet.go), the torus (package torus) and
// its routing (routing.go), the failed connections (faults.go) and the
// HyperTransport host interfaces (host.go).

// Name is the name the backend registers under.
const Name = "gemini"

func init() {
	conduit.Register(Name, conduit.Backend{Open: Open, Plan: Plan, DefaultPEs: func() int { return 2 * CoresPerNode }})
}

// Open starts a job on a simulated Gemini network. It is registered as the
// "gemini" backend; cfg.Options are described by OptionNames.
func Open(cfg conduit.JobConfig) (conduit.Job, error) {
	opts, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	j, err := fabric.Open(newNetwork(opts).config(), cfg)
	if err != nil {
		return nil, err
	}
	return j, nil
}

// Plan checks a job as Open would, without starting it, and estimates the
// memory it will hold (conduit.Backend.Plan).
func Plan(cfg conduit.JobConfig) (conduit.Plan, error) {
	opts, err := prepare(cfg)
	if err != nil {
		return conduit.Plan{}, err
	}
	return fabric.Plan(newNetwork(opts).config(), cfg, hostBytes)
}

// prepare checks what Open and Plan check before the network is built:
// the options, and that every PE of a node can hold an FMA descriptor of
// its own (FMADescriptors).
func prepare(cfg conduit.JobConfig) (options, error) {
	opts, err := parseOptions(cfg.Options)
	if err != nil {
		return options{}, err
	}
	if cfg.PEsPerNode > FMADescriptors {
		return options{}, fmt.Errorf("gemini: %d PEs per node: a NIC has %d FMA descriptors for user processes, one per PE", cfg.PEsPerNode, FMADescriptors)
	}
	return opts, nil
}

// network is the torus of one job: its Geminis' routers and the
// connections between them, and the nodes' host interfaces.
type network struct {
	opts    options
	torus   *torus.Torus
	routers []*fabric.Router
	// out[g][dim][dir.Index()] are Gemini g's connections towards its
	// neighbour in that direction (2 in x and z, 1 in y; none at an open
	// edge).
	out [][torus.DimCount][2][]*fabric.Channel
	// coords[g] is Gemini g's coordinate (torus.Coord) by dimension, and
	// rings each dimension's size and whether it is closed: worked out
	// once for the adaptive routing's every hop.
	coords [][torus.DimCount]int32
	rings  [torus.DimCount]ring
	hosts  []*host
	// tables are the state of the re-routed tables: one, or in a
	// partitioned run one per partition (cut), each read and written
	// only by its partition's routers.
	tables []tables
}

// ring is a dimension of the torus: its size, and whether it is closed.
type ring struct {
	size   int32
	closed bool
}

// tables is the state of the management software's new routing tables.
type tables struct {
	// rerouted: the new tables are in effect, after a connection failed
	// in the run (fabric.Rerouter); dist[d] is then, once needed, every
	// Gemini's distance to Gemini d over working connections (-1: none).
	rerouted bool
	dist     map[int][]int32
	// in[h] are the Geminis with a working connection to Gemini h, for
	// dist; made when first needed after each re-route.
	in [][]int32
}

func newNetwork(opts options) *network { return &network{opts: opts, tables: make([]tables, 1)} }

// partitioning cuts the torus into its X planes for the workers option: a
// packet sent on a connection is routed at the far Gemini LinkFlight +
// RouterPipeline later, and the routing reads only its own router's links
// but after a failure, when each partition keeps its own re-routed tables
// (cut).
func (w *network) partitioning(*fabric.Machine) fabric.Partitioning {
	gx := w.torus.GX
	return fabric.Partitioning{N: gx, Part: func(r int) int { return r % gx }, Lookahead: LinkFlight + RouterPipeline, Cut: w.cut}
}

// cut gives each partition its own re-routed tables.
func (w *network) cut(parts []*fabric.Machine) { w.tables = make([]tables, len(parts)) }

// config is the fabric of one job on the network.
func (w *network) config() fabric.Config {
	return fabric.Config{
		Name:         Name,
		Params:       params,
		Sizes:        sizes,
		Options:      w.opts.Options,
		Caps:         caps,
		PEsPerNode:   CoresPerNode,
		Build:        w.build,
		NewHost:      w.newHost,
		Location:     dieOf,
		ChannelName:  w.channelName,
		Counters:     w.counters,
		Partitioning: w.partitioning,

		ReroutePause: w.opts.reroutePause,
	}
}

// build makes the job's torus: a router per Gemini, its connections (the
// torus's wiring, in its order), and the failed ones.
func (w *network) build(m *fabric.Machine, nodes int) (fabric.Topology, error) {
	t, err := w.opts.system(nodes)
	if err != nil {
		return nil, err
	}
	if t.Nodes() < nodes {
		return nil, fmt.Errorf("gemini: the %v holds %d nodes; the job needs %d", t, t.Nodes(), nodes)
	}
	w.torus = t
	w.routers = make([]*fabric.Router, t.Geminis())
	for g := range w.routers {
		w.routers[g] = m.NewRouter()
	}
	w.out = make([][torus.DimCount][2][]*fabric.Channel, t.Geminis())
	w.coords = make([][torus.DimCount]int32, t.Geminis())
	for g := range w.coords {
		c := t.Coord(g)
		for d := range torus.Dim(torus.DimCount) {
			w.coords[g][d] = int32(c.At(d))
		}
	}
	for d := range torus.Dim(torus.DimCount) {
		w.rings[d] = ring{size: int32(t.Size(d)), closed: t.Closed(d)}
	}
	for c := range t.Wiring() {
		link := m.NewLink(w.routers[c.From], w.routers[c.To], PhitTime, LinkFlight, torus.LinksPerConnection)
		port := &w.out[c.From][c.Dim][c.Dir.Index()]
		*port = append(*port, link)
	}
	if err := w.applyFaults(m); err != nil {
		return nil, err
	}
	return w, nil
}

// newHost is a node's HyperTransport host interface.
func (w *network) newHost(int) fabric.Host {
	h := &host{}
	w.hosts = append(w.hosts, h)
	return h
}

// counters are the model's counters by name, for the job's report: the
// fabric's, its phits, and the ordered writes that waited for another die.
func (w *network) counters(fs fabric.Stats) map[string]int64 {
	c := fs.Counters()
	c["link_phits"], c["torus_phits"], c["torus_packets"] = fs.ChannelUnits, fs.LinkUnits, fs.LinkPackets
	var die int64
	for _, h := range w.hosts {
		die += h.dieSwitch
	}
	c["die_switches"] = die
	return c
}

// channelName names a channel for the trace.
func (w *network) channelName(c *fabric.Channel) string {
	switch {
	case c.To() == nil:
		return fmt.Sprintf("Gemini %d ejection tile %d", c.From().ID, c.ID())
	case c.From() == nil:
		return fmt.Sprintf("Gemini %d injection tile %d", c.To().ID, c.ID())
	}
	g := c.From().ID
	for d := range torus.Dim(torus.DimCount) {
		for i, dir := range []torus.Dir{torus.DirPlus, torus.DirMinus} {
			for _, o := range w.out[g][d][i] {
				if o == c {
					return fmt.Sprintf("Gemini %d %v%v connection %d", g, d, dir, c.ID())
				}
			}
		}
	}
	return fmt.Sprintf("Gemini %d connection %d", g, c.ID())
}
