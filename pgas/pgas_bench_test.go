package pgas_test

// Benchmarks of the runtime on the real shared-memory backend, two PEs:
// PE 0 drives, PE 1 serves from inside a barrier. Run with
//
//	go test -run XXX -bench . ./pgas/
//
// The targets (2-core machine): 8 B put with remote completion
// <= 20 ns, 1 MiB put >= 90% of copy() of 1 MiB (BenchmarkCopy in the same
// run), AM half round trip <= 0.25 us (half of BenchmarkAMRoundTrip),
// fetch-add >= 50 M ops/s (<= 20 ns/op), barrier of 2 PEs <= 0.25 us.

import (
	"fmt"
	"testing"

	"github.com/dustin/go-humanize"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

const benchSegment = 64 << 20

// benchHeap allocates the whole symmetric heap, so that the benchmarks may
// address any offset from benchOff to the end of the segment, and touches
// every page of it: segments are mapped on demand, and the benchmarks
// measure transfers, not the first touch of fresh pages (the baseline
// BenchmarkCopy, too, copies into memory touched before).
func benchHeap(pe *pgas.PE) error {
	off, err := pe.Alloc(benchSegment-pgas.ReservedBytes, 0)
	if err == nil && off > benchOff {
		err = fmt.Errorf("the heap starts at %d, after %d", off, benchOff)
	}
	if err != nil {
		return err
	}
	heap, err := pe.Local(off, benchSegment-pgas.ReservedBytes)
	if err != nil {
		return err
	}
	for i := 0; i < len(heap); i += 4096 {
		heap[i] = 0
	}
	return nil
}

// benchOff is where the benchmarks' transfers land.
const benchOff = 1 << 20

// benchPair runs body on PE 0 of a two-PE job, timing only body.
func benchPair(b *testing.B, body func(pe *pgas.PE, peer int) error) {
	b.Helper()
	err := pgas.Run(pgas.Config{PEs: 2, SegmentBytes: benchSegment}, func(pe *pgas.PE) error {
		if err := benchHeap(pe); err != nil {
			return err
		}
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

// BenchmarkPut8 is the latency of an 8-byte put followed by Quiet, which
// makes it remotely complete.
func BenchmarkPut8(b *testing.B) {
	buf := make([]byte, 8)
	benchPair(b, func(pe *pgas.PE, peer int) error {
		for range b.N {
			if err := pe.Put(peer, benchOff, buf); err != nil {
				return err
			}
			if err := pe.Quiet(); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkGet8 is the latency of a blocking 8-byte get.
func BenchmarkGet8(b *testing.B) {
	buf := make([]byte, 8)
	benchPair(b, func(pe *pgas.PE, peer int) error {
		for range b.N {
			if err := pe.Get(peer, benchOff, buf); err != nil {
				return err
			}
		}
		return nil
	})
}

func benchSizes() []int {
	var s []int
	for n := 8; n <= 4<<20; n *= 2 {
		s = append(s, n)
	}
	return s
}

func benchName(n int) string { return humanize.IBytes(uint64(n)) }

// benchWindow is the OSU window: non-blocking operations issued before one
// synchronisation.
const benchWindow = 64

// benchSlot is where the i-th transfer of n bytes lands: no buffer is
// reused within a window ([ORDERING],
// Figure 2), within 63 MiB of the segment.
func benchSlot(i, n int) int64 {
	slots := max(1, min(benchWindow, (benchSegment-benchOff)/n))
	return benchOff + int64(i%slots)*int64(n)
}

// BenchmarkPutBandwidth streams puts of each size, OSU style: a window of
// non-blocking puts to distinct slots, then one Quiet.
func BenchmarkPutBandwidth(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(benchName(n), func(b *testing.B) {
			src := make([]byte, n)
			b.SetBytes(int64(n))
			benchPair(b, func(pe *pgas.PE, peer int) error {
				for i := range b.N {
					if err := pe.PutNBI(peer, benchSlot(i, n), src); err != nil {
						return err
					}
					if i%benchWindow == benchWindow-1 {
						if err := pe.Quiet(); err != nil {
							return err
						}
					}
				}
				return pe.Quiet()
			})
		})
	}
}

// BenchmarkCopy is the baseline of BenchmarkPutBandwidth: Go's copy() of
// the same sizes into the same pattern of destination slots of a buffer the
// size of a segment, so that both move the same memory and the ratio of the
// two is the runtime's overhead.
func BenchmarkCopy(b *testing.B) {
	dst := make([]byte, benchSegment)
	for _, n := range []int{8, 4 << 10, 64 << 10, 1 << 20, 4 << 20} {
		b.Run(benchName(n), func(b *testing.B) {
			src := make([]byte, n)
			b.SetBytes(int64(n))
			for i := range b.N {
				copy(dst[benchSlot(i, n):], src)
			}
		})
	}
}

// BenchmarkCopyHot is copy() of one buffer into another, again and again:
// the speed of memory the caches hold.
func BenchmarkCopyHot(b *testing.B) {
	for _, n := range []int{8, 4 << 10, 1 << 20} {
		b.Run(benchName(n), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			b.SetBytes(int64(n))
			for range b.N {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkAMRoundTrip is a Short request answered by a Short reply; the
// half round trip is half of it. PE 0 polls for the reply.
func BenchmarkAMRoundTrip(b *testing.B) { benchAMRoundTrip(b, 2) }

// BenchmarkAMRoundTrip4PEs is BenchmarkAMRoundTrip in a job of four PEs,
// PEs 2 and 3 waiting in the final barrier: on a two-core machine, more PEs
// than cores.
func BenchmarkAMRoundTrip4PEs(b *testing.B) { benchAMRoundTrip(b, 4) }

func benchAMRoundTrip(b *testing.B, pes int) {
	err := pgas.Run(pgas.Config{PEs: pes, SegmentBytes: benchSegment}, func(pe *pgas.PE) error {
		ep := pe.AM()
		var got int
		pong, err := ep.Register("pong", func(m *am.Message) error { got++; return nil })
		if err != nil {
			return err
		}
		ping, err := ep.Register("ping", func(m *am.Message) error { return m.ReplyShort(pong) })
		if err != nil {
			return err
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
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

// BenchmarkFetchAdd is the rate of 64-bit fetch-and-add on the peer.
func BenchmarkFetchAdd(b *testing.B) {
	benchPair(b, func(pe *pgas.PE, peer int) error {
		p := pgas.Ptr[int64](peer, benchOff)
		for range b.N {
			if _, err := pgas.FetchAdd(pe, p, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkBarrier is the latency of a barrier of two PEs.
func BenchmarkBarrier(b *testing.B) { benchBarrier(b, 2) }

// BenchmarkBarrier4PEs is the latency of a barrier of four PEs: on a
// two-core machine, more PEs than cores.
func BenchmarkBarrier4PEs(b *testing.B) { benchBarrier(b, 4) }

func benchBarrier(b *testing.B, pes int) {
	err := pgas.Run(pgas.Config{PEs: pes, SegmentBytes: benchSegment}, func(pe *pgas.PE) error {
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := pe.Barrier(); err != nil {
				return err
			}
		}
		if pe.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAllreduce8 is the latency of an allreduce of one float64 over
// two PEs (through the flags of coll_direct.go), with its allocations.
func BenchmarkAllreduce8(b *testing.B) { benchAllreduce(b, 2, 1) }

// BenchmarkAllreduce8x4PEs is the same over four PEs.
func BenchmarkAllreduce8x4PEs(b *testing.B) { benchAllreduce(b, 4, 1) }

// BenchmarkAllreduce1K is an allreduce of 128 float64 over two PEs (active
// messages).
func BenchmarkAllreduce1K(b *testing.B) { benchAllreduce(b, 2, 128) }

func benchAllreduce(b *testing.B, pes, n int) {
	b.ReportAllocs()
	err := pgas.Run(pgas.Config{PEs: pes, SegmentBytes: benchSegment}, func(pe *pgas.PE) error {
		in, out := make([]float64, n), make([]float64, n)
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := pgas.Allreduce(pe.World(), pgas.Sum, in, out); err != nil {
				return err
			}
		}
		if pe.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPut8Network is BenchmarkPut8 through post descriptors and the
// completion queue (direct access off): the cost of the runtime's network
// path itself.
func BenchmarkPut8Network(b *testing.B) {
	buf := make([]byte, 8)
	err := pgas.Run(pgas.Config{PEs: 2, SegmentBytes: benchSegment, Direct: pgas.Off}, func(pe *pgas.PE) error {
		if err := benchHeap(pe); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			b.ResetTimer()
			for range b.N {
				if err := pe.Put(1, benchOff, buf); err != nil {
					return fmt.Errorf("put: %w", err)
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

// BenchmarkPutWindowNetwork is OSU's bandwidth window through the network
// path (direct access off): 64 non-blocking puts of 64 bytes to distinct
// slots, then a wait for all of them; ns/op is per put.
func BenchmarkPutWindowNetwork(b *testing.B) {
	const window, size = 64, 64
	buf := make([]byte, window*size)
	hs := make([]pgas.Handle, window)
	err := pgas.Run(pgas.Config{PEs: 2, SegmentBytes: benchSegment, Direct: pgas.Off}, func(pe *pgas.PE) error {
		if err := benchHeap(pe); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			b.ResetTimer()
			for i := 0; i < b.N; i += window {
				for x := range hs {
					h, err := pe.PutNB(1, benchOff+int64(x*size), buf[x*size:(x+1)*size])
					if err != nil {
						return fmt.Errorf("put: %w", err)
					}
					hs[x] = h
				}
				if err := pgas.WaitAll(hs...); err != nil {
					return fmt.Errorf("wait: %w", err)
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
