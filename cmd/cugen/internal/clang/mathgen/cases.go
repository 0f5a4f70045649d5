package mathgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
)

// Case is one function of the CUDA Math API as cugen's tests and the GPU
// ulp table exercise it: the kernel of testdata/clang/math.cu that applies
// it to arrays, CUDA's documented maximum error, the inputs to try and the
// exact value to compare with.
type Case struct {
	Name   string // the CUDA function: expf, exp, __expf, ...
	Single bool   // float arguments and result (else double)
	Args   int    // 1 to 4 arguments
	// Bound is CUDA's documented maximum error in ulps (CUDA C++ Programming
	// Guide, "Mathematical Functions"); 0 for exactly rounded functions.
	Bound float64
	// Within, when set, is the set of inputs the bound applies to; others
	// are reported but not held to it (lgamma near its negative zeros).
	Within func(a []float64) bool
	// Approx, for the fast intrinsics, replaces the ulp bound by CUDA's
	// documented error of the hardware approximation (absolute in places).
	Approx func(a []float64, got float64, want *Float) bool
	Note   string
	Ref    func(prec uint, a []float64) Value
	Gen    func(r *rand.Rand) []float64
	// Fast, for float cases, is the exact value to within a double ulp
	// (Go's float64 math), for references over millions of inputs; nil
	// where only Ref is that accurate.
	Fast func(a []float64) float64
	// Intrinsic marks a fast intrinsic (__expf, …): the PTX approximation,
	// whose error CUDA states in its own terms (BoundText); the ulp table
	// reports it, the CI test of it is TestClangConversions.
	Intrinsic bool
	BoundText string
}

// Kernel is the name of the case's kernel in math.cu.
func (c Case) Kernel() string { return "k_" + c.Name }

// Value is an exact result: V, or NaN.
type Value struct {
	V   *Float
	NaN bool
}

func val(v *Float) Value { return Value{V: v} }
func f64(x float64) Value { // an exactly representable result, Inf included
	if math.IsNaN(x) {
		return Value{NaN: true}
	}
	return Value{V: new(Float).SetPrec(64).SetFloat64(x)}
}

var nanV = Value{NaN: true}

// F64Value is x as an exact Value (a reference given as a float64).
func F64Value(x float64) Value { return f64(x) }

// ---- input generators ----

type gen func(r *rand.Rand) float64

func uni(lo, hi float64) gen { return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() } }

// logu is ±2^u, u uniform in [e0, e1]: every binade alike.
func logu(e0, e1 float64, signed bool) gen {
	return func(r *rand.Rand) float64 {
		v := math.Exp2(e0 + (e1-e0)*r.Float64())
		if signed && r.IntN(2) == 0 {
			v = -v
		}
		return v
	}
}

// anyBits is a float32 or float64 of random bits: every value, NaNs,
// infinities and subnormals included.
func anyBits(single bool) gen {
	return func(r *rand.Rand) float64 {
		if single {
			return float64(math.Float32frombits(r.Uint32()))
		}
		return math.Float64frombits(r.Uint64())
	}
}

// ints is a random integer or half-integer in [-n, n].
func halfInts(n int) gen {
	return func(r *rand.Rand) float64 { return float64(r.IntN(4*n+1)-2*n) / 2 }
}

// mix draws from the generators with equal weight, and one time in eight
// from a list of special values.
func mix(single bool, gs ...gen) gen {
	specials := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, -2, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 0x1p-1022}
	if single {
		specials = append(specials[:11], 0x1p-149, -0x1p-149, math.MaxFloat32, -math.MaxFloat32, 0x1p-126)
	}
	return func(r *rand.Rand) float64 {
		if r.IntN(8) == 0 {
			return specials[r.IntN(len(specials))]
		}
		return gs[r.IntN(len(gs))](r)
	}
}

func args(gs ...gen) func(r *rand.Rand) []float64 {
	return func(r *rand.Rand) []float64 {
		a := make([]float64, len(gs))
		for i, g := range gs {
			a[i] = g(r)
		}
		return a
	}
}

// ---- references ----

func bf(prec uint, x float64) *Float { return newF(prec, x) }

// un wraps a big function of one argument with IEEE's special values.
func un(f func(prec uint, x *Float) *Float, special func(x float64) (float64, bool)) func(uint, []float64) Value {
	return func(prec uint, a []float64) Value {
		x := a[0]
		if math.IsNaN(x) {
			return nanV
		}
		if special != nil {
			if v, ok := special(x); ok {
				return f64(v)
			}
		}
		return val(f(prec, bf(prec, x)))
	}
}

func exact(f func(x float64) float64) func(uint, []float64) Value {
	return func(_ uint, a []float64) Value { return f64(f(a[0])) }
}

func exact2(f func(x, y float64) float64) func(uint, []float64) Value {
	return func(_ uint, a []float64) Value { return f64(f(a[0], a[1])) }
}

