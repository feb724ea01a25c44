package pgas_test

// Benchmarks of two-sided messaging on the real shared-memory backend, two
// PEs, with the loops of the OSU micro-benchmarks' osu_latency and osu_bw
// (one send buffer and one receive buffer, allocated outside the segment as
// the OSU programs malloc theirs), so that their figures compare with MPI's
// on the same machine (docs/smp-messaging.md). Run with
//
//	go test -run XXX -bench 'Msg' ./pgas/
//
// BenchmarkMsgLatency reports the half round trip (ns/half-rtt);
// BenchmarkMsgBandwidth the bandwidth in MB/s (10^6 bytes per second, as
// osu_bw prints it).

import (
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Tags of the OSU loops.
const (
	benchTagData = 100 // the messages measured
	benchTagAck  = 101 // osu_bw's acknowledgement of a window
)

// benchMsgWarmup is how many rounds run before the timer starts, as the
// OSU programs' skip: the first rounds fill the registration cache and the
// mailboxes, and grow the queues to their steady size.
const benchMsgWarmup = 10

// benchMsgPair runs a two-PE job on the smp conduit in which PE 0 runs
// ping and PE 1 pong, each rounds times; only PE 0's rounds after the
// warm-up are timed.
func benchMsgPair(b *testing.B, ping, pong func(pe *pgas.PE) error) {
	b.Helper()
	err := pgas.Run(pgas.Config{PEs: 2, Conduit: "smp"}, func(pe *pgas.PE) error {
		round := pong
		if pe.Rank() == 0 {
			round = ping
		}
		for range benchMsgWarmup {
			if err := round(pe); err != nil {
				return err
			}
		}
		if err := pe.Barrier(); err != nil {
			return err
		}
		if pe.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := round(pe); err != nil {
				return err
			}
		}
		if pe.Rank() == 0 {
			b.StopTimer()
		}
		return pe.Barrier()
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMsgLatency is osu_latency's loop for 8 bytes: PE 0 sends and
// receives the answer, PE 1 receives and answers, with blocking Send and
// Recv; the half round trip is half the time of a round.
func BenchmarkMsgLatency(b *testing.B) {
	const n = 8
	sbuf, rbuf := make([]byte, n), make([]byte, n)
	sbuf1, rbuf1 := make([]byte, n), make([]byte, n)
	benchMsgPair(b, func(pe *pgas.PE) error {
		if err := pe.Send(1, benchTagData, sbuf); err != nil {
			return err
		}
		_, err := pe.Recv(1, benchTagData, rbuf)
		return err
	}, func(pe *pgas.PE) error {
		if _, err := pe.Recv(0, benchTagData, rbuf1); err != nil {
			return err
		}
		return pe.Send(0, benchTagData, sbuf1)
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/half-rtt")
}

// BenchmarkMsgBandwidth is osu_bw's loop: PE 0 starts a window of 64
// Isends of one buffer and waits for all of them, PE 1 posts 64 Irecvs
// into one buffer, waits for all of them and answers with a 1-byte
// acknowledgement, which PE 0 receives. The bandwidth counts the window's
// bytes.
func BenchmarkMsgBandwidth(b *testing.B) {
	for _, n := range []int{8 << 10, 64 << 10, 1 << 20, 4 << 20} {
		b.Run(benchName(n), func(b *testing.B) {
			sbuf, rbuf := make([]byte, n), make([]byte, n)
			ack, ack1 := make([]byte, 1), make([]byte, 1)
			hs, hs1 := make([]pgas.Handle, benchWindow), make([]pgas.Handle, benchWindow)
			b.SetBytes(int64(n) * benchWindow)
			benchMsgPair(b, func(pe *pgas.PE) error {
				for j := range hs {
					h, err := pe.Isend(1, benchTagData, sbuf)
					if err != nil {
						return err
					}
					hs[j] = h
				}
				if err := pgas.WaitAll(hs...); err != nil {
					return err
				}
				_, err := pe.Recv(1, benchTagAck, ack)
				return err
			}, func(pe *pgas.PE) error {
				for j := range hs1 {
					h, err := pe.Irecv(0, benchTagData, rbuf, nil)
					if err != nil {
						return err
					}
					hs1[j] = h
				}
				if err := pgas.WaitAll(hs1...); err != nil {
					return err
				}
				return pe.Send(0, benchTagAck, ack1)
			})
		})
	}
}
