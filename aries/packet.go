package aries

import "github.com/gopgas/gopgas/internal/fabric"

// Aries's packets as the fabric carries them: their sizes in 48-bit flits
// (the constants are in params.go), and the route a packet carries from
// its source Aries (routing.go chooses it).

// flits is the number of 48-bit flits that carry n bytes.
func flits(n int) int { return (n + FlitBytes - 1) / FlitBytes }

// sizes are Aries's packets in flits (A-FLITS): a request is a header of
// RequestHeaderFlits and its data, a response a header of
// ResponseHeaderFlits and its data; 64 bytes make 11 flits, so a 64-byte
// put is 14 request flits and 1 response flit and a 64-byte get 3 request
// flits and 12 response flits.
var sizes = fabric.Sizes{
	Request:       func(n int) int { return RequestHeaderFlits + flits(n) },
	GetRequest:    RequestHeaderFlits,
	DataResponse:  func(n int) int { return ResponseHeaderFlits + flits(n) },
	Response:      ResponseHeaderFlits,
	ErrorResponse: ErrorResponseFlits,
}

// Route state in fabric.Packet.Route: Route[0] is routeRouted | the number
// of hops << routeCountShift | the index of the next hop (0 before the
// source Aries has routed the packet), with flags: a non-minimal route,
// and the classes of the hops taken (green and black until the first
// global hop, then global); Route[1..3] hold the hops, four to an int32,
// each a byte of an output port and a VC offset (routeVCShift).
const (
	routeRouted      = 1 << 30
	routeNonMinimal  = 1 << 29
	routeGreenTaken  = 1 << 16
	routeBlackTaken  = 1 << 17
	routeGlobalTaken = 1 << 18
	routeDetoured    = 1 << 28 // replaced after the source (detour)
	routeCountShift  = 8
	routeIndexMask   = 1<<routeCountShift - 1
	routeHopBits     = 8
	routeHopsPerInt  = 32 / routeHopBits
	routeVCShift     = 6 // ports 0..39 take 6 bits
	routePortMask    = 1<<routeVCShift - 1
)

// routeHop is hop i of p's route: its output port and VC offset.
func routeHop(p *fabric.Packet, i int) uint32 {
	return uint32(p.Route[1+i/routeHopsPerInt]) >> (routeHopBits * (i % routeHopsPerInt)) & (1<<routeHopBits - 1)
}

// storeRoute keeps path in p.Route, with the VC offset of each hop: one
// more after each global hop and from the hop split on (the intermediate
// Aries; -1: none).
func storeRoute(p *fabric.Packet, path Path, split int) { storeRouteFrom(p, path, split, 0) }

// storeRouteFrom is storeRoute with the VC offsets starting at vc.
func storeRouteFrom(p *fabric.Packet, path Path, split, vc int) {
	p.Route = [4]int32{routeRouted | int32(len(path))<<routeCountShift}
	for i, h := range path {
		if i == split {
			vc++
		}
		hop := uint32(h.FromPort) | uint32(vc)<<routeVCShift
		p.Route[1+i/routeHopsPerInt] |= int32(hop << (routeHopBits * (i % routeHopsPerInt)))
		if h.Class == LinkGlobal {
			vc++
		}
	}
}
