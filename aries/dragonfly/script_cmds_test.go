package dragonfly_test

// The commands of the Dragonfly scripts (testdata/README.md lists them).
// Each prints what the exported API answers; every path printed or counted
// is checked by dragonflytest (real links, minimal where it must be), and
// the commands check where it is cheap that the answers agree with each
// other, returning an error when they do not.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/internal/scripttest"

	"github.com/gopgas/gopgas/aries/dragonfly"
	"github.com/gopgas/gopgas/aries/dragonfly/dragonflytest"
)

func TestScripts(t *testing.T) {
	scripttest.Run(t, *rewrite, func(t *testing.T) func(scripttest.Command) ([]string, error) {
		s := &dragonflyScript{t: t}
		return s.run
	})
}

// dragonflyScript is the state of one script: the system the last system
// scripttest.Command built, and the output of the scripttest.Command being run.
type dragonflyScript struct {
	t   *testing.T
	d   *dragonfly.Dragonfly
	out []string
}

func (s *dragonflyScript) printf(format string, args ...any) {
	s.out = append(s.out, fmt.Sprintf(format, args...))
}

// dragonflyCommands maps the names of the commands to their methods.
var dragonflyCommands = map[string]func(*dragonflyScript, scripttest.Command) error{
	"system":          (*dragonflyScript).system,
	"aries":           (*dragonflyScript).aries,
	"node":            (*dragonflyScript).node,
	"neighbors":       (*dragonflyScript).neighbors,
	"ports":           (*dragonflyScript).ports,
	"cables":          (*dragonflyScript).cables,
	"bundle":          (*dragonflyScript).bundle,
	"minimal":         (*dragonflyScript).minimal,
	"via":             (*dragonflyScript).via,
	"valiant":         (*dragonflyScript).valiant,
	"candidates":      (*dragonflyScript).candidates,
	"choices":         (*dragonflyScript).choices,
	"distances":       (*dragonflyScript).distances,
	"valiant-lengths": (*dragonflyScript).valiantLengths,
	"bandwidth":       (*dragonflyScript).bandwidth,
	"table":           (*dragonflyScript).table,
	"group-bisection": (*dragonflyScript).groupBisection,
	"efficiency":      (*dragonflyScript).efficiency,
}

// systemFree lists the commands that need no system.
var systemFree = []string{"system", "table", "group-bisection", "efficiency"}

func (s *dragonflyScript) run(c scripttest.Command) ([]string, error) {
	s.out = nil
	cmd, ok := dragonflyCommands[c.Name]
	switch {
	case !ok:
		return nil, fmt.Errorf("unknown scripttest.Command %q", c.Name)
	case s.d == nil && !slices.Contains(systemFree, c.Name):
		return nil, fmt.Errorf("%s before any system", c.Name)
	}
	err := cmd(s, c)
	return s.out, err
}

// system builds the system: groups=G, cabinets=N or chassis=N, with
// bundle=B cables per bundle.
func (s *dragonflyScript) system(c scripttest.Command) error {
	bundle := 0
	if err := c.Ints(map[string]*int{"bundle": &bundle}); err != nil {
		return err
	}
	var d *dragonfly.Dragonfly
	for _, b := range []struct {
		key   string
		build func(n, bundle int) (*dragonfly.Dragonfly, error)
	}{
		{"groups", dragonfly.NewDragonfly},
		{"cabinets", dragonfly.ForCabinets},
		{"chassis", dragonfly.ForChassis},
	} {
		if _, ok := c.KV[b.key]; !ok {
			continue
		}
		if err := c.Expect(0, b.key, "bundle"); err != nil {
			return err
		}
		n := 0
		if err := c.Ints(map[string]*int{b.key: &n}); err != nil {
			return err
		}
		var err error
		if d, err = b.build(n, bundle); err != nil {
			s.printf("error: %v", err)
			return nil
		}
	}
	if d == nil {
		return fmt.Errorf("system needs groups=, cabinets= or chassis=")
	}
	s.d = d
	s.printf("%v", d)
	s.printf("%s (%d full), %s, %d Aries, %s",
		plural(d.Groups(), "group"), d.FullGroups(), plural(d.Chassis(), "chassis"), d.Aries(), plural(d.Nodes(), "node"))
	if last, _ := d.ChassisInGroup(d.Groups() - 1); last < dragonfly.ChassisPerGroup {
		s.printf("group %d: %s", d.Groups()-1, plural(last, "chassis"))
	}
	if d.Groups() == 1 {
		s.printf("no global cables")
		return nil
	}
	most, _ := dragonfly.MaxBundle(d.Groups())
	s.printf("%s; bundles of at most %d between %d groups", plural(d.TotalCables(), "cable"), most, d.Groups())
	return nil
}

