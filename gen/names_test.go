package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
)

// entries builds a PTX module of kernels that do nothing, "mangled:params"
// each, and of .global .u32 variables that code reads (a variable no code
// refers to is not wrapped).
func entries(t *testing.T, name string, kernels []string, globals ...string) *parse.Module {
	t.Helper()
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90\n.address_size 64\n")
	for _, g := range globals {
		fmt.Fprintf(&b, ".global .align 4 .u32 %s;\n", g)
		fmt.Fprintf(&b, ".func read_%s()\n{\n\t.reg .b32 %%r<2>;\n\tld.global.u32 %%r1, [%s];\n\tret;\n}\n", g, g)
	}
	for _, k := range kernels {
		mangled, params, _ := strings.Cut(k, ":")
		var ps []string
		for i, p := range strings.Fields(params) {
			if n, ok := strings.CutPrefix(p, "b8x"); ok {
				ps = append(ps, fmt.Sprintf("\t.param .align 4 .b8 %s_param_%d[%s]", mangled, i, n))
			} else {
				ps = append(ps, fmt.Sprintf("\t.param .%s %s_param_%d", p, mangled, i))
			}
		}
		fmt.Fprintf(&b, ".visible .entry %s(\n%s\n)\n{\n\tret;\n}\n", mangled, strings.Join(ps, ",\n"))
	}
	m, err := parse.Read(name, []byte(b.String()), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// goNames maps each kernel's symbol to its launch function's name, and
// each global's PTX name to its accessor's, as src declares them.
func goNames(t *testing.T, src string) map[string]string {
	t.Helper()
	names := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+)Kernel\s+= \w+\.Kernel\("([^"]+)"`).FindAllStringSubmatch(src, -1) {
		names[m[2]] = m[1]
	}
	for _, m := range regexp.MustCompile(`var (\w+) = rt\.New(?:Global|Managed)\[\w+\]\(\w+, "([^"]+)"`).FindAllStringSubmatch(src, -1) {
		names["global "+m[2]] = m[1]
	}
	for _, m := range regexp.MustCompile(`// (\w+) is the C\+\+ (?:type|enum) (\S+),`).FindAllStringSubmatch(src, -1) {
		names["type "+m[2]] = m[1]
	}
	return names
}

// colliding is a module whose names collide in every way names.go resolves.
var colliding = []string{
	"_Z4overPf:u64", "_Z4overPi:u64", // overloads
	"_ZN1a1kEPi:u64", "_ZN1b1kEPi:u64", // one signature in two namespaces
	"_Z1kPl:u64", "_Z1kPx:u64", // long* and long long*: one Go type
	"_Z4widev:", "_Z5enums4Wide:u64", // a kernel and an enum
	"_Z7counterv:", // a kernel and a variable
}

