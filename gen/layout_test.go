package gen

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse"
)

func class(name string, def *parse.ClassDef) *parse.CType {
	t := parse.NewNamed(nil, name, nil)
	t.Def = def
	return t
}

func field(name string, t *parse.CType, dims ...int) parse.Field {
	return parse.Field{Name: name, Type: t, Dims: dims}
}

// Classes a source defines are laid out from their members as nvcc lays
// them out on 64-bit Linux.
func TestLayoutFromMembers(t *testing.T) {
	b := parse.NewBuiltin
	cell := class("Cell", &parse.ClassDef{Fields: []parse.Field{field("x", b("float")), field("y", b("float")), field("id", b("int"))}})
	inner := class("Inner", &parse.ClassDef{Fields: []parse.Field{field("w", b("double")), field("k", b("short"))}})
	enum := parse.NewNamed(nil, "Mode", nil)
	enum.Enum, enum.Underlying = true, b("unsigned char")
	ty := &typer{mapped: map[string]*TypeMapping{"Mapped": {CName: "Mapped", Size: 24, Align: 8}}}
	for _, c := range []struct {
		name        string
		t           *parse.CType
		size, align int
	}{
		{"Cell", cell, 12, 4},
		{"Inner", inner, 16, 8},
		{"alignas(64)", class("Big", &parse.ClassDef{AlignAs: 64, Fields: []parse.Field{field("v", b("unsigned long long"), 8)}}), 64, 64},
		{"alignas(128) of 8 bytes", class("Small", &parse.ClassDef{AlignAs: 128, Fields: []parse.Field{field("v", b("long"))}}), 128, 128},
		{"arrays of arrays", class("M", &parse.ClassDef{Fields: []parse.Field{field("c", b("char")), field("m", b("float"), 4, 8)}}), 132, 4},
		{"union", class("U", &parse.ClassDef{Union: true, Fields: []parse.Field{field("c", b("char"), 5), field("i", b("int"))}}), 8, 4},
		{"nested and vectors", class("N", &parse.ClassDef{Fields: []parse.Field{field("c", cell), field("v", parse.NewNamed(nil, "float4", nil)), field("p", parse.NewPointer(inner))}}), 48, 16},
		{"member alignas", class("A", &parse.ClassDef{Fields: []parse.Field{field("c", b("char")), {Name: "i", Type: b("int"), AlignAs: 16}}}), 32, 16},
		{"enum and mapping", class("E", &parse.ClassDef{Fields: []parse.Field{field("m", enum), field("x", parse.NewNamed(nil, "Mapped", nil))}}), 32, 8},
	} {
		size, align, ok := ty.layout(c.t, 0)
		if !ok || size != c.size || align != c.align {
			t.Errorf("%s: %d bytes, %d-aligned (%v); want %d, %d", c.name, size, align, ok, c.size, c.align)
		}
	}
	for _, c := range []*parse.CType{
		parse.NewNamed(nil, "Undefined", nil),
		class("Opaque", &parse.ClassDef{Opaque: "it has a bit-field"}),
		class("Holder", &parse.ClassDef{Fields: []parse.Field{field("u", parse.NewNamed(nil, "Undefined", nil))}}),
		parse.NewOther("int&"),
	} {
		if _, _, ok := ty.layout(c, 0); ok {
			t.Errorf("%s: a layout, want none", c)
		}
	}
	// A class that contains itself through a hostile source ends at the limit.
	loop := class("Loop", &parse.ClassDef{})
	loop.Def.Fields = []parse.Field{field("self", loop)}
	if _, _, ok := ty.layout(loop, 0); ok {
		t.Error("a self-containing class has a layout")
	}
}

