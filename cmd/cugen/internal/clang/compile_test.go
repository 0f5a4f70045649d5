package clang

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// entryNamed is the PTX entry whose name contains part.
func entryNamed(t *testing.T, ptx []byte, part string) string {
	t.Helper()
	for _, m := range regexp.MustCompile(`\.entry\s+(\S+)\(`).FindAllSubmatch(ptx, -1) {
		if strings.Contains(string(m[1]), part) {
			return string(m[1])
		}
	}
	t.Fatalf("no kernel named like %q", part)
	return ""
}

func closeTo(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(b), 1e-30) }

// TestClangOrdinaryKernels compiles testdata/ml.cu — kernels of a
// training code with their host code, <<<>>> launches, CUDA_CHECK, the
// toolkit's headers, templates instantiated for float and bf16 — and runs
// softmax, layernorm, GELU and AdamW on rt/soft against float64 Go.
func TestClangOrdinaryKernels(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/ml.cu")
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileClang(t, "ml.cu", string(src), "sm_80")
	ctx, lib := softCtx(t), rt.NewLibrary("ml.ptx", ptx)
	r := rand.New(rand.NewPCG(15, 16))
	randv := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32((r.Float64()*2 - 1) * scale)
		}
		return v
	}

	const N, C = 8, 100
	inp := randv(N*C, 5)
	out := devZero[float32](t, ctx, N*C)
	launch(t, ctx, lib, entryNamed(t, ptx, "softmax_forward"), 1, N*32,
		new(kernelArgs).ptr(out.Ptr.Addr()).ptr(devBuf(t, ctx, inp).Ptr.Addr()).i32(N).i32(C))
	got := toHost(t, out)
	for row := 0; row < N; row++ {
		m, s := math.Inf(-1), 0.0
		for _, x := range inp[row*C : (row+1)*C] {
			m = math.Max(m, float64(x))
		}
		for _, x := range inp[row*C : (row+1)*C] {
			s += math.Exp(float64(x) - m)
		}
		for i, x := range inp[row*C : (row+1)*C] {
			if want := math.Exp(float64(x)-m) / s; !closeTo(float64(got[row*C+i]), want, 1e-5) {
				t.Fatalf("softmax[%d][%d] = %v, want %v", row, i, got[row*C+i], want)
			}
		}
	}

	const LN, LC = 4, 64
	x, w, b := randv(LN*LC, 3), randv(LC, 1), randv(LC, 1)
	lo, lmean, lrstd := devZero[float32](t, ctx, LN*LC), devZero[float32](t, ctx, LN), devZero[float32](t, ctx, LN)
	launch(t, ctx, lib, entryNamed(t, ptx, "layernorm_forward"), LN/2, 64,
		new(kernelArgs).ptr(lo.Ptr.Addr()).ptr(lmean.Ptr.Addr()).ptr(lrstd.Ptr.Addr()).ptr(devBuf(t, ctx, x).Ptr.Addr()).
			ptr(devBuf(t, ctx, w).Ptr.Addr()).ptr(devBuf(t, ctx, b).Ptr.Addr()).i32(LN).i32(LC))
	glo, gmean := toHost(t, lo), toHost(t, lmean)
	for row := 0; row < LN; row++ {
		var mu, v float64
		for _, e := range x[row*LC : (row+1)*LC] {
			mu += float64(e)
		}
		mu /= LC
		for _, e := range x[row*LC : (row+1)*LC] {
			v += (float64(e) - mu) * (float64(e) - mu)
		}
		rs := 1 / math.Sqrt(v/LC+1e-5)
		if !closeTo(float64(gmean[row]), mu, 1e-5) && math.Abs(float64(gmean[row])-mu) > 1e-6 {
			t.Errorf("layernorm mean[%d] = %v, want %v", row, gmean[row], mu)
		}
		for i := 0; i < LC; i++ {
			want := (float64(x[row*LC+i])-mu)*rs*float64(w[i]) + float64(b[i])
			if math.Abs(float64(glo[row*LC+i])-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("layernorm[%d][%d] = %v, want %v", row, i, glo[row*LC+i], want)
			}
		}
	}

	const G = 300
	gx := randv(G, 6)
	gout := devZero[float32](t, ctx, G)
	launch(t, ctx, lib, entryNamed(t, ptx, "gelu_forward"), (G+127)/128, 128,
		new(kernelArgs).ptr(gout.Ptr.Addr()).ptr(devBuf(t, ctx, gx).Ptr.Addr()).i32(G))
	for i, g := range toHost(t, gout) {
		xv := float64(gx[i])
		want := 0.5 * xv * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(xv+0.044715*xv*xv*xv)))
		if math.Abs(float64(g)-want) > 1e-6*(1+math.Abs(want)) {
			t.Fatalf("gelu(%v) = %v, want %v", xv, g, want)
		}
	}

	params, grads, m, v := randv(G, 1), randv(G, 0.1), randv(G, 0.01), make([]float32, G)
	for i := range v {
		v[i] = float32(r.Float64() * 1e-4)
	}
	bp, bm, bv := devBuf(t, ctx, params), devBuf(t, ctx, m), devBuf(t, ctx, v)
	const step = 7
	b1c, b2c := float32(1-math.Pow(0.9, step)), float32(1-math.Pow(0.999, step))
	f32b := func(f float32) *kernelArgs { return nil }
	_ = f32b
	args := new(kernelArgs).ptr(bp.Ptr.Addr()).ptr(devBuf(t, ctx, grads).Ptr.Addr()).ptr(bm.Ptr.Addr()).ptr(bv.Ptr.Addr())
	args.add(le64(G))
	for _, f := range []float32{1e-3, 0.9, 0.999, b1c, b2c, 1e-8, 0.01} {
		args.u32(math.Float32bits(f))
	}
	launch(t, ctx, lib, entryNamed(t, ptx, "adamw_kernelIffE"), (G+127)/128, 128, args)
	gp := toHost(t, bp)
	for i := range params {
		g := float64(grads[i])
		mi := 0.9*float64(m[i]) + 0.1*g
		vi := 0.999*float64(v[i]) + 0.001*g*g
		p := float64(params[i])
		want := p - 1e-3*(mi/float64(b1c)/(math.Sqrt(vi/float64(b2c))+1e-8)+0.01*p)
		if math.Abs(float64(gp[i])-want) > 1e-6 {
			t.Fatalf("adamw[%d] = %v, want %v", i, gp[i], want)
		}
	}
	if !strings.Contains(string(ptx), "adamw_kernelI13__nv_bfloat16S0_E") {
		t.Error("adamw_kernel<__nv_bfloat16, __nv_bfloat16> is not in the PTX under its nvcc mangled name")
	}
}

