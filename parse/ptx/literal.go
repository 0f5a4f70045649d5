package ptx

import "math"

// How a literal becomes the bits of a value of type t. Instruction operands
// (rt/soft's decoder) and variable initializers (the model and rt/soft's
// loader, through Var.InitData) both convert here, so a literal means the
// same thing to all of them.

// Encode returns the bits of the integer immediate as an operand of type t;
// see IntBits.
func (i *Imm) Encode(t Type) uint64 { return IntBits(i.Val, t) }

// Encode returns the bits of the floating-point immediate as an operand of
// type t; see FloatBits.
func (f *FImm) Encode(t Type) (uint64, bool) { return FloatBits(f.Val, f.Bits, f.BitsLen, t) }

// IntBits converts an integer literal (negative ones in two's complement, as
// the parser stores them) to type t: .f32 and .f64 take its signed value,
// rounded to nearest even; every other type, .f16 and .bf16 included, takes
// its bits, truncated to t's width when that is under 8 bytes.
func IntBits(v uint64, t Type) uint64 {
	switch t {
	case F32:
		return uint64(math.Float32bits(float32(int64(v))))
	case F64:
		return math.Float64bits(float64(int64(v)))
	}
	if n := t.Size(); n > 0 && n < 8 {
		return v & (1<<(8*n) - 1)
	}
	return v
}

// FloatBits converts a floating-point literal to type t. val is its value;
// a 0f (bitsLen 32) or 0d (bitsLen 64) literal also has its exact bits.
//
//   - .f32, .f64: a hex literal of the type's own width keeps its bits (NaN
//     payloads too); anything else is its value rounded to nearest even.
//   - .f16, .bf16: the value rounded to nearest even; every NaN becomes
//     0x7fff, as rt/soft's arithmetic makes it.
//   - other 16-, 32- and 64-bit types (.b32, .u64, .f16x2, ...): a hex
//     literal's bits as written (storing them keeps t's width); a decimal
//     literal has no bits, and ok is false.
//
// ok is false, too, for the types no float literal converts to (.b8, .tf32,
// .b128, .pred).
func FloatBits(val float64, bits uint64, bitsLen int, t Type) (_ uint64, ok bool) {
	switch bitsLen {
	case 32:
		val = float64(math.Float32frombits(uint32(bits)))
	case 64:
		val = math.Float64frombits(bits)
	}
	switch t {
	case F32:
		if bitsLen == 32 {
			return bits, true
		}
		return uint64(math.Float32bits(float32(val))), true
	case F64:
		if bitsLen == 64 {
			return bits, true
		}
		return math.Float64bits(val), true
	case F16:
		return roundHalf(val, 10, 5), true
	case BF16:
		return roundHalf(val, 7, 8), true
	case F16x2, BF16x2, B16, U16, S16, B32, U32, S32, B64, U64, S64:
		return bits, bitsLen != 0
	}
	return 0, false
}

// roundHalf rounds x to nearest even in the binary format with man stored
// significand bits and exp exponent bits (.f16: 10, 5; .bf16: 7, 8) and
// returns its bits; every NaN becomes 0x7fff.
func roundHalf(x float64, man, exp uint) uint64 {
	if x != x {
		return 0x7fff
	}
	var sign uint64
	if math.Signbit(x) {
		sign = 1 << (man + exp)
	}
	ax := math.Abs(x)
	bias := 1<<(exp-1) - 1
	inf := sign | (1<<exp-1)<<man
	switch {
	case math.IsInf(ax, 0):
		return inf
	case ax == 0:
		return sign
	}
	e := max(math.Ilogb(ax), 1-bias) // below the normal range the scale stays fixed
	n := math.Ldexp(ax, int(man)-e)  // the significand, scaled exactly
	m := uint64(n)
	if frac := n - float64(m); frac > 0.5 || frac == 0.5 && m&1 == 1 {
		m++
	}
	if m == 1<<(man+1) { // rounded up to the next binade
		m >>= 1
		e++
	}
	switch {
	case e > bias:
		return inf
	case m < 1<<man: // subnormal
		return sign | m
	}
	return sign | uint64(e+bias)<<man | (m - 1<<man)
}
