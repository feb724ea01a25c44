package fabric

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// A trace of a run in Chrome's trace-event format (viewable in Perfetto):
// process 1 holds a track per PE (their waits), process 2 a track per NIC
// (its transmit and receive pipelines), process 3 a track per channel
// (each packet it sends), process 4 the transactions. Times are simulated
// microseconds. The format is documented in docs/trace.md.

// maxTraceEvents bounds the trace's memory: later events are counted, not
// kept.
const maxTraceEvents = 2_000_000

type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Ts   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	Pid  int     `json:"pid"`
	Tid  int     `json:"tid"`
}

type tracer struct {
	path    string
	events  []traceEvent
	dropped int64
	names   map[[2]int]string
}

func newTracer(path string) *tracer {
	return &tracer{path: path, names: make(map[[2]int]string)}
}

func (t *tracer) add(pid, tid int, name string, start, end Time) {
	if t == nil {
		return
	}
	if len(t.events) >= maxTraceEvents {
		t.dropped++
		return
	}
	t.events = append(t.events, traceEvent{Name: name, Ph: "X", Ts: start.Microseconds(), Dur: (end - start).Microseconds(), Pid: pid, Tid: tid})
}

// PESpan records a PE's wait (simnet.Tracer).
func (t *tracer) PESpan(rank int, name string, start, end Time) {
	t.names[[2]int{1, rank}] = fmt.Sprintf("PE %d", rank)
	t.add(1, rank, "wait: "+name, start, end)
}

func (m *Machine) traceNIC(n *nic, what string, start, end Time) {
	m.trace.names[[2]int{2, n.node}] = fmt.Sprintf("NIC of node %d", n.node)
	m.trace.add(2, n.node, what, start, end)
}

func (m *Machine) traceLink(c *Channel, p *Packet, start, end Time) {
	if _, ok := m.trace.names[[2]int{3, c.id}]; !ok {
		m.trace.names[[2]int{3, c.id}] = m.channelName(c)
	}
	m.trace.add(3, c.id, fmt.Sprintf("%v %d->%d", p.kind, p.Src, p.Dst), start, end)
}

func (m *Machine) traceTxn(t *txn, end Time) {
	rank := t.ep.Rank()
	m.trace.names[[2]int{4, rank}] = fmt.Sprintf("transactions of PE %d", rank)
	m.trace.add(4, rank, fmt.Sprintf("%v %d B to PE %d", t.kind, t.size, t.tep.Rank()), t.born, end)
}

// channelName is the backend's name for a channel, or a plain one.
func (m *Machine) channelName(c *Channel) string {
	if m.cfg.ChannelName != nil {
		return m.cfg.ChannelName(c)
	}
	switch {
	case c.to == nil:
		return fmt.Sprintf("router %d ejection tile %d", c.from.ID, c.id)
	case c.from == nil:
		return fmt.Sprintf("router %d injection tile %d", c.to.ID, c.id)
	}
	return fmt.Sprintf("router %d link %d to router %d", c.from.ID, c.id, c.to.ID)
}

// write writes the trace file; backend names the backend in errors.
func (t *tracer) write(backend string) error {
	type meta struct {
		Name string            `json:"name"`
		Ph   string            `json:"ph"`
		Pid  int               `json:"pid"`
		Tid  int               `json:"tid"`
		Args map[string]string `json:"args"`
	}
	var out struct {
		TraceEvents     []any             `json:"traceEvents"`
		DisplayTimeUnit string            `json:"displayTimeUnit"`
		Metadata        map[string]string `json:"metadata"`
	}
	out.DisplayTimeUnit = "ns"
	out.Metadata = map[string]string{"clock": "simulated", "dropped_events": fmt.Sprint(t.dropped)}
	procs := map[int]string{1: "PEs", 2: "NICs", 3: "links", 4: "transactions"}
	for pid, name := range procs {
		out.TraceEvents = append(out.TraceEvents, meta{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]string{"name": name}})
	}
	keys := make([][2]int, 0, len(t.names))
	for k := range t.names {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || (keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1])
	})
	for _, k := range keys {
		out.TraceEvents = append(out.TraceEvents, meta{Name: "thread_name", Ph: "M", Pid: k[0], Tid: k[1], Args: map[string]string{"name": t.names[k]}})
	}
	for _, e := range t.events {
		out.TraceEvents = append(out.TraceEvents, e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	if err := os.WriteFile(t.path, b, 0o644); err != nil {
		return fmt.Errorf("%s: writing the trace: %w", backend, err)
	}
	return nil
}
