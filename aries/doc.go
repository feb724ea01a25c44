// Package aries is the simulated Cray Aries network of a Cray XC system,
// registered as the "aries" backend of the conduit (Open, Plan). A job runs
// on an internal/fabric machine configured with Aries's parameters, flit
// packets, Dragonfly network and routing, PCI-Express host interface,
// network addresses, IOMMU and collective engine.
//
// References: "whitepaper" is [ARIES-WP] (docs/references.md). It has no
// section numbers, so sections are cited by their titles ("Aries Router",
// "Cray XC Routing", "Address Translation", ...). Calibration rows are
// cited by their ids (A-FLITS, A-HOP, ...). Each parameter says where its
// value comes from (params.go).
//
// # Blocks
//
// One Aries serves four nodes, each through a NIC of its own; its router
// joins the Dragonfly. The blocks, and the file each lives in:
//
//	 node: 2 sockets, CoresPerNode cores
//	   |
//	   |  PCI-Express Gen3 x16, one link per NIC ............. host.go
//	   |
//	+--+-------------------------------------------------------------+
//	| NIC (4 per Aries)                                              |
//	|   FMA  BTE  ORB  AMO: internal/fabric, with params.go's values |
//	|   packets in 48-bit flits, the route they carry .. packet.go   |
//	|   network addresses, vMDH CAM, memory domains .... address.go  |
//	|   IOMMU: PTE cache and fetch pipeline ............ iommu.go    |
//	|   CE: 4 virtual collective engines ... ce.go, ce_reduce.go     |
//	+--+-------------------------------------------------------------+
//	   |  Netlink: 4 processor tiles per pair of NICs
//	+--+-------------------------------------------------------------+
//	| Aries router: 6 x 8 tiles, 40 network and 8 processor          |
//	|   tiles, buses, link buffers and flit times ...... tiles.go    |
//	|   routing: minimal, non-minimal, adaptive ........ routing.go  |
//	+--+-------------------------------------------------------------+
//	   |  15 green, 15 black, 10 global links
//	   |
//	 Dragonfly: groups of 6 chassis of 16 Aries ...... dragonfly/
//	   (its names in this package ..................... dragonfly.go)
//	 failed and degraded links, new routing tables .... faults.go
//
// # Files
//
//   - machine.go: assembly: the backend's registration, the fabric's
//     parameters and capabilities, and the network of a job, a struct of
//     the blocks below (routing, addressing, host interfaces, IOMMUs,
//     collective engine), built from the options.
//   - params.go: the model's parameters beyond the topology's, each with
//     its source.
//   - options.go: the backend options and the system they choose.
//   - packet.go: packet sizes in flits and the route state a packet
//     carries.
//   - host.go: a node's PCI-Express host interface.
//   - tiles.go: the router's tiles, its input buffers and the links' flit
//     times.
//   - routing.go: the routers and links of a job's Dragonfly and the routing
//     decisions that use them: minimal and non-minimal candidates,
//     adaptive choice, progressive rerouting, detours round failed links.
//   - faults.go: the fail option, failing and degrading links, and the new
//     routing tables after a failure.
//   - address.go: 70-bit network addresses, vMDH CAMs, memory domains and
//     virtual node ids.
//   - iommu.go: the IOMMU's PTE cache and its fetch pipeline, and the
//     fabric's translation and registration hooks.
//   - ce.go: the collective engine: its shape, its trees and its model
//     (events, virtual CEs, packets up and down the tree); ce_reduce.go:
//     the arithmetic of its reductions.
//   - dragonfly.go: the dragonfly package's names in this package.
//   - figures.go: figures of the model measured on its parts, for the
//     calibration rows.
//
// The topology itself (geometry, wiring, routes as paths of hops, the
// whitepaper's bandwidth formulas) is the dragonfly subpackage, which
// knows nothing of the simulator.
package aries
