package csrc

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// This file is csrc's preprocessor, so that -src sees what the compiler
// sees without a toolchain: #include "…" (relative to the including file,
// then the include directories) and #include <…> (the include directories
// only; a system header not found there is skipped), #define and #undef of
// object-like and function-like macros (# and ## included), and the
// conditionals #if, #ifdef, #ifndef, #elif, #elifdef, #elifndef, #else,
// #endif with defined() and __has_include(). It defines what nvcc defines
// for the host pass over a .cu file (__CUDACC__, __NVCC__, no
// __CUDA_ARCH__: a kernel's prototype is what host code launches) and the
// version macros the toolkit's headers would (CUDART_VERSION 13000).

// Options say how Parse preprocesses a file.
type Options struct {
	// IncludeDirs are searched for #include files, as -I directories.
	IncludeDirs []string
	// Defines are -D definitions: NAME, NAME=VALUE or NAME(ARGS)=BODY.
	Defines []string
	// Undefines are -U names, undefined after every Define, as cugen
	// passes them to the compiler.
	Undefines []string
	// ReadFile reads an included file; nil follows no #include.
	ReadFile func(path string) ([]byte, error)
}

// predefined are the macros every file starts with, as nvcc's host pass
// over a .cu file on 64-bit Linux sees them (some from the toolkit's
// headers, which cugen does not read).
var predefined = []string{
	"__CUDACC__=1", "__NVCC__=1", "__CUDACC_VER_MAJOR__=13", "__CUDACC_VER_MINOR__=0", "__CUDACC_VER_BUILD__=88",
	"CUDART_VERSION=13000", "CUDA_VERSION=13000", "__cplusplus=201703L",
	"__x86_64__=1", "__linux__=1", "__LP64__=1", "__CHAR_BIT__=8",
}

// Limits: what a hostile source can cost.
const (
	maxIncludeDepth = 64
	maxPPTokens     = 1 << 20 // tokens macro expansions may produce
	maxPPBytes      = 16 << 20
)

type macro struct {
	fn       bool     // function-like
	params   []string // names; the last is __VA_ARGS__ for a variadic macro
	variadic bool
	body     []token
}

// cond is one #if group being read.
type cond struct {
	active bool // this group's lines are kept
	done   bool // an earlier group of the #if was taken
	outer  bool // the enclosing group is active
	pos    Pos
}

type preprocessor struct {
	opts    Options
	macros  map[string]*macro
	out     []token
	once    map[string]bool
	depth   int
	budget  int // tokens left to produce
	bytes   int // bytes of source read
	missing []string
	files   map[string][]byte // read so far, by path
	read    []Included        // the same, in the order first read
}

