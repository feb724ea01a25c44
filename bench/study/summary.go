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
	// Saturation is where each PEs per node of the put sweep reaches 90%
	// of the sweep's peak ([GEMINI-HOTI] Figure 8); nil without the
	// sweep.
	Saturation *Saturation
	// NonShared are the non-shared slowdowns of the shared vs non-shared
	// sweep ([ORDERING] Figure 9), one per size and window.
	NonShared []Slowdown
	// FewCores are how close FewCoresPPN PEs per node come to the best of
	// each shared curve of that sweep.
	FewCores []FewCores
	// TwoSided is section V's reading of the two-sided sweep
	// ([ORDERING] Figure 11); nil without the sweep.
	TwoSided *TwoSided
}

// SaturationLevel is the fraction of the peak that Saturation looks for.
const SaturationLevel = 0.9

// Saturation is where the put sweep's curves reach SaturationLevel of
// their common peak.
type Saturation struct {
	// Peak is the best bandwidth over every curve (MB/s), at PeakPPN and
	// PeakSize.
	Peak              float64
	PeakPPN, PeakSize int
	// PPN are the curves' PEs per node, in the Config's order
	// (increasing by default); Size the size (bytes, interpolated) where
	// each first reaches the level, +Inf if no measured size does (its
	// size is beyond the sweep: larger than any that does).
	PPN  []int
	Size []float64
}

// Violations counts the steps to more PEs per node where the saturating
// size does not fall strictly: two curves that never reach the level count
// as a violation (their sizes cannot be compared).
func (s Saturation) Violations() int { return StrictFallViolations(s.Size) }

// SaturationSize is the smallest size at which bw (measured at sizes,
// increasing) reaches level: interpolated geometrically between the last
// size below it and the first at or above it; the first size if it is
// already there; +Inf if no size reaches it (the curve saturates, if
// ever, beyond the largest size).
func SaturationSize(sizes []int, bw []float64, level float64) float64 {
	for i := range min(len(sizes), len(bw)) {
		if bw[i] < level {
			continue
		}
		if i == 0 {
			return float64(sizes[0])
		}
		lo, hi := float64(sizes[i-1]), float64(sizes[i])
		b0, b1 := bw[i-1], bw[i]
		frac := 1.0
		if b1 > b0 {
			frac = (level - b0) / (b1 - b0)
		}
		return lo * math.Pow(hi/lo, math.Max(0, math.Min(1, frac)))
	}
	return math.Inf(1)
}

// StrictFallViolations counts the i where xs[i] is not strictly below
// xs[i-1] (NaN, or +Inf after +Inf, counts as a violation).
func StrictFallViolations(xs []float64) int {
	n := 0
	for i := 1; i < len(xs); i++ {
		if !(xs[i] < xs[i-1]) {
			n++
		}
	}
	return n
}

// Slowdown is the non-shared slowdown along PEs per node at one size and
// window, in percent of the shared bandwidth.
type Slowdown struct {
	Size, Window int
	PPN          []int
	Percent      []float64
}

// Worst is the largest slowdown and its PEs per node.
func (s Slowdown) Worst() (pct float64, ppn int) {
	pct = math.Inf(-1)
	for i, v := range s.Percent {
		if v > pct {
			pct, ppn = v, s.PPN[i]
		}
	}
	return pct, ppn
}

// SlowdownPercent is how much slower nonShared is than shared, in percent
// of shared (negative when faster; NaN when shared is not positive).
func SlowdownPercent(shared, nonShared float64) float64 {
	if !(shared > 0) {
		return math.NaN()
	}
	return 100 * (shared - nonShared) / shared
}

// FewCoresPPN is the PEs per node that [ORDERING] V finds enough for
// one-sided communication to saturate the network.
const FewCoresPPN = 4

