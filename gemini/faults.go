package gemini

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/gemini/torus"
	"github.com/gopgas/gopgas/internal/fabric"
)

// Failed and degraded torus connections: the fail option's faults, how
// they are written and read, and how they are applied to the job's
// connections. A connection that fails in the run under deterministic
// routing makes the management software re-route ([GEMINI-WP] 3.1); the
// re-routed tables are in routing.go.

// linkFault is a failed or degraded connection: links of connection conn
// of Gemini gemini towards its neighbour in dim and dir (0: all of them,
// the connection fails), from the start of the job, or from time at when
// timed.
type linkFault struct {
	gemini int
	dim    torus.Dim
	dir    torus.Dir
	conn   int
	links  int // links of the connection that failed; 0 means all
	timed  bool
	at     Time
}

// String formats the fault as the fail option gives it.
func (f linkFault) String() string {
	s := fmt.Sprintf("%d:%v:%v:%d", f.gemini, f.dim, f.dir, f.conn)
	if f.links > 0 {
		s += fmt.Sprintf(":%d", f.links)
	}
	if f.timed {
		s += "@" + fabric.FormatFaultTime(f.at)
	}
	return s
}

// parseFaults parses the fail option: gemini:dim:dir:conn[:links][@time]
// separated by ';', where time (a Go duration of simulated time: 20us,
// 1.5ms) is when the connection fails in the middle of the run; without
// it the connection has failed from the start.
func parseFaults(v string) ([]linkFault, error) {
	var out []linkFault
	for _, f := range strings.Split(v, ";") {
		spec, when, timed := strings.Cut(f, "@")
		parts := strings.Split(spec, ":")
		if len(parts) != 4 && len(parts) != 5 {
			return nil, fmt.Errorf("fault %q is not gemini:dim:dir:conn[:links][@time]", f)
		}
		var lf linkFault
		var err error
		if lf.gemini, err = strconv.Atoi(parts[0]); err != nil || lf.gemini < 0 {
			return nil, fmt.Errorf("fault %q: gemini %q", f, parts[0])
		}
		var ok bool
		if lf.dim, ok = torus.ParseDim(parts[1]); !ok {
			return nil, fmt.Errorf("fault %q: dimension %q", f, parts[1])
		}
		if lf.dir, ok = torus.ParseDir(parts[2]); !ok {
			return nil, fmt.Errorf("fault %q: direction %q", f, parts[2])
		}
		if lf.conn, err = strconv.Atoi(parts[3]); err != nil || lf.conn < 0 {
			return nil, fmt.Errorf("fault %q: connection %q", f, parts[3])
		}
		if len(parts) == 5 {
			if lf.links, err = strconv.Atoi(parts[4]); err != nil || lf.links < 1 || lf.links > torus.LinksPerConnection {
				return nil, fmt.Errorf("fault %q: links %q (1..%d)", f, parts[4], torus.LinksPerConnection)
			}
		}
		if timed {
			if lf.at, err = fabric.ParseFaultTime(when); err != nil {
				return nil, fmt.Errorf("fault %q: %v", f, err)
			}
			lf.timed = true
		}
		out = append(out, lf)
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

// applyFaults marks failed connections (all links down: adaptive traffic
// avoids them, deterministic traffic through them is lost) and degraded
// ones (some links down: the rest carry the traffic more slowly); a timed
// fault happens at its time in the run (fabric.Machine.FailAt, DegradeAt),
// when under deterministic routing the management software re-routes.
func (w *network) applyFaults(m *fabric.Machine) error {
	for _, f := range w.opts.faults {
		if f.gemini < 0 || f.gemini >= len(w.routers) {
			return fmt.Errorf("gemini: option fail: fault %v: Gemini %d outside the %d-Gemini torus", f, f.gemini, len(w.routers))
		}
		conns := w.out[f.gemini][f.dim][f.dir.Index()]
		if f.conn >= len(conns) {
			return fmt.Errorf("gemini: option fail: fault %v: connection %d of Gemini %d %v%v, which has %d", f, f.conn, f.gemini, f.dim, f.dir, len(conns))
		}
		c := conns[f.conn]
		whole := f.links == 0 || f.links >= torus.LinksPerConnection
		switch {
		case whole && f.timed:
			m.FailAt(f.at, c)
		case whole:
			c.Fail()
		case f.timed:
			m.DegradeAt(f.at, torus.LinksPerConnection-f.links, c)
		default:
			c.Degrade(torus.LinksPerConnection - f.links)
		}
	}
	return nil
}
