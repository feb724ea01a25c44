package aries

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gopgas/gopgas/aries/dragonfly"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/sim"
)

// The routing of a job's Dragonfly on the fabric (whitepaper, Cray XC
// Routing; Aries Router): the routers and links of the system's Aries
// (build; tiles.go describes the routers and links), and for each packet
// the path it takes.
//
// # Routes
//
// A route is chosen whole at the source Aries, as a path of hops (the
// dragonfly package), and kept in the packet (p.Route, packet.go) for the
// Aries after it to follow: at most MaxNonMinimalHops hops, each an output
// port and a virtual channel offset. An adaptive packet on a minimal route
// is routed again at each Aries of its source group it reaches before its
// global hop (every tile's routing pipeline makes the choice, Aries
// Router; the progressive option turns this off): it keeps the rest of its
// route unless a fresh candidate from there is less loaded, and a new
// route may not start with a link of a class it has taken (reconsider).
// Deterministic packets take a minimal path chosen by their hash, so that
// packets of one ordered stream follow one path and arrive in order
// ("Where the runtime requires ordered packet delivery, the route is
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
	// A partition of a partitioned run (the workers option) has a cache
	// of its own, of partitionCandidateSlots, or fewer when the
	// partitions are many, so that their caches together hold at most
	// partitionCandidateTotal slots: a group's packets start mostly at
	// its own 96 Aries, and a cache of the whole machine's size in each
	// of 241 partitions would take 600 MiB.
	partitionCandidateSlots    = 1 << 12
	partitionCandidateSlotsMin = 1 << 10
	partitionCandidateTotal    = 4 * candidateCacheSlots
)

// routeSeed seeds the adaptive routing's random choices ("ARIES" in ASCII).
const routeSeed = 0x4152494553

// routing is the Dragonfly of one job on the fabric and its routing: a
// fabric router per Aries of the system, a fabric link per direction of
// every green, black and global link, the loads the routing sees and the
// state of its choices.
type routing struct {
	// The adaptive routing's options: bias, valiant and progressive
	// (options).
	bias        int
	valiant     bool
	progressive bool

	df      *Dragonfly
	routers []*fabric.Router
	// out[a][port] is the link leaving Aries a by network port port; nil
	// if the port is not cabled.
	out [][NetworkPortsPerAries]*fabric.Channel
	// cabled[a] has bit port set when out[a][port] is not nil: what a
	// candidate's cost asks of every hop, from 8 bytes an Aries rather
	// than a row of pointers (a cache line fewer per hop).
	cabled []uint64
	// The remote loads the routing sees: snaps[a*NetworkPortsPerAries +
	// port] is the load of that link when last sampled, and when that was.
	snaps []loadSample
	// clock, when set, is the simulation's clock (the fabric Machine's):
	// remote loads are then sampled every LoadUpdatePeriod; without it
	// (tests of routes on a network no job runs) they are seen as they are.
	clock interface{ Now() Time }
	// fab is the machine of the channels (MayFail), when built on one.
	fab *fabric.Machine
	// rngs make the adaptive routing's random choices, a stream per
	// Aries for the choices made there: seeded the same for every job,
	// and each drawn in the order of its Aries' own events, so that a run
	// repeats exactly and a draw does not depend on the order of other
	// routers' events.
	rngs []rand.PCG
	// candCache caches candidates by source Aries and destination group,
	// in at most candSlots slots (candidateCacheSlots when 0).
	candCache []candidateEntry
	candSlots int64
	// cand are buffers for the candidate paths, draws the random draws
	// they are made from (bestCandidate): a non-minimal one's via, up and
	// down, a minimal one's in its second.
	cand  [MinimalCandidates + NonMinimalCandidates]Path
	draws [MinimalCandidates + NonMinimalCandidates][3]uint64
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
}

// down says whether link c, perhaps of another partition's Aries, is
// missing or out of service as the routing sees it now (fabric
// Channel.FailedAt).
func (rt *routing) down(c *fabric.Channel) bool {
	switch {
	case c == nil:
		return true
	case rt.clock == nil:
		return c.Failed()
	}
	return c.FailedAt(rt.clock.Now())
}

