package csrc

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
)

func varsString(f *File) string {
	var out []string
	for _, v := range f.Vars {
		s := fmt.Sprintf("%s %s %s", v.Space, v.Type, v.QualifiedName())
		for _, d := range v.Dims {
			s += fmt.Sprintf("[%d]", d)
		}
		if v.Extern {
			s = "extern " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

func defString(d *parse.ClassDef) string {
	if d == nil {
		return "<nil>"
	}
	if d.Opaque != "" {
		return "opaque: " + d.Opaque
	}
	var fs []string
	for _, f := range d.Fields {
		s := f.Type.Spelling + " " + f.Name
		for _, n := range f.Dims {
			s += fmt.Sprintf("[%d]", n)
		}
		if f.AlignAs > 0 {
			s = fmt.Sprintf("alignas(%d) %s", f.AlignAs, s)
		}
		fs = append(fs, s)
	}
	kind := "struct"
	if d.Union {
		kind = "union"
	}
	if d.AlignAs > 0 {
		kind += fmt.Sprintf(" alignas(%d)", d.AlignAs)
	}
	return kind + " {" + strings.Join(fs, "; ") + "}"
}

// Variables are read with their element types and extents; classes with
// their data members, or why their members do not give their layout.
func TestParseVarsAndClasses(t *testing.T) {
	src := `#define N 8
__device__ float t[4][N];
__constant__ int lut[256] = {1, 2, 3};
__managed__ int f[32];
__device__ float *p, q[2 * N];
__device__ __managed__ unsigned long long total;
extern __device__ int ext;
static __device__ Cell cells[3];
__shared__ float tile[32];
__device__ float helper(float x);
__device__ int broken[];
namespace ns { __constant__ Mode modes[2]{}; }
int host_only;

struct Cell { float x, y; int id; };
struct alignas(64) Big { unsigned long long v[8]; };
union Bits { float f; unsigned u; };
template <typename T> struct Pair { T first, second; };
struct Methods {
public:
  __device__ float len() const { return x; }
  Methods() = default;
  static int count;
  static constexpr int K = 4;
  using value = float;
  float x;
private:
  alignas(16) int y{3};
};
struct Bitfield { int a : 3; int b; };
struct Derived : Cell { int extra; };
struct Virtual { virtual void f(); int a; };
struct Anon { union { int i; float f; }; int n; };
struct Nested { struct In { short s; } in; };
`
	f, err := Parse("v.cu", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `__device__ float t[4][8]
__constant__ int lut[256]
__managed__ int f[32]
__device__ float* p
__device__ float q[16]
__managed__ unsigned long long total
extern __device__ int ext
__device__ Cell cells[3]
__constant__ Mode ns::modes[2]`
	if got := varsString(f); got != want {
		t.Errorf("vars:\n%s\nwant:\n%s", got, want)
	}
	for name, want := range map[string]string{
		"Cell":     "struct {float x; float y; int id}",
		"Big":      "struct alignas(64) {unsigned long long v[8]}",
		"Bits":     "union {float f; unsigned int u}",
		"Pair":     "struct {T first; T second}",
		"Methods":  "struct {float x; alignas(16) int y}",
		"Bitfield": "opaque: it has a bit-field",
		"Derived":  "opaque: it has a base class",
		"Virtual":  "opaque: it has virtual functions",
		"Anon":     "opaque: it has an anonymous struct or union member",
	} {
		c := f.classes[name]
		if c == nil {
			t.Errorf("class %s not read", name)
			continue
		}
		if got := defString(c.def); got != want {
			t.Errorf("class %s: %s, want %s", name, got, want)
		}
	}
	if c := f.classes["Pair"]; len(c.params) != 1 || c.params[0] != "T" {
		t.Errorf("Pair's parameters %v", c.params)
	}
	if c := f.classes["Nested::In"]; c == nil || defString(c.def) != "struct {short s}" {
		t.Errorf("Nested::In: %v", c)
	}
}

// Apply on nvcc's fatbin of field11.cu and the source: pack parameters get
// numbered names, classes their definitions, variables their types.
func TestApplyField11(t *testing.T) {
	data, err := os.ReadFile("../testdata/field11/field11.default.fatbin")
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Read("field11.default.fatbin", data, parse.Options{NoImage: true})
	if err != nil {
		t.Fatal(err)
	}
	cu, err := os.ReadFile("../testdata/field11/field11.cu")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("field11.cu", cu)
	if err != nil {
		t.Fatal(err)
	}
	warnings, err := Apply(m, []*File{f})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %q", err, warnings)
	}
	for name, want := range map[string]string{
		"_Z2vkIJifEEvPyDpT_":                     "out xs0 xs1",
		"_Z2vkIJEEvPyDpT_":                       "out",
		"_Z5mixedIfJiiiEEvPT_iDpT0_":             "out n rest0 rest1 rest2",
		"_Z5mixedIdJEEvPT_iDpT0_":                "out n",
		"_Z9packTwiceIJifEEv5TupleIJDpT_EEPiS2_": " out a0 a1",
		"_Z2vkIJPf4CellPKS1_EEvPyDpT_":           "out xs0 xs1 xs2",
		"_Z4intsIJLi1ELi2ELi3EEEvPi":             "out",
	} {
		k := m.Kernel(name)
		if got := strings.Join(k.Signature.ParamNames, " "); got != want || k.Signature.Source == "" {
			t.Errorf("%s: names %q from %q, want %q", name, got, k.Signature.Source, want)
		}
	}
	touch := m.Kernel("_Z5touchP4CellPKS_P5Inneri")
	if d := touch.Params[0].CType.Elem.Def; defString(d) != "struct {float x; float y; int id}" || d.Pos != "field11.cu:8:8" {
		t.Errorf("Cell*: %s", defString(d))
	}
	if d := touch.Params[2].CType.Elem.Def; defString(d) != "struct {double w; short k}" {
		t.Errorf("Inner*: %s", defString(d))
	}
	for name, want := range map[string]string{"t": "float [4 8]", "lut": "int [256]", "f": "int [32]", "p": "float* []", "cells": "Cell [3]"} {
		g := m.Global(name)
		if got := fmt.Sprintf("%s %v", g.CType, g.Dims); got != want || !strings.HasPrefix(g.Decl, "field11.cu:") {
			t.Errorf("global %s: %s at %q, want %s", name, got, g.Decl, want)
		}
	}
	if g := m.Global("cells"); g.CType.Def == nil {
		t.Error("cells: Cell has no definition")
	}
	if g := m.Global("__unnamed_1"); g.CType != nil {
		t.Errorf("__unnamed_1 typed %s", g.CType)
	}
}

// A class template's instance gets the template's members with its
// arguments substituted.
func TestApplyClassTemplate(t *testing.T) {
	src := `template <typename T> struct Pair { T first, second; };
__global__ void k(Pair<double>* p) {}`
	f := parseString(t, "p.cu", src)
	m := &parse.Module{Kernels: []*parse.Kernel{{Name: "_Z1kP4PairIdE", Params: []*parse.Param{{Size: 8}}}}}
	sig, err := parse.Demangle(m.Kernels[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	m.Kernels[0].Signature, m.Kernels[0].Params[0].CType = sig, sig.Params[0]
	if _, err := Apply(m, []*File{f}); err != nil {
		t.Fatal(err)
	}
	if got := defString(sig.Params[0].Elem.Def); got != "struct {double first; double second}" {
		t.Errorf("Pair<double>: %s", got)
	}
}
