package gpumath

import "math"

// f64 NaN results, as the H100 gives them (recorded in rt/soft/testdata/fpnan.txt.gz):
// a NaN operand comes out quieted (bit 51 set) with its sign and payload;
// where several operands are NaN, add, sub, mul, min and max return the
// second operand's, fma (and mad) the second's, then the third's, then the
// first's, div the first's; an invalid operation (inf-inf, 0*inf, 0/0,
// sqrt of a negative) gives 0xfff8000000000000. f32 and half results are
// canonical NaNs (nan32, nan16) instead.
const (
	qbit64       = 1 << 51
	nan64Invalid = 0xfff8000000000000
)

func isNaN64(x uint64) bool { return x&^(1<<63) > 0x7ff0000000000000 }

// NaN1 returns r's bits; a NaN r becomes a quieted x if x is a NaN, else
// the invalid-operation NaN.
func NaN1(r float64, x uint64) uint64 {
	if r == r {
		return math.Float64bits(r)
	}
	if isNaN64(x) {
		return x | qbit64
	}
	return nan64Invalid
}

// NaN2 is nan1 with two operands, x taking precedence.
func NaN2(r float64, x, y uint64) uint64 {
	if r == r {
		return math.Float64bits(r)
	}
	switch {
	case isNaN64(x):
		return x | qbit64
	case isNaN64(y):
		return y | qbit64
	}
	return nan64Invalid
}

// NaN3 is nan1 with three operands in order of precedence.
func NaN3(r float64, x, y, z uint64) uint64 {
	if r == r {
		return math.Float64bits(r)
	}
	switch {
	case isNaN64(x):
		return x | qbit64
	case isNaN64(y):
		return y | qbit64
	case isNaN64(z):
		return z | qbit64
	}
	return nan64Invalid
}

// AbsNegF64 is abs.f64 (neg=false) and neg.f64: a sign-bit operation, but a
// NaN comes out quieted with its own sign (the H100 runs them as DADD).
func AbsNegF64(x uint64, neg bool) uint64 {
	switch {
	case isNaN64(x):
		return x | qbit64
	case neg:
		return x ^ 1<<63
	}
	return x &^ (1 << 63)
}

// AbsNeg16 is abs/neg on one f16 or bf16 (absNegX2 on packed pairs): a
// sign-bit operation, except that a NaN becomes the canonical 0x7fff.
func AbsNeg16(f SmallFmt, v uint64, neg bool) uint64 {
	v &= 0xffff
	if isNaNf(v, NaNFmt(f)) {
		return NaN16
	}
	if neg {
		return v ^ 0x8000
	}
	return v &^ 0x8000
}

func AbsNegX2(f SmallFmt, x uint64, neg bool) uint64 {
	return Pack16(AbsNeg16(f, Lo16(x), neg), AbsNeg16(f, Hi16(x), neg))
}

// A float conversion of a NaN keeps its sign and the top bits of its
// payload (shifted, or truncated) and sets the quiet bit (f64 ↔ f32, f16,
// bf16; recorded in rt/soft/testdata/fpnan.txt.gz). Conversions from f32 to
// halves, .ftz ones from f32 and .sat ones give the canonical NaN or 0.
type NaNFmt SmallFmt

var (
	NF64   = NaNFmt{52, 11}
	NF32   = NaNFmt{23, 8}
	NF16   = NaNFmt(F16)
	NFBF16 = NaNFmt(BF16)
)

func isNaNf(x uint64, f NaNFmt) bool {
	e := uint64(1)<<f.Ebits - 1
	return x>>f.Mant&e == e && x&(1<<f.Mant-1) != 0
}

// NaNCvt returns r, or for a NaN x (in format from) x converted to format to.
func NaNCvt(x uint64, from, to NaNFmt, r uint64) uint64 {
	if !isNaNf(x, from) {
		return r
	}
	m := x & (1<<from.Mant - 1)
	if from.Mant > to.Mant {
		m >>= from.Mant - to.Mant
	} else {
		m <<= to.Mant - from.Mant
	}
	s := x >> (from.Mant + from.Ebits) & 1
	return s<<(to.Mant+to.Ebits) | (1<<to.Ebits-1)<<to.Mant | 1<<(to.Mant-1) | m
}

// NaNTo returns r, or v for a NaN x.
func NaNTo(x uint64, from NaNFmt, v, r uint64) uint64 {
	if isNaNf(x, from) {
		return v
	}
	return r
}

// div.approx and div.full on f32 are, as ptxas 13.0 emits them for sm_90,
// MUFU.RCP of the divisor times the dividend (FMUL), with scaling around
// it (rt/soft/testdata/fpapprox/NOTES.md; the SASS is in sass.txt there):
//
//	div.approx.f32:     |b| < 2^-126 (not NaN): a, b scaled by 2^24
//	div.approx.ftz.f32: none; the FMUL is .FTZ
//	div.full.f32:       |b| > 2^126: a, b scaled by 1/4; |b| < 2^-126: by 2^24
//	div.full.ftz.f32:   |b| > 2^126: a, b scaled by 1/4 (FMUL.FTZ); FMUL.FTZ
//
// The .ftz forms' operands and result are flushed by the caller.
func DivApprox(a, b float32) float32 {
	if Tiny32(b) {
		a, b = a*0x1p24, b*0x1p24
	}
	return B32F(MufuRcp(F32B(b))) * a
}

