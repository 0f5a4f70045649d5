// fp8 conversions (cvt to and from .e4m3x2/.e5m2x2) and cvt.pack.sat, as
// the H100 computes them (rt/soft/testdata/isa8.json.gz: every f16x2 and every
// fp8x2 input, and 16384 f32 pairs per form).

package gpumath

import (
	"math"
)

// fp8 formats: e4m3 (bias 7, no infinity, NaN S.1111.111, largest 448) and
// e5m2 (bias 15, IEEE-like: infinity S.11111.00, largest 57344).
type FP8Format struct {
	mant, bias int
	maxFin     uint64 // largest finite magnitude's bits
	e4m3       bool
}

var (
	E4M3 = FP8Format{mant: 3, bias: 7, maxFin: 0x7e, e4m3: true}
	E5M2 = FP8Format{mant: 2, bias: 15, maxFin: 0x7b}
)

// fp8NaN is the NaN every conversion to fp8 produces.
const fp8NaN = 0x7f

// ToFP8 is cvt.rn.satfinite{.relu}: x rounded to nearest even; infinities
// and overflow become the largest finite value of their sign, NaN 0x7f;
// with .relu negative values (and -0) become +0.
func (f FP8Format) ToFP8(x float64, relu bool) uint64 {
	if x != x {
		return fp8NaN
	}
	var sgn uint64
	if math.Signbit(x) {
		if relu {
			return 0
		}
		sgn = 0x80
	}
	ax := math.Abs(x)
	if math.IsInf(ax, 0) {
		return sgn | f.maxFin
	}
	if ax == 0 {
		return sgn
	}
	emin := 1 - f.bias
	e := max(math.Ilogb(ax), emin)
	m := uint64(math.RoundToEven(math.Ldexp(ax, f.mant-e))) // exact: x has at most 24 significant bits
	if m == 1<<(f.mant+1) {
		m >>= 1
		e++
	}
	var v uint64
	if m < 1<<f.mant {
		v = m
	} else {
		v = uint64(e+f.bias)<<f.mant | (m - 1<<f.mant)
	}
	return sgn | min(v, f.maxFin)
}

// ToHalf converts fp8 bits to f16 bits (exact; NaN → 0x7fff); with .relu
// negative values become +0.
func (f FP8Format) ToHalf(b uint64, relu bool) uint64 {
	b &= 0xff
	s := b & 0x80
	e := int(b>>f.mant) & (1<<(7-f.mant) - 1)
	m := b & (1<<f.mant - 1)
	emax := 1<<(7-f.mant) - 1
	var x float64
	switch {
	case f.e4m3 && e == emax && m == 1<<f.mant-1, !f.e4m3 && e == emax && m != 0:
		return NaN16
	case !f.e4m3 && e == emax:
		x = math.Inf(1)
	case e == 0:
		x = math.Ldexp(float64(m), 1-f.bias-f.mant)
	default:
		x = math.Ldexp(float64(m|1<<f.mant), e-f.bias-f.mant)
	}
	if s != 0 {
		if relu {
			return 0
		}
		x = -x
	}
	return F16.Round(x, RN)
}

// PackSat saturates signed v to an n-bit field (signed or unsigned).
func PackSat(v uint64, n uint, signed bool) uint64 {
	x := int64(int32(v))
	lo, hi := int64(0), int64(1)<<n-1
	if signed {
		lo, hi = -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
	}
	return uint64(min(max(x, lo), hi)) & (1<<n - 1)
}
