package pgas_test

import (
	"testing"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

// run2 runs a two-PE job for a benchmark: body runs on PE 0 with b.N,
// while PE 1 serves (waits in a barrier).
func run2(b *testing.B, body func(pe *pgas.PE, peer int) error) {
	b.Helper()
	err := pgas.Run(pgas.Config{PEs: 2, SegmentBytes: 16 << 20}, func(pe *pgas.PE) error {
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			b.ResetTimer()
			if err := body(pe, 1); err != nil {
				return err
			}
			b.StopTimer()
		}
		return pe.Barrier()
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkPut8Quiet(b *testing.B) {
	buf := make([]byte, 8)
	run2(b, func(pe *pgas.PE, peer int) error {
		for range b.N {
			if err := pe.Put(peer, 1<<20, buf); err != nil {
				return err
			}
			if err := pe.Quiet(); err != nil {
				return err
			}
		}
		return nil
	})
}

func BenchmarkGet8(b *testing.B) {
	buf := make([]byte, 8)
	run2(b, func(pe *pgas.PE, peer int) error {
		for range b.N {
			if err := pe.Get(peer, 1<<20, buf); err != nil {
				return err
			}
		}
		return nil
	})
}

func BenchmarkFetchAdd(b *testing.B) {
	run2(b, func(pe *pgas.PE, peer int) error {
		p := pgas.Ptr[int64](peer, 1<<20)
		for range b.N {
			if _, err := pgas.FetchAdd(pe, p, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

func BenchmarkBarrier2(b *testing.B) {
	err := pgas.Run(pgas.Config{PEs: 2, SegmentBytes: 16 << 20}, func(pe *pgas.PE) error {
		pe.Barrier()
		if pe.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkAMRoundTrip(b *testing.B) {
	err := pgas.Run(pgas.Config{PEs: 2, SegmentBytes: 16 << 20}, func(pe *pgas.PE) error {
		ep := pe.AM()
		var got int
		pong, _ := ep.Register("pong", func(m *am.Message) error { got++; return nil })
		ping, _ := ep.Register("ping", func(m *am.Message) error { return m.ReplyShort(pong) })
		_ = ping
		pe.Barrier()
		if pe.Rank() == 0 {
			b.ResetTimer()
			for i := range b.N {
				if err := ep.RequestShort(1, ping); err != nil {
					return err
				}
				for got <= i {
					if err := ep.Poll(); err != nil {
						return err
					}
				}
			}
			b.StopTimer()
		}
		return pe.Barrier()
	})
	if err != nil {
		b.Fatal(err)
	}
}
