package torus_test

// The commands of the torus scripts (testdata/README.md lists them). Each
// prints what the exported API answers and checks, where it is cheap, that
// the answers agree with each other (a route against Hops, Neighbor and
// NextStep; the listed connections against Wiring), returning an error when
// they do not.

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/internal/scripttest"

	"github.com/gopgas/gopgas/gemini/torus"
)

func TestScripts(t *testing.T) {
	scripttest.Run(t, *rewrite, func(*testing.T) func(scripttest.Command) ([]string, error) {
		s := &torusScript{}
		return s.run
	})
}

// torusScript is the state of one script: the torus the last system
// scripttest.Command built, and the output of the scripttest.Command being run.
type torusScript struct {
	tor *torus.Torus
	out []string
}

func (s *torusScript) printf(format string, args ...any) {
	s.out = append(s.out, fmt.Sprintf(format, args...))
}

// torusCommands maps the names of the commands to their methods.
var torusCommands = map[string]func(*torusScript, scripttest.Command) error{
	"system":    (*torusScript).system,
	"y":         (*torusScript).setY,
	"gemini":    (*torusScript).gemini,
	"node":      (*torusScript).node,
	"neighbors": (*torusScript).neighbors,
	"delta":     (*torusScript).delta,
	"route":     (*torusScript).route,
	"distances": (*torusScript).distances,
	"wiring":    (*torusScript).wiring,
	"bisection": (*torusScript).bisection,
}

func (s *torusScript) run(c scripttest.Command) ([]string, error) {
	s.out = nil
	cmd, ok := torusCommands[c.Name]
	switch {
	case !ok:
		return nil, fmt.Errorf("unknown scripttest.Command %q", c.Name)
	case c.Name != "system" && s.tor == nil:
		return nil, fmt.Errorf("%s before any system", c.Name)
	}
	err := cmd(s, c)
	return s.out, err
}

// system builds the torus: torus=XxYxZ in Geminis (y=open for an open y),
// cabinets=N rows=R for Table 1, or mseries=N y=Y for the m-series.
func (s *torusScript) system(c scripttest.Command) error {
	var tor *torus.Torus
	switch {
	case c.KV["torus"] != "":
		if err := c.Expect(0, "torus", "y"); err != nil {
			return err
		}
		var gx, gy, gz int
		if _, err := fmt.Sscanf(c.KV["torus"], "%dx%dx%d", &gx, &gy, &gz); err != nil {
			return fmt.Errorf("torus=%s: want XxYxZ: %v", c.KV["torus"], err)
		}
		yClosed, err := parseY(c.KV["y"])
		if err != nil {
			return err
		}
		tor, err = torus.NewTorus(gx, gy, gz, yClosed)
		if err != nil {
			s.printf("error: %v", err)
			return nil
		}
	case c.KV["cabinets"] != "":
		if err := c.Expect(0, "cabinets", "rows"); err != nil {
			return err
		}
		perRow, rows := 0, 1
		if err := c.Ints(map[string]*int{"cabinets": &perRow, "rows": &rows}); err != nil {
			return err
		}
		var (
			class torus.Class
			err   error
		)
		if tor, class, err = torus.ForCabinets(perRow, rows); err != nil {
			s.printf("error: %v", err)
			return nil
		}
		s.printf("%v: %s of %s, %d in all", class, plural(rows, "row"), plural(perRow, "cabinet"), rows*perRow)
	case c.KV["mseries"] != "":
		if err := c.Expect(0, "mseries", "y"); err != nil {
			return err
		}
		cabinets, y := 0, 0
		if err := c.Ints(map[string]*int{"mseries": &cabinets, "y": &y}); err != nil {
			return err
		}
		var err error
		if tor, err = torus.MSeries(cabinets, y); err != nil {
			s.printf("error: %v", err)
			return nil
		}
		s.printf("%v: %s", torus.ClassM, plural(cabinets, "cabinet"))
	default:
		return fmt.Errorf("system needs torus=, cabinets= or mseries=")
	}
	s.tor = tor
	s.printf("%v", tor)
	s.printf("%s, %s", plural(tor.Geminis(), "Gemini"), plural(tor.Nodes(), "node"))
	return nil
}

// parseY reads y=open or y=closed; closed when absent.
func parseY(v string) (bool, error) {
	switch v {
	case "", "closed":
		return true, nil
	case "open":
		return false, nil
	}
	return false, fmt.Errorf("y=%s: want open or closed", v)
}

