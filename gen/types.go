package gen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cugen/cugen/parse"
)

// This file holds every rule that maps a C++ (or PTX) parameter type to a Go
// type; names.go holds the naming rules.
//
//	C++                                  Go
//	bool, char … unsigned long long      bool, int8 … uint64 (exact width)
//	float, double                        float32, float64
//	__int128, unsigned __int128          rt.Int128, rt.Uint128
//	__half, __nv_bfloat16 (and …2)       rt.Half, rt.BFloat16, rt.Half2, rt.BFloat162
//	float4, int3, dim3, … (CUDA vectors) rt.Float4, rt.Int3, rt.Dim3, …
//	T*, T volatile*                      rt.Ptr[T]
//	T const*                             rt.ConstPtr[T]
//	void*, void const*                   rt.DevPtr
//	cudaTextureObject_t,                 rt.TextureObject, rt.SurfaceObject (with -src: a
//	  cudaSurfaceObject_t                  mangled name says unsigned long long, "y")
//	pointer to a type of unknown size    rt.DevPtr
//	an enum (a named type the binary     a generated named integer type
//	  passes as a PTX scalar)
//	a struct or class a source defines   a generated Go struct of its members at the
//	  (-src), that Go can lay out so       C++ offsets (structs.go)
//	any other struct, class or union     a generated opaque type of exact size and
//	                                       alignment, or the Go type -type maps it to

const rtPkg = "github.com/cugen/cugen/rt"

type goKind uint8

const (
	gkBool goKind = iota
	gkInt
	gkFloat
	gkPtr      // rt.Ptr[elem]
	gkConstPtr // rt.ConstPtr[elem]
	gkDevPtr   // rt.DevPtr (an untyped device address), or an rt 64-bit handle (rt.TextureObject)
	gkRT       // an rt value type with a Put method (vectors, halves, Int128)
	gkDecl     // a type the generated package declares (declType)
	gkMapped   // a Go type named by -type, copied by value
)

// goType is the Go type of one kernel parameter or global element.
type goType struct {
	kind   goKind
	size   int
	signed bool
	name   string  // builtin Go name ("int32"), rt, generated or mapped type name
	elem   *goType // pointee of gkPtr and gkConstPtr
	decl   *declType
	mapped *TypeMapping
}

// declType is a type the generated package declares for a C++ type.
type declType struct {
	key   string   // the C++ name, or a synthetic key for what has none
	want  string   // the Go name it wants ("Params"), also its name part in overloads' names
	scope []string // the C++ namespaces, for a name that tells two apart
	name  string   // the Go name given, after every kernel is named
	what  string   // "the C++ type Params", for the doc comment
	size  int
	align int
	// scalar is the underlying Go type of an enum (or a typedef the binary
	// passes as a PTX scalar); nil for an opaque byte-backed type.
	scalar *goType
	guess  bool   // the scalar's signedness is a guess from the size
	ptx    string // the PTX type the binary passes a scalar as
	src    string // where the source declares it, "file:line:col"
	anon   bool   // an extern "C" kernel's aggregate, of no known C++ type
	// members says the layout is the source's definition's (cugen -src),
	// not a by-value parameter's size in the binary: fields are its members
	// as Go fields (structs.go), or opaqueWhy says why Go cannot hold them.
	members   bool
	fields    []structField
	opaqueWhy string
	packed    bool // some launch function packs it by value: it has a put method
	// defWhy says why a by-value parameter's class, which a source
	// defines, is known only by its size in the binary.
	defWhy string
}