// FewCores compares a shared curve's bandwidth at FewCoresPPN PEs per
// node with its best.
type FewCores struct {
	Size, Window int
	// Best and BestPPN are the curve's best bandwidth and where; At the
	// bandwidth at FewCoresPPN.
	Best    float64
	BestPPN int
	At      float64
}

// Ratio is At over Best.
func (f FewCores) Ratio() float64 {
	if !(f.Best > 0) {
		return math.NaN()
	}
	return f.At / f.Best
}

// FewCoresOf reads FewCores off bandwidths bw measured at ppns; ok is
// false when few is not among them.
func FewCoresOf(ppns []int, bw []float64, few int) (f FewCores, ok bool) {
	for i, p := range ppns {
		if i >= len(bw) {
			break
		}
		if bw[i] > f.Best {
			f.Best, f.BestPPN = bw[i], p
		}
		if p == few {
			f.At, ok = bw[i], true
		}
	}
	return f, ok
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
		ra.PPN, ra.Ratio = pointRatios(re, st)
		s.Ratios = append(s.Ratios, ra)
	}
	// Peaks of every concurrency curve.
	for _, c := range r.PPNCurves {
		if len(c.Points) == 0 {
			continue
		}
		s.Peaks = append(s.Peaks, peakOf(c))
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
	s.Saturation = saturation(r.PutCurves)
	s.TwoSided = summarizeTwoSided(r)
	// The shared vs non-shared sweep: curves come in pairs, shared first.
	for i := 0; i+1 < len(r.OneSidedCurves); i += 2 {
		sh, ns := r.OneSidedCurves[i], r.OneSidedCurves[i+1]
		if sh.Unregistered || !ns.Unregistered || sh.Size != ns.Size || sh.Window != ns.Window {
			continue
		}
		sd := Slowdown{Size: sh.Size, Window: sh.Window}
		var ppns []int
		var bws []float64
		for j, p := range sh.Points {
			ppns, bws = append(ppns, p.PPN), append(bws, p.Bandwidth)
			if j < len(ns.Points) && ns.Points[j].PPN == p.PPN {
				sd.PPN = append(sd.PPN, p.PPN)
				sd.Percent = append(sd.Percent, SlowdownPercent(p.Bandwidth, ns.Points[j].Bandwidth))
			}
		}
		s.NonShared = append(s.NonShared, sd)
		if f, ok := FewCoresOf(ppns, bws, FewCoresPPN); ok {
			f.Size, f.Window = sh.Size, sh.Window
			s.FewCores = append(s.FewCores, f)
		}
	}
	return s
}

// pointRatios are num's over den's bandwidths at the PEs per node both
// curves have, point by point from the first until they differ (NaN where
// den's is not positive).
func pointRatios(num, den Curve) (ppn []int, ratio []float64) {
	for i, p := range den.Points {
		if i >= len(num.Points) || num.Points[i].PPN != p.PPN {
			break
		}
		v := math.NaN()
		if p.Bandwidth > 0 {
			v = num.Points[i].Bandwidth / p.Bandwidth
		}
		ppn, ratio = append(ppn, p.PPN), append(ratio, v)
	}
	return ppn, ratio
}

// saturation reads the Saturation off the put sweep's curves.
func saturation(cs []Curve) *Saturation {
	if len(cs) == 0 {
		return nil
	}
	sat := &Saturation{}
	for _, c := range cs {
		for _, p := range c.Points {
			if p.Bandwidth > sat.Peak {
				sat.Peak, sat.PeakPPN, sat.PeakSize = p.Bandwidth, p.PPN, p.Size
			}
		}
	}
	for _, c := range cs {
		sizes := make([]int, len(c.Points))
		bw := make([]float64, len(c.Points))
		for i, p := range c.Points {
			sizes[i], bw[i] = p.Size, p.Bandwidth
		}
		sat.PPN = append(sat.PPN, c.PPN)
		sat.Size = append(sat.Size, SaturationSize(sizes, bw, SaturationLevel*sat.Peak))
	}
	return sat
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
