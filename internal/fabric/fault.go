package fabric

import (
	"fmt"
	"math"
	"time"

	"github.com/gopgas/gopgas/internal/sim"
)

// Links that fail in the middle of a run, and what the hardware and the
// management software do about it ([GEMINI-WP] 3.1 Gemini Fault
// Tolerance; [ARIES-WP] Network Reliability, Availability and
// Serviceability).
//
// # What is lost
//
// At its failure time a link (both directions, or the channels a backend
// names) goes out of service. The packets on its wire then, sent and not
// yet taken by the router at its far end, are lost (Stats.Lost): nothing
// delivers them, and their transactions time out at the initiating NIC,
// "reporting a timeout error to the user process" ([ARIES-WP]) through the
// status of the completion event. A lost short-message packet is sent again
// by the source NIC (timeout.go, resend); a lost control packet ends the
// job with an error that says so (control.go). The packets queued for the
// link in its router's buffers are not lost: they are routed again, at once
// under adaptive routing, or when traffic is released after a quiesce. A
// link that fails only in part (Degrade: lanes of an Aries link, links of a
// Gemini connection) loses nothing: the lanes that work carry its traffic,
// more slowly ("The failure of a single lane is tolerated by shunting its
// data to the remaining 2 lanes in the group", [GEMINI-HOTI]; "Links can
// degrade to two or one lane", [ARIES-WP]).
//
// # Adaptive routing
//
// The adaptive routing masks the failed link at once: "If a link fails,
// the adaptive routing hardware will mask it out" ([GEMINI-WP] 3.1), "the
// router automatically stops sending packets in that direction"
// ([ARIES-WP]). The Routing of every backend skips failed channels.
//
// # Deterministic routing: the management software
//
// Deterministic routes come from routing tables, which only the
// management software changes: it "quiesces the network, computes new
// routing tables and then re-enables the network" ([GEMINI-WP] 3.1);
// "Applications pause briefly while this operation is in progress;
// traffic is released once the re-route process has completed"
// ([ARIES-WP]). When a link fails in a job some of whose traffic is routed
// deterministically (the routing option deterministic or by-order), the
// model quiesces the network at the failure time: no channel sends
// (processor tiles and links alike: nothing is injected, forwarded or
// ejected), and the routers hold what arrives, for Config.ReroutePause;
// then the Topology's new tables take effect (Rerouter) and traffic is
// released: held packets are routed on the new tables and every channel
// sends again. Packets in router buffers are not lost by the quiesce. A
// link that fails during a quiesce extends it to the pause after its own
// failure; one re-route (Stats.Reroutes) follows. In a job routed only
// adaptively nothing is quiesced; the new tables take effect the pause
// after the failure all the same (a Routing may fall back on them where
// adaptive routing finds no way, Gemini's single y connection).
//
// Detection is taken to be immediate: the quiesce starts at the failure.
// No document gives the time the management software takes; each backend
// declares its pause as an assumption (the reroute_pause option).
//
// A NIC's transaction timers stand still while the network is quiesced:
// a transaction's time counts from the later of its last sign of life and
// the end of the last quiesce (timeout.go), so a pause of any length
// times nothing out. A packet with no route at all (a partitioned network)
// is still dropped (Stats.Dropped) and its transaction times out.
//
// In a partitioned run (the workers option) every partition replays the
// list of faults, which Build made: the owner of a channel (its sending
// router's partition) takes it out of service, each partition quiesces
// and releases its own routers and channels and puts its own copy of the
// new tables into effect (Rerouter), and a router of any partition
// judges a link failed by its failure time (Channel.FailedAt), which no
// partition writes (docs/parallel-kernel.md, "Link faults in
// partitions").
//
// Links failed from the start of the job (Channel.Fail) change no tables:
// deterministic packets routed into them are dropped, as for a fault the
// tables were never updated for, until a failure in the run brings a
// re-route, whose tables avoid every failed link.

// Rerouter is implemented by a Topology whose deterministic routes can be
// recomputed to avoid the failed links: the management software's new
// routing tables. Reroute is called when they take effect, for the
// routers of partition part (0 when the run is not partitioned): in a
// partitioned run each partition calls it for its own at the same time,
// and the Topology keeps the state of the new tables (its caches of
// them) per partition.
type Rerouter interface {
	Reroute(part int)
}

