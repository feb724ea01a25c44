package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// Schema identifies the JSON record of one benchmark run.
const Schema = "gopgas/pgasbench/run/v2"

// Header opens every JSON record pgasbench writes: which record it is
// (its schema) and the tool and version that wrote it. The records embed
// it, so that its fields come first.
type Header struct {
	Schema  string `json:"schema"`
	Tool    string `json:"tool"`
	Version string `json:"version"`
}

// NewHeader is the Header of a record of schema written by this tool.
func NewHeader(schema string) Header {
	return Header{Schema: schema, Tool: Tool, Version: Version}
}

// Record is the JSON object of one benchmark run; docs/pgasbench.md
// documents it field by field and docs/schema/run.json is its JSON
// Schema. It holds every field of bench.Result, the setup, the backend's
// report and the provenance (null when unknown). A figure JSON cannot
// hold (NaN, an infinity) is null.
type Record struct {
	Header
	Benchmark string         `json:"benchmark"`
	Title     string         `json:"title"`
	Unit      string         `json:"unit"`
	Column    string         `json:"column"`
	Conduit   string         `json:"conduit"`
	Simulated bool           `json:"simulated"`
	TimeBase  string         `json:"time_base"`
	PEs       int            `json:"pes"`
	Nodes     int            `json:"nodes"`
	PPN       int            `json:"ppn"`
	Ordering  string         `json:"ordering"`
	Mechanism string         `json:"mechanism"`
	Window    int            `json:"window"`
	Op        string         `json:"op,omitempty"`
	Setup     SetupRecord    `json:"setup"`
	Points    []PointRecord  `json:"points"`
	Atomics   []AtomicRecord `json:"atomics,omitempty"`
	Report    ReportRecord   `json:"report"`
	// Provenance is what ran where and when; null when not recorded.
	Provenance *Provenance `json:"provenance"`
}

// SetupRecord is Setup in a Record.
type SetupRecord struct {
	Sizes        []int             `json:"sizes"`
	Iterations   int               `json:"iterations"`
	Warmup       int               `json:"warmup"`
	Percentiles  bool              `json:"percentiles"`
	Unregistered bool              `json:"unregistered"`
	Filter       string            `json:"filter,omitempty"`
	Variables    int               `json:"variables,omitempty"`
	Seed         uint64            `json:"seed"`
	Options      map[string]string `json:"options"`
	Settings     map[string]string `json:"settings"`
	Environment  map[string]string `json:"environment"`
	Flags        map[string]string `json:"flags"`
	Args         []string          `json:"args"`
	Index        int               `json:"index"`
	Count        int               `json:"count"`
}

// PointRecord is a bench.Point in a Record.
type PointRecord struct {
	Size  int      `json:"size"`
	Value *float64 `json:"value"`
	Rate  *float64 `json:"rate"`
	// P50, P90 and P99 are null unless percentiles were asked for.
	P50 *float64 `json:"p50"`
	P90 *float64 `json:"p90"`
	P99 *float64 `json:"p99"`
}

// AtomicRecord is a bench.AtomicRow in a Record.
type AtomicRecord struct {
	Name      string   `json:"name"`
	RateMops  *float64 `json:"rate_mops"`
	LatencyUs *float64 `json:"latency_us"`
}

// ReportRecord is the backend's report (pgas.Report) in a Record.
type ReportRecord struct {
	Backend   string `json:"backend"`
	Simulated bool   `json:"simulated"`
	// EndPs is the job's end on its clock in picoseconds (simulated
	// backends), EndSeconds the same in seconds.
	EndPs      int64            `json:"end_ps"`
	EndSeconds float64          `json:"end_seconds"`
	Events     uint64           `json:"events"`
	Counters   map[string]int64 `json:"counters"`
}

