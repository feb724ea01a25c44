package pgas_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// Tests of the allreduce through flags (coll_direct.go): team sizes that
// fold (not powers of two), many allreduces in a row (the slots' two sets
// alternate), teams from Split sharing the world's members, the same
// answer with direct access off (active messages), identical floating-point
// bits on every member, and a length mismatch reported, not read wrong.

func TestDirectAllreduce(t *testing.T) {
	for _, n := range []int{2, 3, 5, 6, 8, 9, 13, 17} {
		for _, direct := range []pgas.Switch{pgas.On, pgas.Off} {
			t.Run(fmt.Sprintf("PEs=%d/direct=%v", n, direct == pgas.On), func(t *testing.T) {
				cfg := pgas.Config{PEs: n, SegmentBytes: pgas.MinSegmentBytes, Direct: direct}
				err := pgas.Run(cfg, func(pe *pgas.PE) error {
					if err := directAllreduceRounds(pe.World(), pe.Rank(), n, "world"); err != nil {
						return err
					}
					odd, err := pe.World().Split(pe.Rank()%2, -pe.Rank())
					if err != nil {
						return err
					}
					return directAllreduceRounds(odd, pe.Rank(), n, "split")
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// directAllreduceRounds runs 40 allreduces of int64 sums and maxima and
// float64 sums of 1 to 7 elements on tm and checks them against the serial
// answer; me is the PE's global rank, n the job size.
func directAllreduceRounds(tm *pgas.Team, me, n int, what string) error {
	for round := range 40 {
		k := round%7 + 1
		in := make([]int64, k)
		for i := range in {
			in[i] = int64(me*1000 + round*10 + i)
		}
		out := make([]int64, k)
		if err := pgas.Allreduce(tm, pgas.Sum, in, out); err != nil {
			return fmt.Errorf("%s round %d: %w", what, round, err)
		}
		var members []int
		for g := range n {
			if tm.Size() == n || g%2 == me%2 {
				members = append(members, g)
			}
		}
		for i := range out {
			var want int64
			for _, g := range members {
				want += int64(g*1000 + round*10 + i)
			}
			if out[i] != want {
				return fmt.Errorf("%s round %d: sum[%d] = %d at PE %d, want %d", what, round, i, out[i], me, want)
			}
		}
		if err := pgas.Allreduce(tm, pgas.Max, in, in); err != nil {
			return fmt.Errorf("%s round %d: %w", what, round, err)
		}
		if want := int64(members[len(members)-1]*1000 + round*10); in[0] != want {
			return fmt.Errorf("%s round %d: max = %d at PE %d, want %d", what, round, in[0], me, want)
		}
		// Floating point: every member must hold the same bits.
		f := []float64{1 / float64(me+3), math.Sqrt(float64(me + round))}
		if err := pgas.Allreduce(tm, pgas.Sum, f, f); err != nil {
			return fmt.Errorf("%s round %d: %w", what, round, err)
		}
		bits := []uint64{math.Float64bits(f[0]), math.Float64bits(f[1])}
		all := make([]uint64, 2)
		if err := pgas.Allreduce(tm, pgas.Max, bits, all); err != nil {
			return err
		}
		if all[0] != bits[0] || all[1] != bits[1] {
			return fmt.Errorf("%s round %d: PE %d's float sum %v differs from another member's bits", what, round, me, f)
		}
	}
	return nil
}

func TestDirectAllreduceLengthMismatch(t *testing.T) {
	cfg := pgas.Config{PEs: 2, SegmentBytes: pgas.MinSegmentBytes, Direct: pgas.On}
	err := pgas.Run(cfg, func(pe *pgas.PE) error {
		in := make([]int64, 1+pe.Rank())
		err := pgas.Allreduce(pe.World(), pgas.Sum, in, in)
		if !errors.Is(err, pgas.ErrMismatch) {
			return fmt.Errorf("PE %d: Allreduce of mismatched lengths returned %v, want ErrMismatch", pe.Rank(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