// MaxReroutePause is the longest re-route pause a machine takes
// (Config.ReroutePause): a second, far beyond any a job of simulated
// microseconds to milliseconds would want, and within the reach of the
// kernel's queue.
const MaxReroutePause = Time(1_000_000_000_000)

// faultHorizon bounds how far ahead a fault's event is scheduled: the
// kernel's queue spans a few seconds, so a later fault is reached in hops.
const faultHorizon = Time(1_000_000_000_000) // one second

// Fault event codes.
const (
	faultFail    = iota + 1 // channels go out of service
	faultDegrade            // channels lose lanes
	faultRelease            // the quiesce ends: new tables, traffic released
	faultTables             // new tables without a quiesce (adaptive routing)
)

// faultEvent is a scheduled change of some channels.
type faultEvent struct {
	at    Time
	code  int32
	cs    []*Channel
	lanes int
}

// heldPacket is a packet a router holds during a quiesce.
type heldPacket struct {
	r *Router
	p *Packet
}

// faults is the machine's actor for fault events.
type faults struct {
	sim.Source // its number among the kernel's actors
	m          *Machine
}

// FailAt takes channels out of service at time at (not before the job's
// start): packets on their wires then are lost, those queued for them are
// routed again, and under deterministic routing the network is quiesced
// and re-routed (see above). Config.Build calls it for a backend's timed
// faults.
func (m *Machine) FailAt(at Time, cs ...*Channel) {
	m.lossy = true
	at = max(at, 0)
	for _, c := range cs {
		m.setFailTime(c, at)
	}
	m.keepFault(&faultEvent{at: at, code: faultFail, cs: cs})
}

// DegradeAt leaves lanes of the channels' lanes working from time at
// (Channel.Degrade); nothing is lost.
func (m *Machine) DegradeAt(at Time, lanes int, cs ...*Channel) {
	m.keepFault(&faultEvent{at: max(at, 0), code: faultDegrade, cs: cs, lanes: lanes})
}

// setFailTime notes that c fails at time at (-1: from the start), unless
// it fails earlier.
func (m *Machine) setFailTime(c *Channel, at Time) {
	if m.failTimes == nil {
		m.failTimes = make(map[*Channel]Time)
	}
	if t, ok := m.failTimes[c]; !ok || at < t {
		m.failTimes[c] = at
	}
}

// keepFault keeps a fault of the network being built, and schedules it on one
// kernel; a partitioned run schedules the whole list in every partition
// once it is cut (replayFaults).
func (m *Machine) keepFault(ev *faultEvent) {
	m.faultList = append(m.faultList, ev)
	if m.opts.Workers == 0 {
		m.schedule(ev)
	}
}

// replayFaults schedules every planned fault in this partition: each
// partition applies a failure to the channels it owns and keeps the
// quiesce's bookkeeping for its own routers, channels and NICs, which,
// following from the list alone, is every partition's at every time.
func (m *Machine) replayFaults() {
	m.failSeen = nil
	for _, ev := range m.faultList {
		e := *ev
		m.schedule(&e)
	}
}

// schedule schedules ev at its time, in hops of at most faultHorizon.
func (m *Machine) schedule(ev *faultEvent) {
	if m.census != nil {
		return // Plan: nothing runs
	}
	m.k.At(min(ev.at, m.k.Now()+faultHorizon), &m.faults, ev.code, ev)
}

// Fire acts on a fault event.
func (f *faults) Fire(code int32, data any) {
	m := f.m
	ev := data.(*faultEvent)
	now := m.k.Now()
	if now < ev.at {
		m.schedule(ev)
		return
	}
	switch code {
	case faultFail:
		m.fail(ev.cs)
	case faultDegrade:
		for _, c := range ev.cs {
			if (m.parts == nil || c.m == m) && !c.down {
				c.Degrade(ev.lanes)
			}
		}
	case faultRelease:
		if now < m.releaseAt {
			// Another link failed meanwhile: the re-route ends later.
			ev.at = m.releaseAt
			m.schedule(ev)
			return
		}
		m.release()
	case faultTables:
		m.reroute()
	}
}

