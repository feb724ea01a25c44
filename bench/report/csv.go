package report

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV prints run as CSV: one header row, then one row per size (per
// operation for atomics). Every row repeats what ran (benchmark, backend,
// topology, ordering, mechanism, window), so that the rows of several runs
// concatenate into one table. The size tables' columns are:
//
//	benchmark,conduit,time_base,pes,nodes,ppn,ordering,mechanism,window,op,
//	size_bytes,value,unit,rate_per_s,p50,p90,p99
//
// (p50, p90 and p99 empty unless percentiles were asked for); the atomics
// benchmark replaces size_bytes..p99 by operation,mops_per_s,latency_us
// and the many-to-one benchmark by variables,value,unit,rate_per_s.
func WriteCSV(w io.Writer, run *Run) error {
	if err := run.check(); err != nil {
		return err
	}
	r := run.Result
	cw := csv.NewWriter(w)
	head := []string{"benchmark", "conduit", "time_base", "pes", "nodes", "ppn", "ordering", "mechanism", "window", "op"}
	common := []string{r.Benchmark, r.Conduit, r.TimeBase(), itoa(run.pes()), itoa(r.Nodes), itoa(r.PPN),
		r.Ordering.String(), r.Mechanism.String(), itoa(r.Window), run.Op}
	row := func(cells ...string) error { return cw.Write(append(append([]string{}, common...), cells...)) }
	var err error
	switch kindOf(r.Benchmark) {
	case kindAtomics:
		err = cw.Write(append(head, "operation", "mops_per_s", "latency_us"))
		for _, a := range run.Atomics {
			if err == nil {
				err = row(opName(a.Name), ftoa(a.Rate), ftoa(a.Latency))
			}
		}
	case kindManyToOne:
		err = cw.Write(append(head, "variables", "value", "unit", "rate_per_s"))
		for _, p := range r.Points {
			if err == nil {
				err = row(itoa(run.Setup.Variables), ftoa(p.Value), r.Unit, ftoa(p.Rate))
			}
		}
	default:
		err = cw.Write(append(head, "size_bytes", "value", "unit", "rate_per_s", "p50", "p90", "p99"))
		for _, p := range r.Points {
			tails := []string{"", "", ""}
			if run.Setup.Percentiles {
				tails = []string{ftoa(p.P50), ftoa(p.P90), ftoa(p.P99)}
			}
			if err == nil {
				err = row(append([]string{itoa(p.Size), ftoa(p.Value), r.Unit, ftoa(p.Rate)}, tails...)...)
			}
		}
	}
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

func itoa(v int) string { return strconv.Itoa(v) }

// ftoa prints a figure with as many digits as it needs, no exponent for
// ordinary magnitudes.
func ftoa(v float64) string { return strconv.FormatFloat(Finite(v), 'f', -1, 64) }
