package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"hash/fnv"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cugen/cugen/parse"
)

// This file holds every naming rule cugen applies: the identifiers the
// generated package declares and the launch functions' parameter and local
// names are all made by the functions and constants here; plan.go and
// types.go apply them.

// The identifiers a generated file declares or its launch functions use.
const (
	libraryVar = "Library" // the exported *rt.Library of a file with one input
	imageVar   = "image"   // its //go:embed'ed bytes
	cfgParam   = "cfg"     // a launch function's rt.Config
	bufVar     = "args"    // a launch function's parameter buffer (before collision handling)
)

// The members of the types a generated file declares for C++ structs
// (structs.go) and opaque by-value parameters (emit.go). They live in the
// types' own scope, so they collide with nothing.
const (
	recvVar     = "v"     // the methods' receiver
	opaqueField = "b"     // an opaque type's bytes
	bytesMethod = "Bytes" // an opaque type's accessor of them
	putMethod   = "put"   // a packed struct's encoder, which launch functions call
	putBuf      = "b"     // its buffer parameter
)

// libraryNames are the library variable's and the image variable's names for
// an input of a file with several (or whose package declares Library
// already): named after the input, "attention.cu" → AttentionLibrary and
// attentionImage. stem is the input's name without its extension, or with
// it when two inputs share a stem.
func libraryNames(stem string) (lib, image string) {
	c := camel(stem)
	return c + "Library", strings.ToLower(c[:1]) + c[1:] + "Image"
}

// kernelCandidates are a kernel's names, most wanted first (see namer.assign):
//
//	VecAdd                 its name: namespaces dropped, template arguments appended
//	ShiftScale             with its input's name first: the name is another input's
//	                       kernel's too, or another file of the package declares it
//	ResidualBFloat16Int32  with its parameters' element types, each once, in order
//	                       (overloadElems): overloads in one input, as they mostly
//	                       differ, by the type they compute in
//	OverPtrFloat32Float32  with its parameters' Go types: overloads of one element
//	                       type list (over(float*, float) and over(float, float*))
//	NsKPtrInt32            with its namespaces: one signature in two namespaces
//	KPtrLongLong           with its parameters' C++ types: C++ types of one Go type
//
// Each depends on the kernel alone, so adding an overload renames only the
// kernels whose candidate it takes.
func kernelCandidates(base, elems, goParams, input string, k *parse.Kernel) []string {
	var ns []string
	cxx := []string{base}
	if sig := k.Signature; sig != nil {
		for _, s := range sig.Scope {
			ns = append(ns, camel(s))
		}
		for _, c := range sig.Params {
			cxx = append(cxx, cxxName(c))
		}
	}
	return []string{
		base,
		join(input, base),
		join(base, elems),
		join(base, goParams),
		join(slices.Concat(ns, []string{base, goParams})...),
		join(slices.Concat(ns, cxx)...),
	}
}

// cxxName renders a C++ parameter type as a name part, by its C++ spelling
// rather than its Go type: "long long*" → PtrLongLong, "const int*" → PtrConstInt.
func cxxName(c *parse.CType) string {
	q := ""
	if c.Const {
		q = "Const"
	}
	switch c.Kind {
	case parse.CPointer:
		return q + "Ptr" + cxxName(c.Elem)
	case parse.CNamed:
		return q + typeName(c)
	}
	return q + camel(c.Name)
}

// globalCandidates are a module-scope variable's names: its name; with Var
// (a kernel or type has the name); with its input's name first (one variable
// name in two inputs).
func globalCandidates(name, input string) []string {
	c := globalName(name)
	return []string{c, c + "Var", join(input, c)}
}

// typeCandidates are a declared type's names: its name; with its namespaces
// ("ns::Params" → NsParams); with Type (a kernel has the name).
func typeCandidates(want string, scope []string) []string {
	var ns []string
	for _, s := range scope {
		ns = append(ns, camel(s))
	}
	return []string{want, join(slices.Concat(ns, []string{want})...), want + "Type"}
}

// handleName is the exported *rt.Kernel variable of a launch function:
// "VecAddKernel" (attributes, occupancy, the layout the driver reports).
func handleName(goKernel string) string { return goKernel + "Kernel" }

// nodeName is the function that updates a graph's kernel node with the
// launch function's signature: "VecAddNode".
func nodeName(goKernel string) string { return goKernel + "Node" }

