package clang

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

const complexSrc = `#include <cuComplex.h>
extern "C" __global__ void cf(const cuFloatComplex *a, const cuFloatComplex *b, cuFloatComplex *out, float *abs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuFloatComplex x = a[i], y = b[i];
  out[6 * i + 0] = cuCaddf(x, y);
  out[6 * i + 1] = cuCsubf(x, y);
  out[6 * i + 2] = cuCmulf(x, y);
  out[6 * i + 3] = cuCdivf(x, y);
  out[6 * i + 4] = cuCfmaf(x, y, make_cuFloatComplex(cuCrealf(x), cuCimagf(y)));
  out[6 * i + 5] = cuComplexDoubleToFloat(cuComplexFloatToDouble(cuConjf(x)));
  abs[i] = cuCabsf(x);
}
extern "C" __global__ void cd(const cuDoubleComplex *a, const cuDoubleComplex *b, cuDoubleComplex *out, double *abs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuDoubleComplex x = a[i], y = b[i];
  out[4 * i + 0] = cuCadd(x, y);
  out[4 * i + 1] = cuCmul(x, y);
  out[4 * i + 2] = cuCdiv(x, y);
  out[4 * i + 3] = cuConj(make_cuDoubleComplex(cuCreal(x), cuCimag(y)));
  abs[i] = cuCabs(x);
}
`

// TestClangComplex runs cuComplex.h's functions on rt/soft against Go's
// complex128 arithmetic: exact where the operation is (add, sub, conj, the
// conversions), within a few ulps for mul, div (scaled), abs and fma, with
// parts from 2^-60 to 2^60 so that a division scaled wrong over- or
// underflows.
func TestClangComplex(t *testing.T) {
	t.Parallel()
	ptx := compileClang(t, "complex.cu", complexSrc, "sm_70")
	ctx, lib := softCtx(t), rt.NewLibrary("complex.ptx", ptx)
	r := rand.New(rand.NewPCG(3, 4))
	part := func() float64 { return math.Ldexp(r.Float64()*2-1, r.IntN(121)-60) }
	const n = 512
	af, bf := make([]complex64, n), make([]complex64, n)
	ad, bd := make([]complex128, n), make([]complex128, n)
	for i := range af {
		af[i], bf[i] = complex(float32(part()), float32(part())), complex(float32(part()), float32(part()))
		ad[i], bd[i] = complex(part(), part()), complex(part(), part())
	}
	of, absf := devZero[complex64](t, ctx, 6*n), devZero[float32](t, ctx, n)
	launch(t, ctx, lib, "cf", n/128, 128, new(kernelArgs).ptr(devBuf(t, ctx, af).Ptr.Addr()).ptr(devBuf(t, ctx, bf).Ptr.Addr()).
		ptr(of.Ptr.Addr()).ptr(absf.Ptr.Addr()).i32(n))
	od, absd := devZero[complex128](t, ctx, 4*n), devZero[float64](t, ctx, n)
	launch(t, ctx, lib, "cd", n/128, 128, new(kernelArgs).ptr(devBuf(t, ctx, ad).Ptr.Addr()).ptr(devBuf(t, ctx, bd).Ptr.Addr()).
		ptr(od.Ptr.Addr()).ptr(absd.Ptr.Addr()).i32(n))
	gf, gabsf, gd, gabsd := toHost(t, of), toHost(t, absf), toHost(t, od), toHost(t, absd)
	near := func(got, want complex128, eps float64) bool {
		scale := math.Max(cmplx.Abs(want), math.SmallestNonzeroFloat64)
		return cmplx.Abs(got-want) <= eps*scale
	}
	const f32eps, f64eps = 0x1p-21, 0x1p-50 // a few ulps of the larger part
	for i := 0; i < n; i++ {
		x, y := complex128(af[i]), complex128(bf[i])
		for j, want := range []complex128{
			complex128(af[i] + bf[i]), complex128(af[i] - bf[i]), x * y, x / y,
			x*y + complex(real(x), imag(y)), cmplx.Conj(x),
		} {
			exact := j == 0 || j == 1 || j == 5
			if got := complex128(gf[6*i+j]); exact && got != want || !exact && !near(got, want, f32eps) {
				t.Fatalf("float op %d of %v, %v = %v, want %v", j, x, y, got, want)
			}
		}
		if got, want := float64(gabsf[i]), cmplx.Abs(x); math.Abs(got-want) > f32eps*want {
			t.Fatalf("cuCabsf(%v) = %v, want %v", x, got, want)
		}
		x, y = ad[i], bd[i]
		for j, want := range []complex128{x + y, x * y, x / y, complex(real(x), -imag(y))} {
			exact := j == 0 || j == 3
			if got := gd[4*i+j]; exact && got != want || !exact && !near(got, want, f64eps) {
				t.Fatalf("double op %d of %v, %v = %v, want %v", j, x, y, got, want)
			}
		}
		if got, want := gabsd[i], cmplx.Abs(x); math.Abs(got-want) > f64eps*want {
			t.Fatalf("cuCabs(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestClangUnsupportedNamed: a construct cugen's headers leave out fails
// with an error at the use's file and line that names it and the way out
// (nvcc), without the notes into cugen's headers and without clang's typo
// corrections (__vadd2 once drew a warning about the __ud2 builtin).
func TestClangUnsupportedNamed(t *testing.T) {
	t.Parallel()
	cc := testClang(t)
	for _, c := range []struct{ body, what string }{
		{"cg::this_grid().sync();", "grid-wide sync"},
		{"cg::grid_group g = cg::this_grid(); cg::sync(g);", "grid-wide sync"},
		{"p[0] = __vadd2(p[1], p[2]);", "the SIMD intrinsic __vadd2"},
		{"p[0] = __vcmpgtu4(p[1], p[2]);", "the SIMD intrinsic __vcmpgtu4"},
		{"p[0] = __vimax3_s32(p[1], p[2], p[3]);", "the SIMD intrinsic __vimax3_s32"},
		{"f[0] = j0f(f[1]) + jn(2, 1.0);", "the Bessel function j0f"},
		{"f[0] = tex2D<float>(tex, 0.5f, 0.5f);", "the texture function tex2D"},
		{"surf2Dwrite(f[0], (cudaSurfaceObject_t)tex, 0, 0);", "the surface function surf2Dwrite"},
		{"auto g = cg::labeled_partition(cg::tiled_partition<32>(cg::this_thread_block()), 1); (void)g;", "cooperative_groups::labeled_partition"},
	} {
		path := filepath.Join(t.TempDir(), "u.cu")
		src := "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n" +
			"__global__ void k(unsigned *p, float *f, cudaTextureObject_t tex) {\n  " + c.body + "\n}\n"
		os.WriteFile(path, []byte(src), 0o644)
		_, err := Compile(path, Options{Compiler: cc})
		if err == nil {
			t.Errorf("%s compiled", c.body)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "is unavailable: "+c.what) || !strings.Contains(msg, "is not in cugen's clang route; compile this file with -compiler nvcc") {
			t.Errorf("%s: the message does not name %q and the way out:\n%s", c.body, c.what, msg)
		}
		if !strings.Contains(msg, path+":4:") {
			t.Errorf("%s: the message does not name %s:4:\n%s", c.body, path, msg)
		}
		if strings.Contains(msg, "__ud2") || strings.Contains(msg, "explicitly marked unavailable here") || strings.Contains(msg, "did you mean") ||
			strings.Contains(msg, "CUGEN_") {
			t.Errorf("%s: stray notes:\n%s", c.body, msg)
		}
	}
}
