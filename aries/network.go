package aries

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/internal/fabric"
)

// The Dragonfly network of a job on the fabric (whitepaper, Aries Router,
// Dragonfly Implementation and Cray XC Routing): a fabric router per Aries
// of the system, a fabric link per direction of every green, black and
// global link, and the routing.
//
// # Links
//
// A link direction sends one 48-bit flit per flit time at the link's raw
// rate, stretched by the LCB's one flit in ten of CRC and sequence
// information (LCBFlitsPerSet), over LanesPerLink lanes that carry each
// packet together; a lane out of service (the fail option) slows the link
// in proportion (Channel.Degrade).
//
// # Routers
//
// Each Aries is a fabric router with the whitepaper's tiles (Aries
// Router): 6 x 8 tiles, network port p on tile p and the eight processor
// tiles in the last row (TileOfPort). A packet's input queue routes it
// (RouterPipeline), a row bus takes it to the sub-switch of its output's
// column and a column bus to its output tile's column buffer (RowBusLatency,
// ColumnBusLatency), each bus a flit per tile cycle, one packet at a time;
// the column buffer is the output link's queue, whose load the routing
// sees together with the packets on their way to it. A link's input
// buffer gives each VC space of its own (InputBufferFlits) and a pool any
// VC may use beyond it (SharedInputFlits), sized for the longest cable.
//
// # Routes
//
// A route is chosen whole at the source Aries, as a path of hops
// (topology.go), and kept in the packet (p.Route) for the Aries after it to
// follow: at most MaxNonMinimalHops hops, each an output port and a virtual
// channel offset. An adaptive packet on a minimal route is routed again at
// each Aries of its source group it reaches before its global hop (every
// tile's routing pipeline makes the choice, Aries Router; the progressive
// option turns this off): it keeps the rest of its route unless a fresh
// candidate from there is less loaded, and a new route may not start with
// a link of a class it has taken (reconsider). Deterministic packets take a minimal path chosen by their
// hash, so that packets of one ordered stream follow one path and arrive in
// order ("Where the runtime requires ordered packet delivery, the route is
// selected using a deterministic hash", Cray XC Routing); one whose path
// crosses a failed link is lost there. Adaptive packets compare two
// minimal and two non-minimal (Valiant) candidates chosen at random and
// take the least loaded (Cray XC Routing: "The routing pipeline selects up
// to four possible routes at random, two minimal and two non-minimal
// routes. The load on each of the selected paths is compared and the path
// with the lightest load is selected"); the valiant option leaves only the
// non-minimal candidates. A candidate's load is the queue of its first
// link plus the highest load of its next links up to its first global
// link, as sampled every LoadUpdatePeriod ("a combination of downstream
// link load, estimated far-end link load and near-end link load"); the
// bias option is added to the non-minimal candidates' loads and ties go to
// the minimal ones. Candidates through a failed link are skipped, and
// others drawn if all are.
//
// A minimal path takes the global link among those nearest the source
// (Dragonfly.Minimal). A non-minimal path goes minimally to an
// intermediate Aries drawn at random, then minimally on: within a group
// from the group (the "root"), between groups from a group other than the
// source's and the destination's, so that it takes two global hops.
//
// Remote loads are sampled when the fabric tells the time (a Machine with
// a Now method); otherwise the routing sees them as they are.
//
// # Virtual channels and deadlock
//
// Requests use VCs 0..RequestVCs-1 and responses the rest (Aries Router:
// "four VCs for requests and four for responses"); a packet starts on the
// first of its class and moves to the next after each global hop and at
// the intermediate Aries of a non-minimal route, so a route of four local
// segments and two global hops uses all four. Within a segment the green
// hop always comes before the black hop, so that on each VC every channel
// dependency goes from green to black to global: the VCs then order every
// dependency and no cycle of credits can form, whatever the traffic.

// Routing model constants (whitepaper, Cray XC Routing; Aries Router).
const (
	// DefaultBias is the default adaptive routing bias, in flits of load:
	// a non-minimal candidate wins only if its load plus the bias is below
	// the best minimal candidate's. "With the default routing algorithms,
	// packets will take a minimal path until the load on these paths
	// increases and a non-minimal path is preferred" (Cray XC Routing).
	// Assumed: two request headers, so that a quiet network routes
	// minimally and a difference of a header or two does not send packets
	// on paths twice as long.
	DefaultBias = 2 * RequestHeaderFlits

	// MinimalCandidates and NonMinimalCandidates are the routes the
	// adaptive routing compares: "two minimal and two non-minimal routes"
	// (Cray XC Routing).
	MinimalCandidates    = 2
	NonMinimalCandidates = 2

	// CandidateRetries bounds the further random candidates the adaptive
	// routing draws when failed links rule out all of the first ones (the
	// route tables of a system with failed links are recomputed to avoid
	// them, Network Reliability, Availability and Serviceability). Assumed.
	CandidateRetries = 16

	// LoadUpdateCycles is how often, in router cycles, the load of a
	// remote link reaches the routing pipeline of the Aries that compares
	// paths through it: "Downstream load information is propagated from
	// router-to-router at high frequency" (Cray XC Routing; the tenth LCB
	// flit "is also used to carry global clock and network load
	// information", Aries Router). Assumed 10 cycles, one LCB set.
	LoadUpdateCycles = LCBFlitsPerSet

	// LoadUpdatePeriod is LoadUpdateCycles at the router clock.
	LoadUpdatePeriod = Time(LoadUpdateCycles * 1_000_000_000_000 / int64(TileClockHz))
)

