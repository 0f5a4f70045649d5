// Package mathgen derives the polynomial coefficients of cugen's CUDA math
// library (cmd/cugen/internal/clang/include/cugen/math_poly.h) and is the high-precision
// reference its tests and the GPU ulp table measure against.
//
// Everything here is computed with math/big: the elementary and special
// functions at any precision (Exp, Log, Sin, Atan, Erf, LogGamma, ...), a
// Remez exchange that finds minimax polynomials for them, and the list of
// approximations the device code uses. `go generate ./cmd/cugen/internal/clang` rewrites the
// header; TestHeaderFresh fails when the committed one differs.
package mathgen

import (
	"math"
	"math/big"
	"sync"
)

// Float is a big.Float of the package's working precision unless stated.
type Float = big.Float

func newF(prec uint, x float64) *Float { return new(Float).SetPrec(prec).SetFloat64(x) }

func newI(prec uint, x int64) *Float { return new(Float).SetPrec(prec).SetInt64(x) }

func add(prec uint, a, b *Float) *Float { return new(Float).SetPrec(prec).Add(a, b) }
func sub(prec uint, a, b *Float) *Float { return new(Float).SetPrec(prec).Sub(a, b) }
func mul(prec uint, a, b *Float) *Float { return new(Float).SetPrec(prec).Mul(a, b) }
func quo(prec uint, a, b *Float) *Float { return new(Float).SetPrec(prec).Quo(a, b) }
func neg(prec uint, a *Float) *Float    { return new(Float).SetPrec(prec).Neg(a) }
func abs(prec uint, a *Float) *Float    { return new(Float).SetPrec(prec).Abs(a) }
func sqrt(prec uint, a *Float) *Float   { return new(Float).SetPrec(prec).Sqrt(a) }

// constCache memoises constants per precision.
type constCache struct {
	mu sync.Mutex
	m  map[uint]*Float
	f  func(prec uint) *Float
}

func (c *constCache) get(prec uint) *Float {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[prec]; ok {
		return v
	}
	if c.m == nil {
		c.m = map[uint]*Float{}
	}
	v := c.f(prec)
	c.m[prec] = v
	return v
}

var ln2Cache = constCache{f: func(prec uint) *Float {
	// ln 2 = 2 atanh(1/3) = 2 Σ 1/((2k+1) 3^(2k+1)).
	p := prec + 32
	return mul(prec, newI(p, 2), atanhSeries(p, quo(p, newI(p, 1), newI(p, 3))))
}}

var piCache = constCache{f: func(prec uint) *Float {
	// Machin: π = 16 atan(1/5) - 4 atan(1/239).
	p := prec + 32
	a := atanSeries(p, quo(p, newI(p, 1), newI(p, 5)))
	b := atanSeries(p, quo(p, newI(p, 1), newI(p, 239)))
	return sub(prec, mul(p, newI(p, 16), a), mul(p, newI(p, 4), b))
}}

// Ln2 is ln 2 to prec bits.
func Ln2(prec uint) *Float { return ln2Cache.get(prec) }

// Pi is π to prec bits.
func Pi(prec uint) *Float { return piCache.get(prec) }

// atanhSeries is Σ x^(2k+1)/(2k+1) for small |x|.
func atanhSeries(prec uint, x *Float) *Float {
	x2 := mul(prec, x, x)
	sum := new(Float).SetPrec(prec).Set(x)
	term := new(Float).SetPrec(prec).Set(x)
	for k := int64(1); ; k++ {
		term.Mul(term, x2)
		t := quo(prec, term, newI(prec, 2*k+1))
		if t.Sign() == 0 || t.MantExp(nil) < sum.MantExp(nil)-int(prec)-2 {
			break
		}
		sum.Add(sum, t)
	}
	return sum
}

