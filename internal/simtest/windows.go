package simtest

import (
	"slices"

	"github.com/gopgas/gopgas/internal/fabric"
	"github.com/gopgas/gopgas/internal/sim"
)

// Windows counts a simulated job's events by window of a parallel
// kernel's lookahead and, within each window, the network's router and
// channel events by partition (docs/parallel-kernel.md): what a
// partitioned run of the job would have to work with. Give its Observe to
// the kernel (Traffic.Kernel, sim.Kernel.Observe).
type Windows struct {
	Width sim.Time // the lookahead
	Parts int
	// Part is a router's partition, in [0, Parts).
	Part func(*fabric.Router) int

	counts []int   // events by window
	byPart [][]int // router and channel events by window and partition
}

// Reset forgets what was counted.
func (w *Windows) Reset() { w.counts, w.byPart = w.counts[:0], w.byPart[:0] }

// Observe counts an event of actor a at time t.
func (w *Windows) Observe(t sim.Time, a sim.Actor) {
	i := int(t / w.Width)
	for len(w.counts) <= i {
		w.counts = append(w.counts, 0)
		w.byPart = append(w.byPart, make([]int, w.Parts))
	}
	w.counts[i]++
	var r *fabric.Router
	switch a := a.(type) {
	case *fabric.Router:
		r = a
	case *fabric.Channel:
		if r = a.From(); r == nil {
			r = a.To()
		}
	}
	if r != nil {
		w.byPart[i][w.Part(r)]++
	}
}

// Report gives, over the windows from the first event to the last: their
// number, their events (mean, 10th, 50th and 90th percentiles, maximum),
// and the balance of the partitions' router and channel events within a
// window, of the partitions themselves ("busiest-part/mean") and of the
// two runs of consecutive partitions two workers would take
// ("busiest-half/mean"): the busiest's count over the mean, averaged over
// the windows weighted by their events.
func (w *Windows) Report(metric func(float64, string)) {
	first := slices.IndexFunc(w.counts, func(n int) bool { return n > 0 })
	if first < 0 {
		return
	}
	counts, byPart := w.counts[first:], w.byPart[first:]
	total, parts, halves, weight := 0, 0.0, 0.0, 0
	for i, n := range counts {
		total += n
		sum, most, half := 0, 0, 0
		for p, e := range byPart[i] {
			sum += e
			most = max(most, e)
			if p < w.Parts/2 {
				half += e
			}
		}
		if sum > 0 {
			parts += float64(most) / (float64(sum) / float64(w.Parts)) * float64(sum)
			halves += float64(max(half, sum-half)) / (float64(sum) / 2) * float64(sum)
			weight += sum
		}
	}
	sorted := slices.Sorted(slices.Values(counts))
	pct := func(q float64) float64 { return float64(sorted[int(q*float64(len(sorted)-1))]) }
	metric(float64(len(counts)), "windows")
	metric(float64(total)/float64(len(counts)), "events/window")
	metric(pct(0.1), "p10-events/window")
	metric(pct(0.5), "p50-events/window")
	metric(pct(0.9), "p90-events/window")
	metric(pct(1), "max-events/window")
	if weight > 0 {
		metric(parts/float64(weight), "busiest-part/mean")
		metric(halves/float64(weight), "busiest-half/mean")
	}
}
