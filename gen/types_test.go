package gen

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
)

// ptxModule builds a module from one PTX entry's parameter list.
func ptxModule(t *testing.T, name, params string) *parse.Module {
	t.Helper()
	src := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry " + name + "(\n" + params + "\n)\n{\n\tret;\n}\n"
	m, err := parse.Read("t.ptx", []byte(src), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func generate(t *testing.T, m *parse.Module, opts Options) (string, error) {
	t.Helper()
	opts.Package, opts.ImageFile = "k", "t.ptx"
	src, err := Generate(m, opts)
	return string(src), err
}

func mustContain(t *testing.T, src string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(src, w) {
			t.Errorf("generated code lacks %q", w)
		}
	}
	if t.Failed() {
		t.Log(src)
	}
}

func typesModule(t *testing.T) *parse.Module {
	data, err := os.ReadFile("../golden/testdata/types/types.ptx")
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Read("types.ptx", data, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var paramsMapping = TypeMapping{CName: "Params", PkgPath: "example.com/m/pkg", PkgName: "pkg", Name: "Params", Size: 16, Align: 8}

func TestTypeMappingPacksByValue(t *testing.T) {
	src, err := generate(t, typesModule(t), Options{Types: []TypeMapping{paramsMapping}, Kernels: regexp.MustCompile("pairs")})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		`"example.com/m/pkg"`,
		"p2 pkg.Params (Params, offset 24, 16 bytes)",
		"p4 rt.Ptr[pkg.Params] (Params*, offset 48, 8 bytes)",
		"copy(args[24:40], unsafe.Slice((*byte)(unsafe.Pointer(&p2)), 16))",
		"var _ [16]byte = [unsafe.Sizeof(*new(pkg.Params))]byte{}",
	)
	if strings.Contains(src, "type Params struct") {
		t.Error("a mapped type is still declared as an opaque type")
	}
}

func TestTypeMappingLayoutMismatch(t *testing.T) {
	for _, c := range []struct {
		size, align int64
		want        string
	}{
		{12, 4, "Go example.com/m/pkg.Params is 12 bytes, 4-byte aligned"},
		{16, 4, "Go example.com/m/pkg.Params is 16 bytes, 4-byte aligned"},
		{24, 8, "Go example.com/m/pkg.Params is 24 bytes, 8-byte aligned"},
	} {
		m := paramsMapping
		m.Size, m.Align = c.size, c.align
		_, err := generate(t, typesModule(t), Options{Types: []TypeMapping{m}})
		if err == nil {
			t.Errorf("size %d align %d: no error", c.size, c.align)
			continue
		}
		for _, w := range []string{"-type Params=example.com/m/pkg.Params", "C++ Params is 16 bytes, 8-byte aligned", c.want, "pairs("} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
}

// A 16-aligned C++ type maps to an 8-aligned Go type of its size: Go aligns
// nothing beyond 8.
func TestTypeMappingOverAligned(t *testing.T) {
	m := ptxModule(t, "_Z1k1A", "\t.param .align 16 .b8 _Z1k1A_param_0[32]")
	if _, err := generate(t, m, Options{Types: []TypeMapping{{CName: "A", PkgPath: "x/y", PkgName: "y", Name: "A", Size: 32, Align: 8}}}); err != nil {
		t.Errorf("16-aligned C++ type, 8-aligned Go type: %v", err)
	}
	if _, err := generate(t, m, Options{Types: []TypeMapping{{CName: "A", PkgPath: "x/y", PkgName: "y", Name: "A", Size: 32, Align: 4}}}); err == nil {
		t.Error("16-aligned C++ type, 4-aligned Go type: no error")
	}
}

func TestLoadTypeMappings(t *testing.T) {
	const pkg = "github.com/cugen/cugen/gen/testdata/mapped"
	var ms []TypeMapping
	for _, s := range []string{"Params=" + pkg + ".Params", "Pair<float>=" + pkg + ".PairF32", "Mode=" + pkg + ".Mode", "V=" + pkg + ".Vec"} {
		m, err := ParseTypeMapping(s)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	got, err := LoadTypeMappings(".", ms)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{16, 8}, {8, 4}, {1, 1}, {16, 4}}
	for i, m := range got {
		if m.Size != want[i][0] || m.Align != want[i][1] || m.PkgName != "mapped" {
			t.Errorf("%s: size %d align %d package %q, want %v mapped", m.CName, m.Size, m.Align, m.PkgName, want[i])
		}
	}
	for name, wantErr := range map[string]string{
		"Missing":     "declares no type Missing",
		"Alias":       "is an alias",
		"Pair":        "is generic",
		"WithPointer": "WithPointer.P is *int32",
		"WithString":  "WithString.S is string",
	} {
		_, err := LoadTypeMappings(".", []TypeMapping{{CName: "X", PkgPath: pkg, Name: name}})
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want %q", name, err, wantErr)
		}
	}
	if _, err := LoadTypeMappings(".", []TypeMapping{{CName: "X", PkgPath: "example.com/no/such", Name: "T"}}); err == nil {
		t.Error("an unknown package loads")
	}
}

func TestParseTypeMapping(t *testing.T) {
	for in, want := range map[string]TypeMapping{
		"Params=example.com/m/pkg.Params":      {CName: "Params", PkgPath: "example.com/m/pkg", Name: "Params"},
		"ns::Pair<float> = a.b/c.PairF32":      {CName: "ns::Pair<float>", PkgPath: "a.b/c", Name: "PairF32"},
		"Pair<Pair<int>>=example.com/v2.Pairs": {CName: "Pair<Pair<int>>", PkgPath: "example.com/v2", Name: "Pairs"},
	} {
		got, err := ParseTypeMapping(in)
		if err != nil || got != want {
			t.Errorf("ParseTypeMapping(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"Params", "=a/b.C", "Params=", "Params=pkg", "Params=a/b.", "Params=a/b.lower", "Params=a.b/c"} {
		if _, err := ParseTypeMapping(in); err == nil {
			t.Errorf("ParseTypeMapping(%q): no error", in)
		}
	}
}

func TestDuplicateMapping(t *testing.T) {
	m := paramsMapping
	if _, err := generate(t, typesModule(t), Options{Types: []TypeMapping{m, m}}); err == nil || !strings.Contains(err.Error(), "mapped twice") {
		t.Errorf("error %v", err)
	}
}

func TestVectorSizeMismatch(t *testing.T) {
	// A float4 the binary passes in 8 bytes is not CUDA's float4.
	m := ptxModule(t, "_Z1k6float4", "\t.param .align 8 .b8 _Z1k6float4_param_0[8]")
	_, err := generate(t, m, Options{})
	if err == nil || !strings.Contains(err.Error(), "float4 is 16 bytes, but the binary passes 8 bytes") {
		t.Errorf("error %v", err)
	}
}

// TestSourceNamesAndTypes stands in for parse/csrc: a signature with source
// parameter names (some that would shadow what the body uses) and an extern
// "C" prototype whose type disagrees with the binary.
func TestSourceNamesAndTypes(t *testing.T) {
	m := ptxModule(t, "k", "\t.param .u64 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .u8 k_param_2,\n\t.param .u32 k_param_3,\n\t.param .u32 k_param_4")
	k := m.Kernels[0]
	mode := parse.NewNamed(nil, "Mode", nil)
	mode.Enum, mode.Underlying, mode.Decl = true, parse.NewBuiltin("unsigned char"), "k.cu:3:12"
	types := []*parse.CType{parse.NewPointer(parse.NewBuiltin("float").Qualified(true, false, false)), parse.NewBuiltin("int"), mode, parse.NewBuiltin("unsigned int"), parse.NewBuiltin("int")}
	k.Signature = &parse.Signature{Pretty: `extern "C" k(...)`, Base: "k", Params: types, ExternC: true, Source: "k.cu:5:1",
		ParamNames: []string{"in_data", "copy", "mode", "cfg", ""}}
	for i, p := range k.Params {
		p.CType = types[i]
	}
	src, err := generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		"func K(cfg rt.Config, inData rt.ConstPtr[float32], copy_ int32, mode Mode, cfg_ uint32, p4 int32) error {",
		"type Mode uint8",
		"It is declared at k.cu:3:12.",
		"its parameter types are from its prototype at\n// k.cu:5:1.",
	)
	if strings.Contains(src, "is a guess") {
		t.Error("an enum with a declared underlying type is called a guess")
	}

	// The source says int where the binary passes 8 bytes.
	k.Params[1].CType = parse.NewBuiltin("long")
	k.Signature.Params[1] = k.Params[1].CType
	_, err = generate(t, m, Options{})
	for _, w := range []string{`kernel extern "C" k(...)`, `parameter 1 "copy" (declared at k.cu:5:1)`, "long is 8 bytes, but the binary passes 4 bytes"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

func TestPointerTypes(t *testing.T) {
	src, err := generate(t, typesModule(t), Options{Kernels: regexp.MustCompile("pointers|wide|halves")})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		"p0 rt.ConstPtr[float32], p1 rt.Ptr[int32], p2 rt.Ptr[rt.Ptr[float32]], p3 rt.DevPtr, p4 rt.DevPtr, p5 rt.Ptr[float32]",
		"p2 rt.Ptr[rt.Int128]",
		"p4 rt.Ptr[rt.Half]",
	)
	m := ptxModule(t, "_Z1kPKPfPPKfPPvPK6Opaque", "\t.param .u64 a,\n\t.param .u64 b,\n\t.param .u64 c,\n\t.param .u64 d")
	src, err = generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// float* const*, float const**, void**, a pointer to a type of unknown size.
	mustContain(t, src, "p0 rt.ConstPtr[rt.Ptr[float32]], p1 rt.Ptr[rt.ConstPtr[float32]], p2 rt.Ptr[rt.DevPtr], p3 rt.DevPtr")
}
