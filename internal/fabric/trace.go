package fabric

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/gopgas/gopgas/conduit"
)

// A trace of a run in Chrome's trace-event JSON format, which Perfetto and
// chrome://tracing read. Process 1 holds a thread per PE (its waits),
// process 2 threads per NIC (its transmit pipeline, its receive pipeline
// and any other unit a backend traces), process 3 a thread per channel
// (each packet crossing it), and process 1000+r the transactions PE r
// started, as async slices. Flow events follow each packet from the NIC
// that sends it over every channel to the NIC that receives it. Times are
// simulated microseconds with nanosecond resolution. The format, its
// tracks, names and args, is documented in docs/trace.md.
//
// The format forbids slices of one thread that overlap without one
// containing the other; a track's slices are therefore laid out on as
// many threads ("lanes") as it needs so that none on a thread overlap at
// all, and the transactions, of which a PE has many in flight, are async
// slices with an id each.

// MaxTraceSlices bounds the trace's memory: the first MaxTraceSlices
// slices are kept; later ones are counted, reported on standard error and
// in the trace's metadata, and dropped with their flow steps.
const MaxTraceSlices = 2_000_000

// The trace's processes.
const (
	tracePIDPEs     = 1
	tracePIDNICs    = 2
	tracePIDLinks   = 3
	tracePIDTxnBase = 1000 // plus the PE's rank
)

// NIC units with a thread of their own; a backend's units (TraceNIC) come
// after them in the order they first appear.
const (
	nicUnitTransmit = iota
	nicUnitReceive
	nicUnitsFixed
)

// traceKey names a track: a process, a thread in it (a PE, a node, a
// channel) and a part of that thread (a NIC unit).
type traceKey struct{ pid, tid, sub int }

type traceTrack struct {
	key   traceKey
	name  string
	async bool // the transactions: b/e events with an id, no lanes
}

// traceArgs says which args a slice carries.
type traceArgs uint8

const (
	argsNone   traceArgs = iota
	argsPacket           // src and dst nodes, vc, size (link units)
	argsTxn              // to (PE), bytes
)

type traceSlice struct {
	name       string
	start, end Time
	track      int32
	args       traceArgs
	a          [4]int64
}

// flowStep places a packet's flow (id) on one of the trace's slices.
type flowStep struct {
	id    int64
	slice int32
}

// packetFlow is the flow of a packet in the network; t tells a packet
// taken again from the free list from the one the flow began with.
type packetFlow struct {
	id int64
	t  *txn
}

type tracer struct {
	path    string
	cap     int
	slices  []traceSlice
	dropped int64
	tracks  []traceTrack
	byKey   map[traceKey]int32
	units   map[string]int // a backend's NIC units by name
	unitSeq []string
	flows   map[*Packet]packetFlow
	steps   []flowStep
	nflows  int64
	// keys, in a partitioned run's tracers (trace_parts.go), are the
	// packets their flows follow, by flow.
	keys []flowKey
	warn io.Writer // where the dropped slices are reported
}

func newTracer(path string) *tracer {
	return &tracer{path: path, cap: MaxTraceSlices, byKey: make(map[traceKey]int32),
		units: make(map[string]int), flows: make(map[*Packet]packetFlow), warn: os.Stderr}
}

// track is the index of the track of key, which name names when it is new.
func (t *tracer) track(key traceKey, async bool, name func() string) int32 {
	if i, ok := t.byKey[key]; ok {
		return i
	}
	i := int32(len(t.tracks))
	t.tracks = append(t.tracks, traceTrack{key: key, name: name(), async: async})
	t.byKey[key] = i
	return i
}

// add keeps a slice and returns its index, or -1 past the cap.
func (t *tracer) add(track int32, name string, start, end Time, args traceArgs, a [4]int64) int32 {
	if len(t.slices) >= t.cap {
		t.dropped++
		return -1
	}
	t.slices = append(t.slices, traceSlice{name: name, start: start, end: max(start, end), track: track, args: args, a: a})
	return int32(len(t.slices) - 1)
}

// PESpan records a PE's wait (simnet.Tracer).
func (t *tracer) PESpan(rank int, name string, start, end Time) {
	tr := t.track(traceKey{tracePIDPEs, rank, 0}, false, func() string { return fmt.Sprintf("PE %d", rank) })
	t.add(tr, name, start, end, argsNone, [4]int64{})
}