// atanSeries is Σ (-1)^k x^(2k+1)/(2k+1) for small |x|.
func atanSeries(prec uint, x *Float) *Float {
	x2 := neg(prec, mul(prec, x, x))
	sum := new(Float).SetPrec(prec).Set(x)
	term := new(Float).SetPrec(prec).Set(x)
	for k := int64(1); ; k++ {
		term.Mul(term, x2)
		t := quo(prec, term, newI(prec, 2*k+1))
		if t.Sign() == 0 || t.MantExp(nil) < sum.MantExp(nil)-int(prec)-2 {
			break
		}
		sum.Add(sum, t)
	}
	return sum
}

// Exp is e^x. Arguments beyond ±2^20 are out of any use here and saturate.
func Exp(prec uint, x *Float) *Float {
	if x.IsInf() {
		if x.Sign() > 0 {
			return new(Float).SetPrec(prec).SetInf(false)
		}
		return new(Float).SetPrec(prec)
	}
	if x.Sign() == 0 {
		return newI(prec, 1)
	}
	p := prec + 40
	if e := x.MantExp(nil); e > 0 {
		p += uint(e)
	}
	// x = k ln2 + r, |r| <= ln2/2; then e^r = (e^(r/2^s))^(2^s).
	ln2 := Ln2(p)
	kf := quo(p, x, ln2)
	ki, _ := kf.Int64()
	if kf.Sign() < 0 {
		ki, _ = add(p, kf, newF(p, -0.5)).Int64()
	} else {
		ki, _ = add(p, kf, newF(p, 0.5)).Int64()
	}
	r := sub(p, x, mul(p, newI(p, ki), ln2))
	const s = 12
	r.SetMantExp(r, -s)
	sum := newI(p, 1)
	term := newI(p, 1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, newI(p, n))
		if term.Sign() == 0 || term.MantExp(nil) < -int(p)-2 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < s; i++ {
		sum.Mul(sum, sum)
	}
	return new(Float).SetPrec(prec).SetMantExp(sum, int(ki))
}

// Expm1 is e^x - 1, accurate for tiny x.
func Expm1(prec uint, x *Float) *Float {
	if x.Sign() == 0 || x.IsInf() && x.Sign() > 0 {
		return new(Float).SetPrec(prec).Set(x)
	}
	if e := x.MantExp(nil); e < -8 {
		// Taylor: no cancellation.
		p := prec + 16
		sum := new(Float).SetPrec(p).Set(x)
		term := new(Float).SetPrec(p).Set(x)
		for n := int64(2); ; n++ {
			term.Mul(term, x)
			term.Quo(term, newI(p, n))
			if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-int(p) {
				break
			}
			sum.Add(sum, term)
		}
		return new(Float).SetPrec(prec).Set(sum)
	}
	p := prec + 16
	return sub(prec, Exp(p, x), newI(p, 1))
}

