package study

import (
	"math"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// Summary is what the study's figures show (section III of the paper).
type Summary struct {
	// Ratios are relaxed over strict bandwidth at each PEs per node, one
	// per sweep size and mechanism (both orderings measured).
	Ratios []Ratio
	// Peaks are where each concurrency curve peaks.
	Peaks []Peak
	// Crossovers are where FMA and BTE trade the lead along each
	// ordering's size curve (both mechanisms measured).
	Crossovers []Crossover
}

// Ratio is relaxed/strict bandwidth along PEs per node.
type Ratio struct {
	Mechanism bench.Mechanism
	Size      int
	PPN       []int
	Ratio     []float64
}

// Max is the largest ratio and the PEs per node where it occurs.
func (r Ratio) Max() (ratio float64, ppn int) {
	for i, v := range r.Ratio {
		if v > ratio {
			ratio, ppn = v, r.PPN[i]
		}
	}
	return ratio, ppn
}

// Peak is the best point of a concurrency curve and its last point.
type Peak struct {
	Ordering  pgas.Ordering
	Mechanism bench.Mechanism
	Size      int
	// PPN and Bandwidth are the best PEs per node and its bandwidth
	// (MB/s); the first of equals.
	PPN       int
	Bandwidth float64
	// LastPPN and LastBandwidth are the curve's last point (the most PEs
	// per node).
	LastPPN       int
	LastBandwidth float64
}

// Drop is how many times lower the last point is than the peak (1 when
// the curve peaks at its end).
func (p Peak) Drop() float64 {
	if p.LastBandwidth <= 0 {
		return math.Inf(1)
	}
	return p.Bandwidth / p.LastBandwidth
}

// Crossover lists where FMA and BTE trade the lead along one ordering's
// size curve.
type Crossover struct {
	Ordering pgas.Ordering
	PPN      int
	// First is the mechanism ahead at the smallest size (FMA on ties).
	First bench.Mechanism
	// Changes are the lead changes by increasing size.
	Changes []Change
	// Lo and Hi are the smallest and largest sizes compared.
	Lo, Hi int
}

// Change is one lead change between two measured sizes.
type Change struct {
	// Size is the interpolated size in bytes where the two curves cross:
	// geometrically between Below and Above.
	Size float64
	// Below and Above are the measured sizes around the crossing.
	Below, Above int
	// Leader is the mechanism ahead from Above on.
	Leader bench.Mechanism
}

// Summarize reads the summary off the results. Parts whose curves were
// not measured are left out.
func Summarize(r *Results) Summary {
	var s Summary
	// Ratios: relaxed over strict, per sweep size and mechanism.
	for _, st := range r.PPNCurves {
		if st.Ordering != pgas.OrderStrict {
			continue
		}
		re, ok := r.ppnCurve(pgas.OrderRelaxed, st.Mechanism, st.Size)
		if !ok {
			continue
		}
		ra := Ratio{Mechanism: st.Mechanism, Size: st.Size}
		for i, p := range st.Points {
			if i >= len(re.Points) || re.Points[i].PPN != p.PPN {
				break
			}
			v := math.NaN()
			if p.Bandwidth > 0 {
				v = re.Points[i].Bandwidth / p.Bandwidth
			}
			ra.PPN = append(ra.PPN, p.PPN)
			ra.Ratio = append(ra.Ratio, v)
		}
		s.Ratios = append(s.Ratios, ra)
	}
	// Peaks of every concurrency curve.
	for _, c := range r.PPNCurves {
		if len(c.Points) == 0 {
			continue
		}
		pk := Peak{Ordering: c.Ordering, Mechanism: c.Mechanism, Size: c.Size}
		for _, p := range c.Points {
			if p.Bandwidth > pk.Bandwidth {
				pk.PPN, pk.Bandwidth = p.PPN, p.Bandwidth
			}
		}
		last := c.Points[len(c.Points)-1]
		pk.LastPPN, pk.LastBandwidth = last.PPN, last.Bandwidth
		s.Peaks = append(s.Peaks, pk)
	}
	// Crossovers along each ordering's size curves.
	for _, o := range r.Config.Orderings {
		f, okF := r.sizeCurve(o, bench.FMA)
		b, okB := r.sizeCurve(o, bench.BTE)
		if !okF || !okB || len(f.Points) == 0 || len(f.Points) != len(b.Points) {
			continue
		}
		s.Crossovers = append(s.Crossovers, crossover(o, f, b))
	}
	return s
}

// crossover finds the lead changes between FMA curve f and BTE curve b,
// measured at the same sizes.
func crossover(o pgas.Ordering, f, b Curve) Crossover {
	x := Crossover{Ordering: o, PPN: f.PPN, First: bench.FMA, Lo: f.Points[0].Size, Hi: f.Points[len(f.Points)-1].Size}
	// diff > 0: BTE ahead.
	diff := func(i int) float64 { return b.Points[i].Bandwidth - f.Points[i].Bandwidth }
	lead := func(d float64) bench.Mechanism {
		if d > 0 {
			return bench.BTE
		}
		return bench.FMA
	}
	x.First = lead(diff(0))
	cur := x.First
	for i := 1; i < len(f.Points); i++ {
		d0, d1 := diff(i-1), diff(i)
		if lead(d1) == cur {
			continue
		}
		lo, hi := float64(f.Points[i-1].Size), float64(f.Points[i].Size)
		// Interpolate linearly in log(size) where the difference
		// crosses zero.
		frac := 1.0
		if d0 != d1 {
			frac = d0 / (d0 - d1)
		}
		frac = math.Max(0, math.Min(1, frac))
		size := lo * math.Pow(hi/lo, frac)
		cur = lead(d1)
		x.Changes = append(x.Changes, Change{Size: size, Below: f.Points[i-1].Size, Above: f.Points[i].Size, Leader: cur})
	}
	return x
}

func (r *Results) sizeCurve(o pgas.Ordering, m bench.Mechanism) (Curve, bool) {
	for _, c := range r.SizeCurves {
		if c.Ordering == o && c.Mechanism == m {
			return c, true
		}
	}
	return Curve{}, false
}

func (r *Results) ppnCurve(o pgas.Ordering, m bench.Mechanism, size int) (Curve, bool) {
	for _, c := range r.PPNCurves {
		if c.Ordering == o && c.Mechanism == m && c.Size == size {
			return c, true
		}
	}
	return Curve{}, false
}
