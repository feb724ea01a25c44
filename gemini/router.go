package gemini

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/fabric"
)

// The router (WP 3) is the fabric's: each torus connection direction and
// each processor tile is a channel that sends one packet at a time, a phit
// per PhitTime (connections) or per router cycle (tiles), with
// per-virtual-channel credits for the input buffer at its far end (virtual
// cut-through). A torus connection's 4 links carry a packet's phits
// together, so a connection is one channel of LinksPerConnection lanes; a
// failed link leaves 3/4 of them (WP 3.1). Routing is minimal: hashed
// deterministic (dimension order, a connection chosen by a hash of source,
// destination and optionally the address) or adaptive, packet by packet,
// over every connection of every dimension still to travel, by the load of
// the outputs.

// network is the torus of one job: its Geminis' routers and the
// connections between them, and the nodes' host interfaces.
type network struct {
	opts    options
	torus   *Torus
	routers []*fabric.Router
	// out[g][dim][dirIndex] are Gemini g's connections towards its
	// neighbour in that direction (2 in x and z, 1 in y; none at an open
	// edge).
	out   [][DimCount][2][]*fabric.Channel
	hosts []*host
	// rerouted: the management software has put new routing tables into
	// effect after a connection failed in the run (fabric.Rerouter);
	// dist[d] is then, once needed, every Gemini's distance to Gemini d
	// over working connections (-1: none).
	rerouted bool
	dist     map[int][]int32
	// in[h] are the Geminis with a working connection to Gemini h, for
	// dist; made when first needed after each re-route.
	in [][]int32
}

func newNetwork(opts options) *network { return &network{opts: opts} }

func dirIndex(d Dir) int {
	if d < 0 {
		return 1
	}
	return 0
}

// build makes the job's torus: a router per Gemini, its connections, and
// the failed ones.
func (w *network) build(m *fabric.Machine, nodes int) (fabric.Topology, error) {
	t, err := w.opts.torus(nodes)
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
	w.out = make([][DimCount][2][]*fabric.Channel, t.Geminis())
	for g, r := range w.routers {
		for d := range Dim(DimCount) {
			for _, dir := range []Dir{DirPlus, DirMinus} {
				to, ok := t.Neighbor(g, d, dir)
				if !ok {
					continue
				}
				for range t.Connections(d) {
					c := m.NewLink(r, w.routers[to], PhitTime, LinkFlight, LinksPerConnection)
					w.out[g][d][dirIndex(dir)] = append(w.out[g][d][dirIndex(dir)], c)
				}
			}
		}
	}
	if err := w.applyFaults(m); err != nil {
		return nil, err
	}
	return w, nil
}

// applyFaults marks failed connections (all links down: adaptive traffic
// avoids them, deterministic traffic through them is lost) and degraded
// ones (some links down: the rest carry the traffic more slowly); a timed
// fault happens at its time in the run (fabric.Machine.FailAt, DegradeAt),
// when under deterministic routing the management software re-routes.
func (w *network) applyFaults(m *fabric.Machine) error {
	for _, f := range w.opts.faults {
		if f.gemini < 0 || f.gemini >= len(w.routers) {
			return fmt.Errorf("gemini: option fail: fault %v: Gemini %d outside the %d-Gemini torus", f, f.gemini, len(w.routers))
		}
		conns := w.out[f.gemini][f.dim][dirIndex(f.dir)]
		if f.conn >= len(conns) {
			return fmt.Errorf("gemini: option fail: fault %v: connection %d of Gemini %d %v%v, which has %d", f, f.conn, f.gemini, f.dim, f.dir, len(conns))
		}
		c := conns[f.conn]
		whole := f.links == 0 || f.links >= LinksPerConnection
		switch {
		case whole && f.timed:
			m.FailAt(f.at, c)
		case whole:
			c.Fail()
		case f.timed:
			m.DegradeAt(f.at, LinksPerConnection-f.links, c)
		default:
			c.Degrade(LinksPerConnection - f.links)
		}
	}
	return nil
}

// Reroute puts the management software's new routing tables into effect
// (fabric.Rerouter): from now on deterministic routes, and adaptive ones
// that find no minimal way, avoid every failed connection.
func (w *network) Reroute() {
	w.rerouted = true
	w.dist, w.in = nil, nil
}

