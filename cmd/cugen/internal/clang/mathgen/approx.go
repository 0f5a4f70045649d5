package mathgen

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"sync"
)

// Approx is one polynomial of the device library: p(t) ≈ F(t) on [Lo, Hi].
type Approx struct {
	Name   string // the C function is __cugen_p_<Name>
	Single bool   // float coefficients and arithmetic (else double)
	What   string // what F is, for the header's comment
	Lo, Hi float64
	Degree int
	Rel    bool // minimise relative error (else absolute)
	F      func(prec uint, t *Float) *Float
}

// extra is the precision to add when evaluating a quotient that cancels
// near t = 0: three times t's binary exponent below zero.
func extra(t *Float) uint {
	if t.Sign() == 0 {
		return 0
	}
	if e := t.MantExp(nil); e < 0 {
		return uint(-3 * e)
	}
	return 0
}

// limit0 returns v when t is 0 (the removable singularity of a quotient),
// else f(t).
func limit0(v float64, f func(prec uint, t *Float) *Float) func(prec uint, t *Float) *Float {
	return func(prec uint, t *Float) *Float {
		if t.Sign() == 0 {
			return newF(prec, v)
		}
		return f(prec, t)
	}
}

// expQ is (e^r - 1 - r)/r².
func expQ(prec uint, r *Float) *Float {
	p := prec + 32 + extra(r)
	num := sub(p, Expm1(p, r), r)
	return quo(prec, num, mul(p, r, r))
}

// powm1Over is (b^r - 1)/r for base b = 2 or 10.
func powm1Over(base int64) func(prec uint, r *Float) *Float {
	return func(prec uint, r *Float) *Float {
		p := prec + 32 + extra(r)
		lb := Log(p, newI(p, base))
		return quo(prec, Expm1(p, mul(p, r, lb)), r)
	}
}

// log1pQ is (log1p(f) - f)/f².
func log1pQ(prec uint, f *Float) *Float {
	p := prec + 32 + extra(f)
	return quo(prec, sub(p, Log1p(p, f), f), mul(p, f, f))
}

// logR is (2 atanh s - 2s - 2s³/3 - 2s⁵/5)/s⁷ with z = s².
func logR(prec uint, z *Float) *Float {
	p := prec + 32 + 4*extra(z)
	s := sqrt(p, z)
	// 2 atanh s = log((1+s)/(1-s)).
	at := Log(p, quo(p, add(p, newI(p, 1), s), sub(p, newI(p, 1), s)))
	s3 := mul(p, z, s)
	s5 := mul(p, s3, z)
	num := sub(p, at, mul(p, newI(p, 2), s))
	num = sub(p, num, quo(p, mul(p, newI(p, 2), s3), newI(p, 3)))
	num = sub(p, num, quo(p, mul(p, newI(p, 2), s5), newI(p, 5)))
	return quo(prec, num, mul(p, s5, z))
}

// oddQ is (g(x) - x)/x³ with z = x², for odd g.
func oddQ(g func(prec uint, x *Float) *Float) func(prec uint, z *Float) *Float {
	return func(prec uint, z *Float) *Float {
		p := prec + 32 + 2*extra(z)
		x := sqrt(p, z)
		return quo(prec, sub(p, g(p, x), x), mul(p, z, x))
	}
}

// cosC is (cos r - 1 + z/2)/z² with z = r².
func cosC(prec uint, z *Float) *Float {
	p := prec + 32 + 2*extra(z)
	r := sqrt(p, z)
	num := add(p, sub(p, Cos(p, r), newI(p, 1)), mul(p, z, newF(p, 0.5)))
	return quo(prec, num, mul(p, z, z))
}

// erfE is erf(x)/x - 1 with z = x².
func erfE(prec uint, z *Float) *Float {
	p := prec + 32
	x := sqrt(p, z)
	return sub(prec, quo(p, Erf(p, x), x), newI(p, 1))
}

// erfcxK is the Shepherd–Laframboise change of variable of erfcx:
// x = K(1+t)/(1-t) maps t in [-1, 1) onto [0, ∞).
const erfcxK = 2

