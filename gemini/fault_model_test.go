package gemini_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/gemini"
	"github.com/gopgas/gopgas/internal/integrity"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/pgas"
)

// Links failing in the middle of a run (the fail option with @time): the
// integrity program's puts, gets and fetch-adds all arrive, once, and
// every byte is right. 8 PEs on 8 nodes are Geminis 0 to 3 of the torus,
// neighbours in x; Gemini 0's +x connections carry much of the traffic.

// faultCfg is the job of the fault tests.
func faultCfg(opts map[string]string) pgas.Config {
	return gem(8, 1, 0, opts)
}

// faultCase is one run with links failing at fractions of the run's
// length without them.
type faultCase struct {
	routing string
	fail    string  // the fail option, with %s where the time goes
	at      float64 // fraction of the healthy run's end
	short   bool    // runs under -short
}

// faultFigures logs what a fault run did and cost.
func faultFigures(t *testing.T, name string, res integrity.Result, rep, healthy pgas.Report) {
	t.Helper()
	t.Logf("%s: %s", name, integrity.FaultSummary(res, rep, healthy))
}

func TestIntegrityWithLinksFailingMidRun(t *testing.T) {
	race.SkipStudy(t)
	p := integrity.Params{MinBytes: 8, MaxBytes: 32 << 10, Factor: 8, Adds: 16, Rounds: 1}
	big := p
	big.MaxBytes = 256 << 10
	cases := []faultCase{
		{"adaptive", "0:x:+:0@%s", 0.3, true},
		{"deterministic", "0:x:+:0@%s;0:x:+:1@%s", 0.3, true},
		{"by-order", "1:x:+:1@%s;2:x:-:0@%s", 0.6, true},
		// Both of Gemini 0's +x connections: adaptive routing has no
		// minimal way to Gemini 1 until the new tables take it round.
		{"adaptive", "0:x:+:0@%s;0:x:+:1@%s", 0.5, false},
		{"deterministic", "0:x:+:0@%s;1:x:+:0@%s;2:x:+:1@%s", 0.8, false},
	}
	healthy := map[string]pgas.Report{}
	var lost, retries int64
	for _, c := range cases {
		if testing.Short() && !c.short {
			continue
		}
		p := p
		if !c.short {
			p = big // the program's sizes, to 256 KiB
		}
		key := fmt.Sprint(c.routing, p.MaxBytes)
		h, ok := healthy[key]
		if !ok {
			_, rep, err := integrity.Job(faultCfg(map[string]string{"routing": c.routing}), p)
			require.NoError(t, err)
			h, healthy[key] = rep, rep
		}
		at := fmt.Sprintf("%dns", int64(float64(h.End)*c.at)/int64(conduit.Nanosecond))
		fail := strings.ReplaceAll(c.fail, "%s", at)
		name := fmt.Sprintf("routing=%s,fail=%s", c.routing, fail)
		res, rep, err := integrity.Job(faultCfg(map[string]string{"routing": c.routing, "fail": fail}), p)
		require.NoError(t, err, name)
		faultFigures(t, name, res, rep, h)
		assert.Equal(t, int64(strings.Count(fail, "@")), rep.Counters["link_failures"], "%s: the links failed during the run", name)
		assert.Equal(t, p.Bytes(res.PEs), res.BytesChecked, "%s: every byte checked", name)
		if c.routing != "adaptive" {
			assert.Positive(t, rep.Counters["reroutes"], "%s: the network was re-routed", name)
			assert.GreaterOrEqual(t, rep.Counters["quiesce_ns"], int64(gemini.ReroutePause/conduit.Nanosecond), "%s: quiesced for the pause", name)
		} else {
			assert.Zero(t, rep.Counters["quiesce_ns"], "%s: adaptive routing quiesces nothing", name)
		}
		lost += rep.Counters["lost_packets"]
		retries += res.Retries
	}
	assert.Positive(t, lost, "packets were lost")
	assert.Positive(t, retries, "transfers were retried")
}

// An AMO whose response is lost is retried and answered from the target's
// record, not applied twice: links fail at times spread over the
// fetch-adds of a run made mostly of them; every run's counters are right
// (integrity checks the totals and that every fetched value is distinct),
// and some of the retries were answered from the record.
func TestAMOsExactlyOnceAcrossFailures(t *testing.T) {
	race.SkipStudy(t)
	p := integrity.Params{MinBytes: 8, MaxBytes: 512, Factor: 8, Adds: 64, Rounds: 1}
	_, healthy, err := integrity.Job(faultCfg(map[string]string{"routing": "adaptive"}), p)
	require.NoError(t, err)
	const times = 16
	var replays, retries int64
	for i := range times {
		// The second half of the run is the fetch-adds.
		at := int64(healthy.End) / 1000 * int64(times+i) / int64(2*times)
		fail := fmt.Sprintf("0:x:+:0@%dns", at)
		res, rep, err := integrity.Job(faultCfg(map[string]string{"routing": "adaptive", "fail": fail}), p)
		require.NoError(t, err, fail)
		if rep.Counters["lost_packets"] > 0 {
			faultFigures(t, fail, res, rep, healthy)
		}
		replays += rep.Counters["amo_replays"]
		retries += res.Retries
	}
	assert.Positive(t, retries, "AMOs were retried")
	assert.Positive(t, replays, "retried AMOs were answered from the record")
}

