package aries

import (
	"fmt"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// The collective engine (whitepaper, Reductions and Barriers;
// calibration row A-CE-SHAPE): each NIC has four virtual CEs, each with one
// operation pending at a time; a job's reduction trees, of branching ratio
// up to 32, are built at job start over its nodes; partial results go up
// the tree, the NICs reducing, and the result comes back down to every
// node. The CE reduces 32- and 64-bit integers and floats with sum, min
// and max, and logical and, or and xor; min and max can carry an
// identifier with the value (MPI_MINLOC, MPI_MAXLOC); there is no product.
const (
	// CEsPerNIC: "The CE block of each Aries NIC provides four virtual
	// CEs".
	CEsPerNIC = 4
	// CEMaxRadix: "The CE supports reduction trees of branching ratio up
	// to 32".
	CEMaxRadix = 32
)

// ceTree is a reduction tree over nodes 0..n-1 with the given radix: node
// 0 is the root and node i's children are radix*i+1 .. radix*i+radix, so
// that the tree's depth is the least d with 1 + radix + ... + radix^d >=
// n (three levels cover 33,825 nodes at radix 32).
type ceTree struct {
	n, radix int
}

func newCETree(n, radix int) (ceTree, error) {
	if n < 1 || radix < 2 || radix > CEMaxRadix {
		return ceTree{}, fmt.Errorf("aries: collective engine tree of %d nodes, radix %d (radix 2..%d)", n, radix, CEMaxRadix)
	}
	return ceTree{n: n, radix: radix}, nil
}

// parent is node i's parent, -1 for the root.
func (t ceTree) parent(i int) int {
	if i == 0 {
		return -1
	}
	return (i - 1) / t.radix
}

// children is the number of node i's children.
func (t ceTree) children(i int) int {
	first := t.radix*i + 1
	if first >= t.n {
		return 0
	}
	return min(t.radix, t.n-first)
}

// child is node i's k-th child.
func (t ceTree) child(i, k int) int { return t.radix*i + 1 + k }

// depth is the number of levels below the root.
func (t ceTree) depth() int {
	d, reach, width := 0, 1, 1
	for reach < t.n {
		width *= t.radix
		reach += width
		d++
	}
	return d
}

// The collective engine's model (whitepaper, Reductions and Barriers; the
// engine's shape is above, the arithmetic of its reductions in
// ce_reduce.go). The runtime offloads the world team's barriers and
// one-element allreduces (pgas/offload.go); each is collective over every
// PE of the job, and every PE's n-th offloaded collective is the job's
// collective n.
//
//  1. "Each node joins a reduction operation supplying its contribution,
//     generally the result of a local shared memory reduction operation":
//     the PEs of a node reduce their values in shared memory in a binary
//     tree, ceil(log2 k) levels for k PEs, each level LocalReducePerLevel
//     of CPU time; the tree's critical path starts when the node's last PE
//     joins. Its root PE then stores the node's contribution into the
//     NIC's CE (an FMA launch, FMALaunch of CPU time, ceStoreBytes across
//     PCI-Express).
//  2. "Partial results are passed up the tree towards the root with the
//     NICs performing the reduction operations": the job's nodes form a
//     ceTree of radix CEMaxRadix, built when the job's first collective
//     starts (the whitepaper builds it "during job initialization"; it
//     costs no simulated time either way). A NIC combines each input, its
//     node's contribution and each child's partial result, in CEOpCycles
//     of its clock, one at a time; once it has them all it sends the
//     partial result to its parent in a control packet (ceFlits) through
//     the real network (internal/fabric control.go).
//  3. "The result is scattered back down the tree and written to memory in
//     each of the participating endpoints. CQ events are generated on each
//     node as the reduction completes": the root's result goes down the
//     tree in control packets; each NIC forwards it to its children and
//     writes it and a completion-queue entry to its node's memory (a
//     posted write, ceResultBytes); the node's PEs see it
//     LocalReducePerLevel later (the PE that took the completion event
//     publishes the result in shared memory, where the others poll for
//     it). Each PE's Collective.Test reports it then, and the PE, if it
//     waits, is woken then.
//
// "At any point in time one collective operation may be pending on each
// of the CEs": collective n uses virtual CE n mod CEsPerNIC of every NIC
// (the software pipelining "their use by a single communicator"), which
// is pending from the first input it takes until the result reaches that
// NIC. A node's contribution to a collective whose CE is still pending
// with an earlier one waits at its NIC until the CE is free (Stats of the
// engine: waits), and so does a child's partial result, though the order
// in which results go down the tree keeps that from happening.
//
// Each reduction combines its inputs in a fixed order whatever the order
// they arrived in: a node's PEs in a binary tree by rank, then at each
// NIC its own contribution and then its children's partial results in
// the order of the children. The same job gives the same bits, and so
// does any timing of its PEs. The identifier that MINLOC and MAXLOC carry
// is the PE's rank when the call comes through the conduit, which has no
// place for one.
//
// Barriers are the same without data. Operations the engine does not have
// (product, logical operations on floats, widths other than 4 and 8) fail
// with conduit.ErrUnsupported, and the runtime reduces in software.

// CE packets and stores. Assumed: the whitepaper (Reductions and Barriers)
// gives no format.
const (
	// ceOperandBytes is an operand in a CE packet: a 64-bit value and a
	// 64-bit identifier (MINLOC and MAXLOC).
	ceOperandBytes = 16
	// ceStoreBytes is the PE's store of its node's contribution into the
	// CE, a 128-bit write like an FMA launch's (Aries Performance: "a
	// single 128-bit write from host to NIC"); PCIeOverheadBytes come on
	// top.
	ceStoreBytes = 16
	// ceResultBytes is the result the NIC writes to its node's memory;
	// a completion-queue entry (CQEntryBytes) comes with it.
	ceResultBytes = 8
)

// ceFlits is the size of a CE packet: a request's header
// (RequestHeaderFlits, A-FLITS) and, for an allreduce, the operand.
func ceFlits(barrier bool) int {
	if barrier {
		return RequestHeaderFlits
	}
	return RequestHeaderFlits + flits(ceOperandBytes)
}

// ceCall is what a collective does: every PE must call the same.
type ceCall struct {
	barrier bool
	op      conduit.ReduceOp
	kind    conduit.ReduceKind
	width   int
}

func (c ceCall) String() string {
	if c.barrier {
		return "barrier"
	}
	return fmt.Sprintf("allreduce %s of %d-byte %s", ceOpName(c.op), c.width, ceKindName(c.kind))
}

// ceStats are the engine's counters.
type ceStats struct {
	Collectives int64 // collectives completed (at the root)
	Packets     int64 // CE packets sent, up and down
	Waits       int64 // inputs that waited at a NIC for a pending CE
}

// engine is a job's collective engine: every NIC's four virtual CEs.
// It is a simnet.Offloader (fabric.Config.Offload). Its events are those
// of a cePart, one for each partition of the machine (one on one kernel):
// a node's state is touched only by its partition's events, and a partial
// result or a result crosses to another node's partition in a control
// packet, like any packet.
type engine struct {
	job   *simnet.Job
	tree  ceTree
	op    Time      // CEOpCycles
	next  []uint64  // by rank: its next collective
	nodes []*ceNode // by node, made at its first collective (node)
	parts []cePart
}

// cePart is the engine in one partition: the actor of that partition's
// engine events, its Machine and kernel, and its counters.
type cePart struct {
	sim.Source // its number among the kernel's actors
	e          *engine
	m          *fabric.Machine
	k          *sim.Kernel
	stats      ceStats
}

// stats are the engine's counters, summed over its partitions.
func (e *engine) stats() ceStats {
	var s ceStats
	for _, p := range e.parts {
		s.Collectives += p.stats.Collectives
		s.Packets += p.stats.Packets
		s.Waits += p.stats.Waits
	}
	return s
}

// newEngine is the collective engine of the job the first call of an
// endpoint comes from.
func newEngine() *engine { return &engine{} }

var _ simnet.Offloader = (*engine)(nil)

// ceNode is the engine's part on one node: the node's local reductions in
// progress and its NIC's virtual CEs.
type ceNode struct {
	id      int
	part    *cePart // the node's partition's
	pes     int     // PEs of the job on the node
	levels  int     // of its local reduction tree
	aluFree Time
	locals  map[uint64]*ceLocal // by collective
	ces     [CEsPerNIC]ceSlot
}

// ceLocal is a node's local reduction of one collective.
type ceLocal struct {
	node   *ceNode
	n      uint64
	call   ceCall
	joined int
	vals   []ceOperand // by PE of the node
	colls  []*ceColl   // by PE of the node
	err    error
}

// ceSlot is a virtual CE of a NIC, pending with collective n (n mod
// CEsPerNIC is its index).
type ceSlot struct {
	node    *ceNode
	n       uint64
	call    ceCall
	parts   []ceOperand // the node's contribution, then the children's partial results
	got     int
	colls   []*ceColl // the node's PEs
	err     error
	res     ceOperand // the root's result
	waiting []ceInput // inputs of later collectives
}

// ceInput is an input of a NIC's CE: part 0 is its node's contribution
// (local), part 1+k its child k's partial result.
type ceInput struct {
	n     uint64
	part  int
	call  ceCall
	v     ceOperand
	err   error
	local *ceLocal
	// waited: it has waited for the CE (counted in ceStats.Waits).
	waited bool
}

// ceDelivery is a result reaching a node's PEs.
type ceDelivery struct {
	colls []*ceColl
	res   ceOperand
	err   error
}

// ceColl is a PE's part of a collective (conduit.Collective).
type ceColl struct {
	e    *engine
	ep   *simnet.Endpoint
	n    uint64
	call ceCall
	v    ceOperand
	done bool
	res  ceOperand
	err  error
}

// The engine's events.
const (
	ceJoin     = iota + 1 // a PE joins (*ceColl)
	ceStore               // a node's local reduction is done; its contribution goes to the NIC (*ceLocal)
	ceArrive              // the contribution has reached the NIC (*ceLocal)
	ceRootDone            // the root's CE has the result (*ceSlot)
	ceVisible             // the result reaches the node's PEs (*ceDelivery)
)

// OffloadBarrier starts ep's part of a barrier.
func (e *engine) OffloadBarrier(ep *simnet.Endpoint) (conduit.Collective, error) {
	return e.start(ep, "OffloadBarrier", ceCall{barrier: true}, ceOperand{loc: uint64(ep.Rank())})
}

// OffloadAllreduce starts ep's part of an allreduce of value. It fails
// with conduit.ErrUnsupported for what the CE does not reduce.
func (e *engine) OffloadAllreduce(ep *simnet.Endpoint, op conduit.ReduceOp, kind conduit.ReduceKind, width int, value uint64) (conduit.Collective, error) {
	if !ceSupports(op, kind, width) {
		return nil, fmt.Errorf("%s: PE %d: OffloadAllreduce: the collective engine has no %s of %d-byte %s: %w",
			Name, ep.Rank(), ceOpName(op), width, ceKindName(kind), conduit.ErrUnsupported)
	}
	if width == 4 && value>>32 != 0 {
		return nil, fmt.Errorf("%s: PE %d: OffloadAllreduce: value %#x does not fit width 4", Name, ep.Rank(), value)
	}
	return e.start(ep, "OffloadAllreduce", ceCall{op: op, kind: kind, width: width}, ceOperand{bits: value, loc: uint64(ep.Rank())})
}

// OffloadAllreduceLoc starts ep's part of a minimum or maximum of value
// with location loc (MINLOC, MAXLOC: "min/max with location", Reductions
// and Barriers); other operations fail with conduit.ErrUnsupported.
func (e *engine) OffloadAllreduceLoc(ep *simnet.Endpoint, op conduit.ReduceOp, kind conduit.ReduceKind, width int, value, loc uint64) (conduit.LocCollective, error) {
	if op != conduit.ReduceMin && op != conduit.ReduceMax {
		return nil, fmt.Errorf("%s: PE %d: OffloadAllreduceLoc: %s has no location (min and max do): %w", Name, ep.Rank(), ceOpName(op), conduit.ErrUnsupported)
	}
	if !ceSupports(op, kind, width) {
		return nil, fmt.Errorf("%s: PE %d: OffloadAllreduceLoc: the collective engine has no %s of %d-byte %s: %w",
			Name, ep.Rank(), ceOpName(op), width, ceKindName(kind), conduit.ErrUnsupported)
	}
	if width == 4 && value>>32 != 0 {
		return nil, fmt.Errorf("%s: PE %d: OffloadAllreduceLoc: value %#x does not fit width 4", Name, ep.Rank(), value)
	}
	return e.start(ep, "OffloadAllreduceLoc", ceCall{op: op, kind: kind, width: width}, ceOperand{bits: value, loc: loc})
}

// Location is the location of a finished minimum or maximum.
func (c *ceColl) Location() uint64 { return c.res.loc }

// start joins ep to its next collective at its clock.
func (e *engine) start(ep *simnet.Endpoint, what string, call ceCall, v ceOperand) (*ceColl, error) {
	if err := e.bind(ep.Job()); err != nil {
		return nil, fmt.Errorf("%s: PE %d: %s: %w", Name, ep.Rank(), what, err)
	}
	r := ep.Rank()
	c := &ceColl{e: e, ep: ep, n: e.next[r], call: call, v: v}
	e.next[r]++
	pt := e.node(ep.Node(r)).part
	pt.k.At(ep.Proc().Clock(), pt, ceJoin, c)
	return c, nil
}

// bind makes the engine job's, at the job's first collective: the
// reduction tree over its nodes and their CEs. A partitioned job's is
// bound by bindParts before it runs.
func (e *engine) bind(j *simnet.Job) error {
	if e.job == j {
		return nil
	}
	m, ok := j.Net.(*fabric.Machine)
	if !ok {
		return fmt.Errorf("the collective engine on a %T, not a fabric machine", j.Net)
	}
	return e.bindParts(j, []*fabric.Machine{m})
}

// bindParts binds the engine to job j whose machine is cut into parts (one
// on one kernel), with an actor for each part, numbered in their order.
func (e *engine) bindParts(j *simnet.Job, parts []*fabric.Machine) error {
	if e.job != nil {
		return fmt.Errorf("the collective engine of another job")
	}
	tree, err := newCETree(j.Nodes(), CEMaxRadix)
	if err != nil {
		return err
	}
	e.job, e.tree = j, tree
	first := j.K.NewOrigins(len(parts))
	e.parts = make([]cePart, len(parts))
	for i, m := range parts {
		e.parts[i] = cePart{Source: sim.Source{ID: first + uint32(i)}, e: e, m: m, k: m.Kernel()}
	}
	e.op = parts[0].Cycles(CEOpCycles)
	e.next = make([]uint64, j.Size())
	e.nodes = make([]*ceNode, j.Nodes())
	return nil
}

// node is node i's part of the engine, made when the node first takes
// part in a collective, by an event of its own partition (so that a job
// that never calls one, or the full system bound for a partitioned run,
// costs a pointer a node).
func (e *engine) node(i int) *ceNode {
	if nd := e.nodes[i]; nd != nil {
		return nd
	}
	j := e.job
	per := j.PEsPerNode()
	nd := &ceNode{id: i, part: &e.parts[j.PartitionOf(i)], pes: min(per, j.Size()-i*per), locals: make(map[uint64]*ceLocal)}
	for 1<<nd.levels < nd.pes {
		nd.levels++
	}
	for s := range nd.ces {
		nd.ces[s] = ceSlot{node: nd, n: uint64(s), parts: make([]ceOperand, 1+e.tree.children(i))}
	}
	e.nodes[i] = nd
	return nd
}

// Test reports whether the collective's result has reached the PE. A PE
// that has to look pays PollCQ, as for a poll of its completion queue.
func (c *ceColl) Test() (bool, uint64, error) {
	if !c.done {
		p := c.ep.Proc()
		p.Advance(PollCQ)
		if err := p.Sync(); err != nil {
			return false, 0, err
		}
		if !c.done {
			return false, 0, nil
		}
	}
	return true, c.res.bits, c.err
}

// Fire handles the engine's events of the part's partition.
func (pt *cePart) Fire(code int32, data any) {
	e := pt.e
	now := pt.k.Now()
	switch code {
	case ceJoin:
		e.join(data.(*ceColl), now)
	case ceStore:
		l := data.(*ceLocal)
		pt.k.At(pt.m.HostToNIC(l.node.id, now, ceStoreBytes+PCIeOverheadBytes), pt, ceArrive, l)
	case ceArrive:
		l := data.(*ceLocal)
		v := l.reduce()
		e.input(&l.node.ces[l.n%CEsPerNIC], ceInput{n: l.n, call: l.call, v: v, err: l.err, local: l}, now)
	case ceRootDone:
		s := data.(*ceSlot)
		e.result(s, s.n, s.res, s.err, now)
	case ceVisible:
		d := data.(*ceDelivery)
		for _, c := range d.colls {
			c.done, c.res, c.err = true, d.res, d.err
			if c.call.barrier {
				c.res = ceOperand{}
			}
			c.ep.Wake()
		}
	}
}

// join adds a PE's value to its node's local reduction; the node's last
// PE starts the reduction's critical path.
func (e *engine) join(c *ceColl, now Time) {
	per := e.job.PEsPerNode()
	r := c.ep.Rank()
	nd := e.node(r / per)
	l := nd.locals[c.n]
	if l == nil {
		l = &ceLocal{node: nd, n: c.n, call: c.call, vals: make([]ceOperand, nd.pes), colls: make([]*ceColl, nd.pes)}
		nd.locals[c.n] = l
	} else if c.call != l.call && l.err == nil {
		l.err = mismatch(c.n, fmt.Sprintf("PE %d", r), c.call, fmt.Sprintf("another PE of node %d", nd.id), l.call)
	}
	l.vals[r%per] = c.v
	l.colls[r%per] = c
	l.joined++
	if l.joined < nd.pes {
		return
	}
	delete(nd.locals, c.n)
	nd.part.k.At(now+Time(nd.levels)*LocalReducePerLevel+FMALaunch, nd.part, ceStore, l)
}

// reduce is the node's contribution: its PEs' values combined in a binary
// tree by rank.
func (l *ceLocal) reduce() ceOperand {
	v := l.vals
	if l.call.barrier {
		return ceOperand{}
	}
	for stride := 1; stride < len(v); stride *= 2 {
		for i := 0; i+stride < len(v); i += 2 * stride {
			v[i] = ceCombine(l.call.op, l.call.kind, l.call.width, v[i], v[i+stride])
		}
	}
	return v[0]
}

// input gives a CE an input; the CE combines it once its ALU is free, and
// with its last input sends the partial result up the tree (or, at the
// root, has the result).
func (e *engine) input(s *ceSlot, in ceInput, now Time) {
	if in.n != s.n {
		// The CE is pending with an earlier collective.
		if !in.waited {
			in.waited = true
			s.node.part.stats.Waits++
		}
		s.waiting = append(s.waiting, in)
		return
	}
	nd := s.node
	pt := nd.part
	if s.got == 0 {
		s.call = in.call
	} else if in.call != s.call && s.err == nil {
		s.err = mismatch(in.n, inputName(nd.id, in.part, e.tree), in.call, fmt.Sprintf("another input of node %d", nd.id), s.call)
	}
	if in.err != nil && s.err == nil {
		s.err = in.err
	}
	s.parts[in.part] = in.v
	if in.local != nil {
		s.colls = in.local.colls
	}
	start := max(now, nd.aluFree)
	nd.aluFree = start + e.op
	if pt.m.Tracing() {
		pt.m.TraceNIC(nd.id, "ce "+in.call.String(), start, nd.aluFree)
	}
	s.got++
	if s.got < len(s.parts) {
		return
	}
	v := s.parts[0]
	if !s.call.barrier {
		for _, p := range s.parts[1:] {
			v = ceCombine(s.call.op, s.call.kind, s.call.width, v, p)
		}
	}
	parent := e.tree.parent(nd.id)
	if parent < 0 {
		pt.stats.Collectives++
		s.res = v
		pt.k.At(nd.aluFree, pt, ceRootDone, s)
		return
	}
	up := ceInput{n: s.n, part: 1 + nd.id - e.tree.child(parent, 0), call: s.call, v: v, err: s.err}
	// The parent's CE is looked up at the parent, in its partition.
	e.send(nd.aluFree, nd.id, parent, s.call.barrier, func(at Time) { e.input(&e.node(parent).ces[up.n%CEsPerNIC], up, at) })
}

// result is collective n's result reaching node s's CE: it goes on down
// the tree and to the node's PEs, and the CE is free for its next
// collective.
func (e *engine) result(s *ceSlot, n uint64, res ceOperand, err error, now Time) {
	nd := s.node
	pt := nd.part
	if n != s.n {
		pt.k.Fail(fmt.Errorf("%s: collective engine: the result of collective %d reached node %d, whose CE is pending with collective %d", Name, n, nd.id, s.n))
		return
	}
	for k := range e.tree.children(nd.id) {
		child := e.tree.child(nd.id, k)
		e.send(now, nd.id, child, s.call.barrier, func(at Time) { e.result(&e.node(child).ces[n%CEsPerNIC], n, res, err, at) })
	}
	visible := pt.m.HostWrite(nd.id, now, ceResultBytes+CQEntryBytes, 2, 0, conduit.OrderDefault)
	pt.k.At(visible+LocalReducePerLevel, pt, ceVisible, &ceDelivery{colls: s.colls, res: res, err: err})
	// The CE is free: its next collective, and the inputs that waited.
	s.n += CEsPerNIC
	s.got, s.colls, s.err, s.res = 0, nil, nil, ceOperand{}
	clear(s.parts)
	waiting := s.waiting
	s.waiting = nil
	for _, in := range waiting {
		e.input(s, in, now)
	}
}

// send sends a CE packet from one node's NIC to another's at at; deliver
// runs in the receiving node's partition.
func (e *engine) send(at Time, from, to int, barrier bool, deliver func(Time)) {
	pt := e.node(from).part
	pt.stats.Packets++
	if err := pt.m.SendControl(at, from, to, ceFlits(barrier), deliver); err != nil {
		pt.k.Fail(fmt.Errorf("%s: collective engine: %w", Name, err))
	}
}

// mismatch is the error of PEs that call different collectives.
func mismatch(n uint64, who string, call ceCall, other string, otherCall ceCall) error {
	return fmt.Errorf("%s: collective engine: collective %d: %s calls %v where %s calls %v", Name, n, who, call, other, otherCall)
}

// inputName names a CE input for errors.
func inputName(node, part int, t ceTree) string {
	if part == 0 {
		return fmt.Sprintf("node %d", node)
	}
	return fmt.Sprintf("node %d (a child of node %d)", t.child(node, part-1), node)
}
