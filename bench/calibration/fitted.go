package calibration

import (
	"fmt"
	"strings"
)

// The parameters fitted to calibration rows, in one list. A model
// parameter no document gives is either assumed (a plausible value the
// calibration depends on little) or fitted: set so that one row comes out
// right, which makes that row a check of the model's consistency rather
// than a prediction. Each fitted parameter is fitted to exactly one row
// and may not be re-fitted to rescue another; the test of this list
// checks that every backend constant whose comment says "set from ROW" is
// here with that row, and nothing else.

// Fitted is one fitted parameter: the backend constant and the row it
// was set from.
type Fitted struct {
	Backend string
	// Param is the constant's name in the backend's package (params.go).
	Param string
	// Row is the ID of the row it was set from.
	Row string
	// What is what the row fixes in it.
	What string
}

// FittedParams are the fitted parameters of both backends.
var FittedParams = []Fitted{
	{gem, "RouterPipelineCycles", "G-HOP", "the 105 ns per hop, with the assumed link flight time"},
	{gem, "NICLatencyCycles", "G-LAT-PUT", "the end-point latency of a put, with FMAPost"},
	{gem, "FMAPost", "G-LAT-PUT", "the CPU's part of a put's latency"},
	{gem, "HTLatency", "G-LAT-GET", "a get's latency: its request and data cross the HT link twice each"},
	{gem, "SSIDCycles", "G-MSG-RATE", "12.5 M small transactions per second per node"},
	{gem, "AMOHitCycles", "G-AMO-HIT", "100 M/s on one cached word"},
	{gem, "AMOMissCycles", "G-AMO-MISS", "more than 45 M/s on random words"},
	{gem, "LocalWriteLatency", "G-ORD-RATIO", "with RemoteWriteLatency, what a die switch of ordered writes, and a strict write after a read of another die, cost"},
	{gem, "RemoteWriteLatency", "G-ORD-RATIO", "with LocalWriteLatency, what a die switch of ordered writes, and a strict write after a read of another die, cost"},
	{gem, "BTEPost", "G-XOVER", "a block transfer's start-up, which places the FMA/BTE crossover"},
	{gem, "SMSGSend", "G-LAT-MSG", "the CPU's part of a short message's latency"},
	{gem, "RegisterHandoff", "G-REG", "30 us for the last of 24 registrations at once"},
	{ari, "NICLatencyCycles", "A-LAT-PUT", "the end-point latency of a put, with PCIeLatency and FMAPost"},
	{ari, "PCIeLatency", "A-LAT-PUT", "the host interface's part of a put's latency"},
	{ari, "FMAPost", "A-LAT-PUT", "the CPU's part of a put's latency"},
	{ari, "MemoryWriteLatency", "A-LAT-PUT", "the last part of a put's latency, until the data is visible"},
	{ari, "MemoryReadLatency", "A-LAT-GET", "the remote PCI-Express read of a get"},
	{ari, "SSIDCycles", "A-RATE", "about 120 M puts per second per node"},
	{ari, "RMTCycles", "A-AMO", "400 M AMOs/s to one target"},
	{ari, "AMOFetchesOutstanding", "A-AMO", "50..120 M AMOs/s on random words"},
	{ari, "BridgePostedBuffer", "A-AMO", "400 M word writes/s across the host interface"},
	{ari, "RouterPipeline", "A-HOP", "about 100 ns per hop, with the assumed link flight and bus latencies"},
	{ari, "PCIeEfficiencyPercent", "A-SYM", "about 8 GB/s each way of symmetric bulk transfers"},
	{ari, "FMALaunch", "A-RATE", "7.5 M puts per second per core"},
	{ari, "MDHChange", "A-RATE", "80 M puts per second per node with a memory-domain change per put"},
}

// FittedHeading opens the sheet's last section, the list of FittedParams
// (after the rows' tables).
const FittedHeading = "## Fitted parameters"

// fittedMarkdown is the sheet's section listing FittedParams.
func fittedMarkdown() string {
	var b strings.Builder
	b.WriteString("\n" + FittedHeading + "\n\n")
	b.WriteString("Parameters no document gives that were set so that one row comes out right (the\n")
	b.WriteString("row then checks the model's consistency, not its predictions). Each is fitted to\n")
	b.WriteString("one row only; every other parameter is documented or assumed (each backend's\n")
	b.WriteString("params.go says which).\n\n")
	writeMarkdownRow(&b, []string{"Backend", "Parameter", "Fitted to", "What the row fixes"})
	writeMarkdownRow(&b, []string{"---", "---", "---", "---"})
	for _, f := range FittedParams {
		writeMarkdownRow(&b, []string{f.Backend, fmt.Sprintf("`%s.%s`", f.Backend, f.Param), f.Row, f.What})
	}
	return b.String()
}