// setY opens or closes y of the current torus.
func (s *torusScript) setY(c scripttest.Command) error {
	if err := c.Expect(1); err != nil {
		return err
	}
	closed, err := parseY(c.Pos[0])
	if err != nil {
		return err
	}
	s.tor.YClosed = closed
	s.printf("%v", s.tor)
	return nil
}

// geminiArg reads a Gemini given by its id or as x,y,z.
func (s *torusScript) geminiArg(arg string) (int, error) {
	var g int
	if strings.Contains(arg, ",") {
		var c torus.Coord
		if _, err := fmt.Sscanf(arg, "%d,%d,%d", &c.X, &c.Y, &c.Z); err != nil {
			return 0, fmt.Errorf("%s: want x,y,z: %v", arg, err)
		}
		if c.X < 0 || c.X >= s.tor.GX || c.Y < 0 || c.Y >= s.tor.GY || c.Z < 0 || c.Z >= s.tor.GZ {
			return 0, fmt.Errorf("%s: outside %v", arg, s.tor)
		}
		g = s.tor.Index(c)
	} else {
		var err error
		if g, err = strconv.Atoi(arg); err != nil {
			return 0, fmt.Errorf("%s: want a Gemini id or x,y,z", arg)
		}
	}
	if g < 0 || g >= s.tor.Geminis() {
		return 0, fmt.Errorf("Gemini %d outside %v", g, s.tor)
	}
	return g, nil
}

// geminiArgs reads the scripttest.Command's n positional Geminis.
func (s *torusScript) geminiArgs(c scripttest.Command, n int) ([]int, error) {
	if err := c.Expect(n); err != nil {
		return nil, err
	}
	gs := make([]int, n)
	for i, arg := range c.Pos {
		g, err := s.geminiArg(arg)
		if err != nil {
			return nil, err
		}
		gs[i] = g
	}
	return gs, nil
}

// at names Gemini g by its id and coordinate.
func (s *torusScript) at(g int) string { return fmt.Sprintf("%d %v", g, s.tor.Coord(g)) }

// gemini prints a Gemini's coordinate and the nodes it serves.
func (s *torusScript) gemini(c scripttest.Command) error {
	gs, err := s.geminiArgs(c, 1)
	if err != nil {
		return err
	}
	g := gs[0]
	first := g * torus.NodesPerGemini
	s.printf("Gemini %s: nodes %d to %d", s.at(g), first, first+torus.NodesPerGemini-1)
	return nil
}

// node prints the Gemini a node is attached to.
func (s *torusScript) node(c scripttest.Command) error {
	if err := c.Expect(1); err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Pos[0])
	if err != nil || n < 0 || n >= s.tor.Nodes() {
		return fmt.Errorf("node %s: want 0 to %d", c.Pos[0], s.tor.Nodes()-1)
	}
	s.printf("node %d: Gemini %s", n, s.at(s.tor.GeminiOfNode(n)))
	return nil
}

var dirs = [2]torus.Dir{torus.DirPlus, torus.DirMinus}

var dims = [torus.DimCount]torus.Dim{torus.DimX, torus.DimY, torus.DimZ}

