package rt

import "math"

// Float8E4M3 is CUDA's __nv_fp8_e4m3 as its bit pattern: 1 sign, 4
// exponent (bias 7) and 3 mantissa bits, no infinity, NaN S.1111.111,
// largest finite 448. Convert with Float8E4M3From and Float32.
type Float8E4M3 uint8

// Float8E5M2 is CUDA's __nv_fp8_e5m2 as its bit pattern: 1 sign, 5
// exponent (bias 15) and 2 mantissa bits, IEEE-like (infinity S.11111.00),
// largest finite 57344. Convert with Float8E5M2From and Float32.
type Float8E5M2 uint8

// fp8Format is one fp8 encoding's parameters.
type fp8Format struct {
	mant, bias int
	maxFinite  uint8 // the largest finite magnitude's bits
	noInf      bool  // e4m3: the top exponent holds numbers, and NaN is all ones
}

var (
	fp8E4M3 = fp8Format{mant: 3, bias: 7, maxFinite: 0x7e, noInf: true}
	fp8E5M2 = fp8Format{mant: 2, bias: 15, maxFinite: 0x7b}
)

// fp8NaN is the NaN every conversion to fp8 gives.
const fp8NaN = 0x7f

// Float8E4M3From rounds f to the nearest e4m3 value, ties to even,
// saturating: values beyond ±448, and infinities, become ±448; NaN becomes
// 0x7f. It is __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3), the
// conversion of the __nv_fp8_e4m3 constructors (cvt.rn.satfinite on sm_89+).
func Float8E4M3From(f float32) Float8E4M3 { return Float8E4M3(fp8E4M3.from(float64(f))) }

// Float8E5M2From is Float8E4M3From's e5m2 counterpart: values beyond
// ±57344, and infinities, become ±57344; NaN becomes 0x7f.
func Float8E5M2From(f float32) Float8E5M2 { return Float8E5M2(fp8E5M2.from(float64(f))) }

// Float32 is v's exact value (NaN for NaN).
func (v Float8E4M3) Float32() float32 { return float32(fp8E4M3.value(uint8(v))) }

// Float32 is v's exact value (±Inf and NaN as such).
func (v Float8E5M2) Float32() float32 { return float32(fp8E5M2.value(uint8(v))) }

// Put stores v in b[0].
func (v Float8E4M3) Put(b []byte) { b[0] = byte(v) }

// Put stores v in b[0].
func (v Float8E5M2) Put(b []byte) { b[0] = byte(v) }

// from rounds x (float32 precision or less, so one rounding here) to the
// format, ties to even, saturating to the largest finite value.
func (f fp8Format) from(x float64) uint8 {
	if x != x {
		return fp8NaN
	}
	var sign uint8
	if math.Signbit(x) {
		sign = 0x80
	}
	ax := math.Abs(x)
	switch {
	case math.IsInf(ax, 0):
		return sign | f.maxFinite
	case ax == 0:
		return sign
	}
	emin := 1 - f.bias
	e := max(math.Ilogb(ax), emin)
	m := uint64(math.RoundToEven(math.Ldexp(ax, f.mant-e))) // exact: ax has at most 24 significant bits
	if m == 1<<(f.mant+1) {
		m >>= 1
		e++
	}
	if m < 1<<f.mant { // subnormal (e is emin)
		return sign | uint8(m)
	}
	v := uint64(e+f.bias)<<f.mant | (m - 1<<f.mant)
	return sign | uint8(min(v, uint64(f.maxFinite)))
}

// value decodes b exactly.
func (f fp8Format) value(b uint8) float64 {
	e := int(b>>f.mant) & (1<<(7-f.mant) - 1)
	m := int(b) & (1<<f.mant - 1)
	top := 1<<(7-f.mant) - 1
	var x float64
	switch {
	case f.noInf && e == top && m == 1<<f.mant-1, !f.noInf && e == top && m != 0:
		return math.NaN()
	case !f.noInf && e == top:
		x = math.Inf(1)
	case e == 0:
		x = math.Ldexp(float64(m), 1-f.bias-f.mant)
	default:
		x = math.Ldexp(float64(m|1<<f.mant), e-f.bias-f.mant)
	}
	if b&0x80 != 0 {
		x = -x
	}
	return x
}