func plural(n int, what string) string {
	switch {
	case n == 1:
		return "1 " + what
	case strings.HasSuffix(what, "s"):
		return fmt.Sprintf("%d %s", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ariesArg reads an Aries given by its id or as g<group>c<chassis>s<slot>.
func (s *dragonflyScript) ariesArg(arg string) (int, error) {
	if strings.HasPrefix(arg, "g") {
		var l dragonfly.AriesLoc
		if _, err := fmt.Sscanf(arg, "g%dc%ds%d", &l.Group, &l.Chassis, &l.Slot); err != nil {
			return 0, fmt.Errorf("%s: want g<group>c<chassis>s<slot>: %v", arg, err)
		}
		return s.d.AriesAt(l)
	}
	a, err := strconv.Atoi(arg)
	if err != nil {
		return 0, fmt.Errorf("%s: want an Aries id or g<group>c<chassis>s<slot>", arg)
	}
	if _, err := s.d.AriesLocation(a); err != nil {
		return 0, err
	}
	return a, nil
}

// ariesArgs reads the scripttest.Command's n positional Aries.
func (s *dragonflyScript) ariesArgs(c scripttest.Command, n int, keys ...string) ([]int, error) {
	if err := c.Expect(n, keys...); err != nil {
		return nil, err
	}
	as := make([]int, n)
	for i, arg := range c.Pos {
		a, err := s.ariesArg(arg)
		if err != nil {
			return nil, err
		}
		as[i] = a
	}
	return as, nil
}

// choiceArgs reads the route choices named by the keys of into; an absent
// one keeps the value its target holds.
func choiceArgs(c scripttest.Command, into map[string]*uint64) error {
	return scripttest.Scan(c, into, func(v string) (uint64, error) { return strconv.ParseUint(v, 10, 64) })
}

// loc names Aries a by its position.
func (s *dragonflyScript) loc(a int) string {
	l, err := s.d.AriesLocation(a)
	if err != nil {
		return fmt.Sprintf("?%d", a)
	}
	return l.String()
}

// locs names a list of Aries by their positions.
func (s *dragonflyScript) locs(as []int) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = s.loc(a)
	}
	return strings.Join(names, " ")
}

// hop writes a hop with positions for ids.
func (s *dragonflyScript) hop(h dragonfly.Hop) string {
	return fmt.Sprintf("%s:%d -%v-> %s:%d", s.loc(h.From), h.FromPort, h.Class, s.loc(h.To), h.ToPort)
}

// aries prints an Aries's id, position and nodes.
func (s *dragonflyScript) aries(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 1)
	if err != nil {
		return err
	}
	a := as[0]
	first := a * dragonfly.NodesPerAries
	s.printf("Aries %d %s: nodes %d to %d", a, s.loc(a), first, first+dragonfly.NodesPerAries-1)
	return nil
}

// node prints a node's position and its Aries.
func (s *dragonflyScript) node(c scripttest.Command) error {
	if err := c.Expect(1); err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Pos[0])
	if err != nil {
		return fmt.Errorf("node %s: want a node id", c.Pos[0])
	}
	l, err := s.d.NodeLocation(n)
	if err != nil {
		return err
	}
	a, err := s.d.AriesOfNode(n)
	if err != nil {
		return err
	}
	if back, err := s.d.NodeAt(l); err != nil || back != n {
		return fmt.Errorf("NodeAt(%v) = %d, %v; want %d", l, back, err, n)
	}
	s.printf("node %d %v: Aries %d %s", n, l, a, s.loc(a))
	return nil
}

