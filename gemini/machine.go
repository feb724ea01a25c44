package gemini

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/simnet"
)

// The model is an internal/fabric machine configured with Gemini's
// parameters (params.go), packet formats (packet.go), 3D torus and its
// routing (topology.go, router.go) and HyperTransport host interface
// (host.go).

// Name is the name the backend registers under.
const Name = "gemini"

func init() {
	conduit.Register(Name, conduit.Backend{Open: Open, Plan: Plan, DefaultPEs: func() int { return 2 * CoresPerNode }})
}

// params are the model's parameters as the fabric takes them.
var params = fabric.Params{
	VCs:              VirtualChannels,
	RequestVC:        VCRequest,
	ResponseVC:       VCResponse,
	ProcessorTiles:   ProcessorTiles,
	TileUnitTime:     routerCycles(ProcessorTilePhitCycles),
	InputBufferUnits: InputBufferPhits,
	RouterPipeline:   RouterPipeline,
	InputStage:       InputStage,
	MaxPacketData:    MaxPacketData,

	NICClockHz:            NICClockHz,
	NICPacketCycles:       NICPacketCycles,
	NICMinPacketCycles:    NICMinPacketCycles,
	NICLatencyCycles:      NICLatencyCycles,
	SSIDCycles:            SSIDCycles,
	RMTCycles:             RMTCycles,
	BTEChannels:           BTEChannels,
	BTEReadsOutstanding:   BTEReadsOutstanding,
	BTEBurstPackets:       BTEBurstPackets,
	ORBEntries:            ORBEntries,
	AMOHitCycles:          AMOHitCycles,
	AMOMissCycles:         AMOMissCycles,
	AMOCacheEntries:       AMOCacheEntries,
	AMOFetchesOutstanding: AMOFetchesOutstanding,
	TransactionTimeout:    TransactionTimeout,
	CQEntryBytes:          CQEntryBytes,
	HostOverheadBytes:     HTOverheadBytes,
	FMAControlBytes:       FMAGetControlBytes,
	BTEDescriptorBytes:    BTEDescriptorBytes,
	CoarseBytes:           DefaultCoarseBytes,
	CoarsePackets:         CoarsePackets,

	FMAPost:         FMAPost,
	FMAPutPerPacket: FMAPutPerPacket,
	FMAGetPerPacket: FMAGetPerPacket,
	BTEPost:         BTEPost,
	SMSGSend:        SMSGSend,
	PollCQ:          PollCQ,
	PollMessages:    PollMessages,
	PerMessage:      PerMessage,
	Wait:            Wait,
	RegisterCall:    RegisterCall,
	RegisterPerPage: RegisterPerPage,
	RegisterHandoff: RegisterHandoff,
	PageBytes:       PageBytes,
}

// Open starts a job on a simulated Gemini network. It is registered as the
// "gemini" backend; cfg.Options are described by OptionNames.
func Open(cfg conduit.JobConfig) (conduit.Job, error) {
	opts, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	j, err := fabric.Open(newNetwork(opts).config(), cfg)
	if err != nil {
		return nil, err
	}
	return j, nil
}

// Plan checks a job as Open would, without starting it, and estimates the
// memory it will hold (conduit.Backend.Plan).
func Plan(cfg conduit.JobConfig) (conduit.Plan, error) {
	opts, err := parseOptions(cfg.Options)
	if err != nil {
		return conduit.Plan{}, err
	}
	return fabric.Plan(newNetwork(opts).config(), cfg, hostBytes)
}

// caps: Gemini's AMOs are 64-bit integer add, and, or, xor, and
// compare-and-swap (gni_pub.h's first-generation AMOs); the runtime emulates
// the others. Local buffers must be registered. Gets have no flagged
// responses (Caps.FlaggedGet is an Aries addition).
var caps = conduit.Caps{
	NeedsRegisteredLocal: true,
	AMO32:                false,
	FloatAMO:             false,
	AMOOps:               conduit.NewAMOSet(conduit.AMOAdd, conduit.AMOAnd, conduit.AMOOr, conduit.AMOXor, conduit.AMOCSwap),
}

// config is the fabric of one job on the network.
func (w *network) config() fabric.Config {
	return fabric.Config{
		Name:        Name,
		Params:      params,
		Sizes:       sizes,
		Options:     w.opts.Options,
		Caps:        caps,
		PEsPerNode:  CoresPerNode,
		Build:       w.build,
		NewHost:     w.newHost,
		Location:    dieOf,
		ChannelName: w.channelName,
		Counters:    w.counters,

		ReroutePause: w.opts.reroutePause,
	}
}

// newHost is a node's HyperTransport host interface.
func (w *network) newHost(int) fabric.Host {
	h := &host{}
	w.hosts = append(w.hosts, h)
	return h
}

