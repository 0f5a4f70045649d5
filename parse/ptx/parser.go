package ptx

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse parses one PTX translation unit. src may end in NUL bytes (PTX
// embedded in a fatbin is NUL-terminated). On failure it returns a nil
// Module and an *Error naming file:line:col and what was expected there.
func Parse(filename string, src []byte) (*Module, error) {
	return parse(filename, src, keepBodies)
}

// ParseHeaders is Parse without function bodies: module directives,
// variables and complete function headers, with each definition's Body an
// empty Block spanning its braces. Tools that need only signatures (cugen's
// model of a large fatbin) skip the cost of building every statement; the
// bodies are still scanned, so unbalanced braces and bad tokens are errors.
func ParseHeaders(filename string, src []byte) (*Module, error) {
	return parse(filename, src, skipBodies)
}

// ParseChecked is ParseHeaders with every statement parsed as Parse parses
// it, then dropped: it reports exactly Parse's errors, and its memory is
// that of the headers whatever the size of the bodies. cugen checks a PTX
// input with it.
func ParseChecked(filename string, src []byte) (*Module, error) {
	return parse(filename, src, checkBodies)
}

// bodyMode says what the parser does with function bodies.
type bodyMode uint8

const (
	keepBodies  bodyMode = iota // Parse: every statement in the tree
	skipBodies                  // ParseHeaders: tokens scanned, braces matched
	checkBodies                 // ParseChecked: statements parsed, not kept
)

func parse(filename string, src []byte, mode bodyMode) (m *Module, err error) {
	p := parser{mode: mode}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			m, err = nil, b.err
		}
	}()
	p.sc.init(filename, src)
	p.next()
	return p.module(), nil
}

// bailout carries the first error out of the recursive descent, as in
// go/parser: PTX has no useful error recovery, so the first error ends the parse.
type bailout struct{ err *Error }

// maxDepth bounds nesting of blocks, brace lists and operands, so hostile
// input cannot drive the recursion arbitrarily deep.
const maxDepth = 500

type parser struct {
	sc    scanner
	tok   token
	depth int
	mode  bodyMode
	// stmts, ops and mods are scratch space: a list is gathered here, then
	// copied into a slice of its exact length carved from a shared chunk,
	// so that a tree of millions of statements wastes no capacity.
	stmts []Stmt
	ops   []Operand
	mods  []string
	chunk struct {
		stmts []Stmt
		ops   []Operand
		mods  []string
	}
	// regs holds register names declared without a '%' prefix in the
	// current function (".reg .b32 temp;"), so that their uses become *Reg
	// rather than *Sym.
	regs map[string]bool
	// negRegs is set while an instruction whose operands may be negated
	// registers (vmad) is parsed.
	negRegs bool
	// loc is the source position of the instructions being parsed (the
	// last .loc of the function, nil before one); pending are the positions
	// made so far, whose file names the .file table gives once it is
	// complete (lineinfo.go); files is that table.
	loc     *SrcPos
	pending []*SrcPos
	files   map[int]string
}

func (p *parser) next() { p.tok = p.sc.next() }

// peek returns the token after the current one without consuming it.
func (p *parser) peek() token {
	s := p.sc
	return s.next()
}

func (p *parser) pos(t token) Pos {
	return Pos{Filename: p.sc.file, Offset: t.off, Line: t.line, Column: t.col}
}

func (p *parser) errorAt(t token, format string, args ...any) {
	panic(bailout{&Error{Pos: p.pos(t), Msg: fmt.Sprintf(format, args...)}})
}

// describe renders a token for "found ..." in error messages.
func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "EOF"
	case tString:
		return t.text
	}
	s := t.text
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "'" + s + "'"
}

// expected reports that the current token is not what the grammar wants.
func (p *parser) expected(what string) {
	p.errorAt(p.tok, "expected %s, found %s", what, describe(p.tok))
}

func (p *parser) is(c string) bool { return p.tok.kind == tPunct && p.tok.text == c }

func (p *parser) isDot(name string) bool { return p.tok.kind == tDot && p.tok.text == name }

