package aries

import (
	"fmt"
	"math"

	"github.com/gopgas/gopgas/conduit"
)

// The arithmetic of the collective engine's reductions (whitepaper,
// Reductions and Barriers; calibration row A-CE-SHAPE): the operands, the
// operations the engine has, and how it combines two operands.

// ceOperand is a value of a reduction, with the identifier MINLOC and
// MAXLOC carry.
type ceOperand struct {
	bits uint64
	loc  uint64
}

// ceSupports reports whether the engine reduces op on kind and width
// (4 or 8 bytes); the runtime reduces the others in software.
func ceSupports(op conduit.ReduceOp, kind conduit.ReduceKind, width int) bool {
	if width != 4 && width != 8 {
		return false
	}
	switch op {
	case conduit.ReduceSum, conduit.ReduceMin, conduit.ReduceMax:
		return kind == conduit.ReduceInt || kind == conduit.ReduceUint || kind == conduit.ReduceFloat
	case conduit.ReduceAnd, conduit.ReduceOr, conduit.ReduceXor:
		return kind == conduit.ReduceInt || kind == conduit.ReduceUint
	}
	return false // ReduceProd: "Aries does not support MPI_PROD"
}

// ceCombine reduces two operands. For min and max with locations, ties
// keep the smaller identifier (as MPI_MINLOC and MPI_MAXLOC).
func ceCombine(op conduit.ReduceOp, kind conduit.ReduceKind, width int, a, b ceOperand) ceOperand {
	mask := uint64(math.MaxUint64)
	if width == 4 {
		mask = math.MaxUint32
	}
	x, y := a.bits&mask, b.bits&mask
	cmp := compare(kind, width, x, y)
	switch op {
	case conduit.ReduceSum:
		return ceOperand{bits: add(kind, width, x, y) & mask}
	case conduit.ReduceMin, conduit.ReduceMax:
		pick := a
		if (op == conduit.ReduceMin && cmp > 0) || (op == conduit.ReduceMax && cmp < 0) || (cmp == 0 && b.loc < a.loc) {
			pick = b
		}
		pick.bits &= mask
		return pick
	case conduit.ReduceAnd:
		return ceOperand{bits: x & y}
	case conduit.ReduceOr:
		return ceOperand{bits: x | y}
	case conduit.ReduceXor:
		return ceOperand{bits: x ^ y}
	}
	return a
}

func add(kind conduit.ReduceKind, width int, x, y uint64) uint64 {
	if kind != conduit.ReduceFloat {
		return x + y
	}
	if width == 4 {
		return uint64(math.Float32bits(math.Float32frombits(uint32(x)) + math.Float32frombits(uint32(y))))
	}
	return math.Float64bits(math.Float64frombits(x) + math.Float64frombits(y))
}

// compare orders x and y as kind: -1, 0 or 1.
func compare(kind conduit.ReduceKind, width int, x, y uint64) int {
	switch kind {
	case conduit.ReduceFloat:
		var fx, fy float64
		if width == 4 {
			fx, fy = float64(math.Float32frombits(uint32(x))), float64(math.Float32frombits(uint32(y)))
		} else {
			fx, fy = math.Float64frombits(x), math.Float64frombits(y)
		}
		switch {
		case fx < fy:
			return -1
		case fx > fy:
			return 1
		}
		return 0
	case conduit.ReduceInt:
		var ix, iy int64
		if width == 4 {
			ix, iy = int64(int32(uint32(x))), int64(int32(uint32(y)))
		} else {
			ix, iy = int64(x), int64(y)
		}
		switch {
		case ix < iy:
			return -1
		case ix > iy:
			return 1
		}
		return 0
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// ceOpName and ceKindName name a reduction's operator and operand type
// for errors.
func ceOpName(op conduit.ReduceOp) string {
	names := [...]string{"", "sum", "min", "max", "and", "or", "xor", "product"}
	if int(op) < len(names) && op > 0 {
		return names[op]
	}
	return fmt.Sprintf("ReduceOp(%d)", uint8(op))
}

func ceKindName(k conduit.ReduceKind) string {
	names := [...]string{"", "int", "uint", "float"}
	if int(k) < len(names) && k > 0 {
		return names[k]
	}
	return fmt.Sprintf("ReduceKind(%d)", uint8(k))
}
