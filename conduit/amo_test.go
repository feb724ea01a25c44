package conduit_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gopgas/gopgas/conduit"
)

// TestApplyAMOMatchesDefinition checks that the atomic implementation of
// every operation leaves the word AMOResult defines and returns the old
// value, on both widths.
func TestApplyAMOMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		width := rapid.SampledFrom([]uint8{4, 8}).Draw(t, "width")
		op := conduit.AMOOp(rapid.IntRange(int(conduit.AMOAdd), int(conduit.AMOFAdd)).Draw(t, "op"))
		if op == conduit.AMOFAdd && width == 4 {
			width = 8
		}
		old := rapid.Uint64().Draw(t, "old")
		operand := rapid.Uint64().Draw(t, "operand")
		compare := rapid.SampledFrom([]uint64{old, rapid.Uint64().Draw(t, "other")}).Draw(t, "compare")
		if width == 4 {
			old, operand, compare = old&math.MaxUint32, operand&math.MaxUint32, compare&math.MaxUint32
		}
		words := make([]uint64, 1)
		mem := unsafeBytes(words)
		if width == 4 {
			binary.NativeEndian.PutUint32(mem, uint32(old))
		} else {
			binary.NativeEndian.PutUint64(mem, old)
		}
		got := conduit.ApplyAMO(mem, op, width, operand, compare)
		require.Equal(t, old, got, "returned old value")
		var now uint64
		if width == 4 {
			now = uint64(binary.NativeEndian.Uint32(mem))
		} else {
			now = binary.NativeEndian.Uint64(mem)
		}
		want := conduit.AMOResult(op, width, old, operand, compare)
		if op == conduit.AMOFAdd && math.IsNaN(math.Float64frombits(want)) {
			require.True(t, math.IsNaN(math.Float64frombits(now)))
			return
		}
		require.Equal(t, want, now, "%v width %d old %#x operand %#x compare %#x", op, width, old, operand, compare)
	})
}

func TestAMOResultDefinitions(t *testing.T) {
	neg := func(v int64) uint64 { return uint64(v) }
	cases := []struct {
		op                    conduit.AMOOp
		width                 uint8
		old, operand, compare uint64
		want                  uint64
	}{
		{conduit.AMOAdd, 8, 5, 7, 0, 12},
		{conduit.AMOAdd, 4, math.MaxUint32, 1, 0, 0},
		{conduit.AMOAnd, 8, 0b1100, 0b1010, 0, 0b1000},
		{conduit.AMOOr, 8, 0b1100, 0b1010, 0, 0b1110},
		{conduit.AMOXor, 8, 0b1100, 0b1010, 0, 0b0110},
		{conduit.AMOSwap, 8, 1, 2, 0, 2},
		{conduit.AMOCSwap, 8, 1, 2, 1, 2},
		{conduit.AMOCSwap, 8, 1, 2, 3, 1},
		{conduit.AMOMin, 8, neg(-3), 2, 0, neg(-3)},
		{conduit.AMOMax, 8, neg(-3), 2, 0, 2},
		{conduit.AMOMin, 4, uint64(uint32(0xfffffffd)), 2, 0, uint64(uint32(0xfffffffd))},
		{conduit.AMOUMin, 8, neg(-3), 2, 0, 2},
		{conduit.AMOUMax, 8, neg(-3), 2, 0, neg(-3)},
		{conduit.AMOFAdd, 8, math.Float64bits(1.5), math.Float64bits(2.25), 0, math.Float64bits(3.75)},
	}
	for _, c := range cases {
		require.Equal(t, c.want, conduit.AMOResult(c.op, c.width, c.old, c.operand, c.compare), "%v/%d", c.op, c.width)
	}
}
