package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"
	"unicode"

	"github.com/cugen/cugen/parse"
)

// This file holds every naming rule cugen applies; nothing else in gen
// invents identifiers.

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
	used := map[string]bool{"cfg": true, handle: true, "rt": true, "binary": true, "math": true, "unsafe": true}
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