// cxxBuiltins maps C++ builtin type names (as demangled) to exact-width Go types.
var cxxBuiltins = map[string]goType{
	"bool":               {kind: gkBool, size: 1, name: "bool"},
	"char":               {kind: gkInt, size: 1, signed: true, name: "int8"},
	"signed char":        {kind: gkInt, size: 1, signed: true, name: "int8"},
	"unsigned char":      {kind: gkInt, size: 1, name: "uint8"},
	"char8_t":            {kind: gkInt, size: 1, name: "uint8"},
	"short":              {kind: gkInt, size: 2, signed: true, name: "int16"},
	"unsigned short":     {kind: gkInt, size: 2, name: "uint16"},
	"char16_t":           {kind: gkInt, size: 2, name: "uint16"},
	"int":                {kind: gkInt, size: 4, signed: true, name: "int32"},
	"unsigned int":       {kind: gkInt, size: 4, name: "uint32"},
	"wchar_t":            {kind: gkInt, size: 4, signed: true, name: "int32"}, // Linux: a signed 32-bit int
	"char32_t":           {kind: gkInt, size: 4, name: "uint32"},
	"long":               {kind: gkInt, size: 8, signed: true, name: "int64"}, // LP64, as nvcc on Linux
	"unsigned long":      {kind: gkInt, size: 8, name: "uint64"},
	"long long":          {kind: gkInt, size: 8, signed: true, name: "int64"},
	"unsigned long long": {kind: gkInt, size: 8, name: "uint64"},
	"float":              {kind: gkFloat, size: 4, name: "float32"},
	"double":             {kind: gkFloat, size: 8, name: "float64"},
	"_Float32":           {kind: gkFloat, size: 4, name: "float32"},
	"_Float64":           {kind: gkFloat, size: 8, name: "float64"},
	"decltype(nullptr)":  {kind: gkDevPtr, size: 8, name: "DevPtr"},
	"__int128":           {kind: gkRT, size: 16, name: "Int128"},
	"unsigned __int128":  {kind: gkRT, size: 16, name: "Uint128"},
	"_Float16":           {kind: gkRT, size: 2, name: "Half"},
	"half":               {kind: gkRT, size: 2, name: "Half"},
	"std::bfloat16_t":    {kind: gkRT, size: 2, name: "BFloat16"},
}

// ptxScalars maps PTX parameter types to Go types by width, for extern "C"
// kernels, whose names carry no C++ types.
var ptxScalars = map[string]goType{
	"u8": {kind: gkInt, size: 1, name: "uint8"}, "s8": {kind: gkInt, size: 1, signed: true, name: "int8"}, "b8": {kind: gkInt, size: 1, name: "uint8"},
	"u16": {kind: gkInt, size: 2, name: "uint16"}, "s16": {kind: gkInt, size: 2, signed: true, name: "int16"}, "b16": {kind: gkInt, size: 2, name: "uint16"},
	"u32": {kind: gkInt, size: 4, name: "uint32"}, "s32": {kind: gkInt, size: 4, signed: true, name: "int32"}, "b32": {kind: gkInt, size: 4, name: "uint32"},
	"u64": {kind: gkInt, size: 8, name: "uint64"}, "s64": {kind: gkInt, size: 8, signed: true, name: "int64"}, "b64": {kind: gkInt, size: 8, name: "uint64"},
	"f32": {kind: gkFloat, size: 4, name: "float32"}, "f64": {kind: gkFloat, size: 8, name: "float64"},
	"f16": {kind: gkInt, size: 2, name: "uint16"}, "bf16": {kind: gkInt, size: 2, name: "uint16"},
	"f16x2": {kind: gkInt, size: 4, name: "uint32"}, "bf16x2": {kind: gkInt, size: 4, name: "uint32"},
}

// namedRT maps C++ class names that are not in cudaTypes but that rt encodes.
var namedRT = map[string]goType{
	"__bf16": {kind: gkRT, size: 2, name: "BFloat16"}, // clang's bfloat16 (a vendor type in mangled names)
}

var devPtr = goType{kind: gkDevPtr, size: 8, name: "DevPtr"}

// handleTypes are the rt types of the texture and surface object handles,
// by the typedef a source declares a parameter with (parse.CType.Typedef;
// csrc.HandleTypedefs): 64-bit values packed as rt.DevPtr is.
var handleTypes = map[string]goType{
	"cudaTextureObject_t": {kind: gkDevPtr, size: 8, name: "TextureObject"},
	"CUtexObject":         {kind: gkDevPtr, size: 8, name: "TextureObject"},
	"cudaSurfaceObject_t": {kind: gkDevPtr, size: 8, name: "SurfaceObject"},
	"CUsurfObject":        {kind: gkDevPtr, size: 8, name: "SurfaceObject"},
}

// typer maps parameter types to Go types and collects the types the package
// must declare.
type typer struct {
	decls   map[string]*declType    // by C++ name (or a synthetic key)
	mapped  map[string]*TypeMapping // -type and builtinMappings, by C++ name
	builtin map[*TypeMapping]string // the builtinMappings in mapped, with what they are
	used    map[*TypeMapping]bool   // mappings some parameter uses
}

