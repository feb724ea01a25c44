package bench

import (
	"github.com/gopgas/gopgas/pgas"
)

// OrderingMsgBW is the two-sided form of the bidirectional multi-pair benchmark of
// [ORDERING], Figure 2 (its POINT_TO_POINT_MESSAGES): with n PEs, pairs =
// n/2 and every PE's partner is (rank + pairs) mod n; each iteration every
// PE posts a window of non-blocking receives from its partner, then a
// window of non-blocking sends to it, and waits for them all. The figure
// is the aggregate bandwidth, size x window x iterations x n over the time
// from the barrier after the warm-up to the barrier after the last
// iteration, in MB/s, and Rate the aggregate messages per second.
// Defaults: 4 nodes, 24 PEs per node, window 1.
//
// The buffers are ordinary memory outside the segment, as an MPI
// program's are ([ORDERING] V.D: two-sided memory is private, so the
// protocols bounce or register it). The paper's two-sided kernel may reuse
// buffers within a window (its footnote 1): a window uses distinct slots
// up to MsgSlotBytes per direction and wraps beyond. The protocols are the
// runtime's (pgas.Config's Msg* settings: PGAS_MSG_RNDV=off is the paper's
// Figure 11 right).
func OrderingMsgBW(s Setup, sizes []int) (*Result, error) {
	if s.Window == 0 {
		s.Window = 1
	}
	hi := maxSize(sizes)
	w := s.window()
	ns := msgSlots(w, hi)
	area := int64(ns * max(hi, 1))
	j := &job{name: "msg_bw", title: "Multi-pair two-sided bandwidth (message-ordering paper, Figure 2, Isend/Irecv)",
		unit: "MB/s", column: "Bandwidth (MB/s)", nodes: 4, ppn: 24, minPEs: 2, even: true, sizes: sizes, private: 2 * area, messages: true}
	return s.run(j, func(pe *pgas.PE, r *Result) error {
		send, recv := make([]byte, area), make([]byte, area)
		n := pe.Size()
		partner := (pe.Rank() + n/2) % n
		hs := make([]pgas.Handle, 2*w)
		for i, size := range sizes {
			iters, skip := s.iterations(size, false)
			k := msgSlots(w, size)
			start, err := together(pe, iters, skip, true, func() error {
				return exchange(pe, partner, send, recv, size, k, hs)
			})
			if err != nil {
				return err
			}
			if err := pe.Barrier(); err != nil {
				return err
			}
			if pe.Rank() == 0 {
				msgs := float64(w) * float64(iters) * float64(n)
				d := pe.Now() - start
				r.Points = append(r.Points, Point{Size: size, Value: mbps(float64(size)*msgs, d), Rate: msgs / d.Seconds(), Protocol: pe.MsgProtocol(size)})
			}
			s.progress(pe, i, len(sizes))
		}
		return nil
	})
}

// MsgSlotBytes bounds the distinct buffer bytes a window of OrderingMsgBW uses in
// each direction: beyond it the slots wrap (the paper's two-sided kernel
// need not use distinct buffers, and a window of 64 2 MiB messages on 96
// PEs would otherwise hold 48 GiB).
const MsgSlotBytes = 2 << 20

// msgSlots is how many distinct slots of size bytes a window of OrderingMsgBW uses.
func msgSlots(window, size int) int {
	if size == 0 {
		return window
	}
	return max(1, min(window, MsgSlotBytes/size))
}

// msgTag is the tag of OrderingMsgBW's messages: one tag, so that matching follows
// the non-overtaking order alone, as in the paper's kernel.
const msgTag = 1

// exchange posts len(hs)/2 receives of size bytes from partner, as many
// sends to it, slot x at x mod slots, and waits for them all.
func exchange(pe *pgas.PE, partner int, send, recv []byte, size, slots int, hs []pgas.Handle) error {
	w := len(hs) / 2
	var err error
	for x := range w {
		off := (x % slots) * size
		if hs[x], err = pe.Irecv(partner, msgTag, recv[off:off+size], nil); err != nil {
			return err
		}
	}
	for x := range w {
		off := (x % slots) * size
		if hs[w+x], err = pe.Isend(partner, msgTag, send[off:off+size]); err != nil {
			return err
		}
	}
	return pgas.WaitAll(hs...)
}
