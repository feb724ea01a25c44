package aries

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/internal/fabric"
)

// Failed and degraded links (the fail option): their specification, their
// application to the job's links, and the new routing tables the HSS puts
// into effect when a link fails in the run under deterministic routing
// ([ARIES-WP] Network Reliability, Availability and Serviceability). The
// routing goes round failed links (routing.go: cost, detour,
// workingCandidates).

// linkFault is a failed or degraded link: the link leaving Aries aries by
// network port port, with lanes lanes still working (1 or 2), or failed in
// both directions if lanes is 0; from the start of the job, or from time
// at when timed.
type linkFault struct {
	aries, port, lanes int
	timed              bool
	at                 Time
}

// String formats the fault as the fail option gives it.
func (f linkFault) String() string {
	s := fmt.Sprintf("%d:%d", f.aries, f.port)
	if f.lanes > 0 {
		s += fmt.Sprintf(":%d", f.lanes)
	}
	if f.timed {
		s += "@" + fabric.FormatFaultTime(f.at)
	}
	return s
}

// parseFaults parses the fail option: "aries:port[:lanes][@time]"
// separated by ';', port 0..NetworkPortsPerAries-1 in the topology's
// numbering (FirstGreenPort), lanes 1..LanesPerLink-1, time (a Go
// duration of simulated time: 50us, 1.5ms) when the link fails or
// degrades in the middle of the run; without it, from the start.
func parseFaults(s string) ([]linkFault, error) {
	var out []linkFault
	for _, item := range strings.Split(s, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		spec, when, timed := strings.Cut(item, "@")
		parts := strings.Split(spec, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("link %q: not aries:port[:lanes][@time]", item)
		}
		var f linkFault
		var err error
		if f.aries, err = strconv.Atoi(strings.TrimSpace(parts[0])); err != nil || f.aries < 0 {
			return nil, fmt.Errorf("link %q: Aries %q is not a non-negative integer", item, parts[0])
		}
		if f.port, err = strconv.Atoi(strings.TrimSpace(parts[1])); err != nil || f.port < 0 || f.port >= NetworkPortsPerAries {
			return nil, fmt.Errorf("link %q: port %q is not 0 to %d", item, parts[1], NetworkPortsPerAries-1)
		}
		if len(parts) == 3 {
			if f.lanes, err = strconv.Atoi(strings.TrimSpace(parts[2])); err != nil || f.lanes < 1 || f.lanes >= LanesPerLink {
				return nil, fmt.Errorf("link %q: working lanes %q are not 1 to %d", item, parts[2], LanesPerLink-1)
			}
		}
		if timed {
			if f.at, err = fabric.ParseFaultTime(strings.TrimSpace(when)); err != nil {
				return nil, fmt.Errorf("link %q: %v", item, err)
			}
			f.timed = true
		}
		out = append(out, f)
	}
	return out, nil
}

// formatFaults writes faults as the fail option reads them.
func formatFaults(fs []linkFault) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, ";")
}

// parseFailOption is the fail option: parseFaults, which skips empty
// items, and at least one link.
func parseFailOption(s string) ([]linkFault, error) {
	f, err := parseFaults(s)
	if err == nil && len(f) == 0 {
		err = fmt.Errorf("no link")
	}
	return f, err
}

// applyFaults fails links (both directions: adaptive traffic avoids them,
// deterministic traffic through them is lost) and degrades others (both
// directions carry the traffic on the working lanes, more slowly); a
// timed fault happens at its time in the run (fabric.Machine.FailAt,
// DegradeAt), when under deterministic routing the HSS re-routes.
func (rt *routing) applyFaults(m *fabric.Machine, faults []linkFault) error {
	for _, f := range faults {
		if f.aries >= len(rt.out) {
			return fmt.Errorf("aries: option fail: link %v: Aries %d outside the %d Aries of %v", f, f.aries, len(rt.out), rt.df)
		}
		c := rt.out[f.aries][f.port]
		if c == nil {
			return fmt.Errorf("aries: option fail: link %v: port %d of Aries %d is not cabled in %v", f, f.port, f.aries, rt.df)
		}
		h, _, _ := rt.df.Link(f.aries, f.port)
		back := rt.out[h.To][h.ToPort]
		switch {
		case f.lanes == 0 && f.timed:
			m.FailAt(f.at, c, back)
		case f.lanes == 0:
			c.Fail()
			back.Fail()
		case f.timed:
			m.DegradeAt(f.at, f.lanes, c, back)
		default:
			c.Degrade(f.lanes)
			back.Degrade(f.lanes)
		}
	}
	return nil
}

// Reroute puts the HSS's new routing tables into effect
// (network.Reroute): from now on deterministic routes avoid every failed
// link, and a deterministic packet whose route meets one is taken round it
// (detour); the global links a minimal route may take towards a group are
// the nearest that work (workingCandidates), for adaptive routes too.
func (rt *routing) Reroute() {
	rt.newTables = true
	rt.candWorking = nil
}