// builtinMappings are C types that cugen maps to Go types of rt's packages
// without a -type flag (a -type mapping of the same name wins). Their
// layouts are the Go types' (a test checks them), and what follows the
// mapping is why a binary's parameter might disagree.
var builtinMappings = []struct {
	TypeMapping
	aliases []string // typedefs of the C type, as a source spells them
	what    string
}{
	{TypeMapping{CName: "ncclDevComm", PkgPath: "github.com/cugen/cugen/rt/nccl", PkgName: "nccl", Name: "DevComm", Size: 88, Align: 8},
		[]string{"ncclDevComm_t"},
		"NCCL 2.28.3's device communicator; a kernel compiled against another NCCL's nccl_device.h has another layout (2.28.7 and later: 200 bytes or more)"},
}

func newTyper(types []TypeMapping) (*typer, error) {
	t := &typer{decls: map[string]*declType{}, mapped: map[string]*TypeMapping{}, builtin: map[*TypeMapping]string{}, used: map[*TypeMapping]bool{}}
	for i := range types {
		m := &types[i]
		if old, ok := t.mapped[m.CName]; ok {
			return nil, &OptionError{Option: "-type", Value: m.CName, Err: fmt.Errorf("mapped twice: to %s and to %s", old.goSpelling(), m.goSpelling())}
		}
		t.mapped[m.CName] = m
	}
	for _, b := range builtinMappings {
		m := b.TypeMapping
		for _, name := range append([]string{m.CName}, b.aliases...) {
			if _, ok := t.mapped[name]; !ok {
				t.mapped[name] = &m
				t.builtin[&m] = b.what
			}
		}
	}
	return t, nil
}

// paramType maps one kernel parameter, checking the Go type's size against
// the binary's.
func (t *typer) paramType(k *parse.Kernel, p *parse.Param, goKernel string) (goType, error) {
	if p.CType != nil {
		g, err := t.valueType(k, p)
		if err != nil {
			return goType{}, &KernelError{Kernel: k.Name, pretty: k.Pretty(), Err: fmt.Errorf("parameter %s: %w", paramLabel(k, p), err)}
		}
		if g.size != p.Size {
			what := "the C++ type"
			if k.Signature != nil && k.Signature.ExternC {
				what = "the source declares it as"
			}
			return goType{}, &KernelError{Kernel: k.Name, pretty: k.Pretty(), Err: fmt.Errorf("parameter %s: %s %s is %s, but the binary passes %s",
				paramLabel(k, p), what, p.CType, plural(g.size, "byte"), plural(p.Size, "byte"))}
		}
		return g, nil
	}
	if p.ArrayLen == 0 {
		if g, ok := ptxScalars[p.PTXType]; ok && g.size == p.Size {
			if p.PtrSpace != "" {
				return devPtr, nil
			}
			return g, nil
		}
	}
	// An aggregate (or a cubin-only parameter): bytes of exact size and alignment.
	key := fmt.Sprintf("%s#%d", goKernel, p.Ordinal) // the Go name: one kernel may be in two inputs
	return t.declare(key, &declType{want: aggregateName(goKernel, p.Ordinal), what: fmt.Sprintf("the aggregate parameter %d of %s", p.Ordinal, k.Name),
		size: p.Size, align: p.Align, anon: true}), nil
}

// paramLabel names a parameter in errors: its ordinal, its source name and
// where the source declares the kernel.
func paramLabel(k *parse.Kernel, p *parse.Param) string {
	s := fmt.Sprint(p.Ordinal)
	if sig := k.Signature; sig != nil && p.Ordinal < len(sig.ParamNames) && sig.ParamNames[p.Ordinal] != "" {
		s += fmt.Sprintf(" %q", sig.ParamNames[p.Ordinal])
	}
	if sig := k.Signature; sig != nil && sig.Source != "" {
		s += " (declared at " + sig.Source + ")"
	}
	return s
}

