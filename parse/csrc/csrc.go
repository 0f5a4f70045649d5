// Package csrc reads what cugen needs from CUDA C++ source: the prototypes
// of the __global__ functions, with their parameter names and types, the
// enums, classes and typedefs those types name, the classes' data members,
// and the __device__, __constant__ and __managed__ variables. It preprocesses
// the source as the compiler would (cpp.go: includes, macros, conditionals;
// no toolchain needed), then is a small declaration parser, not a compiler:
// function bodies are skipped by brace matching, and templates are kept only
// as far as matching an instantiation needs.
//
// Types are built as parse.CTypes spelled like demangled ones, so cugen maps a
// prototype's parameters exactly as it maps a mangled name's. Apply attaches
// the prototypes to a parse.Module. Parse never panics; its errors carry
// file:line:col.
package csrc

import (
	"fmt"
	"strings"

	"github.com/cugen/cugen/parse"
)

// File is what one CUDA source file declares, its includes included.
type File struct {
	Name    string
	Kernels []*Kernel
	Enums   []*Enum
	// Vars are the __device__, __constant__ and __managed__ variables.
	Vars []*Var
	// Warnings are what the preprocessor could not follow: quoted includes
	// it did not find.
	Warnings []string
	// Included are the files the #include directives read (beside the
	// including file or in an include directory), in the order first read.
	Included []Included

	decls    map[string]declKind     // qualified name → what it is
	typedefs map[string]*parse.CType // qualified name → the type it names
	enums    map[string]*Enum
	classes  map[string]*class // qualified name → its definition
}

// Included is a file an #include read: its path, as the preprocessor
// found it, and its contents.
type Included struct {
	Path string
	Data []byte
}

type declKind uint8

const (
	declClass declKind = iota + 1
	declEnum
	declTypedef
)

// Kernel is one __global__ function declaration or definition.
type Kernel struct {
	Name    string   // unqualified
	Scope   []string // enclosing namespaces, "(anonymous namespace)" for an anonymous one
	ExternC bool
	// Template is set for a function template; TemplateParams are its
	// parameters, and parameter types may name them.
	Template       bool
	TemplateParams []TemplateParam
	// SpecArgs are an explicit specialization's template arguments
	// (template<> __global__ void k<float>(float*)).
	SpecArgs []parse.TemplateArg
	Params   []Param
	Pos      Pos // the kernel's name
	Body     bool
	// Doc is the declaration's doc comment, markers removed: the comment
	// group that ends on the line before it ("" when none).
	Doc string
}

// TemplateParam is one parameter of a function template.
type TemplateParam struct {
	Name string
	Type bool // typename T / class T (a value parameter otherwise)
	Pack bool // T...
}

// Param is one kernel parameter.
type Param struct {
	Name string       // "" when unnamed
	Type *parse.CType // nil when the declaration is beyond this parser (see Text)
	Text string       // the declaration as written, default argument dropped
	Pos  Pos
	// Pack says the parameter is a pack expansion (Ts... xs): Type is its
	// pattern, which names a template parameter pack.
	Pack bool
}

// Enum is an enum declaration.
type Enum struct {
	Name       string // qualified
	Scoped     bool   // enum class / enum struct
	Underlying *parse.CType
	Pos        Pos
}

// QualifiedName is the kernel's name with its namespaces.
func (k *Kernel) QualifiedName() string {
	return strings.Join(append(append([]string(nil), k.Scope...), k.Name), "::")
}

// Signature renders the prototype as C++ with demangler-style types.
func (k *Kernel) Signature() string {
	ps := make([]string, len(k.Params))
	for i, p := range k.Params {
		t := p.Text
		if p.Type != nil {
			t = p.Type.Unqualified().Spelling // as in a function type
			if p.Pack {
				t += "..."
			}
			if p.Name != "" {
				t += " " + p.Name
			}
		}
		ps[i] = t
	}
	name := k.QualifiedName()
	if k.ExternC {
		name = `extern "C" ` + name
	}
	return name + "(" + strings.Join(ps, ", ") + ")"
}

// scope is one level of the brace nesting.
type scope struct {
	kind  scopeKind
	names []string // the namespace or class names it adds to qualified names
	class *class   // a class scope's definition, which its members fill
}

type scopeKind uint8

