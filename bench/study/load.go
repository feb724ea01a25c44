package study

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

// ReadJSON reads a study's JSON record (WriteJSON) back into Results, so
// that its figures can be drawn again (the calibration page draws them
// beside the paper's descriptions) without running the study.
func ReadJSON(r io.Reader) (*Results, error) {
	var rec Record
	dec := json.NewDecoder(r)
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("study: reading a JSON record: %w", err)
	}
	if rec.Schema != Schema {
		return nil, fmt.Errorf("study: the record's schema is %q, not %q", rec.Schema, Schema)
	}
	s := &rec.Setup
	res := &Results{Conduit: rec.Conduit, Simulated: rec.Simulated}
	c := &res.Config
	c.Nodes, c.PPN, c.Sizes, c.PPNs, c.SweepSizes = rec.Nodes, s.PPN, s.Sizes, s.PPNs, s.SweepSizes
	c.PutPPNs, c.PutSizes, c.PutWindow = s.PutPPNs, s.PutSizes, s.PutWindow
	c.OneSidedPPNs, c.OneSidedSizes, c.OneSidedWindows = s.OneSidedPPNs, s.OneSidedSizes, s.OneSidedWindows
	c.Iterations, c.Warmup = s.Iterations, s.Warmup
	c.Base.Seed, c.Base.Options = s.Seed, s.Options
	res.Invocation, res.Provenance = s.Invocation, rec.Provenance
	var err error
	if c.Op, err = opNamed(rec.Op); err != nil {
		return nil, err
	}
	for _, o := range s.Orderings {
		ord, err := orderingNamed(o)
		if err != nil {
			return nil, err
		}
		c.Orderings = append(c.Orderings, ord)
	}
	if c.Mechanisms, err = mechanismsNamed(s.Mechanisms); err != nil {
		return nil, err
	}
	if c.SweepMechanisms, err = mechanismsNamed(s.SweepMechanisms); err != nil {
		return nil, err
	}
	for _, sw := range []struct {
		from []CurveRecord
		to   *[]Curve
	}{{rec.SizeSweep, &res.SizeCurves}, {rec.PPNSweep, &res.PPNCurves}, {rec.PutSweep, &res.PutCurves}, {rec.OneSidedSweep, &res.OneSidedCurves}} {
		for _, cr := range sw.from {
			cv, err := curveOf(cr)
			if err != nil {
				return nil, err
			}
			*sw.to = append(*sw.to, cv)
		}
	}
	return res, nil
}

func curveOf(cr CurveRecord) (Curve, error) {
	o, err := orderingNamed(cr.Ordering)
	if err != nil {
		return Curve{}, err
	}
	m, err := bench.ParseMechanism(cr.Mechanism)
	if err != nil {
		return Curve{}, fmt.Errorf("study: a curve's mechanism: %w", err)
	}
	cv := Curve{Ordering: o, Mechanism: m, PPN: cr.PPN, Size: cr.Size, Window: cr.Window, Unregistered: cr.Unregistered}
	for _, p := range cr.Points {
		cv.Points = append(cv.Points, Point{Ordering: o, Mechanism: m, Size: p.Size, PPN: p.PPN, Bandwidth: report.Value(p.BandwidthMBps), Rate: report.Value(p.Rate),
			Window: cr.Window, Unregistered: cr.Unregistered, Iterations: p.Iterations, Warmup: p.Warmup, Events: p.Events})
	}
	return cv, nil
}

func orderingNamed(s string) (pgas.Ordering, error) {
	for _, o := range []pgas.Ordering{pgas.OrderStrict, pgas.OrderDefault, pgas.OrderRelaxed} {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("study: unknown ordering %q in the record", s)
}

func opNamed(s string) (bench.Op, error) {
	for _, op := range []bench.Op{bench.Get, bench.Put} {
		if op.String() == s {
			return op, nil
		}
	}
	return 0, fmt.Errorf("study: unknown operation %q in the record", s)
}

func mechanismsNamed(names []string) ([]bench.Mechanism, error) {
	var out []bench.Mechanism
	for _, n := range names {
		m, err := bench.ParseMechanism(n)
		if err != nil {
			return nil, fmt.Errorf("study: the record's mechanisms: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
}
