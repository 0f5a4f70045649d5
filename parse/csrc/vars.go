package csrc

import (
	"strings"

	"github.com/cugen/cugen/parse"
)

// This file reads what a source says about data: classes' data members (a
// class's layout, which gen computes from them) and the variables a
// program can address from the host.

// Var is a __device__, __constant__ or __managed__ variable at namespace
// scope.
type Var struct {
	Name  string   // unqualified
	Scope []string // enclosing namespaces
	Type  *parse.CType
	// Dims are the array extents, outermost first: float t[4][8] is a float
	// with Dims [4 8]. nil for a scalar.
	Dims   []int
	Space  string // "__device__", "__constant__" or "__managed__"
	Extern bool
	Pos    Pos
}

// QualifiedName is the variable's name with its namespaces.
func (v *Var) QualifiedName() string {
	return strings.Join(append(append([]string(nil), v.Scope...), v.Name), "::")
}

// class is a class definition being read: its members fill def.
type class struct {
	def    *parse.ClassDef
	params []string // a class template's parameters, which member types may name
}

// initializer reports whether a '{' after stmt opens an initializer
// (int lut[4] = {1, 2}; Cell c{1, 2, 3};) rather than a scope.
func (p *parser) initializer(stmt []token) bool {
	stmt = skipAttrs(stmt)
	if len(stmt) == 0 {
		return false
	}
	if stmt[len(stmt)-1].is("=") {
		return true
	}
	switch stmt[0].text {
	case "struct", "class", "union", "enum", "namespace", "extern", "template", "typedef", "inline", "using":
		return false
	}
	last := stmt[len(stmt)-1]
	return len(stmt) >= 2 && (last.kind == tIdent || last.is("]")) && !hasCall(stmt) && !last.is("const")
}

// hasCall reports a parenthesis that is not an attribute's: a function's
// declarator (or a call).
func hasCall(ts []token) bool {
	for i, t := range ts {
		if t.is("(") && (i == 0 || !attrMacros[ts[i-1].text] && ts[i-1].text != "aligned") {
			return true
		}
	}
	return false
}

// alignAs is the N of an alignas(N), __align__(N) or
// __attribute__((aligned(N))) among ts's leading attributes; 0 when none.
func alignAs(ts []token) int {
	a := 0
	for i := 0; i+2 < len(ts); i++ {
		switch ts[i].text {
		case "alignas", "__align__", "aligned":
			if ts[i+1].is("(") && ts[i+2].kind == tNumber {
				if n := number64(ts[i+2]); n > 0 && n&(n-1) == 0 && n <= 1<<12 {
					a = max(a, int(n))
				}
			}
		}
	}
	return a
}

func number64(t token) int64 {
	e := &evaluator{toks: []token{t}}
	v, err := e.unary()
	if err != nil {
		return -1
	}
	return v
}

// dataWords may stand among a variable's or member's specifiers without
// changing its type.
var dataWords = map[string]bool{
	"static": true, "extern": true, "inline": true, "constexpr": true, "thread_local": true, "mutable": true,
	"__device__": true, "__constant__": true, "__managed__": true,
}

// member reads one member declaration of class c.
func (p *parser) member(c *class, stmt []token) {
	if c.def.Opaque != "" {
		return
	}
	align := alignAs(stmt)
	stmt = skipAttrs(stmt)
	// public:, private:, protected: before a member.
	for len(stmt) >= 2 && stmt[1].is(":") && (stmt[0].is("public") || stmt[0].is("private") || stmt[0].is("protected")) {
		align = max(align, alignAs(stmt[2:]))
		stmt = skipAttrs(stmt[2:])
	}
	if len(stmt) == 0 {
		return
	}
	switch stmt[0].text {
	case "using", "typedef", "friend", "template", "static_assert", "static", "enum", "constexpr":
		return // no storage in the object
	case "virtual":
		c.def.Opaque = "it has virtual functions"
		return
	case "struct", "class", "union":
		if len(stmt) <= 3 {
			return // a forward declaration, or the end of a nested definition
		}
	}
	if i := indexTop(stmt, ":"); i > 0 && !stmt[i-1].is(":") {
		c.def.Opaque = "it has a bit-field"
		return
	}
	typeParams := map[string]bool{}
	for _, tp := range c.params {
		typeParams[tp] = true
	}
	fields, ok := p.declarators(stmt, typeParams, align)
	if !ok {
		if hasCall(stmt) {
			return // a member function's declaration (or a constructor's)
		}
		c.def.Opaque = "cugen cannot read its member " + text(stmt)
		return
	}
	c.def.Fields = append(c.def.Fields, fields...)
}

// declarators reads a declaration of one or more data declarators sharing
// their specifiers (float x, y[4], *z), initializers dropped.
func (p *parser) declarators(stmt []token, typeParams map[string]bool, align int) ([]parse.Field, bool) {
	align = max(align, alignAs(stmt))
	var parts [][]token
	for _, part := range splitTop(stmt, false) {
		if i := indexTop(part, "="); i >= 0 {
			part = part[:i]
		}
		for i, t := range part {
			if t.is("{") { // a brace initializer, x{1}
				part = part[:i]
				break
			}
		}
		var kept []token
		for _, t := range part {
			if t.kind != tIdent || !dataWords[t.text] {
				kept = append(kept, t)
			}
		}
		parts = append(parts, kept)
	}
	var fields []parse.Field
	var specs []token // the first declarator's specifiers, shared by the rest
	for i, part := range parts {
		if len(part) == 0 {
			return nil, false
		}
		if i > 0 {
			part = append(append([]token(nil), specs...), part...)
		}
		d := &declarator{p: p, ts: part, typeParams: typeParams, keepArrays: true}
		t, name, ok := d.parse(true)
		if !ok || name == "" || d.badArray {
			return nil, false
		}
		if i == 0 {
			specs = part[:d.specEnd]
		}
		fields = append(fields, parse.Field{Name: name, Type: t, Dims: d.dims, AlignAs: align})
	}
	return fields, len(fields) > 0
}

// variable reads a namespace-scope statement that declares __device__,
// __constant__ or __managed__ variables; it reports whether stmt was one.
func (p *parser) variable(stmt []token) bool {
	space := ""
	for _, t := range stmt {
		switch {
		case t.is("__shared__"):
			return true // not addressable from the host
		case t.is("__managed__"):
			space = "__managed__"
		case t.is("__constant__") && space != "__managed__":
			space = "__constant__"
		case t.is("__device__") && space == "":
			space = "__device__"
		}
	}
	if space == "" {
		return false
	}
	extern := len(stmt) > 0 && stmt[0].is("extern")
	fields, ok := p.declarators(skipAttrs(stmt), nil, 0)
	if !ok {
		return true // a __device__ function's declaration, or beyond this parser
	}
	for _, f := range fields {
		pos := stmt[0].pos
		for _, t := range stmt {
			if t.kind == tIdent && t.text == f.Name {
				pos = t.pos
				break
			}
		}
		p.f.Vars = append(p.f.Vars, &Var{Name: f.Name, Scope: p.path(), Type: f.Type, Dims: f.Dims, Space: space, Extern: extern, Pos: pos})
	}
	return true
}
