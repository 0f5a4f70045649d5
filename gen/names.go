package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"github.com/cugen/cugen/parse"
)

// This file holds every naming rule cugen applies: the identifiers the
// generated package declares and the launch functions' parameter and local
// names are all made by the functions and constants here; plan.go and
// types.go apply them.

// The identifiers every generated package declares or its launch functions use.
const (
	libraryVar = "Library" // the exported *rt.Library
	imageVar   = "image"   // the //go:embed'ed bytes
	cfgParam   = "cfg"     // a launch function's rt.Config
	bufVar     = "args"    // a launch function's parameter buffer (before collision handling)
)

// handleName is the unexported *rt.Kernel variable of a launch function.
func handleName(goKernel string) string { return "kern" + goKernel }

// aggregateName is the type declared for a parameter the binary passes as
// bytes of no known C++ type: "VecAddParam2".
func aggregateName(goKernel string, ordinal int) string {
	return join(goKernel, "Param", fmt.Sprint(ordinal))
}

// kernelBaseName is a kernel's Go name before collision handling: namespaces
// dropped, CamelCase, template arguments appended.
func kernelBaseName(k *parse.Kernel) string {
	if k.Signature == nil {
		return camel(k.Name)
	}
	parts := []string{camel(k.Signature.Base)}
	for _, a := range k.Signature.TemplateArgs {
		parts = append(parts, argName(a))
	}
	return join(parts...)
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

// argName renders a template argument as a name part.
func argName(a parse.TemplateArg) string {
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

// suffix renders a Go type as a name part, to tell overloads apart.
func (g goType) suffix() string {
	switch g.kind {
	case gkPtr:
		return "Ptr" + g.elem.suffix()
	case gkConstPtr:
		return "ConstPtr" + g.elem.suffix()
	}
	return camel(g.name)
}

// camel turns a C/C++ identifier into an exported Go identifier:
// "vecAdd" → "VecAdd", "my_kernel" → "MyKernel", "__foo2" → "Foo2".
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
	if unicode.IsDigit(rune(out[0])) {
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

// namer hands out unique exported identifiers in a deterministic order.
type namer struct {
	taken map[string]string // identifier → what took it
}

func newNamer(reserved ...string) *namer {
	n := &namer{taken: map[string]string{}}
	for _, r := range reserved {
		n.taken[r] = "cugen"
	}
	return n
}

// claim returns want, or want with the first free numeric suffix.
func (n *namer) claim(want, owner string) string {
	name := want
	for i := 2; ; i++ {
		if _, ok := n.taken[name]; !ok {
			break
		}
		name = join(want, fmt.Sprint(i))
	}
	n.taken[name] = owner
	return name
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
