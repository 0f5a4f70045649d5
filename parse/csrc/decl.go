package csrc

import (
	"strings"

	"github.com/cugen/cugen/parse"
)

// kernel parses the __global__ declaration whose statement starts at start
// and whose __global__ is at g. It returns the index after the parameter
// list's ')'; the body, if any, is skipped by the caller's brace matching.
func (p *parser) kernel(start, g int) (int, error) {
	k := &Kernel{Scope: p.path(), ExternC: p.inExternC(), Doc: p.toks[start].doc}
	instantiation := false
	head := skipAttrs(p.toks[start:g])
	for len(head) > 0 {
		switch {
		case head[0].is("template"):
			inner, n, ok := balanced(head, 1, "<", ">")
			if !ok {
				instantiation = true // template __global__ void k<int>(int*);
				head = head[1:]
				continue
			}
			if len(inner) > 0 {
				k.Template = true
				k.TemplateParams = templateParams(inner)
			}
			head = skipAttrs(head[n:])
		case head[0].is("extern") && len(head) > 1 && head[1].kind == tString:
			k.ExternC = head[1].text == `"C"`
			head = skipAttrs(head[2:])
		default:
			head = skipAttrs(head[1:])
		}
	}

	// The parameter list is the last parenthesized group, after a name, that
	// is not an attribute's, before the body or the ';'.
	ts := p.toks
	nameAt, open, close := -1, -1, -1
	i := g + 1
loop:
	for i < len(ts) {
		t := ts[i]
		switch {
		case t.is("{") || t.is(";") || t.is("=") || t.is("}"):
			break loop
		case t.is("[") && i+1 < len(ts) && ts[i+1].is("["):
			_, n, ok := balanced(ts, i, "[", "]")
			if !ok {
				return 0, p.errorf(t, "unbalanced '[['")
			}
			i = n
		case t.is("("):
			_, n, ok := balanced(ts, i, "(", ")")
			if !ok {
				return 0, p.errorf(t, "unbalanced '(' in the declaration of a __global__ function")
			}
			if at := p.nameBefore(i); at >= 0 && !attrMacros[ts[at].text] {
				nameAt, open, close = at, i, n-1
			}
			i = n
		default:
			i++
		}
	}
	if nameAt < 0 {
		return 0, p.errorf(ts[g], "__global__ declaration without a parameter list")
	}
	k.Name, k.Pos = ts[nameAt].text, ts[nameAt].pos
	if q := p.qualifierBefore(nameAt); len(q) > 0 {
		k.Scope = append(k.Scope, q...) // void ns::k(...) { } defined outside its namespace
	}
	if ts[open-1].is(">") {
		if args, ok := p.templateArgs(ts[nameAt+1 : open]); ok {
			k.SpecArgs = args
		}
	}
	k.Body = i < len(ts) && ts[i].is("{")

	var typeParams map[string]bool
	if k.Template {
		typeParams = map[string]bool{}
		for _, tp := range k.TemplateParams {
			if tp.Type {
				typeParams[tp.Name] = true
			}
		}
	}
	params := ts[open+1 : close]
	if !(len(params) == 0 || len(params) == 1 && params[0].is("void")) {
		for _, pt := range splitTop(params, false) {
			if len(pt) == 0 {
				return 0, p.errorf(ts[open], "empty parameter in the declaration of %s", k.Name)
			}
			if len(pt) == 1 && pt[0].is("...") {
				return 0, p.errorf(pt[0], "kernel %s is variadic", k.Name) // C's varargs: Ts... is a pack
			}
			if i := indexTop(pt, "="); i == 0 {
				return 0, p.errorf(pt[0], "a default argument without a parameter in the declaration of %s", k.Name)
			}
			k.Params = append(k.Params, p.param(pt, typeParams))
		}
	}
	if !instantiation {
		p.f.Kernels = append(p.f.Kernels, k)
	}
	return close + 1, nil
}

// nameBefore is the index of the identifier naming the call or declarator
// whose '(' is at i: "k(", "k<float>(", or -1.
func (p *parser) nameBefore(i int) int {
	ts := p.toks
	if i == 0 {
		return -1
	}
	j := i - 1
	if ts[j].is(">") {
		depth := 0
		for ; j >= 0; j-- {
			if ts[j].is(">") {
				depth++
			} else if ts[j].is("<") {
				depth--
				if depth == 0 {
					break
				}
			} else if ts[j].is(";") || ts[j].is("{") || ts[j].is("}") {
				return -1
			}
		}
		j--
	}
	if j >= 0 && ts[j].kind == tIdent && !keywords[ts[j].text] {
		return j
	}
	return -1
}