// Reference functions with their special values.
var (
	refExp = un(Exp, func(x float64) (float64, bool) {
		switch {
		case x > 1000:
			return math.Inf(1), true
		case x < -1000:
			return 0, true
		}
		return 0, false
	})
	refExp2 = un(func(p uint, x *Float) *Float { return Exp(p, mul(p+8, x, Ln2(p+8))) }, func(x float64) (float64, bool) {
		switch {
		case x > 1100:
			return math.Inf(1), true
		case x < -1200:
			return 0, true
		}
		return 0, false
	})
	refExp10 = un(func(p uint, x *Float) *Float { return Exp(p, mul(p+8, x, Log(p+8, newI(p+8, 10)))) }, func(x float64) (float64, bool) {
		switch {
		case x > 400:
			return math.Inf(1), true
		case x < -400:
			return 0, true
		}
		return 0, false
	})
	refExpm1 = un(Expm1, func(x float64) (float64, bool) {
		switch {
		case x > 1000:
			return math.Inf(1), true
		case x < -100:
			return -1, true
		}
		return 0, false
	})
	logSpecial = func(x float64) (float64, bool) {
		switch {
		case x < 0:
			return math.NaN(), true
		case x == 0:
			return math.Inf(-1), true
		case math.IsInf(x, 1):
			return x, true
		}
		return 0, false
	}
	refLog   = un(Log, logSpecial)
	refLog2  = un(func(p uint, x *Float) *Float { return quo(p, Log(p+8, x), Ln2(p+8)) }, logSpecial)
	refLog10 = un(func(p uint, x *Float) *Float { return quo(p, Log(p+8, x), Log(p+8, newI(p+8, 10))) }, logSpecial)
	refLog1p = un(Log1p, func(x float64) (float64, bool) {
		switch {
		case x < -1:
			return math.NaN(), true
		case x == -1:
			return math.Inf(-1), true
		case math.IsInf(x, 1):
			return x, true
		}
		return 0, false
	})
	trigSpecial = func(x float64) (float64, bool) {
		if math.IsInf(x, 0) {
			return math.NaN(), true
		}
		return 0, false
	}
	refSin   = un(Sin, trigSpecial)
	refCos   = un(Cos, trigSpecial)
	refTan   = un(Tan, trigSpecial)
	refSinPi = un(SinPi, trigSpecial)
	refCosPi = un(CosPi, trigSpecial)
	unitOnly = func(x float64) (float64, bool) {
		if math.Abs(x) > 1 {
			return math.NaN(), true
		}
		return 0, false
	}
	refAsin  = un(Asin, unitOnly)
	refAcos  = un(Acos, unitOnly)
	refAtan  = un(Atan, nil)
	refSinh  = un(Sinh, hypSpecial(true))
	refCosh  = un(Cosh, hypSpecial(false))
	refTanh  = un(Tanh, func(x float64) (float64, bool) { return math.Copysign(1, x), math.IsInf(x, 0) })
	refAsinh = un(Asinh, func(x float64) (float64, bool) { return x, math.IsInf(x, 0) })
	refAcosh = un(Acosh, func(x float64) (float64, bool) {
		if x < 1 {
			return math.NaN(), true
		}
		return x, math.IsInf(x, 1)
	})
	refAtanh = un(Atanh, func(x float64) (float64, bool) {
		switch {
		case math.Abs(x) > 1:
			return math.NaN(), true
		case math.Abs(x) == 1:
			return math.Inf(int(x)), true
		}
		return 0, false
	})
	refSqrt = un(func(p uint, x *Float) *Float { return sqrt(p, x) }, func(x float64) (float64, bool) {
		if x < 0 {
			return math.NaN(), true
		}
		return x, x == 0 || math.IsInf(x, 1)
	})
	refRsqrt = un(func(p uint, x *Float) *Float { return quo(p, newI(p, 1), sqrt(p+8, x)) }, func(x float64) (float64, bool) {
		switch {
		case x < 0:
			return math.NaN(), true
		case x == 0:
			return math.Copysign(math.Inf(1), x), true
		case math.IsInf(x, 1):
			return 0, true
		}
		return 0, false
	})
	refCbrt  = un(Cbrt, func(x float64) (float64, bool) { return x, x == 0 || math.IsInf(x, 0) })
	refRcbrt = un(func(p uint, x *Float) *Float { return quo(p, newI(p, 1), Cbrt(p+8, x)) }, func(x float64) (float64, bool) {
		switch {
		case x == 0:
			return math.Copysign(math.Inf(1), x), true
		case math.IsInf(x, 0):
			return math.Copysign(0, x), true
		}
		return 0, false
	})
	refErf  = un(Erf, func(x float64) (float64, bool) { return math.Copysign(1, x), math.Abs(x) > 10 })
	refErfc = un(Erfc, func(x float64) (float64, bool) {
		switch {
		case x > 40:
			return 0, true
		case x < -10:
			return 2, true
		}
		return 0, false
	})
	refErfcx = un(Erfcx, func(x float64) (float64, bool) {
		switch {
		case x < -30:
			return math.Inf(1), true
		case math.IsInf(x, 1):
			return 0, true
		}
		return 0, false
	})
	refErfinv = un(Erfinv, func(x float64) (float64, bool) {
		switch {
		case math.Abs(x) > 1:
			return math.NaN(), true
		case math.Abs(x) == 1:
			return math.Inf(int(x)), true
		}
		return x, x == 0
	})
	refErfcinv = un(Erfcinv, func(x float64) (float64, bool) {
		switch {
		case x < 0 || x > 2:
			return math.NaN(), true
		case x == 0:
			return math.Inf(1), true
		case x == 2:
			return math.Inf(-1), true
		}
		return 0, false
	})
	refNormcdf = un(func(p uint, x *Float) *Float {
		return quo(p, Erfc(p+8, neg(p+8, quo(p+8, x, sqrt(p+8, newI(p+8, 2))))), newI(p, 2))
	}, func(x float64) (float64, bool) {
		switch {
		case x > 40:
			return 1, true
		case x < -60:
			return 0, true
		}
		return 0, false
	})
	refNormcdfinv = un(func(p uint, x *Float) *Float {
		return neg(p, mul(p, sqrt(p+8, newI(p+8, 2)), Erfcinv(p+8, mul(p+8, newI(p+8, 2), x))))
	}, func(x float64) (float64, bool) {
		switch {
		case x < 0 || x > 1:
			return math.NaN(), true
		case x == 0:
			return math.Inf(-1), true
		case x == 1:
			return math.Inf(1), true
		}
		return 0, false
	})
	refLgamma = un(func(p uint, x *Float) *Float { v, _ := LogGamma(p, x); return v }, func(x float64) (float64, bool) {
		if math.IsInf(x, 0) || (x <= 0 && x == math.Trunc(x)) {
			return math.Inf(1), true
		}
		if x == 1 || x == 2 {
			return 0, true
		}
		return 0, false
	})
	refTgamma = un(Gamma, func(x float64) (float64, bool) {
		switch {
		case x == 0:
			return math.Copysign(math.Inf(1), x), true
		case math.IsInf(x, 1):
			return x, true
		case math.IsInf(x, -1) || (x < 0 && x == math.Trunc(x)):
			return math.NaN(), true
		case x > 200:
			return math.Inf(1), true
		case x < -200:
			// Γ is below the smallest subnormal; its sign alternates.
			return math.Copysign(0, math.Sin(math.Pi*x)), true
		}
		return 0, false
	})
)