// A port's bit in routing.cabled fits a word.
var _ [64 - NetworkPortsPerAries]struct{}

// newRouting is the routing with the options' adaptive choices, before
// build.
func newRouting(opts options) routing {
	return routing{bias: opts.bias, valiant: opts.valiant, progressive: opts.progressive}
}

// build makes the routers and links of the system d on m: a router per
// Aries, a link per direction of each of its links (TileOfPort gives the
// tiles at either end), and the routing's state.
func (rt *routing) build(m *fabric.Machine, d *Dragonfly) error {
	rt.df = d
	n := d.Aries()
	rt.routers = make([]*fabric.Router, n)
	for a := range rt.routers {
		rt.routers[a] = m.NewRouter()
	}
	rt.out = make([][NetworkPortsPerAries]*fabric.Channel, n)
	rt.cabled = make([]uint64, n)
	electrical, optical := linkUnitTime(ElectricalLinkBytesPerSecond), linkUnitTime(OpticalLinkBytesPerSecond)
	for a := range n {
		for port := range NetworkPortsPerAries {
			h, ok, err := d.Link(a, port)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			unit, flight := electrical, Time(LinkFlight)
			if h.Class == LinkGlobal {
				unit, flight = optical, OpticalFlight
			}
			c := m.NewLink(rt.routers[a], rt.routers[h.To], unit, flight, LanesPerLink)
			c.SetTiles(TileOfPort(port), TileOfPort(h.ToPort))
			rt.out[a][port] = c
			rt.cabled[a] |= 1 << port
		}
	}
	rt.rngs = make([]rand.PCG, n)
	for a := range rt.rngs {
		rt.rngs[a].Seed(routeSeed, uint64(a))
	}
	rt.clock, rt.fab = m, m
	rt.snaps = make([]loadSample, n*NetworkPortsPerAries)
	for i := range rt.snaps {
		rt.snaps[i].at = -LoadUpdatePeriod
	}
	for i := range rt.cand {
		rt.cand[i] = make(Path, 0, MaxNonMinimalHops)
	}
	return nil
}

