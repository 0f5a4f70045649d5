package mathgen

import (
	"math/big"
	"sync"
)

var (
	bernoulliOnce sync.Once
	bernoulli     []*big.Rat // B_0 … B_nBernoulli
)

const nBernoulli = 160

// bernoulliNumbers computes B_0..B_n (B_1 = +1/2) with the Akiyama–Tanigawa
// algorithm in exact rationals.
func bernoulliNumbers() []*big.Rat {
	bernoulliOnce.Do(func() {
		a := make([]*big.Rat, nBernoulli+1)
		bernoulli = make([]*big.Rat, nBernoulli+1)
		for m := 0; m <= nBernoulli; m++ {
			a[m] = big.NewRat(1, int64(m+1))
			for j := m; j >= 1; j-- {
				d := new(big.Rat).Sub(a[j-1], a[j])
				a[j-1] = d.Mul(d, big.NewRat(int64(j), 1))
			}
			bernoulli[m] = new(big.Rat).Set(a[0])
		}
	})
	return bernoulli
}

// stirlingMin is the argument above which LogGamma uses Stirling's series
// directly: its smallest term there is far below 2^-400.
const stirlingMin = 64

// LogGamma is log|Γ(x)| and the sign of Γ(x), for x not a non-positive
// integer.
func LogGamma(prec uint, x *Float) (*Float, int) {
	p := prec + 64
	if x.Sign() <= 0 {
		// Reflection: Γ(x)Γ(1-x) = π/sin(πx).
		s := SinPi(p, x)
		if s.Sign() == 0 {
			return new(Float).SetPrec(prec).SetInf(false), 1
		}
		lg, sg := LogGamma(p, sub(p+uint(max(0, x.MantExp(nil))), newI(p, 1), x))
		sign := sg
		if s.Sign() < 0 {
			sign = -sign
		}
		v := sub(p, Log(p, quo(p, Pi(p), abs(p, s))), lg)
		return new(Float).SetPrec(prec).Set(v), sign
	}
	// Shift up: log Γ(x) = log Γ(x+n) - log(x(x+1)…(x+n-1)).
	z := new(Float).SetPrec(p).Set(x)
	prod := newI(p, 1)
	for z.Cmp(newI(p, stirlingMin)) < 0 {
		prod.Mul(prod, z)
		z.Add(z, newI(p, 1))
	}
	v := stirling(p, z)
	if prod.Cmp(newI(p, 1)) != 0 {
		v.Sub(v, Log(p, prod))
	}
	return new(Float).SetPrec(prec).Set(v), 1
}

// stirling is log Γ(z) for z >= stirlingMin.
func stirling(prec uint, z *Float) *Float {
	p := prec + 20
	half := newF(p, 0.5)
	v := sub(p, mul(p, sub(p, z, half), Log(p, z)), z)
	v.Add(v, mul(p, half, Log(p, mul(p, newI(p, 2), Pi(p)))))
	b := bernoulliNumbers()
	zinv := quo(p, newI(p, 1), z)
	z2inv := mul(p, zinv, zinv)
	zp := new(Float).SetPrec(p).Set(zinv) // z^-(2k-1)
	for k := 1; 2*k <= nBernoulli; k++ {
		c := new(Float).SetPrec(p).SetRat(b[2*k])
		c.Quo(c, newI(p, int64(2*k*(2*k-1))))
		t := mul(p, c, zp)
		if t.Sign() == 0 || t.MantExp(nil) < v.MantExp(nil)-int(p)-4 {
			break
		}
		v.Add(v, t)
		zp.Mul(zp, z2inv)
	}
	return v
}

// Gamma is Γ(x).
func Gamma(prec uint, x *Float) *Float {
	p := prec + 20
	if x.Sign() <= 0 && x.IsInt() {
		return new(Float).SetPrec(prec).SetInf(false) // a pole: callers test for NaN
	}
	lg, sg := LogGamma(p+uint(max(0, x.MantExp(nil)))+16, x)
	v := Exp(prec, lg)
	if sg < 0 {
		v.Neg(v)
	}
	return v
}
