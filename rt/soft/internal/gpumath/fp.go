package gpumath

import (
	"math"
	"math/big"
	"math/bits"
)

// Rounding modes, as PTX spells them: .rn (nearest even), .rz, .rm, .rp.
const (
	RN = iota
	RZ
	RM
	RP
)

// f32 and half arithmetic on the H100 returns one canonical NaN rather than
// propagating payloads (x86 would produce 0xffc00000 or carry an input's
// bits). f64 arithmetic propagates a NaN operand's payload and gives
// 0xfff8000000000000 for an invalid operation (nan1/nan2/nan3 in
// fpapprox.go); nan64 is what the remaining f64 results (conversions from
// integers and halves' .ftz forms) use.
const (
	nan32 = 0x7fffffff
	nan64 = 0x7fffffffffffffff
	NaN16 = 0x7fff
)

func F32(x uint64) float32 { return math.Float32frombits(uint32(x)) }
func F64(x uint64) float64 { return math.Float64frombits(x) }

// R32 and r64 return a result's register bits, canonicalising NaN.
func R32(f float32) uint64 {
	if f != f {
		return nan32
	}
	return uint64(math.Float32bits(f))
}

func R64(f float64) uint64 {
	if f != f {
		return nan64
	}
	return math.Float64bits(f)
}

