package gen

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/cugen/cugen/parse"
	"github.com/dave/jennifer/jen"
)

// This file declares a class that a CUDA source defines (cugen -src) as a
// Go struct with its members as fields, where Go can lay it out exactly as
// C++ does; otherwise the class stays an opaque byte-backed type, and its
// doc comment says why.
//
// Go aligns nothing above 8 bytes, and C++ places a member at the next
// offset its alignment allows (alignas included), so the struct carries
// blank padding fields where C++ pads more than Go would, a leading
// zero-size field where Go would align the whole less strictly (up to 8),
// and trailing padding up to the C++ size. go/types (gc, amd64) then
// checks that every member's offset and the size are the C++ ones; the
// generated file repeats that check as compile-time assertions. The launch
// functions pack such a struct member by member at the C++ offsets (its
// put method), and rt.Ptr[T], rt.Global[T] and rt.Buffer[T] copy its memory
// as it is.

// structField is one field of a declared struct: a C++ member, or padding.
type structField struct {
	name  string // the Go name; "_" for padding
	cname string // the C++ member's name; "" for padding
	typ   goType // the element type (padding: uint8)
	dims  []int  // array extents, outermost first; nil for a scalar
	off   int    // the C++ offset, which is the Go field's too
	size  int    // bytes in all
}

// padding reports a blank field that only places the next one.
func (f *structField) padding() bool { return f.cname == "" }

// declareClass declares the Go type of class c, which a source defines:
// its layout from the definition (size and align, from t.layout), as a
// struct with fields where Go can lay it out so.
func (t *typer) declareClass(c *parse.CType, size, align int) goType {
	u := c.Unqualified()
	if d, ok := t.decls[u.Name]; ok {
		return d.goType()
	}
	d := &declType{want: typeName(u), scope: u.Scope, what: "the C++ type " + u.Name,
		size: size, align: align, src: c.Def.Pos, members: true}
	// Declared before its members are typed: a member may point to it.
	g := t.declare(u.Name, d)
	d.fields, d.opaqueWhy = t.classFields(c.Def, size, align)
	return g
}

// classFields lays out a class definition's members as Go fields, or says
// why Go cannot hold them at the C++ offsets.
func (t *typer) classFields(def *parse.ClassDef, size, align int) ([]structField, string) {
	switch {
	case def.Opaque != "":
		return nil, def.Opaque
	case def.Union:
		return nil, "it is a union, which Go has no type for"
	}
	var fields []structField
	used := map[string]bool{}
	off, goOff, goAlign := 0, 0, 1
	for _, m := range def.Fields {
		s, a, ok := t.layout(m.Type, 1)
		if !ok {
			return nil, fmt.Sprintf("cugen does not know the layout of member %s's type %s", m.Name, m.Type)
		}
		e, ok := t.elemType(m.Type)
		if !ok || e.size != s {
			return nil, fmt.Sprintf("member %s's type %s has no Go type of its size", m.Name, m.Type)
		}
		n, _ := count(m.Dims) // t.layout checked the extents
		off = alignUp(off, max(a, m.AlignAs))
		ga := int(goSizes.Alignof(t.goTypeOf(e)))
		if off%ga != 0 || off < alignUp(goOff, ga) {
			return nil, fmt.Sprintf("C++ places member %s at offset %d, where Go cannot place a %s", m.Name, off, e.spelling())
		}
		if off > goOff {
			fields = append(fields, structField{name: "_", typ: byteType, dims: []int{off - goOff}, off: goOff, size: off - goOff})
		}
		fields = append(fields, structField{name: unique(camel(m.Name), used), cname: m.Name, typ: e, dims: m.Dims, off: off, size: s * n})
		off += s * n
		goOff, goAlign = off, max(goAlign, ga)
	}
	if size > goOff {
		fields = append(fields, structField{name: "_", typ: byteType, dims: []int{size - goOff}, off: goOff, size: size - goOff})
	}
	if want := min(align, maxGoAlign); goAlign < want {
		// A zero-size field first aligns the whole as C++ does, up to Go's 8.
		fields = append([]structField{{name: "_", typ: alignType(want), dims: []int{0}}}, fields...)
	}
	return fields, t.checkStruct(fields, size, align)
}

