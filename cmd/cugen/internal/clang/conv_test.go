package clang

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cugen/cugen/cmd/cugen/internal/clang/mathgen"
)

// rnd rounds the exact value x to prec bits with mode (PTX's .rn, .rz,
// .rp, .rm); the test's values stay in the normal range of the format.
func rnd(x *big.Float, prec uint, mode big.RoundingMode) *big.Float {
	return new(big.Float).SetPrec(prec).SetMode(mode).Set(x)
}

func exactF(x float64) *big.Float {
	if math.IsNaN(x) {
		x = 0 // the checks of a NaN input are quiet but for those that say otherwise
	}
	return new(big.Float).SetPrec(2200).SetFloat64(x)
}

var (
	rn, rz, ru, rd = big.ToNearestEven, big.ToZero, big.ToPositiveInf, big.ToNegativeInf
)

func f32of(x *big.Float) uint64 {
	v, _ := x.Float32()
	return uint64(math.Float32bits(v))
}
func f64of(x *big.Float) uint64 {
	v, _ := x.Float64()
	return math.Float64bits(v)
}

// cvtInt is PTX's float-to-integer cvt: rounded with mode, saturated to
// the type's range, NaN to 0.
func cvtInt(x float64, mode big.RoundingMode, bitsN int, signed bool) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	var r float64
	switch mode {
	case rn:
		r = math.RoundToEven(x)
	case rz:
		r = math.Trunc(x)
	case ru:
		r = math.Ceil(x)
	default:
		r = math.Floor(x)
	}
	lo, hi := 0.0, math.Ldexp(1, bitsN)-1
	if signed {
		lo, hi = -math.Ldexp(1, bitsN-1), math.Ldexp(1, bitsN-1)-1
	}
	r = math.Max(lo, math.Min(hi, r))
	if signed {
		return uint64(int64(r))
	}
	if r >= math.Ldexp(1, 63) {
		return uint64(r-math.Ldexp(1, 63)) + 1<<63
	}
	return uint64(r)
}

func sext(v int64) uint64 { return uint64(v) }