// The candidate cache: at most candidateCacheSlots pairs of a source Aries
// and a destination group (a few MiB), found by Fibonacci hashing when
// there are more pairs.
const (
	candidateCacheSlots     = 1 << 16
	candidateHashMultiplier = 0x9e3779b97f4a7c15
)

// routeSeed seeds the adaptive routing's random choices ("ARIES" in ASCII).
const routeSeed = 0x4152494553

// Route state in fabric.Packet.Route: Route[0] is routeRouted | the number
// of hops << routeCountShift | the index of the next hop (0 before the
// source Aries has routed the packet), with flags: a non-minimal route,
// and the classes of the hops taken (green and black until the first
// global hop, then global); Route[1..3] hold the hops, four to an int32,
// each a byte of an output port and a VC offset (routeVCShift).
const (
	routeRouted      = 1 << 30
	routeNonMinimal  = 1 << 29
	routeGreenTaken  = 1 << 16
	routeBlackTaken  = 1 << 17
	routeGlobalTaken = 1 << 18
	routeDetoured    = 1 << 28 // replaced after the source (detour)
	routeCountShift  = 8
	routeIndexMask   = 1<<routeCountShift - 1
	routeHopBits     = 8
	routeHopsPerInt  = 32 / routeHopBits
	routeVCShift     = 6 // ports 0..39 take 6 bits
	routePortMask    = 1<<routeVCShift - 1
)

// linkFault is a failed or degraded link: the link leaving Aries aries by
// network port port, with lanes lanes still working (1 or 2), or failed in
// both directions if lanes is 0; from the start of the job, or from time
// at when timed.
type linkFault struct {
	aries, port, lanes int
	timed              bool
	at                 Time
}

// String formats the fault as the fail option gives it.
func (f linkFault) String() string {
	s := fmt.Sprintf("%d:%d", f.aries, f.port)
	if f.lanes > 0 {
		s += fmt.Sprintf(":%d", f.lanes)
	}
	if f.timed {
		s += "@" + fabric.FormatFaultTime(f.at)
	}
	return s
}

// parseFaults parses the fail option: "aries:port[:lanes][@time]"
// separated by ';', port 0..NetworkPortsPerAries-1 in the topology's
// numbering (FirstGreenPort), lanes 1..LanesPerLink-1, time (a Go
// duration of simulated time: 50us, 1.5ms) when the link fails or
// degrades in the middle of the run; without it, from the start.
func parseFaults(s string) ([]linkFault, error) {
	var out []linkFault
	for _, item := range strings.Split(s, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		spec, when, timed := strings.Cut(item, "@")
		parts := strings.Split(spec, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("link %q: not aries:port[:lanes][@time]", item)
		}
		var f linkFault
		var err error
		if f.aries, err = strconv.Atoi(strings.TrimSpace(parts[0])); err != nil || f.aries < 0 {
			return nil, fmt.Errorf("link %q: Aries %q is not a non-negative integer", item, parts[0])
		}
		if f.port, err = strconv.Atoi(strings.TrimSpace(parts[1])); err != nil || f.port < 0 || f.port >= NetworkPortsPerAries {
			return nil, fmt.Errorf("link %q: port %q is not 0 to %d", item, parts[1], NetworkPortsPerAries-1)
		}
		if len(parts) == 3 {
			if f.lanes, err = strconv.Atoi(strings.TrimSpace(parts[2])); err != nil || f.lanes < 1 || f.lanes >= LanesPerLink {
				return nil, fmt.Errorf("link %q: working lanes %q are not 1 to %d", item, parts[2], LanesPerLink-1)
			}
		}
		if timed {
			if f.at, err = fabric.ParseFaultTime(strings.TrimSpace(when)); err != nil {
				return nil, fmt.Errorf("link %q: %v", item, err)
			}
			f.timed = true
		}
		out = append(out, f)
	}
	return out, nil
}