// Route takes a packet on from Aries r: at its source Aries it chooses the
// packet's path (deterministic or adaptive as the packet says); after that
// it follows it. nil: no working way on; the packet is lost and its
// transaction times out (Network Reliability, Availability and
// Serviceability).
func (rt *routing) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	switch {
	case p.Route[0]&routeRouted == 0:
		if !rt.choose(r.ID, p) {
			return nil
		}
	case p.Adaptive && rt.progressive && p.Route[0]&(routeNonMinimal|routeGlobalTaken|routeDetoured) == 0:
		rt.reconsider(r.ID, p)
	}
	i := int(p.Route[0] & routeIndexMask)
	if i >= int(p.Route[0]>>routeCountShift&routeIndexMask) {
		return nil // the path ended elsewhere than the destination: a bug, lose the packet
	}
	hop := routeHop(p, i)
	port := int(hop & routePortMask)
	c := rt.out[r.ID][port]
	if c == nil || c.Failed() {
		// A failed link ahead: adaptive routing goes round it; a
		// deterministic packet only once the tables avoid it, else it is
		// lost.
		if !p.Adaptive && !rt.newTables || !rt.detour(r.ID, p) {
			return nil
		}
		hop = routeHop(p, 0)
		port = int(hop & routePortMask)
		c = rt.out[r.ID][port]
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
func (rt *routing) choose(src int, p *fabric.Packet) bool {
	dst := int(p.DstRouter)
	if !p.Adaptive {
		path := rt.minimal(rt.cand[0][:0], src, dst, p.Hash)
		if rt.newTables && !rt.works(path) {
			// The new tables route round the failed link.
			return rt.detour(src, p)
		}
		storeRoute(p, path, -1)
		rt.minimalRoutes++
		return true
	}
	best, _, split := rt.bestCandidate(src, dst, LinkGreen, -1, CandidateRetries)
	if best < 0 {
		return false
	}
	storeRoute(p, rt.cand[best], split)
	if split >= 0 {
		p.Route[0] |= routeNonMinimal
		rt.nonMinimalRoutes++
	} else {
		rt.minimalRoutes++
	}
	return true
}

// bestCandidate draws the adaptive routing's candidates from Aries src to
// dst into rt.cand (MinimalCandidates minimal, unless the valiant option,
// and NonMinimalCandidates non-minimal) and returns the least loaded whose
// first hop is of class first or after it, with its cost and the hop its
// non-minimal part starts at (-1: minimal); -1 if every one crosses a
// failed link, or, when limit is not negative, none costs less than
// limit. With every candidate ruled out it draws again, up to retries
// times.
//
// Where no link can fail, a candidate is first made only as far as its
// cost reads it, up to its first global hop (candidateHead), and the one
// chosen is then made whole from the same draws: the choice is the one
// the whole routes give, as long as the hops left out are cabled, which
// the chosen route's are checked to be (if one were not, the choice is
// made again from the whole routes).
func (rt *routing) bestCandidate(src, dst int, first LinkClass, limit, retries int) (best, bestCost, bestSplit int) {
	best, bestCost, bestSplit = -1, limit, -1
	heads := rt.fab != nil && !rt.fab.MayFail() && !rt.newTables
	rng := &rt.rngs[src]
	for try := 0; try <= retries && best < 0; try++ {
		for k := range rt.cand {
			if k < MinimalCandidates && rt.valiant {
				continue
			}
			d := &rt.draws[k]
			if k >= MinimalCandidates {
				d[0], d[1], d[2] = rng.Uint64(), rng.Uint64(), rng.Uint64()
			} else {
				d[1] = rng.Uint64()
			}
		}
		best, bestCost, bestSplit = rt.weigh(src, dst, first, limit, heads)
		if heads && best >= 0 {
			var path Path
			path, bestSplit = rt.candidate(best, src, dst)
			if !rt.allCabled(path) {
				best, bestCost, bestSplit = rt.weigh(src, dst, first, limit, false)
			}
		}
	}
	return best, bestCost, bestSplit
}

// weigh makes the candidates of the draws in rt.draws into rt.cand, only
// their heads (candidateHead) if heads, and returns the least loaded as
// bestCandidate does; with heads, the split it returns is not yet known.
func (rt *routing) weigh(src, dst int, first LinkClass, limit int, heads bool) (best, bestCost, bestSplit int) {
	best, bestCost, bestSplit = -1, limit, -1
	for k := range rt.cand {
		nonMinimal := k >= MinimalCandidates
		if !nonMinimal && rt.valiant {
			continue
		}
		var path Path
		split := -1
		if heads {
			path = rt.candidateHead(k, src, dst)
		} else {
			path, split = rt.candidate(k, src, dst)
		}
		if len(path) > 0 && path[0].Class < first {
			continue
		}
		cost, ok := rt.cost(path)
		if !ok {
			continue
		}
		if nonMinimal {
			cost += rt.bias
		}
		if (best < 0 && bestCost < 0) || cost < bestCost {
			best, bestCost, bestSplit = k, cost, split
		}
	}
	return best, bestCost, bestSplit
}

// candidate makes candidate k of the draws in rt.draws into rt.cand[k]
// and returns it and its split (nonMinimal's; -1 for a minimal one).
func (rt *routing) candidate(k, src, dst int) (Path, int) {
	d := &rt.draws[k]
	path, split := rt.cand[k][:0], -1
	if k >= MinimalCandidates {
		path, split = rt.nonMinimal(path, src, dst, d[0], d[1], d[2])
	} else {
		path = rt.minimal(path, src, dst, d[1])
	}
	rt.cand[k] = path
	return path, split
}

// candidateHead makes candidate k as far as its cost reads it (the hops
// up to its first global hop, or all of it if it has none) into
// rt.cand[k], hop for hop as candidate makes them.
func (rt *routing) candidateHead(k, src, dst int) Path {
	d := &rt.draws[k]
	path := rt.cand[k][:0]
	if k < MinimalCandidates {
		path = rt.minimalHead(path, src, dst, d[1])
	} else {
		a := rt.intermediate(src, dst, d[0])
		path = rt.minimalHead(path, src, a, d[1])
		if src/AriesPerGroup == a/AriesPerGroup {
			// No global hop yet: the second part's head.
			path = rt.minimalHead(path, a, dst, d[2])
		}
	}
	rt.cand[k] = path
	return path
}

// minimalHead is minimal's path as far as its global hop (all of it
// within a group).
func (rt *routing) minimalHead(path Path, src, dst int, r uint64) Path {
	if src/AriesPerGroup == dst/AriesPerGroup {
		return rt.minimal(path, src, dst, r)
	}
	i, choice, ok := rt.minimalChoice(src, dst/AriesPerGroup, r)
	if !ok {
		return path // as minimal
	}
	return rt.df.AppendMinimalViaHead(path, src, dst, i, choice)
}

// allCabled says whether every hop of path has a link.
func (rt *routing) allCabled(path Path) bool {
	for _, h := range path {
		if rt.cabled[h.From]>>h.FromPort&1 == 0 {
			return false
		}
	}
	return true
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
func (rt *routing) reconsider(a int, p *fabric.Packet) {
	taken := p.Route[0] & (routeGreenTaken | routeBlackTaken)
	first := LinkBlack
	if taken&routeBlackTaken != 0 {
		first = LinkGlobal
	}
	rest := rt.remaining(a, p)
	limit, ok := rt.cost(rest)
	retries := 0
	if !ok {
		limit, retries = -1, CandidateRetries
	}
	best, _, split := rt.bestCandidate(a, int(p.DstRouter), first, limit, retries)
	if best < 0 {
		return
	}
	storeRoute(p, rt.cand[best], split)
	p.Route[0] |= taken
	rt.rerouted++
	if split >= 0 {
		p.Route[0] |= routeNonMinimal
		rt.reroutedNonMinimal++
	}
}

// remaining is the rest of p's route from Aries a, in rt.rest.
func (rt *routing) remaining(a int, p *fabric.Packet) Path {
	path := rt.rest[:0]
	n := int(p.Route[0] >> routeCountShift & routeIndexMask)
	for i := int(p.Route[0] & routeIndexMask); i < n; i++ {
		h, ok, err := rt.df.Link(a, int(routeHop(p, i)&routePortMask))
		if !ok || err != nil {
			break
		}
		path = append(path, h)
		a = h.To
	}
	rt.rest = path
	return path
}

// minimal appends to path a minimal path from Aries src to Aries dst
// chosen by r: the global link among those nearest src (Minimal), the
// black lane of each local segment; the green hop of a segment always
// comes first (see the VCs above).
func (rt *routing) minimal(path Path, src, dst int, r uint64) Path {
	d := rt.df
	gs, gd := src/AriesPerGroup, dst/AriesPerGroup
	if gs == gd {
		return d.AppendMinimal(path, src, dst, dragonfly.GreenFirst(r%BlackLinksPerPeer, 0))
	}
	i, choice, ok := rt.minimalChoice(src, gd, r)
	if !ok {
		return path // no working global link to the group: no path
	}
	return d.AppendMinimalVia(path, src, dst, i, choice)
}

// minimalChoice is the global link and the lanes minimal chooses by r
// from Aries src to group gd, another than src's; false if no working
// link leads there (in the new tables).
func (rt *routing) minimalChoice(src, gd int, r uint64) (link int, choice uint64, ok bool) {
	var cs candidateSet
	if rt.newTables {
		if cs = rt.workingCandidates(src, gd); cs.n == 0 {
			return 0, 0, false
		}
	} else {
		cs = rt.candidates(src, gd)
	}
	n := uint64(cs.n)
	i := int(r % n)
	if len(cs.links) > 0 {
		i = int(cs.links[i])
	}
	r /= n
	// The source segment's lane, then the destination segment's.
	return i, dragonfly.GreenFirst(r%BlackLinksPerPeer, r/BlackLinksPerPeer%BlackLinksPerPeer), true
}

// candidateRoom is the least room a cache slot's list of candidates is
// made with, so that the sets the slot holds next fit in it: on the full
// system a set of candidates that is not every link between the groups
// has at most two (counted under uniform random traffic), and lists made
// to each set's own length, dropped when a set of every link took the
// slot, made 40 MB of garbage in a run.
const candidateRoom = 4

// candidateSet is the global links nearest an Aries towards another group
// (Dragonfly.Minimal's candidates): links[k] for k < n, or every link from
// 0 to n-1 if links is empty (its room kept for the cache slot's next set).
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
// tables), so that memory stays bounded on the largest systems. The set
// is good until the next call (which may reuse its room).
func (rt *routing) candidates(src, gd int) candidateSet {
	key := int64(src)*int64(rt.df.Groups()) + int64(gd) + 1
	pairs := int64(rt.df.Aries()) * int64(rt.df.Groups())
	slots := rt.candSlots
	if slots == 0 {
		slots = candidateCacheSlots
	}
	if rt.candCache == nil {
		rt.candCache = make([]candidateEntry, min(pairs, slots))
	}
	i := uint64(key - 1) // a slot per pair when they fit
	if pairs > slots {
		i = uint64(key) * candidateHashMultiplier >> 32
	}
	slot := &rt.candCache[i%uint64(len(rt.candCache))]
	if slot.key == key {
		return slot.set
	}
	var buf [dragonfly.MaxCandidates]int
	n, all := rt.df.CandidateLinks(src, gd, &buf)
	// The set the slot held makes room for this one's, if it has enough
	// (a set of every link keeps the room for the next): a miss on the
	// largest systems makes no garbage.
	cs := candidateSet{n: int32(n), links: slot.set.links[:0]}
	if !all {
		if cap(cs.links) < n {
			cs.links = make([]int32, n, max(n, candidateRoom))
		}
		cs.links = cs.links[:n]
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
func (rt *routing) workingCandidates(src, gd int) candidateSet {
	key := int64(src)*int64(rt.df.Groups()) + int64(gd)
	if cs, ok := rt.candWorking[key]; ok {
		return cs
	}
	if rt.candWorking == nil {
		rt.candWorking = make(map[int64]candidateSet)
	}
	d := rt.df
	gs := src / AriesPerGroup
	cables, _ := d.CablesBetween(gs, gd)
	links := LinksPerCable * cables
	best := MaxLocalMinimalHops + 1
	var cs candidateSet
	for i := range links {
		h, _ := d.GlobalLink(gs, gd, i)
		if rt.down(rt.out[h.From][h.FromPort]) {
			continue
		}
		dist := dragonfly.LocalDistance(src, h.From)
		if dist < best {
			best, cs.links = dist, cs.links[:0]
		}
		if dist == best {
			cs.links = append(cs.links, int32(i))
		}
	}
	cs.n = int32(len(cs.links))
	rt.candWorking[key] = cs
	return cs
}

// nonMinimal appends to path a non-minimal (Valiant) path from src to dst
// and returns it and the number of its hops up to the intermediate Aries:
// minimal (chosen by up) to an Aries chosen by via, then minimal (chosen by
// down) to dst. The intermediate Aries is in the group for a route within a
// group (Cray XC Routing's "root"); else in a group other than the
// source's and the destination's, or the destination's if there is no
// other.
func (rt *routing) nonMinimal(path Path, src, dst int, via, up, down uint64) (Path, int) {
	a := rt.intermediate(src, dst, via)
	path = rt.minimal(path, src, a, up)
	split := len(path)
	return rt.minimal(path, a, dst, down), split
}

// intermediate is nonMinimal's intermediate Aries, chosen by via.
func (rt *routing) intermediate(src, dst int, via uint64) int {
	d := rt.df
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
	chassis, _ := d.ChassisInGroup(g)
	return g*AriesPerGroup + int(via%uint64(chassis*AriesPerChassis))
}

// cost is a candidate path's load as the source Aries sees it: the load
// of its first link now plus the highest load of the links after it, up to
// its first global link, as last sampled (the remote links whose load
// reaches the Aries, Cray XC Routing); false if one of its links has
// failed.
func (rt *routing) cost(path Path) (int, bool) {
	// Where no link can have failed, a path is ruled out only by a hop
	// without a link, which the channels themselves need not be read for.
	if rt.fab == nil || rt.fab.MayFail() {
		if !rt.works(path) {
			return 0, false
		}
	} else {
		for _, h := range path {
			if rt.cabled[h.From]>>h.FromPort&1 == 0 {
				return 0, false
			}
		}
	}
	if len(path) == 0 {
		return 0, true
	}
	first := path[0]
	remote := 0
	if first.Class != LinkGlobal {
		for _, h := range path[1:] {
			remote = max(remote, rt.sampled(h.From, h.FromPort))
			if h.Class == LinkGlobal {
				break
			}
		}
	}
	return rt.out[first.From][first.FromPort].Load() + remote, true
}

// sampled is the load of the link leaving Aries a by port as the routing
// sees it: sampled every LoadUpdatePeriod when the network has a clock,
// else the load now.
func (rt *routing) sampled(a, port int) int {
	c := rt.out[a][port]
	if rt.clock == nil {
		return c.Load()
	}
	s := &rt.snaps[a*NetworkPortsPerAries+port]
	if now := rt.clock.Now(); now-s.at >= LoadUpdatePeriod {
		// The sample the Aries last received: taken at the last multiple
		// of the period.
		s.at = now - now%LoadUpdatePeriod
		s.load = int32(min(c.Load(), math.MaxInt32))
	}
	return int(s.load)
}

// loadSample is a remote link's load as last sampled (routing.snaps),
// and when: the two together, one cache line to read.
type loadSample struct {
	at   Time
	load int32
}

// works says whether none of path's links has failed.
func (rt *routing) works(path Path) bool {
	for _, h := range path {
		if rt.down(rt.out[h.From][h.FromPort]) {
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
func (rt *routing) detour(a int, p *fabric.Packet) bool {
	vc, last := 0, LinkClass(0)
	after := false // the new route's first hop must come after last on vc
	if i := int(p.Route[0] & routeIndexMask); p.Route[0]&routeRouted != 0 && i > 0 {
		hop := routeHop(p, i-1)
		vc, after = int(hop>>routeVCShift), true
		last, _ = PortClass(int(hop & routePortMask))
	}
	dst := int(p.DstRouter)
	tries := 2 * (CandidateRetries + 1)
	found, bestCost, bestSplit, bestStart := 0, -1, -1, 0
	for k := range tries {
		r := [3]uint64{sim.Mix64(p.Hash + uint64(k)), sim.Mix64(p.Hash ^ uint64(k)<<32), sim.Mix64(^p.Hash + uint64(k))}
		if p.Adaptive {
			rng := &rt.rngs[a]
			r = [3]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64()}
		}
		nonMinimal := k >= tries/2
		split := -1
		path := rt.cand[0][:0]
		if nonMinimal {
			path, split = rt.nonMinimal(path, a, dst, r[0], r[1], r[2])
		} else {
			path = rt.minimal(path, a, dst, r[0])
		}
		rt.cand[0] = path
		if len(path) == 0 || !rt.works(path) {
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
			rt.detourBest, bestSplit, bestStart = append(rt.detourBest[:0], path...), split, start
			found = 1
			break
		}
		cost, _ := rt.cost(path)
		if nonMinimal {
			cost += rt.bias
		}
		if found == 0 || cost < bestCost {
			rt.detourBest, bestCost, bestSplit, bestStart = append(rt.detourBest[:0], path...), cost, split, start
		}
		if found++; found == MinimalCandidates+NonMinimalCandidates {
			break
		}
	}
	if found == 0 {
		return false
	}
	storeRouteFrom(p, rt.detourBest, bestSplit, bestStart)
	p.Route[0] |= routeDetoured
	if bestSplit >= 0 {
		p.Route[0] |= routeNonMinimal
	}
	rt.detours++
	return true
}

// channelName names a channel for the trace.
func (rt *routing) channelName(c *fabric.Channel) string {
	switch {
	case c.To() == nil:
		return fmt.Sprintf("Aries %d ejection tile %d", c.From().ID, c.ID())
	case c.From() == nil:
		return fmt.Sprintf("Aries %d injection tile %d", c.To().ID, c.ID())
	}
	a := c.From().ID
	for port, o := range rt.out[a] {
		if o == c {
			class, _ := PortClass(port)
			loc, _ := rt.df.AriesLocation(a)
			return fmt.Sprintf("Aries %d (%v) %v port %d to Aries %d", a, loc, class, port, c.To().ID)
		}
	}
	return fmt.Sprintf("Aries %d link %d", a, c.ID())
}