// fail takes cs out of service now. In a partitioned run every partition
// replays the failure: whether it fails a channel anew follows from the
// list (failSeen), and only the channel's own partition (its sending
// router's) takes it out of service and counts it.
func (m *Machine) fail(cs []*Channel) {
	now := m.k.Now()
	quiesce := m.opts.Routing != RouteAdaptive
	var requeue []heldPacket
	failed := false
	for _, c := range cs {
		if m.parts != nil {
			if m.failTimes[c] < 0 || m.failSeen[c] {
				continue // failed from the start, or already
			}
			if m.failSeen == nil {
				m.failSeen = make(map[*Channel]bool)
			}
			m.failSeen[c] = true
			failed = true
			if c.m != m {
				continue
			}
		} else if c.down {
			continue
		}
		c.down = true
		failed = true
		m.stats.LinkFailures++
		// The packets waiting for the channel in its router are routed
		// again; it sends nothing more. (Those on its wire are lost when
		// they arrive: Router.Fire.)
		for vc := range c.vcList() {
			q := &c.vcList()[vc].q
			for q.front() != nil {
				p := q.pop()
				p.unroute()
				requeue = append(requeue, heldPacket{c.from, p})
			}
		}
		c.queued, c.queuedUnits, c.queuedVCs = 0, 0, 0
	}
	if !failed {
		return
	}
	if !quiesce {
		for _, h := range requeue {
			h.r.route(h.p)
		}
		m.schedule(&faultEvent{at: now + m.cfg.ReroutePause, code: faultTables})
		return
	}
	m.held = append(m.held, requeue...)
	m.releaseAt = now + m.cfg.ReroutePause
	if !m.quiesced {
		m.quiesced = true
		m.quiesceStart = now
		m.schedule(&faultEvent{at: m.releaseAt, code: faultRelease})
	}
}

// reroute puts the Topology's new tables into effect for this partition's
// routers (in a partitioned run each partition does at the same time);
// partition 0 counts the re-route.
func (m *Machine) reroute() {
	if m.part == 0 {
		m.stats.Reroutes++
	}
	if r, ok := m.topo.(Rerouter); ok {
		r.Reroute(m.part)
	}
}

// release ends a quiesce: the new tables take effect, the held packets are
// routed on them in the order they were held, and every channel that had
// something to send sends.
func (m *Machine) release() {
	now := m.k.Now()
	m.quiesced = false
	m.releasedAt = now
	if m.part == 0 {
		m.stats.QuiesceTime += now - m.quiesceStart
	}
	m.reroute()
	held := m.held
	m.held = nil
	for _, h := range held {
		h.r.route(h.p)
	}
	stalled := m.stalled
	m.stalled = nil
	for _, c := range stalled {
		c.stalled = false
		if c.queued > 0 {
			c.kickAt(now)
		}
	}
}

// hold keeps a packet that arrived at router r during a quiesce.
func (m *Machine) hold(r *Router, p *Packet) { m.held = append(m.held, heldPacket{r, p}) }

// stall notes a channel that would send during a quiesce.
func (m *Machine) stall(c *Channel) {
	if !c.stalled {
		c.stalled = true
		m.stalled = append(m.stalled, c)
	}
}

// lose counts a packet lost on the wire of failed link w.
func (m *Machine) lose(p *Packet, w *Channel) {
	m.stats.Lost++
	if p.kind == pktCtl {
		// It belongs to no transaction: nothing would time out for it.
		m.k.Fail(fmt.Errorf("%s: a control packet from node %d to node %d was lost on the wire of a link from router %d to router %d that failed", m.name, p.Src, p.Dst, w.from.ID, w.to.ID))
	}
	m.freePacket(p)
}

// ParseFaultTime parses the time of a fault that happens in the middle of
// a run (the backends' fail option, after '@'): a Go duration such as
// 20us, 1.5ms or 2s, in simulated time from the job's start, not negative.
func ParseFaultTime(s string) (Time, error) {
	if s == "" {
		return 0, fmt.Errorf("no time after '@'")
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("time %q is not a duration such as 20us or 1.5ms", s)
	case d < 0:
		return 0, fmt.Errorf("time %q is negative", s)
	case d > time.Duration(math.MaxInt64/1000):
		return 0, fmt.Errorf("time %q is beyond the simulated clock's range", s)
	}
	return Time(d) * 1000, nil
}

// FormatFaultTime formats a fault's time as ParseFaultTime reads it.
func FormatFaultTime(t Time) string { return time.Duration(t / 1000).String() }