// network is the Dragonfly of one job: its Aries' routers and links, the
// routing's state, and the nodes' host interfaces.
type network struct {
	opts    options
	hosts   []*host
	iommus  []*iommu
	ce      *engine // the job's collective engine
	df      *Dragonfly
	routers []*fabric.Router
	// out[a][port] is the link leaving Aries a by network port port; nil
	// if the port is not cabled.
	out [][NetworkPortsPerAries]*fabric.Channel
	// The remote loads the routing sees: snapLoad[a*NetworkPortsPerAries
	// + port] is the load of that link when last sampled, at snapAt.
	snapLoad []int32
	snapAt   []Time
	// clock, when set, is the simulation's clock (the fabric Machine's):
	// remote loads are then sampled every LoadUpdatePeriod; without it
	// (tests of routes on a network no job runs) they are seen as they are.
	clock interface{ Now() Time }
	// rng makes the adaptive routing's random choices: seeded the same
	// for every job, and drawn in the order of the simulation's events,
	// so that a run repeats exactly.
	rng rand.PCG
	// candCache caches candidates by source Aries and destination group.
	candCache []candidateEntry
	// cand are buffers for the candidate paths.
	cand [MinimalCandidates + NonMinimalCandidates]Path
	// minimalRoutes and nonMinimalRoutes count the routes chosen at the
	// source, rerouted and reroutedNonMinimal the routes chosen again
	// after it (for tests and studies).
	minimalRoutes, nonMinimalRoutes int64
	rerouted, reroutedNonMinimal    int64
	// rest is a buffer for the rest of a route (reconsider).
	rest Path
	// newTables: the HSS has put new routing tables into effect after a
	// link failed in the run (Reroute). detours counts the routes
	// replaced where they met a failed link (detour), into detourBest's
	// buffer.
	newTables  bool
	detours    int64
	detourBest Path
	// candWorking caches workingCandidates (the new tables' nearest
	// working global links) by source Aries x groups + destination group.
	candWorking map[int64]candidateSet

	// m is the machine of the job (nil for networks no job runs on).
	m *fabric.Machine
	// phys is the system node of each of the job's (virtual) nodes; cams
	// are their NICs' vMDH CAMs; domains are the processes' memory
	// domains by rank, made when first needed (address.go).
	phys    []int
	cams    []vmdhCAM
	domains []*domain
}

func newNetwork(opts options) *network { return &network{opts: opts, ce: newEngine()} }

// system returns the Dragonfly the options ask for, or the smallest that
// holds nodes nodes, with the largest bundles that fit unless the bundle
// option says otherwise. Its error names the options.
func (o *options) system(nodes int) (*Dragonfly, error) {
	bundleFor := func(chassis int) int {
		if o.bundle > 0 {
			return o.bundle
		}
		groups := (chassis + ChassisPerGroup - 1) / ChassisPerGroup
		if groups < topoMinGroupsCabled {
			return 0
		}
		return MaxCablesPerGroup / (groups - 1)
	}
	var d *Dragonfly
	var err error
	var named string // the options that chose the system
	switch {
	case o.groups > 0:
		named = fmt.Sprintf("option groups=%d", o.groups)
		d, err = NewDragonfly(o.groups, bundleFor(o.groups*ChassisPerGroup))
	case o.cabinets > 0:
		named = fmt.Sprintf("option cabinets=%d", o.cabinets)
		d, err = ForCabinets(o.cabinets, bundleFor(o.cabinets*ChassisPerCabinet))
	case o.chassis > 0:
		named = fmt.Sprintf("option chassis=%d", o.chassis)
		d, err = ForChassis(o.chassis, bundleFor(o.chassis))
	case nodes > MaxNodes:
		return nil, fmt.Errorf("aries: a job of %d nodes: more than the %d nodes of the largest system", nodes, MaxNodes)
	default:
		named = fmt.Sprintf("a job of %d nodes", nodes)
		chassis := max(1, (nodes+NodesPerChassis-1)/NodesPerChassis)
		if d, err = ForChassis(chassis, bundleFor(chassis)); err != nil && o.bundle == 0 {
			// A partial last group too small to reach every other group:
			// the system is whole groups (Cray XC Series Configuration:
			// above 64 cabinets systems are built of whole groups).
			chassis = (chassis + ChassisPerGroup - 1) / ChassisPerGroup * ChassisPerGroup
			d, err = ForChassis(chassis, bundleFor(chassis))
		}
	}
	if err != nil {
		if o.bundle > 0 {
			named += fmt.Sprintf(", option bundle=%d", o.bundle)
		}
		return nil, fmt.Errorf("aries: the system for %s: %w", named, err)
	}
	return d, nil
}

// linkUnitTime is the time of one flit on a link of bytesPerSecond, the
// LCB's overhead included: one flit in LCBFlitsPerSet carries no data
// (Aries Router; Aries Performance: "LCB overheads are 1 flit in 10").
func linkUnitTime(bytesPerSecond float64) Time {
	const psPerSecond = 1e12
	return Time(math.Round(FlitBytes * psPerSecond / bytesPerSecond * LCBFlitsPerSet / LCBDataFlitsPerSet))
}

