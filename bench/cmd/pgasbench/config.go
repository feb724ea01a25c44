package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/pgas"
)

// knownSettings are the PGAS_* variables of the runtime.
func knownSettings() map[string]pgas.Setting {
	m := map[string]pgas.Setting{}
	for _, s := range pgas.Settings() {
		m[s.Env] = s
	}
	return m
}

// jobConfig builds the job configuration of the common flags. The
// runtime's settings come from --set over the process environment
// (Config.Env); the flags with a Config field (--conduit, --ordering,
// --option) win over both, as Config fields do.
func (a *app) jobConfig(o *options) (pgas.Config, error) {
	var cfg pgas.Config
	known := knownSettings()
	sets := map[string]string{}
	for _, k := range o.sets.keys {
		name := strings.ToUpper(k)
		if _, ok := known[name]; !ok {
			return cfg, usagef("--set %s: no such setting (see 'pgasbench help settings')", k)
		}
		sets[name] = o.sets.vals[k]
	}
	if o.given["seed"] {
		sets["PGAS_SEED"] = strconv.FormatUint(o.seed, 10)
	}
	cfg.Env = func(name string) (string, bool) {
		if v, ok := sets[name]; ok {
			return v, true
		}
		return a.lookupEnv(name)
	}
	if o.given["conduit"] || o.cmd.name == "ordering" {
		if _, err := conduit.Lookup(o.conduit); err != nil {
			return cfg, usagef("--conduit %s: not a registered backend (have %s)", o.conduit, strings.Join(conduit.Backends(), ", "))
		}
		cfg.Conduit = o.conduit
	}
	if o.given["ordering"] {
		ord, err := parseOrdering(o.ordering)
		if err != nil {
			return cfg, usagef("--ordering: %v", err)
		}
		cfg.Ordering = ord
	}
	// Backend options: PGAS_OPTIONS, then --option over it (Config.Options
	// replaces the variable entirely, so merge here).
	opts := map[string]string{}
	if v, ok := cfg.Env("PGAS_OPTIONS"); ok && v != "" {
		env, err := conduit.ParseOptions(v)
		if err != nil {
			return cfg, usagef("PGAS_OPTIONS=%q: %v", v, err)
		}
		opts = env
	}
	// A --option value is whole, commas included (keys of both are
	// trimmed).
	for k, v := range o.options.vals {
		opts[k] = v
	}
	if len(opts) > 0 {
		cfg.Options = opts
	}
	if err := checkConfig(cfg, o.nodes, o.ppn); err != nil {
		return cfg, usagef("%s", strings.TrimPrefix(err.Error(), "pgas: "))
	}
	return cfg, nil
}

// checkConfig validates a configuration before a long run: the runtime
// resolves every setting and the backend checks its options and topology
// (pgas.Config.Plan), for 2 PEs or the given topology, without starting a
// job. A job too large for the memory limit is refused here too.
func checkConfig(cfg pgas.Config, nodes, ppn int) error {
	c := cfg
	if nodes <= 0 {
		nodes = 2
	}
	if ppn <= 0 {
		ppn = 1
	}
	c.PEs, c.PEsPerNode = nodes*ppn, ppn
	if rc, err := c.Resolve(); err == nil && rc.Conduit == "mpi" {
		c.PEsPerNode = 0 // the MPI launcher places the processes
	}
	c.Report = nil
	if c.SegmentBytes == 0 {
		// A benchmark sizes its segments to its need; check the job as
		// it will run, not with the default 64 MiB.
		if v, ok := c.Env("PGAS_SEGMENT_SIZE"); !ok || strings.TrimSpace(v) == "" {
			c.SegmentBytes = pgas.MinSegmentBytes
		}
	}
	plan, err := c.Plan()
	if err != nil {
		return err
	}
	if !plan.Fits() {
		return plan.Refusal()
	}
	return nil
}

// setup builds the benchmark setup of the flags.
func (a *app) setup(o *options) (bench.Setup, error) {
	var s bench.Setup
	if err := o.positive("i", "x", "W", "nodes", "ppn"); err != nil {
		return s, err
	}
	mech, err := bench.ParseMechanism(o.mechanism)
	if err != nil {
		return s, usagef("--mechanism %s: want auto, fma or bte", o.mechanism)
	}
	cfg, err := a.jobConfig(o)
	if err != nil {
		return s, err
	}
	s = bench.Setup{Config: cfg, Nodes: o.nodes, PPN: o.ppn, Mechanism: mech, Window: o.window,
		Iterations: o.iters, Warmup: o.warmup, Unregistered: o.unregistered, Percentiles: o.percentiles}
	if a.terminal {
		name := o.cmd.name
		s.Progress = func(done, total int) {
			a.progress("%s: %d of %d measured", name, done, total)
		}
	}
	return s, nil
}

// settingsGiven are the --set values (and --seed) by variable name, for
// the output's record of the run.
func (o *options) settingsGiven() map[string]string {
	m := map[string]string{}
	for _, k := range o.sets.keys {
		m[strings.ToUpper(k)] = o.sets.vals[k]
	}
	if o.given["seed"] {
		m["PGAS_SEED"] = fmt.Sprint(o.seed)
	}
	return m
}
