package pgas

import (
	"errors"
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// The world team's barrier and single-element allreduces go to the
// network's collective engine when the backend has one
// (conduit.Caps.CollectiveOffload, the Aries collective engine); anything
// the engine cannot do falls back to the software algorithms.

func (pe *PE) offload(t *Team) conduit.CollectiveOffload {
	if t.id != 0 || t.size < 2 || !pe.ep.Caps().CollectiveOffload {
		return nil
	}
	ce, _ := pe.ep.(conduit.CollectiveOffload)
	return ce
}

// waitCollective waits for an offloaded collective and returns its result.
func (pe *PE) waitCollective(name string, c conduit.Collective) (uint64, error) {
	var (
		done   bool
		result uint64
		err    error
	)
	ready := func() bool {
		if !done && err == nil {
			done, result, err = c.Test()
		}
		return done || err != nil
	}
	if werr := pe.eng.WaitFunc(name, ready); werr != nil {
		return 0, pe.wrap(name, werr)
	}
	return result, pe.wrap(name, err)
}

// offloadAllreduce tries an allreduce of one element on the collective
// engine; ok is false when the engine cannot do it.
func offloadAllreduce[T Number](t *Team, op ReduceOp, in, out []T) (ok bool, err error) {
	pe := t.pe
	ce := pe.offload(t)
	if ce == nil || len(in) != 1 || len(out) != 1 {
		return false, nil
	}
	width, kind, bits, fits := offloadOperand(in[0])
	if !fits {
		return false, nil
	}
	cop, known := map[ReduceOp]conduit.ReduceOp{Sum: conduit.ReduceSum, Prod: conduit.ReduceProd, Min: conduit.ReduceMin,
		Max: conduit.ReduceMax, And: conduit.ReduceAnd, Or: conduit.ReduceOr, Xor: conduit.ReduceXor}[op]
	if !known || (kind == conduit.ReduceFloat && (op == And || op == Or || op == Xor)) {
		return false, nil
	}
	if err := pe.quiet("Allreduce"); err != nil {
		return true, err
	}
	c, err := ce.OffloadAllreduce(cop, kind, width, bits)
	ok, r, err := pe.offloaded("Allreduce", c, err)
	if ok && err == nil {
		out[0] = offloadValue[T](width, r)
	}
	return ok, err
}

// offloaded waits for collective c the engine started (or failed to
// start, err) and returns its result; ok is false when the engine does
// not have it (conduit.ErrUnsupported) and the runtime must do it itself.
func (pe *PE) offloaded(name string, c conduit.Collective, err error) (ok bool, r uint64, werr error) {
	if errors.Is(err, conduit.ErrUnsupported) {
		return false, 0, nil
	}
	if err != nil {
		return true, 0, pe.wrap(name, err)
	}
	r, err = pe.waitCollective(name, c)
	return true, r, err
}

// offloadOperand is v as the engine takes it: its width, kind and bits;
// fits is false for a width other than 4 or 8 bytes.
func offloadOperand[T Number](v T) (width int, kind conduit.ReduceKind, bits uint64, fits bool) {
	width = int(unsafe.Sizeof(v))
	if width != 4 && width != 8 {
		return 0, 0, 0, false
	}
	kind = conduit.ReduceUint
	var neg T
	neg--
	switch {
	case isFloat[T]():
		kind = conduit.ReduceFloat
	case neg < 0:
		kind = conduit.ReduceInt
	}
	if width == 4 {
		bits = uint64(*(*uint32)(unsafe.Pointer(&v)))
	} else {
		bits = *(*uint64)(unsafe.Pointer(&v))
	}
	return width, kind, bits, true
}

// offloadValue is the T of an engine's result of width bytes.
func offloadValue[T Number](width int, r uint64) T {
	var v T
	if width == 4 {
		*(*uint32)(unsafe.Pointer(&v)) = uint32(r)
	} else {
		*(*uint64)(unsafe.Pointer(&v)) = r
	}
	return v
}
