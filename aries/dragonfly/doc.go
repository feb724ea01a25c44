// Package dragonfly is the Dragonfly network that Aries ASICs are wired
// into on a Cray XC system, as pure topology: its packaging constants and
// link rates, the Dragonfly built from a number of groups, cabinets or
// chassis, addressing of Aries and nodes, the green, black and global
// neighbours of an Aries, the wiring of the global links, minimal and
// non-minimal (Valiant) routes as paths of hops, and the whitepaper's
// bisection and global bandwidth.
//
// It knows nothing of the simulator: no routers, links, packets or time.
// The aries package builds its fabric from a Dragonfly and routes packets
// over the paths this package computes.
//
// References: "whitepaper" is [ARIES-WP] (docs/references.md). It has no
// section numbers, so sections are cited by their titles: "Aries", "Aries
// Router", "Dragonfly Implementation" (for "Dragonfly Implementation for the
// Cray XC Series"), "Cray XC Routing", "Aries Performance" and "Cray XC
// Series Configuration". Calibration rows are cited by their ids
// (A-GROUP, A-MINHOPS, ...). Errors begin with "aries:", the backend this
// package is a part of.
//
// Nothing here is a table over the links of the system. A Dragonfly is three
// integers; neighbours, the owner of every global port and every route are
// computed arithmetically, so the largest system (241 groups, 92,544 nodes)
// costs no more memory than the smallest.
//
// # Model
//
// A group is six chassis of sixteen Aries (one per blade), four nodes per
// Aries. Within a chassis every Aries has one green link to each of the 15
// others; within a group every Aries has BlackLinksPerPeer black links to the
// Aries in the same slot of each other chassis. Between groups, global links
// travel in cables of LinksPerCable links; the cables from each group are
// divided into bundles of equal size, one bundle to each other group
// (whitepaper, Cray XC Series Configuration).
//
// Only the last group may be partial, holding 1 to 5 chassis (whitepaper,
// Cray XC Series Configuration: "All groups except the last must be full").
// Aries ids are therefore dense: Aries (group, chassis, slot) is
// (group*ChassisPerGroup + chassis)*AriesPerChassis + slot, and node
// (group, chassis, slot, nic) is that times NodesPerAries plus nic.
//
// The port numbering is documented at FirstGreenPort and the wiring of the
// global links at Dragonfly.
//
// # Routing
//
// Routes are computed whole at the source, as paths of hops over named
// ports. Minimal routes take the global links nearest the source (see
// Minimal), which is what makes most non-minimal (Valiant) routes through
// a uniformly random intermediate Aries six or seven hops long on systems
// of 6 to 16 groups, as the whitepaper says, and longer on the largest
// systems, where only 4 links join each pair of groups (Cray XC Routing;
// the tests log the distributions).
//
// # Files
//
//   - packaging.go: the packaging constants (nodes, Aries, chassis,
//     cabinets and groups), the links and ports of an Aries and their
//     numbering, the global network's limits, link rates and the link
//     layer's flits, and route lengths.
//   - dragonfly.go: the Dragonfly type, its constructors (NewDragonfly,
//     ForCabinets, ForChassis, MaxBundle), its sizes and the checks of ids.
//   - geometry.go: link classes, positions of Aries and nodes, hops and
//     paths; addressing, neighbours and the link behind each port.
//   - wiring.go: the global wiring: bundles, connectors and cables between
//     groups (CablesBetween, GlobalLink, GlobalOwners, TotalCables).
//   - routes.go: minimal and non-minimal routes, their choices and the
//     candidate global links, with the unchecked forms a simulator's
//     routing uses.
//   - bandwidth.go: the whitepaper's formulas: global and bisection
//     bandwidth, cables, a group's bisection and payload efficiency.
//
// The subpackage dragonflytest holds the checks of paths the tests of this
// package and of the aries package share.
package dragonfly
