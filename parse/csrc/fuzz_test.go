package csrc

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzCDecl feeds arbitrary text to Parse, alone and as the parameter list
// of a kernel declaration: it must not panic, its errors must carry a
// position in the file, and what it returns must render.
func FuzzCDecl(f *testing.F) {
	for _, s := range []string{
		"const float *__restrict__ in, int n = 3",
		"Pair<Pair<int>> a, Fixed<4u, float> b, void (*cb)(int), int m[4][4]",
		"const __grid_constant__ Params p, [[maybe_unused]] int n, int u __attribute__((unused))",
		"T<int>::type x, decltype(y) z, MACRO(4) w, ...",
		"template <typename T> __global__ void k(T *x) {}",
		`extern "C" { __global__ void __launch_bounds__(256, 2) k(float *x); }`,
		"namespace a::b { enum class E : unsigned char { X }; __global__ void k(E e) {} }",
		"typedef unsigned int u32; using r = float; __global__ void k(u32 a, r b) {}",
		"/* unterminated",
		`R"x(raw)x" 'c' "s\"" 1'000 0x1p-3`,
		"#define X \\\n __global__ void fake();\n__global__ void k(int) {}",
		"#define K(n) __global__ void n(int x)\n#if defined(K) && (1 << 2) > 3\nK(k) {}\n#else\nK(j) {}\n#endif",
		"#define D(x) x x\n#define E D(D(D(D(D(D(D(D(1))))))))\nint a = E;",
	} {
		f.Add(s)
	}
	if data, err := os.ReadFile("../../golden/src/types.cu"); err == nil {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, src := range []string{s, "__global__ void k(" + s + ") {}"} {
			file, err := Parse("f.cu", []byte(src))
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Pos.Filename != "f.cu" || e.Pos.Line < 1 || e.Pos.Column < 1 {
					t.Fatalf("error without a position: %v", err)
				}
				if e.Pos.Line > strings.Count(src, "\n")+1 {
					t.Fatalf("error past the last line: %v", err)
				}
				continue
			}
			for _, k := range file.Kernels {
				// The name is at its position, or the macro that made it is.
				if k.Name == "" || k.Pos.Line < 1 || k.Pos.Line > strings.Count(src, "\n")+1 ||
					k.Pos.Offset < 0 || k.Pos.Offset >= len(src) || !isIdentStart(src[k.Pos.Offset]) {
					t.Fatalf("kernel %q at %v (offset %d)", k.Name, k.Pos, k.Pos.Offset)
				}
				_ = k.Signature()
				for _, p := range k.Params {
					if p.Type != nil && p.Type.Spelling == "" {
						t.Fatalf("kernel %s: parameter %q has a type without a spelling", k.Name, p.Text)
					}
				}
			}
		}
	})
}
