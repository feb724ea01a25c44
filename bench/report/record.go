package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// Schema identifies the JSON record of one benchmark run.
const Schema = "gopgas/pgasbench/run/v3"

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
	Benchmark string `json:"benchmark"`
	Title     string `json:"title"`
	Unit      string `json:"unit"`
	Column    string `json:"column"`
	Conduit   string `json:"conduit"`
	Simulated bool   `json:"simulated"`
	TimeBase  string `json:"time_base"`
	PEs       int    `json:"pes"`
	Nodes     int    `json:"nodes"`
	PPN       int    `json:"ppn"`
	Ordering  string `json:"ordering"`
	Mechanism string `json:"mechanism"`
	Window    int    `json:"window"`
	Op        string `json:"op,omitempty"`
	// Tail are the percentiles -z asked for (empty without -z), Full
	// says -f asked for the minimum, maximum and iterations, Validated
	// that -c checked the received data: the points' further fields.
	Tail      []int          `json:"tail"`
	Full      bool           `json:"full"`
	Validated bool           `json:"validated"`
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
	Invocation
	Index int `json:"index"`
	Count int `json:"count"`
}

// PointRecord is a bench.Point in a Record. In JSON its fields are size,
// value, rate, p50, p90 and p99, then the size table's further columns
// (More), each a field of its own.
type PointRecord struct {
	Size  int      `json:"size"`
	Value *float64 `json:"value"`
	Rate  *float64 `json:"rate"`
	// P50, P90 and P99 are null unless percentiles were asked for.
	P50 *float64 `json:"p50"`
	P90 *float64 `json:"p90"`
	P99 *float64 `json:"p99"`
	// More are the figures of the further columns of the size table, as
	// the OSU text prints them (Columns), in its order: with -f "min",
	// "max" (microseconds) and "iterations"; with -c "errors" (the
	// buffers that failed validation: 0 is OSU's Pass); with -z a
	// "p<q>" per percentile q of the record's tail other than 50, 90
	// and 99 ("p95").
	More []Field `json:"-"`
}

// Field is a named figure of a PointRecord; a nil Value is null.
type Field struct {
	Key   string
	Value *float64
}

// plainPoint is a PointRecord without its JSON methods: its fixed
// fields (More is not one).
type plainPoint PointRecord

// MarshalJSON writes the fixed fields, then More's in their order.
func (p PointRecord) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainPoint{Size: p.Size, Value: p.Value, Rate: p.Rate, P50: p.P50, P90: p.P90, P99: p.P99})
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, f := range p.More {
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, ','), k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes; a field that is neither
// fixed nor a further column's is an error.
func (p *PointRecord) UnmarshalJSON(data []byte) error {
	var fixed plainPoint
	if err := json.Unmarshal(data, &fixed); err != nil {
		return err
	}
	*p = PointRecord(fixed)
	p.More = nil
	// More in the order of the object: decode it token by token.
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		switch {
		case fixedPointKeys[key]:
		case moreKey.MatchString(key):
			var v *float64
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("point field %q: %w", key, err)
			}
			p.More = append(p.More, Field{Key: key, Value: v})
		default:
			return fmt.Errorf("point: unknown field %q", key)
		}
	}
	return nil
}

var fixedPointKeys = map[string]bool{"size": true, "value": true, "rate": true, "p50": true, "p90": true, "p99": true}

// moreKey matches the keys of a point's further columns.
var moreKey = regexp.MustCompile(`^(min|max|iterations|errors|p[0-9]+(\.[0-9]+)?)$`)

// moreColumns are the size table's columns (Columns) beyond the value,
// the rate and P50, P90 and P99, which the records have fields for: the
// fields of PointRecord.More and the CSV's further columns. The
// validation column is "errors", the count of failed buffers.
func moreColumns(run *Run) []Column {
	var out []Column
	for _, c := range Columns(run) {
		switch c.Key {
		case "value", "rate", "p50", "p90", "p99":
			continue
		case "validation":
			c.Key = "errors"
		}
		out = append(out, c)
	}
	return out
}

// tailKey is the key of percentile q's column ("p95"), as Columns names
// it.
func tailKey(q int) string { return fmt.Sprintf("p%d", q) }

// more is the figure of a further column by key; NaN when absent or
// null.
func (p *PointRecord) more(key string) float64 {
	for _, f := range p.More {
		if f.Key == key {
			return Value(f.Value)
		}
	}
	return math.NaN()
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
		Tail: nonNil(r.Tail), Full: r.Full, Validated: r.Validated,
		Setup: SetupRecord{
			Sizes: nonNil(s.Sizes), Iterations: s.Iterations, Warmup: s.Warmup,
			Percentiles: s.Percentiles, Unregistered: s.Unregistered, Filter: s.Filter, Variables: s.Variables,
			Seed: s.Seed, Options: mapOrEmpty(s.Options), Invocation: s.Invocation(),
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
	more := moreColumns(run)
	for _, p := range r.Points {
		pr := PointRecord{Size: p.Size, Value: nullable(p.Value), Rate: nullable(p.Rate)}
		if s.Percentiles {
			pr.P50, pr.P90, pr.P99 = nullable(p.P50), nullable(p.P90), nullable(p.P99)
		}
		for _, c := range more {
			pr.More = append(pr.More, Field{Key: c.Key, Value: nullable(c.Value(p))})
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
		Window: rec.Window, Simulated: rec.Simulated, Full: rec.Full, Validated: rec.Validated,
		Report: pgas.Report{Backend: rec.Report.Backend, Simulated: rec.Report.Simulated,
			End: conduit.Time(rec.Report.EndPs), Events: rec.Report.Events, Counters: rec.Report.Counters},
	}
	if len(rec.Tail) > 0 {
		r.Tail = rec.Tail
	}
	for _, p := range rec.Points {
		pt := bench.Point{Size: p.Size, Value: deref(p.Value), Rate: deref(p.Rate)}
		if rec.Setup.Percentiles {
			pt.P50, pt.P90, pt.P99 = deref(p.P50), deref(p.P90), deref(p.P99)
		}
		if rec.Full {
			pt.Min, pt.Max, pt.Iterations = p.more("min"), p.more("max"), int(Finite(p.more("iterations")))
		}
		if rec.Validated {
			pt.Errors = int(Finite(p.more("errors")))
		}
		for _, q := range rec.Tail {
			v := p.more(tailKey(q))
			switch q {
			case 50:
				v = deref(p.P50)
			case 90:
				v = deref(p.P90)
			case 99:
				v = deref(p.P99)
			}
			pt.Tails = append(pt.Tails, v)
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

// Finite maps NaN and infinities to 0, for counts read back from a
// record.
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

// Null is v for JSON, the rule of every JSON record pgasbench writes:
// null when NaN or an infinity, which JSON cannot hold.
func Null(v float64) *float64 { return nullable(v) }

// Value reads a nullable figure back: null is NaN.
func Value(p *float64) float64 { return deref(p) }

// nullable is v for JSON (Null).
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
