package main

import (
	"flag"
	"fmt"

	"github.com/gopgas/gopgas/am"
	"github.com/gopgas/gopgas/pgas"
)

func main() {
	laps := flag.Int("laps", 100, "number of times the token goes around the ring")
	flag.Parse()
	pgas.Main(pgas.Config{}, func(pe *pgas.PE) error { return ring(pe, *laps) })
}

// state is one PE's view of the token. The handlers run on the PE's own
// goroutine (inside its Poll calls), so no locking is needed.
type state struct {
	pe *pgas.PE

	arrived bool  // a token is held and not yet forwarded
	token   int32 // its value
	from    int   // who sent it

	sent    int32 // the value last sent
	sentSum int64 // the sum of the values sent
	acked   int   // acknowledgements received
	ackSum  int64 // the sum of the values acknowledged
}

func ring(pe *pgas.PE, laps int) error {
	if laps < 1 {
		return fmt.Errorf("-laps %d: must be at least 1", laps)
	}
	n, rank := pe.Size(), pe.Rank()
	if int64(laps)*int64(n) > 1<<31-1 {
		return fmt.Errorf("-laps %d: %d laps of %d PEs overflow the int32 token", laps, laps, n)
	}
	s := &state{pe: pe}
	ep := pe.AM()

	// The token handler refers to the ack handler's index, registered
	// after it; it only runs once both are registered everywhere.
	var ackH am.Index
	tokenH, err := ep.Register("ring.token", func(m *am.Message) error {
		if s.arrived {
			return fmt.Errorf("token %d from PE %d arrived while token %d was still held", m.Args[0], m.Source(), s.token)
		}
		s.arrived, s.token, s.from = true, m.Args[0], m.Source()
		return m.ReplyShort(ackH, m.Args[0])
	})
	if err != nil {
		return fmt.Errorf("registering the token handler: %w", err)
	}
	ackH, err = ep.Register("ring.ack", func(m *am.Message) error {
		// An acknowledgement may arrive after this PE sent its next token
		// (always so with one PE, which sends to itself), so check that
		// the value is one this PE sent, and the sum at the end.
		v := m.Args[0]
		if v < 1 || v > s.sent || (v-1-int32(rank))%int32(n) != 0 {
			return fmt.Errorf("PE %d acknowledged token %d, which PE %d never sent", m.Source(), v, rank)
		}
		s.acked++
		s.ackSum += int64(v)
		return nil
	})
	if err != nil {
		return fmt.Errorf("registering the ack handler: %w", err)
	}
	// Nobody may send before every PE has registered.
	if err := pe.Barrier(); err != nil {
		return fmt.Errorf("barrier after registering handlers: %w", err)
	}

	next, prev := (rank+1)%n, (rank-1+n)%n
	var got int32
	for lap := 1; lap <= laps; lap++ {
		base := int32((lap - 1) * n)
		if rank == 0 {
			if err := s.send(tokenH, next, base+1); err != nil {
				return fmt.Errorf("lap %d: %w", lap, err)
			}
		}
		got, err = s.receive(prev)
		if err != nil {
			return fmt.Errorf("lap %d: %w", lap, err)
		}
		want := base + int32(rank)
		if rank == 0 {
			want = int32(lap * n)
		}
		if got != want {
			return fmt.Errorf("lap %d: PE %d received token %d, want %d", lap, rank, got, want)
		}
		if rank != 0 {
			if err := s.send(tokenH, next, got+1); err != nil {
				return fmt.Errorf("lap %d: %w", lap, err)
			}
		}
	}
	// Every token this PE sent must have been acknowledged.
	if err := s.wait(fmt.Sprintf("the acknowledgements of %d tokens", laps), func() bool { return s.acked == laps }); err != nil {
		return err
	}
	if s.ackSum != s.sentSum {
		return fmt.Errorf("PE %d: the acknowledged tokens sum to %d, the sent ones to %d", rank, s.ackSum, s.sentSum)
	}
	if rank == 0 {
		fmt.Printf("ring: token made %d laps of %d PEs (%d hops): %d, want %d: ok\n", laps, n, laps*n, got, laps*n)
	}
	return nil
}

// send sends token v to PE to.
func (s *state) send(h am.Index, to int, v int32) error {
	s.sent = v
	s.sentSum += int64(v)
	if err := s.pe.AM().RequestShort(to, h, v); err != nil {
		return fmt.Errorf("sending token %d to PE %d: %w", v, to, err)
	}
	return nil
}

// receive waits for the token from PE from and takes it.
func (s *state) receive(from int) (int32, error) {
	if err := s.wait(fmt.Sprintf("the token from PE %d", from), func() bool { return s.arrived }); err != nil {
		return 0, err
	}
	if s.from != from {
		return 0, fmt.Errorf("token %d came from PE %d, want PE %d", s.token, s.from, from)
	}
	s.arrived = false
	return s.token, nil
}

// wait makes progress until done reports true.
func (s *state) wait(what string, done func() bool) error {
	if err := s.pe.WaitUntil(what, done); err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}
