package simnet

import (
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/sim"
)

// Time is virtual time in picoseconds.
type Time = sim.Time

// Network is a simulated network model.
type Network interface {
	// Caps are the backend's capabilities (Simulated is set by simnet).
	Caps() conduit.Caps
	// Costs are the host CPU costs of the conduit calls.
	Costs() Costs
	// Start is called once every endpoint exists, before the PEs run.
	Start(j *Job) error
	// Post starts a descriptor that CheckPost accepted, from ep at ep's
	// clock. The model calls ep.CompleteLocal when it completes.
	Post(ep *Endpoint, d *conduit.PostDesc) error
	// Send starts a short message from ep to target at ep's clock. The
	// model calls DeliverMessage on the target endpoint when it has
	// arrived, or MessageLost on ep when it never will (its transaction
	// failed); m's bytes are the model's until then.
	Send(ep *Endpoint, target int, m *Message) error
	// Register accounts the cost of registering (or, with deregister, of
	// deregistering) bytes of ep's memory as region id; it may block ep's
	// PE. An error leaves the region unregistered (or registered).
	Register(ep *Endpoint, id uint32, bytes int64, deregister bool) error
	// Finish is called when the job's PEs have all returned (or the job
	// failed) with the error Run will return; it may write reports and
	// return an error of its own, returned when err is nil.
	Finish(j *Job, err error) error
}

// Counter is implemented by a Network that keeps counters of its own, for
// the job's conduit.Report.
type Counter interface {
	Counters() map[string]int64
}

// Tracer receives spans of PE activity, for a trace of the run.
type Tracer interface {
	PESpan(rank int, name string, start, end Time)
}

// Costs are the host CPU times charged to a PE for the conduit calls that
// do not go through the network model: named parameters of the model.
type Costs struct {
	// PollCQ is charged by every PollLocalCQ and PollRemoteCQ.
	PollCQ Time
	// PollMessages is charged by every PollMessages call, and PerMessage
	// for every message it returns (reading it out of the mailbox and
	// dispatching it).
	PollMessages, PerMessage Time
	// Wait is charged each time a waiting PE finds its condition unmet
	// and goes back to waiting.
	Wait Time
}

// Message is a short message in flight.
type Message struct {
	Source, Target int
	Seq            uint64 // per (source, target), from 1
	Header         []byte
	Payload        []byte
}

// Bytes is the message's size on the network.
func (m *Message) Bytes() int { return len(m.Header) + len(m.Payload) }
