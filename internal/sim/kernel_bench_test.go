package sim

import (
	"fmt"
	"testing"
)

type nop struct{ *Source }

func (nop) Fire(int32, any) {}

// BenchmarkQueue is the bare event queue: with 1000 events pending, each
// iteration processes one and schedules one. Events per second is the
// inverse of ns/op.
func BenchmarkQueue(b *testing.B) {
	k := New(1)
	a := nop{&Source{ID: k.NewOrigins(1)}}
	for i := range 1000 {
		k.At(Time(i*7919%1000), a, 0, nil)
	}
	b.ResetTimer()
	for i := range b.N {
		k.Step()
		k.After(Time(1+i%1000), a, 0, nil)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// BenchmarkProcSwitch is a PE that advances and syncs against a stream of
// events: the cost of resuming a coroutine.
func BenchmarkProcSwitch(b *testing.B) {
	k := New(1)
	var a nop
	k.Spawn(func(p *Proc) error {
		for range b.N {
			k.At(p.Clock(), a, 0, nil)
			p.Advance(10)
			if err := p.Sync(); err != nil {
				return err
			}
		}
		return nil
	})
	b.ResetTimer()
	if err := k.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkParallel runs the partitioned kernel's toy (parallel_test.go)
// on 1 and 2 workers: 16 partitions of 64 routers, 32,768 packets of 3 to
// 7 hops. With table=64KiB each router has a table of 64 KiB that every
// packet it sees updates at a random place (64 MiB in all, so that events
// miss the caches as a network model's do); with table=8B the state stays
// in the caches. Events per second of wall time, and the events per
// window.
func BenchmarkParallel(b *testing.B) {
	for _, words := range []int{1, 8192} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("table=%s/workers=%d", map[int]string{1: "8B", 8192: "64KiB"}[words], workers), func(b *testing.B) {
				var events, windows uint64
				for range b.N {
					b.StopTimer()
					r, err := NewParallel(1, 16, toyRemote)
					if err != nil {
						b.Fatal(err)
					}
					ks := make([]*Kernel, r.Partitions())
					for i := range ks {
						ks[i] = r.Partition(i)
					}
					n := newToyNet(ks, 16*64, 16*8, words, toyLocal, toyRemote)
					n.inject(32 * 1024)
					b.StartTimer()
					if err := r.Run(workers); err != nil {
						b.Fatal(err)
					}
					events += r.Events()
					windows += r.Windows()
				}
				b.ReportMetric(float64(events)/b.Elapsed().Seconds()/1e6, "Mevents/s")
				b.ReportMetric(float64(events)/float64(windows), "events/window")
			})
		}
	}
}