func DivApproxFtz(a, b float32) float32 { return mulFtz32(B32F(MufuRcp(F32B(b))), a) }

// TinyMul32 returns a signed zero for a product x*y that is tiny, else r:
// mul.ftz.f32 (FMUL.FTZ) flushes a result that is below the normal range
// after rounding to 24 bits with an unbounded exponent (in mode rnd), also
// where rounding to the subnormal grid would give the smallest normal.
func TinyMul32(x, y, r float32, rnd int) float32 {
	p := float64(x) * float64(y) // exact
	if p == 0 || math.Abs(p) >= 0x1p-126 {
		return r
	}
	if f := Round32(p*0x1p200, 0, rnd); math.Abs(float64(f)) < 0x1p74 {
		return float32(math.Copysign(0, p))
	}
	return r
}

// mulFtz32 is FMUL.FTZ of two flushed operands (tinyMul32).
func mulFtz32(x, y float32) float32 { return TinyMul32(x, y, x*y, RN) }

func DivFull(a, b float32) float32 {
	if math.Abs(float64(b)) > 0x1p126 {
		a, b = a*0.25, b*0.25
	} else if Tiny32(b) {
		a, b = a*0x1p24, b*0x1p24
	}
	return B32F(MufuRcp(F32B(b))) * a
}

func DivFullFtz(a, b float32) float32 {
	if math.Abs(float64(b)) > 0x1p126 {
		a, b = mulFtz32(a, 0.25), b*0.25
	}
	return mulFtz32(B32F(MufuRcp(F32B(b))), a)
}

// MUFU.RCP64H and MUFU.RSQ64H take an f64's high word and return one, the
// low word of the result being zero. Over the fundamental domain ([1,2)
// for rcp, [1,4) for rsq) their result is the f32 unit's (MUFU.RCP, .RSQ)
// on the same 20 mantissa bits, truncated to the high word: checked for all
// 2^20 and 2^21 high words on the H100, and the scaling below for all 2^32.
func mufuRcp64h(h uint32) uint32 {
	s, a := h&0x80000000, h&0x7fffffff
	switch {
	case a > 0x7ff00000:
		return 0x7fffffff
	case a == 0x7ff00000:
		return s
	case a < 0x00100000:
		return s | 0x7ff00000
	}
	e := int64(a>>20) - 1023
	t := MufuRcp(0x3f800000 | (a&0xfffff)<<3)
	r := int64(math.Float64bits(float64(B32F(t)))>>32) - e<<20
	if r < 0x00100000 { // below the normal range: flushed
		return s
	}
	return s | uint32(r)
}

func mufuRsq64h(h uint32) uint32 {
	s, a := h&0x80000000, h&0x7fffffff
	switch {
	case a > 0x7ff00000:
		return 0x7fffffff
	case a == 0x7ff00000:
		if s != 0 {
			return 0x7fffffff
		}
		return 0
	case a < 0x00100000:
		return s | 0x7ff00000
	case s != 0:
		return 0x7fffffff
	}
	e := int64(a>>20) - 1023
	par := e & 1
	t := mufuRsq(uint32(127+par)<<23 | (a&0xfffff)<<3)
	return uint32(int64(math.Float64bits(float64(B32F(t)))>>32) - (e-par)/2<<20)
}

// rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 are the MUFU op alone.
func RcpApproxFtz64(x uint64) uint64   { return uint64(mufuRcp64h(uint32(x>>32))) << 32 }
func RsqrtApproxFtz64(x uint64) uint64 { return uint64(mufuRsq64h(uint32(x>>32))) << 32 }

// rsqrt.approx.f64 refines MUFU.RSQ64H once (a second-order step in DFMA)
// for positive normal x; the rest takes ptxas's slow path: ±0 → ±inf, NaN
// → x+x, x < 0 → invalid, +inf → 0, and subnormals are scaled by 2^54
// first and the result by 2^27.
func RsqrtApprox64(xb uint64) uint64 {
	hi := uint32(xb >> 32)
	if hi-0x00100000 < 0x7fe00000 {
		return math.Float64bits(rsqrtRefine(F64(xb), hi))
	}
	x := F64(xb)
	switch {
	case x == 0:
		return xb&(1<<63) | 0x7ff0000000000000
	case x != x:
		return xb | qbit64
	case hi>>31 != 0:
		return nan64Invalid
	case math.IsInf(x, 1):
		return 0
	}
	x *= 0x1p54
	return math.Float64bits(rsqrtRefine(x, uint32(math.Float64bits(x)>>32)) * 0x1p27)
}

func rsqrtRefine(x float64, hi uint32) float64 {
	y := F64(uint64(mufuRsq64h(hi)) << 32)
	t := float64(y * y)
	e := math.FMA(x, -t, 1)
	p := math.FMA(e, 0.375, 0.5)
	q := float64(y * e)
	return math.FMA(p, q, y)
}