// nicTrack is the track of a unit of n's NIC.
func (t *tracer) nicTrack(node, unit int, name string) int32 {
	return t.track(traceKey{tracePIDNICs, node, unit}, false, func() string { return fmt.Sprintf("NIC of node %d: %s", node, name) })
}

// traceNIC records a span of a backend's NIC unit (TraceNIC): the unit is
// what's first word.
func (m *Machine) traceNIC(n *nic, what string, start, end Time) {
	t := m.trace
	name := what
	for i := range what {
		if what[i] == ' ' {
			name = what[:i]
			break
		}
	}
	u, ok := t.units[name]
	if !ok {
		u = nicUnitsFixed + len(t.unitSeq)
		t.units[name] = u
		t.unitSeq = append(t.unitSeq, name)
	}
	t.add(t.nicTrack(n.node, u, name), what, start, end, argsNone, [4]int64{})
}

// traceNICPacket records p in n's transmit (tx) or receive pipeline: the
// transmit pipeline begins the packet's flow, the receive pipeline ends
// it.
func (m *Machine) traceNICPacket(n *nic, p *Packet, tx bool, start, end Time) {
	t := m.trace
	unit, name := nicUnitReceive, "receive"
	if tx {
		unit, name = nicUnitTransmit, "transmit"
	}
	s := t.add(t.nicTrack(n.node, unit, name), p.kind.String(), start, end, argsPacket, packetArgs(p))
	if tx {
		delete(t.flows, p)
	}
	t.step(p, s)
	if !tx {
		delete(t.flows, p)
	}
}

func packetArgs(p *Packet) [4]int64 {
	return [4]int64{int64(p.Src), int64(p.Dst), int64(p.VC), int64(p.Size)}
}

// step adds slice s to p's flow, beginning one if p has none.
func (t *tracer) step(p *Packet, s int32) {
	if s < 0 {
		return
	}
	f, ok := t.flows[p]
	if !ok || f.t != p.t || t.keys != nil && t.keys[f.id] != (flowKey{p, p.t, p.kind, p.born}) {
		f = packetFlow{id: t.nflows, t: p.t}
		t.nflows++
		t.flows[p] = f
		if t.keys != nil {
			t.keys = append(t.keys, flowKey{p, p.t, p.kind, p.born})
		}
	}
	t.steps = append(t.steps, flowStep{id: f.id, slice: s})
}

func (m *Machine) traceLink(c *Channel, p *Packet, start, end Time) {
	t := m.trace
	tr := t.track(traceKey{tracePIDLinks, c.ID(), 0}, false, func() string { return m.channelName(c) })
	t.step(p, t.add(tr, p.kind.String(), start, end, argsPacket, packetArgs(p)))
}

