package sim

import "testing"

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
