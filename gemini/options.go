package gemini

import (
	"github.com/gopgas/gopgas/gemini/torus"
	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/option"
)

// maxCabinets bounds the cabinets and rows options: a system of more
// cabinets has more Geminis than a Gemini id addresses (torus.MaxGeminis).
const maxCabinets = torus.MaxGeminis / (torus.NodesPerCabinet / torus.NodesPerGemini)

// options are a job's backend options, parsed: the fabric's, the system
// (torus, cabinets and rows, or mseries and mseries_y; y_open), the failed
// connections and the re-route pause.
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

// optionTable declares the backend options (OptionNames). The options
// that choose the system exclude each other: torus (the torus itself),
// cabinets (a Table 1 system, with rows) and mseries (an m-series system,
// with mseries_y for one cabinet). y_open applies to whichever system the
// job gets, the default one included.
var optionTable = option.New(Name, append(fabric.DeclareOptions(params, func(o *options) *fabric.Options { return &o.Options }),
	option.Dims("torus", "the Gemini torus as XxYxZ Geminis (default: the smallest Table 1 system holding the job)",
		3, torus.MaxGeminis, torus.MaxGeminis, func(o *options, d []int) { o.gx, o.gy, o.gz = d[0], d[1], d[2] }),
	option.Int("cabinets", "build the Table 1 system of this many cabinets per row", 1, maxCabinets,
		func(o *options, n int) { o.cabinets = n }),
	option.Int("rows", "rows of cabinets (default 1)", 1, maxCabinets,
		func(o *options, n int) { o.rows = n }),
	option.Int("mseries", "build an m-series 2D torus of this many cabinets", 1, torus.MSeriesMaxCabinets,
		func(o *options, n int) { o.mseries = n }),
	option.IntOf("mseries_y", "the y size, in nodes, of a one-cabinet m-series system (mseries=1, which needs it)", torus.MSeriesSingleCabinetSizes(),
		func(o *options, n int) { o.mseriesY = n }),
	option.Bool("y_open", "true: the y dimension is open (not a ring)",
		func(o *options, b bool) { o.yOpen = b }),
	option.Custom("fail", "failed connections, e.g. 0:x:+:0, 0:x:+:1:1 or 0:x:+:0@20us (fails 20 us into the run; without @, failed from the start)",
		"gemini:dim:dir:conn[:links][@time] separated by ';' (dim x, y or z; dir + or -; links of the connection 1 to 4, default all; time a duration such as 20us)",
		parseFaults, formatFaults, func(o *options, f []linkFault) { o.faults = f }),
	fabric.ReroutePauseOption("how long the network is quiesced for new routing tables after a connection fails in the run under deterministic routing",
		ReroutePause, func(o *options, t Time) { o.reroutePause = t }),
)...).
	AtMostOne("torus", "cabinets", "mseries").
	Requires("rows", "cabinets").
	Requires("mseries_y", "mseries")

// OptionNames lists the backend options and what they mean.
var OptionNames = optionTable.Names()

// parseOptions parses the backend options of a job (optionTable), then
// checks mseries_y against mseries, whose value decides whether it
// applies.
func parseOptions(o map[string]string) (options, error) {
	opts := options{Options: fabric.DefaultOptions(params), reroutePause: ReroutePause}
	if err := optionTable.Parse(&opts, o); err != nil {
		return opts, err
	}
	switch {
	case opts.mseries > 1 && opts.mseriesY != 0:
		return opts, option.Errorf(Name, []string{"mseries", "mseries_y"},
			`options mseries="%d" and mseries_y="%d": mseries_y is for a one-cabinet m-series system (mseries=1) only`, opts.mseries, opts.mseriesY)
	case opts.mseries == 1 && opts.mseriesY == 0:
		y, _ := optionTable.Option("mseries_y")
		return opts, option.Errorf(Name, []string{"mseries"},
			`option mseries="1": a one-cabinet m-series system needs mseries_y (%s)`, y.Allowed())
	}
	return opts, nil
}

// system builds the job's torus from the options: the one they name, or
// else the smallest Table 1 system holding nodes nodes.
func (o options) system(nodes int) (*torus.Torus, error) {
	switch {
	case o.gx > 0:
		return torus.NewTorus(o.gx, o.gy, o.gz, !o.yOpen)
	case o.mseries > 0:
		t, err := torus.MSeries(o.mseries, o.mseriesY)
		if t != nil {
			t.YClosed = !o.yOpen
		}
		return t, err
	case o.cabinets > 0:
		rows := max(o.rows, 1)
		t, _, err := torus.ForCabinets(o.cabinets, rows)
		if t != nil {
			t.YClosed = !o.yOpen
		}
		return t, err
	}
	// The smallest Table 1 system of one row (two above 16 cabinets).
	cabinets := max(1, (nodes+torus.NodesPerCabinet-1)/torus.NodesPerCabinet)
	rows := 1
	if cabinets > 16 {
		rows = 2
		cabinets = (cabinets + 1) / 2
	}
	t, _, err := torus.ForCabinets(cabinets, rows)
	if t != nil {
		t.YClosed = !o.yOpen
	}
	return t, err
}