// TestClangConversions checks the conversion and rounded-arithmetic
// intrinsics bit for bit against math/big in the PTX rounding mode, the
// float functions with integer or two results against Go, and the fast
// intrinsics against CUDA's documented error of their approximations.
func TestClangConversions(t *testing.T) {
	t.Parallel()
	ctx, lib := clangLib(t, "intrin", "sm_70")
	const n = 256
	r := rand.New(rand.NewPCG(5, 6))
	fa, fb, fc := make([]float32, n), make([]float32, n), make([]float32, n)
	da, db := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		fa[i] = float32((r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(40)-20)))
		fb[i] = float32((r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(40)-20)))
		fc[i] = float32((r.Float64()*2 - 1) * math.Pi)
		da[i] = (r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(60)-30))
		db[i] = r.Float64()*0.98 + 0.01
	}
	fa[0], fa[1], fa[2], fa[3] = 2.5, -2.5, 0.5, float32(math.NaN())
	const nout = 99
	out := devZero[uint64](t, ctx, n*nout)
	launch(t, ctx, lib, "conv", (n+127)/128, 128, new(kernelArgs).ptr(devBuf(t, ctx, fa).Ptr.Addr()).
		ptr(devBuf(t, ctx, fb).Ptr.Addr()).ptr(devBuf(t, ctx, fc).Ptr.Addr()).ptr(devBuf(t, ctx, da).Ptr.Addr()).
		ptr(devBuf(t, ctx, db).Ptr.Addr()).ptr(out.Ptr.Addr()).i32(n))
	got := toHost(t, out)
	for i := 0; i < n; i++ {
		x, y, z := float64(fa[i]), float64(fb[i]), float64(fc[i])
		u, v := da[i], db[i]
		k := 0
		next := func() uint64 { g := got[k*n+i]; k++; return g }
		quiet := math.IsNaN(x)
		exp := func(name string, want uint64) {
			t.Helper()
			if g := next(); g != want && !quiet {
				t.Errorf("%s (x=%v y=%v z=%v u=%v v=%v): got %#x, want %#x", name, x, y, z, u, v, g, want)
			}
		}
		f32 := func(g uint64) float64 { return float64(math.Float32frombits(uint32(g))) }
		f64 := func(g uint64) float64 { return math.Float64frombits(g) }
		near := func(name string, g, want, tol float64) {
			t.Helper()
			if !(math.Abs(g-want) <= tol) && !(math.IsNaN(g) && math.IsNaN(want)) {
				t.Errorf("%s (x=%v y=%v z=%v u=%v v=%v): got %v, want %v ± %g", name, x, y, z, u, v, g, want, tol)
			}
		}
		ulp32 := func(w float64) float64 { // of a float32 result near w
			_, e := math.Frexp(w)
			return math.Ldexp(1, max(e-24, -149))
		}
		ulp64 := func(w float64) float64 {
			_, e := math.Frexp(w)
			return math.Ldexp(1, max(e-53, -1074))
		}

		quiet = false // cvt of NaN is 0
		exp("__float2int_rn", sext(int64(int32(cvtInt(x, rn, 32, true)))))
		exp("__float2int_rz", sext(int64(int32(cvtInt(x, rz, 32, true)))))
		exp("__float2int_ru", sext(int64(int32(cvtInt(x, ru, 32, true)))))
		exp("__float2int_rd", sext(int64(int32(cvtInt(x, rd, 32, true)))))
		exp("__float2uint_rn", cvtInt(x, rn, 32, false))
		exp("__float2uint_rz", cvtInt(x, rz, 32, false))
		exp("__float2ll_rn", cvtInt(x, rn, 64, true))
		exp("__float2ll_rd", cvtInt(x, rd, 64, true))
		exp("__float2ull_ru", cvtInt(x, ru, 64, false))
		quiet = math.IsNaN(x)
		exp("__double2int_rn", sext(int64(int32(cvtInt(u, rn, 32, true)))))
		exp("__double2int_rz", sext(int64(int32(cvtInt(u, rz, 32, true)))))
		exp("__double2uint_ru", cvtInt(u, ru, 32, false))
		exp("__double2ll_rd", cvtInt(u, rd, 64, true))
		exp("__double2ull_rn", cvtInt(u, rn, 64, false))
		i32 := new(big.Float).SetInt64(int64(int32(v*2e9 - 1e9)))
		exp("__int2float_rn", f32of(rnd(i32, 24, rn)))
		exp("__int2float_rz", f32of(rnd(i32, 24, rz)))
		exp("__uint2float_ru", f32of(rnd(new(big.Float).SetUint64(uint64(uint32(v*4e9))), 24, ru)))
		exp("__ll2float_rd", f32of(rnd(new(big.Float).SetInt64(int64(v*1e18-5e17)), 24, rd)))
		exp("__ull2float_rn", f32of(rnd(new(big.Float).SetUint64(uint64(v*1e19)), 24, rn)))
		exp("__ll2double_rz", f64of(rnd(new(big.Float).SetInt64(int64(v*9e18-4.5e18)), 53, rz)))
		exp("__ull2double_ru", f64of(rnd(new(big.Float).SetUint64(uint64(v*1.8e19)), 53, ru)))
		for _, m := range []big.RoundingMode{rn, rz, ru, rd} {
			exp("__double2float_"+m.String(), f32of(rnd(exactF(u), 24, m)))
		}
		X, Y, Z, U, V := exactF(x), exactF(y), exactF(z), exactF(u), exactF(v)
		sum := new(big.Float).SetPrec(2200).Add(X, Y)
		for _, m := range []big.RoundingMode{rn, rz, ru, rd} {
			exp("__fadd_"+m.String(), f32of(rnd(sum, 24, m)))
		}
		exp("__fsub_rn", f32of(rnd(new(big.Float).SetPrec(2200).Sub(X, Y), 24, rn)))
		prod := new(big.Float).SetPrec(2200).Mul(X, Y)
		exp("__fmul_rn", f32of(rnd(prod, 24, rn)))
		exp("__fmul_rz", f32of(rnd(prod, 24, rz)))
		exp("__fdiv_rn", f32of(new(big.Float).SetPrec(24).SetMode(rn).Quo(X, Y)))
		exp("__fdiv_ru", f32of(new(big.Float).SetPrec(24).SetMode(ru).Quo(X, Y)))
		fma := new(big.Float).SetPrec(2200).Add(prod, Z)
		exp("__fmaf_rn", f32of(rnd(fma, 24, rn)))
		exp("__fmaf_rz", f32of(rnd(fma, 24, rz)))
		one := big.NewFloat(1)
		exp("__frcp_rn", f32of(new(big.Float).SetPrec(24).SetMode(rn).Quo(one, X)))
		exp("__frcp_rd", f32of(new(big.Float).SetPrec(24).SetMode(rd).Quo(one, X)))
		ax := new(big.Float).Abs(X)
		sq := new(big.Float).SetPrec(2200).Sqrt(ax) // big's Sqrt rounds to nearest whatever the mode
		exp("__fsqrt_rn", f32of(rnd(sq, 24, rn)))
		exp("__fsqrt_ru", f32of(rnd(sq, 24, ru)))
		dsum := new(big.Float).SetPrec(2200).Add(U, V)
		exp("__dadd_rn", f64of(rnd(dsum, 53, rn)))
		exp("__dadd_rz", f64of(rnd(dsum, 53, rz)))
		dprod := new(big.Float).SetPrec(2200).Mul(U, V)
		exp("__dmul_rn", f64of(rnd(dprod, 53, rn)))
		exp("__dmul_ru", f64of(rnd(dprod, 53, ru)))
		exp("__ddiv_rn", f64of(new(big.Float).SetPrec(53).SetMode(rn).Quo(U, V)))
		exp("__ddiv_rd", f64of(new(big.Float).SetPrec(53).SetMode(rd).Quo(U, V)))
		dfma := new(big.Float).SetPrec(2200).Add(dprod, U)
		exp("__fma_rn", f64of(rnd(dfma, 53, rn)))
		exp("__fma_rz", f64of(rnd(dfma, 53, rz)))
		exp("__drcp_rn", f64of(new(big.Float).SetPrec(53).SetMode(rn).Quo(one, U)))
		exp("__dsqrt_rn", f64of(new(big.Float).SetPrec(53).SetMode(rn).Sqrt(new(big.Float).Abs(U))))
		ub, vb := math.Float64bits(u), math.Float64bits(v)
		exp("__double2hiint", sext(int64(int32(ub>>32))))
		exp("__double2loint", sext(int64(int32(ub))))
		exp("__hiloint2double", vb&^0xffffffff|ub&0xffffffff)
		exp("__float_as_int", sext(int64(int32(math.Float32bits(fa[i])))))
		exp("__int_as_float", uint64(math.Float32bits(fb[i])))
		exp("ilogbf", sext(int64(ilogb(x))))
		exp("ilogb", sext(int64(ilogb(u))))
		exp("lrintf", cvtInt(x, rn, 64, true))
		exp("llrint", cvtInt(u, rn, 64, true))
		exp("lroundf", cvtInt(math.Round(x), rz, 64, true))
		exp("llround", cvtInt(math.Round(u), rz, 64, true))
		fr, fe := math.Frexp(x)
		exp("frexpf", uint64(math.Float32bits(float32(fr))))
		if math.IsNaN(x) {
			fe = 0
		}
		exp("frexpf exponent", sext(int64(fe)))
		dr, de := math.Frexp(u)
		exp("frexp", math.Float64bits(dr))
		exp("frexp exponent", sext(int64(de)))
		ip, frac := math.Modf(x)
		exp("modff", uint64(math.Float32bits(float32(frac))))
		exp("modff integral", uint64(math.Float32bits(float32(ip))))
		dip, dfrac := math.Modf(u)
		exp("modf", math.Float64bits(dfrac))
		exp("modf integral", math.Float64bits(dip))
		rem, quo := remquo(x, y)
		exp("remquof", uint64(math.Float32bits(float32(rem))))
		exp("remquof quotient", sext(int64(quo&7)))
		drem, dquo := remquo(u, v)
		exp("remquo", math.Float64bits(drem))
		exp("remquo quotient", sext(int64(dquo&7)))
		within := func(name string, g float64, want mathgen.Value, single bool, bound float64) {
			t.Helper()
			if e := mathgen.UlpError(single, g, want); e > bound && !quiet {
				t.Errorf("%s(x=%v u=%v) = %v: %v ulp > %v", name, x, u, g, e, bound)
			}
		}
		const p = 128
		within("sincosf sin", f32(next()), val(mathgen.Sin(p, bf(x))), true, 2)
		within("sincosf cos", f32(next()), val(mathgen.Cos(p, bf(x))), true, 2)
		within("sincos sin", f64(next()), val(mathgen.Sin(p, bf(u))), false, 1)
		within("sincos cos", f64(next()), val(mathgen.Cos(p, bf(u))), false, 1)
		within("sincospif sin", f32(next()), val(mathgen.SinPi(p, bf(x))), true, 2)
		within("sincospif cos", f32(next()), val(mathgen.CosPi(p, bf(x))), true, 2)
		exp("ldexpf", uint64(math.Float32bits(float32(math.Ldexp(x, int(v*40))))))
		exp("ldexp", math.Float64bits(math.Ldexp(u, int(v*300))))
		exp("scalbnf", uint64(math.Float32bits(float32(math.Ldexp(y, -30)))))
		b2u := func(b bool) uint64 {
			if b {
				return 1
			}
			return 0
		}
		quiet = false
		exp("isnan", b2u(math.IsNaN(x)))
		exp("isinf", b2u(math.IsInf(x, 0)))
		exp("isfinite", b2u(!math.IsInf(u, 0) && !math.IsNaN(u)))
		exp("signbit", b2u(math.Signbit(u)))
		exp("std::isnan", b2u(math.IsNaN(u)))
		sat := math.Max(0, math.Min(1, x))
		if math.IsNaN(x) {
			sat = 0
		}
		exp("__saturatef", uint64(math.Float32bits(float32(sat))))
		if math.IsNaN(x) {
			continue
		}
		q := x / y
		near("__fdividef", f32(next()), q, 2*ulp32(q))
		e := math.Exp(z)
		near("__expf", f32(next()), e, (2+math.Floor(math.Abs(1.173*z)))*ulp32(e))
		e10 := math.Pow(10, z)
		near("__exp10f", f32(next()), e10, (2+math.Floor(math.Abs(2.97*z)))*ulp32(e10))
		ax32 := math.Abs(x)
		lg := math.Log(ax32)
		near("__logf", f32(next()), lg, logTol(ax32, lg, math.Exp2(-21.41), 3*ulp32(lg)))
		l2 := math.Log2(ax32)
		near("__log2f", f32(next()), l2, logTol(ax32, l2, math.Exp2(-22), 2*ulp32(l2)))
		l10 := math.Log10(ax32)
		near("__log10f", f32(next()), l10, logTol(ax32, l10, math.Exp2(-24), 3*ulp32(l10)))
		pw := math.Pow(ax32, z)
		near("__powf", f32(next()), pw, pw*math.Exp2(-21)*(2+math.Abs(z*l2)))
		near("__sinf", f32(next()), math.Sin(z), math.Exp2(-21.41))
		near("__cosf", f32(next()), math.Cos(z), math.Exp2(-21.41))
		tn := math.Tan(z)
		near("__tanf", f32(next()), tn, math.Exp2(-20)*(1+tn*tn))
		rs := 1 / math.Sqrt(ax32)
		near("rsqrtf", f32(next()), rs, 2*ulp32(rs))
		_ = ulp64
		if k != nout && !math.IsNaN(x) {
			panic(fmt.Sprintf("read %d outputs of %d", k, nout))
		}
	}
}

// logTol is CUDA's documented error of the fast logarithms: absolute in
// [0.5, 2], in ulps elsewhere.
func logTol(x, _ float64, abs, ulps float64) float64 {
	if x >= 0.5 && x <= 2 {
		return abs
	}
	return ulps
}

func ilogb(x float64) int32 {
	switch {
	case x == 0 || math.IsNaN(x):
		return math.MinInt32
	case math.IsInf(x, 0):
		return math.MaxInt32
	}
	return int32(math.Ilogb(x))
}

// remquo is C's remquo: the IEEE remainder and the low bits of the
// quotient rounded to nearest even, with the sign of x/y.
func remquo(x, y float64) (float64, int) {
	rem := math.Remainder(x, y)
	q := math.RoundToEven((x - rem) / y)
	qi := int(math.Mod(math.Abs(q), 8))
	if (x < 0) != (y < 0) {
		qi = -qi
	}
	return rem, qi
}

func bf(x float64) *mathgen.Float {
	if math.IsNaN(x) {
		x = 0
	}
	return new(mathgen.Float).SetPrec(160).SetFloat64(x)
}

func val(v *mathgen.Float) mathgen.Value { return mathgen.Value{V: v} }