const (
	scopeNamespace scopeKind = iota + 1 // a namespace, or the file itself
	scopeExternC                        // extern "C" { ... }
	scopeClass
	scopeOther // a function body, an initializer, an enum body
)

type parser struct {
	f     *File
	toks  []token
	stack []scope
}

// Parse reads one CUDA source file, following no #include.
func Parse(name string, src []byte) (*File, error) {
	return ParseWith(name, src, Options{})
}

// ParseWith reads one CUDA source file, preprocessed as opts say.
func ParseWith(name string, src []byte, opts Options) (*File, error) {
	toks, missing, read, err := preprocess(name, src, opts)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name, Warnings: missing, Included: read, decls: map[string]declKind{}, typedefs: map[string]*parse.CType{},
		enums: map[string]*Enum{}, classes: map[string]*class{}}
	p := &parser{f: f, toks: toks, stack: []scope{{kind: scopeNamespace}}}
	if err := p.run(); err != nil {
		return nil, err
	}
	return f, nil
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return &Error{Pos: t.pos, Msg: fmt.Sprintf(format, args...)}
}

// path is the qualified name prefix of the current scope.
func (p *parser) path() []string {
	var out []string
	for _, s := range p.stack {
		out = append(out, s.names...)
	}
	return out
}

// atDeclScope reports whether a declaration here could be a kernel: at file,
// namespace or extern "C" scope, not in a class or a body.
func (p *parser) atDeclScope() bool {
	k := p.stack[len(p.stack)-1].kind
	return k == scopeNamespace || k == scopeExternC
}

func (p *parser) inExternC() bool {
	for _, s := range p.stack {
		if s.kind == scopeExternC {
			return true
		}
	}
	return false
}

func (p *parser) run() error {
	start := 0
	for i := 0; i < len(p.toks); {
		t := p.toks[i]
		switch {
		case t.is("{") && p.initializer(p.toks[start:i]):
			// int lut[4] = {1, 2}; Cell c{1, 2, 3}: part of the statement.
			_, n, ok := balanced(p.toks, i, "{", "}")
			if !ok {
				return &Error{Pos: t.pos, Msg: "unexpected end of file: a '{' is not closed"}
			}
			i = n
		case t.is("{"):
			p.stack = append(p.stack, p.classify(p.toks[start:i]))
			i++
			start = i
		case t.is("}"):
			if len(p.stack) == 1 {
				return p.errorf(t, "unbalanced '}'")
			}
			p.stack = p.stack[:len(p.stack)-1]
			i++
			start = i
		case t.is(";"):
			if p.atDeclScope() {
				p.statement(p.toks[start:i])
			} else if c := p.stack[len(p.stack)-1].class; c != nil {
				p.member(c, p.toks[start:i])
			}
			i++
			start = i
		case t.is("__global__") && p.atDeclScope():
			end, err := p.kernel(start, i)
			if err != nil {
				return err
			}
			i = end
		default:
			i++
		}
	}
	if len(p.stack) > 1 {
		return &Error{Pos: p.endPos(), Msg: "unexpected end of file: a '{' is not closed"}
	}
	return nil
}

func (p *parser) endPos() Pos {
	if len(p.toks) == 0 {
		return Pos{Filename: p.f.Name, Line: 1, Column: 1}
	}
	return p.toks[len(p.toks)-1].pos
}

