package mathgen

import (
	"math"
	"testing"
)

// ulps is the distance of got from want in float64 ulps of want.
func ulps(got *Float, want float64) float64 {
	g, _ := got.Float64()
	if g == want {
		return 0
	}
	_, e := math.Frexp(want)
	return math.Abs(g-want) / math.Ldexp(1, e-53)
}

// TestAgainstGoMath checks every reference function against Go's math
// package, whose functions are within about 1 ulp of float64 at these points
// (not everywhere: Go's Tan returns x for |x| <= 1e-7, 15 ulp off, and its
// Gamma is 9 ulp off at -100.5).
func TestAgainstGoMath(t *testing.T) {
	const prec = 128
	f := func(x float64) *Float { return newF(prec, x) }
	cases := []struct {
		name string
		big  func(x float64) *Float
		gom  func(x float64) float64
		xs   []float64
		tol  float64
	}{
		{"exp", func(x float64) *Float { return Exp(prec, f(x)) }, math.Exp, []float64{-700, -3.3, -1e-9, 0.5, 1, 2.2, 88.7, 709}, 1},
		{"expm1", func(x float64) *Float { return Expm1(prec, f(x)) }, math.Expm1, []float64{-20, -0.3, -1e-12, 3e-9, 0.01, 0.7, 30}, 1},
		{"log", func(x float64) *Float { return Log(prec, f(x)) }, math.Log, []float64{1e-300, 0.1, 0.75, 0.999999, 1.5, 7, 1e100}, 1},
		{"log1p", func(x float64) *Float { return Log1p(prec, f(x)) }, math.Log1p, []float64{-0.9, -1e-10, 2e-17, 0.3, 5, 1e20}, 1},
		{"sin", func(x float64) *Float { return Sin(prec, f(x)) }, math.Sin, []float64{-1e5, -3, -1e-7, 0.7, 1.5707963267948966, 22, 1e6}, 1},
		{"cos", func(x float64) *Float { return Cos(prec, f(x)) }, math.Cos, []float64{-1e5, -3, 1e-7, 0.7, 2, 22, 1e6}, 1},
		{"tan", func(x float64) *Float { return Tan(prec, f(x)) }, math.Tan, []float64{-1e5, -3, 1e-3, 0.7, 1.5, 22}, 2},
		{"atan", func(x float64) *Float { return Atan(prec, f(x)) }, math.Atan, []float64{-1e10, -3, -0.4, 1e-9, 0.5, 1, 2, 1e300}, 1},
		{"asin", func(x float64) *Float { return Asin(prec, f(x)) }, math.Asin, []float64{-1, -0.7, -1e-9, 0.2, 0.5, 0.99, 1}, 1},
		{"acos", func(x float64) *Float { return Acos(prec, f(x)) }, math.Acos, []float64{-1, -0.7, -1e-9, 0.2, 0.5, 0.99, 1}, 1},
		{"sinh", func(x float64) *Float { return Sinh(prec, f(x)) }, math.Sinh, []float64{-20, -0.1, 1e-9, 0.6, 3, 700}, 2},
		{"cosh", func(x float64) *Float { return Cosh(prec, f(x)) }, math.Cosh, []float64{-20, -0.1, 1e-9, 0.6, 3, 700}, 2},
		{"tanh", func(x float64) *Float { return Tanh(prec, f(x)) }, math.Tanh, []float64{-20, -0.1, 1e-9, 0.6, 3, 700}, 2},
		{"asinh", func(x float64) *Float { return Asinh(prec, f(x)) }, math.Asinh, []float64{-1e300, -20, -0.1, 1e-9, 0.6, 3}, 2},
		{"acosh", func(x float64) *Float { return Acosh(prec, f(x)) }, math.Acosh, []float64{1, 1.0000001, 1.5, 3, 1e300}, 2},
		{"atanh", func(x float64) *Float { return Atanh(prec, f(x)) }, math.Atanh, []float64{-0.999, -0.1, 1e-9, 0.6, 0.9999999}, 2},
		{"cbrt", func(x float64) *Float { return Cbrt(prec, f(x)) }, math.Cbrt, []float64{-27, -1e-300, 2, 1e300}, 1},
		{"erf", func(x float64) *Float { return Erf(prec, f(x)) }, math.Erf, []float64{-3, -0.5, 1e-9, 0.3, 0.84, 2, 2.9, 3.5, 5}, 2},
		{"erfc", func(x float64) *Float { return Erfc(prec, f(x)) }, math.Erfc, []float64{-3, -0.5, 1e-9, 0.3, 0.84, 2, 2.6, 5, 10, 26}, 4},
		{"erfinv", func(x float64) *Float { return Erfinv(prec, f(x)) }, math.Erfinv, []float64{-0.999, -0.5, 1e-9, 0.3, 0.8, 0.9999}, 4},
		{"lgamma", func(x float64) *Float { v, _ := LogGamma(prec, f(x)); return v }, func(x float64) float64 { v, _ := math.Lgamma(x); return v }, []float64{-100.5, -1.5, -0.3, 0.1, 0.5, 1.5, 3, 10.2, 100, 1e10}, 4},
		{"gamma", func(x float64) *Float { return Gamma(prec, f(x)) }, math.Gamma, []float64{-10.5, -1.5, -0.3, 0.1, 0.5, 1.5, 3, 10.2, 100, 170}, 8},
	}
	for _, c := range cases {
		for _, x := range c.xs {
			want := c.gom(x)
			if u := ulps(c.big(x), want); u > c.tol {
				g, _ := c.big(x).Float64()
				t.Errorf("%s(%g) = %.17g, Go math says %.17g (%.1f ulp)", c.name, x, g, want, u)
			}
		}
	}
	// Exact values.
	if v, _ := SinPi(prec, f(1e15+0.5)).Float64(); v != 1 {
		t.Errorf("sinpi(1e15+0.5) = %g", v)
	}
	for _, c := range []float64{1e-300, 1e-20, 0.1, 0.9, 1.3, 1.99} {
		y := Erfcinv(prec, f(c))
		if u := ulps(Erfc(prec, y), c); u > 1 {
			t.Errorf("erfc(erfcinv(%g)) is %.1f ulp from it", c, u)
		}
	}
	if v, _ := Gamma(prec, f(5)).Float64(); v != 24 {
		t.Errorf("Γ(5) = %g", v)
	}
}
