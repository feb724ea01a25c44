package gemini_test

import (
	"encoding/binary"
	"errors"
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
	const block = 256 << 10
	cfg := pgas.Config{Conduit: "gemini", PEs: 4, PEsPerNode: 2, Ordering: pgas.OrderRelaxed,
		SegmentBytes: pgas.ReservedBytes + 4*block, Options: map[string]string{"hazards": hazards}, Report: &rep}
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
