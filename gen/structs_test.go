package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
)

// render is a struct's fields as "Name [d]Type@offset", padding included.
func render(fields []structField) string {
	var parts []string
	for _, f := range fields {
		typ := f.typ.spelling()
		parts = append(parts, fmt.Sprintf("%s %s%s@%d", f.name, dimsSuffix(f.dims), typ, f.off))
	}
	return strings.Join(parts, ", ")
}

// Classes a source defines become Go structs of their members where Go can
// place every member at its C++ offset: padding fields where C++ pads more
// than Go would, a zero-size field first where C++ aligns more strictly
// (up to 8), trailing padding to the C++ size. The rest stay opaque, and say
// why.
func TestClassFields(t *testing.T) {
	b := parse.NewBuiltin
	cell := class("Cell", &parse.ClassDef{Fields: []parse.Field{field("x", b("float")), field("y", b("float")), field("id", b("int"))}})
	inner := class("Inner", &parse.ClassDef{Fields: []parse.Field{field("w", b("double")), field("k", b("short"))}})
	enum := parse.NewNamed(nil, "Mode", nil)
	enum.Enum, enum.Underlying = true, b("unsigned char")
	node := class("Node", &parse.ClassDef{})
	node.Def.Fields = []parse.Field{field("next", parse.NewPointer(node)), field("v", b("int")), field("ok", b("bool"))}
	for _, c := range []struct {
		name string
		t    *parse.CType
		want string
	}{
		{"Cell", cell, "X float32@0, Y float32@4, Id int32@8"},
		{"Inner", inner, "W float64@0, K int16@8, _ [6]uint8@10"},
		{"alignas(64)", class("Big", &parse.ClassDef{AlignAs: 64, Fields: []parse.Field{field("v", b("unsigned long long"), 8)}}), "V [8]uint64@0"},
		{"alignas(128) of 8 bytes", class("Small", &parse.ClassDef{AlignAs: 128, Fields: []parse.Field{field("v", b("long"))}}), "V int64@0, _ [120]uint8@8"},
		{"arrays of arrays", class("M", &parse.ClassDef{Fields: []parse.Field{field("c", b("char")), field("m", b("float"), 4, 8)}}), "C int8@0, _ [3]uint8@1, M [4][8]float32@4"},
		{"nested, vectors, pointers", class("N", &parse.ClassDef{Fields: []parse.Field{field("c", cell), field("v", parse.NewNamed(nil, "float4", nil)), field("p", parse.NewPointer(inner))}}),
			"C Cell@0, _ [4]uint8@12, V rt.Float4@16, P rt.Ptr[Inner]@32, _ [8]uint8@40"},
		{"member alignas", class("A", &parse.ClassDef{Fields: []parse.Field{field("c", b("char")), {Name: "i", Type: b("int"), AlignAs: 16}}}),
			"_ [0]uint64@0, C int8@0, _ [15]uint8@1, I int32@16, _ [12]uint8@20"},
		{"enum and mapping", class("E", &parse.ClassDef{Fields: []parse.Field{field("m", enum), field("x", parse.NewNamed(nil, "Mapped", nil))}}),
			"M Mode@0, _ [7]uint8@1, X pkg.Mapped@8"},
		{"a pointer to itself", node, "Next rt.Ptr[Node]@0, V int32@8, Ok bool@12, _ [3]uint8@13"},
		{"names that collide in Go", class("C", &parse.ClassDef{Fields: []parse.Field{field("x", b("int")), field("X", b("int")), field("_x", b("int"))}}),
			"X int32@0, X2 int32@4, X3 int32@8"},
		{"empty", class("Tag", &parse.ClassDef{}), "_ [1]uint8@0"},
		{"__int128 and halves", class("W", &parse.ClassDef{Fields: []parse.Field{field("h", parse.NewNamed(nil, "__half", nil)), field("i", b("__int128"))}}),
			"H rt.Half@0, _ [14]uint8@2, I rt.Int128@16"},
	} {
		ty := &typer{decls: map[string]*declType{}, mapped: map[string]*TypeMapping{"Mapped": {CName: "Mapped", PkgName: "pkg", Name: "Mapped", Size: 24, Align: 8}}, used: map[*TypeMapping]bool{}}
		size, align, ok := ty.layout(c.t, 0)
		if !ok {
			t.Errorf("%s: no layout", c.name)
			continue
		}
		d := ty.declareClass(c.t, size, align).decl
		for _, d := range ty.decls {
			d.name = d.want // named with the other types, after typing
		}
		if d.opaqueWhy != "" || render(d.fields) != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, render(d.fields), d.opaqueWhy, c.want)
		}
	}
	for _, c := range []struct {
		name string
		t    *parse.CType
		why  string
	}{
		{"union", class("U", &parse.ClassDef{Union: true, Fields: []parse.Field{field("c", b("char"), 5), field("i", b("int"))}}), "it is a union, which Go has no type for"},
		{"bit-field", class("F", &parse.ClassDef{Opaque: "it has a bit-field"}), "it has a bit-field"},
		{"an opaque member", class("H", &parse.ClassDef{Fields: []parse.Field{field("u", class("U2", &parse.ClassDef{Union: true, Fields: []parse.Field{field("i", b("int"))}}))}}), ""},
	} {
		ty := &typer{decls: map[string]*declType{}, mapped: map[string]*TypeMapping{}, used: map[*TypeMapping]bool{}}
		size, align, ok := ty.layout(c.t, 0)
		if !ok {
			size, align = 4, 4 // as the binary would pass it
		}
		d := ty.declareClass(c.t, size, align).decl
		for _, d := range ty.decls {
			d.name = d.want
		}
		if c.why == "" {
			// The union member stays opaque; the class holding it is a struct.
			if d.opaqueWhy != "" || render(d.fields) != "U U2@0" || ty.decls["U2"].fields != nil {
				t.Errorf("%s: %s (%s)", c.name, render(d.fields), d.opaqueWhy)
			}
			continue
		}
		if d.fields != nil || d.opaqueWhy != c.why {
			t.Errorf("%s: fields %s, why %q; want opaque: %s", c.name, render(d.fields), d.opaqueWhy, c.why)
		}
	}
}

