package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gopgas/gopgas/bench"
	"github.com/gopgas/gopgas/internal/units"
)

// ombSet says which of OSU 7.4's further options a benchmark takes, as
// its OSU counterpart does (and -b on the one-sided bandwidth tests,
// whose OSU counterparts have one layout: single).
type ombSet uint16

const (
	ombBuffers  ombSet = 1 << iota // -b/--buffer-num
	ombValWarm                     // -u/--validation-warmup
	ombType                        // -T/--type
	ombWindow                      // -w/--win-options, -s/--sync-option
	ombInPlace                     // -l/--in-place
	ombMemLimit                    // -M/--mem-limit
	ombTestCall                    // -t/--num-test-calls
	ombGraph                       // -G/--graph
	ombDDT                         // -D/--ddt
	ombGPU                         // -d/--accelerator, -a/--array-size
	ombMBWMR                       // -p/--num-pairs, -R/--print-rate, -V/--vary-window
)

// ombExtra holds the values of those options.
type ombExtra struct {
	buffers, dtype, win, sync, memLimit, testCalls, graph, ddt string
	valWarmup                                                  int
	inPlace                                                    bool
	pairs, printRate                                           int
	varyWindow                                                 bool
	// Options of OSU's that cannot apply to gopgas: given, they are
	// refused.
	accel, arraySize, papi string
	session                bool
}

// validationFlag is -c: without a value, validation; "log" or "log:DIR"
// (-clog:DIR, --validation=log:DIR) also writes the failures into DIR
// (OSU's default: validation_output), as OSU's optional argument.
type validationFlag struct {
	on  *bool
	dir *string
}

func (v *validationFlag) String() string {
	if v == nil || v.on == nil || !*v.on {
		return ""
	}
	if *v.dir != "" {
		return "log:" + *v.dir
	}
	return "true"
}

func (v *validationFlag) IsBoolFlag() bool { return true }

func (v *validationFlag) Set(s string) error {
	switch s {
	case "true":
		*v.on = true
		return nil
	case "false":
		*v.on, *v.dir = false, ""
		return nil
	}
	rest, ok := strings.CutPrefix(s, "log")
	if !ok || (rest != "" && !strings.HasPrefix(rest, ":")) {
		return fmt.Errorf("%q: want log or log:DIR", s)
	}
	dir := strings.TrimPrefix(rest, ":")
	if dir == "" {
		dir = "validation_output"
	}
	*v.on, *v.dir = true, dir
	return nil
}

// validationLogFlag defines -c with OSU's log:DIR argument.
func validationLogFlag(o *options, fs *flag.FlagSet) {
	v := &validationFlag{on: &o.validate, dir: &o.valLog}
	usage := "validate the received data; adds OSU's Validation column (Pass or Fail); the clock is then read around every iteration, the check outside it. -clog:DIR (--validation=log:DIR; DIR defaults to validation_output, which must not exist) also writes each failed buffer into DIR/log-RANK.log as OSU does: a Size/Iteration/Datatype line, then Position, Expected, Actual per wrong element"
	fs.Var(v, "c", usage)
	fs.Var(v, "validation", "same as -c")
}

