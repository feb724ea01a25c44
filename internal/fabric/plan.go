package fabric

import (
	"fmt"
	"unsafe"

	"github.com/dustin/go-humanize"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
	"github.com/gopgas/gopgas/internal/simnet"
)

// census counts what a Build would make (Plan).
type census struct {
	routers, channels, links int
	// link stands for every link: Build may mark it failed or degraded
	// or set its tiles, which changes nothing that is counted.
	link *Channel
}

// Resident memory of the model's parts, for Plan: each structure's size
// and what it holds on a network at rest. TestPlanMemory checks the total
// against what a built machine really holds.
const (
	// channelExtraBytes: a channel's queues and the pointers that list it
	// (the machine's and its router's).
	channelExtraBytes = 96
	// nicExtraBytes: a NIC's queues, AMO cache and completion state.
	nicExtraBytes = 2048
	// peModelBytes: the fabric's per-rank state (location, memory domain)
	// and a share of the transactions and events a PE has in flight.
	peModelBytes = 4096
	// peStackBytes: a PE's coroutine, whose stack grows to this on the
	// runtime's deepest calls.
	peStackBytes = 16 << 10
)

// Plan checks a job of jc on a machine of cfg as Open would, without
// starting it: the job's configuration, and the network Build makes for
// it, which it counts rather than makes. It estimates the memory the
// machine will hold; hostBytes is the backend's memory per node besides
// the fabric's NIC (its host interface and translation caches).
func Plan(cfg Config, jc conduit.JobConfig, hostBytes int64) (conduit.Plan, error) {
	if err := jc.Validate(); err != nil {
		return conduit.Plan{}, err
	}
	perNode := cfg.PEsPerNode
	if jc.PEsPerNode > 0 {
		perNode = jc.PEsPerNode
	}
	if perNode < 1 {
		return conduit.Plan{}, fmt.Errorf("%s: %d PEs per node", cfg.Name, perNode)
	}
	m, err := New(cfg)
	if err != nil {
		return conduit.Plan{}, err
	}
	m.census = &census{}
	m.census.link = m.newChannel(nil, nil, 1, 0, 1)
	nodes := (jc.PEs + perNode - 1) / perNode
	if _, err := m.segmentPages(0, min(perNode, jc.PEs), jc.SegmentBytes); err != nil {
		return conduit.Plan{}, err
	}
	if _, err := cfg.Build(m, nodes); err != nil {
		return conduit.Plan{}, err
	}
	c := m.census
	channelBytes := int64(unsafe.Sizeof(Channel{})) + channelExtraBytes
	nodeBytes := int64(unsafe.Sizeof(nic{})) + nicExtraBytes + hostBytes
	fixed := int64(c.routers)*int64(unsafe.Sizeof(Router{})) + int64(c.channels)*channelBytes + int64(nodes)*nodeBytes
	perPE := simnet.EndpointBytes + int64(unsafe.Sizeof(sim.Proc{})) + peModelBytes + peStackBytes
	return conduit.Plan{
		Nodes:      nodes,
		PerPEBytes: perPE,
		FixedBytes: fixed,
		Detail: fmt.Sprintf("%s routers, %s links, %s NICs", humanize.Comma(int64(c.routers)),
			humanize.Comma(int64(c.links)), humanize.Comma(int64(nodes))),
	}, nil
}