// qualifierBefore is the ns:: qualification written before the name at i.
func (p *parser) qualifierBefore(i int) []string {
	var q []string
	for i >= 2 && p.toks[i-1].is("::") && p.toks[i-2].kind == tIdent {
		q = append([]string{p.toks[i-2].text}, q...)
		i -= 2
	}
	return q
}

// keywords cannot name a kernel.
var keywords = map[string]bool{
	"void": true, "int": true, "if": true, "while": true, "for": true, "return": true, "sizeof": true,
	"decltype": true, "noexcept": true, "throw": true, "static_assert": true, "operator": true,
}

func templateParams(ts []token) []TemplateParam {
	var out []TemplateParam
	for _, part := range splitTop(ts, true) {
		if i := indexTop(part, "="); i >= 0 {
			part = part[:i]
		}
		var tp TemplateParam
		for j, t := range part {
			switch {
			case j == 0 && (t.is("typename") || t.is("class")):
				tp.Type = true
			case t.is("..."):
				tp.Pack = true
			case t.kind == tIdent:
				tp.Name = t.text
			}
		}
		out = append(out, tp)
	}
	return out
}

// indexTop is the index of the first s outside brackets, or -1.
func indexTop(ts []token, s string) int {
	depth := 0
	for i, t := range ts {
		switch {
		case t.is("(") || t.is("[") || t.is("{") || t.is("<"):
			depth++
		case t.is(")") || t.is("]") || t.is("}") || t.is(">"):
			if depth > 0 {
				depth--
			}
		case t.is(s) && depth == 0:
			return i
		}
	}
	return -1
}

// param parses one parameter declaration.
func (p *parser) param(ts []token, typeParams map[string]bool) Param {
	if i := indexTop(ts, "="); i >= 0 {
		ts = ts[:i] // a default argument
	}
	out := Param{Text: text(ts), Pos: ts[0].pos}
	if i := indexTop(ts, "..."); i > 0 {
		// A pack expansion, Ts... xs: the pattern Ts xs, once per element.
		out.Pack = true
		ts = append(append([]token(nil), ts[:i]...), ts[i+1:]...)
	}
	d := &declarator{p: p, ts: ts, typeParams: typeParams}
	t, name, ok := d.parse(true)
	if ok {
		out.Type, out.Name = t, name
	} else if len(ts) > 0 && ts[len(ts)-1].kind == tIdent {
		out.Name = ts[len(ts)-1].text // the type is beyond us, the name is not
	}
	return out
}

// typeOf parses a type-id (a declaration without a name).
func (p *parser) typeOf(ts []token) (*parse.CType, bool) {
	d := &declarator{p: p, ts: ts}
	t, name, ok := d.parse(false)
	return t, ok && name == ""
}

// declarator parses decl-specifiers and a declarator from a token slice.
type declarator struct {
	p          *parser
	ts         []token
	i          int
	typeParams map[string]bool
	// keepArrays keeps array suffixes as Dims (a variable's or member's)
	// instead of making T x[N] a T* (a parameter's).
	keepArrays bool
	dims       []int
	badArray   bool // an extent that is not a positive constant
	specEnd    int  // where the decl-specifiers end
}

func (d *declarator) peek() token {
	if d.i < len(d.ts) {
		return d.ts[d.i]
	}
	return token{}
}

// builtinWords are the words that combine into builtin types.
var builtinWords = map[string]bool{
	"void": true, "bool": true, "char": true, "wchar_t": true, "char8_t": true, "char16_t": true, "char32_t": true,
	"short": true, "int": true, "long": true, "signed": true, "unsigned": true, "float": true, "double": true,
	"__int128": true, "_Float16": true, "__signed__": true, "__signed": true,
}

// ignoredWords may stand among a parameter's specifiers without changing its type.
var ignoredWords = map[string]bool{
	"register": true, "__grid_constant__": true, "__restrict__": true, "__restrict": true, "restrict": true,
	"struct": true, "class": true, "union": true, "enum": true, "typename": true, "__device__": true,
}

