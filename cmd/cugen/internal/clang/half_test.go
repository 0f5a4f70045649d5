package clang

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cugen/cugen/rt"
)

// f16fmt describes a 16-bit float: significand bits (with the implicit
// one), the exponent of its smallest subnormal, and its conversions.
type f16fmt struct {
	name    string
	mant    int
	minUlp  int
	maxNorm float64
	toF     func(uint16) float64
}

var (
	binary16 = f16fmt{"half", 11, -24, 65504, func(h uint16) float64 { return float64(rt.Half(h).Float32()) }}
	bfloat16 = f16fmt{"bfloat16", 8, -133, 0x1.fep127, func(h uint16) float64 { return float64(rt.BFloat16(h).Float32()) }}
)

// round rounds an exact value to the format, to nearest even (toZero: toward
// zero), with subnormals and overflow to infinity. It returns the value.
func (f f16fmt) round(x float64, toZero bool) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	_, e := math.Frexp(x)
	ulp := math.Ldexp(1, max(e-f.mant, f.minUlp))
	var r float64
	if toZero {
		r = math.Trunc(x/ulp) * ulp
	} else {
		r = math.RoundToEven(x/ulp) * ulp
	}
	if math.Abs(r) > f.maxNorm {
		if toZero {
			return math.Copysign(f.maxNorm, x)
		}
		// Overflow: anything at or past max + ulp/2 rounds to infinity.
		return math.Copysign(math.Inf(1), x)
	}
	return r
}

// TestClangHalf runs __half and __nv_bfloat16 arithmetic, pair arithmetic,
// conversions, comparisons, shuffles and atomics, compiled for sm_70
// (native f16, bf16 through float), sm_80 (bf16 fma) and sm_90 (native
// bf16), and checks every result bit for bit against the exact value
// rounded to the format.
func TestClangHalf(t *testing.T) {
	t.Parallel()
	for _, gpu := range gpusFor(t, "sm_70", "sm_80", "sm_90") {
		for _, f := range []f16fmt{binary16, bfloat16} {
			t.Run(gpu+"/"+f.name, func(t *testing.T) { testHalfKernel(t, gpu, f) })
		}
	}
}

func testHalfKernel(t *testing.T, gpu string, f f16fmt) {
	ctx, lib := clangLib(t, "half", gpu)
	const n = 256
	r := rand.New(rand.NewPCG(13, 14))
	enc := func(x float64) uint16 {
		if f.mant == 11 {
			return uint16(rt.HalfFrom(float32(x)))
		}
		return uint16(rt.BFloat16From(float32(x)))
	}
	a, b, c := make([]uint16, n), make([]uint16, n), make([]uint16, n)
	for i := 0; i < n; i++ {
		a[i] = enc((r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(10)-4)))
		b[i] = enc((r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(10)-4)))
		c[i] = enc((r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(6)-2)))
	}
	b[1] = a[1] // an equal pair
	const nout, nf = 20, 3
	o, of := devZero[uint16](t, ctx, n*nout), devZero[float32](t, ctx, n*nf)
	acc, acc2 := devZero[uint16](t, ctx, 2), devZero[uint16](t, ctx, 2)
	name := "halfs"
	if f.mant == 8 {
		name = "bfloats"
	}
	launch(t, ctx, lib, name, n/64, 64, new(kernelArgs).ptr(devBuf(t, ctx, a).Ptr.Addr()).ptr(devBuf(t, ctx, b).Ptr.Addr()).
		ptr(devBuf(t, ctx, c).Ptr.Addr()).ptr(o.Ptr.Addr()).ptr(of.Ptr.Addr()).ptr(acc.Ptr.Addr()).ptr(acc2.Ptr.Addr()).i32(n))
	got, gotf, gacc, gacc2 := toHost(t, o), toHost(t, of), toHost(t, acc), toHost(t, acc2)
	rn := func(x float64) float64 { return f.round(x, false) }
	for i := 0; i < n; i++ {
		x, y, z := f.toF(a[i]), f.toF(b[i]), f.toF(c[i])
		w := rn(rn(x+y) * z)
		want := []float64{rn(x + y), rn(x - y), rn(x * y), rn(x / y), rn(x*y + z), -x, math.Abs(x), math.Max(x, y), math.Min(x, y),
			rn(math.Sqrt(math.Abs(x))), f.round(float64(float32(x)*3), true), w,
			rn(x + z), rn(y + x), rn(x * z), rn(y * x), rn(y*x + y),
			f.toF(a[i^1]), f.toF(b[min(i+2, i|31)]), rn(float64(i) + 0.5)}
		if i%32 >= 30 {
			want[18] = y // shfl_down past the segment's end: own value
		}
		for k, wv := range want {
			g := f.toF(got[k*n+i])
			if g != wv && !(math.IsNaN(g) && math.IsNaN(wv)) {
				t.Errorf("%s: op %d on (%v, %v, %v) = %v, want %v", f.name, k, x, y, z, g, wv)
			}
		}
		b2f := func(v bool) float32 {
			if v {
				return 1
			}
			return 0
		}
		wantf := []float32{float32(x), b2f(x < y) + 2*b2f(x == y) + 4*b2f(x >= z) + 16*b2f(x != y),
			b2f(x < z) + 2*b2f(x >= z && y >= x)}
		for k, wv := range wantf {
			if g := gotf[k*n+i]; g != wv {
				t.Errorf("%s: float result %d on (%v, %v, %v) = %v, want %v", f.name, k, x, y, z, g, wv)
			}
		}
	}
	if g := f.toF(gacc[0]); g != n*0.25 {
		t.Errorf("%s: atomicAdd total %v, want %v", f.name, g, n*0.25)
	}
	if g0, g1 := f.toF(gacc2[0]), f.toF(gacc2[1]); g0 != n*0.5 || g1 != n {
		t.Errorf("%s: atomicAdd(pair) totals %v, %v; want %v, %v", f.name, g0, g1, n*0.5, n)
	}
	_ = fmt.Sprint
}