// nodeParam is the node update function's rt.KernelNode parameter (before
// collision handling).
const nodeParam = "node"

// aggregateName is the type declared for a parameter the binary passes as
// bytes of no known C++ type: "VecAddParam2".
func aggregateName(goKernel string, ordinal int) string {
	return join(goKernel, "Param", fmt.Sprint(ordinal))
}

// kernelBaseName is a kernel's Go name before collision handling: namespaces
// dropped, CamelCase, template arguments appended.
func kernelBaseName(k *parse.Kernel) string {
	if k.Signature == nil {
		return boundedName(camel(k.Name), k.Name)
	}
	parts := []string{camel(k.Signature.Base)}
	for _, a := range k.Signature.TemplateArgs {
		parts = append(parts, argName(a))
	}
	return join(parts...)
}

// globalName is a variable's Go name before collision handling: its
// unqualified name in CamelCase ("_ZN2ns3lutE", ns::lut → "Lut").
func globalName(symbol string) string {
	q := parse.DemangleName(symbol)
	if i := strings.LastIndex(q, "::"); i >= 0 && !strings.ContainsAny(q, "<(") {
		q = q[i+2:]
	}
	return boundedName(camel(q), symbol)
}

// typeName is the Go name of a C++ class: namespaces dropped, template
// arguments appended ("ns::Pair<float>" → "PairFloat32").
func typeName(c *parse.CType) string {
	parts := []string{camel(c.Base)}
	for _, a := range c.Args {
		parts = append(parts, argName(a))
	}
	return join(parts...)
}

// argName renders a template argument as a name part; a pack, its
// arguments in order ("vk<int, float>" → "VkInt32Float32").
func argName(a parse.TemplateArg) string {
	if a.Pack {
		parts := make([]string, len(a.Elems))
		for i, e := range a.Elems {
			parts[i] = argName(e)
		}
		return join(parts...)
	}
	if a.Type == nil {
		return valueName(a.Value)
	}
	switch a.Type.Kind {
	case parse.CBuiltin:
		if g, ok := cxxBuiltins[a.Type.Name]; ok {
			return camel(g.name)
		}
		return camel(a.Type.Name)
	case parse.CPointer:
		return "Ptr" + argName(parse.TemplateArg{Type: a.Type.Elem})
	case parse.CNamed:
		return typeName(a.Type)
	}
	return camel(a.Type.Spelling)
}

// elemSuffix is the type a parameter holds or points to, as a name part:
// rt.Ptr[rt.BFloat16] and rt.ConstPtr[rt.BFloat16] are both BFloat16.
func (g goType) elemSuffix() string {
	for (g.kind == gkPtr || g.kind == gkConstPtr) && g.elem != nil {
		g = *g.elem
	}
	return g.suffix()
}

// suffix renders a Go type as a name part, to tell overloads apart.
func (g goType) suffix() string {
	switch g.kind {
	case gkPtr:
		return "Ptr" + g.elem.suffix()
	case gkConstPtr:
		return "ConstPtr" + g.elem.suffix()
	case gkDecl:
		return g.decl.want // not its final name, which kernels' names decide
	}
	return camel(g.name)
}

// boundedName keeps an identifier made from a symbol readable: one over 64
// bytes (a name that does not demangle) keeps its first 48 and a hash of
// the symbol, stable from run to run.
func boundedName(id, symbol string) string {
	if len(id) <= 64 {
		return id
	}
	h := fnv.New32a()
	h.Write([]byte(symbol))
	cut := 48
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut-- // not inside a letter's bytes
	}
	return fmt.Sprintf("%s%08X", id[:cut], h.Sum32())
}

// shown is a symbol as a comment shows it: itself, or quoted with escapes
// if it is not valid UTF-8 (which a Go file cannot hold).
func shown(symbol string) string {
	if utf8.ValidString(symbol) {
		return symbol
	}
	return strconv.Quote(symbol)
}

// errNotUTF8 is the error of a symbol that is not valid UTF-8 (the error
// shows it quoted, with escapes): a Go file is UTF-8, and the symbol would
// be in its comments and names. flag is the option that leaves it out.
func errNotUTF8(flag string) error {
	return fmt.Errorf("the symbol is not valid UTF-8, which Go source cannot spell; leave it out with %s", flag)
}