// distTo is every Gemini's distance in hops to Gemini d over the working
// connections (-1: no way), by a breadth-first search back from d.
func (w *network) distTo(d int) []int32 {
	if dist, ok := w.dist[d]; ok {
		return dist
	}
	if w.dist == nil {
		w.dist = make(map[int][]int32)
	}
	n := len(w.routers)
	if w.in == nil {
		w.in = make([][]int32, n)
		for g := range w.out {
			for dim := range w.out[g] {
				for _, conns := range w.out[g][dim] {
					for _, c := range conns {
						if !c.Failed() {
							h := c.To().ID
							w.in[h] = append(w.in[h], int32(g))
						}
					}
				}
			}
		}
	}
	in := w.in
	dist := make([]int32, n)
	for i := range dist {
		dist[i] = -1
	}
	dist[d] = 0
	queue := []int32{int32(d)}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		for _, g := range in[h] {
			if dist[g] < 0 {
				dist[g] = dist[h] + 1
				queue = append(queue, g)
			}
		}
	}
	w.dist[d] = dist
	return dist
}

// onTables marks a packet that follows the re-routed tables to its
// destination (p.Route[0]), so that adaptive routing does not take it
// back towards a failed connection.
const onTables = 1

// tableRoute is the re-routed tables' way on from Gemini g: a working
// connection to a Gemini one hop nearer p's destination, the dimension
// order's own choice if it is one, else the first in dimension order (x,
// y, z; + before -; among parallel connections from the one the packet's
// hash chooses); nil if the destination is cut off.
func (w *network) tableRoute(g int, p *fabric.Packet, preferred *fabric.Channel) *fabric.Channel {
	dist := w.distTo(p.DstRouter)
	if dist[g] <= 0 {
		return nil
	}
	next := func(c *fabric.Channel) bool { return c != nil && !c.Failed() && dist[c.To().ID] == dist[g]-1 }
	if next(preferred) {
		return preferred
	}
	for d := range Dim(DimCount) {
		for _, conns := range w.out[g][d] {
			for k := range conns {
				if c := conns[(int(p.Hash%uint64(len(conns)))+k)%len(conns)]; next(c) {
					return c
				}
			}
		}
	}
	return nil
}

// RouterOf is the Gemini of a node.
func (w *network) RouterOf(node int) int { return w.torus.GeminiOfNode(node) }

// Route routes a packet at Gemini r towards another Gemini's NICs, as its
// transaction's routing mode says. No working route: the packet is lost
// and its transaction will time out ([GEMINI-WP] 3.1: routing around a
// lost connection needs new tables), until the management software has
// re-routed (Reroute).
func (w *network) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	if w.rerouted && p.Route[0] == onTables {
		return w.tableRoute(r.ID, p, nil)
	}
	if p.Adaptive {
		c := w.adaptive(r.ID, p)
		if c == nil && w.rerouted {
			p.Route[0] = onTables
			c = w.tableRoute(r.ID, p, nil)
		}
		return c
	}
	c := w.deterministic(r.ID, p)
	if w.rerouted {
		return w.tableRoute(r.ID, p, c)
	}
	if c == nil || c.Failed() {
		return nil
	}
	return c
}

// deterministic follows dimension order x, y, z; among the parallel
// connections, and between the two directions half way round a ring, the
// packet's hash chooses. The connection may have failed; nil at an open
// edge.
func (w *network) deterministic(g int, p *fabric.Packet) *fabric.Channel {
	t := w.torus
	for d := range Dim(DimCount) {
		n, dir, tie := t.Delta(g, p.DstRouter, d)
		if n == 0 {
			continue
		}
		if tie && p.Hash>>8&1 == 1 {
			dir = -dir
		}
		conns := w.out[g][d][dirIndex(dir)]
		if len(conns) == 0 {
			return nil
		}
		return conns[int(p.Hash%uint64(len(conns)))]
	}
	return nil
}

// adaptive chooses the least loaded working connection of every dimension
// and direction still minimal; the hash breaks ties, so equal loads spread.
func (w *network) adaptive(g int, p *fabric.Packet) *fabric.Channel {
	t := w.torus
	var best *fabric.Channel
	bestLoad := 0
	k := 0
	for d := range Dim(DimCount) {
		n, dir, tie := t.Delta(g, p.DstRouter, d)
		if n == 0 {
			continue
		}
		dirs := [2]Dir{dir, -dir}
		nd := 1
		if tie {
			nd = 2
		}
		for _, dd := range dirs[:nd] {
			for _, c := range w.out[g][d][dirIndex(dd)] {
				if c.Failed() {
					continue
				}
				l := c.Load()*4 + int((p.Hash+uint64(k))%4)
				k++
				if best == nil || l < bestLoad {
					best, bestLoad = c, l
				}
			}
		}
	}
	return best
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
	for d := range Dim(DimCount) {
		for i, dir := range []Dir{DirPlus, DirMinus} {
			for _, o := range w.out[g][d][i] {
				if o == c {
					return fmt.Sprintf("Gemini %d %v%v connection %d", g, d, dir, c.ID())
				}
			}
		}
	}
	return fmt.Sprintf("Gemini %d connection %d", g, c.ID())
}
