package parse

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// CKind says what a C++ type is.
type CKind uint8

const (
	CBuiltin CKind = iota // int, float, unsigned long, ...
	CPointer              // T*
	CNamed                // a class, struct, union or enum: layout unknown to the mangled name
	COther                // anything else (references, member pointers, ...)
)

// CType is a C++ parameter or template-argument type recovered from a mangled name.
type CType struct {
	Kind     CKind
	Name     string // builtin name ("unsigned int") or qualified class name ("ns::Pair<float>")
	Base     string // unqualified class name without template arguments ("Pair")
	Scope    []string
	Args     []TemplateArg // template arguments of a class template
	Elem     *CType        // pointee of a CPointer
	Const    bool
	Volatile bool
	Restrict bool
	Spelling string // the type as C++ prints it

	// What a CUDA source (cugen -src) declares about a CNamed type; a mangled
	// name cannot tell an enum from a class.
	Enum       bool   // declared as an enum
	Underlying *CType // the enum's underlying integer type, when the source fixes it
	Decl       string // where it is declared, "file:line:col"
	// Def is the class's definition in a CUDA source (cugen -src): its data
	// members, from which gen computes its layout. nil when no source
	// defines it.
	Def *ClassDef
	// Typedef is, for a builtin, the CUDA handle typedef a source spells it
	// with (cugen -src): cudaTextureObject_t, cudaSurfaceObject_t,
	// CUtexObject or CUsurfObject, all unsigned long long. A mangled name
	// resolves typedefs ("y"), so only a source tells a handle from a
	// number.
	Typedef string
}

// ClassDef is what a class, struct or union definition says about the
// class's layout: its data members in order.
type ClassDef struct {
	Union   bool
	AlignAs int // alignas(N) or __align__(N) on the class; 0 when none
	Fields  []Field
	// Opaque says why the members do not give the layout (a base class, a
	// bit-field, virtual functions, a member cugen cannot read); "" when
	// they do.
	Opaque string
	Pos    string // where it is defined, "file:line:col"
}

// Field is one data member: Type, or an array of Dims of it.
type Field struct {
	Name    string
	Type    *CType
	Dims    []int // array extents, outermost first; nil for a scalar
	AlignAs int   // alignas(N) on the member; 0 when none
}

func (t *CType) String() string { return t.Spelling }

// TemplateArg is a type or a value template argument, or an argument pack.
type TemplateArg struct {
	Type  *CType // nil for a value or a pack
	Value string // the literal's value ("4", "-1", "true") for a non-type argument
	// Pack says the argument is a template parameter pack's (J…E in the
	// mangled name): Elems are its arguments, none for an empty pack.
	Pack  bool
	Elems []TemplateArg
}

func (a TemplateArg) String() string {
	switch {
	case a.Pack:
		parts := make([]string, len(a.Elems))
		for i, e := range a.Elems {
			parts[i] = e.String()
		}
		return strings.Join(parts, ", ")
	case a.Type != nil:
		return a.Type.Spelling
	}
	return a.Value
}

// Flatten expands argument packs in place: vk<int, float>'s one pack
// argument becomes two arguments.
func Flatten(args []TemplateArg) []TemplateArg {
	var out []TemplateArg
	for _, a := range args {
		if a.Pack {
			out = append(out, Flatten(a.Elems)...)
		} else {
			out = append(out, a)
		}
	}
	return out
}

// Signature is what a mangled kernel name says about the kernel.
type Signature struct {
	Pretty       string   // the whole demangled name, "void ns::k<float>(float*, int)"
	Scope        []string // enclosing namespaces and classes, outermost first ("(anonymous namespace)" included)
	Base         string   // the unqualified name ("k")
	TemplateArgs []TemplateArg
	// Params are the parameters as the kernel receives them: a pack
	// expansion (Ts... xs, mangled DpT_) contributes one per element.
	Params []*CType
	// PackSizes has one entry per parameter as the function template
	// declares it: -1 for a plain parameter, the number of Params it expands
	// to for a pack expansion (0 for an empty pack). It is nil when the
	// signature has no pack expansion.
	PackSizes []int

	// From a CUDA source (cugen -src), when the kernel's prototype is found
	// there; a mangled name carries neither.
	ParamNames []string // one per parameter, "" where the source names none
	ExternC    bool     // the kernel is extern "C": its types come from the source alone
	Source     string   // where the prototype is, "file:line:col"
	Doc        string   // the prototype's doc comment (its text, markers removed)
}