// SharedInputFlits is a link input's buffer pool (InputBufferFlits): the
// flits an optical link sends over a credit round trip of its longest
// cable, and a largest packet.
func SharedInputFlits() int {
	roundTrip := 2*LongestCableFlight + InputStage
	return int((roundTrip+linkUnitTime(OpticalLinkBytesPerSecond)-1)/linkUnitTime(OpticalLinkBytesPerSecond)) + maxPacketFlits
}

// build makes the job's network: a router per Aries of the system, a link
// per direction of each of its links, and the faults.
func (w *network) build(m *fabric.Machine, nodes int) (fabric.Topology, error) {
	w.phys = physicalNodes(nodes, w.opts.excluded)
	span := w.phys[len(w.phys)-1] + 1 // the system nodes the job reaches
	if span > MaxNodes {
		return nil, fmt.Errorf("aries: a job of %d nodes around %d excluded ones reaches node %d: more than the %d nodes of the largest system", nodes, len(w.opts.excluded), span-1, MaxNodes)
	}
	d, err := w.opts.system(span)
	if err != nil {
		return nil, err
	}
	if d.Nodes() < span {
		if len(w.opts.excluded) > 0 {
			return nil, fmt.Errorf("aries: the system of %v holds %d nodes; the job's %d nodes around %d excluded ones need %d", d, d.Nodes(), nodes, len(w.opts.excluded), span)
		}
		return nil, fmt.Errorf("aries: the system of %v holds %d nodes; the job needs %d", d, d.Nodes(), nodes)
	}
	w.df = d
	w.m = m
	w.cams = make([]vmdhCAM, nodes)
	for i := range w.cams {
		// The job's only CAM entry: its process slots from MDH 0.
		if err := w.cams[i].add(JobVMDH, 0); err != nil {
			return nil, err
		}
	}
	n := d.Aries()
	w.routers = make([]*fabric.Router, n)
	for a := range w.routers {
		w.routers[a] = m.NewRouter()
	}
	w.out = make([][NetworkPortsPerAries]*fabric.Channel, n)
	electrical, optical := linkUnitTime(ElectricalLinkBytesPerSecond), linkUnitTime(OpticalLinkBytesPerSecond)
	for a := range n {
		for port := range NetworkPortsPerAries {
			h, ok, err := d.Link(a, port)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			unit, flight := electrical, Time(LinkFlight)
			if h.Class == LinkGlobal {
				unit, flight = optical, OpticalFlight
			}
			c := m.NewLink(w.routers[a], w.routers[h.To], unit, flight, LanesPerLink)
			c.SetTiles(TileOfPort(port), TileOfPort(h.ToPort))
			w.out[a][port] = c
		}
	}
	w.rng.Seed(routeSeed, uint64(n))
	w.clock = m
	w.snapLoad = make([]int32, n*NetworkPortsPerAries)
	w.snapAt = make([]Time, n*NetworkPortsPerAries)
	for i := range w.snapAt {
		w.snapAt[i] = -LoadUpdatePeriod
	}
	for i := range w.cand {
		w.cand[i] = make(Path, 0, MaxNonMinimalHops)
	}
	if err := w.applyFaults(m); err != nil {
		return nil, err
	}
	return w, nil
}

// applyFaults fails links (both directions: adaptive traffic avoids them,
// deterministic traffic through them is lost) and degrades others (both
// directions carry the traffic on the working lanes, more slowly); a
// timed fault happens at its time in the run (fabric.Machine.FailAt,
// DegradeAt), when under deterministic routing the HSS re-routes.
func (w *network) applyFaults(m *fabric.Machine) error {
	for _, f := range w.opts.faults {
		if f.aries >= len(w.out) {
			return fmt.Errorf("aries: option fail: link %v: Aries %d outside the %d Aries of %v", f, f.aries, len(w.out), w.df)
		}
		c := w.out[f.aries][f.port]
		if c == nil {
			return fmt.Errorf("aries: option fail: link %v: port %d of Aries %d is not cabled in %v", f, f.port, f.aries, w.df)
		}
		h, _, _ := w.df.Link(f.aries, f.port)
		back := w.out[h.To][h.ToPort]
		switch {
		case f.lanes == 0 && f.timed:
			m.FailAt(f.at, c, back)
		case f.lanes == 0:
			c.Fail()
			back.Fail()
		case f.timed:
			m.DegradeAt(f.at, f.lanes, c, back)
		default:
			c.Degrade(f.lanes)
			back.Degrade(f.lanes)
		}
	}
	return nil
}

