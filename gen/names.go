package gen

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
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

func (n *namer) isTaken(name string) bool {
	_, ok := n.taken[name]
	return ok
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
