package pgas_test

import (
	"bytes"
	"errors"
	"strings"
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

// On Gemini a node can register a fixed number of 4 KB pages, shared by
// its PEs ([ORDERING] III.B): a Pin beyond them fails with an error that
// names it, the PE and the bytes, while large transfers from and to
// unregistered memory outside the segment still complete, through bounce
// buffers, when their one-time registration cannot be made.
func TestPinBeyondRegistrationLimit(t *testing.T) {
	cfg := pgas.Config{Conduit: "gemini", PEs: 2, PEsPerNode: 2}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		const big = 1 << 20
		base, err := pe.Alloc(2*big, 0)
		if err != nil {
			return err
		}
		src := make([]byte, big)
		for i := range src {
			src[i] = byte(i*13 + pe.Rank())
		}
		if err := pe.Put(pe.Rank(), base, src); err != nil {
			return err
		}
		// A small get through the bounce pool registers it now.
		if err := pe.Get(pe.Rank(), base, make([]byte, 4096)); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			// Fill the node's table with pins of a 4 MiB buffer.
			chunk := make([]byte, 4<<20)
			var pins []*pgas.Pinned
			var perr error
			for perr == nil {
				var p *pgas.Pinned
				if p, perr = pe.Pin(chunk); perr == nil {
					pins = append(pins, p)
				}
			}
			if !errors.Is(perr, pgas.ErrRegistrationFull) {
				t.Errorf("Pin beyond the table: %v, want ErrRegistrationFull", perr)
			}
			for _, s := range []string{"PE 0: Pin:", "Register of 4194304 bytes (1024 pages of 4096 bytes)", "pages free"} {
				if !strings.Contains(perr.Error(), s) {
					t.Errorf("Pin beyond the table: %q lacks %q", perr, s)
				}
			}
			// 2^17 pages of 4 KB less the bounce buffers and descriptors
			// (the segments' huge pages are in the NIC's own table): 127
			// pins of 1024 pages.
			if len(pins) != 127 {
				t.Errorf("%d pins of 4 MiB fit, want 127", len(pins))
			}
			// Fill the rest with smaller pins.
			for _, n := range []int{64 << 10, 4 << 10} {
				buf := make([]byte, n)
				for {
					p, err := pe.Pin(buf)
					if err != nil {
						break
					}
					pins = append(pins, p)
				}
			}
			peer := 1 - pe.Rank()
			got := make([]byte, big)
			before := pe.Stats().Transport
			if err := pe.Get(peer, base, got); err != nil {
				return err
			}
			if err := pe.Put(peer, base+big, got); err != nil {
				return err
			}
			after := pe.Stats().Transport
			if n := after.RegFallbacks - before.RegFallbacks; n != 2 {
				t.Errorf("%d transfers fell back to bounce buffers, want 2", n)
			}
			for i := range got {
				if got[i] != byte(i*13+peer) {
					t.Errorf("byte %d of the bounced get: %d, want %d", i, got[i], byte(i*13+peer))
					break
				}
			}
			// Deregistration gives the pages back: a pin fits again.
			if err := pins[0].Unpin(); err != nil {
				return err
			}
			p, err := pe.Pin(chunk)
			if err != nil {
				return err
			}
			pins[0] = p
			for _, p := range pins {
				if err := p.Unpin(); err != nil {
					return err
				}
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 1 {
			got := make([]byte, big)
			if err := pe.Get(pe.Rank(), base+big, got); err != nil {
				return err
			}
			for i := range got {
				if got[i] != byte(i*13+1) {
					t.Errorf("byte %d of the bounced put: %d, want %d", i, got[i], byte(i*13+1))
					break
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
}