// Reroute puts the HSS's new routing tables into effect
// (fabric.Rerouter): from now on deterministic routes avoid every failed
// link, and a deterministic packet whose route meets one is taken round it
// (detour); the global links a minimal route may take towards a group are
// the nearest that work (workingCandidates), for adaptive routes too.
func (w *network) Reroute() {
	w.newTables = true
	w.candWorking = nil
}

// RouterOf is the Aries of one of the job's nodes.
func (w *network) RouterOf(node int) int { return w.physical(node) / NodesPerAries }

// NICSlot is which of its Aries' NICs a node's is (fabric.NICPlacer).
func (w *network) NICSlot(node int) int { return w.physical(node) % NodesPerAries }

// physical is the system node of one of the job's nodes (itself on a
// network no job runs on).
func (w *network) physical(node int) int {
	if w.phys == nil {
		return node
	}
	return w.phys[node]
}

// Route takes a packet on from Aries r: at its source Aries it chooses the
// packet's path (deterministic or adaptive as the packet says); after that
// it follows it. nil: no working way on; the packet is lost and its
// transaction times out (Network Reliability, Availability and
// Serviceability).
func (w *network) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	switch {
	case p.Route[0]&routeRouted == 0:
		if !w.choose(r.ID, p) {
			return nil
		}
	case p.Adaptive && w.opts.progressive && p.Route[0]&(routeNonMinimal|routeGlobalTaken|routeDetoured) == 0:
		w.reconsider(r.ID, p)
	}
	i := int(p.Route[0] & routeIndexMask)
	if i >= int(p.Route[0]>>routeCountShift&routeIndexMask) {
		return nil // the path ended elsewhere than the destination: a bug, lose the packet
	}
	hop := w.hop(p, i)
	port := int(hop & routePortMask)
	c := w.out[r.ID][port]
	if c == nil || c.Failed() {
		// A failed link ahead: adaptive routing goes round it; a
		// deterministic packet only once the tables avoid it, else it is
		// lost.
		if !p.Adaptive && !w.newTables || !w.detour(r.ID, p) {
			return nil
		}
		hop = w.hop(p, 0)
		port = int(hop & routePortMask)
		c = w.out[r.ID][port]
	}
	p.Route[0]++
	switch class, _ := PortClass(port); class {
	case LinkGreen:
		p.Route[0] |= routeGreenTaken
	case LinkBlack:
		p.Route[0] |= routeBlackTaken
	default:
		p.Route[0] |= routeGlobalTaken
	}
	p.VC = p.VC/RequestVCs*RequestVCs + uint8(hop>>routeVCShift)
	return c
}

// choose chooses p's path from Aries src and stores it in p.Route; false
// if no path avoids the failed links.
func (w *network) choose(src int, p *fabric.Packet) bool {
	dst := p.DstRouter
	if !p.Adaptive {
		path := w.minimal(w.cand[0][:0], src, dst, p.Hash)
		if w.newTables && !w.works(path) {
			// The new tables route round the failed link.
			return w.detour(src, p)
		}
		w.store(p, path, -1)
		w.minimalRoutes++
		return true
	}
	best, _, split := w.bestCandidate(src, dst, LinkGreen, -1, CandidateRetries)
	if best < 0 {
		return false
	}
	w.store(p, w.cand[best], split)
	if split >= 0 {
		p.Route[0] |= routeNonMinimal
		w.nonMinimalRoutes++
	} else {
		w.minimalRoutes++
	}
	return true
}

// bestCandidate draws the adaptive routing's candidates from Aries src to
// dst into w.cand (MinimalCandidates minimal, unless the valiant option,
// and NonMinimalCandidates non-minimal) and returns the least loaded whose
// first hop is of class first or after it, with its cost and the hop its
// non-minimal part starts at (-1: minimal); -1 if every one crosses a
// failed link, or, when limit is not negative, none costs less than
// limit. With every candidate ruled out it draws again, up to retries
// times.
func (w *network) bestCandidate(src, dst int, first LinkClass, limit, retries int) (best, bestCost, bestSplit int) {
	best, bestCost, bestSplit = -1, limit, -1
	for try := 0; try <= retries && best < 0; try++ {
		for k := range w.cand {
			nonMinimal := k >= MinimalCandidates
			if !nonMinimal && w.opts.valiant {
				continue
			}
			split := -1
			path := w.cand[k][:0]
			if nonMinimal {
				path, split = w.nonMinimal(path, src, dst, w.rng.Uint64(), w.rng.Uint64(), w.rng.Uint64())
			} else {
				path = w.minimal(path, src, dst, w.rng.Uint64())
			}
			w.cand[k] = path
			if len(path) > 0 && path[0].Class < first {
				continue
			}
			cost, ok := w.cost(path)
			if !ok {
				continue
			}
			if nonMinimal {
				cost += w.opts.bias
			}
			if (best < 0 && bestCost < 0) || cost < bestCost {
				best, bestCost, bestSplit = k, cost, split
			}
		}
	}
	return best, bestCost, bestSplit
}

