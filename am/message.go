package am

import (
	"fmt"

	"github.com/gopgas/gopgas/internal/errs"
)

// Message is what a handler receives. It is valid only while the handler
// runs.
type Message struct {
	a       *Endpoint
	owner   int // the receiving PE, for errors after the handler returned
	src     int
	cat     Category
	request bool
	h       Index
	replied bool
	args    [MaxArgs]int32

	// Args are the message's arguments.
	Args []int32
	// Payload is a Medium message's payload (a temporary buffer), or the
	// bytes of the segment a Long payload landed in. Nil for Short.
	Payload []byte
	// Offset is where a Long payload landed in this PE's segment.
	Offset int64
}

// Source is the rank that sent the message.
func (m *Message) Source() int { return m.src }

// Category is the message's category.
func (m *Message) Category() Category { return m.cat }

// IsRequest reports whether the message is a request.
func (m *Message) IsRequest() bool { return m.request }

// Handler is the index the message named.
func (m *Message) Handler() Index { return m.h }

func (m *Message) checkReply(op string, h Index, nargs int) (*Endpoint, error) {
	a := m.a
	switch {
	case a == nil:
		return nil, fmt.Errorf("am: PE %d: %s after the handler returned: %w", m.owner, op, ErrRule)
	case !m.request:
		return nil, fmt.Errorf("am: PE %d: %s from a reply handler: %w (a reply handler may not communicate)", a.rank, op, ErrRule)
	case m.replied:
		return nil, fmt.Errorf("am: PE %d: second %s to PE %d: %w (a request handler may reply once)", a.rank, op, m.src, ErrRule)
	}
	if err := a.checkSend(op, m.src, h, nargs); err != nil {
		return nil, err
	}
	m.replied = true
	a.Stats.Replies++
	a.countSent(h)
	return a, nil
}

// ReplyShort answers the request with a Short reply.
func (m *Message) ReplyShort(h Index, args ...int32) error {
	a, err := m.checkReply("ReplyShort", h, len(args))
	if err != nil {
		return err
	}
	return a.send(m.src, a.encode(a.peer(m.src), byte(Short)|flagReply, h, args, 0, 0), nil)
}

// ReplyMedium answers the request with a Medium reply.
func (m *Message) ReplyMedium(h Index, payload []byte, args ...int32) error {
	a := m.a
	if a != nil && len(payload) > a.MaxMedium() {
		return a.errf(errs.Argument, "ReplyMedium to PE %d: payload of %d bytes exceeds MaxMedium %d", m.src, len(payload), a.MaxMedium())
	}
	a, err := m.checkReply("ReplyMedium", h, len(args))
	if err != nil {
		return err
	}
	return a.send(m.src, a.encode(a.peer(m.src), byte(Medium)|flagReply, h, args, 0, 0), payload)
}

// ReplyLong answers the request with a Long reply landing at off of the
// requester's segment. A payload too large for one message is written
// first and the reply follows when the write completes, after the handler
// has returned; payload must stay unchanged until then.
func (m *Message) ReplyLong(h Index, payload []byte, off int64, args ...int32) error {
	if a := m.a; a != nil {
		if err := a.checkLong("ReplyLong", m.src, payload, off); err != nil {
			return err
		}
	}
	a, err := m.checkReply("ReplyLong", h, len(args))
	if err != nil {
		return err
	}
	_, err = a.sendLong(a.peer(m.src), flagReply, h, payload, off, args)
	return err
}
