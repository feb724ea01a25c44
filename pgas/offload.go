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
	var zero T
	width := int(unsafe.Sizeof(zero))
	if width != 4 && width != 8 {
		return false, nil
	}
	kind := conduit.ReduceUint
	var neg T
	neg--
	switch {
	case isFloat[T]():
		kind = conduit.ReduceFloat
	case neg < 0:
		kind = conduit.ReduceInt
	}
	cop, known := map[ReduceOp]conduit.ReduceOp{Sum: conduit.ReduceSum, Prod: conduit.ReduceProd, Min: conduit.ReduceMin,
		Max: conduit.ReduceMax, And: conduit.ReduceAnd, Or: conduit.ReduceOr, Xor: conduit.ReduceXor}[op]
	if !known || (kind == conduit.ReduceFloat && (op == And || op == Or || op == Xor)) {
		return false, nil
	}
	if err := pe.quiet("Allreduce"); err != nil {
		return true, err
	}
	v := in[0]
	var bits uint64
	if width == 4 {
		bits = uint64(*(*uint32)(unsafe.Pointer(&v)))
	} else {
		bits = *(*uint64)(unsafe.Pointer(&v))
	}
	c, err := ce.OffloadAllreduce(cop, kind, width, bits)
	if errors.Is(err, conduit.ErrUnsupported) {
		return false, nil
	}
	if err != nil {
		return true, pe.wrap("Allreduce", err)
	}
	r, err := pe.waitCollective("Allreduce", c)
	if err != nil {
		return true, err
	}
	if width == 4 {
		*(*uint32)(unsafe.Pointer(&out[0])) = uint32(r)
	} else {
		*(*uint64)(unsafe.Pointer(&out[0])) = r
	}
	return true, nil
}
