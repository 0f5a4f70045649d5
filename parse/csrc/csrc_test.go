package csrc

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// sig renders every kernel as Signature does, with an "(anon) "/"template "
// prefix where it applies, one per line.
func sigs(f *File) string {
	var out []string
	for _, k := range f.Kernels {
		s := k.Signature()
		if k.Template {
			s = "template " + s
		}
		if k.SpecArgs != nil {
			var as []string
			for _, a := range k.SpecArgs {
				as = append(as, a.String())
			}
			s = "spec<" + strings.Join(as, ",") + "> " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

func TestParseTricky(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"comments", `/* __global__ void no(int); */ // __global__ void no2(int);
__global__ /* c */ void /* d */ k( /* e */ int /* f */ n // g
) {}`, "k(int n)"},
		{"launch bounds", `__global__ void __launch_bounds__(256, 2) k(float *x) {}
__global__ void __launch_bounds__(MAX_THREADS) __maxnreg__(32) k2(float *x) {}
__global__ __launch_bounds__(128) void k3() {}`, "k(float* x)\nk2(float* x)\nk3()"},
		{"unknown leading macro", `__global__ void MY_BOUNDS(4) k(int n) {}`, "k(int n)"},
		{"multi-line, restrict, const pointer", "__global__ void\nk(\n  const float *\n  __restrict__ const in,\n  float *__restrict out)\n{ out[0] = in[0]; }", "k(float const* in, float* out)"},
		{"default args", `__global__ void k(int n = 10, float a = f(1, 2), int b = (3 > 2), int c = A<1, 2>::v) {}`, "k(int n, float a, int b, int c)"},
		{"extern C prefix and block", `extern "C" __global__ void a(int x);
extern "C" { __global__ void b(float y) {} }
extern "C++" { __global__ void c(int z) {} }`, `extern "C" a(int x)` + "\n" + `extern "C" b(float y)` + "\nc(int z)"},
		{"templates", `template <typename T, int N = 4> __global__ void k(T *x, int n) {}
template __global__ void k<float, 4>(float *, int);
template <> __global__ void k<int, 2>(int *y, int n) {}`, "template k(T* x, int n)\nspec<int,2> k(int* y, int n)"},
		{"macros are skipped", "#define KERNEL __global__ \\\n   void\n#include <cuda.h>\n  # pragma once\n__global__ void k(int n) {}", "k(int n)"},
		{"unnamed and void", `__global__ void a(int, float *); __global__ void b(void); __global__ void c();`, "a(int, float*)\nb()\nc()"},
		{"arrays and function pointers", `__global__ void k(float x[], int m[4][4], void (*cb)(int), int (&r)[3]) {}`,
			"k(float* x, int[]* m, void (*)(int) cb, int(&r)[3])"},
		{"grid constant and attributes", `__global__ void k(const __grid_constant__ Params p, [[maybe_unused]] int n, int u __attribute__((unused))) {}`,
			"k(Params p, int n, int u)"},
		{"strings and chars do not nest", `const char *s = "{"; char c = '{'; const char *r = R"x(__global__ void fake() {)x";
__global__ void k(int n) { if (n) { s = "}"; } }`, "k(int n)"},
		{"kernels in bodies and classes are not kernels", `void host() { struct { int x; } s; }
struct S { __global__ void m(int); };
__global__ void k(int n) {}`, "k(int n)"},
		{"specifier order", `void __global__ static a(int n) {} static __inline__ __global__ void b(int n) {}`, "a(int n)\nb(int n)"},
		{"namespaces", `namespace a { namespace b { __global__ void k(int n) {} } }
namespace a::c { __global__ void k(int n) {} }
namespace { __global__ void h(int n) {} }
inline namespace v1 { __global__ void i(int n) {} }
void a::b::k(int n);`, "a::b::k(int n)\na::c::k(int n)\n(anonymous namespace)::h(int n)\nv1::i(int n)"},
		{"qualified definition", `namespace ns { __global__ void k(int n); }
__global__ void ns::k(int n) {}`, "ns::k(int n)\nns::k(int n)"},
		{"builtin spellings", `__global__ void k(signed s, long int l, unsigned long long int ull, short unsigned su, long double ld, unsigned u, signed char sc, __int128 i, unsigned __int128 ui) {}`,
			"k(int s, long l, unsigned long long ull, unsigned short su, long double ld, unsigned int u, signed char sc, __int128 i, unsigned __int128 ui)"},
		{"typedefs", `typedef unsigned int u32; using real = float; typedef float *fptr; namespace n { typedef double d; }
__global__ void k(u32 a, real b, fptr c, const real *d, uint32_t e, std::size_t f, int64_t g, n::d h, half i, cudaTextureObject_t t) {}`,
			"k(unsigned int a, float b, float* c, float const* d, unsigned int e, unsigned long f, long g, double h, __half i, unsigned long long t)"},
		{"class names are qualified", `namespace ns { struct Params { float a; }; template <typename T> struct Vec { T x; };
__global__ void k(Params p, Vec<float> v, ::Other o, ns::Params q) {} }`, "ns::k(ns::Params p, ns::Vec<float> v, Other o, ns::Params q)"},
		{"template arguments", `__global__ void k(Pair<Pair<int>> a, Fixed<4u, float> b, Fixed<-1, double> c, Flag<true> d, A<(1 > 0)> e) {}`,
			"k(Pair<Pair<int> > a, Fixed<4, float> b, Fixed<-1, double> c, Flag<true> d, A<1>0> e)"},
		{"digit separators and numbers", `int big = 1'000'000; float f = 1.5e+3f; double h = 0x1p-3;
__global__ void k(int n = 1'024) {}`, "k(int n)"},
		{"line splice in code", "__global__ void k(int \\\n n) {}", "k(int n)"},
		{"BOM and CRLF", "\ufeff__global__ void k(int n)\r\n{\r\n}\r\n", "k(int n)"},
		{"beyond the parser", `__global__ void k(T<int>::type x, decltype(y) z, MACRO_TYPE(4) w) {}`, "k(T<int>::type x, decltype(y) z, MACRO_TYPE(4) w)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse("t.cu", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := sigs(f); got != c.want {
				t.Errorf("kernels:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestParamNamesAndTypesBeyondParser(t *testing.T) {
	f, err := Parse("t.cu", []byte(`__global__ void k(T<int>::type x, float y) {}`))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Kernels[0].Params
	if p[0].Type != nil || p[0].Name != "x" || p[1].Type == nil || p[1].Name != "y" {
		t.Errorf("params %+v", p)
	}
}

func TestPositions(t *testing.T) {
	src := "// x\n  extern \"C\" __global__ void\n    vecAdd(const float *a,\n           int n) {}\n"
	f, err := Parse("t.cu", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k := f.Kernels[0]
	if k.Pos.String() != "t.cu:3:5" || k.Params[1].Pos.String() != "t.cu:4:12" {
		t.Errorf("kernel at %s, parameter 1 at %s", k.Pos, k.Params[1].Pos)
	}
	if !strings.HasPrefix(src[k.Pos.Offset:], "vecAdd(") || !strings.HasPrefix(src[k.Params[1].Pos.Offset:], "int n") {
		t.Errorf("offsets %d and %d do not point at the kernel and its parameter", k.Pos.Offset, k.Params[1].Pos.Offset)
	}
}

func TestEnums(t *testing.T) {
	f, err := Parse("t.cu", []byte(`enum Color { Red, Green };
enum class Mode : unsigned char { Fast = 1 };
enum class Wide : long long { Big = 1LL << 40 };
enum class Def { A };
namespace ns { enum E : uint16_t { X }; enum class Fwd : short; }
struct S { enum In : char { Y }; };
void f() { enum Local : int { Z }; }
__global__ void k(Color c, Mode m, ns::E e, S::In i) {}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.Enums {
		u := "-"
		if e.Underlying != nil {
			u = e.Underlying.Spelling
		}
		got = append(got, e.Name+":"+u)
	}
	want := "Color:-,Mode:unsigned char,Wide:long long,Def:int,ns::E:unsigned short,ns::Fwd:short,S::In:char"
	if strings.Join(got, ",") != want {
		t.Errorf("enums %s\nwant  %s", strings.Join(got, ","), want)
	}
	ps := f.Kernels[0].Params
	if !ps[1].Type.Enum || ps[1].Type.Underlying.Name != "unsigned char" || ps[1].Type.Decl != "t.cu:2:12" {
		t.Errorf("Mode parameter: %+v", ps[1].Type)
	}
	if !ps[2].Type.Enum || ps[2].Type.Name != "ns::E" || !ps[3].Type.Enum || ps[3].Type.Name != "S::In" {
		t.Errorf("ns::E, S::In parameters: %+v %+v", ps[2].Type, ps[3].Type)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"int x;\n  /* never closed", "t.cu:2:3: unterminated /* comment"},
		{"const char *s = \"abc\n\";", "t.cu:1:17: unterminated literal"},
		{"__global__ void k(int n", "t.cu:1:18: unbalanced '(' in the declaration of a __global__ function"},
		{"__global__ void k;", "t.cu:1:1: __global__ declaration without a parameter list"},
		{"int x; }", "t.cu:1:8: unbalanced '}'"},
		{"namespace a {\n__global__ void k(int n) {}", "unexpected end of file: a '{' is not closed"},
		{"__global__ void k(int n, ...) {}", "t.cu:1:26: kernel k is variadic"},
		{"__global__ void k(int n,) {}", "t.cu:1:18: empty parameter in the declaration of k"},
		{`const char *r = R"abc(x)ab";`, "t.cu:1:17: unterminated raw string literal"},
	} {
		_, err := Parse("t.cu", []byte(c.src))
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.src, err, c.want)
		}
	}
}

func TestTypesCU(t *testing.T) {
	data, err := os.ReadFile("../../golden/src/types.cu")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("types.cu", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Kernels) != 15 {
		t.Errorf("%d kernels, want 15:\n%s", len(f.Kernels), sigs(f))
	}
	for _, want := range []string{
		"pointers(float const* in, int volatile* flag, float** table, void* raw, void const* craw, float* out)",
		"template fixedSize(T* x)",
		"(anonymous namespace)::hidden(int* x)",
		`extern "C" cvecAdd(float const* a, float const* b, float* c, int n, Params p)`,
		"halves(__half h, __half2 h2, __nv_bfloat16 b, __nv_bfloat162 b2, __half* hp, float* out)",
	} {
		if !strings.Contains(sigs(f), want) {
			t.Errorf("no kernel %s in\n%s", want, sigs(f))
		}
	}
}

// TestKernelDoc: a kernel's doc comment is the comment group that ends on
// the line before its declaration, as go/doc takes one.
func TestKernelDoc(t *testing.T) {
	f := parseString(t, "k.cu", `// Package-ish comment, parted by a blank line.

// scale multiplies
// x by a.
template <typename T>
__global__ void scale(T *x, T a) {}

/* add is c = a + b,
 * elementwise. */
extern "C" __global__ void add(const float *a, const float *b, float *c) {}
int unrelated; // trails unrelated
__global__ void bare(int *p) {}
// parted by a directive
#define X 1
__global__ void afterDirective(int *p) {}
`)
	want := map[string]string{"scale": "scale multiplies\nx by a.", "add": "add is c = a + b,\nelementwise.", "bare": "", "afterDirective": ""}
	for _, k := range f.Kernels {
		if w, ok := want[k.Name]; !ok || k.Doc != w {
			t.Errorf("%s: Doc %q, want %q", k.Name, k.Doc, w)
		}
	}
}
