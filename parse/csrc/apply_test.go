package csrc

import (
	"os"
	"strings"
	"testing"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/parse"
)

func typesModule(t *testing.T) *parse.Module {
	t.Helper()
	data, err := os.ReadFile("../../golden/testdata/types/types.ptx")
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Read("types.ptx", data, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func parseString(t *testing.T, name, src string) *File {
	t.Helper()
	f, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func typesCU(t *testing.T) *File {
	t.Helper()
	data, err := os.ReadFile("../../golden/src/types.cu")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("types.cu", data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestApplyTypesCU(t *testing.T) {
	m := typesModule(t)
	warnings, err := Apply(m, []*File{typesCU(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	names := map[string]string{}
	for _, k := range m.Kernels {
		if k.Signature == nil {
			t.Errorf("%s has no signature", k.Name)
			continue
		}
		names[k.Name] = strings.Join(k.Signature.ParamNames, ",")
	}
	for mangled, want := range map[string]string{
		"cvecAdd": "a,b,c,n,p",
		"_Z5pairs4PairIfES_IdE6Params4BitsPS2_Pf": "p,q,prm,bits,many,out",
		"_Z9fixedSizeILi4EfEvPT0_":                "x", // a function template, T substituted
		"_Z4overPfi":                              "x,n",
		"_Z4overPi":                               "x",
		"_ZN5outer5inner4deepEPi":                 "x",
		"_ZN40_GLOBAL__N__a8f0258f_8_types_cu_a1cfb5cf6hiddenEPi": "x",
		"_Z7flaggedILb1EEvPi":          "x",
		"_Z8pointersPKfPViPPfPvPKvS3_": "in,flag,table,raw,craw,out",
	} {
		if names[mangled] != want {
			t.Errorf("%s: names %q, want %q", mangled, names[mangled], want)
		}
	}
	c := m.Kernel("cvecAdd")
	if !c.Signature.ExternC || c.Signature.Source != "types.cu:67:28" || c.Params[0].CType.Spelling != "float const*" || c.Params[4].CType.Name != "Params" {
		t.Errorf("cvecAdd: %+v, params %s, %s", c.Signature, c.Params[0].CType, c.Params[4].CType)
	}
	if got := c.Pretty(); got != `extern "C" cvecAdd(float const* a, float const* b, float* c, int n, Params p)` {
		t.Errorf("cvecAdd.Pretty() = %s", got)
	}
	e := m.Kernel("_Z5enums5Color4Mode4WidePi")
	if mode := e.Params[1].CType; !mode.Enum || mode.Underlying.Name != "unsigned char" || mode.Decl != "types.cu:53:12" {
		t.Errorf("Mode: %+v", mode)
	}
	if color := e.Params[0].CType; !color.Enum || color.Underlying != nil {
		t.Errorf("Color (no fixed type): %+v", color)
	}

	src, err := gen.Generate(m, gen.Options{Package: "types", ImageFile: "types.ptx"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func CvecAdd(cfg rt.Config, a rt.ConstPtr[float32], b rt.ConstPtr[float32], c rt.Ptr[float32], n int32, p Params) error {",
		"func Pairs(cfg rt.Config, p PairFloat32, q PairFloat64, prm Params, bits Bits, many rt.Ptr[Params], out rt.Ptr[float32]) error {",
		"type Mode uint8",
		"type WideType int64", // the kernel wide keeps Wide: kernels are named first
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
}

// TestApplyExternCSizeMismatch: the source says long where the binary passes
// 4 bytes; gen reports the kernel, the parameter and both sizes.
func TestApplyExternCSizeMismatch(t *testing.T) {
	m := typesModule(t)
	f := parseString(t, "k.cu", "struct Params { float s; int c; double o; };\n"+
		`extern "C" __global__ void cvecAdd(const float *a, const float *b, float *c,`+"\n\tlong n, Params p) {}")
	if _, err := Apply(m, []*File{f}); err != nil {
		t.Fatal(err)
	}
	_, err := gen.Generate(m, gen.Options{Package: "k", ImageFile: "types.ptx"})
	want := `kernel extern "C" cvecAdd(float const* a, float const* b, float* c, long n, Params p): parameter 3 "n" (declared at k.cu:2:28): the source declares it as long is 8 bytes, but the binary passes 4 bytes`
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

func TestApplyErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`extern "C" __global__ void cvecAdd(const float *a, float *c, int n, Params p) {}`,
			`k.cu:1:28: extern "C" kernel cvecAdd has 4 parameters there, 5 in the binary`},
		{`extern "C" __global__ void cvecAdd(const float *a, const float *b, float *c, int n, Params p);
extern "C" __global__ void cvecAdd(const float *a, const float *b, float *c, unsigned n, Params p) {}`,
			`k.cu:2:28: extern "C" kernel cvecAdd: parameter 3 is unsigned int here but int at k.cu:1:28`},
	} {
		_, err := Apply(typesModule(t), []*File{parseString(t, "k.cu", c.src)})
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %s", err, c.want)
		}
	}
}

func TestApplyWarningsAndMisses(t *testing.T) {
	m := typesModule(t)
	// over(float*) with a typedef the parser resolves, over(int*) with one it
	// cannot: the first gets names, the second a warning.
	f := parseString(t, "k.cu", `typedef float real;
__global__ void over(real *values) {}
__global__ void over(MYINT *ints) {}`)
	warnings, err := Apply(m, []*File{f})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Kernel("_Z4overPf").Signature.ParamNames; len(got) != 1 || got[0] != "values" {
		t.Errorf("over(float*): names %q", got)
	}
	if got := m.Kernel("_Z4overPi").Signature.ParamNames; got != nil {
		t.Errorf("over(int*) matched over(MYINT*): %q", got)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{
		`no prototype for extern "C" kernel cvecAdd in k.cu`,
		"kernel over(int*): no declaration of over in the sources has its parameter types",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	if m.Kernel("cvecAdd").Signature != nil {
		t.Error("cvecAdd got a signature without a prototype")
	}
}

func TestApplyTemplates(t *testing.T) {
	m := typesModule(t)
	f := parseString(t, "k.cu", `template <int N, typename T> __global__ void fixedSize(const T *wrong) {}
template <int N, typename T> __global__ void fixedSize(T *right) {}
template <> __global__ void flagged<false>(int *no) {}
template <> __global__ void flagged<true>(int *yes) {}`)
	if _, err := Apply(m, []*File{f}); err != nil {
		t.Fatal(err)
	}
	for mangled, want := range map[string]string{
		"_Z9fixedSizeILi4EfEvPT0_":  "right",
		"_Z9fixedSizeILin1EdEvPT0_": "right",
		"_Z7flaggedILb1EEvPi":       "yes",
	} {
		if got := strings.Join(m.Kernel(mangled).Signature.ParamNames, ","); got != want {
			t.Errorf("%s: names %q, want %q", mangled, got, want)
		}
	}
}

// TestApplyComplexTypedefs: cuComplex.h's types are float2 and double2, as
// the mangled name says, so a kernel declared with them gets its names.
func TestApplyComplexTypedefs(t *testing.T) {
	src := []byte(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry _Z4cmulP6float2PKS_PK7double2(.param .u64 a, .param .u64 b, .param .u64 c)\n{\n\tret;\n}\n")
	m, err := parse.Read("c.ptx", src, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := parseString(t, "c.cu", "#include <cuComplex.h>\n__global__ void cmul(cuFloatComplex *out, const cuComplex *a, const cuDoubleComplex *b) {}\n")
	warnings, err := Apply(m, []*File{f})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v %q", err, warnings)
	}
	if got := strings.Join(m.Kernel("_Z4cmulP6float2PKS_PK7double2").Signature.ParamNames, ","); got != "out,a,b" {
		t.Errorf("names %q", got)
	}
}
