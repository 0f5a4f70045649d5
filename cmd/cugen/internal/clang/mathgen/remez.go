package mathgen

import (
	"fmt"
	"math"
	"math/big"
	"sort"
)

// remezPrec is the working precision of the exchange: far above the
// coefficients' so that the linear solves and error curves are exact for
// all purposes.
const remezPrec = 192

// Poly is a minimax polynomial found by Remez.
type Poly struct {
	Coef   []float64 // c_0 … c_n, rounded to the target format
	MaxErr float64   // max weighted error with the rounded coefficients
	Iters  int
}

// Remez finds the polynomial of degree n minimising max |w(t)(f(t) - p(t))|
// over [lo, hi], where w is 1/|f| when rel is set and 1 otherwise, then
// rounds its coefficients to float32 (single) or float64 and measures the
// error again. f must be smooth on the interval; it is evaluated once per
// point of a dense grid (Chebyshev-spaced, so the ends are sampled densely),
// on which the extrema are located.
func Remez(f func(prec uint, t *Float) *Float, lo, hi float64, n int, rel, single bool) (Poly, error) {
	const prec = remezPrec
	m := 120 * (n + 2)
	if m < 2400 {
		m = 2400
	}
	// Grid: Chebyshev points of the second kind over [lo, hi], endpoints
	// included.
	xs := make([]*Float, m+1)
	for k := 0; k <= m; k++ {
		c := -math.Cos(math.Pi * float64(k) / float64(m))
		x := newF(prec, (lo+hi)/2+(hi-lo)/2*c)
		if k == 0 {
			x = newF(prec, lo)
		} else if k == m {
			x = newF(prec, hi)
		}
		xs[k] = x
	}
	fs := make([]*Float, len(xs))
	ws := make([]*Float, len(xs))
	for k, x := range xs {
		fs[k] = f(prec, x)
		if rel {
			if fs[k].Sign() == 0 {
				return Poly{}, fmt.Errorf("relative error asked for, but f(%g) = 0", lo+(hi-lo)*float64(k)/float64(m))
			}
			ws[k] = quo(prec, newI(prec, 1), abs(prec, fs[k]))
		} else {
			ws[k] = newI(prec, 1)
		}
	}

	// Initial reference: the grid points nearest the Chebyshev extrema of
	// degree n+1.
	ref := make([]int, n+2)
	for i := range ref {
		c := -math.Cos(math.Pi * float64(i) / float64(n+1))
		ref[i] = int(math.Round(math.Acos(-c) / math.Pi * float64(m)))
	}
	dedupe(ref, m)

	var coef []*Float
	iters := 0
	for ; iters < 60; iters++ {
		var err error
		coef, _, err = solveRef(xs, fs, ws, ref, n)
		if err != nil {
			return Poly{}, err
		}
		errs := make([]*Float, len(xs))
		for k := range xs {
			errs[k] = mul(prec, ws[k], sub(prec, fs[k], horner(prec, coef, xs[k])))
		}
		next := extrema(errs)
		if len(next) < n+2 {
			return Poly{}, fmt.Errorf("degree %d on [%g, %g]: the error alternates only %d times", n, lo, hi, len(next))
		}
		for len(next) > n+2 {
			if cmpAbs(errs[next[0]], errs[next[len(next)-1]]) < 0 {
				next = next[1:]
			} else {
				next = next[:len(next)-1]
			}
		}
		// Converged when the reference's errors level out.
		mx, mn := 0.0, math.Inf(1)
		for _, k := range next {
			e, _ := new(Float).Abs(errs[k]).Float64()
			mx = math.Max(mx, e)
			mn = math.Min(mn, e)
		}
		same := equalInts(next, ref)
		ref = next
		if same || mx == 0 || (mx-mn)/mx < 1e-6 {
			break
		}
	}

	// Round the coefficients and measure what the device will see.
	p := Poly{Coef: make([]float64, len(coef)), Iters: iters}
	rounded := make([]*Float, len(coef))
	for i, c := range coef {
		if single {
			v, _ := c.Float32()
			p.Coef[i] = float64(v)
		} else {
			p.Coef[i], _ = c.Float64()
		}
		rounded[i] = newF(prec, p.Coef[i])
	}
	for k := range xs {
		e, _ := mul(prec, ws[k], sub(prec, fs[k], horner(prec, rounded, xs[k]))).Float64()
		p.MaxErr = math.Max(p.MaxErr, math.Abs(e))
	}
	return p, nil
}