// valueType maps a parameter passed by value; the binary's size and
// alignment stand in for the layout a mangled name does not give.
func (t *typer) valueType(k *parse.Kernel, p *parse.Param) (goType, error) {
	c := p.CType.Unqualified()
	switch c.Kind {
	case parse.CBuiltin:
		if h, ok := handleTypes[c.Typedef]; ok && c.Name == "unsigned long long" {
			return h, nil
		}
		if g, ok := cxxBuiltins[c.Name]; ok {
			return g, nil
		}
		return t.opaque("builtin "+c.Name, camel(c.Name), "the C++ type "+c.Name, p.Size, p.Align), nil
	case parse.CPointer:
		return t.pointerType(c), nil
	case parse.CNamed:
		if m, ok := t.mapped[c.Name]; ok {
			if err := m.check(p); err != nil {
				if what, ok := t.builtin[m]; ok {
					return goType{}, fmt.Errorf("%s is %s, %d-byte aligned, but the binary passes %s, %d-byte aligned: %s is %s",
						c.Name, plural(int(m.Size), "byte"), m.Align, plural(p.Size, "byte"), p.Align, m.goSpelling(), what)
				}
				return goType{}, err
			}
			t.used[m] = true
			return goType{kind: gkMapped, size: int(m.Size), name: m.Name, mapped: m}, nil
		}
		if g, ok := t.rtNamed(c); ok {
			return g, nil
		}
		if d, ok := t.decls[c.Name]; ok {
			return d.goType(), nil
		}
		if s, guess, ok := scalarFor(c, p); ok {
			// A mangled name resolves typedefs, so a class-type name the binary
			// passes as a scalar is an enum; from a source it may be a typedef.
			kind := "type"
			if c.Enum || k.Signature == nil || !k.Signature.ExternC {
				kind = "enum"
			}
			return t.declare(c.Name, &declType{want: typeName(c), scope: c.Scope, what: "the C++ " + kind + " " + c.Name,
				size: s.size, align: s.size, scalar: &s, guess: guess, ptx: p.PTXType, src: c.Decl}), nil
		}
		if p.Size <= 0 {
			return goType{}, fmt.Errorf("size of %s unknown", c.Name)
		}
		var why string
		if c.Def != nil {
			size, align, ok := t.layout(c, 0)
			switch {
			case ok && size == p.Size:
				return t.declareClass(c, size, align), nil
			case ok:
				why = fmt.Sprintf("its definition at %s lays out %s, but the binary passes %s", c.Def.Pos, plural(size, "byte"), plural(p.Size, "byte"))
			case c.Def.Opaque != "":
				why = fmt.Sprintf("its definition at %s does not give its layout: %s", c.Def.Pos, c.Def.Opaque)
			default:
				why = fmt.Sprintf("cugen cannot lay out its definition at %s", c.Def.Pos)
			}
		}
		return t.declare(c.Name, &declType{want: typeName(c), scope: c.Scope, what: "the C++ type " + c.Name,
			size: p.Size, align: p.Align, src: c.Decl, defWhy: why}), nil
	}
	return t.opaque(c.Spelling, camel(c.Spelling), "the C++ type "+c.Spelling, p.Size, p.Align), nil
}

// rtNamed maps CUDA's vector, half and dim3 classes to their rt types.
func (t *typer) rtNamed(c *parse.CType) (goType, bool) {
	if len(c.Scope) > 0 || len(c.Args) > 0 {
		return goType{}, false
	}
	if r, ok := cudaTypes[c.Name]; ok {
		return goType{kind: gkRT, size: r.size, name: r.name}, true
	}
	g, ok := namedRT[c.Name]
	return g, ok
}

// scalarFor is the Go integer (or float) type of a named C++ type the binary
// passes as a PTX scalar, or that the source declares as an enum with a
// fixed underlying type. nvcc passes enums as .uN whatever their sign, so
// without the source the signedness is a guess: unsigned for 1 and 2 bytes
// (an explicit uint8_t/uint16_t base is the common case), signed for 4 and 8
// (int is the default for enum class and for enums with negative values).
func scalarFor(c *parse.CType, p *parse.Param) (g goType, guess, ok bool) {
	if u := c.Underlying; u != nil {
		if g, ok := cxxBuiltins[u.Unqualified().Name]; ok && (g.kind == gkInt || g.kind == gkBool) {
			return g, false, true
		}
	}
	if p == nil || p.ArrayLen != 0 {
		if c.Enum && p != nil {
			return guessInt(p.Size, false)
		}
		return goType{}, false, false
	}
	// nvcc passes an enum as .uN and an aggregate as .b8[N]; a cubin only
	// gives sizes (cugen calls a 4-byte parameter .b32), and clang uses .bN
	// for integers, so a .bN parameter could be a small struct: keep it opaque.
	pt, isScalar := ptxScalars[p.PTXType]
	if !isScalar || strings.HasPrefix(p.PTXType, "b") {
		if c.Enum {
			return guessInt(p.Size, false)
		}
		return goType{}, false, false
	}
	if pt.kind == gkFloat {
		return pt, false, true // a typedef of float the source did not resolve
	}
	return guessInt(pt.size, strings.HasPrefix(p.PTXType, "s"))
}