// camel turns a C/C++ identifier into an exported Go identifier:
// "vecAdd" → "VecAdd", "my_kernel" → "MyKernel", "__foo2" → "Foo2". Go
// exports only names that start with an upper-case letter: one that would
// start with a digit, or with a letter that has no upper case ("内g",
// "ßig"; ß's upper case is two letters), gets a K in front: "K2d",
// "K内g", "Kßig".
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if !token.IsExported(out) {
		out = "K" + out
	}
	return out
}

// lowerCamel is camel with a lower-case first letter, for parameter names;
// Go keywords get a trailing underscore.
func lowerCamel(s string) string {
	c := camel(s)
	r := []rune(c)
	for i := 0; i < len(r) && unicode.IsUpper(r[i]); i++ {
		// lower the whole leading acronym except the letter that starts the next word
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	out := string(r)
	if token.IsKeyword(out) {
		out += "_"
	}
	return out
}

// join concatenates name parts, separating two parts with '_' only where a
// digit would otherwise run into a digit ("K2"+"Float32"+"4" → "K2Float32_4").
func join(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		s := b.String()
		if len(s) > 0 && isDigit(s[len(s)-1]) && isDigit(p[0]) {
			b.WriteByte('_')
		}
		b.WriteString(p)
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// valueName renders a non-type template argument as a name part.
func valueName(v string) string {
	v = strings.TrimSpace(v)
	switch v {
	case "true":
		return "True"
	case "false":
		return "False"
	}
	if strings.HasPrefix(v, "-") {
		return "Neg" + valueName(v[1:])
	}
	if v != "" && isDigit(v[0]) {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return -1
		}, v)
	}
	return camel(v)
}

// A nameReq asks for one package-level identifier. Its candidates are
// derived from the thing named alone (its name, parameter types, namespaces,
// input), never from its neighbours or from sort order, so that adding a
// kernel renames only what shares a candidate with it: a numeric suffix by
// position would let a name move silently to another kernel.
type nameReq struct {
	cands []string // most wanted first
	key   string   // what it is, unique in the package: the hash of the last resort
	what  string   // how notes name it: "over(float*)", "the C++ enum Wide"
	name  string   // the identifier given
	plain string   // name before the package's style (-prefix, -unexported) made it name
	// raw asks for the candidates as they are: names made from names the
	// style already applied to (a handle from its launch function's name),
	// and the unexported image variables.
	raw bool
}

// namer hands out package-level identifiers. taken holds what is already
// declared: by the package's other files, by cugen, by requests served.
type namer struct {
	taken map[string]string // identifier → why it is taken, for notes: "declared in x.go"
	notes []string          // one per request that did not get its first candidate
	style Style             // what -prefix and -unexported make of a candidate
}

func newNamer(taken map[string]string, style Style) *namer {
	n := &namer{taken: map[string]string{}, style: style}
	// The packages a generated file imports: a package-level name of
	// theirs would clash with the file's import.
	for _, pkg := range []string{"rt", "binary", "math", "unsafe", "embed"} {
		n.taken[pkg] = "a package the generated file imports"
	}
	if style.Unexported || style.Prefix != "" && !token.IsExported(style.Prefix) {
		// Unexported names can be Go's own: keywords do not compile, and a
		// package-level copy or len would hide the builtin from the package.
		for _, kw := range []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
			"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
			"return", "select", "struct", "switch", "type", "var"} {
			n.taken[kw] = "a Go keyword"
		}
		for _, id := range types.Universe.Names() {
			n.taken[id] = "predeclared in Go"
		}
	}
	for id, by := range taken {
		n.taken[id] = by
	}
	return n
}

// Style is how the generated identifiers are spelled, for a package that
// holds hand-written code beside them: with a prefix (-prefix), and
// unexported (-unexported), so that the package's own API is its
// hand-written one. The zero Style is cugen's exported CamelCase.
type Style struct {
	// Prefix starts every identifier ("Cu": CuMadd3, CuMadd3Kernel,
	// CuLibrary); one that starts lower-case ("cu") makes them unexported.
	Prefix string
	// Unexported starts every identifier lower-case (madd3, madd3Kernel,
	// library; with Prefix "Cu", cuMadd3).
	Unexported bool
}

// apply is the identifier the style makes of a name.
func (s Style) apply(name string) string {
	name = s.Prefix + name
	if s.Unexported {
		name = unexport(name)
	}
	return name
}