func hypSpecial(odd bool) func(x float64) (float64, bool) {
	return func(x float64) (float64, bool) {
		if math.Abs(x) > 800 {
			if odd {
				return math.Copysign(math.Inf(1), x), true
			}
			return math.Inf(1), true
		}
		return 0, false
	}
}

// refAtan2 follows IEEE 754's special values, computed by Go's math.Atan2
// there, and is exact elsewhere.
func refAtan2(prec uint, a []float64) Value {
	y, x := a[0], a[1]
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 {
		return specialPi(prec, math.Atan2(y, x))
	}
	return val(Atan2(prec, bf(prec, y), bf(prec, x)))
}

// specialPi turns Go's float64 multiples of π/4 into exact ones.
func specialPi(prec uint, v float64) Value {
	if math.IsNaN(v) || v == 0 {
		return f64(v)
	}
	q := math.Round(v / (math.Pi / 4))
	return val(mul(prec, newF(prec, q), quo(prec, Pi(prec), newI(prec, 4))))
}

func refPow(prec uint, a []float64) Value {
	x, y := a[0], a[1]
	ax := math.Abs(x)
	if y == 0 || x == 1 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 ||
		(x < 0 && y != math.Trunc(y)) {
		return f64(math.Pow(x, y))
	}
	l := Log(prec+64, bf(prec+64, ax))
	t := mul(prec+64, l, bf(prec+64, y))
	if tf, _ := t.Float64(); tf > 1000 || tf < -1000 {
		v := math.Inf(1)
		if tf < 0 {
			v = 0
		}
		if x < 0 && math.Mod(y, 2) != 0 {
			v = -v
		}
		return f64(v)
	}
	v := Exp(prec, t)
	if x < 0 && math.Mod(y, 2) != 0 {
		v.Neg(v)
	}
	return val(v)
}

// refNorm is sqrt(Σ a²) (or its reciprocal), with inf beating NaN.
func refNorm(inv bool) func(prec uint, a []float64) Value {
	return func(prec uint, a []float64) Value {
		nan := false
		for _, v := range a {
			if math.IsInf(v, 0) {
				if inv {
					return f64(0)
				}
				return f64(math.Inf(1))
			}
			nan = nan || math.IsNaN(v)
		}
		if nan {
			return nanV
		}
		s := newI(prec+16, 0)
		for _, v := range a {
			b := bf(prec+16, v)
			s.Add(s, mul(prec+16, b, b))
		}
		if s.Sign() == 0 {
			if inv {
				return f64(math.Inf(1))
			}
			return f64(0)
		}
		r := sqrt(prec+8, s)
		if inv {
			r = quo(prec, newI(prec, 1), r)
		}
		return val(r)
	}
}

