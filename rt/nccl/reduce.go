package nccl

import (
	"math"
	"unsafe"

	"github.com/cugen/cugen/rt"
)

// The soft engine's arithmetic: NCCL's reductions as its device code
// computes them (src/device/reduce_kernel.h, sm_90), one element at a
// time, in rank order.
//
//   - Integers wrap; Avg sums (wrapping) and divides by the rank count,
//     rounding toward zero.
//   - float32 and float64 use Go's IEEE arithmetic, which rounds each
//     operation as the GPU does; Min and Max ignore a NaN operand and
//     order -0 below +0 (fminf, fmaxf).
//   - half and bfloat16 round each operation to their own precision
//     (__hadd, __hmul, __hmin, __hmax): the exact result rounded once to
//     float32, then to the type, which is the exact result rounded once
//     (float32 has more than twice their precision plus two bits).
//   - fp8 converts to half, operates in half (rounded to half), and
//     converts back rounding to nearest and saturating to the largest
//     finite value, as NCCL's __nv_fp8 code does.
//   - Every NaN result is the GPU's canonical NaN (all mantissa bits set).
//   - PreMulSum multiplies each rank's input by that rank's scalar,
//     rounding the product to the type, before the sum; floating-point Avg
//     is PreMulSum with the scalar 1/nranks rounded to the type (NCCL's
//     ncclAvg).

// hubOp is a reduction as the rendezvous applies it, after each rank's
// pre-multiplication.
type hubOp uint8

const (
	hubSum hubOp = iota
	hubProd
	hubMax
	hubMin
	hubSumDiv // Avg of integers: sum, then divide by the rank count
)

// hubOpOf maps a reduction to what the rendezvous applies: Avg and
// PreMulSum become sums (after the ranks' scaling) except Avg of integers.
func hubOpOf(op RedOp, dt DataType) hubOp {
	switch op {
	case Sum:
		return hubSum
	case Prod:
		return hubProd
	case Max:
		return hubMax
	case Min:
		return hubMin
	case Avg:
		if !dt.float() {
			return hubSumDiv
		}
	}
	return hubSum
}

// view reinterprets b as elements of T (b's length is a multiple of T's
// size, and its start aligned: Go allocations and element offsets are).
func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// combine sets acc[i] = acc[i] op in[i] for the elements of dt.
func combine(dt DataType, op hubOp, acc, in []byte) {
	switch dt {
	case Int8:
		combineInt(view[int8](acc), view[int8](in), op)
	case Uint8:
		combineInt(view[uint8](acc), view[uint8](in), op)
	case Int32:
		combineInt(view[int32](acc), view[int32](in), op)
	case Uint32:
		combineInt(view[uint32](acc), view[uint32](in), op)
	case Int64:
		combineInt(view[int64](acc), view[int64](in), op)
	case Uint64:
		combineInt(view[uint64](acc), view[uint64](in), op)
	case Float32:
		a, b := view[float32](acc), view[float32](in)
		for i := range a {
			a[i] = canon32(floatOp(a[i], b[i], op))
		}
	case Float64:
		a, b := view[float64](acc), view[float64](in)
		for i := range a {
			a[i] = canon64(floatOp(a[i], b[i], op))
		}
	case Float16:
		a, b := view[rt.Half](acc), view[rt.Half](in)
		for i := range a {
			a[i] = halfOp(a[i], b[i], op)
		}
	case BFloat16:
		a, b := view[rt.BFloat16](acc), view[rt.BFloat16](in)
		for i := range a {
			a[i] = bf16Op(a[i], b[i], op)
		}
	case Float8E4M3, Float8E5M2:
		for i := range acc {
			acc[i] = fp8Op(dt, acc[i], in[i], op)
		}
	}
}

type integer interface {
	~int8 | ~uint8 | ~int32 | ~uint32 | ~int64 | ~uint64
}

func combineInt[T integer](a, b []T, op hubOp) {
	switch op {
	case hubSum, hubSumDiv:
		for i := range a {
			a[i] += b[i]
		}
	case hubProd:
		for i := range a {
			a[i] *= b[i]
		}
	case hubMax:
		for i := range a {
			a[i] = max(a[i], b[i])
		}
	case hubMin:
		for i := range a {
			a[i] = min(a[i], b[i])
		}
	}
}

// finish applies the operation's last step to the reduced acc: the
// division of an integer Avg.
func finish(dt DataType, op hubOp, acc []byte, nranks int) {
	if op != hubSumDiv {
		return
	}
	switch dt {
	case Int8:
		divInt(view[int8](acc), int8(nranks))
	case Uint8:
		divInt(view[uint8](acc), uint8(nranks))
	case Int32:
		divInt(view[int32](acc), int32(nranks))
	case Uint32:
		divInt(view[uint32](acc), uint32(nranks))
	case Int64:
		divInt(view[int64](acc), int64(nranks))
	case Uint64:
		divInt(view[uint64](acc), uint64(nranks))
	}
}