// ombFlags defines the options of set.
func ombFlags(o *options, fs *flag.FlagSet, set ombSet) {
	x := &o.omb
	both := func(p *string, short, long, def, usage string) {
		fs.StringVar(p, short, def, usage)
		fs.StringVar(p, long, def, "same as -"+short)
	}
	switch {
	case set&ombBuffers != 0 && set&ombWindow != 0:
		both(&x.buffers, "b", "buffer-num", "single", "buffers (gopgas's; OSU's one-sided tests have only single): single (every operation of a window from and to the same bytes, as OSU's) or multiple (a distinct slot per operation of a window on both sides, up to 64 MiB per window)")
	case set&ombBuffers != 0:
		both(&x.buffers, "b", "buffer-num", "single", "buffers: single (one send and one receive buffer for every message, OSU's default) or multiple (buffers allocated afresh for each size and, in the bandwidth tests, one per message of a window, up to 64 MiB per window)")
	}
	if set&ombValWarm != 0 {
		fs.IntVar(&x.valWarmup, "u", bench.DefaultValidationWarmup, "under -c, untimed repetitions of every iteration before its timed run, as OSU's")
		fs.IntVar(&x.valWarmup, "validation-warmup", bench.DefaultValidationWarmup, "same as -u")
	}
	if set&ombType != 0 {
		both(&x.dtype, "T", "type", "mpi_char", "element type: mpi_char (bytes), mpi_int or mpi_float (4 bytes), or all (each in turn, a table each, as OSU). gopgas moves the same bytes whatever the type; the type sets the elements per message (sizes below one element are skipped) and what -c writes and checks, element by element")
	}
	if set&ombWindow != 0 {
		both(&x.win, "w", "win-options", "allocate", "window creation: allocate (the origin's buffer in the symmetric segment, PE.Alloc), create (program memory registered once, PE.Pin) or dynamic (program memory registered for each size and released after it); the target's side is always the segment, the only remotely accessible memory of gopgas")
		both(&x.sync, "s", "sync-option", "", "synchronization of each epoch (an operation in the latency tests, a window in the bandwidth tests): flush (wait for remote completion), flush_local (pgas has no local-only completion: waits as flush), lock (a pgas.Lock held around the epoch), lock_all (an access region, BeginRegion/EndRegion, of implicit-handle operations), pscw (post/start/complete/wait by flags the two PEs raise at each other), fence (a barrier of the two PEs closing each epoch); default OSU's: flush, put_bibw pscw (it takes only pscw and fence)")
	}
	if set&ombInPlace != 0 {
		fs.BoolVar(&x.inPlace, "l", false, "in place (MPI_IN_PLACE): the result overwrites the input buffer")
		fs.BoolVar(&x.inPlace, "in-place", false, "same as -l")
	}
	if set&ombMemLimit != 0 {
		both(&x.memLimit, "M", "mem-limit", "", "per-PE memory limit `SIZE` (K, M, G binary): as OSU, the largest message is lowered to what fits, and a limit nothing fits in is refused")
	}
	if set&ombTestCall != 0 {
		both(&x.testCalls, "t", "num-test-calls", "", "accepted and ignored, as OSU's blocking point-to-point tests do (it sets the test calls of non-blocking collectives and the threads of the multi-threaded tests)")
	}
	if set&ombGraph != 0 {
		both(&x.graph, "G", "graph", "", "draw the per-iteration values of every size against the iteration, as OSU: tty (an ASCII chart per size after the output), png (osu_NAME-SIZE.png per size) or pdf (osu_NAME.pdf, a page per size), the files in the current directory; the clock is then read around every iteration")
	}
	if set&ombDDT != 0 {
		both(&x.ddt, "D", "ddt", "", "a non-contiguous layout `TYPE[:ARGS]` of the message's bytes, as OSU's derived datatypes: cont, vect:STRIDE:BLOCK (a block of BLOCK bytes every STRIDE bytes) or indx:FILE (a DISPLACEMENT,LENGTH line per block); gopgas has no datatypes, so the sender packs the layout into a contiguous message and the receiver unpacks it, as an MPI library does over shared memory, both in the time; adds OSU's Transmit Size column (the bytes a message carries, which the bandwidth counts); not with -c")
	}
	if set&ombMBWMR != 0 {
		fs.IntVar(&x.pairs, "p", 0, "`PAIRS` of senders and receivers: PE i < PAIRS sends to PE i + PAIRS, the PEs from 2 x PAIRS on only join the barriers; 1 to half the PEs (default half). OSU 7.4 parses -p but then sets the pairs to half the processes; gopgas uses the value")
		fs.IntVar(&x.pairs, "num-pairs", 0, "same as -p")
		fs.IntVar(&x.printRate, "R", 1, "print the message rate: 1 (the Messages/s column, OSU's default) or 0 (leave it out)")
		fs.IntVar(&x.printRate, "print-rate", 1, "same as -R")
		fs.BoolVar(&x.varyWindow, "V", false, "vary the window: every size with windows 1, 2, 4 ... 128 in turn (a job each), printed as OSU's matrices (bandwidth, then unless -R 0 the message rate; a row per size, a column per window); OSU text only, not with -c, -z, -G or -T all")
		fs.BoolVar(&x.varyWindow, "vary-window", false, "same as -V")
	}
	if set&ombGPU != 0 {
		both(&x.arraySize, "a", "array-size", "", "not applicable (GPU arrays): refused")
	}
	both(&x.accel, "d", "accelerator", "", "not applicable (gopgas has no accelerator memory): refused")
	both(&x.papi, "P", "papi", "", "not applicable (no PAPI counters in gopgas): refused")
	fs.BoolVar(&x.session, "I", false, "not applicable (MPI sessions; gopgas starts its PEs itself): refused")
	fs.BoolVar(&x.session, "session", false, "same as -I")
}

