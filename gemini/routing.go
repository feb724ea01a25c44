package gemini

import (
	"github.com/gopgas/gopgas/gemini/torus"
	"github.com/gopgas/gopgas/internal/fabric"
)

// Routing: the decisions the job's torus makes for the fabric's routers
// (fabric.Topology, fabric.Rerouter).
//
// The router ([GEMINI-WP] 3) is the fabric's: each torus connection
// direction and each processor tile is a channel that sends one packet at a
// time, a phit per PhitTime (connections) or per router cycle (tiles), with
// per-virtual-channel credits for the input buffer at its far end (virtual
// cut-through). A torus connection's 4 links carry a packet's phits
// together, so a connection is one channel of torus.LinksPerConnection
// lanes; a failed link leaves 3/4 of them ([GEMINI-WP] 3.1). Routing is
// minimal: hashed deterministic (dimension order, a connection chosen by a
// hash of source, destination and optionally the address) or adaptive,
// packet by packet, over every connection of every dimension still to
// travel, by the load of the outputs. After a connection fails in the run,
// the management software's re-routed tables take over (Reroute).

// RouterOf is the Gemini of a node.
func (w *network) RouterOf(node int) int { return w.torus.GeminiOfNode(node) }

// Route routes a packet at Gemini r towards another Gemini's NICs, as its
// transaction's routing mode says. No working route: the packet is lost
// and its transaction will time out ([GEMINI-WP] 3.1: routing around a
// lost connection needs new tables), until the management software has
// re-routed (Reroute).
func (w *network) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	tb := &w.tables[0]
	if len(w.tables) > 1 {
		tb = &w.tables[r.Partition()]
	}
	if tb.rerouted && p.Route[0] == onTables {
		return w.tableRoute(tb, r, p, nil)
	}
	if p.Adaptive {
		c := w.adaptive(r.ID, p)
		if c == nil && tb.rerouted {
			p.Route[0] = onTables
			c = w.tableRoute(tb, r, p, nil)
		}
		return c
	}
	c := w.deterministic(r.ID, p)
	if tb.rerouted {
		return w.tableRoute(tb, r, p, c)
	}
	if c == nil || c.Failed() {
		return nil
	}
	return c
}

// deterministic follows dimension order x, y, z (torus.NextStep); among the parallel
// connections, and between the two directions half way round a ring, the
// packet's hash chooses. The connection may have failed; nil at an open
// edge.
func (w *network) deterministic(g int, p *fabric.Packet) *fabric.Channel {
	step, ok := w.torus.NextStep(g, int(p.DstRouter))
	if !ok {
		return nil
	}
	dir := step.Dir
	if step.Tie && p.Hash>>8&1 == 1 {
		dir = -dir
	}
	conns := w.out[g][step.Dim][dir.Index()]
	if len(conns) == 0 {
		return nil
	}
	return conns[int(p.Hash%uint64(len(conns)))]
}

// adaptive chooses the least loaded working connection of every dimension
// and direction still minimal; the hash breaks ties, so equal loads spread.
func (w *network) adaptive(g int, p *fabric.Packet) *fabric.Channel {
	var best *fabric.Channel
	bestLoad := 0
	k := 0
	at, to := &w.coords[g], &w.coords[p.DstRouter]
	for d := range torus.Dim(torus.DimCount) {
		r := w.rings[d]
		n, dir, tie := torus.RingDelta(int(at[d]), int(to[d]), int(r.size), r.closed)
		if n == 0 {
			continue
		}
		dirs := [2]torus.Dir{dir, -dir}
		nd := 1
		if tie {
			nd = 2
		}
		for _, dd := range dirs[:nd] {
			for _, c := range w.out[g][d][dd.Index()] {
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

// Reroute puts the management software's new routing tables into effect
// for partition part's Geminis (fabric.Rerouter): from now on
// deterministic routes, and adaptive ones that find no minimal way, avoid
// every failed connection.
func (w *network) Reroute(part int) {
	tb := &w.tables[part]
	tb.rerouted = true
	tb.dist, tb.in = nil, nil
}

// onTables marks a packet that follows the re-routed tables to its
// destination (p.Route[0]), so that adaptive routing does not take it
// back towards a failed connection.
const onTables = 1

// tableRoute is the re-routed tables' way on from Gemini r: a working
// connection to a Gemini one hop nearer p's destination, the dimension
// order's own choice if it is one, else the first in dimension order (x,
// y, z; + before -; among parallel connections from the one the packet's
// hash chooses); nil if the destination is cut off.
func (w *network) tableRoute(tb *tables, r *fabric.Router, p *fabric.Packet, preferred *fabric.Channel) *fabric.Channel {
	g, now := r.ID, r.Now()
	dist := w.distTo(tb, now, int(p.DstRouter))
	if dist[g] <= 0 {
		return nil
	}
	next := func(c *fabric.Channel) bool { return c != nil && !c.FailedAt(now) && dist[c.To().ID] == dist[g]-1 }
	if next(preferred) {
		return preferred
	}
	for d := range torus.Dim(torus.DimCount) {
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

// distTo is every Gemini's distance in hops to Gemini d over the
// connections working at time now, as tb's partition sees them (-1: no
// way), by a breadth-first search back from d.
func (w *network) distTo(tb *tables, now fabric.Time, d int) []int32 {
	if dist, ok := tb.dist[d]; ok {
		return dist
	}
	if tb.dist == nil {
		tb.dist = make(map[int][]int32)
	}
	n := len(w.routers)
	if tb.in == nil {
		tb.in = make([][]int32, n)
		for g := range w.out {
			for dim := range w.out[g] {
				for _, conns := range w.out[g][dim] {
					for _, c := range conns {
						if !c.FailedAt(now) {
							h := c.To().ID
							tb.in[h] = append(tb.in[h], int32(g))
						}
					}
				}
			}
		}
	}
	in := tb.in
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
	tb.dist[d] = dist
	return dist
}