// ErrNotMangled is returned by Demangle for extern "C" names.
var ErrNotMangled = errors.New("not a mangled C++ name")

// The limits Demangle enforces, so that a hostile name costs bounded time
// and memory. Real kernel names are far below them: CUTLASS's longest are a
// few KB, nested a few dozen levels.
const (
	// MaxNameLen is the longest mangled name Demangle reads.
	MaxNameLen = 64 << 10
	// MaxNesting is the deepest nesting of types, template arguments and
	// expressions Demangle accepts.
	MaxNesting = 256
	// maxPrettyPow bounds the demangled text: 2^18 bytes. Substitutions let
	// a short name stand for an exponentially long one.
	maxPrettyPow = 18
	// maxTypeText bounds the bytes of every type's Name and Spelling built
	// for one name together.
	maxTypeText = 4 << 20
)

// Demangle recovers a kernel's C++ signature from its Itanium-mangled name.
//
// Its cost is linear in the name's length: the demangler's parse and one
// visit of every distinct node of its syntax DAG (substitutions share
// nodes, and so do the CTypes built from them); each type's text is built
// once, from its parts' (in all at most maxTypeText bytes). Names over
// MaxNameLen, nested deeper than MaxNesting or demangling to more than
// 256 KiB are errors.
func Demangle(mangled string) (*Signature, error) {
	sig, _, err := demangleCounted(mangled)
	return sig, err
}

// demangleCounted is Demangle, also returning the work done, the syntax
// nodes visited, for tests of the bound.
func demangleCounted(mangled string) (*Signature, int, error) {
	if !strings.HasPrefix(mangled, "_Z") {
		return nil, 0, ErrNotMangled
	}
	fail := func(err error) (*Signature, int, error) {
		return nil, 0, &DemangleError{Name: mangled, Err: err}
	}
	if len(mangled) > MaxNameLen {
		return fail(fmt.Errorf("the name is %d bytes, over cugen's limit of %d", len(mangled), MaxNameLen))
	}
	ast, err := demangle.ToAST(mangled)
	if err != nil {
		if errors.Is(err, demangle.ErrNotMangledName) {
			return nil, 0, ErrNotMangled
		}
		return fail(err)
	}
	d := &demangler{memo: map[demangle.AST]*CType{}}
	if err := d.checkNesting(ast); err != nil {
		return fail(err)
	}
	typed, ok := ast.(*demangle.Typed)
	if !ok {
		return fail(fmt.Errorf("not a function name (%T)", ast))
	}
	fn, ok := typed.Type.(*demangle.FunctionType)
	if !ok {
		return fail(fmt.Errorf("not a function type (%T)", typed.Type))
	}
	sig := &Signature{Pretty: demangle.ASTToString(ast, demangle.MaxLength(maxPrettyPow))}
	if len(sig.Pretty) >= 1<<maxPrettyPow {
		return fail(fmt.Errorf("it demangles to more than %d bytes", 1<<maxPrettyPow))
	}
	if err := d.nameParts(typed.Name, sig); err != nil {
		return fail(err)
	}
	packs := false
	for _, a := range fn.Args {
		if el, ok := a.(*demangle.ExprList); ok {
			// The demangler expands a pack expansion (Dp…) into the list
			// of its instances: one parameter each.
			packs = true
			sig.PackSizes = append(sig.PackSizes, len(el.Exprs))
			for _, e := range el.Exprs {
				t, err := d.typ(e)
				if err != nil {
					return fail(err)
				}
				sig.Params = append(sig.Params, t)
			}
			continue
		}
		if _, ok := a.(*demangle.PackExpansion); ok {
			return fail(fmt.Errorf("a parameter pack expansion whose pack is unknown"))
		}
		t, err := d.typ(a)
		if err != nil {
			return fail(err)
		}
		if t.Kind == CBuiltin && t.Name == "void" && len(fn.Args) == 1 {
			break // f(void)
		}
		sig.Params = append(sig.Params, t)
		sig.PackSizes = append(sig.PackSizes, -1)
	}
	if !packs {
		sig.PackSizes = nil
	}
	return sig, d.nodes, nil
}

