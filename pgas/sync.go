package pgas

import (
	"encoding/binary"
	"fmt"

	"github.com/gopgas/gopgas/internal/transport"
)

// Quiet completes every outstanding operation of the PE (implicit-handle
// ones, those of live handles, and the runtime's own) and makes its puts
// globally visible. It returns the first error of an implicit-handle
// operation.
func (pe *PE) Quiet() error {
	if err := pe.blocking("Quiet"); err != nil {
		return err
	}
	return pe.quiet("Quiet")
}

// Fence orders the PE's puts issued before it before those issued after it,
// to every target. It is implemented as Quiet, which is stronger.
func (pe *PE) Fence() error {
	if err := pe.blocking("Fence"); err != nil {
		return err
	}
	return pe.quiet("Fence")
}

func (pe *PE) quiet(name string) error {
	if pe.eng.Idle() && pe.nbiPut.Err() == nil && pe.nbiGet.Err() == nil && pe.signalOp.Err() == nil && pe.fault == nil {
		return nil
	}
	if err := pe.eng.Quiesce(); err != nil {
		return pe.wrap(name, err)
	}
	if err := pe.eng.Flush(); err != nil {
		return pe.wrap(name, err)
	}
	if _, err := pe.pollFaults(); err != nil {
		return pe.wrap(name, err)
	}
	err := pe.nbiPut.Err()
	if err == nil {
		err = pe.nbiGet.Err()
	}
	pe.nbiPut.Reset()
	pe.nbiGet.Reset()
	return pe.wrap(name, err)
}

// pollFaults is a poller (it runs in every wait and poll of the PE) that
// fails the wait once a transfer of the runtime's own has failed: a
// barrier signal that timed out (a lost route) never reaches its partner,
// which would wait for it for ever, and this PE's later barriers would wait
// for partners that wait for it. The failure is for good, like the active
// message layer's (package am, whose poller reports lost messages: the
// collectives' data and credit returns): from then on every blocking call
// of the PE fails with it, naming the transfer, the peer and the cause,
// instead of the job ending as a deadlock.
func (pe *PE) pollFaults() (int, error) {
	if pe.fault == nil {
		err := pe.signalOp.Err()
		if err == nil {
			return 0, nil
		}
		pe.fault = fmt.Errorf("a barrier signal failed: %w", err)
	}
	return 0, pe.fault
}

// strictCopy moves data between a local buffer and a directly mapped
// segment for a strict access: whole aligned words atomically, so that a
// strict access is never torn and is sequentially consistent with other
// PEs' strict accesses to the same words.
func strictCopy(seg []byte, off int64, local []byte, put bool) {
	n := int64(len(local))
	width := int64(8)
	if off%8 != 0 || n%8 != 0 {
		width = 4
	}
	if off%width != 0 || n%width != 0 {
		if put {
			copy(seg[off:], local)
		} else {
			copy(local, seg[off:off+n])
		}
		return
	}
	for i := int64(0); i < n; i += width {
		if put {
			var v uint64
			if width == 8 {
				v = binary.NativeEndian.Uint64(local[i:])
			} else {
				v = uint64(binary.NativeEndian.Uint32(local[i:]))
			}
			transport.StoreWord(seg, off+i, int(width), v)
			continue
		}
		v := transport.LoadWord(seg, off+i, int(width))
		if width == 8 {
			binary.NativeEndian.PutUint64(local[i:], v)
		} else {
			binary.NativeEndian.PutUint32(local[i:], uint32(v))
		}
	}
}