func (m *Machine) traceTxn(x *txn, end Time) {
	t := m.trace
	rank := x.ep.Rank()
	tr := t.track(traceKey{tracePIDTxnBase + rank, 0, 0}, true, func() string { return fmt.Sprintf("transactions of PE %d", rank) })
	t.add(tr, x.kind.String(), x.born, end, argsTxn, [4]int64{int64(x.tep.Rank()), int64(x.size)})
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

// write writes the trace file; backend names the backend in errors and in
// the warning about dropped slices.
func (t *tracer) write(backend string) error {
	f, err := os.Create(t.path)
	if err != nil {
		return fmt.Errorf("%s: writing the trace: %w", backend, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t.encode(w)
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: writing the trace %s: %w", backend, t.path, err)
	}
	if t.dropped > 0 {
		fmt.Fprintf(t.warn, "%s: the trace %s holds the first %d slices; %d more were dropped (the cap, MaxTraceSlices)\n",
			backend, t.path, t.cap, t.dropped)
	}
	return nil
}

// traceWriter appends the trace's JSON to a buffer and hands it on.
type traceWriter struct {
	w     *bufio.Writer
	b     []byte
	first bool
	names map[string][]byte // names already quoted
}

func (e *traceWriter) quote(s string) []byte {
	if q, ok := e.names[s]; ok {
		return q
	}
	q, _ := json.Marshal(s) // a string always marshals
	e.names[s] = q
	return q
}

// begin starts an event of phase ph on pid/tid.
func (e *traceWriter) begin(ph string, name string, pid, tid int) {
	if !e.first {
		e.b = append(e.b, ",\n"...)
	}
	e.first = false
	e.b = append(e.b, `{"ph":"`...)
	e.b = append(e.b, ph...)
	e.b = append(e.b, `","name":`...)
	e.b = append(e.b, e.quote(name)...)
	e.b = append(e.b, `,"pid":`...)
	e.b = strconv.AppendInt(e.b, int64(pid), 10)
	e.b = append(e.b, `,"tid":`...)
	e.b = strconv.AppendInt(e.b, int64(tid), 10)
}

// field appends ,"key":value with value raw JSON.
func (e *traceWriter) field(key, raw string) {
	e.b = append(e.b, `,"`...)
	e.b = append(e.b, key...)
	e.b = append(e.b, `":`...)
	e.b = append(e.b, raw...)
}

func (e *traceWriter) intField(key string, v int64) {
	e.field(key, "")
	e.b = strconv.AppendInt(e.b, v, 10)
}

// timeField appends a time in microseconds with three decimals, rounded
// to the nanosecond.
func (e *traceWriter) timeField(key string, ns int64) {
	e.field(key, "")
	e.b = strconv.AppendInt(e.b, ns/1000, 10)
	e.b = append(e.b, '.')
	frac := ns % 1000
	e.b = append(e.b, byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

func (e *traceWriter) end() {
	e.b = append(e.b, '}')
	if len(e.b) > 64<<10 {
		e.flush()
	}
}

func (e *traceWriter) flush() {
	_, _ = e.w.Write(e.b) // bufio keeps the first error for Flush
	e.b = e.b[:0]
}

// meta writes a metadata event naming a process or a thread.
func (e *traceWriter) meta(what string, pid, tid int, key string, value string) {
	e.begin("M", what, pid, tid)
	e.field("args", `{"`+key+`":`+string(e.quote(value))+`}`)
	e.end()
}

func (e *traceWriter) args(s *traceSlice) {
	switch s.args {
	case argsPacket:
		e.field("args", `{"src_node":`)
		e.b = strconv.AppendInt(e.b, s.a[0], 10)
		e.b = append(e.b, `,"dst_node":`...)
		e.b = strconv.AppendInt(e.b, s.a[1], 10)
		e.b = append(e.b, `,"vc":`...)
		e.b = strconv.AppendInt(e.b, s.a[2], 10)
		e.b = append(e.b, `,"size_units":`...)
		e.b = strconv.AppendInt(e.b, s.a[3], 10)
		e.b = append(e.b, '}')
	case argsTxn:
		e.field("args", `{"to_pe":`)
		e.b = strconv.AppendInt(e.b, s.a[0], 10)
		e.b = append(e.b, `,"bytes":`...)
		e.b = strconv.AppendInt(e.b, s.a[1], 10)
		e.b = append(e.b, '}')
	}
}

// nanoseconds rounds a simulated time to the nanosecond: rounding keeps
// the order of times, so slices that do not overlap still do not.
func nanoseconds(t Time) int64 { return int64((t + conduit.Nanosecond/2) / conduit.Nanosecond) }

// lanes lays the slices of each track without async out on lanes, the
// first lane whose last slice has ended, and returns each slice's lane
// and each track's lane count.
func (t *tracer) lanes() (lane []int32, count []int32) {
	order := make([]int32, 0, len(t.slices))
	for i := range t.slices {
		if !t.tracks[t.slices[i].track].async {
			order = append(order, int32(i))
		}
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := &t.slices[order[i]], &t.slices[order[j]]
		if a.track != b.track {
			return a.track < b.track
		}
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end < b.end
		}
		return order[i] < order[j]
	})
	lane = make([]int32, len(t.slices))
	count = make([]int32, len(t.tracks))
	var ends []int64
	for k, i := range order {
		s := &t.slices[i]
		if k == 0 || t.slices[order[k-1]].track != s.track {
			ends = ends[:0]
		}
		start := nanoseconds(s.start)
		l := 0
		for l < len(ends) && ends[l] > start {
			l++
		}
		if l == len(ends) {
			ends = append(ends, 0)
		}
		ends[l] = nanoseconds(s.end)
		lane[i] = int32(l)
		count[s.track] = max(count[s.track], int32(len(ends)))
	}
	return lane, count
}

// encode writes the trace: the processes' and threads' names, the slices,
// the transactions and the flows.
func (t *tracer) encode(w *bufio.Writer) {
	e := &traceWriter{w: w, first: true, names: make(map[string][]byte)}
	e.b = append(e.b, `{"displayTimeUnit":"ns","metadata":{"clock":"simulated","format":"docs/trace.md","slice_cap":`...)
	e.b = strconv.AppendInt(e.b, int64(t.cap), 10)
	e.b = append(e.b, `,"dropped_slices":`...)
	e.b = strconv.AppendInt(e.b, t.dropped, 10)
	e.b = append(e.b, "},\n\"traceEvents\":[\n"...)

	lane, count := t.lanes()
	order := make([]int32, len(t.tracks))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := t.tracks[order[i]].key, t.tracks[order[j]].key
		if a.pid != b.pid {
			return a.pid < b.pid
		}
		if a.tid != b.tid {
			return a.tid < b.tid
		}
		return a.sub < b.sub
	})
	// Threads are numbered in the tracks' order, a lane each.
	base := make([]int, len(t.tracks))
	procs := map[int]string{tracePIDPEs: "PEs", tracePIDNICs: "NICs", tracePIDLinks: "links"}
	tid, lastPID := 1, 0
	for _, i := range order {
		tr := &t.tracks[i]
		pid := tr.key.pid
		if pid != lastPID {
			name := procs[pid]
			if tr.async {
				name = tr.name
			}
			e.meta("process_name", pid, 0, "name", name)
			e.begin("M", "process_sort_index", pid, 0)
			e.field("args", `{"sort_index":`+strconv.Itoa(pid)+`}`)
			e.end()
			lastPID = pid
		}
		if tr.async {
			continue
		}
		base[i] = tid
		for l := range int(count[i]) {
			name := tr.name
			if l > 0 {
				name = fmt.Sprintf("%s (lane %d)", tr.name, l+1)
			}
			e.meta("thread_name", pid, tid, "name", name)
			e.begin("M", "thread_sort_index", pid, tid)
			e.field("args", `{"sort_index":`+strconv.Itoa(tid)+`}`)
			e.end()
			tid++
		}
	}

	for i := range t.slices {
		s := &t.slices[i]
		tr := &t.tracks[s.track]
		start, end := nanoseconds(s.start), nanoseconds(s.end)
		if tr.async {
			for _, ph := range []string{"b", "e"} {
				e.begin(ph, s.name, tr.key.pid, 0)
				e.field("cat", `"transaction"`)
				e.field("id", "")
				e.b = strconv.AppendInt(e.b, int64(i), 10)
				if ph == "b" {
					e.timeField("ts", start)
					e.args(s)
				} else {
					e.timeField("ts", end)
				}
				e.end()
			}
			continue
		}
		e.begin("X", s.name, tr.key.pid, base[s.track]+int(lane[i]))
		e.timeField("ts", start)
		e.timeField("dur", end-start)
		e.args(s)
		e.end()
	}

	// A flow needs two steps; it begins at its first ("s"), passes its
	// middle ones ("t") and ends at its last ("f"), each bound to its
	// slice at the slice's middle, which no other slice of the thread
	// holds.
	n := make([]int32, t.nflows)
	for _, st := range t.steps {
		n[st.id]++
	}
	seen := make([]int32, t.nflows)
	for _, st := range t.steps {
		if n[st.id] < 2 {
			continue
		}
		ph := "t"
		switch seen[st.id] {
		case 0:
			ph = "s"
		case n[st.id] - 1:
			ph = "f"
		}
		seen[st.id]++
		s := &t.slices[st.slice]
		e.begin(ph, "packet", t.tracks[s.track].key.pid, base[s.track]+int(lane[st.slice]))
		e.field("cat", `"packet"`)
		e.intField("id", st.id)
		e.timeField("ts", (nanoseconds(s.start)+nanoseconds(s.end))/2)
		if ph == "f" {
			e.field("bp", `"e"`)
		}
		e.end()
	}
	e.b = append(e.b, "\n]}\n"...)
	e.flush()
}