// NewRecord builds the Record of a run.
func NewRecord(run *Run) (*Record, error) {
	if err := run.check(); err != nil {
		return nil, err
	}
	r := run.Result
	s := run.Setup
	rec := &Record{
		Header:    NewHeader(Schema),
		Benchmark: r.Benchmark, Title: r.Title, Unit: r.Unit, Column: r.Column,
		Conduit: r.Conduit, Simulated: r.Simulated, TimeBase: r.TimeBase(),
		PEs: run.pes(), Nodes: r.Nodes, PPN: r.PPN,
		Ordering: r.Ordering.String(), Mechanism: r.Mechanism.String(), Window: r.Window, Op: run.Op,
		Setup: SetupRecord{
			Sizes: nonNil(s.Sizes), Iterations: s.Iterations, Warmup: s.Warmup,
			Percentiles: s.Percentiles, Unregistered: s.Unregistered, Filter: s.Filter, Variables: s.Variables,
			Seed: s.Seed, Options: mapOrEmpty(s.Options), Settings: mapOrEmpty(s.Settings),
			Environment: mapOrEmpty(s.Environment), Flags: mapOrEmpty(s.Flags), Args: nonNil(s.Args),
			Index: s.Index, Count: max(s.Count, 1),
		},
		Provenance: s.Provenance,
		Points:     []PointRecord{},
		Report: ReportRecord{
			Backend: r.Report.Backend, Simulated: r.Report.Simulated,
			EndPs: int64(r.Report.End), EndSeconds: r.Report.End.Seconds(), Events: r.Report.Events,
			Counters: mapOrEmpty(r.Report.Counters),
		},
	}
	for _, p := range r.Points {
		pr := PointRecord{Size: p.Size, Value: nullable(p.Value), Rate: nullable(p.Rate)}
		if s.Percentiles {
			pr.P50, pr.P90, pr.P99 = nullable(p.P50), nullable(p.P90), nullable(p.P99)
		}
		rec.Points = append(rec.Points, pr)
	}
	for _, a := range run.Atomics {
		rec.Atomics = append(rec.Atomics, AtomicRecord{Name: a.Name, RateMops: nullable(a.Rate), LatencyUs: nullable(a.Latency)})
	}
	return rec, nil
}

// Run rebuilds the run a Record was made from (what JSON keeps of it).
func (rec *Record) Run() (*Run, error) {
	if rec.Schema != Schema {
		return nil, fmt.Errorf("report: record schema %q, want %q", rec.Schema, Schema)
	}
	var order pgas.Ordering
	if rec.Ordering != "" && rec.Ordering != "inherit" {
		o, err := conduit.ParseOrdering(rec.Ordering)
		if err != nil {
			return nil, fmt.Errorf("report: record: %w", err)
		}
		order = o
	}
	mech, err := bench.ParseMechanism(rec.Mechanism)
	if err != nil {
		return nil, fmt.Errorf("report: record: %w", err)
	}
	r := &bench.Result{
		Benchmark: rec.Benchmark, Title: rec.Title, Unit: rec.Unit, Column: rec.Column,
		Conduit: rec.Conduit, Nodes: rec.Nodes, PPN: rec.PPN, Ordering: order, Mechanism: mech,
		Window: rec.Window, Simulated: rec.Simulated,
		Report: pgas.Report{Backend: rec.Report.Backend, Simulated: rec.Report.Simulated,
			End: conduit.Time(rec.Report.EndPs), Events: rec.Report.Events, Counters: rec.Report.Counters},
	}
	for _, p := range rec.Points {
		pt := bench.Point{Size: p.Size, Value: deref(p.Value), Rate: deref(p.Rate)}
		if rec.Setup.Percentiles {
			pt.P50, pt.P90, pt.P99 = deref(p.P50), deref(p.P90), deref(p.P99)
		}
		r.Points = append(r.Points, pt)
	}
	run := &Run{Result: r, Op: rec.Op, Setup: Setup{
		Sizes: rec.Setup.Sizes, Iterations: rec.Setup.Iterations, Warmup: rec.Setup.Warmup,
		Percentiles: rec.Setup.Percentiles, Unregistered: rec.Setup.Unregistered, Filter: rec.Setup.Filter,
		Variables: rec.Setup.Variables, Seed: rec.Setup.Seed, Options: rec.Setup.Options,
		Settings: rec.Setup.Settings, Environment: rec.Setup.Environment, Flags: rec.Setup.Flags, Args: rec.Setup.Args,
		Index: rec.Setup.Index, Count: rec.Setup.Count, Provenance: rec.Provenance,
	}}
	for _, a := range rec.Atomics {
		run.Atomics = append(run.Atomics, bench.AtomicRow{Name: a.Name, Rate: deref(a.RateMops), Latency: deref(a.LatencyUs)})
	}
	return run, nil
}

// WriteJSON prints run's Record, indented, with a final newline.
func WriteJSON(w io.Writer, run *Run) error {
	rec, err := NewRecord(run)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rec)
}

// ReadJSON reads one Record.
func ReadJSON(r io.Reader) (*Record, error) {
	var rec Record
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("report: reading a JSON record: %w", err)
	}
	if rec.Schema != Schema {
		return nil, fmt.Errorf("report: JSON record schema %q, want %q", rec.Schema, Schema)
	}
	return &rec, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

func mapOrEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return maps.Clone(m)
}

// Finite maps NaN and infinities to 0, for outputs that hold only
// numbers (the study's records).
func Finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Nullable is vs for JSON: NaN and infinities, which JSON cannot hold,
// become null. It is never nil.
func Nullable(vs []float64) []*float64 {
	out := make([]*float64, 0, len(vs))
	for _, v := range vs {
		out = append(out, nullable(v))
	}
	return out
}

// nullable is v for JSON, the rule of every record: null when NaN or an
// infinity, which JSON cannot hold.
func nullable(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// deref reads a nullable figure back: null is NaN.
func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