// reconsider makes the adaptive choice again at Aries a, after the source,
// for an adaptive packet still on a minimal route in its source group
// ("The routing pipeline generates two minimal and two non-minimal
// outputs for every packet", Aries Router: each tile's routing, not only
// the first): fresh candidates from a against the rest of the packet's
// route, which it keeps unless one costs less (a failed link on it costs
// more than any). A new route may not start with a hop of a class the
// packet has taken on this VC (green, then black), so that every VC's
// dependencies still go green to black to global (see the VCs above).
func (w *network) reconsider(a int, p *fabric.Packet) {
	taken := p.Route[0] & (routeGreenTaken | routeBlackTaken)
	first := LinkBlack
	if taken&routeBlackTaken != 0 {
		first = LinkGlobal
	}
	rest := w.remaining(a, p)
	limit, ok := w.cost(rest)
	retries := 0
	if !ok {
		limit, retries = -1, CandidateRetries
	}
	best, _, split := w.bestCandidate(a, p.DstRouter, first, limit, retries)
	if best < 0 {
		return
	}
	w.store(p, w.cand[best], split)
	p.Route[0] |= taken
	w.rerouted++
	if split >= 0 {
		p.Route[0] |= routeNonMinimal
		w.reroutedNonMinimal++
	}
}

// remaining is the rest of p's route from Aries a, in w.rest.
func (w *network) remaining(a int, p *fabric.Packet) Path {
	path := w.rest[:0]
	n := int(p.Route[0] >> routeCountShift & routeIndexMask)
	for i := int(p.Route[0] & routeIndexMask); i < n; i++ {
		h, ok, err := w.df.Link(a, int(w.hop(p, i)&routePortMask))
		if !ok || err != nil {
			break
		}
		path = append(path, h)
		a = h.To
	}
	w.rest = path
	return path
}

// hop is hop i of p's route: its output port and VC offset.
func (w *network) hop(p *fabric.Packet, i int) uint32 {
	return uint32(p.Route[1+i/routeHopsPerInt]) >> (routeHopBits * (i % routeHopsPerInt)) & (1<<routeHopBits - 1)
}

// minimal appends to path a minimal path from Aries src to Aries dst
// chosen by r: the global link among those nearest src (Minimal), the
// black lane of each local segment; the green hop of a segment always
// comes first (see the VCs above).
func (w *network) minimal(path Path, src, dst int, r uint64) Path {
	d := w.df
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	if gs == gd {
		ch := topoChooser(topoOrders * (r % BlackLinksPerPeer))
		return d.topoAppendLocal(path, src, dst, &ch)
	}
	cs := w.candidates(src, gd)
	if w.newTables {
		cs = w.workingCandidates(src, gd)
		if cs.n == 0 {
			return path // no working global link to the group: no path
		}
	}
	n := uint64(cs.n)
	i := int(r % n)
	if cs.links != nil {
		i = int(cs.links[i])
	}
	r /= n
	// Digits: source order (0), source lane, destination order (0),
	// destination lane.
	ch := topoChooser(topoOrders * (r%BlackLinksPerPeer + BlackLinksPerPeer*topoOrders*(r/BlackLinksPerPeer%BlackLinksPerPeer)))
	return d.topoAppendVia(path, src, dst, d.topoGlobalHop(gs, gd, i), &ch)
}

// candidateSet is the global links nearest an Aries towards another group
// (Dragonfly.Minimal's candidates): links[k] for k < n, or every link from
// 0 to n-1 if links is nil.
type candidateSet struct {
	n     int32
	links []int32
}

// candidateEntry is a slot of the candidate cache: the set of the pair
// key - 1 (source Aries x groups + destination group; key 0: empty).
type candidateEntry struct {
	key int64
	set candidateSet
}

// candidates returns the global links nearest Aries src towards group gd,
// from a cache of every pair, or on systems with more pairs than
// candidateCacheSlots a direct-mapped cache of that many (the Aries' route
// tables), so that memory stays bounded on the largest systems.
func (w *network) candidates(src, gd int) candidateSet {
	key := int64(src)*int64(w.df.Groups()) + int64(gd) + 1
	pairs := int64(w.df.Aries()) * int64(w.df.Groups())
	if w.candCache == nil {
		w.candCache = make([]candidateEntry, min(pairs, candidateCacheSlots))
	}
	i := uint64(key - 1) // a slot per pair when they fit
	if pairs > candidateCacheSlots {
		i = uint64(key) * candidateHashMultiplier >> 32
	}
	slot := &w.candCache[i%uint64(len(w.candCache))]
	if slot.key == key {
		return slot.set
	}
	var buf [topoScanLinks]int
	n, all := w.df.topoCandidates(src, src/AriesPerGroup, gd, &buf)
	cs := candidateSet{n: int32(n)}
	if !all {
		cs.links = make([]int32, n)
		for k := range cs.links {
			cs.links[k] = int32(buf[k])
		}
	}
	*slot = candidateEntry{key, cs}
	return cs
}

