package main

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/cmd/cugen/internal/clang"
)

// cliClang is the clang the CLI tests that compile .cu files run: Find's.
// Without one the test is skipped; under CI it fails.
func cliClang(t *testing.T) string {
	t.Helper()
	c, err := clang.Find(os.Getenv("CUGEN_TEST_CC"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("skipped: %v", err)
	}
	return c.Path
}

// TestClangInternalGlobalsHidden checks that the variables clang makes for
// assert and printf (_$_str, __PRETTY_FUNCTION___$_…), which the kernels
// refer to, get no accessor by default, while the source's own variable
// does; -globals still chooses them.
func TestClangInternalGlobalsHidden(t *testing.T) {
	t.Parallel()
	cc := cliClang(t)
	dir := t.TempDir()
	src := `#include <cstdio>
#include <cassert>
__device__ int counter;
__global__ void k(int *p, int n) {
  assert(n > 0);
  printf("n = %d\n", n);
  if (threadIdx.x == 0) { p[0] = n; atomicAdd(&counter, 1); }
}
`
	cu := filepath.Join(dir, "ap.cu")
	if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ap_cugen.go")
	if code, _, stderr := runCLI(t, "-compiler", "clang", "-cc", cc, "-pkg", "ap", "-o", out, cu); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ptx, _ := os.ReadFile(filepath.Join(dir, "ap.ptx"))
	gen, _ := os.ReadFile(out)
	for _, name := range []string{"_$_str", "__PRETTY_FUNCTION___$__Z1kPii"} {
		if !strings.Contains(string(ptx), ".b8 "+name+"[") {
			t.Fatalf("clang's PTX has no variable %s (what does it name its strings?):\n%s", name, ptx)
		}
		if strings.Contains(string(gen), `"`+name+`"`) {
			t.Errorf("an accessor of %s was generated:\n%s", name, gen)
		}
	}
	if !strings.Contains(string(gen), `var Counter = rt.NewGlobal[int32](Library, "counter", 1)`) ||
		!regexp.MustCompile(`// Not wrapped: .*_\$_str`).Match(gen) {
		t.Errorf("counter not wrapped, or the internal strings not listed as not wrapped:\n%s", gen)
	}
	if code, _, stderr := runCLI(t, "-compiler", "clang", "-cc", cc, "-pkg", "ap", "-globals", `PRETTY`, "-o", out, cu); code != 0 {
		t.Fatalf("-globals PRETTY: exit %d: %s", code, stderr)
	}
	if gen, _ = os.ReadFile(out); !strings.Contains(string(gen), `"__PRETTY_FUNCTION___$__Z1kPii", 19)`) {
		t.Errorf("-globals PRETTY does not wrap __PRETTY_FUNCTION___$__Z1kPii:\n%s", gen)
	}
}

// TestDefinesReachCompiler: -D, -I and -U (and the same in -cflags) mean one
// program to the compiler and to cugen's reading of the source. A header
// found through -I picks floatX by ENABLE_BF16; with it both the PTX (the
// mangled name and the loads' width) and the Go signature say bfloat16,
// without it (or with -U after -D) both say float.
func TestDefinesReachCompiler(t *testing.T) {
	cc := cliClang(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "inc"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "inc", "floatx.h"), []byte(`#include <cuda_bf16.h>
#if defined(ENABLE_BF16)
typedef __nv_bfloat16 floatX;
#else
typedef float floatX;
#endif
`), 0o644)
	cu := filepath.Join(dir, "res.cu")
	os.WriteFile(cu, []byte(`#include "floatx.h"
__global__ void residual(floatX *out, const floatX *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
extern "C" __global__ void copyX(floatX *out, const floatX *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
`), 0o644)
	out := filepath.Join(dir, "res_cugen.go")
	inc := filepath.Join(dir, "inc")
	for _, c := range []struct {
		name string
		args []string
		bf16 bool
	}{
		{"-D", []string{"-I", inc, "-D", "ENABLE_BF16"}, true},
		{"none", []string{"-I", inc}, false},
		{"-cflags", []string{"-cflags", "-I" + inc + " -DENABLE_BF16"}, true},
		{"-D then -U", []string{"-I", inc, "-D", "ENABLE_BF16", "-U", "ENABLE_BF16"}, false},
	} {
		args := append([]string{"-compiler", "clang", "-cc", cc, "-pkg", "res", "-o", out}, c.args...)
		if code, _, stderr := runCLI(t, append(args, cu)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		ptx, _ := os.ReadFile(filepath.Join(dir, "res.ptx"))
		src, _ := os.ReadFile(out)
		mangled, goType, load := "_Z8residualPfPKfi", "rt.Ptr[float32]", `ld\.global\.[bfu]32`
		if c.bf16 {
			mangled, goType, load = "_Z8residualP13__nv_bfloat16PKS_i", "rt.Ptr[rt.BFloat16]", `ld\.global\.[bu]16`
		}
		if !strings.Contains(string(ptx), ".entry "+mangled) || len(regexp.MustCompile(load).FindAll(ptx, -1)) != 2 {
			t.Errorf("%s: the PTX lacks %s or %s:\n%s", c.name, mangled, load, ptx)
		}
		for _, want := range []string{"func Residual(cfg rt.Config, out " + goType, "func CopyX(cfg rt.Config, out " + goType} {
			if !strings.Contains(string(src), want) {
				t.Errorf("%s: the Go file lacks %q", c.name, want)
			}
		}
	}
}

// TestPreludeKeysOnCugen: the prelude declares CUDA's device API whatever
// the compiler predefines: clang 22 predefines __CUDA_ARCH_LIST__, which
// the prelude once took to mean nvcc.
func TestPreludeKeysOnCugen(t *testing.T) {
	cc := cliClang(t)
	dir := t.TempDir()
	cu := filepath.Join(dir, "v.cu")
	os.WriteFile(cu, []byte("__global__ void v(float *a) { a[threadIdx.x] += 1; }\n"), 0o644)
	for _, extra := range []string{"", "-D__CUDA_ARCH_LIST__=700", "-D__CUDACC_VER_MAJOR__=13"} {
		if code, _, stderr := runCLI(t, "-compiler", "clang", "-cc", cc, "-cflags", extra, "-o", filepath.Join(dir, "v_cugen.go"), cu); code != 0 {
			t.Errorf("-cflags %q: exit %d: %s", extra, code, stderr)
		}
	}
}

// TestLineInfoPathsRelative: with -gline-tables-only the PTX's .file
// directives name the source relative to the working directory (given
// relative or absolute), cugen's headers as cugen/include/... and clang's as
// clang/include/...: a committed PTX holds no absolute path, and the same
// PTX comes out of every checkout and every run.
func TestLineInfoPathsRelative(t *testing.T) {
	cc := cliClang(t)
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("src", 0o755)
	os.WriteFile("src/k.cu", []byte("__global__ void k(float *a, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) a[i] = sqrtf(a[i]);\n}\n"), 0o644)
	var first []byte
	for _, in := range []string{"src/k.cu", filepath.Join(dir, "src", "k.cu")} {
		if code, _, stderr := runCLI(t, "-compiler", "clang", "-cc", cc, "-cflags", "-gline-tables-only", "-o", "src/k_cugen.go", in); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, stderr)
		}
		ptx, _ := os.ReadFile("src/k.ptx")
		files := regexp.MustCompile(`(?m)^\s*\.file\s+\d+\s+"([^"]*)"`).FindAllSubmatch(ptx, -1)
		if len(files) == 0 || !regexp.MustCompile(`(?m)^\s*\.loc\s+1\s+3\s`).Match(ptx) {
			t.Fatalf("%s: no line information:\n%s", in, ptx)
		}
		for _, f := range files {
			name := path.Clean(string(f[1]))
			if filepath.IsAbs(name) || strings.Contains(name, "cugen-clang") {
				t.Errorf("%s: .file %q", in, name)
			}
			if name != "src/k.cu" && !strings.HasPrefix(name, "cugen/include/") && !strings.HasPrefix(name, "clang/include/") {
				t.Errorf("%s: .file %q is none of src/k.cu, cugen/include/..., clang/include/...", in, name)
			}
		}
		if first == nil {
			first = ptx
		} else if !bytes.Equal(first, ptx) {
			t.Errorf("the PTX differs with the input given as %s", in)
		}
	}
}

// TestStaticSharedOverLimit: 64 KiB of static __shared__ is refused at
// generate time, as ptxas would refuse it, at the kernel's line in the .cu,
// and nothing is written.
func TestStaticSharedOverLimit(t *testing.T) {
	cc := cliClang(t)
	dir := t.TempDir()
	cu := filepath.Join(dir, "big.cu")
	os.WriteFile(cu, []byte(`#define N 16384
__global__ void big(float *out) {
  __shared__ float buf[N];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[N - 1 - threadIdx.x];
}
__global__ void fine(float *out) { out[0] = 1; }
`), 0o644)
	out := filepath.Join(dir, "big_cugen.go")
	code, _, stderr := runCLI(t, "-compiler", "clang", "-cc", cc, "-o", out, cu)
	want := cu + ":2:17: kernel big(float*): 65536 bytes of static shared memory"
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "extern __shared__") || !regexp.MustCompile(`\(line \d+ of the PTX\)`).MatchString(stderr) {
		t.Errorf("exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the failed run wrote files: %v", entries)
	}
}