// expect consumes punctuation c or fails with "expected 'c' <ctx>".
func (p *parser) expect(c string, ctx string) token {
	t := p.tok
	if !p.is(c) {
		if ctx != "" {
			p.expected("'" + c + "' " + ctx)
		}
		p.expected("'" + c + "'")
	}
	p.next()
	return t
}

func (p *parser) ident(what string) token {
	t := p.tok
	if t.kind != tIdent {
		p.expected(what)
	}
	p.next()
	return t
}

func (p *parser) enter(t token) {
	p.depth++
	if p.depth > maxDepth {
		p.errorAt(t, "nesting deeper than %d levels", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// ---------------------------------------------------------------- module

func (p *parser) module() *Module {
	m := &Module{File: p.sc.file, src: p.sc.src}
	for p.tok.kind != tEOF {
		if p.tok.kind != tDot {
			p.expected("directive")
		}
		t := p.tok
		switch t.text {
		case ".version":
			p.next()
			m.Version = p.version(t)
		case ".target":
			p.next()
			for {
				m.Target = append(m.Target, p.ident("target name").text)
				if !p.is(",") {
					break
				}
				p.next()
			}
		case ".address_size":
			p.next()
			at := p.tok
			m.AddressSize = p.smallInt("address size")
			if m.AddressSize != 32 && m.AddressSize != 64 {
				p.errorAt(at, "address size must be 32 or 64, found %d", m.AddressSize)
			}
		case ".file":
			p.fileDirective()
		case ".loc":
			p.skipLine() // outside a body it positions nothing
		case ".section":
			m.Sections = append(m.Sections, p.skipSection())
		case ".pragma":
			p.next()
			m.Pragmas = append(m.Pragmas, p.pragmaStrings()...)
		default:
			p.declaration(m)
		}
	}
	m.Files = p.files
	p.resolveFiles(m.Files)
	return m
}

func (p *parser) version(dir token) Version {
	t := p.tok
	v := Version{Pos: p.pos(dir)}
	// "9.0" lexes as a float; read it as two integers so that a minor
	// version of 10 or more stays exact.
	if maj, min, ok := strings.Cut(t.text, "."); t.kind == tFloat && ok && !strings.ContainsAny(min, "eE") {
		a, err1 := strconv.Atoi(maj)
		b, err2 := strconv.Atoi(min)
		if err1 == nil && err2 == nil && a < 1000 && b < 1000 {
			v.Major, v.Minor = a, b
			p.next()
			return v
		}
	}
	p.expected("version number major.minor after .version")
	return v
}

// skipLine skips a directive that ends at the end of its line (a .loc at
// module scope).
func (p *parser) skipLine() {
	line := p.tok.line
	p.next()
	for p.tok.kind != tEOF && p.tok.line == line {
		p.next()
	}
}

// skipSection skips ".section .debug_xxx { ... }" (DWARF data, not code).
// skipSection skips a .section block and returns the section's name.
func (p *parser) skipSection() string {
	p.next()
	if p.tok.kind != tDot && p.tok.kind != tIdent {
		p.expected("section name after .section")
	}
	name := p.tok.text
	p.next()
	open := p.expect("{", "after section name")
	depth := 1
	for depth > 0 {
		switch {
		case p.tok.kind == tEOF:
			p.errorAt(p.tok, "expected '}' to close section opened at %d:%d, found EOF", open.line, open.col)
		case p.is("{"):
			depth++
		case p.is("}"):
			depth--
		}
		p.next()
	}
	return name
}

// pragmaStrings parses the strings of a .pragma directive up to its ';'.
func (p *parser) pragmaStrings() []string {
	var out []string
	for {
		if p.tok.kind != tString {
			p.expected("string after .pragma")
		}
		out = append(out, p.tok.text[1:len(p.tok.text)-1])
		p.next()
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(";", "after .pragma")
	return out
}

var linkages = map[string]Linkage{".visible": LinkVisible, ".extern": LinkExtern, ".weak": LinkWeak, ".common": LinkCommon}

var spaces = map[string]Space{".reg": SpaceReg, ".sreg": SpaceSReg, ".const": SpaceConst, ".global": SpaceGlobal,
	".local": SpaceLocal, ".param": SpaceParam, ".shared": SpaceShared, ".tex": SpaceTex}

// attrs is a parsed .attribute(...) list.
type attrs struct {
	managed bool
	unified []uint64
}

// declaration parses a module-scope variable or function, with its
// linkage and attribute prefixes.
func (p *parser) declaration(m *Module) {
	start := p.tok
	var link Linkage
	var at attrs
	for {
		t := p.tok
		if t.kind != tDot {
			p.expected("declaration")
		}
		if l, ok := linkages[t.text]; ok {
			if link != LinkNone {
				p.errorAt(t, "unexpected second linkage %s", t.text)
			}
			link = l
			p.next()
			continue
		}
		if t.text == ".attribute" {
			p.attribute(&at)
			continue
		}
		if t.text == ".entry" || t.text == ".func" {
			m.Funcs = append(m.Funcs, p.function(start, link))
			return
		}
		if _, ok := spaces[t.text]; ok {
			m.Vars = append(m.Vars, p.varDecl(start, link, at)...)
			return
		}
		if link == LinkNone && !at.managed && at.unified == nil {
			p.expected("directive")
		}
		p.expected("state space, .entry or .func")
	}
}

// attribute parses ".attribute(.managed)" / ".attribute(.unified(a, b))".
// setType sets *dst from the type token t, which must be the first type
// of a declaration ("type or <what> modifier" is expected there).
func (p *parser) setType(dst *Type, t token, what, in string) {
	typ, ok := LookupType(t.text[1:])
	if !ok {
		p.expected("type or " + what + " modifier")
	}
	if *dst != TypeNone {
		p.errorAt(t, "unexpected second type %s in %s", t.text, in)
	}
	*dst = typ
}

func (p *parser) attribute(at *attrs) {
	p.next()
	p.expect("(", "after .attribute")
	for {
		t := p.tok
		switch {
		case p.isDot(".managed"):
			at.managed = true
			p.next()
		case p.isDot(".unified"):
			p.next()
			p.expect("(", "after .unified")
			a := p.intLit("integer in .unified")
			p.expect(",", "in .unified")
			b := p.intLit("integer in .unified")
			p.expect(")", "after .unified values")
			at.unified = []uint64{a, b}
		default:
			p.errorAt(t, "expected .managed or .unified in .attribute, found %s", describe(t))
		}
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(")", "after attribute list")
}

// varDecl parses "space {modifier} type name[<N>][dims][= init] {, ...} ;".
// The current token is the state space.
func (p *parser) varDecl(start token, link Linkage, at attrs) []*Var {
	tmpl := Var{Pos: p.pos(start), Linkage: link, Space: spaces[p.tok.text], Managed: at.managed, Unified: at.unified}
	p.next()
	for p.tok.kind == tDot {
		t := p.tok
		switch t.text {
		case ".align":
			p.next()
			tmpl.Align = p.smallInt("alignment after .align")
			continue
		case ".v2", ".v4", ".v8":
			tmpl.Vector = int(t.text[2] - '0')
		case ".attribute":
			p.attribute(&at)
			tmpl.Managed, tmpl.Unified = at.managed, at.unified
			continue
		case ".ptr":
			p.errorAt(t, ".ptr is only allowed on kernel parameters")
		default:
			p.setType(&tmpl.Type, t, "variable", "declaration")
		}
		p.next()
	}
	if tmpl.Type == TypeNone {
		p.expected("type in variable declaration")
	}
	var out []*Var
	for {
		v := tmpl
		nt := p.ident("variable name")
		v.Name = nt.text
		if p.is("<") {
			p.next()
			v.Range = p.smallInt("register count")
			p.expect(">", "after register count")
		}
		for p.is("[") {
			p.next()
			if p.is("]") {
				v.Dims = append(v.Dims, -1)
			} else {
				v.Dims = append(v.Dims, p.smallInt("array dimension"))
			}
			p.expect("]", "after array dimension")
		}
		if p.is("=") {
			p.next()
			v.Init = p.initializer()
		}
		if v.Space == SpaceReg && p.regs != nil && !strings.HasPrefix(v.Name, "%") {
			p.regs[v.Name] = true
		}
		out = append(out, &v)
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(";", "after declaration")
	return out
}

// initializer parses a variable initializer: a brace list, a number or an
// address expression.
func (p *parser) initializer() *Init {
	in := &Init{}
	p.initInto(in, true)
	return in
}

// initInto parses an initializer into in. A brace list is checked element
// by element but not kept: with keep, in records where its text starts, for
// Init.Elems and Var.InitData to parse it again. A list of millions of
// elements then costs its text, not a node per element.
func (p *parser) initInto(in *Init, keep bool) {
	t := p.tok
	in.Pos = p.pos(t)
	switch {
	case p.is("{"):
		p.enter(t)
		in.Kind = InitList
		if keep {
			sc := p.sc // just after the '{'
			in.list = &sc
		}
		p.next()
		if !p.is("}") {
			var e Init
			for {
				e = Init{}
				p.initInto(&e, false)
				if !p.is(",") {
					break
				}
				p.next()
			}
		}
		p.expect("}", "after initializer list")
		p.leave()
	case p.is("-"):
		p.next()
		switch p.tok.kind {
		case tInt:
			in.Kind, in.Int = InitInt, -p.intLit("number")
		case tFloat, tHexF:
			in.Kind = InitFloat
			in.Float, in.Bits, in.BitsLen = p.floatLit(true)
		default:
			p.expected("number after '-'")
		}
	case t.kind == tInt:
		v := p.intLit("number")
		if p.is("(") {
			// Mask operator: 0xFF00(sym) selects bytes of sym's address.
			p.next()
			p.symExpr(in)
			p.expect(")", "after masked address")
			in.Mask = v
		} else {
			in.Kind, in.Int = InitInt, v
		}
	case t.kind == tFloat || t.kind == tHexF:
		in.Kind = InitFloat
		in.Float, in.Bits, in.BitsLen = p.floatLit(false)
	case t.kind == tIdent:
		p.symExpr(in)
	default:
		p.expected("initializer")
	}
}

// listParser returns a parser at the first token inside the brace list in,
// which Parse has checked: parsing it again cannot fail.
func (in *Init) listParser() *parser {
	p := &parser{sc: *in.list}
	p.next()
	return p
}

// Elems returns the elements of a brace list, in order; nothing for the
// other kinds. The elements are parsed again from the list's text on each
// call (Parse keeps the text, not a node per element); a nested list is an
// Init of its own, with its own Elems.
func (in *Init) Elems() iter.Seq[*Init] {
	return func(yield func(*Init) bool) {
		if in.Kind != InitList || in.list == nil {
			return
		}
		p := in.listParser()
		for !p.is("}") && p.tok.kind != tEOF {
			e := &Init{}
			p.initInto(e, true)
			if !yield(e) {
				return
			}
			if p.is(",") {
				p.next()
			}
		}
	}
}

// symExpr parses "sym", "sym+off", "generic(sym)", "generic(sym+off)" or
// "generic(sym)+off" into in.
func (p *parser) symExpr(in *Init) {
	in.Kind = InitSymbol
	t := p.ident("symbol in address initializer")
	if t.text == "generic" && p.is("(") {
		in.Generic = true
		p.next()
		in.Sym = p.ident("symbol in generic()").text
		if p.is("+") || p.is("-") {
			in.Offset = p.offset()
		}
		p.expect(")", "after generic symbol")
	} else {
		in.Sym = t.text
	}
	if p.is("+") || p.is("-") {
		in.Offset += p.offset()
	}
}

// ---------------------------------------------------------------- functions

// function parses an .entry or .func from its keyword on.
func (p *parser) function(start token, link Linkage) *Func {
	f := &Func{Pos: p.pos(start), Linkage: link, Entry: p.tok.text == ".entry"}
	p.next()
	var at attrs
	for p.isDot(".attribute") {
		// Function attributes (.unified) have no field in Func; they only
		// matter to the linker.
		p.attribute(&at)
	}
	p.regs = map[string]bool{}
	defer func() { p.regs = nil }()
	if p.is("(") {
		if f.Entry {
			p.expected("kernel name after .entry")
		}
		f.Returns = p.paramList()
	}
	f.Name = p.ident("function name").text
	if p.is("(") {
		f.Params = p.paramList()
	}
	for p.tok.kind == tDot {
		t := p.tok
		p.next()
		switch t.text {
		case ".maxntid":
			f.MaxNTID = p.intList(t)
		case ".reqntid":
			f.ReqNTID = p.intList(t)
		case ".reqnctapercluster":
			f.ReqNCTAPerCluster = p.intList(t)
		case ".minnctapersm":
			f.MinNCTAPerSM = p.smallInt("integer after .minnctapersm")
		case ".maxnctapersm":
			f.MaxNCTAPerSM = p.smallInt("integer after .maxnctapersm")
		case ".maxnreg":
			f.MaxNReg = p.smallInt("integer after .maxnreg")
		case ".maxclusterrank":
			f.MaxClusterRank = p.smallInt("integer after .maxclusterrank")
		case ".abi_preserve":
			f.ABIPreserve = p.smallInt("integer after .abi_preserve")
		case ".abi_preserve_control":
			f.ABIPreserveCtl = p.smallInt("integer after .abi_preserve_control")
		case ".explicitcluster":
			f.ExplicitCluster = true
		case ".blocksareclusters":
			f.BlocksAreClusters = true
		case ".noreturn":
			f.NoReturn = true
		case ".pragma":
			f.Pragmas = append(f.Pragmas, p.pragmaStrings()...)
		default:
			p.errorAt(t, "expected function directive, '{' or ';', found %s", describe(t))
		}
	}
	switch {
	case p.is(";"):
		p.next()
	case p.is("{") && p.mode == skipBodies:
		f.Body = p.skipBlock()
	case p.is("{"):
		p.loc = nil
		f.Body = p.block()
	default:
		p.expected("'{' or ';' after function header")
	}
	return f
}

// intList parses 1 to 3 comma-separated integers after directive d.
func (p *parser) intList(d token) []int {
	what := "integer after " + d.text
	out := []int{p.smallInt(what)}
	for p.is(",") {
		p.next()
		if len(out) == 3 {
			p.errorAt(p.tok, "too many values for %s (at most 3)", d.text)
		}
		out = append(out, p.smallInt(what))
	}
	return out
}

// paramList parses "( [param {, param}] )".
func (p *parser) paramList() []*Param {
	p.next() // '('
	out := []*Param{}
	if p.is(")") {
		p.next()
		return out
	}
	for {
		out = append(out, p.param())
		if p.is(",") {
			p.next()
			continue
		}
		if !p.is(")") {
			p.expected("')' after parameter list")
		}
		p.next()
		return out
	}
}

// param parses ".param [.align N] [.vN] .type [.ptr[.space][.align N]] name[[N]]"
// or a ".reg .type name" parameter.
func (p *parser) param() *Param {
	t := p.tok
	pr := &Param{Pos: p.pos(t)}
	switch {
	case p.isDot(".param"):
		pr.Space = SpaceParam
	case p.isDot(".reg"):
		pr.Space = SpaceReg
	default:
		p.expected(".param or .reg in parameter list")
	}
	p.next()
	for p.tok.kind == tDot {
		t := p.tok
		switch t.text {
		case ".align":
			p.next()
			n := p.smallInt("alignment after .align")
			if pr.Ptr != nil {
				pr.Ptr.Align = n
			} else {
				pr.Align = n
			}
			continue
		case ".v2", ".v4", ".v8":
			pr.Vector = int(t.text[2] - '0')
		case ".ptr":
			if pr.Ptr != nil {
				p.errorAt(t, "unexpected second .ptr")
			}
			pr.Ptr = &PtrAttr{Space: SpaceGeneric}
		case ".global", ".shared", ".const", ".local":
			if pr.Ptr == nil || pr.Ptr.Space != SpaceGeneric || pr.Ptr.Align != 0 {
				p.errorAt(t, "unexpected state space %s in parameter (only after .ptr)", t.text)
			}
			pr.Ptr.Space = spaces[t.text]
		default:
			p.setType(&pr.Type, t, "parameter", "parameter")
		}
		p.next()
	}
	if pr.Type == TypeNone {
		p.expected("type in parameter")
	}
	pr.Name = p.ident("parameter name").text
	if p.is("[") {
		p.next()
		if p.is("]") {
			pr.ArrayLen = -1
		} else {
			pr.ArrayLen = p.smallInt("array length")
		}
		p.expect("]", "after array length")
	}
	p.registerParam(pr)
	return pr
}

// registerParam notes a register parameter named without '%' (".reg .b32
// r"), so that its uses in the body parse as registers.
func (p *parser) registerParam(pr *Param) {
	if pr.Space == SpaceReg && p.regs != nil && !strings.HasPrefix(pr.Name, "%") {
		p.regs[pr.Name] = true
	}
}

// ---------------------------------------------------------------- bodies

// block parses "{ stmt... }"; the current token is '{'.
func (p *parser) block() *Block {
	open := p.tok
	p.enter(open)
	p.next()
	b := &Block{Pos: p.pos(open)}
	mark := len(p.stmts)
	for !p.is("}") {
		if p.tok.kind == tEOF {
			p.errorAt(p.tok, "expected '}' to close block opened at %d:%d, found EOF", open.line, open.col)
		}
		p.stmts = p.stmt(p.stmts)
		if p.mode == checkBodies {
			clear(p.stmts[mark:])
			p.stmts = p.stmts[:mark]
		}
	}
	if p.mode == keepBodies {
		b.Stmts = carve(&p.chunk.stmts, p.stmts[mark:])
		clear(p.stmts[mark:])
		p.stmts = p.stmts[:mark]
	}
	b.End = p.pos(p.tok)
	p.next()
	p.leave()
	return b
}

// carve returns a copy of list in a slice of its exact length, taken from
// *chunk where it fits: one allocation serves many short lists (an
// instruction's operands, a block's statements) and none has spare capacity.
func carve[T any](chunk *[]T, list []T) []T {
	n := len(list)
	switch {
	case n == 0:
		return nil
	case n > 64:
		return slices.Clone(list)
	case len(*chunk) < n:
		*chunk = make([]T, 1024)
	}
	out := (*chunk)[:n:n]
	*chunk = (*chunk)[n:]
	copy(out, list)
	return out
}

// skipBlock consumes "{ ... }" with nested braces, keeping only its span.
func (p *parser) skipBlock() *Block {
	open := p.tok
	b := &Block{Pos: p.pos(open)}
	depth := 0
	for {
		switch {
		case p.tok.kind == tEOF:
			p.errorAt(p.tok, "expected '}' to close block opened at %d:%d, found EOF", open.line, open.col)
		case p.is("{"):
			depth++
		case p.is("}"):
			depth--
			if depth == 0 {
				b.End = p.pos(p.tok)
				p.next()
				return b
			}
		}
		p.next()
	}
}

// stmt parses one body statement and appends it (a declaration of several
// names appends several *Var).
func (p *parser) stmt(list []Stmt) []Stmt {
	t := p.tok
	switch t.kind {
	case tPunct:
		switch t.text {
		case "{":
			return append(list, p.block())
		case "@":
			return append(list, p.instr())
		}
	case tIdent:
		if nt := p.peek(); nt.kind == tPunct && nt.text == ":" {
			if t.text[0] == '%' {
				p.errorAt(t, "expected label name, found register %s", describe(t))
			}
			p.next()
			p.next()
			switch {
			case p.isDot(".callprototype"):
				return append(list, p.callProto(t))
			case p.isDot(".branchtargets"), p.isDot(".calltargets"):
				return append(list, p.targets(t))
			}
			return append(list, &Label{Pos: p.pos(t), Name: t.text})
		}
		return append(list, p.instr())
	case tDot:
		switch t.text {
		case ".pragma":
			p.next()
			for _, s := range p.pragmaStrings() {
				list = append(list, &Pragma{Pos: p.pos(t), Text: s})
			}
			return list
		case ".loc":
			p.locDirective()
			return list
		case ".file":
			p.fileDirective()
			return list
		}
		var link Linkage
		if l, ok := linkages[t.text]; ok {
			link = l
			p.next()
		}
		var at attrs
		for p.isDot(".attribute") {
			p.attribute(&at)
		}
		if _, ok := spaces[p.tok.text]; ok && p.tok.kind == tDot {
			for _, v := range p.varDecl(t, link, at) {
				list = append(list, v)
			}
			return list
		}
		if link != LinkNone {
			p.expected("state space in declaration")
		}
	}
	p.expected("statement")
	return list
}

// callProto parses "name: .callprototype (rets) _ (params) [.noreturn];".
func (p *parser) callProto(label token) *CallProto {
	cp := &CallProto{Pos: p.pos(label), Name: label.text}
	p.next()
	if p.is("(") {
		cp.Returns = p.paramList()
	}
	if t := p.ident("'_' in .callprototype"); t.text != "_" {
		p.errorAt(t, "expected '_' in .callprototype, found %s", describe(t))
	}
	if p.is("(") {
		cp.Params = p.paramList()
	}
	if p.isDot(".noreturn") {
		cp.NoReturn = true
		p.next()
	}
	p.expect(";", "after .callprototype")
	return cp
}

// targets parses "name: .branchtargets L1, L2;" (or .calltargets).
func (p *parser) targets(label token) *Targets {
	tg := &Targets{Pos: p.pos(label), Name: label.text, Kind: p.tok.text[1:]}
	p.next()
	for {
		tg.Targets = append(tg.Targets, p.ident("label in "+"."+tg.Kind).text)
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(";", "after ."+tg.Kind+" list")
	return tg
}

// instr parses "[@[!]pred] opcode{.mod} [operand {, operand}] ;".
func (p *parser) instr() *Instr {
	in := &Instr{Pos: p.pos(p.tok), Src: p.loc}
	if p.is("@") {
		p.next()
		if p.is("!") {
			in.GuardNeg = true
			p.next()
		}
		in.Guard = p.ident("guard predicate after '@'").text
	}
	op := p.tok
	if op.kind != tIdent || op.text[0] == '%' {
		p.expected("opcode")
	}
	in.Op = op.text
	p.next()
	mark := len(p.mods)
	for p.tok.kind == tDot && p.tok.adj {
		p.mods = append(p.mods, p.tok.text[1:])
		p.next()
	}
	in.Mods = carve(&p.chunk.mods, p.mods[mark:])
	p.mods = p.mods[:mark]
	if p.is(";") {
		p.next()
		return in
	}
	if p.is("}") || p.tok.kind == tEOF {
		p.expected("';' after instruction")
	}
	mark = len(p.ops)
	// vmad's a, b and c may be negated registers.
	p.negRegs = in.Op == "vmad"
	defer func() { p.negRegs = false }()
	for {
		p.ops = append(p.ops, p.operand())
		if p.is(",") {
			p.next()
			continue
		}
		if !p.is(";") {
			p.expected("',' or ';' after operand")
		}
		p.next()
		in.Operands = carve(&p.chunk.ops, p.ops[mark:])
		clear(p.ops[mark:])
		p.ops = p.ops[:mark]
		return in
	}
}

// operand parses one operand, including the "a|b" destination pair.
func (p *parser) operand() Operand {
	t := p.tok
	o := p.operand1()
	if p.is("|") {
		p.next()
		return &Pair{Pos: p.pos(t), First: o, Second: p.operand1()}
	}
	return o
}

func (p *parser) isReg(name string) bool {
	return name[0] == '%' || name == "_" || p.regs[name]
}

// reg builds a *Reg from the current identifier, taking an adjacent
// component selector (%tid.x, %ctaid.y).
func (p *parser) reg(t token) *Reg {
	r := &Reg{Pos: p.pos(t), Name: t.text}
	p.next()
	if p.tok.kind == tDot && p.tok.adj {
		r.Comp = p.tok.text[1:]
		p.next()
	}
	return r
}

func (p *parser) operand1() Operand {
	t := p.tok
	switch t.kind {
	case tIdent:
		if p.isReg(t.text) {
			return p.reg(t)
		}
		p.next()
		return &Sym{Pos: p.pos(t), Name: t.text}
	case tInt:
		return &Imm{Pos: p.pos(t), Val: p.intLit("integer")}
	case tFloat, tHexF:
		f := &FImm{Pos: p.pos(t)}
		f.Val, f.Bits, f.BitsLen = p.floatLit(false)
		return f
	case tString:
		p.next()
		return &Str{Pos: p.pos(t), Value: t.text[1 : len(t.text)-1]}
	case tPunct:
		switch t.text {
		case "!":
			p.next()
			nt := p.tok
			if nt.kind != tIdent || !p.isReg(nt.text) {
				p.expected("predicate register after '!'")
			}
			r := p.reg(nt)
			r.Pos, r.Not = p.pos(t), true
			return r
		case "-":
			p.next()
			switch p.tok.kind {
			case tInt:
				return &Imm{Pos: p.pos(t), Val: -p.intLit("integer")}
			case tFloat, tHexF:
				f := &FImm{Pos: p.pos(t)}
				f.Val, f.Bits, f.BitsLen = p.floatLit(true)
				return f
			case tIdent:
				if p.negRegs && p.isReg(p.tok.text) {
					r := p.reg(p.tok)
					r.Pos, r.Neg = p.pos(t), true
					return r
				}
			}
			p.expected("number after '-'")
		case "{":
			p.enter(t)
			p.next()
			v := &Vec{Pos: p.pos(t), Elems: p.operands("}", "vector")}
			p.leave()
			return v
		case "(":
			p.enter(t)
			p.next()
			l := &List{Pos: p.pos(t), Elems: p.operands(")", "list")}
			p.leave()
			return l
		case "[":
			return p.address()
		}
	}
	p.expected("operand")
	return nil
}

// operands parses "elem {, elem} close" (possibly empty) after an opening bracket.
func (p *parser) operands(close, what string) []Operand {
	if p.is(close) {
		p.next()
		return []Operand{}
	}
	mark := len(p.ops)
	for {
		p.ops = append(p.ops, p.operand())
		if p.is(",") {
			p.next()
			continue
		}
		p.expect(close, "after "+what+" elements")
		out := carve(&p.chunk.ops, p.ops[mark:])
		clear(p.ops[mark:])
		p.ops = p.ops[:mark]
		return out
	}
}

// address parses "[base]", "[base+off]", "[base-off]", "[imm]", or a
// bracketed tuple "[tex, {coords}]". The current token is '['.
func (p *parser) address() Operand {
	open := p.tok
	p.next()
	a := &Addr{Pos: p.pos(open)}
	t := p.tok
	switch {
	case t.kind == tIdent:
		if p.isReg(t.text) {
			a.Base = p.reg(t)
		} else {
			p.next()
			a.Base = &Sym{Pos: p.pos(t), Name: t.text}
		}
		if p.is("+") || p.is("-") {
			a.Offset = p.offset()
		} else if p.is(",") {
			p.enter(open)
			p.next()
			tu := &Tuple{Pos: a.Pos, Elems: append([]Operand{a.Base}, p.operands("]", "address tuple")...)}
			p.leave()
			return tu
		}
	case t.kind == tInt:
		v := p.intLit("address")
		if v > math.MaxInt64 {
			p.errorAt(t, "address out of range: %s", t.text)
		}
		a.Offset = int64(v)
		if p.is("+") || p.is("-") {
			a.Offset += p.offset()
		}
	case p.is("-"):
		a.Offset = p.offset()
	default:
		p.expected("register, symbol or integer address after '['")
	}
	p.expect("]", "after address")
	return a
}