// solveRef solves Σ c_j x_i^j + (-1)^i E/w_i = f_i on the reference points.
func solveRef(xs, fs, ws []*Float, ref []int, n int) ([]*Float, *Float, error) {
	const prec = remezPrec
	rows := len(ref)
	a := make([][]*Float, rows)
	for i, k := range ref {
		row := make([]*Float, n+3)
		pw := newI(prec, 1)
		for j := 0; j <= n; j++ {
			row[j] = new(Float).SetPrec(prec).Set(pw)
			pw = mul(prec, pw, xs[k])
		}
		e := quo(prec, newI(prec, 1), ws[k])
		if i%2 == 1 {
			e.Neg(e)
		}
		row[n+1] = e
		row[n+2] = new(Float).SetPrec(prec).Set(fs[k])
		a[i] = row
	}
	// Gaussian elimination with partial pivoting.
	for col := 0; col < rows; col++ {
		piv := col
		for r := col + 1; r < rows; r++ {
			if cmpAbs(a[r][col], a[piv][col]) > 0 {
				piv = r
			}
		}
		if a[piv][col].Sign() == 0 {
			return nil, nil, fmt.Errorf("singular Remez system")
		}
		a[col], a[piv] = a[piv], a[col]
		for r := col + 1; r < rows; r++ {
			fac := quo(prec, a[r][col], a[col][col])
			for c := col; c < n+3; c++ {
				a[r][c] = sub(prec, a[r][c], mul(prec, fac, a[col][c]))
			}
		}
	}
	sol := make([]*Float, rows)
	for r := rows - 1; r >= 0; r-- {
		s := new(Float).SetPrec(prec).Set(a[r][n+2])
		for c := r + 1; c < rows; c++ {
			s.Sub(s, mul(prec, a[r][c], sol[c]))
		}
		sol[r] = quo(prec, s, a[r][r])
	}
	return sol[:n+1], sol[n+1], nil
}

// horner evaluates Σ c_j x^j.
func horner(prec uint, c []*Float, x *Float) *Float {
	s := new(Float).SetPrec(prec).Set(c[len(c)-1])
	for j := len(c) - 2; j >= 0; j-- {
		s.Mul(s, x)
		s.Add(s, c[j])
	}
	return s
}

// extrema returns, for each maximal run of equal sign of errs, the index of
// its largest magnitude: a list that alternates in sign.
func extrema(errs []*Float) []int {
	var out []int
	best, sign := -1, 0
	for k, e := range errs {
		s := e.Sign()
		if s == 0 {
			continue
		}
		if s != sign {
			if best >= 0 {
				out = append(out, best)
			}
			best, sign = k, s
			continue
		}
		if cmpAbs(e, errs[best]) > 0 {
			best = k
		}
	}
	if best >= 0 {
		out = append(out, best)
	}
	return out
}

func dedupe(ref []int, m int) {
	sort.Ints(ref)
	for i := 1; i < len(ref); i++ {
		if ref[i] <= ref[i-1] {
			ref[i] = ref[i-1] + 1
		}
	}
	for i := len(ref) - 1; i >= 0 && ref[i] > m-(len(ref)-1-i); i-- {
		ref[i] = m - (len(ref) - 1 - i)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Eval evaluates the rounded polynomial at x in big precision (for tests).
func (p Poly) Eval(x float64) float64 {
	c := make([]*Float, len(p.Coef))
	for i, v := range p.Coef {
		c[i] = big.NewFloat(v).SetPrec(remezPrec)
	}
	v, _ := horner(remezPrec, c, newF(remezPrec, x)).Float64()
	return v
}

func cmpAbs(a, b *Float) int { return new(Float).Abs(a).Cmp(new(Float).Abs(b)) }