func guessInt(size int, signed bool) (goType, bool, bool) {
	names := map[int]string{1: "int8", 2: "int16", 4: "int32", 8: "int64"}
	n, ok := names[size]
	if !ok {
		return goType{}, false, false
	}
	if !signed && size <= 2 {
		return goType{kind: gkInt, size: size, name: "u" + n}, true, true
	}
	return goType{kind: gkInt, size: size, signed: true, name: n}, !signed, true
}

// pointerType maps a pointer: typed where the pointee's Go type is known,
// read-only where the pointee is const, an untyped address otherwise.
func (t *typer) pointerType(c *parse.CType) goType {
	e, ok := t.elemType(c.Elem)
	if !ok {
		return devPtr
	}
	if c.Elem.Const {
		return goType{kind: gkConstPtr, size: 8, elem: &e}
	}
	return goType{kind: gkPtr, size: 8, elem: &e}
}

// elemType is a pointee's Go type, when cugen knows its size.
func (t *typer) elemType(e *parse.CType) (goType, bool) {
	switch e.Kind {
	case parse.CBuiltin:
		g, ok := cxxBuiltins[e.Name]
		return g, ok
	case parse.CPointer:
		return t.pointerType(e), true
	case parse.CNamed:
		if m, ok := t.mapped[e.Name]; ok {
			t.used[m] = true
			return goType{kind: gkMapped, size: int(m.Size), name: m.Name, mapped: m}, true
		}
		if g, ok := t.rtNamed(e); ok {
			return g, true
		}
		if d, ok := t.decls[e.Name]; ok {
			return d.goType(), true
		}
		if s, _, ok := scalarFor(e, nil); ok {
			u := e.Unqualified()
			return t.declare(u.Name, &declType{want: typeName(u), scope: u.Scope, what: "the C++ enum " + u.Name,
				size: s.size, align: s.size, scalar: &s, src: u.Decl}), true
		}
		if e.Enum {
			// An enum without a fixed type: int, as nvcc makes it.
			u := e.Unqualified()
			s := cxxBuiltins["int"]
			return t.declare(u.Name, &declType{want: typeName(u), scope: u.Scope, what: "the C++ enum " + u.Name,
				size: s.size, align: s.size, scalar: &s, src: u.Decl}), true
		}
		if size, align, ok := t.layout(e, 0); ok && e.Def != nil {
			// A class the source defines (cugen -src): its layout from its
			// members.
			return t.declareClass(e, size, align), true
		}
	}
	return goType{}, false
}

// maxLayoutDepth bounds the nesting of members layout follows.
const maxLayoutDepth = 64