func B2U(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Ftz32 flushes a subnormal to a zero of the same sign (.ftz).
func Ftz32(f float32) float32 {
	if b := math.Float32bits(f); b&0x7f800000 == 0 && b&0x7fffff != 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return f
}

func ftz64(f float64) float64 {
	if b := math.Float64bits(f); b&0x7ff0000000000000 == 0 && b&0xfffffffffffff != 0 {
		return math.Float64frombits(b & (1 << 63))
	}
	return f
}

// Sat32 clamps to [0, 1] with NaN → +0 (.sat).
func Sat32(f float32) float32 {
	switch {
	case !(f > 0):
		return 0
	case f > 1:
		return 1
	}
	return f
}

func Sat64(f float64) float64 {
	switch {
	case !(f > 0):
		return 0
	case f > 1:
		return 1
	}
	return f
}

// twoSum returns the exact error of s = RN(a+b): a+b = s+e exactly.
func twoSum(a, b, s float64) float64 {
	if math.IsInf(s, 0) {
		return 0
	}
	bb := s - a
	return (a - (s - bb)) + (b - bb)
}

// toOdd turns s = RN(x), with x = s+e, into x rounded to odd: s itself if
// exact or already odd, else its neighbour towards e. Rounding the result
// to any format with at least two fewer significand bits is then correct.
func toOdd(s, e float64) float64 {
	if e == 0 || math.IsInf(s, 0) || s != s {
		return s
	}
	b := math.Float64bits(s)
	if b&1 == 1 {
		return s
	}
	if (e > 0) == (s > 0) {
		b++
	} else {
		b--
	}
	return math.Float64frombits(b)
}

// Round32 rounds x = s+e to float32 in mode rnd, where s is a float64 close
// to x (|e| below half an ulp of s); only the sign of e is used.
func Round32(s, e float64, rnd int) float32 {
	if rnd == RN {
		return float32(toOdd(s, e))
	}
	f := float32(s)
	if s != s {
		return f
	}
	var above bool // f > x
	if float64(f) != s {
		above = float64(f) > s
	} else {
		if e == 0 {
			return f
		}
		above = e < 0
	}
	switch rnd {
	case RZ:
		if above && s > 0 {
			return math.Nextafter32(f, float32(math.Inf(-1)))
		}
		if !above && s < 0 {
			return math.Nextafter32(f, float32(math.Inf(1)))
		}
		if f == 0 { // underflow to zero keeps x's sign
			return float32(math.Copysign(0, s))
		}
	case RM:
		if above {
			return math.Nextafter32(f, float32(math.Inf(-1)))
		}
	case RP:
		if !above {
			return math.Nextafter32(f, float32(math.Inf(1)))
		}
	}
	return f
}

// round64 applies a directed rounding mode to s = RN(x), x = s+e.
func round64(s, e float64, rnd int) float64 {
	if e == 0 || rnd == RN || s != s {
		return s
	}
	below := e > 0 // s < x
	switch rnd {
	case RZ:
		if !below && s > 0 {
			return math.Nextafter(s, math.Inf(-1))
		}
		if below && s < 0 {
			return math.Nextafter(s, math.Inf(1))
		}
	case RM:
		if !below {
			return math.Nextafter(s, math.Inf(-1))
		}
	case RP:
		if below {
			return math.Nextafter(s, math.Inf(1))
		}
	}
	return s
}

// zeroSum is the sign IEEE gives an exact zero sum a+b: that of a and b
// when both are zeros of one sign; otherwise -0 in round-towards-minus-
// infinity and +0 in the other modes.
func zeroSum(a, b float64, rnd int) float64 {
	if a == 0 && b == 0 && math.Signbit(a) == math.Signbit(b) {
		return a
	}
	if rnd == RM {
		return math.Copysign(0, -1)
	}
	return 0
}

// overflowErr gives an infinite RN result from finite inputs an error sign
// pointing back towards the finite range, so directed modes clamp it.
func overflowErr(s float64) float64 { return -s }

func Add32(a, b float32, rnd int) float32 {
	if rnd == RN {
		return a + b
	}
	x, y := float64(a), float64(b)
	s := x + y
	if s == 0 {
		return float32(zeroSum(x, y, rnd))
	}
	return Round32(s, twoSum(x, y, s), rnd)
}

func Mul32(a, b float32, rnd int) float32 {
	if rnd == RN {
		return a * b
	}
	return Round32(float64(a)*float64(b), 0, rnd)
}

// Fma32 is a correctly rounded a*b+c. a*b is exact in float64; the sum is
// rounded once to float64, which can only be wrong for float32 when it lands
// exactly on a float32 rounding midpoint (or below the normal range): those
// cases take the round-to-odd path.
func Fma32(a, b, c float32, rnd int) float32 {
	p := float64(a) * float64(b)
	z := float64(c)
	s := p + z
	if rnd == RN {
		bs := math.Float64bits(s)
		if bs&0x1fffffff != 0x10000000 && bs&0x7ff0000000000000 >= 0x3810000000000000 {
			return float32(s)
		}
		if s == 0 {
			return float32(s)
		}
		return float32(toOdd(s, twoSum(p, z, s)))
	}
	if s == 0 {
		return float32(zeroSum(p, z, rnd))
	}
	e := twoSum(p, z, s)
	if math.IsInf(s, 0) && !math.IsInf(p, 0) && !math.IsInf(z, 0) {
		e = overflowErr(s)
	}
	return Round32(s, e, rnd)
}

func Div32(a, b float32, rnd int) float32 {
	if rnd == RN {
		return a / b
	}
	x, y := float64(a), float64(b)
	q := x / y
	if q == 0 || math.IsInf(q, 0) || q != q {
		return float32(q)
	}
	r := math.FMA(-q, y, x)
	return Round32(q, sign(r)*sign(y), rnd)
}

func Sqrt32(a float32, rnd int) float32 {
	x := float64(a)
	s := math.Sqrt(x)
	if rnd == RN || s == 0 || s != s || math.IsInf(s, 0) {
		return float32(s)
	}
	return Round32(s, sign(math.FMA(-s, s, x)), rnd)
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func Add64(a, b float64, rnd int) float64 {
	s := a + b
	if rnd == RN {
		return s
	}
	if s == 0 {
		return zeroSum(a, b, rnd)
	}
	e := twoSum(a, b, s)
	if math.IsInf(s, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		e = overflowErr(s)
	}
	return round64(s, e, rnd)
}

func Mul64(a, b float64, rnd int) float64 {
	p := a * b
	if rnd == RN || p != p || a == 0 || b == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return p
	}
	if math.Abs(p) < 0x1p-969 { // the error is lost below the normal range
		var x, y, z big.Float
		x.SetFloat64(a)
		y.SetFloat64(b)
		z.SetPrec(106).Mul(&x, &y)
		return roundBig(&z, false, rnd)
	}
	e := math.FMA(a, b, -p)
	if math.IsInf(p, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		e = overflowErr(p)
	}
	return round64(p, e, rnd)
}

func Fma64(a, b, c float64, rnd int) float64 {
	r := math.FMA(a, b, c)
	if rnd == RN || r != r || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(c, 0) {
		return r
	}
	// Directed fma.f64 is rare; math/big gives the exact sum to round.
	var x, y, z, p big.Float
	x.SetFloat64(a)
	y.SetFloat64(b)
	z.SetFloat64(c)
	p.SetPrec(2200).Mul(&x, &y).Add(&p, &z)
	if p.Sign() == 0 {
		if a*b == 0 && c == 0 {
			return zeroSum(a*b, c, rnd)
		}
		return zeroSum(1, -1, rnd)
	}
	switch rnd {
	case RZ:
		p.SetMode(big.ToZero)
	case RM:
		p.SetMode(big.ToNegativeInf)
	case RP:
		p.SetMode(big.ToPositiveInf)
	}
	return roundBig(&p, false, rnd)
}

// roundBig rounds x, or with sticky a value just beyond x in magnitude (x
// being that value truncated), to float64 in mode rnd, subnormals and
// overflow included (big.Float's Float64 rounds subnormals to nearest).
func roundBig(x *big.Float, sticky bool, rnd int) float64 {
	neg := x.Signbit()
	var m big.Float
	m.Abs(x)
	if m.Sign() == 0 && !sticky {
		return math.Copysign(0, float64(x.Sign()))
	}
	exp := m.MantExp(nil) // |x| in [2^(exp-1), 2^exp)
	lsb := max(exp-53, -1074)
	var s big.Float
	s.SetPrec(m.Prec()+64).SetMantExp(&m, -lsb)
	si, acc := s.Int(nil) // truncated
	var frac big.Float
	frac.SetPrec(s.Prec()).Sub(&s, new(big.Float).SetInt(si))
	inexact := acc != big.Exact || sticky
	inc := false
	switch rnd {
	case RN:
		c := frac.Cmp(big.NewFloat(0.5))
		inc = c > 0 || c == 0 && (sticky || si.Bit(0) == 1)
	case RM:
		inc = neg && inexact
	case RP:
		inc = !neg && inexact
	}
	if inc {
		si.Add(si, big.NewInt(1))
	}
	f := math.Ldexp(float64(si.Uint64()), lsb)
	if math.IsInf(f, 0) && (rnd == RZ || rnd == RM && !neg || rnd == RP && neg) {
		f = math.MaxFloat64
	}
	if neg {
		f = -f
	}
	return f
}

func Div64(a, b float64, rnd int) float64 {
	q := a / b
	if rnd == RN || q != q || a == 0 || b == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return q
	}
	if math.Abs(q) < 0x1p-1021 || math.IsInf(q, 0) { // underflow or overflow
		var x, y, z big.Float
		x.SetFloat64(a)
		y.SetFloat64(b)
		z.SetPrec(256).SetMode(big.ToZero).Quo(&x, &y)
		return roundBig(&z, z.Acc() != big.Exact, rnd)
	}
	r := math.FMA(-q, b, a)
	return round64(q, sign(r)*sign(b), rnd)
}

