// Package fabric is what the simulated Cray networks (gemini, aries) share:
// a packet-level model of NICs, routers and links, parameterised by each
// backend's constants, packet formats, topology, routing and host
// interface. A Machine is a simnet.Network.
//
// # The model
//
// A post or a short message is a transaction: its packets (requests)
// leave the source NIC's transmit pipeline, cross processor tiles, routers
// and links to the target's NIC, whose receive pipeline hands them to the
// host interface (writes, reads) or the AMO unit; each is answered by a
// response on the way back, and the transaction completes when every
// response is back and its completion-queue entry is written. A short
// message, and a put that asks for a destination-side event, also has the
// target's NIC write an entry to the target PE's completion queue, behind
// the data; the target learns of the message or the event when both are
// visible (nic.go, writeEvent).
// The NIC's pieces are FMA (the CPU stores each packet into the NIC), the
// block-transfer engine (the NIC reads and sends a whole transfer), the
// output request buffer (requests awaiting responses), the AMO unit and
// its cache, and timeouts for transactions whose responses stop coming.
// When the backend's Caps.FlaggedGet is set, an FMA get may carry a flag
// word, written when its last data write is visible and before its
// completion-queue entry (txn.go, raiseFlag).
//
// Channels (link directions and processor tiles) move one packet at a
// time with per-virtual-channel credits for the buffer at their far end
// (virtual cut-through). At each router the backend's Routing chooses a
// packet's next link; it may move the packet to another virtual channel
// and keep state of its own in the packet.
//
// Links may fail in the middle of a run (Machine.FailAt, fault.go): the
// packets on their wires are lost and their transactions time out, the
// adaptive routing masks them, and under deterministic routing the
// network is quiesced and re-routed, as the management software does. A
// lost short message is sent again; an AMO retried after a timeout is
// answered from the target's record of applied AMOs (amo.go).
//
// Large relaxed transfers may move in coarse units, runs of consecutive
// packets that cost what their packets would but are one event at each
// stage (the coarse_bytes and coarse_packets options).
//
// Everything is deterministic: the same job with the same seed gives the
// same run, event for event.
//
// # Where things live
//
//   - machine.go: the Machine (a simnet.Network), New, Open, Start and
//     Finish, registration costs, and the counters (Stats).
//   - backend.go: what a backend provides, the Config with its hooks and
//     the Topology and Routing interfaces, and the helpers its own NIC
//     units call (Cycles, Tracing, TraceNIC, Now, Job).
//   - host.go: the Host interface a backend implements for each node, and
//     HostToNIC and HostWrite, by which a backend's NIC units use it.
//   - calendar.go: the Calendar, a direction of a host link booked out of
//     order, and Times, a ring of times made in pieces as it is used, for
//     a backend's Host.
//   - txn.go: a transaction's life: the txn, Post and Send, the split into
//     packets or coarse units, its request and response packets, and its
//     completion (progress, raiseFlag, finish).
//   - fma.go: FMA, the CPU storing a transaction's packets through its
//     write-combining buffers (launch, issue); the PE is busy until its
//     last store has left the core.
//   - bte.go: the block-transfer engine.
//   - orb.go: the output request buffer, the entries of requests awaiting
//     their responses.
//   - timeout.go: the NIC's list of transaction timers, timeouts, and the
//     resending of short messages.
//   - nic.go: the NIC, its event codes, and its transmit and receive
//     pipelines, with what it does with each packet received (handle).
//     pipeline.go is the per-virtual-channel queueing both use.
//   - amo.go: the AMO unit, its cache, the record of applied AMOs, and
//     the ordering of AMOs (a strict AMO waits for the NIC's earlier
//     writes to be visible).
//   - reads.go: the tags of the NIC's reads of host memory, which a get's
//     data, the block-transfer engine's put data and the AMO cache's fills
//     share.
//   - register.go: registration (its cost and the per-node table of
//     registered pages).
//   - control.go: control packets, which belong to no transaction
//     (SendControl).
//   - packet.go: the Packet, its kinds, the free list and packet queues.
//   - channel.go: channels (link directions and processor tiles), credits
//     and sending (Channel.send and its steps).
//   - router.go: routers, their processor tiles and links, routing at each
//     router, and the tiled router's buses.
//   - fault.go: links failing during a run, quiesce and re-route.
//   - params.go, options.go: the backend's constants and packet sizes, and
//     the options every fabric knows.
//   - hazard.go: the checker of gets that read around earlier puts.
//   - trace.go: the trace of a run.
//   - plan.go, measure.go: a job's resources counted without running it,
//     and the NIC's peak receive rate.
//
// # Usage
//
// A backend fills a Config: its Params and Sizes, its Caps, the parsed
// Options (DefaultOptions, then Options.Set for each option it does not
// know itself), and the hooks: Build makes the routers (Machine.NewRouter)
// and links (Machine.NewLink) of a job's network and returns its Topology;
// NewHost makes a node's Host; Location places a rank's memory in its
// node; ChannelName and Counters name things for the trace and the report;
// Offload, if the NICs reduce in the network, is the collective engine the
// job's endpoints hand their offloaded collectives to (simnet.Job.Offload).
// Open then starts a job:
//
//	func Open(jc conduit.JobConfig) (conduit.Job, error) {
//		opts := fabric.DefaultOptions(params)
//		// ... parse jc.Options ...
//		j, err := fabric.Open(fabric.Config{Name: "mynet", Params: params, Sizes: sizes,
//			Options: opts, Caps: caps, PEsPerNode: 24, Build: build,
//			NewHost: newHost, Location: location, Counters: counters}, jc)
//		if err != nil {
//			return nil, err
//		}
//		return j, nil
//	}
//
// The fabric_test.go of this package is a complete small backend.
package fabric