// A re-route pause longer than the transaction timeout times nothing out:
// the NICs' timers stand still while the network is quiesced. The
// connection (y) fails before the job's first packet, so nothing is lost,
// and the job's transfers, posted during the pause, may not be retried.
func TestQuiesceHoldsTimeouts(t *testing.T) {
	p := integrity.Params{MinBytes: 8, MaxBytes: 4096, Factor: 8, Adds: 8, Rounds: 1}
	pause := 2 * gemini.TransactionTimeout
	_, healthy, err := integrity.Job(faultCfg(map[string]string{"routing": "deterministic"}), p)
	require.NoError(t, err)
	opts := map[string]string{"routing": "deterministic", "reroute_pause": fmt.Sprintf("%dns", int64(pause/conduit.Nanosecond)),
		"fail": "0:y:+:0@1ns"}
	res, rep, err := integrity.Job(faultCfg(opts), p)
	require.NoError(t, err)
	faultFigures(t, opts["fail"], res, rep, healthy)
	assert.Zero(t, rep.Counters["lost_packets"])
	assert.Zero(t, res.Retries, "no spurious timeout during the pause")
	assert.Equal(t, int64(pause/conduit.Nanosecond), rep.Counters["quiesce_ns"])
	assert.Greater(t, rep.End, healthy.End+pause, "the job paused")
}

// A Gemini cut off from the network in the middle of a run (every
// connection out of it fails): its packets have no route at all and are
// dropped, as before; the runtime's retries end in an error naming the
// timeout rather than a hang.
func TestPartitionFailsWithTimeout(t *testing.T) {
	var cut []string
	for _, c := range []string{"x:+:0", "x:+:1", "x:-:0", "x:-:1", "y:+:0", "y:-:0", "z:+:0", "z:+:1", "z:-:0", "z:-:1"} {
		cut = append(cut, "1:"+c+"@20us")
	}
	p := integrity.Params{MinBytes: 8, MaxBytes: 4096, Factor: 8, Adds: 8, Rounds: 1}
	_, rep, err := integrity.Job(faultCfg(map[string]string{"routing": "deterministic", "fail": strings.Join(cut, ";")}), p)
	require.Error(t, err)
	t.Logf("%v (dropped %d)", err, rep.Counters["dropped"])
	assert.Contains(t, strings.ToLower(err.Error()), "timeout")
	assert.Positive(t, rep.Counters["dropped"])
}

// A run with links failing is as deterministic as any: the same job gives
// the same report, event for event.
func TestFaultRunsRepeat(t *testing.T) {
	p := integrity.Params{MinBytes: 8, MaxBytes: 4096, Factor: 8, Adds: 16, Rounds: 1}
	run := func() pgas.Report {
		_, rep, err := integrity.Job(faultCfg(map[string]string{"routing": "by-order", "fail": "0:x:+:0@30us;1:x:+:1@40us"}), p)
		require.NoError(t, err)
		return rep
	}
	first := run()
	assert.Positive(t, first.Counters["link_failures"])
	assert.Equal(t, first, run())
}

// alltoalls runs iters alltoalls of 4 KiB blocks over the job, checking
// each block: their messages (active messages, short messages on the
// network) must all arrive, each once.
func alltoalls(cfg pgas.Config, iters int) (pgas.Report, error) {
	var rep pgas.Report
	cfg.Report = &rep
	const words = 512
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		n := pe.Size()
		in, out := make([]int64, n*words), make([]int64, n*words)
		for i := range iters {
			for j := range in {
				in[j] = int64(i<<32 | pe.Rank()<<16 | j)
			}
			if err := pgas.Alltoall(pe.World(), in, out); err != nil {
				return err
			}
			for src := range n {
				for k := range words {
					if want := int64(i<<32 | src<<16 | pe.Rank()*words + k); out[src*words+k] != want {
						return fmt.Errorf("alltoall %d: word %d from PE %d is %#x, want %#x", i, k, src, out[src*words+k], want)
					}
				}
			}
		}
		return nil
	})
	return rep, err
}

// A short message whose packets are lost is sent again by the NIC, and a
// copy that arrives twice is delivered once: alltoalls (messages only)
// over connections that fail at times spread over the run all deliver the
// right blocks, and some messages were sent again.
func TestMessagesSurviveFailures(t *testing.T) {
	if race.Enabled {
		// One kernel, whose PEs take turns: 106 s under the race
		// detector for nothing it could find. CI's long stage runs it
		// without.
		t.Skip("a one-kernel simulation: run without the race detector")
	}
	const iters = 20
	healthy, err := alltoalls(faultCfg(map[string]string{"routing": "deterministic"}), iters)
	require.NoError(t, err)
	const times = 8
	var resends int64
	for i := range times {
		at := int64(healthy.End) / 1000 * int64(i+1) / int64(times+1)
		fail := fmt.Sprintf("0:x:+:0@%dns;0:x:+:1@%dns", at, at)
		rep, err := alltoalls(faultCfg(map[string]string{"routing": "deterministic", "fail": fail}), iters)
		require.NoError(t, err, fail)
		if rep.Counters["lost_packets"] > 0 {
			t.Logf("%s: %d lost packets, %d message resends; end %v, %v without the failure", fail, rep.Counters["lost_packets"], rep.Counters["msg_resends"], rep.End, healthy.End)
		}
		resends += rep.Counters["msg_resends"]
	}
	assert.Positive(t, resends, "messages were sent again")
}
