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
}

func (t *CType) String() string { return t.Spelling }

// TemplateArg is a type or a value template argument.
type TemplateArg struct {
	Type  *CType // nil for a value
	Value string // the literal's value ("4", "-1", "true") for a non-type argument
}

func (a TemplateArg) String() string {
	if a.Type != nil {
		return a.Type.Spelling
	}
	return a.Value
}

// Signature is what a mangled kernel name says about the kernel.
type Signature struct {
	Pretty       string   // the whole demangled name, "void ns::k<float>(float*, int)"
	Scope        []string // enclosing namespaces and classes, outermost first ("(anonymous namespace)" included)
	Base         string   // the unqualified name ("k")
	TemplateArgs []TemplateArg
	Params       []*CType

	// From a CUDA source (cugen -src), when the kernel's prototype is found
	// there; a mangled name carries neither.
	ParamNames []string // one per parameter, "" where the source names none
	ExternC    bool     // the kernel is extern "C": its types come from the source alone
	Source     string   // where the prototype is, "file:line:col"
}

// ErrNotMangled is returned by Demangle for extern "C" names.
var ErrNotMangled = errors.New("not a mangled C++ name")

// Demangle recovers a kernel's C++ signature from its Itanium-mangled name.
func Demangle(mangled string) (*Signature, error) {
	ast, err := demangle.ToAST(mangled)
	if err != nil {
		if errors.Is(err, demangle.ErrNotMangledName) {
			return nil, ErrNotMangled
		}
		return nil, fmt.Errorf("demangling %s: %v", mangled, err)
	}
	typed, ok := ast.(*demangle.Typed)
	if !ok {
		return nil, fmt.Errorf("demangling %s: not a function name (%T)", mangled, ast)
	}
	fn, ok := typed.Type.(*demangle.FunctionType)
	if !ok {
		return nil, fmt.Errorf("demangling %s: not a function type (%T)", mangled, typed.Type)
	}
	sig := &Signature{Pretty: demangle.ASTToString(ast)}
	if err := nameParts(typed.Name, sig); err != nil {
		return nil, fmt.Errorf("demangling %s: %v", mangled, err)
	}
	for _, a := range fn.Args {
		t, err := cType(a)
		if err != nil {
			return nil, fmt.Errorf("demangling %s: %v", mangled, err)
		}
		if t.Kind == CBuiltin && t.Name == "void" && len(fn.Args) == 1 {
			break // f(void)
		}
		sig.Params = append(sig.Params, t)
	}
	return sig, nil
}

// nameParts splits a (possibly qualified, possibly templated) function name.
func nameParts(n demangle.AST, sig *Signature) error {
	switch n := n.(type) {
	case *demangle.Name:
		sig.Base = n.Name
	case *demangle.Qualified:
		sig.Scope = append(sig.Scope, scopeNames(n.Scope)...)
		return nameParts(n.Name, sig)
	case *demangle.Template:
		if err := nameParts(n.Name, sig); err != nil {
			return err
		}
		for _, a := range n.Args {
			ta, err := templateArg(a)
			if err != nil {
				return err
			}
			sig.TemplateArgs = append(sig.TemplateArgs, ta)
		}
	case *demangle.Clone:
		return nameParts(n.Base, sig)
	case *demangle.TaggedName:
		return nameParts(n.Name, sig)
	default:
		sig.Base = demangle.ASTToString(n)
	}
	return nil
}

func scopeNames(n demangle.AST) []string {
	if q, ok := n.(*demangle.Qualified); ok {
		return append(scopeNames(q.Scope), scopeNames(q.Name)...)
	}
	return []string{demangle.ASTToString(n)}
}

func templateArg(a demangle.AST) (TemplateArg, error) {
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
		return TemplateArg{Value: v}, nil
	case *demangle.ArgumentPack:
		var parts []string
		for _, e := range a.Args {
			ta, err := templateArg(e)
			if err != nil {
				return TemplateArg{}, err
			}
			parts = append(parts, ta.String())
		}
		return TemplateArg{Value: strings.Join(parts, ", ")}, nil
	}
	t, err := cType(a)
	if err != nil {
		return TemplateArg{}, err
	}
	if t.Kind == COther {
		return TemplateArg{Value: t.Spelling}, nil
	}
	return TemplateArg{Type: t}, nil
}

func cType(a demangle.AST) (*CType, error) {
	t := &CType{Spelling: demangle.ASTToString(a)}
	switch a := a.(type) {
	case *demangle.BuiltinType:
		t.Kind, t.Name = CBuiltin, a.Name
	case *demangle.BinaryFP: // _Float16, _Float32, ...
		t.Kind, t.Name = CBuiltin, t.Spelling
	case *demangle.PointerType:
		e, err := cType(a.Base)
		if err != nil {
			return nil, err
		}
		t.Kind, t.Elem = CPointer, e
	case *demangle.TypeWithQualifiers:
		b, err := cType(a.Base)
		if err != nil {
			return nil, err
		}
		*t = *b
		t.Spelling = demangle.ASTToString(a)
		if qs, ok := a.Qualifiers.(*demangle.Qualifiers); ok {
			for _, q := range qs.Qualifiers {
				if q, ok := q.(*demangle.Qualifier); ok {
					switch q.Name {
					case "const":
						t.Const = true
					case "volatile":
						t.Volatile = true
					case "restrict", "__restrict":
						t.Restrict = true
					}
				}
			}
		}
	case *demangle.Name:
		t.Kind, t.Name, t.Base = CNamed, a.Name, a.Name
	case *demangle.Qualified:
		t.Kind, t.Name = CNamed, t.Spelling
		t.Scope = scopeNames(a.Scope)
		inner, err := cType(a.Name)
		if err != nil {
			return nil, err
		}
		t.Base, t.Args = inner.Base, inner.Args
	case *demangle.Template:
		inner, err := cType(a.Name)
		if err != nil {
			return nil, err
		}
		t.Kind, t.Name, t.Base, t.Scope = CNamed, t.Spelling, inner.Base, inner.Scope
		for _, x := range a.Args {
			ta, err := templateArg(x)
			if err != nil {
				return nil, err
			}
			t.Args = append(t.Args, ta)
		}
	case *demangle.ElaboratedType:
		inner, err := cType(a.Type)
		if err != nil {
			return nil, err
		}
		*t = *inner
	default:
		t.Kind = COther
	}
	return t, nil
}

// The constructors below build the CTypes of declarations read from CUDA
// source (parse/csrc), spelled as the demangler spells mangled ones, so that
// both print and compare alike.

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
		b.WriteString("<" + strings.Join(parts, ", ") + ">")
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