// layout is a C++ type's size and alignment, as nvcc lays it out for
// 64-bit Linux: builtins and pointers by their width, CUDA's vector types
// by CUDA's rules, -type mappings by the Go type's (checked), and classes
// from their definition's members (cugen -src), in order, each at the next
// offset its alignment allows, the size rounded up to the largest
// alignment (alignas included); a union is as large as its largest member.
// ok is false where cugen does not know (a class with no definition, a
// base class, a bit-field).
func (t *typer) layout(c *parse.CType, depth int) (size, align int, ok bool) {
	if c == nil || depth > maxLayoutDepth {
		return 0, 0, false
	}
	c = c.Unqualified()
	switch c.Kind {
	case parse.CBuiltin:
		if g, ok := cxxBuiltins[c.Name]; ok && c.Name != "decltype(nullptr)" {
			return g.size, g.size, true
		}
	case parse.CPointer:
		return 8, 8, true
	case parse.CNamed:
		if m, ok := t.mapped[c.Name]; ok {
			return int(m.Size), int(m.Align), true
		}
		if len(c.Scope) == 0 && len(c.Args) == 0 {
			if r, ok := cudaTypes[c.Name]; ok {
				return r.size, r.align, true
			}
		}
		if c.Enum {
			size := 4
			if u := c.Underlying; u != nil {
				if g, ok := cxxBuiltins[u.Unqualified().Name]; ok {
					size = g.size
				}
			}
			return size, size, true
		}
		d := c.Def
		if d == nil || d.Opaque != "" {
			return 0, 0, false
		}
		off, align := 0, max(d.AlignAs, 1)
		for _, f := range d.Fields {
			s, a, ok := t.layout(f.Type, depth+1)
			if !ok {
				return 0, 0, false
			}
			n, ok := count(f.Dims)
			if !ok || s > 0 && n > (1<<40)/s {
				return 0, 0, false
			}
			a = max(a, f.AlignAs)
			align = max(align, a)
			if d.Union {
				off = max(off, s*n)
			} else {
				off = alignUp(off, a) + s*n
			}
		}
		// An empty class is one byte: C++ gives every object an address of its own.
		return alignUp(max(off, 1), align), align, true
	}
	return 0, 0, false
}

// count is the number of elements of an array of dims (1 for a scalar).
func count(dims []int) (int, bool) {
	n := 1
	for _, d := range dims {
		if d <= 0 || n > (1<<40)/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// globalType is a variable's element Go type and element count: the type
// its -src declaration gives, where cugen knows the type's layout and the
// binary's size agrees, else the PTX's element width (bytes from a cubin).
// note says why a declaration went unused.
func (t *typer) globalType(g *parse.Global) (elem goType, n int, note string) {
	if g.CType != nil {
		e, ok := t.elemType(g.CType.Unqualified())
		if k, kok := count(g.Dims); ok && kok && e.size > 0 && e.size*k == g.Size {
			return e, k, ""
		}
		if k, kok := count(g.Dims); ok && kok {
			note = fmt.Sprintf("its declaration at %s is %s, the binary's %d", g.Decl, plural(e.size*k, "byte"), g.Size)
		} else {
			note = fmt.Sprintf("cugen does not know the layout of %s, its type at %s", g.CType, g.Decl)
		}
	}
	elem, ok := ptxScalars[g.PTXType]
	if !ok || elem.size != g.ElemSize {
		elem = goType{kind: gkInt, size: 1, name: "uint8"}
	}
	return elem, g.Size / elem.size, note
}

// declare returns the type declared for key, declaring d if there is none.
// Its Go name is given later, with every other type's (newPlan).
func (t *typer) declare(key string, d *declType) goType {
	if old, ok := t.decls[key]; ok {
		return old.goType()
	}
	d.key = key
	t.decls[key] = d
	return d.goType()
}

func (t *typer) opaque(key, want, what string, size, align int) goType {
	return t.declare(key, &declType{want: want, what: what, size: size, align: align})
}

func (d *declType) goType() goType {
	return goType{kind: gkDecl, size: d.size, decl: d}
}

// declared lists the declared types by key, to be named.
func (t *typer) declared() []*declType {
	var out []*declType
	for _, d := range t.decls {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// spelling is the type as a string, for doc comments.
func (g goType) spelling() string {
	switch g.kind {
	case gkPtr:
		return "rt.Ptr[" + g.elem.spelling() + "]"
	case gkConstPtr:
		return "rt.ConstPtr[" + g.elem.spelling() + "]"
	case gkDevPtr, gkRT:
		return "rt." + g.name
	case gkMapped:
		return g.mapped.goSpelling()
	case gkDecl:
		return g.decl.name
	}
	return g.name
}

func (t *typer) sortedDecls() []*declType {
	var out []*declType
	for _, d := range t.decls {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (t *typer) sortedMappings() []*TypeMapping {
	var out []*TypeMapping
	for m := range t.used {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CName < out[j].CName })
	return out
}

func plural(n int, s string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, s)
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// rtType is a CUDA type that package rt encodes (cudatypes.go lists them).
type rtType struct {
	name        string // the rt type
	size, align int    // CUDA's layout
}