// counters are the model's counters by name, for the job's report: the
// fabric's, its phits, and the ordered writes that waited for another die.
func (w *network) counters(fs fabric.Stats) map[string]int64 {
	c := fs.Counters()
	c["link_phits"], c["torus_phits"], c["torus_packets"] = fs.ChannelUnits, fs.LinkUnits, fs.LinkPackets
	var die int64
	for _, h := range w.hosts {
		die += h.dieSwitch
	}
	c["die_switches"] = die
	return c
}

type options struct {
	fabric.Options
	gx, gy, gz     int
	yOpen          bool
	cabinets, rows int
	mseries        int
	mseriesY       int
	faults         []linkFault
	reroutePause   Time
}

// linkFault is a failed or degraded connection: links of connection conn
// of Gemini gemini towards its neighbour in dim and dir (0: all of them,
// the connection fails), from the start of the job, or from time at when
// timed.
type linkFault struct {
	gemini int
	dim    Dim
	dir    Dir
	conn   int
	links  int // links of the connection that failed; 0 means all
	timed  bool
	at     Time
}

// String formats the fault as the fail option gives it.
func (f linkFault) String() string {
	s := fmt.Sprintf("%d:%v:%v:%d", f.gemini, f.dim, f.dir, f.conn)
	if f.links > 0 {
		s += fmt.Sprintf(":%d", f.links)
	}
	if f.timed {
		s += "@" + fabric.FormatFaultTime(f.at)
	}
	return s
}

// parseFaults parses the fail option: gemini:dim:dir:conn[:links][@time]
// separated by ';', where time (a Go duration of simulated time: 20us,
// 1.5ms) is when the connection fails in the middle of the run; without
// it the connection has failed from the start.
func parseFaults(v string) ([]linkFault, error) {
	var out []linkFault
	for _, f := range strings.Split(v, ";") {
		spec, when, timed := strings.Cut(f, "@")
		parts := strings.Split(spec, ":")
		if len(parts) != 4 && len(parts) != 5 {
			return nil, fmt.Errorf("fault %q is not gemini:dim:dir:conn[:links][@time]", f)
		}
		var lf linkFault
		var err error
		if lf.gemini, err = strconv.Atoi(parts[0]); err != nil || lf.gemini < 0 {
			return nil, fmt.Errorf("fault %q: gemini %q", f, parts[0])
		}
		switch parts[1] {
		case "x":
			lf.dim = DimX
		case "y":
			lf.dim = DimY
		case "z":
			lf.dim = DimZ
		default:
			return nil, fmt.Errorf("fault %q: dimension %q", f, parts[1])
		}
		switch parts[2] {
		case "+":
			lf.dir = DirPlus
		case "-":
			lf.dir = DirMinus
		default:
			return nil, fmt.Errorf("fault %q: direction %q", f, parts[2])
		}
		if lf.conn, err = strconv.Atoi(parts[3]); err != nil || lf.conn < 0 {
			return nil, fmt.Errorf("fault %q: connection %q", f, parts[3])
		}
		if len(parts) == 5 {
			if lf.links, err = strconv.Atoi(parts[4]); err != nil || lf.links < 1 || lf.links > LinksPerConnection {
				return nil, fmt.Errorf("fault %q: links %q (1..%d)", f, parts[4], LinksPerConnection)
			}
		}
		if timed {
			if lf.at, err = fabric.ParseFaultTime(when); err != nil {
				return nil, fmt.Errorf("fault %q: %v", f, err)
			}
			lf.timed = true
		}
		out = append(out, lf)
	}
	return out, nil
}

// torus builds the job's torus from the options.
func (o options) torus(nodes int) (*Torus, error) {
	switch {
	case o.gx > 0:
		return NewTorus(o.gx, o.gy, o.gz, !o.yOpen)
	case o.mseries > 0:
		t, err := MSeries(o.mseries, o.mseriesY)
		if t != nil {
			t.YClosed = !o.yOpen
		}
		return t, err
	case o.cabinets > 0:
		rows := max(o.rows, 1)
		t, _, err := ForCabinets(o.cabinets, rows)
		if t != nil {
			t.YClosed = !o.yOpen
		}
		return t, err
	}
	// The smallest Table 1 system of one row (two above 16 cabinets).
	cabinets := max(1, (nodes+NodesPerCabinet-1)/NodesPerCabinet)
	rows := 1
	if cabinets > 16 {
		rows = 2
		cabinets = (cabinets + 1) / 2
	}
	t, _, err := ForCabinets(cabinets, rows)
	if t != nil {
		t.YClosed = !o.yOpen
	}
	return t, err
}

// dieOf is the NUMA die of a rank's core and memory: PEs fill a node's
// cores in order.
func dieOf(j *simnet.Job, rank int) int {
	local := rank % j.PEsPerNode()
	return (local % CoresPerNode) / (CoresPerNode / Dies)
}