// globalsModule is field11's variables as -src gives them.
func globalsModule(t *testing.T) *parse.Module {
	cell := class("Cell", &parse.ClassDef{Pos: "k.cu:1:8", Fields: []parse.Field{
		field("x", parse.NewBuiltin("float")), field("y", parse.NewBuiltin("float")), field("id", parse.NewBuiltin("int"))}})
	m := ptxModule(t, "_Z1kP4Cell", ".param .u64 p")
	m.Kernels[0].Params[0].CType.Elem.Def = cell.Def
	m.Globals = []*parse.Global{
		{Name: "t", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 128, Size: 128, Refs: parse.RefsSome,
			CType: parse.NewBuiltin("float"), Dims: []int{4, 8}, Decl: "k.cu:2:18"},
		{Name: "lut", Space: parse.SpaceConst, PTXType: "b8", ElemSize: 1, Count: 1024, Size: 1024, Refs: parse.RefsNone,
			CType: parse.NewBuiltin("int"), Dims: []int{256}, Decl: "k.cu:3:18"},
		{Name: "f", Space: parse.SpaceGlobal, Managed: true, PTXType: "b8", ElemSize: 1, Count: 128, Size: 128, Refs: parse.RefsSome,
			CType: parse.NewBuiltin("int"), Dims: []int{32}, Decl: "k.cu:4:17"},
		{Name: "p", Space: parse.SpaceGlobal, PTXType: "u64", ElemSize: 8, Count: 1, Size: 8, Refs: parse.RefsSome,
			CType: parse.NewPointer(parse.NewBuiltin("float")), Decl: "k.cu:5:19"},
		{Name: "cells", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 36, Size: 36, Refs: parse.RefsSome,
			CType: cell, Dims: []int{3}, Decl: "k.cu:6:17"},
		{Name: "stale", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 12, Size: 12, Refs: parse.RefsSome,
			CType: parse.NewBuiltin("double"), Dims: []int{4}, Decl: "k.cu:7:17"},
		{Name: "unused", Space: parse.SpaceGlobal, PTXType: "u32", ElemSize: 4, Count: 1, Size: 4, Refs: parse.RefsNone},
		{Name: "unknown", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 4, Size: 4, Refs: parse.RefsUnknown},
		{Name: "__unnamed_1", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 7, Size: 7, Refs: parse.RefsSome},
		{Name: "_ZN4cuda3std3__45__cpo4swapE", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 1, Size: 1, Refs: parse.RefsNone},
		{Name: "_ZN34_INTERNAL_a4a9a764_4_m_cu_b546f6382tabE", Space: parse.SpaceGlobal, PTXType: "b8", ElemSize: 1, Count: 4, Size: 4, Refs: parse.RefsSome},
	}
	return m
}

// Variables are typed as the source declares them where the binary's size
// agrees, by their PTX widths elsewhere; struct pointers are typed by the
// source's class; the compiler's variables and unused undeclared ones are
// not wrapped unless -globals chooses them.
func TestTypedGlobalsAndPointers(t *testing.T) {
	src, err := generate(t, globalsModule(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		`var T = rt.NewGlobal[float32](Library, "t", 32)`,
		`var Lut = rt.NewGlobal[int32](Library, "lut", 256)`,
		`var F = rt.NewManaged[int32](Library, "f", 32)`,
		`var P = rt.NewGlobal[rt.Ptr[float32]](Library, "p", 1)`,
		`var Cells = rt.NewGlobal[Cell](Library, "cells", 3)`,
		"// T is the __device__ variable t, float[4][8] (declared at k.cu:2:18): 128 bytes (32 elements of float32).",
		`var Stale = rt.NewGlobal[uint8](Library, "stale", 12)`,
		"It is typed by its binary width: its declaration at k.cu:7:17 is 32 bytes, the binary's 12.",
		`var Unknown = rt.NewGlobal[uint8](Library, "unknown", 4)`,
		"func K(cfg rt.Config, p0 rt.Ptr[Cell]) error",
		"// Cell is the C++ type Cell, defined at k.cu:1:8: 12 bytes, 4-byte aligned.",
		"\tX  float32 // x, offset 0", "_ = [1]struct{}{}[unsafe.Offsetof(Cell{}.Id)-8]",
		"// Not wrapped: unused, __unnamed_1, _ZN4cuda3std3__45__cpo4swapE, _ZN34_INTERNAL_a4a9a764_4_m_cu_b546f6382tabE:",
	)
	if strings.Contains(src, `"unused"`) || strings.Contains(src, `"__unnamed_1"`) {
		t.Error("an internal or unused variable is wrapped")
	}

	src, err = generate(t, globalsModule(t), Options{Globals: regexp.MustCompile(`^(__unnamed_1|cuda::std::.*|lut)$`)})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, src,
		`var Unnamed1 = rt.NewGlobal[uint8](Library, "__unnamed_1", 7)`,
		`var Swap = rt.NewGlobal[uint8](Library, "_ZN4cuda3std3__45__cpo4swapE", 1)`,
		`var Lut = rt.NewGlobal[int32](Library, "lut", 256)`,
	)
	if strings.Contains(src, `"t", 32`) {
		t.Error("-globals did not choose the variables")
	}

	_, err = generate(t, globalsModule(t), Options{Globals: regexp.MustCompile(`^nothing$`)})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "-globals" || !strings.Contains(err.Error(), "matches none of the 11 variables (-globals none wraps none)") {
		t.Errorf("-globals matching nothing: %v", err)
	}

	// -globals none: no accessor, and the file says why.
	src, err = generate(t, globalsModule(t), Options{NoGlobals: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(src, "rt.NewGlobal") || strings.Contains(src, "rt.NewManaged") {
		t.Errorf("-globals none wraps a variable:\n%s", src)
	}
	mustContain(t, src, "// Not wrapped: t, lut, f, p, cells, stale, unused, unknown, __unnamed_1, _ZN4cuda3std3__45__cpo4swapE,",
		"cugen -globals none.", "func K(cfg rt.Config, p0 rt.Ptr[Cell]) error")
}