// divInt divides rounding toward zero, as Go's / does and NCCL's
// FuncSumPostDiv (which divides the magnitude and restores the sign).
// NCCL divides in the type's width, so a rank count above the type's
// range (300 ranks averaging int8) divides by the count modulo it: as here.
func divInt[T integer](a []T, n T) {
	if n == 0 {
		return
	}
	for i := range a {
		a[i] /= n
	}
}

// floatOp is op on two floats, Min and Max as fminf/fmaxf (minNum, maxNum).
func floatOp[T float32 | float64](a, b T, op hubOp) T {
	switch op {
	case hubProd:
		return a * b
	case hubMax:
		return maxNum(a, b)
	case hubMin:
		return minNum(a, b)
	}
	return a + b
}

// minNum and maxNum are fminf/fmaxf: a NaN operand is ignored, and -0 is
// below +0.
func minNum[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a == b && a == 0:
		if math.Signbit(float64(a)) {
			return a
		}
		return b
	case b < a:
		return b
	}
	return a
}

func maxNum[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a == b && a == 0:
		if math.Signbit(float64(a)) {
			return b
		}
		return a
	case b > a:
		return b
	}
	return a
}

func canon32(x float32) float32 {
	if x != x {
		return math.Float32frombits(0x7fffffff)
	}
	return x
}

func canon64(x float64) float64 {
	if x != x {
		return math.Float64frombits(0x7fffffffffffffff)
	}
	return x
}

// halfOp is __hadd, __hmul, __hmax or __hmin: the float32 result (exact
// for a product, once rounded for a sum) rounded to half.
func halfOp(a, b rt.Half, op hubOp) rt.Half {
	r := floatOp(a.Float32(), b.Float32(), op)
	if r != r {
		return 0x7fff
	}
	return rt.HalfFrom(r)
}

func bf16Op(a, b rt.BFloat16, op hubOp) rt.BFloat16 {
	r := floatOp(a.Float32(), b.Float32(), op)
	if r != r {
		return 0x7fff
	}
	return rt.BFloat16From(r)
}

// fp8Op operates in half and converts back (NCCL's __nv_fp8 reductions).
func fp8Op(dt DataType, a, b byte, op hubOp) byte {
	h := halfOp(rt.HalfFrom(fp8Value(dt, a)), rt.HalfFrom(fp8Value(dt, b)), op)
	return fp8From(dt, h.Float32())
}

func fp8Value(dt DataType, b byte) float32 {
	if dt == Float8E4M3 {
		return rt.Float8E4M3(b).Float32()
	}
	return rt.Float8E5M2(b).Float32()
}

func fp8From(dt DataType, f float32) byte {
	if dt == Float8E4M3 {
		return byte(rt.Float8E4M3From(f))
	}
	return byte(rt.Float8E5M2From(f))
}

// preMultiply multiplies each element of buf by scalar (one element of
// dt), rounding each product to dt: the pre-operation of PreMulSum.
func preMultiply(dt DataType, buf, scalar []byte) {
	switch dt {
	case Int8:
		mulInt(view[int8](buf), view[int8](scalar)[0])
	case Uint8:
		mulInt(view[uint8](buf), scalar[0])
	case Int32:
		mulInt(view[int32](buf), view[int32](scalar)[0])
	case Uint32:
		mulInt(view[uint32](buf), view[uint32](scalar)[0])
	case Int64:
		mulInt(view[int64](buf), view[int64](scalar)[0])
	case Uint64:
		mulInt(view[uint64](buf), view[uint64](scalar)[0])
	case Float32:
		a, s := view[float32](buf), view[float32](scalar)[0]
		for i := range a {
			a[i] = canon32(float32(a[i] * s))
		}
	case Float64:
		a, s := view[float64](buf), view[float64](scalar)[0]
		for i := range a {
			a[i] = canon64(float64(a[i] * s))
		}
	case Float16:
		a, s := view[rt.Half](buf), view[rt.Half](scalar)[0]
		for i := range a {
			a[i] = halfOp(a[i], s, hubProd)
		}
	case BFloat16:
		a, s := view[rt.BFloat16](buf), view[rt.BFloat16](scalar)[0]
		for i := range a {
			a[i] = bf16Op(a[i], s, hubProd)
		}
	case Float8E4M3, Float8E5M2:
		for i := range buf {
			buf[i] = fp8Op(dt, buf[i], scalar[0], hubProd)
		}
	}
}

func mulInt[T integer](a []T, s T) {
	for i := range a {
		a[i] *= s
	}
}

// avgScalar is the scalar floating-point Avg pre-multiplies by: 1/nranks
// rounded to dt, computed as NCCL's hostToDevRedOp does (in double, then
// through float for the narrow types).
func avgScalar(dt DataType, nranks int) []byte {
	r := 1.0 / float64(nranks)
	b := make([]byte, dt.Size())
	switch dt {
	case Float32:
		putElem(b, float32(r))
	case Float64:
		putElem(b, r)
	case Float16:
		putElem(b, rt.HalfFrom(float32(r)))
	case BFloat16:
		putElem(b, rt.BFloat16From(float32(r)))
	case Float8E4M3, Float8E5M2:
		b[0] = fp8From(dt, float32(r))
	}
	return b
}
