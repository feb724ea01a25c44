package study

import (
	"math"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/pgas"
)

// Section V of [ORDERING]: two-sided bandwidth against PEs per node and
// window (Figure 11), with and without rendezvous, beside its one-sided
// counterpart, and what the paper reads off them.

// TwoSidedWindowsOf are the two-sided sweep's windows at size.
func (c *Config) TwoSidedWindowsOf(size int) []int {
	if size <= c.TwoSidedSmallMax {
		return c.TwoSidedWindows
	}
	return c.TwoSidedLargeWindows
}

// twoSidedCurves lays out the two-sided sweep and its one-sided
// counterparts, adding their points' keys.
func (c *Config) twoSidedCurves(add func(key)) (two, one []Curve) {
	if len(c.TwoSidedPPNs) == 0 {
		return nil, nil
	}
	curve := func(kind fig, size, w int, nolmt bool) Curve {
		cv := Curve{Ordering: pgas.OrderRelaxed, Mechanism: bench.Auto, Size: size, Window: w, NoRendezvous: nolmt}
		for _, p := range c.TwoSidedPPNs {
			k := key{kind, pgas.OrderRelaxed, bench.Auto, size, p, w, false, nolmt}
			add(k)
			cv.Points = append(cv.Points, k.point())
		}
		return cv
	}
	for _, size := range c.TwoSidedSizes {
		for _, w := range c.TwoSidedWindowsOf(size) {
			two = append(two, curve(figTwoSided, size, w, false))
			one = append(one, curve(figOneSided, size, w, false))
		}
	}
	for _, size := range c.NoRendezvousSizes {
		for _, w := range c.TwoSidedWindowsOf(size) {
			two = append(two, curve(figTwoSided, size, w, true))
		}
	}
	return two, one
}

// twoSidedBytes is the buffer memory of a two-sided point on nodes nodes:
// each PE's send and receive slots (bench.MsgBW).
func twoSidedBytes(nodes int, k key) int64 {
	slots := int64(max(1, min(max(k.window, 1), bench.MsgSlotBytes/max(k.size, 1))))
	return int64(nodes) * int64(k.ppn) * 2 * slots * int64(k.size)
}

// TwoSided is what section V reads off the two-sided sweep.
type TwoSided struct {
	// Saturation is, for every two-sided curve and every counterpart,
	// the fewest PEs per node that reach SaturationLevel of the curve's
	// own best.
	Saturation []PPNSaturation
	// Ratios are two-sided over one-sided bandwidth at each size and
	// window, by PEs per node.
	Ratios []SideRatio
	// Peaks are where each two-sided curve peaks.
	Peaks []Peak
	// Protocols are the protocol each size took, with rendezvous and
	// without.
	Protocols []ProtocolAt
}

// PPNSaturation is where one curve reaches SaturationLevel of its best.
type PPNSaturation struct {
	// Kind is "two-sided", "two-sided, no rendezvous" or "one-sided".
	Kind         string
	Size, Window int
	// PPN is the fewest PEs per node at or above the level (0 if none).
	PPN int
	// Best and BestPPN are the curve's best bandwidth (MB/s) and where.
	Best    float64
	BestPPN int
}

// SaturationPPN is the first of ppns whose bandwidth reaches level times
// the best of bw (0 when the curve is empty or not positive), with the best
// and where it is (the first of equals).
func SaturationPPN(ppns []int, bw []float64, level float64) (ppn int, best float64, bestPPN int) {
	for i := range min(len(ppns), len(bw)) {
		if bw[i] > best {
			best, bestPPN = bw[i], ppns[i]
		}
	}
	if !(best > 0) {
		return 0, best, bestPPN
	}
	for i := range min(len(ppns), len(bw)) {
		if bw[i] >= level*best {
			return ppns[i], best, bestPPN
		}
	}
	return 0, best, bestPPN
}

// SideRatio is two-sided over one-sided bandwidth along PEs per node.
type SideRatio struct {
	Size, Window int
	PPN          []int
	Ratio        []float64
	// BestRatio is the two-sided curve's best over the one-sided curve's
	// best.
	BestRatio float64
}

// Range is the smallest and largest ratio.
func (s SideRatio) Range() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range s.Ratio {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// ProtocolAt is the two-sided protocol of one size.
type ProtocolAt struct {
	Size int
	// Rendezvous is the protocol with rendezvous enabled, NoRendezvous
	// without ("" when not measured).
	Rendezvous, NoRendezvous string
}

// kind names a two-sided curve's kind.
func (cv Curve) kind() string {
	if cv.NoRendezvous {
		return "two-sided, no rendezvous"
	}
	return "two-sided"
}

// summarizeTwoSided reads section V off the results; nil without the
// sweep.
func summarizeTwoSided(r *Results) *TwoSided {
	if len(r.TwoSidedCurves) == 0 {
		return nil
	}
	t := &TwoSided{}
	sat := func(kind string, cv Curve) {
		ppns, bw := curveXY(cv)
		p, best, at := SaturationPPN(ppns, bw, SaturationLevel)
		t.Saturation = append(t.Saturation, PPNSaturation{Kind: kind, Size: cv.Size, Window: cv.Window, PPN: p, Best: best, BestPPN: at})
	}
	var protos []ProtocolAt
	proto := func(size int) *ProtocolAt {
		for i := range protos {
			if protos[i].Size == size {
				return &protos[i]
			}
		}
		protos = append(protos, ProtocolAt{Size: size})
		return &protos[len(protos)-1]
	}
	for _, cv := range r.TwoSidedCurves {
		sat(cv.kind(), cv)
		t.Peaks = append(t.Peaks, peakOf(cv))
		if len(cv.Points) > 0 {
			if pa := proto(cv.Size); cv.NoRendezvous {
				pa.NoRendezvous = cv.Points[0].Protocol
			} else {
				pa.Rendezvous = cv.Points[0].Protocol
			}
		}
	}
	t.Protocols = protos
	for i, one := range r.CounterpartCurves {
		sat("one-sided", one)
		if i >= len(r.TwoSidedCurves) {
			continue
		}
		two := r.TwoSidedCurves[i]
		sr := SideRatio{Size: one.Size, Window: one.Window}
		sr.PPN, sr.Ratio = pointRatios(two, one)
		b1, b2 := peakOf(one).Bandwidth, peakOf(two).Bandwidth
		sr.BestRatio = math.NaN()
		if b1 > 0 {
			sr.BestRatio = b2 / b1
		}
		t.Ratios = append(t.Ratios, sr)
	}
	return t
}

// curveXY is a curve's PEs per node and bandwidths.
func curveXY(cv Curve) ([]int, []float64) {
	ppns := make([]int, len(cv.Points))
	bw := make([]float64, len(cv.Points))
	for i, p := range cv.Points {
		ppns[i], bw[i] = p.PPN, p.Bandwidth
	}
	return ppns, bw
}

// peakOf is the best point of a PEs-per-node curve and its last point.
func peakOf(c Curve) Peak {
	pk := Peak{Ordering: c.Ordering, Mechanism: c.Mechanism, Size: c.Size}
	for _, p := range c.Points {
		if p.Bandwidth > pk.Bandwidth {
			pk.PPN, pk.Bandwidth = p.PPN, p.Bandwidth
		}
	}
	if n := len(c.Points); n > 0 {
		pk.LastPPN, pk.LastBandwidth = c.Points[n-1].PPN, c.Points[n-1].Bandwidth
	}
	return pk
}