func refFma(prec uint, a []float64) Value {
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return f64(math.FMA(a[0], a[1], a[2]))
		}
	}
	p := uint(2200) // exact for any doubles
	s := add(p, mul(p, bf(p, a[0]), bf(p, a[1])), bf(p, a[2]))
	if s.Sign() == 0 {
		return f64(math.FMA(a[0], a[1], a[2])) // the sign of an exact zero
	}
	return val(s)
}

// cFmin is C's fmin: a NaN argument loses to a number.
func cFmin(x, y float64) float64 {
	switch {
	case math.IsNaN(x):
		return y
	case math.IsNaN(y):
		return x
	}
	return math.Min(x, y)
}

// round half away from zero, as C's round.
func roundAway(x float64) float64 { return math.Round(x) }

func ilogbF(x float64) float64 {
	switch {
	case x == 0 || math.IsNaN(x):
		return -2147483648
	case math.IsInf(x, 0):
		return 2147483647
	}
	return float64(math.Ilogb(x))
}

func logbF(x float64) float64 { return math.Logb(x) }

// Cases is every math function cugen's tests and the ulp table cover.
var Cases = buildCases()

func buildCases() []Case {
	var cs []Case
	// both adds the float (name+"f") and double (name) forms of a function.
	both := func(name string, args int, fb, db float64, ref func(uint, []float64) Value, fgen, dgen func(*rand.Rand) []float64) {
		cs = append(cs,
			Case{Name: name + "f", Single: true, Args: args, Bound: fb, Ref: ref, Gen: fgen},
			Case{Name: name, Args: args, Bound: db, Ref: ref, Gen: dgen})
	}
	F, D := true, false
	a1 := func(single bool, gs ...gen) func(*rand.Rand) []float64 {
		return args(mix(single, append(gs, anyBits(single))...))
	}
	a2 := func(single bool, g1, g2 gen) func(*rand.Rand) []float64 {
		return args(mix(single, g1, anyBits(single)), mix(single, g2, anyBits(single)))
	}

	both("exp", 1, 2, 1, refExp, a1(F, uni(-104, 89)), a1(D, uni(-746, 710), uni(-1, 1)))
	both("exp2", 1, 2, 1, refExp2, a1(F, uni(-151, 128)), a1(D, uni(-1076, 1024), uni(-1, 1)))
	both("exp10", 1, 2, 1, refExp10, a1(F, uni(-46, 39)), a1(D, uni(-324, 309), uni(-1, 1)))
	both("expm1", 1, 1, 1, refExpm1, a1(F, uni(-20, 89), logu(-30, 2, true)), a1(D, uni(-40, 710), logu(-60, 2, true)))
	both("log", 1, 1, 1, refLog, a1(F, logu(-149, 128, false), uni(0.5, 2)), a1(D, logu(-1074, 1024, false), uni(0.5, 2)))
	both("log2", 1, 1, 1, refLog2, a1(F, logu(-149, 128, false), uni(0.5, 2)), a1(D, logu(-1074, 1024, false), uni(0.5, 2)))
	both("log10", 1, 2, 1, refLog10, a1(F, logu(-149, 128, false), uni(0.5, 2)), a1(D, logu(-1074, 1024, false), uni(0.5, 2)))
	both("log1p", 1, 1, 1, refLog1p, a1(F, uni(-1, 2), logu(-30, 128, true)), a1(D, uni(-1, 2), logu(-60, 1024, true)))
	both("sin", 1, 2, 1, refSin, a1(F, uni(-10, 10), logu(-20, 128, true)), a1(D, uni(-10, 10), logu(-30, 1024, true)))
	both("cos", 1, 2, 1, refCos, a1(F, uni(-10, 10), logu(-20, 128, true)), a1(D, uni(-10, 10), logu(-30, 1024, true)))
	both("tan", 1, 4, 2, refTan, a1(F, uni(-10, 10), logu(-20, 128, true)), a1(D, uni(-10, 10), logu(-30, 1024, true)))
	both("sinpi", 1, 2, 1, refSinPi, a1(F, uni(-4, 4), halfInts(100), logu(-30, 30, true)), a1(D, uni(-4, 4), halfInts(100), logu(-60, 60, true)))
	both("cospi", 1, 2, 1, refCosPi, a1(F, uni(-4, 4), halfInts(100), logu(-30, 30, true)), a1(D, uni(-4, 4), halfInts(100), logu(-60, 60, true)))
	both("asin", 1, 4, 2, refAsin, a1(F, uni(-1, 1), logu(-30, 0, true)), a1(D, uni(-1, 1), logu(-60, 0, true)))
	both("acos", 1, 3, 1, refAcos, a1(F, uni(-1, 1), logu(-30, 0, true)), a1(D, uni(-1, 1), logu(-60, 0, true)))
	both("atan", 1, 2, 2, refAtan, a1(F, uni(-4, 4), logu(-30, 128, true)), a1(D, uni(-4, 4), logu(-60, 1024, true)))
	both("atan2", 2, 3, 2, refAtan2, a2(F, logu(-30, 30, true), logu(-30, 30, true)), a2(D, logu(-60, 60, true), logu(-60, 60, true)))
	both("sinh", 1, 3, 1, refSinh, a1(F, uni(-90, 90), logu(-30, 4, true)), a1(D, uni(-711, 711), logu(-60, 5, true)))
	both("cosh", 1, 2, 1, refCosh, a1(F, uni(-90, 90), logu(-30, 4, true)), a1(D, uni(-711, 711), logu(-60, 5, true)))
	both("tanh", 1, 2, 1, refTanh, a1(F, uni(-10, 10), logu(-30, 4, true)), a1(D, uni(-25, 25), logu(-60, 5, true)))
	both("asinh", 1, 3, 2, refAsinh, a1(F, uni(-10, 10), logu(-30, 128, true)), a1(D, uni(-10, 10), logu(-60, 1024, true)))
	both("acosh", 1, 4, 2, refAcosh, a1(F, uni(1, 10), logu(0, 128, false)), a1(D, uni(1, 10), logu(0, 1024, false)))
	both("atanh", 1, 3, 2, refAtanh, a1(F, uni(-1, 1), logu(-30, 0, true)), a1(D, uni(-1, 1), logu(-60, 0, true)))
	both("sqrt", 1, 0, 0, refSqrt, a1(F, logu(-149, 128, false)), a1(D, logu(-1074, 1024, false)))
	both("rsqrt", 1, 2, 1, refRsqrt, a1(F, logu(-149, 128, false)), a1(D, logu(-1074, 1024, false)))
	both("cbrt", 1, 1, 1, refCbrt, a1(F, logu(-149, 128, true)), a1(D, logu(-1074, 1024, true)))
	both("rcbrt", 1, 1, 1, refRcbrt, a1(F, logu(-149, 128, true)), a1(D, logu(-1074, 1024, true)))
	both("hypot", 2, 3, 2, refNorm(false), a2(F, logu(-149, 128, true), logu(-149, 128, true)), a2(D, logu(-1074, 1024, true), logu(-1074, 1024, true)))
	both("rhypot", 2, 2, 1, refNorm(true), a2(F, logu(-60, 60, true), logu(-60, 60, true)), a2(D, logu(-500, 500, true), logu(-500, 500, true)))
	powGen := func(single bool, xr, yr float64) func(*rand.Rand) []float64 {
		// Half the time a y that keeps x^y in range: large powers of x near 1.
		wide := a2(single, logu(-xr, xr, true), uni(-yr, yr))
		return func(r *rand.Rand) []float64 {
			if r.IntN(2) == 0 {
				return wide(r)
			}
			x := math.Exp2(uni(-xr, xr)(r))
			lim := 0.9 * 128 / math.Abs(math.Log2(x))
			if !single {
				lim = 0.9 * 1024 / math.Abs(math.Log2(x))
			}
			return []float64{x, uni(-lim, lim)(r)}
		}
	}
	both("pow", 2, 8, 2, refPow, powGen(F, 30, 40), powGen(D, 100, 200))
	both("erf", 1, 2, 2, refErf, a1(F, uni(-5, 5), logu(-30, 2, true)), a1(D, uni(-7, 7), logu(-60, 3, true)))
	both("erfc", 1, 4, 4, refErfc, a1(F, uni(-4, 11), logu(-30, 3, true)), a1(D, uni(-6, 28), logu(-60, 5, true)))
	both("erfcx", 1, 4, 3, refErfcx, a1(F, uni(-9, 100), logu(-30, 60, true)), a1(D, uni(-26, 100), logu(-60, 500, true)))
	both("erfinv", 1, 2, 5, refErfinv, a1(F, uni(-1, 1), logu(-30, 0, true)), a1(D, uni(-1, 1), logu(-60, 0, true)))
	both("erfcinv", 1, 2, 6, refErfcinv, a1(F, uni(0, 2), logu(-126, 1, false)), a1(D, uni(0, 2), logu(-1022, 1, false)))
	both("normcdf", 1, 5, 5, refNormcdf, a1(F, uni(-14, 6), logu(-30, 3, true)), a1(D, uni(-38, 9), logu(-60, 5, true)))
	both("normcdfinv", 1, 5, 7, refNormcdfinv, a1(F, uni(0, 1), logu(-126, 0, false)), a1(D, uni(0, 1), logu(-1022, 0, false)))
	lgw := func(lo, hi float64) func(a []float64) bool {
		return func(a []float64) bool { return a[0] < lo || a[0] > hi }
	}
	cs = append(cs,
		Case{Name: "lgammaf", Single: true, Args: 1, Bound: 6, Ref: refLgamma, Within: lgw(-10.001, -2.264),
			Note: "outside [-10.001, -2.264]", Gen: a1(F, uni(-12, 12), logu(-30, 128, true))},
		Case{Name: "lgamma", Args: 1, Bound: 4, Ref: refLgamma, Within: lgw(-11.0001, -2.2637),
			Note: "outside [-11.0001, -2.2637]", Gen: a1(D, uni(-12, 12), logu(-60, 1024, true))})
	both("tgamma", 1, 11, 8, refTgamma, a1(F, uni(-40, 36)), a1(D, uni(-180, 172)))

	a3 := func(single bool, g gen) func(*rand.Rand) []float64 {
		return args(mix(single, g, anyBits(single)), mix(single, g, anyBits(single)), mix(single, g, anyBits(single)))
	}
	a4 := func(single bool, g gen) func(*rand.Rand) []float64 {
		m := mix(single, g, anyBits(single))
		return args(m, m, m, m)
	}
	cs = append(cs,
		Case{Name: "norm3df", Single: true, Args: 3, Bound: 3, Ref: refNorm(false), Gen: a3(F, logu(-60, 60, true))},
		Case{Name: "norm3d", Args: 3, Bound: 2, Ref: refNorm(false), Gen: a3(D, logu(-500, 500, true))},
		Case{Name: "rnorm3df", Single: true, Args: 3, Bound: 2, Ref: refNorm(true), Gen: a3(F, logu(-60, 60, true))},
		Case{Name: "rnorm3d", Args: 3, Bound: 1, Ref: refNorm(true), Gen: a3(D, logu(-500, 500, true))},
		Case{Name: "norm4df", Single: true, Args: 4, Bound: 3, Ref: refNorm(false), Gen: a4(F, logu(-60, 60, true))},
		Case{Name: "norm4d", Args: 4, Bound: 2, Ref: refNorm(false), Gen: a4(D, logu(-500, 500, true))},
		Case{Name: "rnorm4df", Single: true, Args: 4, Bound: 2, Ref: refNorm(true), Gen: a4(F, logu(-60, 60, true))},
		Case{Name: "rnorm4d", Args: 4, Bound: 1, Ref: refNorm(true), Gen: a4(D, logu(-500, 500, true))},
		Case{Name: "fmaf", Single: true, Args: 3, Bound: 0, Ref: refFma, Gen: a3(F, logu(-60, 60, true))},
		Case{Name: "fma", Args: 3, Bound: 0, Ref: refFma, Gen: a3(D, logu(-500, 500, true))},
	)

	// Exact functions: the result is a double (or float) Go computes exactly.
	ex1 := func(name string, f func(float64) float64, fg, dg gen) {
		both(name, 1, 0, 0, exact(f), a1(F, fg), a1(D, dg))
	}
	fr := logu(-30, 30, true)
	ex1("floor", math.Floor, fr, logu(-60, 60, true))
	ex1("ceil", math.Ceil, fr, logu(-60, 60, true))
	ex1("trunc", math.Trunc, fr, logu(-60, 60, true))
	ex1("round", roundAway, uni(-10, 10), uni(-10, 10))
	ex1("rint", math.RoundToEven, uni(-10, 10), uni(-10, 10))
	ex1("nearbyint", math.RoundToEven, uni(-10, 10), uni(-10, 10))
	ex1("fabs", math.Abs, fr, fr)
	ex1("logb", logbF, logu(-149, 128, true), logu(-1074, 1024, true))
	ex2 := func(name string, f func(x, y float64) float64, fg, dg gen) {
		both(name, 2, 0, 0, exact2(f), a2(F, fg, fg), a2(D, dg, dg))
	}
	ex2("fmod", math.Mod, logu(-149, 128, true), logu(-1074, 1024, true))
	ex2("remainder", math.Remainder, logu(-149, 128, true), logu(-1074, 1024, true))
	ex2("fmin", cFmin, fr, fr)
	ex2("fmax", func(x, y float64) float64 { return -cFmin(-x, -y) }, fr, fr)
	ex2("fdim", func(x, y float64) float64 {
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return math.NaN()
		case x > y:
			return x - y
		}
		return 0
	}, fr, fr)
	ex2("copysign", math.Copysign, fr, fr)
	addFast(cs)
	cs = append(cs,
		Case{Name: "nextafterf", Single: true, Args: 2, Ref: exact2(func(x, y float64) float64 {
			return float64(math.Nextafter32(float32(x), float32(y)))
		}), Gen: a2(F, uni(-2, 2), uni(-2, 2))},
		Case{Name: "nextafter", Args: 2, Ref: exact2(math.Nextafter), Gen: a2(D, uni(-2, 2), uni(-2, 2))})
	return cs
}