// parse reads specifiers, pointer operators, a name (when named) and array
// suffixes; ok is false when tokens are left that it does not understand.
func (d *declarator) parse(named bool) (*parse.CType, string, bool) {
	var words []string
	var base *parse.CType
	isConst, isVolatile := false, false
specs:
	for d.i < len(d.ts) {
		t := d.peek()
		switch {
		case t.is("const"):
			isConst = true
		case t.is("volatile"):
			isVolatile = true
		case t.kind == tIdent && builtinWords[t.text] && base == nil:
			words = append(words, t.text)
		case t.kind == tIdent && ignoredWords[t.text]:
		case t.kind == tIdent && attrMacros[t.text]:
			_, n, ok := balanced(d.ts, d.i+1, "(", ")")
			if !ok {
				return nil, "", false
			}
			d.i = n
			continue
		case t.is("[") && d.i+1 < len(d.ts) && d.ts[d.i+1].is("["):
			_, n, ok := balanced(d.ts, d.i, "[", "]")
			if !ok {
				return nil, "", false
			}
			d.i = n
			continue
		case (t.kind == tIdent || t.is("::")) && base == nil && len(words) == 0:
			nt, ok := d.named()
			if !ok {
				return nil, "", false
			}
			base = nt
			continue
		default:
			break specs
		}
		d.i++
	}
	if base == nil {
		if len(words) == 0 {
			return nil, "", false
		}
		b, ok := builtinName(words)
		if !ok {
			return nil, "", false
		}
		base = parse.NewBuiltin(b)
	} else if len(words) > 0 {
		return nil, "", false
	}
	t := base
	if isConst || isVolatile {
		t = t.Qualified(isConst, isVolatile, false)
	}
	d.specEnd = d.i
	// Pointer operators, each with its own qualifiers.
	for d.i < len(d.ts) {
		tk := d.peek()
		switch {
		case tk.is("*"):
			t = parse.NewPointer(t)
		case tk.is("const"):
			t = t.Qualified(true, false, false)
		case tk.is("volatile"):
			t = t.Qualified(false, true, false)
		case tk.is("__restrict__") || tk.is("__restrict") || tk.is("restrict"):
			t = t.Qualified(false, false, true)
		case tk.is("&") || tk.is("&&"):
			t = parse.NewOther(t.Spelling + tk.text)
		case tk.kind == tIdent && attrMacros[tk.text]:
			_, n, ok := balanced(d.ts, d.i+1, "(", ")")
			if !ok {
				return nil, "", false
			}
			d.i = n
			continue
		default:
			goto declName
		}
		d.i++
	}
declName:
	name := ""
	if tk := d.peek(); named && tk.kind == tIdent && !builtinWords[tk.text] {
		name = tk.text
		d.i++
	} else if tk.is("(") {
		// A function pointer, void (*f)(int): an address cugen does not type
		// further, spelled as the demangler spells it, void (*)(int).
		inner, afterName, ok := balanced(d.ts, d.i, "(", ")")
		if !ok || len(inner) == 0 || !inner[0].is("*") {
			return nil, "", false
		}
		for _, x := range inner {
			if x.kind == tIdent && !ignoredWords[x.text] && x.text != "const" {
				name = x.text
			}
		}
		_, afterParams, ok := balanced(d.ts, afterName, "(", ")")
		if !ok {
			return nil, "", false
		}
		params := text(d.ts[afterName:afterParams])
		ptr := parse.NewPointer(parse.NewOther(t.Spelling + " " + params))
		ptr.Spelling = t.Spelling + " (*)" + params
		t = ptr
		d.i = afterParams
	}
	// Array suffixes: a parameter T x[N] is a T*.
	arrays := 0
	for d.peek().is("[") {
		inner, n, ok := balanced(d.ts, d.i, "[", "]")
		if !ok {
			return nil, "", false
		}
		d.i = n
		arrays++
		if d.keepArrays {
			e := &evaluator{toks: inner}
			v, err := e.expr()
			if err != nil || e.i != len(inner) || v <= 0 || v > 1<<40 {
				d.badArray = true
			}
			d.dims = append(d.dims, int(v))
		}
	}
	if d.keepArrays {
		arrays = 0
	}
	if arrays == 1 {
		t = parse.NewPointer(t)
	} else if arrays > 1 {
		t = parse.NewPointer(parse.NewOther(t.Spelling + strings.Repeat("[]", arrays-1)))
	}
	// Trailing attributes: int n __attribute__((unused)).
	for d.i < len(d.ts) && d.peek().kind == tIdent && attrMacros[d.peek().text] {
		_, n, ok := balanced(d.ts, d.i+1, "(", ")")
		if !ok {
			return nil, "", false
		}
		d.i = n
	}
	return t, name, d.i == len(d.ts)
}

