package aries

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gopgas/gopgas/conduit"
)

func TestCECombine(t *testing.T) {
	f := func(x float64) ceOperand { return ceOperand{bits: math.Float64bits(x)} }
	assert.Equal(t, 4.0, math.Float64frombits(ceCombine(conduit.ReduceSum, conduit.ReduceFloat, 8, f(1.5), f(2.5)).bits))
	f32 := func(x float32) ceOperand { return ceOperand{bits: uint64(math.Float32bits(x))} }
	assert.Equal(t, float32(-1), math.Float32frombits(uint32(ceCombine(conduit.ReduceMin, conduit.ReduceFloat, 4, f32(3), f32(-1)).bits)))
	neg := ceOperand{bits: uint64(math.MaxUint32)} // int32 -1
	assert.Equal(t, uint64(math.MaxUint32), ceCombine(conduit.ReduceMin, conduit.ReduceInt, 4, ceOperand{bits: 5}, neg).bits)
	assert.Equal(t, uint64(5), ceCombine(conduit.ReduceMin, conduit.ReduceUint, 4, ceOperand{bits: 5}, neg).bits)
	assert.Equal(t, uint64(3), ceCombine(conduit.ReduceSum, conduit.ReduceInt, 4, ceOperand{bits: math.MaxUint32}, ceOperand{bits: 4}).bits, "32-bit wrap")
	// MINLOC / MAXLOC: the value and the identifier travel together; ties
	// keep the smaller identifier.
	a, b := ceOperand{bits: 7, loc: 12}, ceOperand{bits: 7, loc: 3}
	assert.Equal(t, uint64(3), ceCombine(conduit.ReduceMax, conduit.ReduceInt, 8, a, b).loc)
	c := ceOperand{bits: 9, loc: 40}
	assert.Equal(t, c, ceCombine(conduit.ReduceMax, conduit.ReduceInt, 8, a, c))
	assert.Equal(t, a, ceCombine(conduit.ReduceMin, conduit.ReduceInt, 8, a, c))
	assert.Equal(t, uint64(6), ceCombine(conduit.ReduceXor, conduit.ReduceUint, 8, ceOperand{bits: 5}, ceOperand{bits: 3}).bits)
}
