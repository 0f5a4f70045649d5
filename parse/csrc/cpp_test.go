package csrc

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// memFS is a tree of files for #include, by path.
type memFS map[string]string

func (m memFS) read(path string) ([]byte, error) {
	if s, ok := m[filepath.Clean(path)]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func parseTree(t *testing.T, files memFS, main string, opts Options) (*File, error) {
	t.Helper()
	opts.ReadFile = files.read
	return ParseWith(main, []byte(files[main]), opts)
}

// The usual pattern of ML kernels: the element type is a typedef chosen
// under #if in a common header, included relative to the file or from -I.
func TestPreprocessorTypedefInHeader(t *testing.T) {
	files := memFS{
		"src/train.cu": `#include "common.h"
#include "layers/attn.cuh"
#include <cuda_bf16.h>
__global__ void matmul(floatX* out, const floatX* inp, int n) {}`,
		"src/common.h": `#pragma once
#if defined(ENABLE_BF16)
typedef __nv_bfloat16 floatX;
#elif defined(ENABLE_FP16)
typedef half floatX;
#else
typedef float floatX;
#endif
typedef floatX floatN; // a chain
`,
		"inc/layers/attn.cuh": `#pragma once
#include "../../src/common.h"
#ifndef ATTN_THREADS
#define ATTN_THREADS 256
#endif
__global__ void __launch_bounds__(ATTN_THREADS) attention(floatN* out, int T) {}`,
	}
	for _, c := range []struct {
		defines []string
		want    string
	}{
		{nil, "matmul(float* out, float const* inp, int n)"},
		{[]string{"ENABLE_BF16"}, "matmul(__nv_bfloat16* out, __nv_bfloat16 const* inp, int n)"},
		{[]string{"ENABLE_FP16=1"}, "matmul(__half* out, __half const* inp, int n)"},
	} {
		f, err := parseTree(t, files, "src/train.cu", Options{IncludeDirs: []string{"inc"}, Defines: c.defines})
		if err != nil {
			t.Fatal(err)
		}
		got := sigs(f)
		if !strings.Contains(got, c.want) {
			t.Errorf("-D %v: %s, want %s", c.defines, got, c.want)
		}
		if !strings.HasPrefix(got, "attention(") || !strings.Contains(got, "* out, int T)") {
			t.Errorf("-D %v: kernels %s", c.defines, got)
		}
		if len(f.Warnings) != 0 {
			t.Errorf("warnings %q", f.Warnings)
		}
	}
	// The header's kernel is positioned in the header.
	f, _ := parseTree(t, files, "src/train.cu", Options{IncludeDirs: []string{"inc"}})
	if p := f.Kernels[0].Pos; p.Filename != "inc/layers/attn.cuh" || p.Line != 6 {
		t.Errorf("attention at %v", p)
	}
	// Without ReadFile nothing is included: floatX stays a name.
	f, err := Parse("train.cu", []byte(files["src/train.cu"]))
	if err != nil || sigs(f) != "matmul(floatX* out, floatX const* inp, int n)" {
		t.Errorf("Parse: %v %s", err, sigs(f))
	}
}

func TestPreprocessorMacros(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"function-like macro declares kernels", `#define KERNEL(name, T) __global__ void name(T* x, int n)
KERNEL(scaleF, float) {}
KERNEL(scaleD, double) {}`, "scaleF(float* x, int n)\nscaleD(double* x, int n)"},
		{"object-like and rescanning", `#define REAL float
#define PTR(T) T*
#define OUT PTR(REAL) out
__global__ void k(OUT, const REAL* in) {}`, "k(float* out, float const* in)"},
		{"paste and stringify", `#define CAT(a, b) a##b
#define NAME(x) CAT(k_, x)
#define STR(x) #x
__global__ void NAME(f32)(float x) { const char* s = STR(a b); }`, "k_f32(float x)"},
		{"variadic", `#define DECL(name, ...) __global__ void name(__VA_ARGS__)
DECL(k, int a, float* b) {}`, "k(int a, float* b)"},
		{"a macro does not expand in itself", `#define T T
#define A B
#define B A
__global__ void k(T x, A y) {}`, "k(T x, A y)"},
		{"function-like name alone", `#define f(x) x
__global__ void k(int f) {}`, "k(int f)"},
		{"undef", "#define T float\n#undef T\n__global__ void k(T x) {}", "k(T x)"},
		{"conditionals", `#define V 3
#if V > 2 && defined(V) && !defined(W) && (V << 2) == 12 && V * 2 - 1 == 5 && (1 ? 1 : 0)
__global__ void yes(int a) {}
#elif 1
__global__ void no1(int a) {}
#else
__global__ void no2(int a) {}
#endif
#ifdef W
__global__ void no3(int a) {}
#elifndef W
__global__ void yes2(int a) {}
#endif
#if 0
#if 1/0
#error never evaluated
#endif
__global__ void no4(int a) {}
#endif
#if __CUDACC__ && CUDART_VERSION >= 12000 && !defined(__CUDA_ARCH__) && __has_include(<nope.h>) == 0 && UNKNOWN == 0
__global__ void host(int a) {}
#endif`, "yes(int a)\nyes2(int a)\nhost(int a)"},
	} {
		f, err := Parse("t.cu", []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := sigs(f); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

// Preprocessing errors name the file and line; hostile sources are bounded.
func TestPreprocessorErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"#endif\n", "t.cu:1:2: #endif without #if"},
		{"\n#if 1\nint x;\n", "t.cu:2:2: #if without #endif"},
		{"#else\n", "t.cu:1:2: #else without #if"},
		{"#if 1 / 0\n#endif\n", "t.cu:1:2: #if: division by zero"},
		{"#if (1\n#endif\n", "t.cu:1:2: #if: missing ')'"},
		{"#if\n#endif\n", "t.cu:1:2: #if without an expression"},
		{"#define F(a, b) a\nint x = F(1);\n", "macro F takes 2 arguments, called with 1"},
		{"#define F(a) a\nint x = F(1;\n", "t.cu:2:9: unterminated call of macro F"},
		{"#define D(x) x x x x\n#define E D(D(D(D(D(D(D(D(D(D(D(D(1))))))))))))\nint a = E;\n", "macro expansion exceeds"},
	} {
		_, err := Parse("t.cu", []byte(c.src))
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	// An include cycle without a guard ends at the depth limit.
	files := memFS{"a.cu": "#include \"b.h\"\n", "b.h": "#include \"a.cu\"\n"}
	if _, err := parseTree(t, files, "a.cu", Options{}); err == nil || !strings.Contains(err.Error(), "#include nested more than 64 deep") {
		t.Errorf("cycle: %v", err)
	}
	// A quoted include that is not found is a warning, not an error.
	f, err := parseTree(t, memFS{"a.cu": "#include \"gone.h\"\n#include <cuda.h>\n__global__ void k(int n) {}"}, "a.cu", Options{})
	if err != nil || len(f.Warnings) != 1 || f.Warnings[0] != `a.cu:1:2: #include "gone.h": not found` {
		t.Errorf("missing include: %v, %q", err, f.Warnings)
	}
	if _, err := ParseWith("t.cu", nil, Options{Defines: []string{"1X=2"}}); err == nil || !strings.Contains(err.Error(), "-D 1X=2") {
		t.Errorf("bad -D: %v", err)
	}
}