// checkStruct finds a member Go would place elsewhere, and a size or an
// alignment that differs (go/types, gc on amd64).
func TestCheckStruct(t *testing.T) {
	ty := &typer{decls: map[string]*declType{}}
	i32, f64 := cxxBuiltins["int"], cxxBuiltins["double"]
	for _, c := range []struct {
		fields      []structField
		size, align int
		want        string
	}{
		{[]structField{{name: "A", cname: "a", typ: i32, off: 0}, {name: "B", cname: "b", typ: f64, off: 8}}, 16, 8, ""},
		{[]structField{{name: "A", cname: "a", typ: i32, off: 0}, {name: "B", cname: "b", typ: f64, off: 4}}, 16, 8, "Go would place member b at offset 8, C++ at 4"},
		{[]structField{{name: "A", cname: "a", typ: i32, off: 0}}, 8, 4, "Go would make it 4 bytes, C++ 8"},
		{[]structField{{name: "A", cname: "a", typ: i32, off: 0}}, 4, 8, "Go would align it to 4 bytes, C++ to 8"},
	} {
		if got := ty.checkStruct(c.fields, c.size, c.align); got != c.want {
			t.Errorf("%s: %q, want %q", render(c.fields), got, c.want)
		}
	}
}

// A struct passed by value is packed member by member by its put method,
// which loops over arrays; one the source defines but the binary passes at
// another size stays opaque and says why.
func TestStructByValue(t *testing.T) {
	b := parse.NewBuiltin
	cell := class("Cell", &parse.ClassDef{Pos: "k.cu:1:8", Fields: []parse.Field{field("x", b("float")), field("ok", b("bool")), field("m", b("short"), 2, 3), field("c", b("char"))}})
	m := ptxModule(t, "_Z1k4CellP4Cell", ".param .align 4 .b8 p0[20], .param .u64 p1")
	m.Kernels[0].Params[0].CType.Def = cell.Def
	m.Kernels[0].Params[1].CType.Elem.Def = cell.Def
	src, err := generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		"type Cell struct {\n\tX  float32     // x, offset 0\n\tOk bool        // ok, offset 4\n\t_  [1]uint8    // padding\n\tM  [2][3]int16 // m[2][3], offset 6\n\tC  int8        // c, offset 18\n\t_  [1]uint8    // padding\n}",
		"func (v *Cell) put(b []byte) {\n\tbinary.LittleEndian.PutUint32(b[0:], math.Float32bits(v.X))\n\tif v.Ok {\n\t\tb[4] = 1\n\t}\n"+
			"\tfor i0 := range v.M {\n\t\tfor i1 := range v.M[i0] {\n\t\t\tbinary.LittleEndian.PutUint16(b[6+6*i0+2*i1:], uint16(v.M[i0][i1]))\n\t\t}\n\t}\n\tb[18] = byte(v.C)\n}",
		"func K(cfg rt.Config, p0 Cell, p1 rt.Ptr[Cell]) error {\n\tvar args [32]byte\n\tp0.put(args[0:])\n",
		"_ = [1]struct{}{}[unsafe.Sizeof(Cell{})-20]",
		"_ = [1]struct{}{}[unsafe.Offsetof(Cell{}.X)]",
		"_ = [1]struct{}{}[unsafe.Offsetof(Cell{}.C)-18]",
	)

	// The binary passes 16 bytes: the definition is not the one compiled.
	m = ptxModule(t, "_Z1k4Cell", ".param .align 4 .b8 p0[16]")
	m.Kernels[0].Params[0].CType.Def = cell.Def
	src, err = generate(t, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src, "cugen knows its layout only by size: its definition at k.cu:1:8 lays out 20 bytes, but the binary passes 16 bytes.",
		"type Cell struct {\n\t_ [0]uint32\n\tb [16]byte\n}")
}