// erfcxQ is (1+2x) erfcx(x) at x = K(1+t)/(1-t): smooth in t and tending
// to 2/√π.
func erfcxQ(prec uint, t *Float) *Float {
	p := prec + 32
	one := newI(p, 1)
	if t.Cmp(one) == 0 {
		return twoOverSqrtPi(prec)
	}
	x := quo(p, mul(p, newI(p, erfcxK), add(p, one, t)), sub(p, one, t))
	return mul(prec, add(p, one, mul(p, newI(p, 2), x)), Erfcx(p, x))
}

// lgammaShift is lgamma(a+t)/t.
func lgammaShift(a int64) func(prec uint, t *Float) *Float {
	return func(prec uint, t *Float) *Float {
		p := prec + 32 + extra(t)
		lg, _ := LogGamma(p, add(p, newI(p, a), t))
		return quo(prec, lg, t)
	}
}

// stirlingS is (lgamma(x) - (x-1/2)log x + x - log(2π)/2)·x with w = 1/x².
func stirlingS(prec uint, w *Float) *Float {
	p := prec + 64
	x := quo(p, newI(p, 1), sqrt(p, w))
	lg, _ := LogGamma(p, x)
	half := newF(p, 0.5)
	main := sub(p, mul(p, sub(p, x, half), Log(p, x)), x)
	main.Add(main, mul(p, half, Log(p, mul(p, newI(p, 2), Pi(p)))))
	return mul(prec, sub(p, lg, main), x)
}

// erfinvCentral is erfinv(x)/x with w = -log((1-x)(1+x)) - 2.5.
func erfinvCentral(prec uint, v *Float) *Float {
	p := prec + 32
	w := add(p, v, newF(p, 2.5))
	if w.Sign() == 0 {
		return quo(prec, sqrt(p, Pi(p)), newI(p, 2))
	}
	// x = sqrt(1 - e^-w) = sqrt(-expm1(-w)).
	x := sqrt(p, neg(p, Expm1(p, neg(p, w))))
	return quo(prec, Erfinv(p, x), x)
}

// erfinvTail is erfinv(x) with s = sqrt(w) - 3, w = -log((1-x)(1+x)).
func erfinvTail(prec uint, s *Float) *Float {
	p := prec + 32
	r := add(p, s, newI(p, 3))
	w := mul(p, r, r)
	ew := Exp(p, neg(p, w))
	// 1-x = e^-w/(1 + sqrt(1 - e^-w)).
	c := quo(p, ew, add(p, newI(p, 1), sqrt(p, sub(p, newI(p, 1), ew))))
	return Erfcinv(prec, c)
}

var (
	ln2Half  = math.Ln2 / 2
	sqrtHalf = 0.17157287525381 // (√2-1)/(√2+1): s of log's reduction
	quarter  = math.Pi / 4
)