// neighbors prints the Aries an Aries has green, black and global links
// to, checking the first two against the links behind its ports.
func (s *dragonflyScript) neighbors(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 1)
	if err != nil {
		return err
	}
	a := as[0]
	green, err := s.d.GreenNeighbors(a)
	if err != nil {
		return err
	}
	black, err := s.d.BlackNeighbors(a)
	if err != nil {
		return err
	}
	var byPort [dragonfly.LinkClassCount][]int
	var global []string
	for port := range dragonfly.NetworkPortsPerAries {
		h, ok, err := s.d.Link(a, port)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		byPort[h.Class] = append(byPort[h.Class], h.To)
		if h.Class == dragonfly.LinkGlobal {
			global = append(global, fmt.Sprintf("%d:%s", port, s.loc(h.To)))
		}
	}
	if want := slices.Compact(slices.Sorted(slices.Values(byPort[dragonfly.LinkGreen]))); !slices.Equal(green, want) {
		return fmt.Errorf("GreenNeighbors %v, the green ports lead to %v", green, want)
	}
	if want := slices.Compact(slices.Sorted(slices.Values(byPort[dragonfly.LinkBlack]))); !slices.Equal(black, want) {
		return fmt.Errorf("BlackNeighbors %v, the black ports lead to %v", black, want)
	}
	s.printf("green %d: %s", len(green), s.locs(green))
	s.printf("black %d, %d links each: %s", len(black), dragonfly.BlackLinksPerPeer, s.locs(black))
	if len(global) == 0 {
		s.printf("global: none of %d ports cabled", dragonfly.GlobalLinksPerAries)
		return nil
	}
	s.printf("global %d of %d ports cabled: %s", len(global), dragonfly.GlobalLinksPerAries, strings.Join(global, " "))
	return nil
}

// ports prints the link behind every network port of an Aries, or those
// of one class (class=green, black or global).
func (s *dragonflyScript) ports(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 1, "class")
	if err != nil {
		return err
	}
	for port := range dragonfly.NetworkPortsPerAries {
		class, _ := dragonfly.PortClass(port)
		if want, ok := c.KV["class"]; ok && class.String() != want {
			continue
		}
		h, ok, err := s.d.Link(as[0], port)
		if err != nil {
			return err
		}
		if !ok {
			s.printf("port %d %v: not cabled", port, class)
			continue
		}
		back, ok, err := s.d.Link(h.To, h.ToPort)
		if err != nil || !ok || back.To != h.From || back.ToPort != h.FromPort || back.Class != h.Class {
			return fmt.Errorf("port %d: %v does not come back (%v, %v, %v)", port, h, back, ok, err)
		}
		s.printf("port %d: %s", port, s.hop(h))
	}
	return nil
}

// groupArgs reads the scripttest.Command's two positional groups.
func (s *dragonflyScript) groupArgs(c scripttest.Command) (ga, gb int, err error) {
	if err := c.Expect(2); err != nil {
		return 0, 0, err
	}
	if ga, err = strconv.Atoi(c.Pos[0]); err == nil {
		gb, err = strconv.Atoi(c.Pos[1])
	}
	return ga, gb, err
}

// cables prints CablesBetween every pair of groups, a row a group.
func (s *dragonflyScript) cables(c scripttest.Command) error {
	if err := c.Expect(0); err != nil {
		return err
	}
	for ga := range s.d.Groups() {
		row := make([]string, s.d.Groups())
		total := 0
		for gb := range s.d.Groups() {
			n, err := s.d.CablesBetween(ga, gb)
			if err != nil {
				return err
			}
			row[gb] = strconv.Itoa(n)
			total += n
		}
		s.printf("g%d: %s (%d)", ga, strings.Join(row, " "), total)
	}
	s.printf("%s", plural(s.d.TotalCables(), "cable"))
	return nil
}

// bundle prints the global links between two groups, and the Aries of each
// group that own them.
func (s *dragonflyScript) bundle(c scripttest.Command) error {
	ga, gb, err := s.groupArgs(c)
	if err != nil {
		return err
	}
	cables, err := s.d.CablesBetween(ga, gb)
	if err != nil {
		return err
	}
	s.printf("groups %d and %d: %s, %s", ga, gb, plural(cables, "cable"), plural(cables*dragonfly.LinksPerCable, "link"))
	var owners [2][]int
	for i := range cables * dragonfly.LinksPerCable {
		h, err := s.d.GlobalLink(ga, gb, i)
		if err != nil {
			return err
		}
		back, err := s.d.GlobalLink(gb, ga, i)
		if err != nil || back.From != h.To || back.FromPort != h.ToPort || back.To != h.From || back.ToPort != h.FromPort {
			return fmt.Errorf("link %d: %v from %d, %v (%v) from %d", i, h, ga, back, err, gb)
		}
		s.printf("link %d (cable %d): %s", i, i/dragonfly.LinksPerCable, s.hop(h))
		owners[0] = append(owners[0], h.From)
		owners[1] = append(owners[1], h.To)
	}
	for k, g := range [2]int{ga, gb} {
		other := [2]int{gb, ga}[k]
		got, err := s.d.GlobalOwners(g, other)
		if err != nil {
			return err
		}
		if want := slices.Compact(slices.Sorted(slices.Values(owners[k]))); !slices.Equal(got, want) {
			return fmt.Errorf("GlobalOwners(%d, %d) = %v, the links start at %v", g, other, got, want)
		}
		s.printf("owners in group %d: %s", g, s.locs(got))
	}
	return nil
}

