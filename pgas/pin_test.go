package pgas_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gopgas/gopgas/pgas"
)

// A pinned buffer outside the segment moves without bounce buffers or
// one-time registrations, on the real and the simulated backends.
func TestPinAvoidsBounceAndOneTimeRegistration(t *testing.T) {
	for _, conduit := range []string{"smp", "gemini"} {
		t.Run(conduit, func(t *testing.T) {
			cfg := pgas.Config{Conduit: conduit, PEs: 2, Direct: pgas.Off, RequireRegistration: pgas.On}
			err := pgas.Run(cfg, func(pe *pgas.PE) error {
				peer := 1 - pe.Rank()
				small := make([]byte, 1024)
				big := make([]byte, 64<<10)
				for i := range big {
					big[i] = byte(i*7 + pe.Rank())
				}
				copy(small, big)
				ps, err := pe.Pin(small)
				if err != nil {
					return err
				}
				pb, err := pe.Pin(big)
				if err != nil {
					return err
				}
				base, err := pe.Alloc(int64(len(big)+len(small)), 0)
				if err != nil {
					return err
				}
				before := pe.Stats().Transport
				if err := pe.Put(peer, base, big); err != nil {
					return err
				}
				if err := pe.Put(peer, base+int64(len(big)), small); err != nil {
					return err
				}
				after := pe.Stats().Transport
				if after.Bounced != before.Bounced || after.PDBounced != before.PDBounced || after.OneTimeRegs != before.OneTimeRegs {
					t.Errorf("PE %d: pinned transfers bounced or registered: before %+v after %+v", pe.Rank(), before, after)
				}
				if err := pe.Barrier(); err != nil {
					return err
				}
				got := make([]byte, len(big))
				if err := pe.Get(pe.Rank(), base, got); err != nil {
					return err
				}
				want := make([]byte, len(big))
				for i := range want {
					want[i] = byte(i*7 + peer)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("PE %d: the pinned put's data did not arrive", pe.Rank())
				}
				if err := ps.Unpin(); err != nil {
					return err
				}
				if err := ps.Unpin(); !errors.Is(err, pgas.ErrHandle) {
					t.Errorf("second Unpin: %v, want ErrHandle", err)
				}
				if _, err := pe.Pin(nil); !errors.Is(err, pgas.ErrArgument) {
					t.Errorf("Pin(nil): %v, want ErrArgument", err)
				}
				return pb.Unpin()
			})
			require.NoError(t, err)
		})
	}
}