// Approxes is every polynomial cugen's device math uses.
var Approxes = []Approx{
	// double
	{Name: "exp_d", What: "(e^r - 1 - r)/r²", Lo: -ln2Half - 1e-6, Hi: ln2Half + 1e-6, Degree: 10, Rel: true, F: limit0(0.5, expQ)},
	{Name: "log_d", What: "(2 atanh s - 2s - 2s³/3 - 2s⁵/5)/s⁷, z = s²", Lo: 0, Hi: sqrtHalf*sqrtHalf + 1e-6, Degree: 7, Rel: true, F: limit0(2.0/7, logR)},
	{Name: "sin_d", What: "(sin r - r)/r³, z = r²", Lo: 0, Hi: quarter*quarter + 1e-6, Degree: 6, Rel: true, F: limit0(-1.0/6, oddQ(Sin))},
	{Name: "cos_d", What: "(cos r - 1 + z/2)/z², z = r²", Lo: 0, Hi: quarter*quarter + 1e-6, Degree: 6, Rel: true, F: limit0(1.0/24, cosC)},
	{Name: "atan_d", What: "(atan t - t)/t³, z = t²", Lo: 0, Hi: 0.4375 * 0.4375, Degree: 12, Rel: true, F: limit0(-1.0/3, oddQ(Atan))},
	{Name: "asin_d", What: "(asin x - x)/x³, z = x²", Lo: 0, Hi: 0.25, Degree: 13, Rel: true, F: limit0(1.0/6, oddQ(Asin))},
	{Name: "erf_d", What: "erf(x)/x - 1, z = x²", Lo: 0, Hi: 0.84375 * 0.84375, Degree: 11, Rel: false, F: limit0(2/math.SqrtPi-1, erfE)},
	{Name: "erfcx_d", What: "(1+2x) erfcx(x), x = 2(1+t)/(1-t)", Lo: (0.84375 - erfcxK) / (0.84375 + erfcxK), Hi: 1, Degree: 30, Rel: true, F: erfcxQ},
	{Name: "lgamma1_d", What: "lgamma(1+t)/t", Lo: -0.5, Hi: 0.5, Degree: 28, Rel: true, F: limit0(-0.5772156649015329, lgammaShift(1))},
	{Name: "lgamma2_d", What: "lgamma(2+t)/t", Lo: -0.75, Hi: 0.5, Degree: 24, Rel: true, F: limit0(0.42278433509846713, lgammaShift(2))},
	{Name: "stirling_d", What: "(lgamma x - (x-1/2) log x + x - log(2π)/2)·x, w = 1/x²", Lo: 0, Hi: 0.01, Degree: 6, Rel: true, F: limit0(1.0/12, stirlingS)},
	{Name: "erfinv_c", What: "erfinv(x)/x, v = -log((1-x)(1+x)) - 2.5", Lo: -2.5, Hi: 2.5, Degree: 14, Rel: true, F: erfinvCentral},
	{Name: "erfinv_t", What: "erfinv(x), s = sqrt(-log((1-x)(1+x))) - 3", Lo: math.Sqrt(5) - 3, Hi: 3.1, Degree: 14, Rel: true, F: erfinvTail},
	{Name: "erfinv_u", What: "erfinv(x), s = sqrt(-log((1-x)(1+x))) - 3", Lo: 3.1, Hi: 24.5, Degree: 14, Rel: true, F: erfinvTail},

	// float
	{Name: "exp_f", Single: true, What: "(e^r - 1 - r)/r²", Lo: -ln2Half - 1e-6, Hi: ln2Half + 1e-6, Degree: 4, Rel: true, F: limit0(0.5, expQ)},
	{Name: "exp2_f", Single: true, What: "(2^r - 1)/r", Lo: -0.5, Hi: 0.5, Degree: 5, Rel: true, F: limit0(math.Ln2, powm1Over(2))},
	{Name: "exp10_f", Single: true, What: "(10^r - 1)/r", Lo: -0.1506, Hi: 0.1506, Degree: 5, Rel: true, F: limit0(math.Ln10, powm1Over(10))},
	{Name: "log_f", Single: true, What: "(log1p(f) - f)/f²", Lo: -1.0 / 3, Hi: 1.0 / 3, Degree: 9, Rel: true, F: limit0(-0.5, log1pQ)},
	{Name: "sin_f", Single: true, What: "(sin r - r)/r³, z = r²", Lo: 0, Hi: 0.64, Degree: 3, Rel: true, F: limit0(-1.0/6, oddQ(Sin))},
	{Name: "cos_f", Single: true, What: "(cos r - 1 + z/2)/z², z = r²", Lo: 0, Hi: 0.64, Degree: 3, Rel: true, F: limit0(1.0/24, cosC)},
	{Name: "tan_f", Single: true, What: "(tan r - r)/r³, z = r²", Lo: 0, Hi: 0.64, Degree: 7, Rel: true, F: limit0(1.0/3, oddQ(Tan))},
	{Name: "atan_f", Single: true, What: "(atan t - t)/t³, z = t²", Lo: 0, Hi: 1, Degree: 8, Rel: true, F: limit0(-1.0/3, oddQ(Atan))},
	{Name: "asin_f", Single: true, What: "(asin x - x)/x³, z = x²", Lo: 0, Hi: 0.25, Degree: 4, Rel: true, F: limit0(1.0/6, oddQ(Asin))},
	{Name: "erf_f", Single: true, What: "erf(x)/x - 1, z = x²", Lo: 0, Hi: 0.84375 * 0.84375, Degree: 5, Rel: false, F: limit0(2/math.SqrtPi-1, erfE)},
	{Name: "erfcx_f", Single: true, What: "(1+2x) erfcx(x), x = 2(1+t)/(1-t)", Lo: (0.5 - erfcxK) / (0.5 + erfcxK), Hi: (10.1 - erfcxK) / (10.1 + erfcxK), Degree: 11, Rel: true, F: erfcxQ},
	{Name: "tanh_f", Single: true, What: "(tanh x - x)/x³, z = x²", Lo: 0, Hi: 0.5625 * 0.5625, Degree: 4, Rel: true, F: limit0(-1.0/3, oddQ(Tanh))},
	{Name: "sinh_f", Single: true, What: "(sinh x - x)/x³, z = x²", Lo: 0, Hi: 1, Degree: 4, Rel: true, F: limit0(1.0/6, oddQ(Sinh))},
}

