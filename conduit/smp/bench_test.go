package smp

import (
	"testing"

	"github.com/gopgas/gopgas/conduit"
)

// BenchmarkMailboxPingPong measures a message round trip between two PEs
// through the mailboxes alone, without the runtime above them.
func BenchmarkMailboxPingPong(b *testing.B) {
	job, err := Open(conduit.JobConfig{PEs: 2, SegmentBytes: 1 << 16, Ordering: conduit.OrderDefault, MailboxSlots: 48, PeerBurst: 4})
	if err != nil {
		b.Fatal(err)
	}
	hdr := make([]byte, 8)
	err = job.Run(func(ep conduit.Endpoint) error {
		msgs := make([]conduit.Message, 20)
		other := 1 - ep.Rank()
		if ep.Rank() == 0 {
			b.ResetTimer()
		}
		for i := range b.N {
			if ep.Rank() == 0 {
				if err := ep.SendMessage(other, hdr, nil); err != nil {
					return err
				}
			}
			for ep.PollMessages(msgs) == 0 {
			}
			if ep.Rank() == 1 {
				if err := ep.SendMessage(other, hdr, nil); err != nil {
					return err
				}
			}
			_ = i
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