// printPath prints a path a hop a line, then its length by class.
func (s *dragonflyScript) printPath(p dragonfly.Path) {
	for _, h := range p {
		s.printf("%s", s.hop(h))
	}
	s.printf("%s: %d green, %d black, %d global",
		plural(len(p), "hop"), p.Count(dragonfly.LinkGreen), p.Count(dragonfly.LinkBlack), p.Count(dragonfly.LinkGlobal))
}

// minimal prints Minimal(src, dst, choice) and MinimalChoices.
func (s *dragonflyScript) minimal(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 2, "choice")
	if err != nil {
		return err
	}
	var choice uint64
	if err := choiceArgs(c, map[string]*uint64{"choice": &choice}); err != nil {
		return err
	}
	p, err := s.d.Minimal(as[0], as[1], choice)
	if err != nil {
		s.printf("error: %v", err)
		return nil
	}
	dragonflytest.CheckMinimal(s.t, s.d, as[0], as[1], p)
	s.printPath(p)
	n, err := s.d.MinimalChoices(as[0], as[1])
	if err != nil {
		return err
	}
	s.printf("choice %d of %d", choice, n)
	return nil
}

// via prints MinimalVia(src, dst, link, choice).
func (s *dragonflyScript) via(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 2, "link", "choice")
	if err != nil {
		return err
	}
	link := 0
	if err := c.Ints(map[string]*int{"link": &link}); err != nil {
		return err
	}
	var choice uint64
	if err := choiceArgs(c, map[string]*uint64{"choice": &choice}); err != nil {
		return err
	}
	p, err := s.d.MinimalVia(as[0], as[1], link, choice)
	if err != nil {
		s.printf("error: %v", err)
		return nil
	}
	dragonflytest.CheckMinimal(s.t, s.d, as[0], as[1], p)
	s.printPath(p)
	return nil
}

// valiant prints NonMinimal(src, dst, via, up, down), marking where it
// reaches the intermediate Aries.
func (s *dragonflyScript) valiant(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 2, "via", "up", "down")
	if err != nil {
		return err
	}
	via, err := s.ariesArg(c.KV["via"])
	if err != nil {
		return err
	}
	var up, down uint64
	if err := choiceArgs(c, map[string]*uint64{"up": &up, "down": &down}); err != nil {
		return err
	}
	p, err := s.d.NonMinimal(as[0], as[1], via, up, down)
	if err != nil {
		s.printf("error: %v", err)
		return nil
	}
	if err := s.checkValiant(as[0], as[1], via, up, p); err != nil {
		return err
	}
	upHops := len(s.minimalPath(as[0], via, up))
	for i, h := range p {
		mark := ""
		if i == upHops-1 {
			mark = " (via)"
		}
		s.printf("%s%s", s.hop(h), mark)
	}
	s.printf("%s: %d green, %d black, %d global; %d up, %d down",
		plural(len(p), "hop"), p.Count(dragonfly.LinkGreen), p.Count(dragonfly.LinkBlack), p.Count(dragonfly.LinkGlobal),
		upHops, len(p)-upHops)
	return nil
}

// minimalPath is Minimal for Aries known to be valid.
func (s *dragonflyScript) minimalPath(src, dst int, choice uint64) dragonfly.Path {
	return s.d.AppendMinimal(nil, src, dst, choice)
}

// checkValiant checks a non-minimal path: real links, at most
// MaxNonMinimalHops, through via after the minimal path up to it.
func (s *dragonflyScript) checkValiant(src, dst, via int, up uint64, p dragonfly.Path) error {
	dragonflytest.CheckPath(s.t, s.d, src, dst, p)
	first := s.minimalPath(src, via, up)
	if len(p) > dragonfly.MaxNonMinimalHops || !slices.Equal(p[:len(first)], first) {
		return fmt.Errorf("non-minimal path %v from %d to %d via %d: not the minimal path %v then down, or longer than %d",
			p, src, dst, via, first, dragonfly.MaxNonMinimalHops)
	}
	return nil
}