// workingCandidates is candidates in the new tables (Reroute): the
// working global links nearest Aries src towards group gd, by a scan of
// every link between the groups; none if every one has failed.
func (w *network) workingCandidates(src, gd int) candidateSet {
	key := int64(src)*int64(w.df.Groups()) + int64(gd)
	if cs, ok := w.candWorking[key]; ok {
		return cs
	}
	if w.candWorking == nil {
		w.candWorking = make(map[int64]candidateSet)
	}
	d := w.df
	gs := src / AriesPerGroup
	links := LinksPerCable * d.topoCables(gs, gd)
	best := MaxLocalMinimalHops + 1
	var cs candidateSet
	for i := range links {
		h := d.topoGlobalHop(gs, gd, i)
		if c := w.out[h.From][h.FromPort]; c == nil || c.Failed() {
			continue
		}
		dist := topoLocalDistance(src, h.From)
		if dist < best {
			best, cs.links = dist, cs.links[:0]
		}
		if dist == best {
			cs.links = append(cs.links, int32(i))
		}
	}
	cs.n = int32(len(cs.links))
	w.candWorking[key] = cs
	return cs
}

// nonMinimal appends to path a non-minimal (Valiant) path from src to dst
// and returns it and the number of its hops up to the intermediate Aries:
// minimal (chosen by up) to an Aries chosen by via, then minimal (chosen by
// down) to dst. The intermediate Aries is in the group for a route within a
// group (Cray XC Routing's "root"); else in a group other than the
// source's and the destination's, or the destination's if there is no
// other.
func (w *network) nonMinimal(path Path, src, dst int, via, up, down uint64) (Path, int) {
	d := w.df
	g, gd := src/AriesPerGroup, dst/AriesPerGroup
	switch groups := d.Groups(); {
	case g == gd:
	case groups == 2:
		g = gd
	default:
		// Group via mod (groups-2), skipping the source's and the
		// destination's.
		lo, hi := min(g, gd), max(g, gd)
		g = int(via % uint64(groups-2))
		via /= uint64(groups - 2)
		if g >= lo {
			g++
		}
		if g >= hi {
			g++
		}
	}
	a := g*AriesPerGroup + int(via%uint64(d.topoChassisIn(g)*AriesPerChassis))
	path = w.minimal(path, src, a, up)
	split := len(path)
	return w.minimal(path, a, dst, down), split
}

// cost is a candidate path's load as the source Aries sees it: the load
// of its first link now plus the highest load of the links after it, up to
// its first global link, as last sampled (the remote links whose load
// reaches the Aries, Cray XC Routing); false if one of its links has
// failed.
func (w *network) cost(path Path) (int, bool) {
	for _, h := range path {
		if c := w.out[h.From][h.FromPort]; c == nil || c.Failed() {
			return 0, false
		}
	}
	if len(path) == 0 {
		return 0, true
	}
	first := path[0]
	remote := 0
	if first.Class != LinkGlobal {
		for _, h := range path[1:] {
			remote = max(remote, w.sampled(h.From, h.FromPort))
			if h.Class == LinkGlobal {
				break
			}
		}
	}
	return w.out[first.From][first.FromPort].Load() + remote, true
}

// sampled is the load of the link leaving Aries a by port as the routing
// sees it: sampled every LoadUpdatePeriod when the network has a clock,
// else the load now.
func (w *network) sampled(a, port int) int {
	c := w.out[a][port]
	if w.clock == nil {
		return c.Load()
	}
	i := a*NetworkPortsPerAries + port
	if now := w.clock.Now(); now-w.snapAt[i] >= LoadUpdatePeriod {
		// The sample the Aries last received: taken at the last multiple
		// of the period.
		w.snapAt[i] = now - now%LoadUpdatePeriod
		w.snapLoad[i] = int32(min(c.Load(), math.MaxInt32))
	}
	return int(w.snapLoad[i])
}

// store keeps path in p.Route, with the VC offset of each hop: one more
// after each global hop and from the hop split on (the intermediate
// Aries; -1: none).
func (w *network) store(p *fabric.Packet, path Path, split int) { w.storeFrom(p, path, split, 0) }

