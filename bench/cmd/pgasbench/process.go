package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"time"

	"github.com/gopgas/gopgas/bench/report"
	"github.com/gopgas/gopgas/pgas"
)

// procFlags are the process-level flags every subcommand takes: Go's
// profiles of pgasbench itself, and the repetitions of a benchmark.
type procFlags struct {
	cpuProfile, memProfile, execTrace string
	count                             int
	plotSize                          string  // --plot-size WxH, pixels
	plotDPI                           float64 // --plot-dpi
}

// define adds the flags to fs; count only for a command that runs a
// benchmark once per call.
func (p *procFlags) define(fs *flag.FlagSet, count bool) {
	fs.StringVar(&p.cpuProfile, "cpuprofile", "", "write a Go CPU profile of pgasbench to `FILE` (go tool pprof)")
	fs.StringVar(&p.memProfile, "memprofile", "", "write a Go heap profile of pgasbench, taken at the end, to `FILE` (go tool pprof)")
	fs.StringVar(&p.execTrace, "exectrace", "", "write Go's execution trace of pgasbench to `FILE` (go tool trace; not the simulated network's trace, which is --option trace=FILE)")
	if fs.Lookup("plot") != nil || fs.Lookup("plot-dir") != nil {
		d := report.PlotDefaults
		fs.StringVar(&p.plotSize, "plot-size", fmt.Sprintf("%.0fx%.0f", d.Width*d.DPI, d.Height*d.DPI), "size of the plots, `WxH` in pixels (a PNG's; an SVG is as large at --plot-dpi)")
		fs.Float64Var(&p.plotDPI, "plot-dpi", d.DPI, "dots per inch of the plots: the size of their text and lines against --plot-size")
	}
	if count {
		fs.IntVar(&p.count, "count", 1, "run the benchmark `N` times: on a simulated backend with the seeds seed, seed+1, ..., so that the spread is the model's randomness; on smp N repeats (for benchstat, with --format gobench)")
	}
}

// plotDefaults are the figures' size the flags ask for.
func (p *procFlags) plotDefaults() (report.PlotSize, error) {
	d := report.PlotDefaults
	if p.plotSize == "" && p.plotDPI == 0 {
		return d, nil
	}
	dpi := p.plotDPI
	if !(dpi >= 10 && dpi <= 1200) {
		return d, usagef("--plot-dpi %g: want 10 to 1200", p.plotDPI)
	}
	var w, h int
	if _, err := fmt.Sscanf(strings.ToLower(p.plotSize), "%dx%d", &w, &h); err != nil || w < 100 || h < 100 || w > 20000 || h > 20000 ||
		fmt.Sprintf("%dx%d", w, h) != strings.ToLower(p.plotSize) {
		return d, usagef("--plot-size %q: want WxH in pixels, each 100 to 20000 (1200x750)", p.plotSize)
	}
	return report.PlotSize{Width: float64(w) / dpi, Height: float64(h) / dpi, DPI: dpi}, nil
}

// counted says whether a command takes --count: the benchmarks.
func counted(cmd *command) bool { return cmd.name != "ordering" && cmd.name != "calibrate" }

// start starts the profiles asked for; stop ends them and writes the heap
// profile. Errors name the flag and the file.
func (p *procFlags) start() (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	for _, prof := range []struct {
		flag, path string
		begin, end func(f *os.File) error
	}{
		{"cpuprofile", p.cpuProfile, func(f *os.File) error { return pprof.StartCPUProfile(f) },
			func(*os.File) error { pprof.StopCPUProfile(); return nil }},
		{"exectrace", p.execTrace, func(f *os.File) error { return trace.Start(f) },
			func(*os.File) error { trace.Stop(); return nil }},
		// The heap as it is at the end, not as of the last collection.
		{"memprofile", p.memProfile, func(*os.File) error { return nil },
			func(f *os.File) error { runtime.GC(); return pprof.WriteHeapProfile(f) }},
	} {
		if prof.path == "" {
			continue
		}
		named := func(err error) error { return fmt.Errorf("--%s %s: %w", prof.flag, prof.path, err) }
		f, err := os.Create(prof.path)
		if err == nil {
			if err = prof.begin(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			_ = stop()
			return func() error { return nil }, named(err)
		}
		end := prof.end
		stops = append(stops, func() error {
			err := end(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return named(err)
			}
			return nil
		})
	}
	return stop, nil
}

// repeat runs a benchmark command p.count times; on a simulated backend
// run i has the seed base+i, where base is the seed the first run uses
// (--seed, PGAS_SEED, or the default).
func (a *app) repeat(ctx context.Context, cmd *command, o *options, p *procFlags) error {
	if p.count < 1 {
		return usagef("--count %d: must be at least 1", p.count)
	}
	if p.count == 1 {
		return cmd.run(a, ctx, o)
	}
	cfg, err := a.jobConfig(o)
	if err != nil {
		return err
	}
	c, err := cfg.Resolve()
	if err != nil {
		return usagef("%v", err)
	}
	simulated := c.Conduit != "smp" && c.Conduit != "mpi"
	a.count = p.count
	defer func() { a.index, a.count = 0, 0 }()
	for i := range p.count {
		a.index = i
		if simulated {
			o.seed, o.given["seed"] = c.Seed+uint64(i), true
		}
		if err := cmd.run(a, ctx, o); err != nil {
			return err
		}
		if ctx.Err() != nil {
			// Interrupted between two runs: the plot of those done.
			if err := a.drawRuns(o); err != nil {
				return err
			}
			return ctx.Err()
		}
	}
	return nil
}

// record fills what a run's record says beyond the command's setup: the
// seed the run used (cfg resolved), the flags given, the environment's
// PGAS_* variables, the run's place in --count and the provenance.
func (a *app) record(cfg pgas.Config, s *report.Setup) {
	s.Seed = seedUsed(cfg)
	s.Flags = maps.Clone(a.flags)
	s.Environment = a.pgasEnvironment()
	s.Index, s.Count = a.index, max(a.count, 1)
	s.Provenance = a.newProvenance()
}

// seedUsed is the seed a job of cfg runs with: its own, PGAS_SEED's or
// the default.
func seedUsed(cfg pgas.Config) uint64 {
	if c, err := cfg.Resolve(); err == nil {
		return c.Seed
	}
	return cfg.Seed
}

// pgasEnvironment are the PGAS_* variables of the environment, by name.
func (a *app) pgasEnvironment() map[string]string {
	env := map[string]string{}
	if a.lookupEnv == nil {
		return env
	}
	for _, st := range pgas.Settings() {
		if v, ok := a.lookupEnv(st.Env); ok && strings.TrimSpace(v) != "" {
			env[st.Env] = v
		}
	}
	return env
}

// invocation is what the command line and the environment asked, for the
// records of the commands that are not benchmarks (ordering, calibrate).
func (a *app) invocation(o *options) report.Invocation {
	return report.Invocation{Settings: o.settingsGiven(), Environment: a.pgasEnvironment(), Flags: maps.Clone(a.flags),
		Args: append([]string{o.cmd.name}, o.args()...)}.Filled()
}

// newProvenance is the provenance of the command's records: the build,
// the machine and the command's start, or the app's fixed one (tests
// whose output must be the same from run to run).
func (a *app) newProvenance() *report.Provenance {
	if a.provenance != nil {
		p := *a.provenance
		return &p
	}
	start := a.start
	if start.IsZero() {
		start = time.Now()
	}
	return report.NewProvenance(start)
}