// Derived is an Approx with its polynomial.
type Derived struct {
	Approx
	Poly
}

// DeriveAll runs Remez for every approximation, in parallel.
func DeriveAll() ([]Derived, error) {
	out := make([]Derived, len(Approxes))
	errs := make([]error, len(Approxes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, a := range Approxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := Remez(a.F, a.Lo, a.Hi, a.Degree, a.Rel, a.Single)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", a.Name, err)
			}
			out[i] = Derived{a, p}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Header renders the derived polynomials as the C++ header the device
// library includes: one Horner evaluation with fused multiply-adds per
// approximation, its coefficients as exact hexadecimal literals.
func Header(ds []Derived) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by cmd/cugen/internal/clang/mathgen; DO NOT EDIT.\n")
	b.WriteString("// Minimax polynomials of cugen's CUDA math library, found by Remez exchange\n")
	b.WriteString("// in 192-bit arithmetic; the error is measured with the rounded coefficients.\n")
	b.WriteString("#ifndef CUGEN_MATH_POLY_H\n#define CUGEN_MATH_POLY_H\n#pragma clang system_header\n")
	for _, d := range ds {
		typ, fma, suffix := "double", "__builtin_fma", ""
		if d.Single {
			typ, fma, suffix = "float", "__builtin_fmaf", "f"
		}
		kind := "absolute"
		if d.Rel {
			kind = "relative"
		}
		fmt.Fprintf(&b, "\n// %s on [%s, %s], degree %d: %s error 2^%.1f.\n", d.What,
			strconv.FormatFloat(d.Lo, 'g', 6, 64), strconv.FormatFloat(d.Hi, 'g', 6, 64), d.Degree, kind, math.Log2(d.MaxErr))
		fmt.Fprintf(&b, "static __device__ __inline__ __attribute__((always_inline)) %s __cugen_p_%s(%s x) {\n", typ, d.Name, typ)
		n := len(d.Coef) - 1
		expr := hexLit(d.Coef[n], d.Single) + suffix
		for j := n - 1; j >= 0; j-- {
			expr = fmt.Sprintf("%s(%s, x, %s%s)", fma, expr, hexLit(d.Coef[j], d.Single), suffix)
		}
		fmt.Fprintf(&b, "  return %s;\n}\n", expr)
	}
	constDefines(&b)
	twoOverPiFunc(&b)
	b.WriteString("\n#endif\n")
	return b.Bytes()
}

// hexLit is v as a C hexadecimal floating literal.
func hexLit(v float64, single bool) string {
	if single {
		return strconv.FormatFloat(v, 'x', -1, 32)
	}
	return strconv.FormatFloat(v, 'x', -1, 64)
}
