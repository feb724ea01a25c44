package simtest

import (
	"fmt"
	"time"

	"github.com/gopgas/gopgas/pgas"
)

// Hotspot is the bandwidth, in GB/s, at which the PEs of nodes 1..nodes-1
// (ppn each) get (or, with put, put) size bytes from (to) the PEs of node
// 0, window transfers in flight each, rounds times: each PE of node 0
// serves the PEs of its local rank.
func Hotspot(conduitName string, nodes, ppn, size, window, rounds int, put bool, order pgas.Ordering) (float64, error) {
	cfg := pgas.Config{Conduit: conduitName, PEs: nodes * ppn, PEsPerNode: ppn, Ordering: order}
	var gbps float64
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(int64(size*window), 0)
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		start := pe.Now()
		if pe.Node() != 0 {
			buf, err := pe.Local(base, int64(size*window))
			if err != nil {
				return err
			}
			target := pe.Rank() % ppn
			hs := make([]pgas.Handle, window)
			for range rounds {
				for i := range hs {
					b := buf[size*i : size*(i+1)]
					off := base + int64(size*i)
					if put {
						hs[i], err = pe.PutNB(target, off, b)
					} else {
						hs[i], err = pe.GetNB(target, off, b)
					}
					if err != nil {
						return err
					}
				}
				if err := pgas.WaitAll(hs...); err != nil {
					return err
				}
			}
		}
		end := []int64{int64(pe.Now() - start)}
		if err := pgas.Allreduce(pe.World(), pgas.Max, end, end); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			bytes := float64((nodes - 1) * ppn * window * rounds * size)
			gbps = bytes / time.Duration(end[0]).Seconds() / 1e9
		}
		return nil
	})
	return gbps, err
}

// OneWordAMORate is the rate, in millions per second, of rounds windows
// of window non-blocking 8-byte atomic adds from rank 0 to one word of
// rank 1 on another node (the first add, before the timing, brings the
// word into the AMO cache). It fails if the word does not end with every
// add applied.
func OneWordAMORate(conduitName string, order pgas.Ordering, window, rounds int) (float64, error) {
	var rate float64
	cfg := pgas.Config{Conduit: conduitName, PEs: 2, PEsPerNode: 1, Ordering: order}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		base, err := pe.Alloc(8, 8)
		if err != nil || pe.Rank() != 0 {
			return err
		}
		word := pgas.Ptr[int64](1, base)
		if err := pgas.Atomic(pe, pgas.AtomicAdd, word, 1); err != nil {
			return err
		}
		start := pe.Now()
		hs := make([]pgas.Handle, window)
		for range rounds {
			for i := range hs {
				if hs[i], err = pgas.AtomicNB(pe, pgas.AtomicAdd, word, 1); err != nil {
					return err
				}
			}
			if err := pgas.WaitAll(hs...); err != nil {
				return err
			}
		}
		rate = float64(window*rounds) / (pe.Now() - start).Seconds() / 1e6
		v, err := pgas.GetValue(pe, word)
		if err == nil && v != int64(window*rounds+1) {
			return fmt.Errorf("%v: the word is %d, want %d", order, v, window*rounds+1)
		}
		return err
	})
	return rate, err
}
