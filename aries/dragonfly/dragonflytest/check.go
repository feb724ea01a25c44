package dragonflytest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/aries/dragonfly"
)

// GroupHops counts the hops of a path made in one group, by link class.
type GroupHops struct {
	Group int
	N     [dragonfly.LinkClassCount]int
}

// CheckPath checks that p is a route from src to dst over real links of d,
// and returns its hops per group (by the group a hop leaves) and class,
// groups in order of first visit.
func CheckPath(t testing.TB, d *dragonfly.Dragonfly, src, dst int, p dragonfly.Path) []GroupHops {
	t.Helper()
	var groups []GroupHops
	at := src
	for _, h := range p {
		link, ok, err := d.Link(h.From, h.FromPort)
		if h.From != at || err != nil || !ok || link != h {
			t.Fatalf("path %v from %d: hop %v is not a link from %d (%v, %v, %v)", p, src, h, at, link, ok, err)
		}
		g := h.From / dragonfly.AriesPerGroup
		i := slices.IndexFunc(groups, func(x GroupHops) bool { return x.Group == g })
		if i < 0 {
			groups = append(groups, GroupHops{Group: g})
			i = len(groups) - 1
		}
		groups[i].N[h.Class]++
		at = h.To
	}
	if at != dst {
		t.Fatalf("path %v from %d ends at %d, not %d", p, src, at, dst)
	}
	return groups
}

// CheckMinimal checks A-MINHOPS for a minimal path: CheckPath, at most one
// green and one black hop in each group, and only in the source's and the
// destination's group; exactly one global hop between groups and none
// within a group.
func CheckMinimal(t testing.TB, d *dragonfly.Dragonfly, src, dst int, p dragonfly.Path) {
	t.Helper()
	gs, gd := src/dragonfly.AriesPerGroup, dst/dragonfly.AriesPerGroup
	for _, g := range CheckPath(t, d, src, dst, p) {
		if g.N[dragonfly.LinkGreen] > 1 || g.N[dragonfly.LinkBlack] > 1 || (g.Group != gs && g.Group != gd) {
			t.Fatalf("minimal path %v from %d to %d: %v green/black/global hops in group %d", p, src, dst, g.N, g.Group)
		}
	}
	wantGlobal, most := 1, dragonfly.MaxMinimalHops
	if gs == gd {
		wantGlobal, most = 0, dragonfly.MaxLocalMinimalHops
	}
	if p.Count(dragonfly.LinkGlobal) != wantGlobal || len(p) > most {
		t.Fatalf("minimal path %v from %d to %d: %d global hops, want %d; %d hops, at most %d",
			p, src, dst, p.Count(dragonfly.LinkGlobal), wantGlobal, len(p), most)
	}
}

// Histogram formats a histogram of path lengths as shares, e.g.
// " 3:40.0% 5:60.0%" for hist[3] = 2 and hist[5] = 3.
func Histogram(hist []int) string {
	total := 0
	for _, n := range hist {
		total += n
	}
	var b strings.Builder
	for hops, n := range hist {
		if n > 0 {
			fmt.Fprintf(&b, " %d:%.1f%%", hops, 100*float64(n)/float64(total))
		}
	}
	return b.String()
}