// neighbors prints the neighbour of a Gemini through each of its six
// ports, and how many connections Wiring lays to it.
func (s *torusScript) neighbors(c scripttest.Command) error {
	gs, err := s.geminiArgs(c, 1)
	if err != nil {
		return err
	}
	g := gs[0]
	wired := map[[2]int]int{}
	for w := range s.tor.Wiring() {
		if w.From == g {
			wired[[2]int{int(w.Dim), w.Dir.Index()}]++
		}
	}
	for _, d := range dims {
		for _, dir := range dirs {
			n := wired[[2]int{int(d), dir.Index()}]
			to, ok := s.tor.Neighbor(g, d, dir)
			if !ok {
				if n != 0 {
					return fmt.Errorf("%v%v of %d: no neighbour but %d connections", d, dir, g, n)
				}
				s.printf("%v%v none", d, dir)
				continue
			}
			if n != s.tor.Connections(d) {
				return fmt.Errorf("%v%v of %d: %d connections wired, Connections says %d", d, dir, g, n, s.tor.Connections(d))
			}
			s.printf("%v%v %s, %s", d, dir, s.at(to), plural(n, "connection"))
		}
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// delta prints the minimal move along each dimension and the hop count.
func (s *torusScript) delta(c scripttest.Command) error {
	gs, err := s.geminiArgs(c, 2)
	if err != nil {
		return err
	}
	a, b := gs[0], gs[1]
	for _, d := range dims {
		n, dir, tie := s.tor.Delta(a, b, d)
		line := fmt.Sprintf("%v: %s", d, plural(n, "hop"))
		if n > 0 {
			line += " " + dir.String()
		}
		if tie {
			line += " (tie)"
		}
		s.printf("%s", line)
	}
	s.printf("%s", plural(s.tor.Hops(a, b), "hop"))
	return nil
}

// route prints the dimension-order route between two Geminis, a hop a line.
func (s *torusScript) route(c scripttest.Command) error {
	gs, err := s.geminiArgs(c, 2)
	if err != nil {
		return err
	}
	src, dst := gs[0], gs[1]
	route, err := s.checkedRoute(src, dst)
	if err != nil {
		return err
	}
	for _, h := range route {
		tie := ""
		if h.Tie {
			tie = " tie"
		}
		s.printf("%s %v%v%s -> %s", s.at(h.From), h.Dim, h.Dir, tie, s.at(h.To))
	}
	s.printf("%s", plural(len(route), "hop"))
	return nil
}

// checkedRoute returns Route(src, dst) after checking it against Hops,
// NextStep and Neighbor.
func (s *torusScript) checkedRoute(src, dst int) ([]torus.Hop, error) {
	route := s.tor.Route(src, dst)
	if len(route) != s.tor.Hops(src, dst) {
		return nil, fmt.Errorf("route %d->%d has %d hops, Hops says %d", src, dst, len(route), s.tor.Hops(src, dst))
	}
	at := src
	for _, h := range route {
		step, ok := s.tor.NextStep(at, dst)
		to, _ := s.tor.Neighbor(at, h.Dim, h.Dir)
		if h.From != at || !ok || step != h.Step || to != h.To {
			return nil, fmt.Errorf("route %d->%d: hop %+v is not NextStep %+v from %d to its neighbour %d", src, dst, h, step, at, to)
		}
		at = h.To
	}
	if at != dst {
		return nil, fmt.Errorf("route %d->%d ends at %d", src, dst, at)
	}
	return route, nil
}

// distances prints how many Geminis lie at each hop count from a Gemini,
// checking every route on the way.
func (s *torusScript) distances(c scripttest.Command) error {
	gs, err := s.geminiArgs(c, 1)
	if err != nil {
		return err
	}
	var hist []int
	total := 0
	for dst := range s.tor.Geminis() {
		route, err := s.checkedRoute(gs[0], dst)
		if err != nil {
			return err
		}
		for len(hist) <= len(route) {
			hist = append(hist, 0)
		}
		hist[len(route)]++
		total += len(route)
	}
	var b strings.Builder
	for h, n := range hist {
		fmt.Fprintf(&b, " %d:%d", h, n)
	}
	s.printf("hops:count%s", b.String())
	s.printf("farthest %s, mean %.3f", plural(len(hist)-1, "hop"), float64(total)/float64(s.tor.Geminis()))
	return nil
}

// wiring prints the torus connections: with no argument their number per
// dimension, with a Gemini those leaving it in Wiring's order.
func (s *torusScript) wiring(c scripttest.Command) error {
	if len(c.Pos) == 0 {
		if err := c.Expect(0); err != nil {
			return err
		}
		var per [torus.DimCount]int
		total := 0
		for w := range s.tor.Wiring() {
			per[w.Dim]++
			total++
		}
		for _, d := range dims {
			s.printf("%v: %s, %d per port", d, plural(per[d], "connection"), s.tor.Connections(d))
		}
		s.printf("%s", plural(total, "connection"))
		return nil
	}
	gs, err := s.geminiArgs(c, 1)
	if err != nil {
		return err
	}
	for w := range s.tor.Wiring() {
		if w.From == gs[0] {
			s.printf("%v%v #%d -> %s", w.Dim, w.Dir, w.Index, s.at(w.To))
		}
	}
	return nil
}

// gigabyte is a decimal gigabyte, the unit of the whitepaper's GB/s.
const gigabyte = 1e9

// bisection prints the worst-case cut and the bandwidths that follow.
func (s *torusScript) bisection(c scripttest.Command) error {
	if err := c.Expect(0); err != nil {
		return err
	}
	links, d := s.tor.BisectionLinks()
	s.printf("cut across %v: %s", d, plural(links, "connection"))
	s.printf("bisection %.1f GB/s, global %.1f GB/s", s.tor.BisectionBandwidth()/gigabyte, s.tor.GlobalBandwidth()/gigabyte)
	return nil
}