// fastRefs are Go's float64 functions, within about a double ulp of the
// exact value: far closer than a float ulp.
var fastRefs = map[string]func(a []float64) float64{
	"expf": u1(math.Exp), "exp2f": u1(math.Exp2), "exp10f": u1(func(x float64) float64 { return math.Pow(10, x) }),
	"expm1f": u1(math.Expm1), "logf": u1(math.Log), "log2f": u1(math.Log2), "log10f": u1(math.Log10),
	"log1pf": u1(math.Log1p), "sinf": u1(math.Sin), "cosf": u1(math.Cos), "tanf": u1(math.Tan),
	"asinf": u1(math.Asin), "acosf": u1(math.Acos), "atanf": u1(math.Atan),
	"atan2f": func(a []float64) float64 { return math.Atan2(a[0], a[1]) },
	"sinhf":  u1(math.Sinh), "coshf": u1(math.Cosh), "tanhf": u1(math.Tanh), "asinhf": u1(math.Asinh),
	"acoshf": u1(math.Acosh), "atanhf": u1(math.Atanh), "sqrtf": u1(math.Sqrt),
	"rsqrtf": u1(func(x float64) float64 { return 1 / math.Sqrt(x) }), "cbrtf": u1(math.Cbrt),
	"rcbrtf":  u1(func(x float64) float64 { return 1 / math.Cbrt(x) }),
	"hypotf":  func(a []float64) float64 { return math.Hypot(a[0], a[1]) },
	"rhypotf": func(a []float64) float64 { return 1 / math.Hypot(a[0], a[1]) },
	"powf":    func(a []float64) float64 { return math.Pow(a[0], a[1]) },
	"erff":    u1(math.Erf), "erfcf": u1(math.Erfc), "erfinvf": u1(math.Erfinv),
	"normcdff": u1(func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }),
	"tgammaf":  u1(math.Gamma), "lgammaf": u1(func(x float64) float64 { v, _ := math.Lgamma(x); return v }),
	"norm3df":  func(a []float64) float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2]) },
	"rnorm3df": func(a []float64) float64 { return 1 / math.Sqrt(a[0]*a[0]+a[1]*a[1]+a[2]*a[2]) },
	"norm4df":  func(a []float64) float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2] + a[3]*a[3]) },
	"rnorm4df": func(a []float64) float64 { return 1 / math.Sqrt(a[0]*a[0]+a[1]*a[1]+a[2]*a[2]+a[3]*a[3]) },
}

