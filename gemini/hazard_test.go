package gemini_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/pgas"
)

// fig7 runs the program of [ORDERING] Figure 7 (section IV.A) on
// four PEs, two per node, under relaxed network ordering. P0 gets a
// datum of P2's (on the other node), increments it and puts it back as the
// last word of a 256 KiB block, then tells P1 (on its own node) by setting
// a flag in P1's memory; P1, seeing the flag, gets the datum from P2. order
// is how P0 orders the flag after the block: "none" (both relaxed and
// non-blocking: no runtime ordering), "strict" (the flag is a strict put)
// or "fence". It returns whether P1 read the old value, and the job's
// counters.
func fig7(t *testing.T, order, hazards string) (stale bool, rep pgas.Report, err error) {
	t.Helper()
	return fig7On(t, order, 2, map[string]string{"hazards": hazards})
}

// fig7On is fig7 with perNode PEs per node and the options opts.
func fig7On(t *testing.T, order string, perNode int, opts map[string]string) (stale bool, rep pgas.Report, err error) {
	t.Helper()
	const block = 256 << 10
	cfg := pgas.Config{Conduit: "gemini", PEs: 4, PEsPerNode: perNode, Ordering: pgas.OrderRelaxed,
		SegmentBytes: pgas.ReservedBytes + 4*block, Options: opts, Report: &rep}
	err = pgas.Run(cfg, func(pe *pgas.PE) error {
		a, err := pe.Alloc(block, 64)
		if err != nil {
			return err
		}
		flag, err := pe.Alloc(8, 8)
		if err != nil {
			return err
		}
		src, err := pe.Alloc(block, 64)
		if err != nil {
			return err
		}
		datum := a + block - 8
		switch pe.Rank() {
		case 0:
			v, err := pgas.GetValue(pe, pgas.Ptr[uint64](2, datum))
			if err != nil {
				return err
			}
			buf, err := pe.Local(src, block)
			if err != nil {
				return err
			}
			binary.LittleEndian.PutUint64(buf[block-8:], v+1)
			if err := pe.PutNBI(2, a, buf); err != nil {
				return err
			}
			one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
			switch order {
			case "none":
				err = pe.PutNBI(1, flag, one)
			case "strict":
				err = pe.With(pgas.Strict).Put(1, flag, one)
			case "fence":
				if err = pe.Fence(); err == nil {
					err = pe.PutNBI(1, flag, one)
				}
			}
			if err != nil {
				return err
			}
			if err := pe.SyncNBI(); err != nil {
				return err
			}
		case 1:
			f, err := pe.Local(flag, 8)
			if err != nil {
				return err
			}
			if err := pe.WaitUntil("P0's flag", func() bool { return f[0] == 1 }); err != nil {
				return err
			}
			v, err := pgas.GetValue(pe, pgas.Ptr[uint64](2, datum))
			if err != nil {
				return err
			}
			stale = v != 1
		}
		return pe.Barrier()
	})
	return stale, rep, err
}

// Under relaxed network ordering, with nothing ordering the flag after the
// block, P1's get overtakes the block and reads the old datum: the stale
// read of Figure 7 really happens, and the hazard checker reports it with
// the PEs, the bytes and the times.
func TestFigure7StaleReadWithoutRuntimeOrdering(t *testing.T) {
	stale, rep, err := fig7(t, "none", "off")
	require.NoError(t, err)
	require.True(t, stale, "P1 read the new datum: the get did not overtake the put")
	require.Zero(t, rep.Counters["hazards"], "the checker was off")

	stale, rep, err = fig7(t, "none", "log")
	require.NoError(t, err)
	require.True(t, stale)
	require.Positive(t, rep.Counters["hazards"])

	_, _, err = fig7(t, "none", "fail")
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"hazard", "PE 1's get", "PE 2's bytes", "PE 0's put", "posted at"} {
		require.Contains(t, msg, want)
	}
	require.False(t, errors.Is(err, pgas.ErrArgument))
}

// A strict access, or a fence, orders the flag after the block: P1 never
// reads the old datum, and the checker finds nothing.
func TestFigure7RuntimeOrderingPreventsStaleRead(t *testing.T) {
	for _, order := range []string{"strict", "fence"} {
		t.Run(order, func(t *testing.T) {
			stale, rep, err := fig7(t, order, "fail")
			require.NoError(t, err)
			require.False(t, stale, "P1 read the old datum despite the %s ordering", order)
			require.Zero(t, rep.Counters["hazards"])
		})
	}
}

func TestHazardOptionRejectsBadValues(t *testing.T) {
	err := pgas.Run(pgas.Config{Conduit: "gemini", PEs: 2, Options: map[string]string{"hazards": "sometimes"}}, func(pe *pgas.PE) error { return nil })
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "hazards") && strings.Contains(err.Error(), "sometimes"), err.Error())
}

// TestHazardsPartitioned: the hazard checker in a partitioned run (the
// workers option), Figure 7's program with a PE per node on a 2x1x1
// torus, so that P0 and P1 are on one X plane and P2 on the other: the
// stale read happens and is found on 1 and 2 workers as on one kernel,
// with the same report, and fails the run with hazards=fail; with a fence
// nothing is found.
func TestHazardsPartitioned(t *testing.T) {
	run := func(order string, workers int) (bool, pgas.Report) {
		opts := map[string]string{"hazards": "log", "torus": "2x1x1"}
		if workers > 0 {
			opts["workers"] = fmt.Sprint(workers)
		}
		stale, rep, err := fig7On(t, order, 1, opts)
		require.NoError(t, err, "%s, %d workers", order, workers)
		return stale, rep
	}
	stale, one := run("none", 0)
	require.True(t, stale, "one kernel: P1 read the new datum")
	require.Positive(t, one.Counters["hazards"])
	stale, part := run("none", 1)
	require.True(t, stale, "1 worker: P1 read the new datum")
	_, two := run("none", 2)
	require.Equal(t, part, two, "1 worker against 2")
	require.Equal(t, one.Counters["hazards"], part.Counters["hazards"])
	t.Logf("hazards: %d; end: one kernel %v, partitioned %v", part.Counters["hazards"], one.End, part.End)
	stale, fenced := run("fence", 2)
	require.False(t, stale)
	require.Zero(t, fenced.Counters["hazards"])
	_, _, err := fig7On(t, "none", 1, map[string]string{"hazards": "fail", "torus": "2x1x1", "workers": "2"})
	require.ErrorContains(t, err, "PE 1's get")
	require.ErrorContains(t, err, "PE 0's put")
}
