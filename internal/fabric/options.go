package fabric

import (
	"fmt"
	"maps"
	"strconv"
)

// RoutingPolicy says which transactions are routed adaptively (the routing
// option); the Routing decides what adaptive and deterministic mean.
type RoutingPolicy uint8

const (
	// RouteAdaptive routes every transaction adaptively: GNI's default
	// delivery mode, whatever the processor interface's ordering (gni_pub.h
	// keeps GNI_DLVMODE_* and the ordering flags apart).
	RouteAdaptive RoutingPolicy = iota
	// RouteDeterministic routes every transaction deterministically.
	RouteDeterministic
	// RouteByOrder routes strictly ordered transactions deterministically,
	// so that the network delivers them in order too, and the others
	// adaptively.
	RouteByOrder
)

var routingNames = [...]string{"adaptive", "deterministic", "by-order"}

func (r RoutingPolicy) String() string {
	if int(r) < len(routingNames) {
		return routingNames[r]
	}
	return fmt.Sprintf("RoutingPolicy(%d)", uint8(r))
}

// Options are the backend options every fabric has (OptionNames); a backend
// parses its own and hands the rest to Set.
type Options struct {
	// Routing is the routing option.
	Routing RoutingPolicy
	// HashAddress adds the remote address of each packet's data to its
	// routing hash.
	HashAddress bool
	// CRCErrorRate is the probability that a packet's CRC fails on a
	// channel, which then sends it again, in [0, 1).
	CRCErrorRate float64
	// TracePath, when set, is where Finish writes a trace of the run.
	TracePath string
	// Hazards is "", "off", "log" or "fail": what the hazard checker does
	// (nothing, report to standard error, fail the run).
	Hazards string
	// CoarseBytes is the size above which relaxed transfers move in
	// coarse units of CoarsePackets packets; 0 means never.
	CoarseBytes, CoarsePackets int
}

// DefaultOptions are the options a job has unless it says otherwise.
func DefaultOptions(p Params) Options {
	return Options{CoarseBytes: p.CoarseBytes, CoarsePackets: p.CoarsePackets}
}

// OptionNames describes the options Set knows, by name, with p's defaults,
// and a backend's own options (backend) with them.
func OptionNames(p Params, backend map[string]string) map[string]string {
	names := map[string]string{
		"routing":        "adaptive (default), deterministic, or by-order (deterministic for strict ordering, adaptive otherwise)",
		"hash_address":   "true: deterministic routing hashes the remote address too",
		"crc_error_rate": "probability that a packet's CRC fails on a link (retried)",
		"trace":          "write a Chrome trace-event JSON file of the run here",
		"coarse_packets": fmt.Sprintf("packets per coarse unit (default %d)", p.CoarsePackets),
		"hazards":        "off, log or fail: report relaxed gets that read around a put to the same bytes",
		"coarse_bytes":   fmt.Sprintf("relaxed transfers larger than this many bytes move in coarse units (default %d; 0: always packet by packet)", p.CoarseBytes),
	}
	maps.Copy(names, backend)
	return names
}

// Set sets the option name to value. known is false if name is not one of
// OptionNames; err says what is wrong with value (without the option's
// name, which the caller adds).
func (o *Options) Set(name, value string) (known bool, err error) {
	switch name {
	case "routing":
		err = fmt.Errorf("not adaptive, deterministic or by-order")
		for r, s := range routingNames {
			if s == value {
				o.Routing, err = RoutingPolicy(r), nil
			}
		}
	case "hash_address":
		o.HashAddress, err = strconv.ParseBool(value)
	case "crc_error_rate":
		o.CRCErrorRate, err = strconv.ParseFloat(value, 64)
		if err == nil && (o.CRCErrorRate < 0 || o.CRCErrorRate >= 1) {
			err = fmt.Errorf("not in [0, 1)")
		}
	case "trace":
		o.TracePath = value
	case "coarse_bytes":
		o.CoarseBytes, err = strconv.Atoi(value)
		if err == nil && o.CoarseBytes < 0 {
			err = fmt.Errorf("negative")
		}
	case "coarse_packets":
		o.CoarsePackets, err = strconv.Atoi(value)
		if err == nil && o.CoarsePackets < 1 {
			err = fmt.Errorf("less than 1")
		}
	case "hazards":
		if value != "off" && value != "log" && value != "fail" {
			err = fmt.Errorf("not off, log or fail")
		}
		o.Hazards = value
	default:
		return false, nil
	}
	return true, err
}