// A DemangleError is a mangled name cugen cannot read; its message shows
// the name abbreviated.
type DemangleError struct {
	Name string // the whole mangled name
	Err  error
}

func (e *DemangleError) Error() string {
	return "demangling " + ShortName(e.Name) + ": " + e.Err.Error()
}
func (e *DemangleError) Unwrap() error { return e.Err }

// DemangleName is a mangled variable's (or any symbol's) qualified name,
// "ns::table" for _ZN2ns5tableE; a name that is not mangled, or that does
// not demangle within Demangle's limits, is returned as it is.
func DemangleName(symbol string) string {
	if !strings.HasPrefix(symbol, "_Z") || len(symbol) > MaxNameLen {
		return symbol
	}
	ast, err := demangle.ToAST(symbol)
	if err != nil {
		return symbol
	}
	if err := (&demangler{}).checkNesting(ast); err != nil {
		return symbol
	}
	s := demangle.ASTToString(ast, demangle.MaxLength(maxPrettyPow))
	if len(s) >= 1<<maxPrettyPow {
		return symbol
	}
	return s
}

// ShortName abbreviates a name for messages: a name of more than 200 bytes
// keeps its first 120 and last 40, with its length.
func ShortName(s string) string {
	const head, tail = 120, 40
	if len(s) <= 200 {
		return s
	}
	h, t := head, len(s)-tail
	for h > 0 && !runeStart(s[h]) {
		h--
	}
	for t < len(s) && !runeStart(s[t]) {
		t++
	}
	return fmt.Sprintf("%s…%s (%d bytes)", s[:h], s[t:], len(s))
}

func runeStart(b byte) bool { return b&0xc0 != 0x80 }

// demangler turns one name's syntax DAG into CTypes, each node once.
type demangler struct {
	memo  map[demangle.AST]*CType
	depth int // nesting of the conversion in progress
	nodes int // AST nodes converted
	text  int // bytes of Name and Spelling built
}

var (
	errTooDeep = fmt.Errorf("nested more than %d levels deep", MaxNesting)
	errTooLong = fmt.Errorf("its types' text exceeds %d bytes", maxTypeText)
)

// checkNesting bounds the depth of the whole syntax DAG, the parts cugen
// reads and those it only prints alike, before anything walks or prints it.
// Each distinct node is visited once.
func (d *demangler) checkNesting(root demangle.AST) error {
	height := map[demangle.AST]int{}
	var visit func(a demangle.AST, depth int) (int, error)
	visit = func(a demangle.AST, depth int) (int, error) {
		if h, ok := height[a]; ok {
			if depth+h > MaxNesting {
				return 0, errTooDeep
			}
			return h, nil
		}
		if depth > MaxNesting {
			return 0, errTooDeep
		}
		d.nodes++
		var kids []demangle.AST
		a.Traverse(func(c demangle.AST) bool {
			if c == a {
				return true
			}
			kids = append(kids, c)
			return false
		})
		if tp, ok := a.(*demangle.TemplateParam); ok && tp.Template != nil && tp.Index < len(tp.Template.Args) {
			kids = append(kids, tp.Template.Args[tp.Index]) // printed in its place
		}
		h := 0
		for _, k := range kids {
			kh, err := visit(k, depth+1)
			if err != nil {
				return 0, err
			}
			h = max(h, kh+1)
		}
		height[a] = h
		return h, nil
	}
	_, err := visit(root, 0)
	return err
}

// built accounts for n bytes of new type text.
func (d *demangler) built(n int) error {
	d.text += n
	if d.text > maxTypeText {
		return errTooLong
	}
	return nil
}