func u1(f func(float64) float64) func(a []float64) float64 {
	return func(a []float64) float64 { return f(a[0]) }
}

func addFast(cs []Case) {
	for i := range cs {
		if f, ok := fastRefs[cs[i].Name]; ok && cs[i].Single {
			cs[i].Fast = f
		}
	}
}

// IntrinsicCases are the fast intrinsics, with CUDA's statement of their
// error: the ulp table measures them on the GPU (cugen maps them to the PTX
// approximations nvcc uses, so the two should agree bit for bit).
var IntrinsicCases = []Case{
	{Name: "__expf", Single: true, Args: 1, Intrinsic: true, BoundText: "2 + floor(abs(1.173 * x))", Ref: refExp, Fast: u1(math.Exp), Gen: args(uni(-80, 80))},
	{Name: "__exp10f", Single: true, Args: 1, Intrinsic: true, BoundText: "2 + floor(abs(2.97 * x))", Ref: refExp10, Fast: u1(func(x float64) float64 { return math.Pow(10, x) }), Gen: args(uni(-35, 35))},
	{Name: "__logf", Single: true, Args: 1, Intrinsic: true, BoundText: "2^-21.41 abs in [0.5, 2], else 3", Ref: refLog, Fast: u1(math.Log), Gen: args(logu(-126, 127, false))},
	{Name: "__log2f", Single: true, Args: 1, Intrinsic: true, BoundText: "2^-22 abs in [0.5, 2], else 2", Ref: refLog2, Fast: u1(math.Log2), Gen: args(logu(-126, 127, false))},
	{Name: "__log10f", Single: true, Args: 1, Intrinsic: true, BoundText: "2^-24 abs in [0.5, 2], else 3", Ref: refLog10, Fast: u1(math.Log10), Gen: args(logu(-126, 127, false))},
	{Name: "__sinf", Single: true, Args: 1, Intrinsic: true, BoundText: "2^-21.41 abs in [-π, π]", Ref: refSin, Fast: u1(math.Sin), Gen: args(uni(-math.Pi, math.Pi))},
	{Name: "__cosf", Single: true, Args: 1, Intrinsic: true, BoundText: "2^-21.19 abs in [-π, π]", Ref: refCos, Fast: u1(math.Cos), Gen: args(uni(-math.Pi, math.Pi))},
	{Name: "__tanf", Single: true, Args: 1, Intrinsic: true, BoundText: "from __sinf/__cosf", Ref: refTan, Fast: u1(math.Tan), Gen: args(uni(-1.5, 1.5))},
	{Name: "__powf", Single: true, Args: 2, Intrinsic: true, BoundText: "from exp2(y·log2 x)", Ref: refPow, Fast: func(a []float64) float64 { return math.Pow(a[0], a[1]) }, Gen: args(logu(-10, 10, false), uni(-8, 8))},
	{Name: "__fdividef", Single: true, Args: 2, Intrinsic: true, BoundText: "2 for abs(y) in [2^-126, 2^126]", Ref: refDiv, Fast: func(a []float64) float64 { return a[0] / a[1] }, Gen: args(logu(-60, 60, true), logu(-60, 60, true))},
	{Name: "__saturatef", Single: true, Args: 1, Intrinsic: true, BoundText: "0", Ref: exact(func(x float64) float64 {
		if math.IsNaN(x) {
			return 0
		}
		return math.Max(0, math.Min(1, x))
	}), Gen: args(mix(true, uni(-2, 2), anyBits(true)))},
}