// named parses a possibly qualified, possibly templated class, enum or
// typedef name and resolves it against what the file declares.
func (d *declarator) named() (*parse.CType, bool) {
	var parts []string
	global := false
	var args []parse.TemplateArg
	if d.peek().is("::") {
		global = true
		d.i++
	}
	for {
		t := d.peek()
		if t.kind != tIdent || builtinWords[t.text] {
			return nil, false
		}
		parts = append(parts, t.text)
		d.i++
		args = nil
		if d.peek().is("<") {
			inner, n, ok := balanced(d.ts, d.i, "<", ">")
			if !ok {
				return nil, false
			}
			a, ok := d.p.templateArgs(d.ts[d.i:n])
			if !ok || inner == nil {
				return nil, false
			}
			args = a
			d.i = n
		}
		if !d.peek().is("::") {
			break
		}
		if args != nil {
			return nil, false // a member of a class template: beyond us
		}
		d.i++
	}
	if len(parts) == 1 && len(args) == 0 && d.typeParams[parts[0]] {
		return parse.NewNamed(nil, parts[0], nil), true // a template parameter, substituted by Apply
	}
	return d.p.resolve(parts, args, global), true
}

// templateArgs parses <...> (the angle brackets included) into arguments.
func (p *parser) templateArgs(ts []token) ([]parse.TemplateArg, bool) {
	inner, n, ok := balanced(ts, 0, "<", ">")
	if !ok || n != len(ts) {
		return nil, false
	}
	var out []parse.TemplateArg
	if len(inner) == 0 {
		return out, true
	}
	for _, a := range splitTop(inner, true) {
		if len(a) == 0 {
			return nil, false
		}
		value := a[0].kind != tIdent && !a[0].is("::") || a[0].is("true") || a[0].is("false") || a[0].is("nullptr") || a[0].is("sizeof")
		if t, ok := p.typeOf(a); ok && !value {
			out = append(out, parse.TemplateArg{Type: t})
			continue
		}
		out = append(out, parse.TemplateArg{Value: literal(a)})
	}
	return out, true
}

// literal normalizes a value template argument as the demangler prints it:
// integer suffixes dropped, so 4u and 4 compare equal.
func literal(ts []token) string {
	s := strings.ReplaceAll(text(ts), " ", "")
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	if s != "" && (isDigitByte(s[0]) || s[0] == '-' && len(s) > 1 && isDigitByte(s[1])) {
		s = strings.TrimRight(strings.ReplaceAll(s, "'", ""), "uUlL")
	}
	return s
}

// builtinName canonicalizes builtin type words to the demangler's names:
// "unsigned" → "unsigned int", "long int" → "long", "signed char" stays.
func builtinName(words []string) (string, bool) {
	count := map[string]int{}
	for _, w := range words {
		if w == "__signed__" || w == "__signed" {
			w = "signed"
		}
		count[w]++
	}
	signed, unsigned := count["signed"] > 0, count["unsigned"] > 0
	longs := count["long"]
	if signed && unsigned || count["signed"] > 1 || count["unsigned"] > 1 || longs > 2 || count["short"] > 1 || count["int"] > 1 {
		return "", false
	}
	n := len(words) - count["signed"] - count["unsigned"] - longs - count["short"] - count["int"]
	pre := ""
	if unsigned {
		pre = "unsigned "
	}
	switch {
	case n == 1 && count["char"] == 1 && longs == 0 && count["short"] == 0 && count["int"] == 0:
		switch {
		case signed:
			return "signed char", true
		case unsigned:
			return "unsigned char", true
		}
		return "char", true
	case n == 1 && count["__int128"] == 1 && longs == 0 && count["short"] == 0 && count["int"] == 0:
		return pre + "__int128", true
	case n == 1 && count["double"] == 1 && longs == 1 && !signed && !unsigned && count["short"] == 0 && count["int"] == 0:
		return "long double", true
	case n == 1 && !signed && !unsigned && longs == 0 && count["short"] == 0 && count["int"] == 0:
		for _, w := range []string{"void", "bool", "wchar_t", "char8_t", "char16_t", "char32_t", "float", "double", "_Float16"} {
			if count[w] == 1 {
				return w, true
			}
		}
		return "", false
	case n != 0:
		return "", false
	case count["short"] == 1 && longs == 0:
		return pre + "short", true
	case longs == 1 && count["short"] == 0:
		return pre + "long", true
	case longs == 2 && count["short"] == 0:
		return pre + "long long", true
	case longs == 0 && count["short"] == 0:
		return pre + "int", true // int, signed, unsigned, signed int
	}
	return "", false
}