func le64(v int64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

// TestClangMissingToolkitHeader checks that a .cu needing a CUDA library's
// header fails with clang's message and a hint naming the way out, and
// that a missing header of the user's own gets no such hint.
func TestClangMissingToolkitHeader(t *testing.T) {
	t.Parallel()
	cc := testClang(t)
	dir := t.TempDir()
	for _, c := range []struct {
		include string
		hint    bool
	}{{"cublas_v2.h", true}, {"curand_kernel.h", true}, {"cub/cub.cuh", true}, {"my_own_header.h", false}} {
		path := filepath.Join(dir, "k.cu")
		src := "#include <" + c.include + ">\n__global__ void k(float *p) { p[0] = 1; }\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Compile(path, Options{Compiler: cc})
		if err == nil {
			t.Fatalf("%s: compiled", c.include)
		}
		msg := err.Error()
		if !strings.Contains(msg, "'"+c.include+"' file not found") {
			t.Errorf("%s: the error lacks clang's message: %s", c.include, msg)
		}
		if got := strings.Contains(msg, "hint: "+c.include+" is part of the CUDA toolkit") &&
			strings.Contains(msg, "-compiler nvcc"); got != c.hint {
			t.Errorf("%s: hint given %v, want %v:\n%s", c.include, got, c.hint, msg)
		}
	}
}

// TestClangHeadersResolve checks that the CUDA toolkit's header names
// resolve to cugen's under clang, alone and all together, and that a
// kernel using std:: math, integer arguments to the math functions,
// printf and assert compiles for archs of each PTX ISA cugen picks.
func TestClangHeadersResolve(t *testing.T) {
	t.Parallel()
	headers := []string{"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_fp16.h", "cuda_bf16.h",
		"cooperative_groups.h", "cooperative_groups/reduce.h", "cooperative_groups/scan.h", "math_constants.h",
		"device_launch_parameters.h", "device_functions.h", "vector_types.h", "math_functions.h",
		"device_atomic_functions.h", "sm_61_intrinsics.h", "crt/math_functions.h"}
	var all strings.Builder
	for _, h := range headers {
		all.WriteString("#include <" + h + ">\n")
	}
	all.WriteString(`#include <cmath>
#include <cstdint>
#include <algorithm>
#include <limits>
__global__ void k(float *f, double *d, int *i, int64_t *l) {
  f[0] = std::exp(f[1]) + std::sqrt(f[2]) + std::fabs(f[3]) + std::max(f[4], f[5]) + std::pow(f[6], 2) + sqrt(2);
  d[0] = std::log(d[1]) + exp(1) + std::tgamma(d[2]) + std::numeric_limits<double>::epsilon() + pow(d[3], 2);
  i[0] = std::min(i[1], i[2]) + std::abs(i[3]) + (int)std::isnan(f[7]) + (int)std::signbit(d[4]);
  l[0] = std::llround(d[5]) + INT64_MAX / 2;
  printf("%d %f\n", i[0], d[0]);
  assert(i[0] != 12345);
}
`)
	for _, gpu := range gpusFor(t, "sm_52", "sm_70", "sm_80", "sm_90a", "sm_100", "sm_120") {
		ptx := compileClang(t, "all.cu", all.String(), gpu)
		if !strings.Contains(string(ptx), ".target "+gpu) {
			t.Errorf("%s: PTX targets something else", gpu)
		}
	}
	// The headers with contents of their own, each alone (the others only
	// include the prelude).
	for _, h := range []string{"cuda_fp16.h", "cuda_bf16.h", "cooperative_groups.h", "math_constants.h", "cuda.h"} {
		compileClang(t, "one.cu", "#include <"+h+">\n__global__ void k(float *p) { p[0] = 1; }\n", "sm_70")
	}
}