func Sqrt64(a float64, rnd int) float64 {
	s := math.Sqrt(a)
	if rnd == RN || s == 0 || s != s || math.IsInf(s, 0) {
		return s
	}
	if a < 0x1p-900 { // keep the residual above the subnormal range
		return Sqrt64(a*0x1p1000, rnd) * 0x1p-500
	}
	return round64(s, sign(math.FMA(-s, s, a)), rnd)
}

// min/max follow PTX: a NaN operand is ignored unless both are NaN
// (canonical NaN then); -0 is less than +0. The .NaN forms return NaN if
// either operand is NaN.
func Min32(a, b float32, nanProp bool) float32 {
	switch {
	case a != a || b != b:
		if nanProp || (a != a && b != b) {
			return math.Float32frombits(nan32)
		}
		if a != a {
			return b
		}
		return a
	case a == b:
		if math.Signbit(float64(a)) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

func Max32(a, b float32, nanProp bool) float32 {
	switch {
	case a != a || b != b:
		if nanProp || (a != a && b != b) {
			return math.Float32frombits(nan32)
		}
		if a != a {
			return b
		}
		return a
	case a == b:
		if math.Signbit(float64(a)) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func Min64(a, b float64, nanProp bool) float64 {
	switch {
	case a != a || b != b:
		if nanProp || (a != a && b != b) {
			return math.Float64frombits(nan64)
		}
		if a != a {
			return b
		}
		return a
	case a == b:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

func Max64(a, b float64, nanProp bool) float64 {
	switch {
	case a != a || b != b:
		if nanProp || (a != a && b != b) {
			return math.Float64frombits(nan64)
		}
		if a != a {
			return b
		}
		return a
	case a == b:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

// divf is div.approx and div.full: the correctly rounded quotient, which
// the GPU's a·MUFU.RCP(b) sequence can miss by an ulp or two. The MUFU
// operations themselves are in mufu.go.
func divf(a, b float32) float32 {
	return float32(float64(a) / float64(b))
}

func Testp32(a float32, kind int) bool { return Testp64(float64(a), kind, true) }

// testp kinds.
const (
	tpFinite = iota
	tpInfinite
	tpNumber
	tpNaN
	tpNormal
	tpSubnormal
)

func Testp64(a float64, kind int, single bool) bool {
	switch kind {
	case tpFinite:
		return !math.IsInf(a, 0) && a == a
	case tpInfinite:
		return math.IsInf(a, 0)
	case tpNumber:
		return a == a
	case tpNaN:
		return a != a
	}
	min := 2.2250738585072014e-308
	if single {
		min = 1.1754943508222875e-38
	}
	x := math.Abs(a)
	if kind == tpNormal {
		return x >= min && !math.IsInf(a, 0) && a == a
	}
	return x < min && x > 0
}

// Float → integer conversion with PTX's saturation: NaN → 0, out-of-range
// values clamp to the destination range. bits is the destination width.
func RoundInt(x float64, rnd int) float64 {
	switch rnd {
	case RZ:
		return math.Trunc(x)
	case RM:
		return math.Floor(x)
	case RP:
		return math.Ceil(x)
	}
	return math.RoundToEven(x)
}

func F2S(x float64, rnd int, bits uint) uint64 {
	if x != x {
		return 0
	}
	x = RoundInt(x, rnd)
	lim := math.Float64frombits(uint64(1022+bits) << 52) // 2^(bits-1), without Ldexp's general path (a cvt per lane)
	var v int64
	switch {
	case x >= lim:
		v = int64(uint64(1)<<(bits-1) - 1)
	case x < -lim:
		v = -int64(uint64(1) << (bits - 1))
	default:
		v = int64(x)
	}
	return uint64(v) & Mask(bits)
}

func F2U(x float64, rnd int, bits uint) uint64 {
	if x != x {
		return 0
	}
	x = RoundInt(x, rnd)
	lim := math.Float64frombits(uint64(1023+bits) << 52) // 2^bits
	switch {
	case x >= lim:
		return Mask(bits)
	case x <= 0:
		return 0
	}
	return uint64(x)
}

func Mask(bits uint) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}
	return 1<<bits - 1
}

// Sext sign-extends the low n bits of v.
func Sext(v uint64, n uint) int64 { return int64(v<<(64-n)) >> (64 - n) }

// Integer → float conversions with a rounding mode. Go converts to nearest;
// the directed modes compare the result with the exact integer.
func S2F32(v int64, rnd int) float32 {
	f := float32(v)
	if rnd == RN {
		return f
	}
	c := cmpIF(v, float64(f))
	return dirAdj32(f, c, v < 0, rnd)
}

func U2F32(v uint64, rnd int) float32 {
	f := float32(v)
	if rnd == RN {
		return f
	}
	return dirAdj32(f, cmpUF(v, float64(f)), false, rnd)
}

func S2F64(v int64, rnd int) float64 {
	f := float64(v)
	if rnd == RN {
		return f
	}
	return dirAdj64(f, cmpIF(v, f), v < 0, rnd)
}

func U2F64(v uint64, rnd int) float64 {
	f := float64(v)
	if rnd == RN {
		return f
	}
	return dirAdj64(f, cmpUF(v, f), false, rnd)
}

// cmpIF compares float f (an integer value or 2^63) with v: +1 if f > v.
func cmpIF(v int64, f float64) int {
	if f >= 9223372036854775808.0 {
		return 1
	}
	fi := int64(f)
	switch {
	case fi > v:
		return 1
	case fi < v:
		return -1
	}
	return 0
}

func cmpUF(v uint64, f float64) int {
	if f >= 18446744073709551616.0 {
		return 1
	}
	fi := uint64(f)
	switch {
	case fi > v:
		return 1
	case fi < v:
		return -1
	}
	return 0
}

// dirAdj32 moves f one step to honour a directed mode; c = sign(f - x).
func dirAdj32(f float32, c int, neg bool, rnd int) float32 {
	up, down := float32(math.Inf(1)), float32(math.Inf(-1))
	switch {
	case c > 0 && (rnd == RM || rnd == RZ && !neg):
		return math.Nextafter32(f, down)
	case c < 0 && (rnd == RP || rnd == RZ && neg):
		return math.Nextafter32(f, up)
	}
	return f
}

func dirAdj64(f float64, c int, neg bool, rnd int) float64 {
	switch {
	case c > 0 && (rnd == RM || rnd == RZ && !neg):
		return math.Nextafter(f, math.Inf(-1))
	case c < 0 && (rnd == RP || rnd == RZ && neg):
		return math.Nextafter(f, math.Inf(1))
	}
	return f
}

// odd64 converts an integer to float64 rounded to odd, so that a second
// rounding to a narrower format (f16, bf16) is correct.
func Odd64S(v int64) float64 {
	f := float64(v)
	return toOdd(f, -float64(cmpIF(v, f)))
}

func Odd64U(v uint64) float64 {
	f := float64(v)
	return toOdd(f, -float64(cmpUF(v, f)))
}

// Half precision. Small formats are handled by rounding an exact (or
// round-to-odd) float64 to the format's grid.

type SmallFmt struct {
	Mant  uint // stored significand bits
	Ebits uint
}

var (
	F16  = SmallFmt{10, 5}
	BF16 = SmallFmt{7, 8}
)

// Round rounds x to the format and returns its bits (NaN → 0x7fff).
func (f SmallFmt) Round(x float64, rnd int) uint64 {
	if x != x {
		return NaN16
	}
	bias := int(1)<<(f.Ebits-1) - 1
	var sgn uint64
	if math.Signbit(x) {
		sgn = 1 << (f.Mant + f.Ebits)
	}
	ax := math.Abs(x)
	expMask := uint64(1)<<f.Ebits - 1
	inf := sgn | expMask<<f.Mant
	maxFin := sgn | (expMask-1)<<f.Mant | (1<<f.Mant - 1)
	if math.IsInf(ax, 0) {
		return inf
	}
	if ax == 0 {
		return sgn
	}
	emin := 1 - bias
	e := math.Ilogb(ax)
	if e < emin {
		e = emin
	}
	n := math.Ldexp(ax, int(f.Mant)-e) // significand as a (scaled) number, exact
	fl := math.Floor(n)
	frac := n - fl
	m := uint64(fl)
	neg := sgn != 0
	inc := false
	switch rnd {
	case RN:
		inc = frac > 0.5 || frac == 0.5 && m&1 == 1
	case RM:
		inc = frac > 0 && neg
	case RP:
		inc = frac > 0 && !neg
	}
	if inc {
		m++
	}
	if m == 1<<(f.Mant+1) {
		m >>= 1
		e++
	}
	if e > bias {
		// Overflow: infinity unless the mode rounds towards the finite range.
		if rnd == RZ || rnd == RM && !neg || rnd == RP && neg {
			return maxFin
		}
		return inf
	}
	if m < 1<<f.Mant { // subnormal (e == emin)
		return sgn | m
	}
	return sgn | uint64(e+bias)<<f.Mant | (m - 1<<f.Mant)
}

// Float converts the format's bits to float64 (exact).
func (f SmallFmt) Float(b uint64) float64 {
	bias := int(1)<<(f.Ebits-1) - 1
	e := int(b>>f.Mant) & (1<<f.Ebits - 1)
	m := b & (1<<f.Mant - 1)
	s := 1.0
	if b>>(f.Mant+f.Ebits)&1 == 1 {
		s = -1
	}
	switch {
	case e == 1<<f.Ebits-1:
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(s))
	case e == 0:
		return s * math.Ldexp(float64(m), 1-bias-int(f.Mant))
	}
	return s * math.Ldexp(float64(m|1<<f.Mant), e-bias-int(f.Mant))
}

func H2F(b uint64) float64  { return F16.Float(b & 0xffff) }
func BH2F(b uint64) float64 { return BF16.Float(b & 0xffff) }

// Ftz16 flushes an f16 subnormal to a signed zero.
func Ftz16(b uint64) uint64 {
	if b&0x7c00 == 0 {
		return b & 0x8000
	}
	return b
}

// fmaOdd returns a*b+c rounded to odd in float64 (for narrower results).
func fmaOdd(a, b, c float64) float64 {
	p := a * b // exact for half operands
	s := p + c
	if s == 0 || math.IsInf(s, 0) || s != s {
		return s
	}
	return toOdd(s, twoSum(p, c, s))
}

// Half arithmetic: operands are exact in float64 and so are sums and
// products of two halves; fma uses round-to-odd.
func Hadd(f SmallFmt, a, b uint64, rnd int) uint64 {
	return f.Round(f.Float(a)+f.Float(b), rnd)
}
func Hsub(f SmallFmt, a, b uint64, rnd int) uint64 {
	return f.Round(f.Float(a)-f.Float(b), rnd)
}
func Hmul(f SmallFmt, a, b uint64, rnd int) uint64 {
	return f.Round(f.Float(a)*f.Float(b), rnd)
}
func Hfma(f SmallFmt, a, b, c uint64, rnd int) uint64 {
	return f.Round(fmaOdd(f.Float(a), f.Float(b), f.Float(c)), rnd)
}

func Hmin(f SmallFmt, a, b uint64, nanProp bool) uint64 {
	x, y := f.Float(a), f.Float(b)
	r := Min64(x, y, nanProp)
	if r != r {
		return NaN16
	}
	if r == x && (r != 0 || math.Signbit(r) == math.Signbit(x)) {
		return a & 0xffff
	}
	return b & 0xffff
}

func Hmax(f SmallFmt, a, b uint64, nanProp bool) uint64 {
	x, y := f.Float(a), f.Float(b)
	r := Max64(x, y, nanProp)
	if r != r {
		return NaN16
	}
	if r == x && (r != 0 || math.Signbit(r) == math.Signbit(x)) {
		return a & 0xffff
	}
	return b & 0xffff
}

// Hsat clamps a half result to [0, 1] (NaN → 0).
func Hsat(f SmallFmt, b uint64) uint64 {
	x := f.Float(b)
	switch {
	case !(x > 0):
		return 0
	case x > 1:
		return f.Round(1, RN)
	}
	return b
}

// x2 applies a half operation to both halves of packed operands.
func Lo16(x uint64) uint64 { return x & 0xffff }
func Hi16(x uint64) uint64 { return x >> 16 & 0xffff }
func Pack16(lo, hi uint64) uint64 {
	return lo&0xffff | (hi&0xffff)<<16
}

// Integer helpers.

func MulHiS64(a, b int64) uint64 {
	hi, _ := bits.Mul64(uint64(a), uint64(b))
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	return hi
}

func MulHiU64(a, b uint64) uint64 {
	hi, _ := bits.Mul64(a, b)
	return hi
}

// Division by zero and overflow give what the hardware's division routine
// gives rather than trapping: x/0 is all ones, x%0 is x, MIN/-1 wraps.
func DivU(a, b uint64, m uint64) uint64 {
	if b == 0 {
		return m
	}
	return a / b
}

// RemU is rem.uN; by zero the H100 returns all ones (recorded in
// rt/soft/testdata/insts.json), which m, the width's mask, gives.
func RemU(a, b uint64, m uint64) uint64 {
	if b == 0 {
		return m
	}
	return a % b
}

// AbsNegF32 is abs.f32 (neg=0) and neg.f32 (neg=1): a sign-bit operation,
// except that the H100 answers a NaN input with the canonical NaN 0x7fffffff
// for both (recorded in rt/soft/testdata/insts.json).
func AbsNegF32(x uint32, neg uint32) uint64 {
	if x&0x7fffffff > 0x7f800000 {
		return 0x7fffffff
	}
	if neg == 1 {
		return uint64(x ^ 0x80000000)
	}
	return uint64(x &^ 0x80000000)
}

func DivS(a, b int64, m uint64) uint64 {
	switch b {
	case 0:
		return m
	case -1:
		return uint64(-a) & m
	}
	return uint64(a/b) & m
}

func RemS(a, b int64, m uint64) uint64 {
	switch b {
	case 0:
		return uint64(a) & m
	case -1:
		return 0
	}
	return uint64(a%b) & m
}

// Bfind returns the bit position of the most significant non-sign bit,
// or all ones; shiftamt counts from the top instead.
func Bfind(v uint64, n uint, signed, shiftamt bool) uint64 {
	if signed && Sext(v, n) < 0 {
		v = ^v & Mask(n)
	}
	v &= Mask(n)
	if v == 0 {
		return 0xffffffff
	}
	p := uint64(63 - bits.LeadingZeros64(v))
	if shiftamt {
		return uint64(n) - 1 - p
	}
	return p
}

func Bfe(a, pos, ln uint64, n uint, signed bool) uint64 {
	pos &= 0xff
	ln &= 0xff
	var sbit uint64
	if signed && ln != 0 {
		top := pos + ln - 1
		if top > uint64(n)-1 {
			top = uint64(n) - 1
		}
		sbit = a >> top & 1
	}
	var d uint64
	for i := uint64(0); i < uint64(n); i++ {
		var b uint64
		if i < ln && pos+i <= uint64(n)-1 {
			b = a >> (pos + i) & 1
		} else {
			b = sbit
		}
		d |= b << i
	}
	return d
}

func Bfi(a, b, pos, ln uint64, n uint) uint64 {
	pos &= 0xff
	ln &= 0xff
	d := b
	for i := uint64(0); i < ln && pos+i <= uint64(n)-1; i++ {
		d = d&^(1<<(pos+i)) | (a>>i&1)<<(pos+i)
	}
	return d & Mask(n)
}

func Lop3(a, b, c uint64, lut uint64) uint64 {
	var r uint64
	for i := uint64(0); i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		t := ^uint64(0)
		if i&4 != 0 {
			t &= a
		} else {
			t &= ^a
		}
		if i&2 != 0 {
			t &= b
		} else {
			t &= ^b
		}
		if i&1 != 0 {
			t &= c
		} else {
			t &= ^c
		}
		r |= t
	}
	return r & 0xffffffff
}

// prmt modes (in.fl of the prmt op).
const (
	prmtDefault = iota
	PrmtF4E
	PrmtB4E
	PrmtRC8
	PrmtECL
	PrmtECR
	PrmtRC16
)

func Prmt(a, b, c uint64, mode uint16) uint64 {
	x := uint64(uint32(a)) | uint64(uint32(b))<<32
	byteOf := func(i uint64) uint64 { return x >> (8 * (i & 7)) & 0xff }
	var d uint64
	if mode == prmtDefault {
		for k := uint64(0); k < 4; k++ {
			s := c >> (4 * k) & 0xf
			v := byteOf(s)
			if s&8 != 0 {
				if v&0x80 != 0 {
					v = 0xff
				} else {
					v = 0
				}
			}
			d |= v << (8 * k)
		}
		return d
	}
	s := c & 3
	var idx [4]uint64
	switch mode {
	case PrmtF4E:
		idx = [4]uint64{s, s + 1, s + 2, s + 3}
	case PrmtB4E:
		idx = [4]uint64{s, (s - 1) & 7, (s - 2) & 7, (s - 3) & 7}
	case PrmtRC8:
		idx = [4]uint64{s, s, s, s}
	case PrmtECL:
		for k := uint64(0); k < 4; k++ {
			idx[k] = max(k, s)
		}
	case PrmtECR:
		for k := uint64(0); k < 4; k++ {
			idx[k] = min(k, s)
		}
	case PrmtRC16:
		idx = [4]uint64{(s & 1) * 2, (s&1)*2 + 1, (s & 1) * 2, (s&1)*2 + 1}
	}
	for k := 0; k < 4; k++ {
		d |= byteOf(idx[k]) << (8 * k)
	}
	return d
}

// Shf is the funnel shift: shf.l gives the high word of (b:a) << n, shf.r
// the low word of (b:a) >> n; .wrap takes n mod 32, .clamp caps it at 32.
func Shf(a, b, c uint64, left, clamp bool) uint64 {
	n := c & 31
	if clamp {
		n = min(c&0xffffffff, 32)
	}
	x := uint64(uint32(a)) | uint64(uint32(b))<<32
	if left {
		return (x << n) >> 32 & 0xffffffff
	}
	return (x >> n) & 0xffffffff
}

func AbsI(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func AbsDiff(a, b int64) int64 { return AbsI(a - b) }