// Log is the natural logarithm of x > 0.
func Log(prec uint, x *Float) *Float {
	if x.Sign() <= 0 {
		panic("mathgen.Log of a non-positive number")
	}
	if x.IsInf() {
		return new(Float).SetPrec(prec).SetInf(false)
	}
	p := prec + 40
	m := new(Float).SetPrec(p)
	e := x.MantExp(m) // x = m 2^e, m in [0.5, 1)
	// m in [0.5,1): scale to [sqrt(.5), sqrt(2)).
	if m.Cmp(newF(p, math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// log m = 2 atanh((m-1)/(m+1)); shrink with two square roots first.
	m2 := sqrt(p, sqrt(p, m))
	s := quo(p, sub(p, m2, newI(p, 1)), add(p, m2, newI(p, 1)))
	lm := mul(p, newI(p, 8), atanhSeries(p, s))
	return add(prec, lm, mul(p, newI(p, int64(e)), Ln2(p)))
}

// Log1p is log(1+x), accurate for tiny x.
func Log1p(prec uint, x *Float) *Float {
	if x.Sign() == 0 {
		return new(Float).SetPrec(prec).Set(x)
	}
	if e := x.MantExp(nil); e < -8 {
		p := prec + 16
		// log(1+x) = 2 atanh(x/(2+x)).
		s := quo(p, x, add(p, newI(p, 2), x))
		return mul(prec, newI(p, 2), atanhSeries(p, s))
	}
	p := prec + 16
	return Log(prec, add(p, newI(p, 1), x))
}

// reduceHalfPi returns r and k with x = k π/2 + r, |r| <= π/4.
func reduceHalfPi(prec uint, x *Float) (*Float, int64) {
	p := prec + 40
	if e := x.MantExp(nil); e > 0 {
		p += uint(e)
	}
	hp := quo(p, Pi(p), newI(p, 2))
	kf := quo(p, x, hp)
	if kf.Sign() < 0 {
		kf.Sub(kf, newF(p, 0.5))
	} else {
		kf.Add(kf, newF(p, 0.5))
	}
	kb, _ := kf.Int(nil)
	r := sub(p, x, mul(p, new(Float).SetPrec(p).SetInt(kb), hp))
	k := new(big.Int).And(kb, big.NewInt(3)).Int64()
	return r, k
}

// sinTaylor and cosTaylor are the Taylor series for |r| <= π/4.
func sinTaylor(prec uint, r *Float) *Float {
	r2 := neg(prec, mul(prec, r, r))
	sum := new(Float).SetPrec(prec).Set(r)
	term := new(Float).SetPrec(prec).Set(r)
	for n := int64(2); ; n += 2 {
		term.Mul(term, r2)
		term.Quo(term, newI(prec, n*(n+1)))
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-int(prec)-2 {
			break
		}
		sum.Add(sum, term)
	}
	return sum
}

func cosTaylor(prec uint, r *Float) *Float {
	r2 := neg(prec, mul(prec, r, r))
	sum := newI(prec, 1)
	term := newI(prec, 1)
	for n := int64(1); ; n += 2 {
		term.Mul(term, r2)
		term.Quo(term, newI(prec, n*(n+1)))
		if term.Sign() == 0 || term.MantExp(nil) < -int(prec)-2 {
			break
		}
		sum.Add(sum, term)
	}
	return sum
}

// Sin is sin x.
func Sin(prec uint, x *Float) *Float {
	if x.Sign() == 0 {
		return new(Float).SetPrec(prec).Set(x)
	}
	r, k := reduceHalfPi(prec+20, x)
	var v *Float
	switch k {
	case 0:
		v = sinTaylor(prec+20, r)
	case 1:
		v = cosTaylor(prec+20, r)
	case 2:
		v = neg(prec+20, sinTaylor(prec+20, r))
	default:
		v = neg(prec+20, cosTaylor(prec+20, r))
	}
	return new(Float).SetPrec(prec).Set(v)
}

// Cos is cos x.
func Cos(prec uint, x *Float) *Float {
	r, k := reduceHalfPi(prec+20, x)
	var v *Float
	switch k {
	case 0:
		v = cosTaylor(prec+20, r)
	case 1:
		v = neg(prec+20, sinTaylor(prec+20, r))
	case 2:
		v = neg(prec+20, cosTaylor(prec+20, r))
	default:
		v = sinTaylor(prec+20, r)
	}
	return new(Float).SetPrec(prec).Set(v)
}

// Tan is tan x.
func Tan(prec uint, x *Float) *Float {
	return quo(prec, Sin(prec+20, x), Cos(prec+20, x))
}

// SinPi is sin(π x), exact at integers and half-integers.
func SinPi(prec uint, x *Float) *Float {
	p := prec + 20
	// reduce x modulo 2 exactly; the zeros and ±1 are exact.
	r := fracMod2(p, x)
	switch a := abs(p, r); {
	case a.Sign() == 0 || a.Cmp(newI(p, 1)) == 0:
		return new(Float).SetPrec(prec)
	case a.Cmp(newF(p, 0.5)) == 0:
		return newI(prec, int64(r.Sign()))
	}
	return Sin(prec, mul(p+8, r, Pi(p+8)))
}

// CosPi is cos(π x).
func CosPi(prec uint, x *Float) *Float {
	p := prec + 20
	r := fracMod2(p, x)
	// cos(πr) = sin(π(1/2 - r)): exact zeros at half-integers.
	return SinPi(prec, sub(p, newF(p, 0.5), r))
}

// fracMod2 is x - 2 round(x/2), in [-1, 1], computed exactly.
func fracMod2(prec uint, x *Float) *Float {
	h := new(Float).SetPrec(x.Prec()+64).SetMantExp(x, -1)
	i, _ := h.Int(nil)
	f := new(Float).SetPrec(x.Prec()+64).Sub(h, new(Float).SetInt(i))
	f.SetMantExp(f, 1)
	return new(Float).SetPrec(prec + x.Prec()).Set(f)
}

// Atan is arctan x.
func Atan(prec uint, x *Float) *Float {
	p := prec + 20
	if x.IsInf() {
		v := quo(prec, Pi(p), newI(p, 2))
		if x.Sign() < 0 {
			v.Neg(v)
		}
		return v
	}
	ax := abs(p, x)
	invert := ax.Cmp(newI(p, 1)) > 0
	if invert {
		ax = quo(p, newI(p, 1), ax)
	}
	// atan(a) = 2 atan(a/(1+sqrt(1+a²))), three times: |a| < 0.05.
	a := ax
	for i := 0; i < 3; i++ {
		a = quo(p, a, add(p, newI(p, 1), sqrt(p, add(p, newI(p, 1), mul(p, a, a)))))
	}
	v := mul(p, newI(p, 8), atanSeries(p, a))
	if invert {
		v = sub(p, quo(p, Pi(p), newI(p, 2)), v)
	}
	if x.Sign() < 0 {
		v.Neg(v)
	}
	return new(Float).SetPrec(prec).Set(v)
}

// Atan2 is the angle of (x, y), in (-π, π].
func Atan2(prec uint, y, x *Float) *Float {
	p := prec + 20
	switch {
	case x.Sign() > 0:
		return Atan(prec, quo(p, y, x))
	case x.Sign() < 0:
		a := Atan(p, quo(p, y, x))
		if y.Signbit() {
			return sub(prec, a, Pi(p))
		}
		return add(prec, a, Pi(p))
	default:
		v := quo(prec, Pi(p), newI(p, 2))
		if y.Signbit() {
			v.Neg(v)
		}
		return v
	}
}

// Asin is arcsin x for |x| <= 1.
func Asin(prec uint, x *Float) *Float {
	p := prec + 20
	one := newI(p, 1)
	if abs(p, x).Cmp(one) == 0 {
		v := quo(prec, Pi(p), newI(p, 2))
		if x.Sign() < 0 {
			v.Neg(v)
		}
		return v
	}
	// asin x = atan(x / sqrt((1-x)(1+x))).
	d := sqrt(p, mul(p, sub(p, one, x), add(p, one, x)))
	return Atan(prec, quo(p, x, d))
}

// Acos is arccos x for |x| <= 1.
func Acos(prec uint, x *Float) *Float {
	p := prec + 20
	one := newI(p, 1)
	// acos x = 2 atan(sqrt((1-x)/(1+x))).
	if x.Cmp(newI(p, -1)) == 0 {
		return new(Float).SetPrec(prec).Set(Pi(p))
	}
	t := sqrt(p, quo(p, sub(p, one, x), add(p, one, x)))
	return mul(prec, newI(p, 2), Atan(p, t))
}

// Sinh, Cosh, Tanh and their inverses.
func Sinh(prec uint, x *Float) *Float {
	p := prec + 20
	if e := x.MantExp(nil); e < -4 {
		// sinh x = (expm1(x) - expm1(-x))/2 without cancellation.
		a := Expm1(p, x)
		b := Expm1(p, neg(p, x))
		return new(Float).SetPrec(prec).SetMantExp(sub(p, a, b), -1)
	}
	ex := Exp(p, x)
	return new(Float).SetPrec(prec).SetMantExp(sub(p, ex, quo(p, newI(p, 1), ex)), -1)
}

func Cosh(prec uint, x *Float) *Float {
	p := prec + 20
	ex := Exp(p, x)
	return new(Float).SetPrec(prec).SetMantExp(add(p, ex, quo(p, newI(p, 1), ex)), -1)
}

func Tanh(prec uint, x *Float) *Float {
	p := prec + 20
	// tanh x = expm1(2x)/(expm1(2x)+2).
	if x.MantExp(nil) > 10 {
		v := newI(prec, 1)
		if x.Sign() < 0 {
			v.Neg(v)
		}
		return v
	}
	e := Expm1(p, new(Float).SetPrec(p).SetMantExp(x, 1))
	return quo(prec, e, add(p, e, newI(p, 2)))
}

func Asinh(prec uint, x *Float) *Float {
	p := prec + 20
	ax := abs(p, x)
	// asinh |x| = log1p(|x| + x²/(1 + sqrt(1+x²))).
	x2 := mul(p, ax, ax)
	u := add(p, ax, quo(p, x2, add(p, newI(p, 1), sqrt(p, add(p, newI(p, 1), x2)))))
	v := Log1p(prec, u)
	if x.Sign() < 0 {
		v.Neg(v)
	}
	return v
}

func Acosh(prec uint, x *Float) *Float {
	p := prec + 20
	a := sub(p, x, newI(p, 1))
	// acosh x = log1p(a + sqrt(a(a+2))), a = x-1.
	return Log1p(prec, add(p, a, sqrt(p, mul(p, a, add(p, a, newI(p, 2))))))
}

func Atanh(prec uint, x *Float) *Float {
	p := prec + 20
	// atanh x = log1p(2x/(1-x))/2.
	v := Log1p(p, quo(p, new(Float).SetPrec(p).SetMantExp(x, 1), sub(p, newI(p, 1), x)))
	return new(Float).SetPrec(prec).SetMantExp(v, -1)
}

// Pow is x^y for x > 0.
func Pow(prec uint, x, y *Float) *Float {
	p := prec + 20
	l := Log(p+uint(max(0, y.MantExp(nil)))+16, x)
	return Exp(prec, mul(l.Prec(), l, y))
}

// Cbrt is the real cube root.
func Cbrt(prec uint, x *Float) *Float {
	if x.Sign() == 0 {
		return new(Float).SetPrec(prec).Set(x)
	}
	p := prec + 20
	ax := abs(p, x)
	f, _ := ax.Float64()
	var y *Float
	if f != 0 && !math.IsInf(f, 0) {
		y = newF(p, math.Cbrt(f))
	} else {
		y = Exp(p, quo(p, Log(p, ax), newI(p, 3)))
	}
	// Newton: y -= (y³ - a)/(3y²).
	for i := 0; i < 8; i++ {
		y2 := mul(p, y, y)
		d := quo(p, sub(p, mul(p, y2, y), ax), mul(p, newI(p, 3), y2))
		y = sub(p, y, d)
	}
	if x.Sign() < 0 {
		y.Neg(y)
	}
	return new(Float).SetPrec(prec).Set(y)
}

// twoOverSqrtPi is 2/√π.
func twoOverSqrtPi(prec uint) *Float {
	return quo(prec, newI(prec, 2), sqrt(prec, Pi(prec)))
}

// Erf is the error function.
func Erf(prec uint, x *Float) *Float {
	if x.Sign() == 0 {
		return new(Float).SetPrec(prec).Set(x)
	}
	p := prec + 20
	ax := abs(p, x)
	var v *Float
	if ax.Cmp(newI(p, 3)) <= 0 {
		v = erfSeries(p, ax)
	} else {
		v = sub(p, newI(p, 1), Erfc(p, ax))
	}
	if x.Sign() < 0 {
		v.Neg(v)
	}
	return new(Float).SetPrec(prec).Set(v)
}

// erfSeries is erf x = 2/√π e^(-x²) Σ (2x²)^n x/(2n+1)!!, a series of
// positive terms.
func erfSeries(prec uint, x *Float) *Float {
	p := prec + 16
	x2 := mul(p, x, x)
	tx2 := mul(p, x2, newI(p, 2))
	sum := new(Float).SetPrec(p).Set(x)
	term := new(Float).SetPrec(p).Set(x)
	for n := int64(1); ; n++ {
		term.Mul(term, tx2)
		term.Quo(term, newI(p, 2*n+1))
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-int(p)-2 {
			break
		}
		sum.Add(sum, term)
	}
	return mul(prec, mul(p, sum, twoOverSqrtPi(p)), Exp(p, neg(p, x2)))
}

// Erfc is 1 - erf x, accurate in the tail.
func Erfc(prec uint, x *Float) *Float {
	p := prec + 20
	if x.Sign() < 0 || x.Cmp(newF(p, 2.5)) < 0 {
		// 1 - erf loses at most 12 bits below 2.5.
		return sub(prec, newI(p, 1), Erf(p+16, x))
	}
	return mul(prec, Erfcx(p, x), Exp(p, neg(p, mul(p, x, x))))
}

// Erfcx is e^(x²) erfc x for x >= 2.5 (continued fraction) and below
// through Erfc.
func Erfcx(prec uint, x *Float) *Float {
	p := prec + 20
	if x.Cmp(newF(p, 2.5)) < 0 {
		return mul(prec, sub(p, newI(p, 1), Erf(p+40, x)), Exp(p, mul(p, x, x)))
	}
	// erfc x = e^(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))),
	// evaluated backwards from a depth that converges at this x.
	xf, _ := x.Float64()
	depth := int(float64(p)*1.0/math.Max(1, xf*xf/8)) + 40
	if depth > 20000 {
		depth = 20000
	}
	t := new(Float).SetPrec(p).Set(x)
	for k := depth; k >= 1; k-- {
		t = add(p, x, quo(p, newF(p, float64(k)/2), t))
	}
	return quo(prec, quo(p, newI(p, 1), sqrt(p, Pi(p))), t)
}

// Erfinv is the inverse of erf on (-1, 1).
func Erfinv(prec uint, x *Float) *Float {
	p := prec + 20
	ax := abs(p, x)
	c := sub(p, newI(p, 1), ax)
	var y *Float
	if c.Cmp(newF(p, 0.25)) < 0 {
		y = erfcinvPos(p, c)
	} else {
		f, _ := ax.Float64()
		y = newF(p, math.Erfinv(f))
		for i := 0; i < 6; i++ {
			// Newton on erf(y) - ax.
			d := quo(p, sub(p, Erf(p, y), ax), mul(p, twoOverSqrtPi(p), Exp(p, neg(p, mul(p, y, y)))))
			y = sub(p, y, d)
		}
	}
	if x.Sign() < 0 {
		y.Neg(y)
	}
	return new(Float).SetPrec(prec).Set(y)
}

// Erfcinv is the inverse of erfc on (0, 2).
func Erfcinv(prec uint, c *Float) *Float {
	p := prec + 20
	one := newI(p, 1)
	switch {
	case c.Cmp(newF(p, 0.25)) < 0:
		return new(Float).SetPrec(prec).Set(erfcinvPos(p, c))
	case c.Cmp(newF(p, 1.75)) > 0:
		return neg(prec, erfcinvPos(p, sub(p, newI(p, 2), c)))
	default:
		return Erfinv(prec, sub(p, one, c))
	}
}

// erfcinvPos solves erfc(y) = c for 0 < c < 1/4 by Newton on log erfc.
func erfcinvPos(prec uint, c *Float) *Float {
	p := prec + 20
	lc := Log(p, c)
	lf, _ := lc.Float64()
	// Start: erfc y ~ e^(-y²)/(y√π).
	y0 := math.Sqrt(-lf)
	for i := 0; i < 4; i++ {
		y0 = math.Sqrt(-lf - math.Log(y0*math.Sqrt(math.Pi)))
	}
	y := newF(p, y0)
	for i := 0; i < 8; i++ {
		ec := Erfc(p, y)
		// f = log erfc(y) - log c; f' = -2/√π e^(-y²)/erfc(y).
		f := sub(p, Log(p, ec), lc)
		fp := quo(p, mul(p, twoOverSqrtPi(p), Exp(p, neg(p, mul(p, y, y)))), ec)
		y = add(p, y, quo(p, f, fp))
	}
	return y
}