// candidates prints CandidateLinks from an Aries to a group, grouped by
// the Aries that owns them.
func (s *dragonflyScript) candidates(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 1, "group")
	if err != nil {
		return err
	}
	src := as[0]
	gd := -1
	if err := c.Ints(map[string]*int{"group": &gd}); err != nil {
		return err
	}
	srcLoc, _ := s.d.AriesLocation(src)
	cables, err := s.d.CablesBetween(srcLoc.Group, gd)
	if err != nil || cables == 0 {
		return fmt.Errorf("group=%d: no cables from group %d (%v)", gd, srcLoc.Group, err)
	}
	links := cables * dragonfly.LinksPerCable
	var buf [dragonfly.MaxCandidates]int
	n, all := s.d.CandidateLinks(src, gd, &buf)
	idx := buf[:n]
	if all {
		idx = make([]int, links)
		for i := range idx {
			idx[i] = i
		}
	}
	if all {
		s.printf("all %d links", links)
	} else {
		s.printf("%d of %d links", n, links)
	}
	var order []int
	byOwner := map[int][]string{}
	for _, i := range idx {
		h, err := s.d.GlobalLink(srcLoc.Group, gd, i)
		if err != nil {
			return err
		}
		if _, seen := byOwner[h.From]; !seen {
			order = append(order, h.From)
		}
		byOwner[h.From] = append(byOwner[h.From], strconv.Itoa(i))
	}
	slices.Sort(order)
	for _, a := range order {
		s.printf("%s, %s away: links %s", s.loc(a), plural(dragonfly.LocalDistance(src, a), "hop"), strings.Join(byOwner[a], " "))
	}
	return nil
}

// choices prints MinimalChoices and what the choices give: the distinct
// paths and their lengths.
func (s *dragonflyScript) choices(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 2)
	if err != nil {
		return err
	}
	n, err := s.d.MinimalChoices(as[0], as[1])
	if err != nil {
		return err
	}
	// Paths are told apart by their ports (so that lanes count) and,
	// coarser, by the Aries they visit (Path.String).
	byPorts, byAries := map[string]bool{}, map[string]bool{}
	var hist []int
	for choice := range uint64(n) {
		p := s.minimalPath(as[0], as[1], choice)
		dragonflytest.CheckMinimal(s.t, s.d, as[0], as[1], p)
		byAries[p.String()] = true
		key := fmt.Sprint([]dragonfly.Hop(p))
		if byPorts[key] {
			continue
		}
		byPorts[key] = true
		hist = count(hist, len(p))
	}
	s.printf("%d choices, %d distinct paths through %d distinct sequences of Aries", n, len(byPorts), len(byAries))
	s.printf("paths by hops%s", histogram(hist))
	return nil
}

// count adds one at index i of a histogram, growing it as needed.
func count(hist []int, i int) []int {
	for len(hist) <= i {
		hist = append(hist, 0)
	}
	hist[i]++
	return hist
}

// histogram formats a histogram as " hops:count" pairs, leaving out zeros.
func histogram(hist []int) string {
	var b strings.Builder
	for i, n := range hist {
		if n > 0 {
			fmt.Fprintf(&b, " %d:%d", i, n)
		}
	}
	return b.String()
}

// distances prints the lengths of the minimal paths (choice 0) from an
// Aries to every Aries of the system.
func (s *dragonflyScript) distances(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 1)
	if err != nil {
		return err
	}
	var hist []int
	for dst := range s.d.Aries() {
		p := s.minimalPath(as[0], dst, 0)
		dragonflytest.CheckMinimal(s.t, s.d, as[0], dst, p)
		hist = count(hist, len(p))
	}
	s.printf("Aries by hops%s", histogram(hist))
	return nil
}

// valiantLengths prints the lengths of the non-minimal paths (choices 0)
// between two Aries through every Aries of the system.
func (s *dragonflyScript) valiantLengths(c scripttest.Command) error {
	as, err := s.ariesArgs(c, 2)
	if err != nil {
		return err
	}
	var hist []int
	for via := range s.d.Aries() {
		p, err := s.d.NonMinimal(as[0], as[1], via, 0, 0)
		if err != nil {
			return err
		}
		if err := s.checkValiant(as[0], as[1], via, 0, p); err != nil {
			return err
		}
		hist = count(hist, len(p))
	}
	sixOrSeven := 0
	for h := 6; h <= 7 && h < len(hist); h++ {
		sixOrSeven += hist[h]
	}
	s.printf("vias by hops%s", histogram(hist))
	s.printf("6 or 7 hops: %.1f%%", 100*float64(sixOrSeven)/float64(s.d.Aries()))
	return nil
}