// nameParts splits a (possibly qualified, possibly templated) function name.
func (d *demangler) nameParts(n demangle.AST, sig *Signature) error {
	switch n := n.(type) {
	case *demangle.Name:
		sig.Base = n.Name
	case *demangle.Qualified:
		scope, err := d.scopeNames(n.Scope)
		if err != nil {
			return err
		}
		sig.Scope = append(sig.Scope, scope...)
		return d.nameParts(n.Name, sig)
	case *demangle.Template:
		if err := d.nameParts(n.Name, sig); err != nil {
			return err
		}
		for _, a := range n.Args {
			ta, err := d.templateArg(a)
			if err != nil {
				return err
			}
			sig.TemplateArgs = append(sig.TemplateArgs, ta)
		}
	case *demangle.Clone:
		return d.nameParts(n.Base, sig)
	case *demangle.TaggedName:
		return d.nameParts(n.Name, sig)
	default:
		sig.Base = demangle.ASTToString(n, demangle.MaxLength(maxPrettyPow))
		return d.built(len(sig.Base))
	}
	return nil
}

// scopeNames lists a scope's components, outermost first.
func (d *demangler) scopeNames(n demangle.AST) ([]string, error) {
	if q, ok := n.(*demangle.Qualified); ok {
		outer, err := d.scopeNames(q.Scope)
		if err != nil {
			return nil, err
		}
		inner, err := d.scopeNames(q.Name)
		return append(outer, inner...), err
	}
	t, err := d.typ(n)
	if err != nil {
		return nil, err
	}
	return []string{t.Spelling}, nil
}

func (d *demangler) templateArg(a demangle.AST) (TemplateArg, error) {
	switch a := a.(type) {
	case *demangle.Literal:
		v := a.Val
		if a.Neg {
			v = "-" + v
		}
		if bt, ok := a.Type.(*demangle.BuiltinType); ok && bt.Name == "bool" {
			if v == "0" {
				v = "false"
			} else {
				v = "true"
			}
		}
		return TemplateArg{Value: v}, d.built(len(v))
	case *demangle.ArgumentPack:
		pack := TemplateArg{Pack: true}
		for _, e := range a.Args {
			// Tuple<A...> inside another template: the expansion is an
			// ExprList of the pack's instances.
			elems := []demangle.AST{e}
			if el, ok := e.(*demangle.ExprList); ok {
				elems = el.Exprs
			}
			for _, x := range elems {
				ta, err := d.templateArg(x)
				if err != nil {
					return TemplateArg{}, err
				}
				pack.Elems = append(pack.Elems, ta)
			}
		}
		return pack, nil
	}
	t, err := d.typ(a)
	if err != nil {
		return TemplateArg{}, err
	}
	if t.Kind == COther {
		return TemplateArg{Value: t.Spelling}, nil
	}
	return TemplateArg{Type: t}, nil
}

// typ converts a type node, once per node: substitutions make a name a DAG,
// and its CTypes share nodes as it does.
func (d *demangler) typ(a demangle.AST) (*CType, error) {
	if t, ok := d.memo[a]; ok {
		return t, nil
	}
	if d.depth >= MaxNesting {
		return nil, errTooDeep
	}
	d.depth++
	defer func() { d.depth-- }()
	d.nodes++
	t, err := d.convert(a)
	if err != nil {
		return nil, err
	}
	if err := d.built(len(t.Spelling) + len(t.Name)); err != nil {
		return nil, err
	}
	d.memo[a] = t
	return t, nil
}