// preprocess lexes and preprocesses a file; missing lists the quoted
// includes it did not find.
func preprocess(name string, src []byte, opts Options) (toks []token, missing []string, read []Included, err error) {
	pp := &preprocessor{opts: opts, macros: map[string]*macro{}, once: map[string]bool{}, budget: maxPPTokens, files: map[string][]byte{}}
	for _, d := range append(append([]string(nil), predefined...), opts.Defines...) {
		if err := pp.defineFlag(d); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, u := range opts.Undefines {
		delete(pp.macros, u)
	}
	if err := pp.file(name, src); err != nil {
		return nil, nil, nil, err
	}
	return pp.out, pp.missing, pp.read, nil
}

// defineFlag defines NAME or NAME=VALUE (a -D flag).
func (pp *preprocessor) defineFlag(d string) error {
	name, value, ok := strings.Cut(d, "=")
	if !ok {
		value = "1"
	}
	toks, err := lex("-D"+name, []byte("#define "+name+" "+value+"\n"))
	ident, _, _ := strings.Cut(name, "(") // a function-like macro, -D'F(x)=x'
	if err != nil || len(toks) < 4 || toks[2].kind != tIdent || toks[2].text != ident {
		return fmt.Errorf("-D %s: not a definition", d)
	}
	return pp.define(toks[2 : len(toks)-1])
}

func (pp *preprocessor) file(name string, src []byte) error {
	pp.bytes += len(src)
	if pp.bytes > maxPPBytes {
		return &Error{Pos: Pos{Filename: name, Line: 1, Column: 1}, Msg: fmt.Sprintf("the sources and their includes exceed %d bytes", maxPPBytes)}
	}
	toks, err := lex(name, src)
	if err != nil {
		return err
	}
	var conds []cond
	active := func() bool { return len(conds) == 0 || conds[len(conds)-1].active }
	for i := 0; i < len(toks); {
		if toks[i].kind != tHash {
			j := i
			for j < len(toks) && toks[j].kind != tHash {
				j++
			}
			if active() {
				if err := pp.expandInto(toks[i:j]); err != nil {
					return err
				}
			}
			i = j
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].kind != tEOD {
			j++
		}
		line := toks[i+1 : j] // the directive's tokens
		i = j + 1
		if len(line) == 0 {
			continue // the null directive
		}
		d := line[0]
		args := line[1:]
		switch d.text {
		case "if", "ifdef", "ifndef":
			c := cond{outer: active(), pos: d.pos}
			if c.outer {
				v, err := pp.condition(d, args)
				if err != nil {
					return err
				}
				c.active, c.done = v, v
			}
			conds = append(conds, c)
		case "elif", "elifdef", "elifndef", "else":
			if len(conds) == 0 {
				return &Error{Pos: d.pos, Msg: "#" + d.text + " without #if"}
			}
			c := &conds[len(conds)-1]
			c.active = false
			if c.outer && !c.done {
				v := true
				if d.text != "else" {
					var err error
					if v, err = pp.condition(d, args); err != nil {
						return err
					}
				}
				c.active, c.done = v, v
			}
		case "endif":
			if len(conds) == 0 {
				return &Error{Pos: d.pos, Msg: "#endif without #if"}
			}
			conds = conds[:len(conds)-1]
		default:
			if !active() {
				continue
			}
			if err := pp.directive(name, d, args); err != nil {
				return err
			}
		}
	}
	if len(conds) > 0 {
		return &Error{Pos: conds[len(conds)-1].pos, Msg: "#if without #endif"}
	}
	return nil
}

// directive runs an active directive other than a conditional.
func (pp *preprocessor) directive(file string, d token, args []token) error {
	switch d.text {
	case "define":
		return pp.define(args)
	case "undef":
		if len(args) > 0 {
			delete(pp.macros, args[0].text)
		}
	case "include", "include_next", "import":
		return pp.include(file, d, args)
	case "pragma":
		if len(args) == 1 && args[0].text == "once" {
			pp.once[file] = true
		}
	}
	// #error, #warning, #line and unknown directives change nothing cugen reads.
	return nil
}

func (pp *preprocessor) define(args []token) error {
	if len(args) == 0 || args[0].kind != tIdent {
		if len(args) == 0 {
			return nil
		}
		return &Error{Pos: args[0].pos, Msg: "#define of a non-identifier"}
	}
	name := args[0].text
	m := &macro{}
	rest := args[1:]
	if len(rest) > 0 && rest[0].is("(") && !rest[0].space {
		m.fn = true
		end := 1
		for ; end < len(rest) && !rest[end].is(")"); end++ {
			t := rest[end]
			switch {
			case t.is(","):
			case t.is("..."):
				m.variadic = true
				m.params = append(m.params, "__VA_ARGS__")
			case t.kind == tIdent:
				m.params = append(m.params, t.text)
			default:
				return &Error{Pos: t.pos, Msg: "bad parameter list in #define " + name}
			}
		}
		if end == len(rest) {
			return &Error{Pos: args[0].pos, Msg: "unterminated parameter list in #define " + name}
		}
		rest = rest[end+1:]
	}
	m.body = rest
	pp.macros[name] = m
	return nil
}

func (pp *preprocessor) include(file string, d token, args []token) error {
	// A computed include (#include MACRO) names its file after expansion.
	if len(args) > 0 && args[0].kind == tIdent {
		exp, err := pp.expand(args)
		if err != nil {
			return err
		}
		args = exp
	}
	if len(args) == 0 || args[0].kind != tString {
		return nil
	}
	spec := args[0].text
	path, ok := pp.resolve(file, spec)
	if !ok {
		if strings.HasPrefix(spec, "\"") {
			pp.missing = append(pp.missing, fmt.Sprintf("%s: #include %s: not found", d.pos, spec))
		}
		return nil // a system header: its declarations are builtin to cugen
	}
	if pp.once[path] {
		return nil
	}
	if pp.depth >= maxIncludeDepth {
		return &Error{Pos: d.pos, Msg: fmt.Sprintf("#include nested more than %d deep", maxIncludeDepth)}
	}
	data := pp.files[path]
	pp.depth++
	defer func() { pp.depth-- }()
	return pp.file(path, data)
}

// resolve finds an include: "x.h" beside the including file, then in the
// include directories; <x.h> in the include directories.
func (pp *preprocessor) resolve(from, spec string) (string, bool) {
	if pp.opts.ReadFile == nil || len(spec) < 2 {
		return "", false
	}
	name := spec[1 : len(spec)-1]
	var dirs []string
	if spec[0] == '"' {
		dirs = append(dirs, filepath.Dir(from))
	}
	dirs = append(dirs, pp.opts.IncludeDirs...)
	if filepath.IsAbs(name) {
		dirs = []string{""}
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		if _, ok := pp.files[p]; ok {
			return p, true
		}
		if data, err := pp.opts.ReadFile(p); err == nil {
			pp.files[p] = data
			pp.read = append(pp.read, Included{Path: p, Data: data})
			return p, true
		}
	}
	return "", false
}

// condition evaluates #if/#elif's expression, or #ifdef/#ifndef's name.
func (pp *preprocessor) condition(d token, args []token) (bool, error) {
	switch d.text {
	case "ifdef", "elifdef", "ifndef", "elifndef":
		if len(args) == 0 || args[0].kind != tIdent {
			return false, &Error{Pos: d.pos, Msg: "#" + d.text + " without a name"}
		}
		_, def := pp.macros[args[0].text]
		return def == (d.text == "ifdef" || d.text == "elifdef"), nil
	}
	if len(args) == 0 {
		return false, &Error{Pos: d.pos, Msg: "#" + d.text + " without an expression"}
	}
	// defined and __has_include are answered before macros expand.
	var pre []token
	for i := 0; i < len(args); i++ {
		t := args[i]
		switch t.text {
		case "defined", "__has_include", "__has_include_next":
			var name string
			j := i + 1
			if j < len(args) && args[j].is("(") {
				k := j + 1
				for k < len(args) && !args[k].is(")") {
					name += args[k].text
					k++
				}
				i = k
			} else if j < len(args) {
				name = args[j].text
				i = j
			}
			v := false
			if t.text == "defined" {
				_, v = pp.macros[name]
			} else {
				_, v = pp.resolve(d.pos.Filename, name)
			}
			pre = append(pre, number(t.pos, v))
			continue
		}
		pre = append(pre, t)
	}
	exp, err := pp.expand(pre)
	if err != nil {
		return false, err
	}
	e := &evaluator{toks: exp, at: d}
	v, err := e.expr()
	if err == nil && e.i < len(e.toks) {
		err = e.errorf("unexpected %q", e.toks[e.i].text)
	}
	return v != 0, err
}

func number(p Pos, v bool) token {
	t := token{kind: tNumber, text: "0", pos: p}
	if v {
		t.text = "1"
	}
	return t
}

// expandInto macro-expands text tokens onto the output.
func (pp *preprocessor) expandInto(ts []token) error {
	exp, err := pp.expand(ts)
	pp.out = append(pp.out, exp...)
	return err
}

// expand macro-expands tokens: each expansion is rescanned with the rest,
// and a macro does not expand within its own expansion (hide sets).
func (pp *preprocessor) expand(ts []token) ([]token, error) {
	var out []token
	// pending holds tokens to read before ts[i:], last first.
	var pending []token
	i := 0
	next := func() (token, bool) {
		if n := len(pending); n > 0 {
			t := pending[n-1]
			pending = pending[:n-1]
			return t, true
		}
		if i < len(ts) {
			i++
			return ts[i-1], true
		}
		return token{}, false
	}
	peek := func() (token, bool) {
		if n := len(pending); n > 0 {
			return pending[n-1], true
		}
		if i < len(ts) {
			return ts[i], true
		}
		return token{}, false
	}
	for {
		t, ok := next()
		if !ok {
			return out, nil
		}
		m := pp.macros[t.text]
		if t.kind != tIdent || m == nil || hidden(t, t.text) {
			out = append(out, t)
			continue
		}
		var args [][]token
		if m.fn {
			if p, ok := peek(); !ok || !p.is("(") {
				out = append(out, t) // a function-like macro's name alone
				continue
			}
			next()
			var err error
			if args, err = collectArgs(t, next); err != nil {
				return nil, err
			}
		}
		body, err := pp.substitute(t, m, args)
		if err != nil {
			return nil, err
		}
		hide := append(append([]string(nil), t.hide...), t.text)
		for k := len(body) - 1; k >= 0; k-- {
			b := body[k]
			b.pos = t.pos // where the expansion was asked for
			b.hide = hide
			pending = append(pending, b)
		}
	}
}

func hidden(t token, name string) bool {
	for _, h := range t.hide {
		if h == name {
			return true
		}
	}
	return false
}

// collectArgs reads a macro call's arguments after its '(' up to the ')'.
func collectArgs(call token, next func() (token, bool)) ([][]token, error) {
	var args [][]token
	var cur []token
	depth := 0
	for {
		t, ok := next()
		if !ok {
			return nil, &Error{Pos: call.pos, Msg: "unterminated call of macro " + call.text}
		}
		switch {
		case t.is("(") || t.is("[") || t.is("{"):
			depth++
		case (t.is(")") || t.is("]") || t.is("}")) && depth > 0:
			depth--
		case t.is(")"):
			return append(args, cur), nil
		case t.is(",") && depth == 0:
			args = append(args, cur)
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
}

// substitute is a macro's body with its parameters replaced: by the
// argument expanded, by its spelling after #, as written beside ##.
func (pp *preprocessor) substitute(call token, m *macro, args [][]token) (out []token, err error) {
	defer func() { pp.budget -= len(out) }()
	if !m.fn {
		if len(m.body) > pp.budget {
			return nil, &Error{Pos: call.pos, Msg: fmt.Sprintf("macro expansion exceeds %d tokens", maxPPTokens)}
		}
		return m.body, nil
	}
	if len(args) == 1 && len(args[0]) == 0 && len(m.params) == 0 {
		args = nil // F()
	}
	if m.variadic && len(args) > len(m.params) {
		va := args[len(m.params)-1]
		for _, a := range args[len(m.params):] {
			va = append(append(va, token{kind: tPunct, text: ","}), a...)
		}
		args = append(args[:len(m.params)-1], va)
	}
	if m.variadic && len(args) == len(m.params)-1 {
		args = append(args, nil) // F(a) of F(a, ...)
	}
	if len(args) != len(m.params) {
		return nil, &Error{Pos: call.pos, Msg: fmt.Sprintf("macro %s takes %d arguments, called with %d", call.text, len(m.params), len(args))}
	}
	param := func(t token) int {
		if t.kind != tIdent {
			return -1
		}
		for i, p := range m.params {
			if p == t.text {
				return i
			}
		}
		return -1
	}
	body := m.body
	for k := 0; k < len(body); k++ {
		if len(out) > pp.budget {
			return nil, &Error{Pos: call.pos, Msg: fmt.Sprintf("macro expansion exceeds %d tokens", maxPPTokens)}
		}
		t := body[k]
		if t.is("#") && k+1 < len(body) && param(body[k+1]) >= 0 {
			out = append(out, token{kind: tString, text: strconv.Quote(text(args[param(body[k+1])]))})
			k++
			continue
		}
		if t.is("##") && len(out) > 0 && k+1 < len(body) {
			right := []token{body[k+1]}
			if p := param(body[k+1]); p >= 0 {
				right = args[p]
			}
			k++
			if len(right) == 0 {
				continue
			}
			left := out[len(out)-1]
			pasted := left.text + right[0].text
			kind := tPunct
			if isIdentStart(pasted[0]) {
				kind = tIdent
			} else if isDigitByte(pasted[0]) {
				kind = tNumber
			}
			out[len(out)-1] = token{kind: kind, text: pasted, pos: left.pos}
			out = append(out, right[1:]...)
			continue
		}
		if p := param(t); p >= 0 {
			if k+1 < len(body) && body[k+1].is("##") {
				out = append(out, args[p]...)
				continue
			}
			exp, err := pp.expand(args[p])
			if err != nil {
				return nil, err
			}
			out = append(out, exp...)
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// evaluator computes an #if expression: C's integer constant expressions,
// every identifier left after expansion being 0 (true is 1).
type evaluator struct {
	toks []token
	i    int
	at   token // the directive, for errors
}

func (e *evaluator) errorf(format string, args ...any) error {
	return &Error{Pos: e.at.pos, Msg: "#" + e.at.text + ": " + fmt.Sprintf(format, args...)}
}

func (e *evaluator) peek() token {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return token{}
}

// op reports and consumes the operator s at the cursor; << and >> are
// two tokens without space between.
func (e *evaluator) op(s string) bool {
	t := e.peek()
	if len(s) == 2 && (s == "<<" || s == ">>") {
		if t.is(s[:1]) && e.i+1 < len(e.toks) && e.toks[e.i+1].is(s[1:]) && !e.toks[e.i+1].space {
			e.i += 2
			return true
		}
		return false
	}
	if t.is(s) {
		if (s == "<" || s == ">") && e.i+1 < len(e.toks) && e.toks[e.i+1].is(s) && !e.toks[e.i+1].space {
			return false // a shift
		}
		e.i++
		return true
	}
	return false
}

func (e *evaluator) expr() (int64, error) {
	c, err := e.binary(0)
	if err != nil || !e.op("?") {
		return c, err
	}
	a, err := e.expr()
	if err != nil {
		return 0, err
	}
	if !e.op(":") {
		return 0, e.errorf("'?' without ':'")
	}
	b, err := e.expr()
	if c != 0 {
		return a, err
	}
	return b, err
}

var binaryOps = [][]string{
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
}

func (e *evaluator) binary(level int) (int64, error) {
	if level == len(binaryOps) {
		return e.unary()
	}
	a, err := e.binary(level + 1)
	if err != nil {
		return 0, err
	}
	for {
		var op string
		for _, o := range binaryOps[level] {
			if e.op(o) {
				op = o
				break
			}
		}
		if op == "" {
			return a, nil
		}
		b, err := e.binary(level + 1)
		if err != nil {
			return 0, err
		}
		switch op {
		case "||":
			a = bool64(a != 0 || b != 0)
		case "&&":
			a = bool64(a != 0 && b != 0)
		case "|":
			a |= b
		case "^":
			a ^= b
		case "&":
			a &= b
		case "==":
			a = bool64(a == b)
		case "!=":
			a = bool64(a != b)
		case "<":
			a = bool64(a < b)
		case ">":
			a = bool64(a > b)
		case "<=":
			a = bool64(a <= b)
		case ">=":
			a = bool64(a >= b)
		case "<<":
			a <<= uint64(b) & 63
		case ">>":
			a >>= uint64(b) & 63
		case "+":
			a += b
		case "-":
			a -= b
		case "*":
			a *= b
		case "/", "%":
			if b == 0 {
				return 0, e.errorf("division by zero")
			}
			if op == "/" {
				a /= b
			} else {
				a %= b
			}
		}
	}
}

func bool64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (e *evaluator) unary() (int64, error) {
	switch {
	case e.op("!"):
		v, err := e.unary()
		return bool64(v == 0), err
	case e.op("-"):
		v, err := e.unary()
		return -v, err
	case e.op("+"):
		return e.unary()
	case e.op("~"):
		v, err := e.unary()
		return ^v, err
	case e.op("("):
		v, err := e.expr()
		if err == nil && !e.op(")") {
			err = e.errorf("missing ')'")
		}
		return v, err
	}
	t := e.peek()
	if e.i >= len(e.toks) {
		return 0, e.errorf("expression ends early")
	}
	e.i++
	switch t.kind {
	case tNumber:
		s := strings.TrimRight(strings.ReplaceAll(t.text, "'", ""), "uUlL")
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(s, 0, 64)
			if uerr != nil {
				return 0, e.errorf("bad number %s", t.text)
			}
			v = int64(u)
		}
		return v, nil
	case tChar:
		if s, err := strconv.Unquote(strings.TrimLeft(t.text, "uUL8")); err == nil && len(s) > 0 {
			return int64(s[0]), nil
		}
		return 0, e.errorf("bad character %s", t.text)
	case tIdent:
		if t.text == "true" {
			return 1, nil
		}
		// An identifier that is not a macro, or a call of a builtin such
		// as __has_attribute(x): 0.
		if e.op("(") {
			for depth := 1; depth > 0 && e.i < len(e.toks); e.i++ {
				if e.toks[e.i].is("(") {
					depth++
				} else if e.toks[e.i].is(")") {
					depth--
				}
			}
		}
		return 0, nil
	}
	return 0, e.errorf("unexpected %q", t.text)
}