// classify says what a '{' opens from the tokens of its statement.
func (p *parser) classify(stmt []token) scope {
	stmt = skipAttrs(stmt)
	if len(stmt) == 0 {
		return scope{kind: scopeOther}
	}
	if stmt[0].is("inline") && len(stmt) > 1 && stmt[1].is("namespace") {
		stmt = stmt[1:]
	}
	if stmt[0].is("namespace") && p.atDeclScope() {
		var names []string
		for _, t := range stmt[1:] {
			switch {
			case t.kind == tIdent && t.text != "inline":
				names = append(names, t.text)
			case t.is("::"), t.is("inline"):
			default:
				return scope{kind: scopeOther} // namespace N = ... or attributes: not a scope we track
			}
		}
		if len(names) == 0 {
			names = []string{"(anonymous namespace)"}
		}
		return scope{kind: scopeNamespace, names: names}
	}
	if len(stmt) == 2 && stmt[0].is("extern") && stmt[1].kind == tString {
		if stmt[1].text == `"C"` {
			return scope{kind: scopeExternC}
		}
		return scope{kind: scopeNamespace} // extern "C++" { ... }
	}
	var tparams []TemplateParam
	if stmt[0].is("template") {
		if inner, n, ok := balanced(stmt, 1, "<", ">"); ok {
			stmt = stmt[n:]
			tparams = templateParams(inner)
		}
	}
	if len(stmt) > 0 && stmt[0].is("typedef") {
		stmt = stmt[1:]
	}
	if len(stmt) > 0 && stmt[0].is("enum") {
		if p.stack[len(p.stack)-1].kind != scopeOther {
			p.enum(stmt, true)
		}
		return scope{kind: scopeOther}
	}
	if len(stmt) >= 1 && (stmt[0].is("struct") || stmt[0].is("class") || stmt[0].is("union")) {
		alignas := alignAs(stmt[1:])
		rest := skipAttrs(stmt[1:])
		// struct Name [final] [: bases] {, not struct Name var = {.
		if len(rest) > 0 && rest[0].kind == tIdent && (len(rest) == 1 || rest[1].is(":") || rest[1].is("final") || rest[1].is("<")) {
			name := rest[0].text
			sc := scope{kind: scopeClass, names: []string{name}}
			if p.stack[len(p.stack)-1].kind != scopeOther {
				q := p.declare(name, declClass)
				c := &class{def: &parse.ClassDef{Union: stmt[0].is("union"), AlignAs: alignas, Pos: rest[0].pos.String()}}
				for _, tp := range tparams {
					c.params = append(c.params, tp.Name)
				}
				if len(rest) > 1 && !rest[1].is("<") && indexTop(rest, ":") > 0 {
					c.def.Opaque = "it has a base class"
				}
				if len(rest) > 1 && rest[1].is("<") {
					c.def.Opaque = "it is a partial specialization" // its members are not the template's
				}
				if _, dup := p.f.classes[q]; !dup {
					p.f.classes[q] = c
				}
				sc.class = c
			}
			return sc
		}
		if c := p.stack[len(p.stack)-1].class; c != nil && c.def.Opaque == "" {
			c.def.Opaque = "it has an anonymous struct or union member"
		}
	}
	return scope{kind: scopeOther}
}

func (p *parser) declare(name string, k declKind) string {
	q := strings.Join(append(p.path(), name), "::")
	if _, ok := p.f.decls[q]; !ok {
		p.f.decls[q] = k
	}
	return q
}

// statement handles a declaration ended by ';' at namespace scope: typedefs,
// alias declarations and opaque enum declarations.
func (p *parser) statement(stmt []token) {
	stmt = skipAttrs(stmt)
	if len(stmt) < 2 || p.variable(stmt) {
		return
	}
	switch {
	case stmt[0].is("typedef"):
		// typedef TYPE NAME; (not function types, arrays or several names)
		body := stmt[1:]
		name := body[len(body)-1]
		if name.kind != tIdent || len(body) < 2 {
			return
		}
		for _, t := range body {
			if t.is("(") || t.is("[") || t.is(",") || t.is("{") {
				return
			}
		}
		if t, ok := p.typeOf(body[:len(body)-1]); ok {
			q := p.declare(name.text, declTypedef)
			if _, dup := p.f.typedefs[q]; !dup {
				p.f.typedefs[q] = t
			}
		}
	case stmt[0].is("using") && len(stmt) > 3 && stmt[1].kind == tIdent && stmt[2].is("="):
		if t, ok := p.typeOf(stmt[3:]); ok {
			q := p.declare(stmt[1].text, declTypedef)
			if _, dup := p.f.typedefs[q]; !dup {
				p.f.typedefs[q] = t
			}
		}
	case stmt[0].is("enum"):
		p.enum(stmt, false)
	}
}

