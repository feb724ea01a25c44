package pgas_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// colltLoc checks AllreduceLoc of op over the world team against a serial
// fold: values with many ties (the smallest location must win them), each
// PE's locations its own.
func colltLoc[T pgas.Number](pe *pgas.PE, op pgas.ReduceOp, n int, value func(r, i int) T) error {
	gen := func(r, i int) pgas.Loc[T] {
		return pgas.Loc[T]{Value: value(r, i), Loc: int64(1000*((r*7)%pe.Size()) + i)}
	}
	want := colltSerial(pe.Size(), n, gen, func(a, b pgas.Loc[T]) pgas.Loc[T] {
		switch {
		case a.Value == b.Value && b.Loc < a.Loc, a.Value != b.Value && (op == pgas.Min) == (b.Value < a.Value):
			return b
		}
		return a
	})
	in := colltFill(pe.Rank(), n, gen)
	out := make([]pgas.Loc[T], n)
	if err := pgas.AllreduceLoc(pe.World(), op, in, out); err != nil {
		return err
	}
	if d := colltDiff(out, want); d != "" {
		return fmt.Errorf("AllreduceLoc %v of %d %T: %s", op, n, *new(T), d)
	}
	// In place.
	if err := pgas.AllreduceLoc(pe.World(), op, in, in); err != nil {
		return err
	}
	if d := colltDiff(in, want); d != "" {
		return fmt.Errorf("AllreduceLoc %v of %d %T in place: %s", op, n, *new(T), d)
	}
	return nil
}

// TestAllreduceLoc: minimum and maximum with their locations, for several
// element types, sizes and job sizes; ties go to the smallest location.
func TestAllreduceLoc(t *testing.T) {
	for _, pes := range colltPEs {
		t.Run(fmt.Sprint(pes, " PEs"), func(t *testing.T) {
			err := pgas.Run(colltConfig(pes), func(pe *pgas.PE) error {
				for _, op := range []pgas.ReduceOp{pgas.Min, pgas.Max} {
					for _, n := range []int{0, 1, 7, 300} {
						if err := colltLoc(pe, op, n, func(r, i int) int32 { return int32((r*5+i)%3 - 1) }); err != nil {
							return err
						}
						if err := colltLoc(pe, op, n, func(r, i int) float64 { return float64((r+i)%4) / 2 }); err != nil {
							return err
						}
						if err := colltLoc(pe, op, n, func(r, i int) uint8 { return uint8(r ^ i) }); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAllreduceLocBadInput: operators without a location and mismatched
// lengths are errors naming the call.
func TestAllreduceLocBadInput(t *testing.T) {
	err := pgas.Run(colltConfig(3), func(pe *pgas.PE) error {
		in := []pgas.Loc[int64]{{Value: 1, Loc: 2}}
		err := pgas.AllreduceLoc(pe.World(), pgas.Sum, in, in)
		if !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("sum: %v, want ErrArgument", err)
		}
		if err := pgas.AllreduceLoc(pe.World(), pgas.Min, in, make([]pgas.Loc[int64], 2)); !errors.Is(err, pgas.ErrArgument) {
			return fmt.Errorf("lengths 1 and 2: %v, want ErrArgument", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