// TestNamesStableWhenKernelsAdded: adding kernels renames no existing one,
// wherever the new ones sort and whatever names they bring (numeric
// suffixes by position would shift; types named before kernels would
// rename a kernel when a new parameter type takes its name).
func TestNamesStableWhenKernelsAdded(t *testing.T) {
	before := gen(t, entries(t, "t.ptx", colliding, "counter"))
	want := map[string]string{
		"_Z4overPf": "OverFloat32", "_Z4overPi": "OverInt32",
		"_ZN1a1kEPi": "AKPtrInt32", "_ZN1b1kEPi": "BKPtrInt32",
		"_Z1kPl": "KPtrLong", "_Z1kPx": "KPtrLongLong",
		"_Z4widev": "Wide", "type Wide": "WideType", "_Z7counterv": "Counter", "global counter": "CounterVar",
	}
	got := goNames(t, before)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s is %s, want %s", k, got[k], w)
		}
	}
	added := slices.Concat(colliding, []string{
		"_Z1aPi:u64",         // sorts first
		"_Z4overPd:u64",      // one more overload
		"_ZN1c1kEPi:u64",     // one more namespace
		"_Z4make5Wider:b8x8", // a new type...
		"_Z5widerv:",         // ...and a kernel of its name
	})
	after := goNames(t, gen(t, entries(t, "t.ptx", added, "counter", "aaa")))
	for k, name := range goNames(t, before) {
		if after[k] != name {
			t.Errorf("adding kernels renamed %s from %s to %s", k, name, after[k])
		}
	}
	if after["_Z5widerv"] != "Wider" || after["type Wider"] != "WiderType" {
		t.Errorf("a new kernel and type of one name: %s, %s", after["_Z5widerv"], after["type Wider"])
	}

	// The order kernels come in does not matter either.
	m := entries(t, "t.ptx", added, "counter", "aaa")
	slices.Reverse(m.Kernels)
	if got := goNames(t, gen(t, m)); !mapsEqual(got, after) {
		t.Errorf("the kernels' order changed names:\n%v\n%v", got, after)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func gen(t *testing.T, m *parse.Module) string {
	t.Helper()
	src, err := Generate(m, Options{Package: "k", ImageFile: "t.ptx"})
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestOverloadNames: overloads are named by their parameters' element
// types, each once, in order (llm.c's residual_forward for bfloat16 and
// float: 28 characters where every parameter's type made 63); overloads of
// one element type list fall back to every parameter's Go type.
func TestOverloadNames(t *testing.T) {
	got := goNames(t, gen(t, entries(t, "t.ptx", []string{
		"_Z16residual_forwardP13__nv_bfloat16PKS_S2_i:u64 u64 u64 u32",
		"_Z16residual_forwardPfPKfS1_i:u64 u64 u64 u32",
		"_Z4swapPff:u64 f32", "_Z4swapfPf:f32 u64",
		"_Z4zerov:", "_Z4zeroPi:u64",
	})))
	want := map[string]string{
		"_Z16residual_forwardP13__nv_bfloat16PKS_S2_i": "ResidualForwardBFloat16Int32",
		"_Z16residual_forwardPfPKfS1_i":                "ResidualForwardFloat32Int32",
		"_Z4swapPff":                                   "SwapPtrFloat32Float32",
		"_Z4swapfPf":                                   "SwapFloat32PtrFloat32",
		"_Z4zerov":                                     "ZeroVoid",
		"_Z4zeroPi":                                    "ZeroInt32",
	}
	if !mapsEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
}

// TestCollisionNotes: every renamed kernel, type and variable is noted
// once, in the file and in File.Notes.
func TestCollisionNotes(t *testing.T) {
	f, err := GenerateFile([]Library{{Module: entries(t, "t.ptx", colliding, "counter"), ImageFile: "t.ptx", Source: "t.ptx"}}, Options{Package: "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"over(float*) → OverFloat32", "over(int*) → OverInt32",
		"k(long*) → KPtrLong", "k(long long*) → KPtrLongLong",
		"a::k(int*) → AKPtrInt32", "b::k(int*) → BKPtrInt32",
		"the C++ enum Wide → WideType (Wide is taken by wide())",
		"__device__ counter → CounterVar (Counter is taken by counter())",
	}
	if len(f.Notes) != len(want) {
		t.Errorf("notes %q, want %d", f.Notes, len(want))
	}
	for _, w := range want {
		if !slices.Contains(f.Notes, w) {
			t.Errorf("notes lack %q: %q", w, f.Notes)
		}
		if n := strings.Count(string(f.Source), "//\t"+w+"\n"); n != 1 {
			t.Errorf("the file lists %q %d times", w, n)
		}
	}
}

// TestSeveralLibraries: one file of two inputs whose names collide: each
// library named after its input, the same kernel or variable in both told
// apart by its input, overloads across them by their parameters, one
// declaration of a type both pass.
func TestSeveralLibraries(t *testing.T) {
	scale := entries(t, "scale.ptx", []string{"_Z5countv:", "_Z5scalePfi:u64 u32", "_Z7pairSum4PairPf:b8x8 u64", "_Z4onlyv:"}, "counter")
	shift := entries(t, "shift.ptx", []string{"_Z5countv:", "_Z5scalePfx:u64 u64", "_Z7pairSum4PairPf:b8x8 u64"}, "counter")
	f, err := GenerateFile([]Library{
		{Module: scale, ImageFile: "scale.ptx", Source: "scale.cu"},
		{Module: shift, ImageFile: "shift.ptx", Source: "shift.ptx"},
	}, Options{Package: "k", Command: "cugen -compiler clang scale.cu shift.ptx"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(f.Source)
	mustContain(t, src,
		"// Code generated by cugen -compiler clang scale.cu shift.ptx; DO NOT EDIT.\n",
		"// Package k launches the CUDA kernels of scale.cu and shift.ptx from Go.",
		"//go:embed scale.ptx\nvar scaleImage []byte",
		"// ScaleLibrary is the device image scale.ptx (ptx, compute_90), built from scale.cu,",
		`var ScaleLibrary = rt.NewLibrary("scale.ptx", scaleImage)`,
		`var ShiftLibrary = rt.NewLibrary("shift.ptx", shiftImage)`,
		`= ScaleLibrary.Kernel("_Z4onlyv")`, "func Only(cfg rt.Config) error",
		"func ScaleCount(cfg rt.Config) error", "func ShiftCount(cfg rt.Config) error",
		"func ScaleScale(cfg rt.Config, p0 rt.Ptr[float32], p1 int32) error", "func ShiftScale(cfg rt.Config, p0 rt.Ptr[float32], p1 int64) error",
		"func ScalePairSum(cfg rt.Config, p0 Pair,", "func ShiftPairSum(cfg rt.Config, p0 Pair,",
		"// ScaleCount launches the kernel _Z5countv of scale.cu:",
		`var ScaleCounter = rt.NewGlobal[uint32](ScaleLibrary, "counter", 1)`,
		`var ShiftCounter = rt.NewGlobal[uint32](ShiftLibrary, "counter", 1)`,
		"//\tcount() of scale.cu → ScaleCount\n",
	)
	if strings.Count(src, "type Pair struct") != 1 {
		t.Error("Pair is declared other than once")
	}
	checkDecls(t, src)

	// The same image twice cannot be embedded.
	if _, err := GenerateFile([]Library{{Module: scale, ImageFile: "k.ptx", Source: "a/k.ptx"}, {Module: shift, ImageFile: "k.ptx", Source: "b/k.ptx"}}, Options{Package: "k"}); err == nil {
		t.Error("two inputs embedded as one file")
	}
}

// TestTakenNames: the names the package's other files declare are not
// declared again: Library, the kernels', the types', and the package doc.
func TestTakenNames(t *testing.T) {
	shift := entries(t, "shift.ptx", []string{"_Z5countv:", "_Z7pairSum4PairPf:b8x8 u64", "_Z5otherv:"}, "counter")
	taken := map[string]string{"Library": "scale_cugen.go", "image": "scale_cugen.go", "Count": "scale_cugen.go",
		"Pair": "scale_cugen.go", "Counter": "scale_cugen.go", "PairSum": "scale_cugen.go"}
	f, err := GenerateFile([]Library{{Module: shift, ImageFile: "shift.ptx", Source: "shift.ptx"}}, Options{Package: "k", Taken: taken, NoPackageDoc: true})
	if err != nil {
		t.Fatal(err)
	}
	src := string(f.Source)
	mustContain(t, src, "var ShiftLibrary = ", "var shiftImage []byte", "func ShiftCount(", "func ShiftPairSum(cfg rt.Config, p0 PairType,",
		"func Other(", "var CounterVar = ", "type PairType struct",
		"//\tcount() → ShiftCount (Count is declared in scale_cugen.go)\n")
	if strings.Contains(src, "// Package") {
		t.Error("a package doc although another file has one")
	}
	declared := checkDecls(t, src)
	for id := range taken {
		if declared[id] {
			t.Errorf("%s declared again", id)
		}
	}
}

// checkDecls parses src and returns its package-level identifiers; it fails
// on one declared twice.
func checkDecls(t *testing.T, src string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	add := func(id *ast.Ident) {
		if id.Name == "_" {
			return
		}
		if ids[id.Name] {
			t.Errorf("%s declared twice", id.Name)
		}
		ids[id.Name] = true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(n)
					}
				}
			}
		}
	}
	return ids
}
