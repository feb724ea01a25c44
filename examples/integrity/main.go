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
