package fabric

import "sort"

// A partitioned run's trace. Each partition's Machine has a tracer of its
// own, which only its events write, and the trace file is their merge at
// the end of the run, in partition order: the tracks by their keys, the
// backend's NIC units by name (in the order the partitions first saw
// them), the slices in partition order, and the packets' flows joined
// across partitions. A packet that crosses to another partition begins a
// flow there of its own; both partitions keep for each of their flows the
// packet it follows (its address, transaction, kind and birth, which
// stay the same over the packet's trip), and the merge makes one flow of
// the flows of one packet, its steps in the order of their slices' start.
// Each partition keeps the first cap/n of its slices (MaxTraceSlices over
// the partitions), so the file holds at most what one kernel's would. The
// file is the same for any number of workers; it is not one kernel's,
// whose events the windows order otherwise.

// flowKey names the packet a flow follows, across partitions.
type flowKey struct {
	p    *Packet
	t    *txn
	kind pktKind
	born Time
}

// partTracers are a partitioned machine's tracers: PESpan goes to the
// PE's partition's.
type partTracers struct {
	m *Machine
}

func (pt partTracers) PESpan(rank int, name string, start, end Time) {
	m := pt.m
	m.parts[m.routerPart[m.topo.RouterOf(m.job.NodeOf(rank))]].trace.PESpan(rank, name, start, end)
}

// partitionTrace gives each partition's Machine a tracer of its own and
// the job the tracer that sends the PEs' spans to them.
func (m *Machine) partitionTrace() {
	path, n := m.trace.path, len(m.parts)
	for _, c := range m.parts {
		c.trace = newTracer(path)
		c.trace.cap = max(1, MaxTraceSlices/n)
		c.trace.keys = []flowKey{}
	}
	m.job.Tracer = partTracers{m}
}

// mergeTraces is the tracer of the whole run, made of the partitions'.
func mergeTraces(parts []*Machine) *tracer {
	all := newTracer(parts[0].trace.path)
	all.cap = 0
	flows := make(map[flowKey]int64)
	type step struct {
		flowStep
		start Time
	}
	var steps []step
	for _, c := range parts {
		t := c.trace
		all.cap += t.cap
		all.dropped += t.dropped
		all.warn = t.warn
		unit := make([]int, len(t.unitSeq))
		for i, name := range t.unitSeq {
			u, ok := all.units[name]
			if !ok {
				u = nicUnitsFixed + len(all.unitSeq)
				all.units[name] = u
				all.unitSeq = append(all.unitSeq, name)
			}
			unit[i] = u
		}
		track := make([]int32, len(t.tracks))
		for i, tr := range t.tracks {
			key := tr.key
			if key.pid == tracePIDNICs && key.sub >= nicUnitsFixed {
				key.sub = unit[key.sub-nicUnitsFixed]
			}
			track[i] = all.track(key, tr.async, func() string { return tr.name })
		}
		base := int32(len(all.slices))
		for _, s := range t.slices {
			s.track = track[s.track]
			all.slices = append(all.slices, s)
		}
		for _, st := range t.steps {
			k := t.keys[st.id]
			id, ok := flows[k]
			if !ok {
				id = int64(len(flows))
				flows[k] = id
			}
			s := base + st.slice
			steps = append(steps, step{flowStep{id: id, slice: s}, all.slices[s].start})
		}
	}
	sort.SliceStable(steps, func(i, j int) bool {
		if steps[i].id != steps[j].id {
			return steps[i].id < steps[j].id
		}
		return steps[i].start < steps[j].start
	})
	all.steps = make([]flowStep, len(steps))
	for i, s := range steps {
		all.steps[i] = s.flowStep
	}
	all.nflows = int64(len(flows))
	return all
}

// writeTrace writes the run's trace: a partitioned run's merged.
func (m *Machine) writeTrace() error {
	if m.parts == nil {
		return m.trace.write(m.name)
	}
	return mergeTraces(m.parts).write(m.name)
}
