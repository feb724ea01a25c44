// Command integrity checks that one-sided transfers and atomics deliver
// exactly what was sent, exactly once.
//
// Every processing element (PE) puts a block of bytes to every PE
// (itself too), in sizes from -min to -max bytes in steps of -factor;
// after a barrier every PE checks every byte it received, then gets back
// from every PE the block it put there and checks every byte of that.
// Each block's bytes are a sequence drawn from its source, its target, its
// size and the round, so a block delivered to the wrong place, a stale
// block or a torn one shows. Then every PE makes -adds fetch-adds of 1 to
// a counter on every PE, all in flight at once; each owner checks that its
// counter grew by exactly -adds per PE and that the values fetched from
// it were each fetched once. The whole is repeated -rounds times. Any
// difference makes the program fail with exit status 1.
//
// It is meant for simulated networks whose links fail during the run: a
// link failing under a transfer loses packets, the transfer times out and
// the runtime retries it, and an AMO whose response was lost is retried
// without being applied twice.
//
//	PGAS_PES=8 PGAS_CONDUIT=gemini PGAS_PES_PER_NODE=1 \
//		PGAS_OPTIONS="routing=deterministic,fail=0:x:+:0@40us" go run ./examples/integrity
package main

import (
	"flag"
	"fmt"

	"github.com/gopgas/gopgas/internal/integrity"
	"github.com/gopgas/gopgas/pgas"
)

func main() {
	def := integrity.Defaults()
	p := integrity.Params{}
	flag.IntVar(&p.MinBytes, "min", def.MinBytes, "smallest block in bytes")
	flag.IntVar(&p.MaxBytes, "max", def.MaxBytes, "largest block in bytes")
	flag.IntVar(&p.Factor, "factor", def.Factor, "step between block sizes (each is this many times the last)")
	flag.IntVar(&p.Adds, "adds", def.Adds, "fetch-adds each PE makes to each PE's counter per round")
	flag.IntVar(&p.Rounds, "rounds", def.Rounds, "times the whole is repeated")
	stats := flag.Bool("stats", false, "print the retries and, on a simulated network, the job's end time and fault counters")
	flag.Parse()
	var rep pgas.Report
	var res integrity.Result
	pgas.Main(pgas.Config{Report: &rep}, func(pe *pgas.PE) error {
		r, err := integrity.Run(pe, p)
		if err != nil {
			return err
		}
		if pe.Rank() == 0 {
			res = r
		}
		return nil
	})
	sizes := p.Sizes()
	fmt.Printf("integrity: %d PEs: %d puts and gets of %d to %d bytes, %d bytes checked; %d fetch-adds, totals and fetched values checked: ok\n",
		res.PEs, res.Transfers, sizes[0], sizes[len(sizes)-1], res.BytesChecked, res.AMOs)
	if *stats {
		fmt.Printf("retries: %d\n", res.Retries)
		if rep.Simulated {
			fmt.Printf("end: %v; link failures %d, lost packets %d, reroutes %d, quiesced %d ns, message resends %d, AMO replays %d\n",
				rep.End, rep.Counters["link_failures"], rep.Counters["lost_packets"], rep.Counters["reroutes"],
				rep.Counters["quiesce_ns"], rep.Counters["msg_resends"], rep.Counters["amo_replays"])
		}
	}
}