// ombAliases are the long names of these options by their short name.
var ombAliases = [][2]string{{"b", "buffer-num"}, {"u", "validation-warmup"}, {"T", "type"}, {"w", "win-options"},
	{"s", "sync-option"}, {"l", "in-place"}, {"M", "mem-limit"}, {"t", "num-test-calls"}, {"G", "graph"}, {"D", "ddt"},
	{"a", "array-size"}, {"d", "accelerator"}, {"P", "papi"}, {"I", "session"},
	{"p", "num-pairs"}, {"R", "print-rate"}, {"V", "vary-window"}}

// applyOMB checks the options and sets them on s; it returns the element
// types to run (several for -T all) and the largest size -M allows (0:
// no limit).
func (o *options) applyOMB(s *bench.Setup) (types []bench.Datatype, err error) {
	x := &o.omb
	for _, na := range []struct {
		short, long, value, why string
	}{
		{"d", "accelerator", x.accel, "gopgas has no accelerator (GPU) memory"},
		{"a", "array-size", x.arraySize, "it sizes GPU arrays, and gopgas has no accelerator memory"},
		{"P", "papi", x.papi, "gopgas reads no PAPI hardware counters"},
	} {
		if o.given[na.short] || o.given[na.long] {
			return nil, usagef("-%s %s: does not apply to gopgas: %s", na.short, na.value, na.why)
		}
	}
	if x.session {
		return nil, usagef("-I: does not apply to gopgas: MPI sessions choose how MPI starts, and gopgas starts its PEs itself")
	}
	if o.given["D"] {
		if s.Layout, err = bench.ParseLayout(x.ddt, os.ReadFile); err != nil {
			return nil, usagef("-D %s: %v", x.ddt, strings.TrimPrefix(err.Error(), "bench: "))
		}
		if o.cmd.name == "bcast" || o.cmd.name == "alltoall" {
			return nil, usagef("-D %s: not done for the collectives in gopgas (the two-sided tests take it)", x.ddt)
		}
		if o.validate {
			return nil, usagef("-D %s: a derived datatype does not support validation (-c), as OSU's", x.ddt)
		}
		if o.given["T"] && x.dtype != "mpi_char" {
			return nil, usagef("-D %s: the layout is in bytes (MPI_CHAR), as OSU's; -T %s does not combine with it", x.ddt, x.dtype)
		}
	}
	if o.given["b"] {
		if s.Buffers, err = bench.ParseBuffers(x.buffers); err != nil {
			return nil, usagef("-b %s: want single or multiple", x.buffers)
		}
	} else if ombSets[o.cmd.name]&ombBuffers != 0 {
		s.Buffers = bench.BuffersSingle
	}
	if o.given["R"] && x.printRate != 0 && x.printRate != 1 {
		return nil, usagef("-R %d: want 0 or 1", x.printRate)
	}
	if o.given["p"] {
		if x.pairs < 1 {
			return nil, usagef("-p %d: want at least 1 pair", x.pairs)
		}
		if n := o.pes(2, 1); o.conduit != "mpi" && x.pairs > n/2 {
			return nil, usagef("-p %d: more pairs than half the %d PEs", x.pairs, n)
		}
		s.Pairs = x.pairs
	}
	if x.varyWindow {
		switch {
		case o.validate || o.percentiles || o.given["G"]:
			return nil, usagef("-V: prints OSU's matrices of figures alone; not with -c, -z or -G")
		case o.format != "osu":
			return nil, usagef("-V: the matrices are OSU's text; --format %s records one window", o.format)
		case o.given["T"] && strings.ToLower(x.dtype) == "all":
			return nil, usagef("-V: one element type at a time (-T all is not taken with it)")
		}
		s.VaryWindow = true
	}
	if o.given["u"] && x.valWarmup < 0 {
		return nil, usagef("-u %d: must be at least 0", x.valWarmup)
	}
	s.ValidationWarmup = x.valWarmup
	if o.valLog != "" {
		if _, err := os.Stat(o.valLog); err == nil {
			return nil, usagef("-c log:%s: %s already exists; name a new directory, as OSU asks", o.valLog, o.valLog)
		}
		s.ValidationLog = o.valLog
	}
	types = []bench.Datatype{bench.Char}
	if o.given["T"] {
		if strings.ToLower(x.dtype) == "all" {
			types = bench.Datatypes
		} else {
			t, err := bench.ParseDatatype(x.dtype)
			if err != nil {
				return nil, usagef("-T %s: want mpi_char, mpi_int, mpi_float or all", x.dtype)
			}
			types = []bench.Datatype{t}
		}
		if strings.HasSuffix(o.cmd.name, "_latency") && o.cmd.name != "latency" && (len(types) != 1 || types[0] != bench.Int) {
			return nil, usagef("-T %s: pgas's atomics are on 32- and 64-bit words: only mpi_int (int32) maps; without -T the word is an int64", x.dtype)
		}
	}
	s.Typed = o.given["T"]
	if o.given["w"] {
		if s.Win, err = bench.ParseWinKind(x.win); err != nil {
			return nil, usagef("-w %s: want create, allocate or dynamic", x.win)
		}
	}
	if o.cmd.name == "put_bibw" {
		s.Sync = bench.SyncPSCW // OSU's default there
	}
	if o.given["s"] {
		if s.Sync, err = bench.ParseSyncKind(x.sync); err != nil {
			return nil, usagef("-s %s: want lock, flush, flush_local, lock_all, pscw or fence", x.sync)
		}
		if o.cmd.name == "put_bibw" && s.Sync != bench.SyncPSCW && s.Sync != bench.SyncFence {
			return nil, usagef("-s %s: put_bibw takes pscw or fence, as OSU's", x.sync)
		}
	}
	s.InPlace = x.inPlace
	if o.format != "osu" && len(types) > 1 {
		return nil, usagef("-T %s: one table per type is OSU's text; --format %s records one type, so give one", x.dtype, o.format)
	}
	if o.format != "osu" && x.graph == "tty" {
		return nil, usagef("-G tty: the chart follows OSU's text; with --format %s use -G png or pdf", o.format)
	}
	if o.given["G"] {
		switch x.graph {
		case "tty", "png", "pdf":
			s.Graph = true
		default:
			return nil, usagef("-G %s: want tty, png or pdf", x.graph)
		}
	}
	return types, nil
}

