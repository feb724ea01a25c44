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
// response is back and, for a post, its completion-queue entry is written.
// The NIC's pieces are FMA (the CPU stores each packet into the NIC), the
// block-transfer engine (the NIC reads and sends a whole transfer), the
// output request buffer (requests awaiting responses), the AMO unit and
// its cache, and timeouts for transactions whose responses stop coming.
// When the backend's Caps.FlaggedGet is set, an FMA get may carry a flag
// word, written when its last data write is visible and before its
// completion-queue entry (nic.go, raiseFlag).
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
// # Usage
//
// A backend fills a Config: its Params and Sizes, its Caps, the parsed
// Options (DefaultOptions, then Options.Set for each option it does not
// know itself), and the hooks: Build makes the routers (Machine.NewRouter)
// and links (Machine.NewLink) of a job's network and returns its Topology;
// NewHost makes a node's Host; Location places a rank's memory in its
// node; ChannelName and Counters name things for the trace and the report.
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
