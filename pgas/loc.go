package pgas

import (
	"unsafe"

	"github.com/gopgas/gopgas/conduit"
)

// Loc is a value with its location: the operand of AllreduceLoc, as MPI's
// MINLOC and MAXLOC pairs (a value and, say, the rank or index it came
// from).
type Loc[T Number] struct {
	Value T
	Loc   int64
}

// AllreduceLoc combines every member's in element-wise into every
// member's out (len(out) == len(in)) with Min or Max on the values: each
// out element is the least (greatest) value and its location, the
// smallest location among equal values. in and out may be the same slice.
// A single element of the world team goes to the network's collective
// engine when it has minimum and maximum with a location (the Aries
// engine's "min/max with location"); anything else reduces in software.
func AllreduceLoc[T Number](t *Team, op ReduceOp, in, out []Loc[T]) error {
	if err := t.check("AllreduceLoc"); err != nil {
		return err
	}
	if len(in) == len(out) && (op == Min || op == Max) {
		if done, err := offloadAllreduceLoc(t, op, in, out); done {
			return err
		}
	}
	c, err := t.begin("AllreduceLoc")
	if err != nil {
		return err
	}
	if op != Min && op != Max {
		return t.pe.errf("AllreduceLoc", ErrArgument, "%v: only min and max have a location", op)
	}
	if len(out) != len(in) {
		return t.pe.errf("AllreduceLoc", ErrArgument, "out has %d elements, in %d", len(out), len(in))
	}
	acc := append([]Loc[T](nil), in...)
	combine := func(dst, src []byte) {
		n := len(dst) / int(unsafe.Sizeof(Loc[T]{}))
		d := unsafe.Slice((*Loc[T])(unsafe.Pointer(unsafe.SliceData(dst))), n)
		s := unsafe.Slice((*Loc[T])(unsafe.Pointer(unsafe.SliceData(src))), n)
		for i := range d {
			d[i] = locCombine(op, d[i], s[i])
		}
	}
	if err := c.reduce(0, 1, asBytes(acc), combine); err != nil {
		return err
	}
	if err := c.bcast(0, 2, asBytes(acc)); err != nil {
		return err
	}
	copy(out, acc)
	return nil
}

// locCombine is the pair op keeps of a and b.
func locCombine[T Number](op ReduceOp, a, b Loc[T]) Loc[T] {
	switch {
	case a.Value == b.Value:
		if b.Loc < a.Loc {
			return b
		}
		return a
	case (op == Min) == (b.Value < a.Value):
		return b
	}
	return a
}

// offloadAllreduceLoc tries an AllreduceLoc of one element on the
// collective engine; ok is false when the engine cannot do it.
func offloadAllreduceLoc[T Number](t *Team, op ReduceOp, in, out []Loc[T]) (ok bool, err error) {
	pe := t.pe
	ce, hasLoc := pe.offload(t).(conduit.LocOffload)
	if !hasLoc || len(in) != 1 {
		return false, nil
	}
	width, kind, bits, fits := offloadOperand(in[0].Value)
	if !fits {
		return false, nil
	}
	cop := conduit.ReduceMin
	if op == Max {
		cop = conduit.ReduceMax
	}
	if err := pe.quiet("AllreduceLoc"); err != nil {
		return true, err
	}
	c, err := ce.OffloadAllreduceLoc(cop, kind, width, bits, uint64(in[0].Loc))
	ok, r, err := pe.offloaded("AllreduceLoc", c, err)
	if ok && err == nil {
		out[0] = Loc[T]{Value: offloadValue[T](width, r), Loc: int64(c.Location())}
	}
	return ok, err
}