// unexport lower-cases an identifier's leading capital, or its leading
// acronym but the capital that starts the next word: Madd3 → madd3, FFTShift
// → fftShift, GEMM → gemm.
func unexport(s string) string {
	r := []rune(s)
	for i := 0; i < len(r) && unicode.IsUpper(r[i]); i++ {
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// assign gives every request the first of its candidates that is not taken
// and that no other request still unserved wants at the same step. Requests
// that share a candidate all move on to their next one: none keeps the
// shared name, so which of them came first does not matter. Past its last
// candidate a request gets that candidate with a hash of its key, then (only
// if two keys collide in 32 bits) a numeric suffix in key order.
func (n *namer) assign(reqs []*nameReq) {
	pending := reqs
	for step := 0; len(pending) > 0; step++ {
		last := true // every pending request is at its hashed name
		groups := map[string][]*nameReq{}
		for _, r := range pending {
			c := n.styled(r, r.candidate(step))
			groups[c] = append(groups[c], r)
			last = last && step >= len(r.cands)
		}
		var next []*nameReq
		for _, c := range slices.Sorted(maps.Keys(groups)) { // notes in a fixed order
			g := groups[c]
			if len(g) == 1 && n.taken[c] == "" {
				n.take(g[0], c)
			} else {
				next = append(next, g...)
			}
		}
		if last {
			sort.Slice(next, func(i, j int) bool { return next[i].key < next[j].key })
			for _, r := range next {
				c := n.styled(r, r.candidate(step))
				for i := 2; n.taken[c] != ""; i++ {
					c = fmt.Sprintf("%s_%d", n.styled(r, r.candidate(step)), i)
				}
				n.take(r, c)
			}
			return
		}
		pending = next
	}
}

// candidate is the name r wants at step: a candidate, or past the last one,
// the last with a hash of r's key.
func (r *nameReq) candidate(step int) string {
	if step < len(r.cands) {
		return r.cands[step]
	}
	h := fnv.New32a()
	h.Write([]byte(r.key))
	return fmt.Sprintf("%s_%08x", r.cands[len(r.cands)-1], h.Sum32())
}

// styled is candidate c of r in the package's style.
func (n *namer) styled(r *nameReq, c string) string {
	if r.raw {
		return c
	}
	return n.style.apply(c)
}

// take gives r name, and notes it when r wanted another.
func (n *namer) take(r *nameReq, name string) {
	want := n.styled(r, r.cands[0])
	by := n.taken[want]
	r.name = name
	r.plain = name
	for step := 0; step <= len(r.cands); step++ {
		if n.styled(r, r.candidate(step)) == name {
			r.plain = r.candidate(step)
			break
		}
	}
	n.taken[name] = "taken by " + r.what
	if name == want || r.raw && !token.IsExported(name) {
		return
	}
	note := r.what + " → " + name
	if by != "" {
		note += " (" + want + " is " + by + ")"
	}
	n.notes = append(n.notes, note)
}

// unique returns base, or base with a numeric suffix, avoiding used.
func unique(base string, used map[string]bool) string {
	name := base
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	used[name] = true
	return name
}

// bodyNames are the identifiers a launch function's body refers to, which a
// parameter must not shadow: the config, the kernel handle, the packages the
// body calls, and Go's predeclared identifiers (copy, byte, uint32, ...).
func bodyNames(handle string) map[string]bool {
	used := map[string]bool{cfgParam: true, handle: true, "rt": true, "binary": true, "math": true, "unsafe": true}
	for _, n := range types.Universe.Names() {
		used[n] = true
	}
	return used
}

// paramName is a parameter's Go name: its name in the CUDA source in
// lowerCamel ("out_ptr" → "outPtr"), else p0, p1, ... by ordinal. A name that
// would shadow something the body uses gets a trailing underscore.
func paramName(k *parse.Kernel, q *parse.Param, used map[string]bool) string {
	name := fmt.Sprintf("p%d", q.Ordinal)
	if sig := k.Signature; sig != nil && q.Ordinal < len(sig.ParamNames) && sig.ParamNames[q.Ordinal] != "" {
		name = lowerCamel(sig.ParamNames[q.Ordinal])
		if used[name] {
			name += "_"
		}
	}
	return unique(name, used)
}