// gigabyte is a decimal gigabyte, the unit of the whitepaper's GB/s.
const gigabyte = 1e9

// bandwidth prints the current system's cables and global bandwidth, and
// with full groups its bisection.
func (s *dragonflyScript) bandwidth(c scripttest.Command) error {
	if err := c.Expect(0); err != nil {
		return err
	}
	s.printf("%s, global %.1f GB/s, %.2f GB/s per node",
		plural(s.d.TotalCables(), "cable"), s.d.GlobalBandwidth()/gigabyte, s.d.GlobalBandwidthPerNode()/gigabyte)
	if s.d.FullGroups() != s.d.Groups() {
		return nil
	}
	crossing, err := dragonfly.BisectionCables(s.d.Groups(), s.d.Bundle())
	if err != nil {
		return err
	}
	bw, err := dragonfly.BisectionBandwidth(s.d.Groups(), s.d.Bundle())
	if err != nil {
		return err
	}
	s.printf("bisection: %s crossing, %.1f GB/s", plural(crossing, "cable"), bw/gigabyte)
	return nil
}

// table prints the cables and bandwidths of systems of full groups:
// groups=G1,G2,... and bundle=B or bundle=max.
func (s *dragonflyScript) table(c scripttest.Command) error {
	if err := c.Expect(0, "groups", "bundle"); err != nil {
		return err
	}
	s.printf("%6s %6s %6s %8s %14s %11s %13s", "groups", "bundle", "cables", "crossing", "bisection GB/s", "global GB/s", "GB/s per node")
	for _, f := range strings.Split(c.KV["groups"], ",") {
		groups, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("groups=%s: want a list of numbers", c.KV["groups"])
		}
		bundle, err := dragonfly.MaxBundle(groups)
		if err != nil {
			return err
		}
		if c.KV["bundle"] != "max" {
			if err := c.Ints(map[string]*int{"bundle": &bundle}); err != nil {
				return err
			}
		}
		d, err := dragonfly.NewDragonfly(groups, bundle)
		if err != nil {
			s.printf("error: %v", err)
			continue
		}
		total, err := dragonfly.TotalCables(groups, d.Bundle())
		if err != nil {
			return err
		}
		if total != d.TotalCables() {
			return fmt.Errorf("%v: TotalCables %d, the system counts %d", d, total, d.TotalCables())
		}
		crossing, err := dragonfly.BisectionCables(groups, d.Bundle())
		if err != nil {
			return err
		}
		bw, err := dragonfly.BisectionBandwidth(groups, d.Bundle())
		if err != nil {
			return err
		}
		s.printf("%6d %6d %6d %8d %14.1f %11.1f %13.2f", groups, d.Bundle(), total, crossing,
			bw/gigabyte, d.GlobalBandwidth()/gigabyte, d.GlobalBandwidthPerNode()/gigabyte)
	}
	return nil
}

// groupBisection prints the links crossing a group's bisection and its
// bandwidth, for groups of 1 to ChassisPerGroup chassis.
func (s *dragonflyScript) groupBisection(c scripttest.Command) error {
	if err := c.Expect(0); err != nil {
		return err
	}
	s.printf("%7s %5s %5s %9s", "chassis", "green", "black", "GB/s")
	for chassis := 1; chassis <= dragonfly.ChassisPerGroup; chassis++ {
		green, black, err := dragonfly.GroupBisectionLinks(chassis)
		if err != nil {
			return err
		}
		bw, err := dragonfly.GroupBisectionBandwidth(chassis)
		if err != nil {
			return err
		}
		s.printf("%7d %5d %5d %9.1f", chassis, green, black, bw/gigabyte)
	}
	return nil
}

// efficiency prints PayloadEfficiency(bytes, flits).
func (s *dragonflyScript) efficiency(c scripttest.Command) error {
	if err := c.Expect(0, "bytes", "flits"); err != nil {
		return err
	}
	payload, flits := 0, 0
	if err := c.Ints(map[string]*int{"bytes": &payload, "flits": &flits}); err != nil {
		return err
	}
	eff, err := dragonfly.PayloadEfficiency(payload, flits)
	if err != nil {
		s.printf("error: %v", err)
		return nil
	}
	s.printf("%d bytes in %d flits: %.1f%% of the raw bandwidth", payload, flits, 100*eff)
	return nil
}
