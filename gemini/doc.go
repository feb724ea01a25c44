// Package gemini is the simulated Cray Gemini network of the XE6: a
// packet-level model of its NICs, HyperTransport host interfaces, routers
// and 3D torus, registered as the "gemini" conduit backend. It configures
// internal/fabric, the model the simulated Cray networks share, with
// Gemini's figures, packet formats, torus, routing and host interface; the
// torus's geometry is package gemini/torus.
//
// Sources are cited by the keys of docs/references.md; in this package's
// comments WP is [GEMINI-WP], SIP [GEMINI-HOTI] and MOP [ORDERING], and
// G-* names a row of the calibration sheet. Each parameter says where its
// value comes from (params.go).
//
// # Usage
//
// The package registers the backend when it is imported, as package pgas
// does; a job then names it in its configuration, pgas.Config{Conduit:
// "gemini"} or PGAS_CONDUIT=gemini. Backend options (OptionNames) choose the system, the
// routing, faults and tracing: PGAS_OPTIONS=cabinets=4,routing=adaptive.
// Every run is deterministic: the same job and seed give the same events.
//
// # The blocks
//
// One Gemini ASIC serves two nodes ([GEMINI-WP] 1, 2). Each node is two
// 12-core sockets, four NUMA dies of six cores, linked to its own NIC by a
// HyperTransport 3 link; both NICs reach the ASIC's 48-port router through
// its 8 processor tiles, and the router's other 40 tiles, 10 torus
// connections of 4 Gemini links, lead to the six neighbours in the torus.
//
//	node 0                              node 1
//	die 0  die 1  die 2  die 3          die 0 ... die 3
//	   \     |      |     /                 \      /
//	  host bridge: posted writes,         host bridge
//	  reads, ordering modes               (the same)
//	         |  HyperTransport 3              |
//	+--------|--------------------------------|---------+
//	|   +----+-----------+            +-------+------+  |
//	|   | NIC 0          |            | NIC 1        |  |
//	|   | FMA  BTE  ORB  |            | (the same)   |  |
//	|   | AMO unit+cache |            |              |  |
//	|   | SSID / RMT     |            |              |  |
//	|   +-------+--------+            +------+-------+  |
//	|           |  8 processor tiles         |          |
//	|   +-------+----------------------------+-------+  |
//	|   |  48-port router: virtual cut-through,      |  |
//	|   |  request and response virtual channels     |  |
//	|   +--+------+------+------+------+---------+---+  |
//	|      x+     x-     y+     y-     z+        z-     |
//	+------|------|------|------|------|---------|------+ Gemini ASIC
//	       2      2      1      1      2         2  torus connections
//	       of 4 links of 3 lanes each, to the six neighbours
//	                        |
//	       3D torus of Geminis: x and z rings, y a ring or a line
//
// # Where each block lives
//
//	NIC units: FMA, BTE, ORB,      internal/fabric; their figures
//	  AMO unit, SSID and RMT       (clocks, cycles, sizes) in params.go
//	HyperTransport host interface  host.go: the bridge, the NUMA dies,
//	  and the ordering modes       strict/default/relaxed; figures in
//	                               params.go
//	packet formats (phits)         packet.go (sizes in params.go)
//	48-port router and links       internal/fabric; figures in params.go
//	routing decisions              routing.go: deterministic, adaptive,
//	                               the re-routed tables after a failure
//	3D torus geometry              package gemini/torus (packaging,
//	                               coordinates, wiring, routes, bisection);
//	                               topology.go keeps its names used here
//	failed and degraded links      faults.go (the fail option)
//	backend options                options.go
//	assembly                       machine.go: Open, Plan, and the job's
//	                               fabric.Machine built from the above
//	read/write hazards             hazard.go (the hazards option)
//	figures for the calibration    figures.go
package gemini