// enum records enum [class|struct] [attrs] NAME [: TYPE] from a declaration's
// head (up to its '{' or ';').
func (p *parser) enum(stmt []token, body bool) {
	e := &Enum{}
	rest := stmt[1:]
	if len(rest) > 0 && (rest[0].is("class") || rest[0].is("struct")) {
		e.Scoped = true
		rest = rest[1:]
	}
	rest = skipAttrs(rest)
	if len(rest) == 0 || rest[0].kind != tIdent {
		return // anonymous
	}
	e.Pos = rest[0].pos
	name := rest[0].text
	rest = rest[1:]
	if len(rest) > 1 && rest[0].is(":") {
		if t, ok := p.typeOf(rest[1:]); ok && t.Kind == parse.CBuiltin {
			e.Underlying = t.Unqualified()
		}
	} else if len(rest) != 0 {
		return // enum E e = ...; a variable, not a declaration
	} else if !body && !e.Scoped {
		return // enum E; is not valid without a fixed type
	}
	if e.Underlying == nil && e.Scoped {
		e.Underlying = parse.NewBuiltin("int") // enum class's default
	}
	e.Name = p.declare(name, declEnum)
	if _, dup := p.f.enums[e.Name]; !dup {
		p.f.enums[e.Name] = e
		p.f.Enums = append(p.f.Enums, e)
	}
}

// skipAttrs drops leading [[...]], __attribute__((...)), __declspec(...) and
// alignas(...)/__align__(...).
func skipAttrs(ts []token) []token {
	for len(ts) > 0 {
		switch {
		case len(ts) > 1 && ts[0].is("[") && ts[1].is("["):
			_, n, ok := balanced(ts, 0, "[", "]")
			if !ok {
				return ts
			}
			ts = ts[n:]
		case attrMacros[ts[0].text] && ts[0].kind == tIdent && len(ts) > 1 && ts[1].is("("):
			_, n, ok := balanced(ts, 1, "(", ")")
			if !ok {
				return ts
			}
			ts = ts[n:]
		default:
			return ts
		}
	}
	return ts
}

// attrMacros are the attribute-like words followed by a parenthesized list
// that may stand among a kernel's specifiers or a parameter's.
var attrMacros = map[string]bool{
	"__attribute__": true, "__declspec": true, "alignas": true, "__align__": true,
	"__launch_bounds__": true, "__maxnreg__": true, "__cluster_dims__": true,
	"__block_size__": true,
}

// balanced finds the token matching ts[i] (which must be open) and returns
// the tokens strictly inside, and the index after the closing token. For
// angle brackets, parentheses nest and protect '>'.
func balanced(ts []token, i int, open, close string) (inner []token, next int, ok bool) {
	if i >= len(ts) || !ts[i].is(open) {
		return nil, i, false
	}
	depth := 0
	paren := 0
	for j := i; j < len(ts); j++ {
		t := ts[j]
		if open == "<" {
			switch {
			case t.is("(") || t.is("["):
				paren++
				continue
			case t.is(")") || t.is("]"):
				paren--
				continue
			case paren > 0:
				continue
			case t.is(";") || t.is("{") || t.is("}"):
				return nil, i, false
			}
		}
		switch {
		case t.is(open):
			depth++
		case t.is(close):
			depth--
			if depth == 0 {
				return ts[i+1 : j], j + 1, true
			}
		}
	}
	return nil, i, false
}

// splitTop splits ts at commas outside parentheses, brackets, braces and
// angle brackets. Without knowing which names are templates, a '<' opens
// angle brackets when it follows a name (A<1, 2>) and, with all, anywhere
// (inside a template argument list, where a comparison needs parentheses).
func splitTop(ts []token, all bool) [][]token {
	var out [][]token
	depth, angles, start := 0, 0, 0
	for i, t := range ts {
		switch {
		case t.is("(") || t.is("[") || t.is("{"):
			depth++
		case t.is(")") || t.is("]") || t.is("}"):
			if depth > 0 {
				depth--
			}
		case t.is("<") && depth == 0 && (all || i > 0 && ts[i-1].kind == tIdent):
			angles++
		case t.is(">") && depth == 0 && angles > 0:
			angles--
		case t.is(",") && depth == 0 && angles == 0:
			out = append(out, ts[start:i])
			start = i + 1
		}
	}
	return append(out, ts[start:])
}

func text(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && needsSpace(ts[i-1], t) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

func needsSpace(a, b token) bool {
	word := func(t token) bool { return t.kind != tPunct }
	return (word(a) || a.is(")") || a.is(">") || a.is("]")) && word(b) || a.is(",")
}
