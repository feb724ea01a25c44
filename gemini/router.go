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
	if err := w.applyFaults(); err != nil {
		return nil, err
	}
	return w, nil
}

// applyFaults marks failed connections (all links down: adaptive traffic
// avoids them, deterministic traffic through them is lost) and degraded
// ones (some links down: the rest carry the traffic more slowly).
func (w *network) applyFaults() error {
	for _, f := range w.opts.faults {
		if f.gemini < 0 || f.gemini >= len(w.routers) {
			return fmt.Errorf("gemini: fault on Gemini %d outside the %d-Gemini torus", f.gemini, len(w.routers))
		}
		conns := w.out[f.gemini][f.dim][dirIndex(f.dir)]
		if f.conn >= len(conns) {
			return fmt.Errorf("gemini: fault on connection %d of Gemini %d %v%v, which has %d", f.conn, f.gemini, f.dim, f.dir, len(conns))
		}
		c := conns[f.conn]
		if f.links == 0 || f.links >= LinksPerConnection {
			c.Fail()
			continue
		}
		c.Degrade(LinksPerConnection - f.links)
	}
	return nil
}

// RouterOf is the Gemini of a node.
func (w *network) RouterOf(node int) int { return w.torus.GeminiOfNode(node) }

// Route routes a packet at Gemini r towards another Gemini's NICs, as its
// transaction's routing mode says. No working route: the packet is lost
// and its transaction will time out (WP 3.1: routing around a lost
// connection needs new tables).
func (w *network) Route(r *fabric.Router, p *fabric.Packet) *fabric.Channel {
	if p.Adaptive {
		return w.adaptive(r.ID, p)
	}
	return w.deterministic(r.ID, p)
}

// deterministic follows dimension order x, y, z; among the parallel
// connections, and between the two directions half way round a ring, the
// packet's hash chooses.
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
		c := conns[int(p.Hash%uint64(len(conns)))]
		if c.Failed() {
			return nil
		}
		return c
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
