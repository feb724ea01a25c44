package torus

// Dimension-order routing. A minimal route on the torus corrects x, then y,
// then z, each the short way round (Delta); where both ways are equally
// short (Tie) a router may take either, and Route takes DirPlus. Which of
// the parallel connections a packet takes, and adaptive routing's choice
// among the dimensions, are the simulator's decisions, not geometry.

// Step is a move along one dimension: the dimension, the direction, and
// whether the other direction is as short (half-way round a ring of even
// size, see Delta).
type Step struct {
	Dim Dim
	Dir Dir
	Tie bool
}

// NextStep returns the first step of the dimension-order route from Gemini
// g to Gemini dst: along the first of x, y and z on which their positions
// differ, in the direction Delta gives (DirPlus on a tie). ok is false when
// g == dst. It panics if g or dst is out of range.
func (t *Torus) NextStep(g, dst int) (s Step, ok bool) {
	a, b := t.Coord(g), t.Coord(dst)
	for _, d := range dims {
		n, dir, tie := t.DeltaAt(a, b, d)
		if n == 0 {
			continue
		}
		return Step{Dim: d, Dir: dir, Tie: tie}, true
	}
	return Step{}, false
}

// Hop is one router-to-router hop of a route: a Step taken from Gemini
// From, arriving at Gemini To.
type Hop struct {
	From, To int
	Step
}

// Route returns the dimension-order route from Gemini src to Gemini dst as
// its hops, DirPlus taken on every tie: Hops(src, dst) of them, none when
// src == dst. Every hop follows a torus connection (Neighbor). It panics if
// src or dst is out of range.
func (t *Torus) Route(src, dst int) []Hop {
	var route []Hop
	for g := src; ; {
		s, ok := t.NextStep(g, dst)
		if !ok {
			return route
		}
		to, _ := t.Neighbor(g, s.Dim, s.Dir)
		route = append(route, Hop{From: g, To: to, Step: s})
		g = to
	}
}