func refDiv(prec uint, a []float64) Value {
	if a[1] == 0 || math.IsInf(a[0], 0) || math.IsInf(a[1], 0) || math.IsNaN(a[0]) || math.IsNaN(a[1]) {
		return f64(a[0] / a[1])
	}
	return val(quo(prec, bf(prec, a[0]), bf(prec, a[1])))
}

// Float32 rounding of a float64 input, for the float cases.
func roundArgs(c Case, a []float64) {
	if c.Single {
		for i := range a {
			a[i] = float64(float32(a[i]))
		}
	}
}

// Inputs draws n argument tuples of c, each rounded to the case's type:
// chunks of 64K from generators seeded by (seed, chunk, name), drawn in
// parallel, so the same seed gives the same inputs anywhere.
func (c Case) Inputs(seed uint64, n int) [][]float64 {
	const chunk = 1 << 16
	out := make([][]float64, n)
	flat := make([]float64, n*c.Args)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		sem <- struct{}{}
		go func(lo int) {
			defer func() { <-sem; wg.Done() }()
			h := uint64(lo/chunk)<<32 ^ uint64(len(c.Name))
			for _, b := range []byte(c.Name) {
				h = h*31 + uint64(b)
			}
			r := rand.New(rand.NewPCG(seed, h))
			for i := lo; i < min(n, lo+chunk); i++ {
				a := c.Gen(r)
				roundArgs(c, a)
				out[i] = flat[i*c.Args : (i+1)*c.Args : (i+1)*c.Args]
				copy(out[i], a)
			}
		}(lo)
	}
	wg.Wait()
	return out
}

