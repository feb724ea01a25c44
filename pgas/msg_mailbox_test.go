package pgas_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// TestMailboxSlotShrinksWithRanks checks the mailbox rule of R-MPI-E0: the
// slot keeps the 512-byte eager-short limit at the paper's job sizes and
// halves as the rank count doubles beyond the mailbox memory.
func TestMailboxSlotShrinksWithRanks(t *testing.T) {
	const depth = 12 // R-DEPTH
	for _, c := range []struct {
		pes  int
		want int64
	}{
		{2, 512}, {96, 512}, {683, 512}, {1366, 256}, {2731, 128}, {1 << 20, pgas.MsgMailboxMinBytes},
	} {
		if got := pgas.EagerShortLimit(512, c.pes, depth); got != c.want {
			t.Errorf("%d PEs: eager-short limit %d, want %d (slot %d)", c.pes, got, c.want, pgas.MailboxSlotBytes(c.pes, depth))
		}
	}
	prev := pgas.MailboxSlotBytes(2, depth)
	for pes := 3; pes < 1<<16; pes = pes*3/2 + 1 {
		s := pgas.MailboxSlotBytes(pes, depth)
		if s > prev || s%8 != 0 || s < pgas.MsgMailboxMinBytes {
			t.Fatalf("%d PEs: slot %d after %d: not falling, aligned and above the minimum", pes, s, prev)
		}
		prev = s
	}
}

// TestMsgEagerShortFollowsMailbox checks that a job's protocol choice uses
// the mailbox limit: with 4096 credits per peer a 4-PE job's slot is
// 4 MiB / (3 x 4096) = 336 bytes, so a 400-byte message goes through the
// internal buffers and a 300-byte one in a mailbox message.
func TestMsgEagerShortFollowsMailbox(t *testing.T) {
	cfg := pgas.Config{PEs: 4, PEsPerNode: 2, NetworkDepth: 4096}
	runMsg(t, cfg, func(pe *pgas.PE) error {
		if got := pe.MsgProtocol(300); got != "eager-short" {
			t.Errorf("300 B: %s, want eager-short", got)
		}
		if got := pe.MsgProtocol(400); got != "eager-buffered" {
			t.Errorf("400 B: %s, want eager-buffered", got)
		}
		peer := (pe.Rank() + 2) % 4
		out := msgPattern(400, pe.Rank())
		in := make([]byte, 400)
		h, err := pe.Irecv(peer, 0, in, nil)
		if err != nil {
			return err
		}
		if err := pe.Send(peer, 0, out); err != nil {
			return err
		}
		if err := h.Wait(); err != nil {
			return err
		}
		if !bytes.Equal(in, msgPattern(400, peer)) {
			t.Errorf("PE %d: 400-byte message from %d corrupted", pe.Rank(), peer)
		}
		if st := pe.MsgStats(); st.Sent[1] != 1 || st.Sent[0] != 0 {
			t.Errorf("PE %d: sent by protocol %v, want one eager-buffered", pe.Rank(), st.Sent)
		}
		return nil
	})
}

// TestMsgRendezvousRegistrationFull fills the node's registration table and
// then sends rendezvous messages from ordinary memory: they complete with
// the right bytes through the internal buffers or bounce buffers, and
// count the fallbacks, instead of failing with ErrRegistrationFull.
func TestMsgRendezvousRegistrationFull(t *testing.T) {
	cfg := pgas.Config{Conduit: "gemini", PEs: 2, PEsPerNode: 2, MsgRcacheEntries: 1}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		const get, put = 64 << 10, 1 << 20
		inSeg, err := pe.Alloc(put, 64)
		if err != nil {
			return err
		}
		// Use messaging once so that its internal buffers are registered.
		if err := exchangeOnce(pe, make([]byte, 1024), make([]byte, 1024)); err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			for _, n := range []int{1 << 20, 64 << 10, 4 << 10} {
				fill := make([]byte, n)
				for {
					if _, err := pe.Pin(fill); err != nil {
						if !errors.Is(err, pgas.ErrRegistrationFull) {
							return err
						}
						break
					}
				}
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if _, err := pe.Pin(make([]byte, 4<<10)); !errors.Is(err, pgas.ErrRegistrationFull) {
			t.Fatalf("PE %d: the table is not full: %v", pe.Rank(), err)
		}
		peer := 1 - pe.Rank()
		// A get rendezvous both ways, buffers outside the segment.
		out, in := msgPattern(get, pe.Rank()), make([]byte, get)
		if err := exchangeOnce(pe, out, in); err != nil {
			return err
		}
		if !bytes.Equal(in, msgPattern(get, peer)) {
			t.Errorf("PE %d: %d-byte message corrupted", pe.Rank(), get)
		}
		// A put rendezvous from ordinary memory into the segment.
		recv, err := pe.Local(inSeg, put)
		if err != nil {
			return err
		}
		if err := exchangeOnce(pe, msgPattern(put, pe.Rank()), recv); err != nil {
			return err
		}
		if !bytes.Equal(recv, msgPattern(put, peer)) {
			t.Errorf("PE %d: %d-byte message corrupted", pe.Rank(), put)
		}
		st := pe.MsgStats()
		if st.RegFallbacks < 2 || st.Sent[1] < 2 {
			t.Errorf("PE %d: %d registration fallbacks, sent by protocol %v: want the get rendezvous sent buffered and the put's chunk from bounce buffers", pe.Rank(), st.RegFallbacks, st.Sent)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exchangeOnce swaps out and in with the other PE of a 2-PE job.
func exchangeOnce(pe *pgas.PE, out, in []byte) error {
	peer := 1 - pe.Rank()
	h, err := pe.Irecv(peer, 7, in, nil)
	if err != nil {
		return err
	}
	if err := pe.Send(peer, 7, out); err != nil {
		return err
	}
	return h.Wait()
}