// storeFrom is store with the VC offsets starting at vc.
func (w *network) storeFrom(p *fabric.Packet, path Path, split, vc int) {
	p.Route = [4]int32{routeRouted | int32(len(path))<<routeCountShift}
	for i, h := range path {
		if i == split {
			vc++
		}
		hop := uint32(h.FromPort) | uint32(vc)<<routeVCShift
		p.Route[1+i/routeHopsPerInt] |= int32(hop << (routeHopBits * (i % routeHopsPerInt)))
		if h.Class == LinkGlobal {
			vc++
		}
	}
}

// works says whether none of path's links has failed.
func (w *network) works(path Path) bool {
	for _, h := range path {
		if c := w.out[h.From][h.FromPort]; c == nil || c.Failed() {
			return false
		}
	}
	return true
}

// detour replaces the rest of p's route at Aries a, where its next link
// has failed, or at its source when the new tables avoid a failed link on
// its deterministic route: "If a link fails, the router automatically
// stops sending packets in that direction" ([ARIES-WP] Network
// Reliability, Availability and Serviceability), and the HSS's new tables
// route round it. The new route is a minimal one from a, or failing that
// a non-minimal one, that avoids the failed links and keeps the VC order
// that rules out credit cycles (see the VCs above): its first hop stays
// on the packet's VC only if it is of a class after the class of the
// packet's last hop, else it starts on the next VC, and its last hop must
// still be on one of the class's VCs. A deterministic packet takes the
// first such route of a sequence drawn from its hash (the same for every
// packet of its flow); an adaptive one the least loaded of up to
// MinimalCandidates+NonMinimalCandidates drawn at random. false: none
// fits within 2 x (CandidateRetries+1) draws, and the packet is lost (its
// transaction times out and is retried from its source).
func (w *network) detour(a int, p *fabric.Packet) bool {
	vc, last := 0, LinkClass(0)
	after := false // the new route's first hop must come after last on vc
	if i := int(p.Route[0] & routeIndexMask); p.Route[0]&routeRouted != 0 && i > 0 {
		hop := w.hop(p, i-1)
		vc, after = int(hop>>routeVCShift), true
		last, _ = PortClass(int(hop & routePortMask))
	}
	dst := p.DstRouter
	tries := 2 * (CandidateRetries + 1)
	found, bestCost, bestSplit, bestStart := 0, -1, -1, 0
	for k := range tries {
		r := [3]uint64{mix(p.Hash + uint64(k)), mix(p.Hash ^ uint64(k)<<32), mix(^p.Hash + uint64(k))}
		if p.Adaptive {
			r = [3]uint64{w.rng.Uint64(), w.rng.Uint64(), w.rng.Uint64()}
		}
		nonMinimal := k >= tries/2
		split := -1
		path := w.cand[0][:0]
		if nonMinimal {
			path, split = w.nonMinimal(path, a, dst, r[0], r[1], r[2])
		} else {
			path = w.minimal(path, a, dst, r[0])
		}
		w.cand[0] = path
		if len(path) == 0 || !w.works(path) {
			continue
		}
		start := vc
		if after && path[0].Class <= last {
			start++
		}
		top := start // the VC offset of the last hop
		for i, h := range path[:len(path)-1] {
			if h.Class == LinkGlobal {
				top++
			}
			if i+1 == split {
				top++
			}
		}
		if split == 0 {
			top++
		}
		if top >= RequestVCs {
			continue
		}
		if !p.Adaptive {
			w.detourBest, bestSplit, bestStart = append(w.detourBest[:0], path...), split, start
			found = 1
			break
		}
		cost, _ := w.cost(path)
		if nonMinimal {
			cost += w.opts.bias
		}
		if found == 0 || cost < bestCost {
			w.detourBest, bestCost, bestSplit, bestStart = append(w.detourBest[:0], path...), cost, split, start
		}
		if found++; found == MinimalCandidates+NonMinimalCandidates {
			break
		}
	}
	if found == 0 {
		return false
	}
	w.storeFrom(p, w.detourBest, bestSplit, bestStart)
	p.Route[0] |= routeDetoured
	if bestSplit >= 0 {
		p.Route[0] |= routeNonMinimal
	}
	w.detours++
	return true
}

// mix is SplitMix64's finaliser: the deterministic detours' draws from a
// packet's hash.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// channelName names a channel for the trace.
func (w *network) channelName(c *fabric.Channel) string {
	switch {
	case c.To() == nil:
		return fmt.Sprintf("Aries %d ejection tile %d", c.From().ID, c.ID())
	case c.From() == nil:
		return fmt.Sprintf("Aries %d injection tile %d", c.To().ID, c.ID())
	}
	a := c.From().ID
	for port, o := range w.out[a] {
		if o == c {
			class, _ := PortClass(port)
			loc, _ := w.df.AriesLocation(a)
			return fmt.Sprintf("Aries %d (%v) %v port %d to Aries %d", a, loc, class, port, c.To().ID)
		}
	}
	return fmt.Sprintf("Aries %d link %d", a, c.ID())
}