// UlpError is the distance, in units in the last place of the result type,
// between got and the correctly rounded want, as CUDA states its bounds: 0
// when they are the same value (±0 alike, any NaN for a NaN), +Inf when
// one is NaN and the other not.
func UlpError(single bool, got float64, want Value) float64 {
	if want.NaN || math.IsNaN(got) {
		if want.NaN && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	}
	var cr float64
	if single {
		v, _ := want.V.Float32()
		cr = float64(v)
	} else {
		cr, _ = want.V.Float64()
	}
	if got == cr {
		return 0
	}
	if math.IsInf(got, 0) != math.IsInf(cr, 0) && (math.IsInf(got, 0) || math.IsInf(cr, 0)) {
		// One overflowed: count the distance to the largest finite value plus one.
		if math.IsInf(got, 0) {
			got = math.Copysign(maxOf(single), got)
		} else {
			cr = math.Copysign(maxOf(single), cr)
		}
		return ordDist(single, got, cr) + 1
	}
	return ordDist(single, got, cr)
}

// UlpErrorF64 is UlpError for a reference given as a float64 (a double
// result, or a float function's value to within a double ulp), without
// math/big.
func UlpErrorF64(single bool, got, want float64) float64 {
	if math.IsNaN(want) || math.IsNaN(got) {
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	}
	if single {
		want = float64(float32(want))
	}
	if got == want {
		return 0
	}
	if math.IsInf(got, 0) != math.IsInf(want, 0) {
		if math.IsInf(got, 0) {
			got = math.Copysign(maxOf(single), got)
		} else {
			want = math.Copysign(maxOf(single), want)
		}
		return ordDist(single, got, want) + 1
	}
	return ordDist(single, got, want)
}

func maxOf(single bool) float64 {
	if single {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// ordDist counts the representable values between a and b.
func ordDist(single bool, a, b float64) float64 {
	ord := func(x float64) int64 {
		var i int64
		if single {
			i = int64(int32(math.Float32bits(float32(x))))
			if i < 0 {
				i = int64(math.MinInt32) - i
			}
		} else {
			i = int64(math.Float64bits(x))
			if i < 0 {
				i = math.MinInt64 - i
			}
		}
		return i
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return float64(d)
}

// Prec is the working precision of a case's reference: far beyond the
// result type.
func (c Case) Prec() uint {
	if c.Single {
		return 80
	}
	return 128
}

// KernelSource is the CUDA source of one kernel per case, k_<name>(x, y, n):
// y[i] = name(x[i*args], …) for i < n. It includes only what CUDA programs
// include, so nvcc compiles it with the toolkit's math library and clang with
// cugen's.
func KernelSource(cs []Case) string {
	var b strings.Builder
	b.WriteString("// Code generated by cmd/cugen/internal/clang/mathgen; DO NOT EDIT.\n")
	b.WriteString("// One kernel per CUDA math function: y[i] = f(x[i*A], ..., x[i*A+A-1]).\n")
	b.WriteString("#include <cuda_runtime.h>\n#include <math.h>\n\n")
	for _, c := range cs {
		typ := "double"
		if c.Single {
			typ = "float"
		}
		var as []string
		for j := 0; j < c.Args; j++ {
			as = append(as, fmt.Sprintf("x[i * %d + %d]", c.Args, j))
		}
		fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const %s *x, %s *y, int n) {\n", c.Kernel(), typ, typ)
		fmt.Fprintf(&b, "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = %s(%s);\n}\n", c.Name, strings.Join(as, ", "))
	}
	return b.String()
}
