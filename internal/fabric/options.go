package fabric

import (
	"fmt"
	"maps"
	"strings"

	"github.com/gopgas/gopgas/internal/option"
	"github.com/gopgas/gopgas/internal/units"
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
	// channel, which then sends it again, in [0, 1) (finite).
	CRCErrorRate float64
	// TracePath, when set, is where Finish writes a trace of the run.
	TracePath string
	// Hazards is what the hazard checker does: nothing ("" or "off"),
	// report to standard error ("log"), or fail the run ("fail").
	Hazards string
	// CoarseBytes is the size above which relaxed transfers move in
	// coarse units of CoarsePackets packets; 0 means never. The options
	// allow CoarseBytes in [0, MaxCoarseBytes] and CoarsePackets in [1,
	// MaxCoarsePackets].
	CoarseBytes, CoarsePackets int
	// Workers, when above 0, runs the network in partitions (the
	// backend's: Config.Partitioning) on that many workers; 0 runs it on
	// one kernel.
	Workers int
}

// DefaultOptions are the options a job has unless it says otherwise.
func DefaultOptions(p Params) Options {
	return Options{CoarseBytes: p.CoarseBytes, CoarsePackets: p.CoarsePackets}
}

// The ranges of the coarse options.
const (
	// MaxCoarseBytes bounds coarse_bytes: no transfer is larger (the
	// runtime's largest segment and chunk are 1 TiB).
	MaxCoarseBytes = 1 << 40
	// MaxCoarsePackets bounds coarse_packets, far below any overflow of a
	// unit's bytes or packet count.
	MaxCoarsePackets = 1 << 16
	// MaxTracePathBytes bounds the trace option's path.
	MaxTracePathBytes = 4096
	// MaxWorkers bounds the workers option.
	MaxWorkers = 1024
)

var hazardModes = []string{"off", "log", "fail"}

// optionDecls declares the options of every fabric, with p's defaults in
// their help.
func optionDecls(p Params) []option.Option[Options] {
	return []option.Option[Options]{
		option.Enum("routing", "which transactions route adaptively: all (adaptive, the default), none (deterministic), or all but the strictly ordered ones (by-order)",
			routingNames[:], []RoutingPolicy{RouteAdaptive, RouteDeterministic, RouteByOrder},
			func(o *Options, r RoutingPolicy) { o.Routing = r }),
		option.Bool("hash_address", "true: deterministic routing hashes the remote address too",
			func(o *Options, b bool) { o.HashAddress = b }),
		option.Float("crc_error_rate", "probability that a packet's CRC fails on a link (retried)", 0, 1,
			func(o *Options, f float64) { o.CRCErrorRate = f }),
		option.String("trace", "write a Chrome trace-event JSON file of the run here", MaxTracePathBytes,
			func(o *Options, s string) { o.TracePath = s }),
		option.Int("coarse_packets", fmt.Sprintf("packets per coarse unit (default %d)", p.CoarsePackets), 1, MaxCoarsePackets,
			func(o *Options, n int) { o.CoarsePackets = n }),
		option.Enum("hazards", "report relaxed gets that read around a put to the same bytes: off (default), log to standard error, or fail the run",
			hazardModes, hazardModes, func(o *Options, s string) { o.Hazards = s }),
		option.Int("workers", "run the network in partitions (Aries: a group each; Gemini: an X plane each) on this many workers (goroutines): the same results for any number from 1 up, not the same as 0's, the default, one kernel: a message's mailbox slot reaches a sender in another partition the lookahead after the target frees it, and a link failing in the run is failed at its time for every event of that time (docs/parallel-kernel.md)",
			0, MaxWorkers, func(o *Options, n int) { o.Workers = n }),
		option.Bytes("coarse_bytes", fmt.Sprintf("relaxed transfers larger than this move in coarse units (default %s; 0: always packet by packet)", units.FormatBytes(int64(p.CoarseBytes))),
			0, MaxCoarseBytes, func(o *Options, n int) { o.CoarseBytes = n }),
	}
}

// DeclareOptions declares the options every fabric has (routing,
// hash_address, crc_error_rate, trace, hazards, coarse_bytes,
// coarse_packets) for a backend whose options T hold an Options at field,
// with p's defaults in their help: the backend adds them to its
// option.Table.
func DeclareOptions[T any](p Params, field func(*T) *Options) []option.Option[T] {
	decls := optionDecls(p)
	out := make([]option.Option[T], len(decls))
	for i, d := range decls {
		out[i] = option.Lift(d, field)
	}
	return out
}

// OptionNames describes the options every fabric has, by name, with p's
// defaults, and a backend's own descriptions (backend) with them.
func OptionNames(p Params, backend map[string]string) map[string]string {
	names := option.New("fabric", optionDecls(p)...).Names()
	maps.Copy(names, backend)
	return names
}

// setTable parses Set's options.
var setTable = option.New("fabric", optionDecls(Params{})...)

// Set sets the option name to value (both trimmed of surrounding
// whitespace), as a backend's option.Table does. known is false if name is
// not one of OptionNames; err says what is wrong with value (without the
// option's name, which the caller adds), and o is then unchanged.
func (o *Options) Set(name, value string) (known bool, err error) {
	opt, ok := setTable.Option(strings.TrimSpace(name))
	if !ok {
		return false, nil
	}
	return true, opt.Set(o, value)
}

// ReroutePauseOption declares a backend's reroute_pause option: a duration
// of simulated time (Go syntax: 500us, 1ms) from 0 to MaxReroutePause, def
// by default.
func ReroutePauseOption[T any](help string, def Time, set func(*T, Time)) option.Option[T] {
	return option.Custom("reroute_pause", fmt.Sprintf("%s (default %s)", help, FormatFaultTime(def)),
		fmt.Sprintf("a duration from 0 to %s (500us, 1ms)", FormatFaultTime(MaxReroutePause)),
		func(s string) (Time, error) {
			t, err := ParseFaultTime(s)
			if err == nil && t > MaxReroutePause {
				err = fmt.Errorf("more than %s", FormatFaultTime(MaxReroutePause))
			}
			return t, err
		}, FormatFaultTime, set)
}