// OSU's -M bounds: its default per-process limit and the least it takes
// (a smaller one is raised to it, with a warning).
const (
	memLimitDefault = 512 << 20
	memLimitLeast   = 1 << 20
)

// memLimited applies -M as OSU does: the collective's largest message is
// lowered to what the limit holds (alltoall: the limit over the number
// of PEs, its buffers holding a block per PE; bcast and allreduce: the
// limit). It returns the sizes kept and the warnings OSU prints.
func (o *options) memLimited(sizes []int) (kept []int, warnings []string, err error) {
	limit := int64(memLimitDefault)
	if o.given["M"] {
		n, err := units.ParseBytes(o.omb.memLimit)
		if err != nil || n <= 0 {
			return nil, nil, usagef("-M %s: want a positive size (K, M, G binary)", o.omb.memLimit)
		}
		limit = n
		if limit < memLimitLeast {
			limit = memLimitLeast
			warnings = append(warnings, fmt.Sprintf("-M %s: the limit is too low, using %d instead, as OSU", o.omb.memLimit, limit))
		}
	}
	most := limit
	if o.cmd.name == "alltoall" {
		most = limit / int64(o.pes(2, 4))
	}
	for _, sz := range sizes {
		if int64(sz) <= most {
			kept = append(kept, sz)
		}
	}
	if len(kept) < len(sizes) {
		warnings = append(warnings, fmt.Sprintf("-M: limiting the largest message to %d bytes; raise -M (--mem-limit) for larger ones", most))
	}
	return kept, warnings, nil
}

// pes is the number of PEs of the run, with the benchmark's default
// nodes and PEs per node.
func (o *options) pes(nodes, ppn int) int {
	if o.nodes > 0 {
		nodes = o.nodes
	}
	if o.ppn > 0 {
		ppn = o.ppn
	}
	return nodes * ppn
}
