package aries_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/aries"
	"github.com/gopgas/gopgas/conduit"
	"github.com/gopgas/gopgas/internal/integrity"
	"github.com/gopgas/gopgas/internal/race"
	"github.com/gopgas/gopgas/pgas"
)

// Links failing in the middle of a run (the fail option with @time): the
// integrity program's puts, gets and fetch-adds all arrive, once, and
// every byte is right. 8 PEs on 8 nodes are Aries 0 and 1 of a chassis;
// the green link of Aries 0's port 0 is the only minimal way between
// them, so adaptive routing goes round it through another Aries and
// deterministic packets wait for the new tables, which take them round
// too (the detours counter).

// faultCfg is the job of the fault tests.
func faultCfg(opts map[string]string) pgas.Config {
	return pgas.Config{Conduit: "aries", PEs: 8, PEsPerNode: 1, Options: opts}
}

type faultCase struct {
	routing string
	fail    string  // the fail option, with %s where the time goes
	at      float64 // fraction of the healthy run's end
	short   bool    // runs under -short
}

func TestIntegrityWithLinksFailingMidRun(t *testing.T) {
	if race.Enabled {
		// One kernel, whose PEs take turns: minutes under the race
		// detector for nothing it could find (TestPartitionedFaults
		// runs links failing with the workers at once). CI's long
		// stage runs it without.
		t.Skip("a one-kernel simulation: run without the race detector")
	}
	p := integrity.Params{MinBytes: 8, MaxBytes: 32 << 10, Factor: 8, Adds: 16, Rounds: 1}
	big := p
	big.MaxBytes = 256 << 10
	cases := []faultCase{
		{"adaptive", "0:0@%s", 0.3, true},
		{"deterministic", "0:0@%s", 0.3, true},
		{"by-order", "0:0@%s", 0.6, true},
		{"adaptive", "0:0@%s;0:1@%s", 0.5, false},
		{"deterministic", "0:0@%s;1:1@%s", 0.7, false},
	}
	healthy := map[string]pgas.Report{}
	var lost, retries, detours int64
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
		t.Logf("%s: %s; %d detours", name, integrity.FaultSummary(res, rep, h), rep.Counters["detours"])
		// Each link fails in both directions.
		assert.Equal(t, 2*int64(strings.Count(fail, "@")), rep.Counters["link_failures"], "%s: the links failed during the run", name)
		assert.Equal(t, p.Bytes(res.PEs), res.BytesChecked, "%s: every byte checked", name)
		if c.routing != "adaptive" {
			assert.Positive(t, rep.Counters["reroutes"], "%s: the network was re-routed", name)
			assert.GreaterOrEqual(t, rep.Counters["quiesce_ns"], int64(aries.ReroutePause/conduit.Nanosecond), "%s: quiesced for the pause", name)
			if c.routing == "deterministic" {
				assert.Positive(t, rep.Counters["detours"], "%s: the new tables took packets round the failed link", name)
			}
		} else {
			assert.Zero(t, rep.Counters["quiesce_ns"], "%s: adaptive routing quiesces nothing", name)
		}
		lost += rep.Counters["lost_packets"]
		retries += res.Retries
		detours += rep.Counters["detours"]
	}
	assert.Positive(t, lost, "packets were lost")
	assert.Positive(t, retries, "transfers were retried")
}

// Global links failing mid-run in a system of two groups, with the job's
// nodes in both: packets already on their way to a failed global link
// are taken round it from where they are (detours that keep the VC
// order), and everything still arrives once. With bundles of one cable
// the groups are joined by four links, two from Aries 0 to Aries 96 and
// two from Aries 1 to Aries 97; the job's nodes are on Aries 2 and 98, so
// that every route between them takes a green hop to Aries 0 or 1 first.
func TestIntegrityWithGlobalLinksFailing(t *testing.T) {
	if race.Enabled {
		// One kernel, whose PEs take turns: minutes under the race
		// detector for nothing it could find (TestPartitionedFaults
		// runs links failing with the workers at once). CI's long
		// stage runs it without.
		t.Skip("a one-kernel simulation: run without the race detector")
	}
	p := integrity.Params{MinBytes: 8, MaxBytes: 32 << 10, Factor: 8, Adds: 16, Rounds: 1}
	var lost, detours int64
	for _, routing := range []string{"adaptive", "deterministic"} {
		healthy, opts, fail := globalLinksFailing(t, routing, p)
		res, rep, err := integrity.Job(faultCfg(opts), p)
		require.NoError(t, err, fail)
		t.Logf("routing=%s,fail=%s: %s; %d detours", routing, fail, integrity.FaultSummary(res, rep, healthy), rep.Counters["detours"])
		assert.Equal(t, int64(4), rep.Counters["link_failures"])
		assert.Equal(t, p.Bytes(res.PEs), res.BytesChecked)
		lost += rep.Counters["lost_packets"]
		detours += rep.Counters["detours"]
	}
	assert.Positive(t, lost, "packets were lost")
	assert.Positive(t, detours, "routes went round the failed links from where they were")
}

// globalLinksFailing is the job of TestIntegrityWithGlobalLinksFailing
// under routing: the healthy run's report of program p, and the options
// and fail option that fail the global links 40% into it.
func globalLinksFailing(t *testing.T, routing string, p integrity.Params) (healthy pgas.Report, opts map[string]string, fail string) {
	t.Helper()
	d, err := aries.NewDragonfly(2, 1)
	require.NoError(t, err)
	var links []string
	for i := range 2 {
		h, err := d.GlobalLink(0, 1, i)
		require.NoError(t, err)
		require.Equal(t, 0, h.From)
		links = append(links, fmt.Sprintf("%d:%d@%%s", h.From, h.FromPort))
	}
	first := func(a int) int { return a * aries.NodesPerAries }
	opts = map[string]string{"routing": routing, "groups": "2", "bundle": "1",
		"exclude": fmt.Sprintf("0-%d,%d-%d", first(2)-1, first(3), first(98)-1)}
	_, healthy, err = integrity.Job(faultCfg(opts), p)
	require.NoError(t, err)
	at := fmt.Sprintf("%dns", int64(healthy.End/conduit.Nanosecond)*4/10)
	fail = strings.ReplaceAll(strings.Join(links, ";"), "%s", at)
	opts = maps.Clone(opts)
	opts["fail"] = fail
	return healthy, opts, fail
}