// stdTypedefs are the typedefs of the C and CUDA headers device code uses,
// for LP64 Linux (nvcc's host ABI there): int64_t is long.
var stdTypedefs = map[string]string{
	"int8_t": "signed char", "uint8_t": "unsigned char", "int16_t": "short", "uint16_t": "unsigned short",
	"int32_t": "int", "uint32_t": "unsigned int", "int64_t": "long", "uint64_t": "unsigned long",
	"size_t": "unsigned long", "ssize_t": "long", "ptrdiff_t": "long", "intptr_t": "long", "uintptr_t": "unsigned long",
	"uint": "unsigned int", "ushort": "unsigned short", "ulong": "unsigned long", "uchar": "unsigned char",
	"cudaTextureObject_t": "unsigned long long", "cudaSurfaceObject_t": "unsigned long long",
	"CUdeviceptr": "unsigned long long", "CUtexObject": "unsigned long long", "CUsurfObject": "unsigned long long",
}

// HandleTypedefs are the typedefs of unsigned long long that name a texture
// or surface object: a parameter declared with one keeps the name
// (CType.Typedef), and generated code takes the rt handle type.
var HandleTypedefs = map[string]string{
	"cudaTextureObject_t": "TextureObject", "CUtexObject": "TextureObject",
	"cudaSurfaceObject_t": "SurfaceObject", "CUsurfObject": "SurfaceObject",
}

// cudaTypedefs are cuda_fp16.h's and cuda_bf16.h's short names, and
// cuComplex.h's complex types (float2 and double2).
var cudaTypedefs = map[string]string{
	"half": "__half", "half2": "__half2", "nv_bfloat16": "__nv_bfloat16", "nv_bfloat162": "__nv_bfloat162",
	"cuFloatComplex": "float2", "cuComplex": "float2", "cuDoubleComplex": "double2",
}

// resolve finds what a written name refers to: a typedef (replaced by its
// type), an enum or class of this file (qualified fully, as a mangled name
// has it), a standard typedef, or else the name as written.
func (p *parser) resolve(parts []string, args []parse.TemplateArg, global bool) *parse.CType {
	written := strings.Join(parts, "::")
	scopes := p.path()
	for j := len(scopes); j >= 0; j-- {
		if global && j > 0 {
			continue
		}
		q := strings.Join(append(append([]string(nil), scopes[:j]...), parts...), "::")
		kind, ok := p.f.decls[q]
		if !ok {
			continue
		}
		if kind == declTypedef && len(args) == 0 {
			return p.f.typedefs[q]
		}
		qs := strings.Split(q, "::")
		t := parse.NewNamed(qs[:len(qs)-1], qs[len(qs)-1], args)
		if e := p.f.enums[q]; e != nil {
			t.Enum, t.Underlying, t.Decl = true, e.Underlying, e.Pos.String()
		}
		return t
	}
	if len(args) == 0 {
		name := strings.TrimPrefix(written, "std::")
		if b, ok := stdTypedefs[name]; ok {
			t := parse.NewBuiltin(b)
			if _, ok := HandleTypedefs[name]; ok {
				t.Typedef = name
			}
			return t
		}
		if c, ok := cudaTypedefs[written]; ok {
			return parse.NewNamed(nil, c, nil)
		}
	}
	return parse.NewNamed(parts[:len(parts)-1], parts[len(parts)-1], args)
}
