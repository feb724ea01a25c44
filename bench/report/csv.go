package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// WriteCSV prints run as CSV: one header row, then one row per size (per
// operation for atomics). Every row repeats what ran (benchmark, backend,
// topology, ordering, mechanism, window), so that the rows of several runs
// concatenate into one table. The size tables' columns are:
//
//	benchmark,conduit,time_base,pes,nodes,ppn,ordering,mechanism,window,op,
//	size_bytes,value,unit,rate_per_s,p50,p90,p99
//
// (p50, p90 and p99 empty unless percentiles were asked for), then the
// further columns of the OSU table, as JSON's PointRecord.More names
// them: with -f min, max (microseconds) and iterations, with -c errors
// (the buffers that failed validation; 0 is OSU's Pass), with -z a
// p<q> per percentile q of its list other than 50, 90 and 99 (-z50,95:
// p95). The atomics
// benchmark replaces size_bytes..p99 by operation,mops_per_s,latency_us
// and the many-to-one benchmark by variables,value,unit,rate_per_s. The
// record of the run follows on every row:
//
//	seed,run,flags,options,settings,environment,module,module_version,
//	vcs_revision,vcs_modified,go_version,goos,goarch,cpu,host,start_time
//
// seed is the seed the run used, run its index of --count ("1/1"),
// flags, options, settings and environment the settings that differ from
// their defaults (the command-line flags, --option, --set and the PGAS_*
// variables) as key=value items separated by ";" (with "%" and ";" in
// them written "%25" and "%3B"), and the rest the
// provenance (empty when unknown). A figure that is NaN or infinite is
// an empty cell. With --count N the header row comes once, before the
// first run's rows.
func WriteCSV(w io.Writer, run *Run) error {
	if err := run.check(); err != nil {
		return err
	}
	r := run.Result
	cw := csv.NewWriter(w)
	head := []string{"benchmark", "conduit", "time_base", "pes", "nodes", "ppn", "ordering", "mechanism", "window", "op"}
	common := []string{r.Benchmark, r.Conduit, r.TimeBase(), itoa(run.pes()), itoa(r.Nodes), itoa(r.PPN),
		r.Ordering.String(), r.Mechanism.String(), itoa(r.Window), run.Op}
	tail := recordCells(&run.Setup)
	row := func(cells ...string) error {
		return cw.Write(append(append(append([]string{}, common...), cells...), tail...))
	}
	header := func(cells ...string) error {
		if run.Setup.Index > 0 {
			return nil
		}
		return cw.Write(append(append(head, cells...), recordColumns...))
	}
	var err error
	switch kindOf(r.Benchmark) {
	case kindAtomics:
		err = header("operation", "mops_per_s", "latency_us")
		for _, a := range run.Atomics {
			if err == nil {
				err = row(opName(a.Name), ftoa(a.Rate), ftoa(a.Latency))
			}
		}
	case kindManyToOne:
		err = header("variables", "value", "unit", "rate_per_s")
		for _, p := range r.Points {
			if err == nil {
				err = row(itoa(run.Setup.Variables), ftoa(p.Value), r.Unit, ftoa(p.Rate))
			}
		}
	default:
		more := moreColumns(run)
		names := []string{"size_bytes", "value", "unit", "rate_per_s", "p50", "p90", "p99"}
		for _, c := range more {
			names = append(names, c.Key)
		}
		err = header(names...)
		for _, p := range r.Points {
			cells := []string{itoa(p.Size), ftoa(p.Value), r.Unit, ftoa(p.Rate), "", "", ""}
			if run.Setup.Percentiles {
				cells[4], cells[5], cells[6] = ftoa(p.P50), ftoa(p.P90), ftoa(p.P99)
			}
			for _, c := range more {
				cells = append(cells, ftoa(c.Value(p)))
			}
			if err == nil {
				err = row(cells...)
			}
		}
	}
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// recordColumns name the cells of recordCells.
var recordColumns = []string{"seed", "run", "flags", "options", "settings", "environment", "module", "module_version",
	"vcs_revision", "vcs_modified", "go_version", "goos", "goarch", "cpu", "host", "start_time"}

// recordCells are the record of a run at the end of each CSV row.
func recordCells(s *Setup) []string {
	cells := []string{strconv.FormatUint(s.Seed, 10), fmt.Sprintf("%d/%d", s.Index+1, max(s.Count, 1)),
		items(s.Flags), items(s.Options), items(s.Settings), items(s.Environment)}
	p := s.Provenance
	if p == nil {
		p = &Provenance{}
	}
	modified := ""
	if p.VCSRevision != "" {
		modified = strconv.FormatBool(p.VCSModified)
	}
	return append(cells, p.Module, p.ModuleVersion, p.VCSRevision, modified, p.GoVersion, p.GOOS, p.GOARCH, p.CPU, p.Host, p.Start)
}

// items prints a map as key=value items separated by ";", by key; a
// "%" or ";" of a key or value is written "%25" or "%3B".
func items(m map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(itemEscaper.Replace(k) + "=" + itemEscaper.Replace(m[k]))
	}
	return b.String()
}

var itemEscaper = strings.NewReplacer("%", "%25", ";", "%3B")

func itoa(v int) string { return strconv.Itoa(v) }

// ftoa prints a figure with as many digits as it needs, no exponent for
// ordinary magnitudes; NaN and infinities are empty.
func ftoa(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