func (d *demangler) convert(a demangle.AST) (*CType, error) {
	switch a := a.(type) {
	case *demangle.BuiltinType:
		return NewBuiltin(a.Name), nil
	case *demangle.BinaryFP: // _Float16, _Float32, ...
		return NewBuiltin(demangle.ASTToString(a)), nil
	case *demangle.PointerType:
		e, err := d.typ(a.Base)
		if err != nil {
			return nil, err
		}
		return NewPointer(e), nil
	case *demangle.TypeWithQualifiers:
		b, err := d.typ(a.Base)
		if err != nil {
			return nil, err
		}
		if b.Kind == COther {
			return d.other(a), nil
		}
		var isConst, isVolatile, isRestrict bool
		if qs, ok := a.Qualifiers.(*demangle.Qualifiers); ok {
			for _, q := range qs.Qualifiers {
				if q, ok := q.(*demangle.Qualifier); ok {
					switch q.Name {
					case "const":
						isConst = true
					case "volatile":
						isVolatile = true
					case "restrict", "__restrict":
						isRestrict = true
					}
				}
			}
		}
		return b.Qualified(isConst, isVolatile, isRestrict), nil
	case *demangle.Name:
		return NewNamed(nil, a.Name, nil), nil
	case *demangle.Qualified:
		scope, err := d.scopeNames(a.Scope)
		if err != nil {
			return nil, err
		}
		inner, err := d.typ(a.Name)
		if err != nil {
			return nil, err
		}
		if inner.Kind != CNamed {
			return d.other(a), nil
		}
		return NewNamed(append(scope, inner.Scope...), inner.Base, inner.Args), nil
	case *demangle.Template:
		inner, err := d.typ(a.Name)
		if err != nil {
			return nil, err
		}
		if inner.Kind != CNamed {
			return d.other(a), nil
		}
		var args []TemplateArg
		for _, x := range a.Args {
			ta, err := d.templateArg(x)
			if err != nil {
				return nil, err
			}
			args = append(args, ta)
		}
		return NewNamed(inner.Scope, inner.Base, args), nil
	case *demangle.ElaboratedType:
		return d.typ(a.Type)
	}
	return d.other(a), nil
}

// other is a type cugen does not model, kept by its spelling.
func (d *demangler) other(a demangle.AST) *CType {
	return NewOther(demangle.ASTToString(a, demangle.MaxLength(maxPrettyPow)))
}

// The constructors below build the CTypes of declarations read from CUDA
// source (parse/csrc), spelled as the demangler spells mangled ones, so that
// both print and compare alike; the demangler builds its CTypes with them too.

// NewBuiltin is the builtin type name ("unsigned int", "__int128"), spelled
// as the demangler spells it.
func NewBuiltin(name string) *CType {
	return &CType{Kind: CBuiltin, Name: name, Spelling: name}
}

// NewPointer is a pointer to elem.
func NewPointer(elem *CType) *CType {
	t := &CType{Kind: CPointer, Elem: elem}
	t.Spelling = t.spell()
	return t
}

// NewNamed is the class, union or enum base declared in scope (outermost
// first), with template arguments args.
func NewNamed(scope []string, base string, args []TemplateArg) *CType {
	t := &CType{Kind: CNamed, Base: base, Scope: scope, Args: args}
	var b strings.Builder
	for _, s := range scope {
		b.WriteString(s)
		b.WriteString("::")
	}
	b.WriteString(base)
	if len(args) > 0 {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = a.String()
		}
		list := strings.Join(parts, ", ")
		b.WriteString("<" + list)
		if strings.HasSuffix(list, ">") {
			b.WriteByte(' ') // as the demangler prints it: A<B<int> >
		}
		b.WriteByte('>')
	}
	t.Name = b.String()
	t.Spelling = t.spell()
	return t
}

// NewOther is a type cugen does not model (a reference, a function, an
// array), kept by its spelling.
func NewOther(spelling string) *CType {
	return &CType{Kind: COther, Spelling: spelling}
}

// Qualified returns a copy of t with the qualifiers added.
func (t *CType) Qualified(isConst, isVolatile, isRestrict bool) *CType {
	c := *t
	c.Const = c.Const || isConst
	c.Volatile = c.Volatile || isVolatile
	c.Restrict = c.Restrict || isRestrict
	c.Spelling = c.spell()
	return &c
}

// Unqualified returns t without its own qualifiers (a pointee keeps its).
func (t *CType) Unqualified() *CType {
	if !t.Const && !t.Volatile && !t.Restrict {
		return t
	}
	c := *t
	c.Const, c.Volatile, c.Restrict = false, false, false
	c.Spelling = c.spell()
	return &c
}

// spell renders t as the demangler does: "float const*", "Pair<float>".
func (t *CType) spell() string {
	var s string
	switch t.Kind {
	case CBuiltin, CNamed:
		s = t.Name
	case CPointer:
		s = t.Elem.Spelling + "*"
	default:
		return t.Spelling
	}
	if t.Const {
		s += " const"
	}
	if t.Volatile {
		s += " volatile"
	}
	if t.Restrict {
		s += " restrict"
	}
	return s
}