var byteType = goType{kind: gkInt, size: 1, name: "uint8"}

// alignType is the unsigned integer whose alignment is a (1, 2, 4 or 8).
func alignType(a int) goType {
	return goType{kind: gkInt, size: a, name: fmt.Sprintf("uint%d", 8*a)}
}

// goSizes is the layout the generated code is compiled with.
var goSizes = types.SizesFor("gc", "amd64")

// checkStruct asks go/types where gc puts the fields on amd64, and returns
// why they are not at the C++ offsets, or "".
func (t *typer) checkStruct(fields []structField, size, align int) string {
	st := t.goStruct(fields)
	offs := goSizes.Offsetsof(fieldVars(st))
	for i, f := range fields {
		if int(offs[i]) != f.off {
			return fmt.Sprintf("Go would place member %s at offset %d, C++ at %d", f.cname, offs[i], f.off)
		}
	}
	if got := goSizes.Sizeof(st); int(got) != size {
		return fmt.Sprintf("Go would make it %d bytes, C++ %d", got, size)
	}
	if got, want := goSizes.Alignof(st), min(align, maxGoAlign); int(got) != want {
		return fmt.Sprintf("Go would align it to %d bytes, C++ to %d", got, want)
	}
	return ""
}

func fieldVars(st *types.Struct) []*types.Var {
	vs := make([]*types.Var, st.NumFields())
	for i := range vs {
		vs[i] = st.Field(i)
	}
	return vs
}

// goStruct is a declared struct as go/types sees it.
func (t *typer) goStruct(fields []structField) *types.Struct {
	var vars []*types.Var
	for _, f := range fields {
		typ := t.goTypeOf(f.typ)
		for i := len(f.dims) - 1; i >= 0; i-- {
			typ = types.NewArray(typ, int64(f.dims[i]))
		}
		vars = append(vars, types.NewField(0, nil, f.name, typ, false))
	}
	return types.NewStruct(vars, nil)
}

// goTypeOf is a stand-in for g with g's Go layout, for go/types' Sizes:
// the basic type itself, else bytes with g's Go alignment.
func (t *typer) goTypeOf(g goType) types.Type {
	switch g.kind {
	case gkBool:
		return types.Typ[types.Bool]
	case gkInt, gkFloat:
		return types.Universe.Lookup(g.name).Type()
	case gkPtr, gkConstPtr, gkDevPtr:
		return types.Typ[types.Uint64] // rt.DevPtr
	case gkRT:
		return blob(g.size, rtGoAlign(g.name))
	case gkMapped:
		return blob(g.size, int(g.mapped.Align))
	case gkDecl:
		d := g.decl
		switch {
		case d.scalar != nil:
			return t.goTypeOf(*d.scalar)
		case d.fields != nil:
			return t.goStruct(d.fields)
		}
		return blob(d.size, min(max(d.align, 1), maxGoAlign)) // alignField's
	}
	panic("gen: unknown goType kind")
}

// blob is a struct of size bytes aligned to align (1, 2, 4 or 8).
func blob(size, align int) types.Type {
	var fields []*types.Var
	if align > 1 {
		fields = append(fields, types.NewField(0, nil, "_", types.NewArray(types.Universe.Lookup(alignType(align).name).Type(), 0), false))
	}
	fields = append(fields, types.NewField(0, nil, "_", types.NewArray(types.Typ[types.Uint8], int64(size)), false))
	return types.NewStruct(fields, nil)
}

// rtGoAlign is the Go alignment of an rt value type: CUDA's up to Go's 8
// (cudatypes_test.go checks it against rt), 8 for the 128-bit integers.
func rtGoAlign(name string) int {
	for _, r := range cudaTypes {
		if r.name == name {
			return min(r.align, maxGoAlign)
		}
	}
	return maxGoAlign // Int128, Uint128
}

// markPacked records that a launch function packs d by value, and so the
// structs among its members.
func (d *declType) markPacked() {
	if d.fields == nil || d.packed {
		return
	}
	d.packed = true
	for _, f := range d.fields {
		if f.typ.kind == gkDecl {
			f.typ.decl.markPacked()
		}
	}
}

// emitStruct declares a class as a Go struct of its members, its put
// method, and the assertions that Go lays it out as C++ does.
func emitStruct(f *jen.File, d *declType) {
	f.Line()
	f.Comment(lineComment(fmt.Sprintf("%s is %s, defined at %s: %s, %d-byte aligned.\n"+
		"Its fields are the C++ members at their C++ offsets, so that device memory\n"+
		"(rt.Ptr[%s], a variable's accessor) holds it as Go lays it out.",
		d.name, d.what, d.src, plural(d.size, "byte"), max(d.align, 1), d.name)))
	f.Type().Id(d.name).StructFunc(func(g *jen.Group) {
		for _, fd := range d.fields {
			field := g.Id(fd.name).Add(fd.code())
			switch {
			case !fd.padding():
				field.Comment(fmt.Sprintf("%s, offset %d", fd.cname+dimsSuffix(fd.dims), fd.off))
			case fd.size == 0:
				field.Comment(fmt.Sprintf("aligns %s as C++ does, up to Go's 8 bytes", d.name))
			default:
				field.Comment("padding")
			}
		}
	})
	if d.packed {
		f.Line()
		f.Commentf("put stores v in b as the launch functions pass it: each member at its C++ offset, little-endian.")
		f.Func().Params(jen.Id(recvVar).Op("*").Id(d.name)).Id(putMethod).Params(jen.Id(putBuf).Index().Byte()).BlockFunc(func(g *jen.Group) {
			for _, fd := range d.fields {
				if !fd.padding() {
					g.Add(fd.pack(putBuf, jen.Id(recvVar).Dot(fd.name)))
				}
			}
		})
	}
	f.Line()
	f.Comment(lineComment(fmt.Sprintf("Go lays out %s as C++ does (cugen checked with go/types); these fail\n"+
		"to compile if that ever changes.", d.name)))
	var asserts []jen.Code
	check := func(v *jen.Statement, want int) {
		if want != 0 {
			v.Op("-").Lit(want)
		}
		asserts = append(asserts, jen.Id("_").Op("=").Index(jen.Lit(1)).Struct().Values().Index(v))
	}
	check(jen.Qual("unsafe", "Sizeof").Call(jen.Id(d.name).Values()), d.size)
	for _, fd := range d.fields {
		if !fd.padding() {
			check(jen.Qual("unsafe", "Offsetof").Call(jen.Id(d.name).Values().Dot(fd.name)), fd.off)
		}
	}
	f.Var().Defs(asserts...)
}

// dimsSuffix is array extents as C++ writes them: "[4][8]".
func dimsSuffix(dims []int) string {
	var b strings.Builder
	for _, d := range dims {
		fmt.Fprintf(&b, "[%d]", d)
	}
	return b.String()
}

// code is the field's Go type.
func (fd *structField) code() jen.Code {
	c := jen.Empty()
	for _, d := range fd.dims {
		c.Index(jen.Lit(d))
	}
	return c.Add(fd.typ.code())
}

// pack returns the statements that store the member value (an array's
// elements in loops) at its offset in buf.
func (fd *structField) pack(buf string, value *jen.Statement) jen.Code {
	if len(fd.dims) == 0 {
		return fd.typ.packAt(buf, bufOffset{base: fd.off}, value)
	}
	// for i0 := range v.A { for i1 := range v.A[i0] { ... v.A[i0][i1] at off + s0*i0 + s1*i1 } }
	stride := fd.typ.size
	strides := make([]int, len(fd.dims))
	for i := len(fd.dims) - 1; i >= 0; i-- {
		strides[i] = stride
		stride *= fd.dims[i]
	}
	off := bufOffset{base: fd.off}
	elem := jen.Add(value)
	var loops []jen.Code
	for i := range fd.dims {
		idx := fmt.Sprintf("i%d", i)
		loops = append(loops, jen.Add(elem.Clone()))
		term := jen.Id(idx)
		if strides[i] != 1 {
			term = jen.Lit(strides[i]).Op("*").Id(idx)
		}
		off.terms = append(off.terms, term)
		elem = elem.Clone().Index(jen.Id(idx))
	}
	body := fd.typ.packAt(buf, off, elem)
	for i := len(fd.dims) - 1; i >= 0; i-- {
		body = jen.For(jen.Id(fmt.Sprintf("i%d", i)).Op(":=").Range().Add(loops[i])).Block(body)
	}
	return body
}
