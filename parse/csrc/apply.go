package csrc

import (
	"fmt"
	"strings"

	"github.com/cugen/cugen/parse"
)

// Apply attaches the sources' prototypes to m's kernels:
//
//   - an extern "C" kernel found by name gets the prototype's parameter types
//     and names (its Signature is built from the source, ExternC set);
//   - a C++ kernel gets its parameter names from the definition (or
//     declaration) whose name, namespaces and parameter types match the
//     mangled ones, a function template's after substituting the kernel's
//     template arguments;
//   - every enum a parameter names is marked with the underlying type the
//     source declares.
//
// A prototype with a different number of parameters than the binary, or
// extern "C" declarations that disagree, are errors; a parameter whose size
// disagrees with the binary's is reported by gen, which knows the sizes.
// Kernels found in no source keep what the binary says, with a warning for
// extern "C" ones.
func Apply(m *parse.Module, files []*File) (warnings []string, err error) {
	if len(files) == 0 {
		return nil, nil
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	for _, k := range m.Kernels {
		if k.Signature == nil {
			applied, err := applyExternC(k, files)
			if err != nil {
				return nil, err
			}
			if !applied {
				warnings = append(warnings, fmt.Sprintf("no prototype for extern \"C\" kernel %s in %s: its parameters are typed by their PTX widths",
					k.Name, strings.Join(names, ", ")))
			}
			continue
		}
		if w := applyCXX(k, files); w != "" {
			warnings = append(warnings, w)
		}
		markEnums(k, files)
	}
	return warnings, nil
}

// applyExternC types an extern "C" kernel from its prototype, if a source
// declares it.
func applyExternC(k *parse.Kernel, files []*File) (bool, error) {
	var found []*Kernel
	for _, f := range files {
		for _, sk := range f.Kernels {
			if sk.ExternC && sk.Name == k.Name && !sk.Template {
				found = append(found, sk)
			}
		}
	}
	if len(found) == 0 {
		return false, nil
	}
	var best *Kernel
	for _, sk := range found {
		if len(sk.Params) != len(k.Params) {
			return false, fmt.Errorf("%s: extern \"C\" kernel %s has %s there, %d in the binary",
				sk.Pos, k.Name, plural(len(sk.Params), "parameter"), len(k.Params))
		}
		if best == nil {
			best = sk
			continue
		}
		for i := range sk.Params {
			a, b := sk.Params[i].Type, best.Params[i].Type
			if a != nil && b != nil && !same(a.Unqualified(), b.Unqualified(), nil) {
				return false, fmt.Errorf("%s: extern \"C\" kernel %s: parameter %d is %s here but %s at %s",
					sk.Pos, k.Name, i, a, b, best.Pos)
			}
		}
		if namedCount(sk) > namedCount(best) {
			best = sk
		}
	}
	sig := &parse.Signature{Base: k.Name, ExternC: true, Source: best.Pos.String(), Pretty: best.Signature()}
	for i, sp := range best.Params {
		t := sp.Type
		if t == nil {
			t = parse.NewOther(sp.Text)
		} else {
			k.Params[i].CType = t
		}
		sig.Params = append(sig.Params, t)
		sig.ParamNames = append(sig.ParamNames, sp.Name)
	}
	k.Signature = sig
	return true, nil
}

func namedCount(k *Kernel) int {
	n := 0
	for _, p := range k.Params {
		if p.Name != "" {
			n++
		}
		if p.Type != nil {
			n++
		}
	}
	if k.Body {
		n++ // a definition names what it uses
	}
	return n
}

// applyCXX returns a warning when a source kernel of the name exists but
// none matches the mangled types.
func applyCXX(k *parse.Kernel, files []*File) string {
	sig := k.Signature
	var best *Kernel
	sameName := 0
	for _, f := range files {
		for _, sk := range f.Kernels {
			if sk.ExternC || sk.Name != sig.Base || !sameScope(sk.Scope, sig.Scope) {
				continue
			}
			sameName++
			if len(sk.Params) != len(sig.Params) {
				continue
			}
			subst, ok := substitution(sk, sig)
			if !ok {
				continue
			}
			match := true
			for i, sp := range sk.Params {
				if sp.Type == nil || !same(sp.Type.Unqualified(), sig.Params[i].Unqualified(), subst) {
					match = false
					break
				}
			}
			if match && (best == nil || namedCount(sk) > namedCount(best)) {
				best = sk
			}
		}
	}
	if best == nil {
		if sameName > 0 {
			return fmt.Sprintf("kernel %s: no declaration of %s in the sources has its parameter types; its parameters keep positional names", sig.Pretty, sig.Base)
		}
		return ""
	}
	sig.Source = best.Pos.String()
	sig.ParamNames = nil
	for _, sp := range best.Params {
		sig.ParamNames = append(sig.ParamNames, sp.Name)
	}
	return ""
}

func sameScope(src, mangled []string) bool {
	if len(src) != len(mangled) {
		return false
	}
	for i := range src {
		if src[i] != mangled[i] {
			return false
		}
	}
	return true
}

// substitution maps a function template's type parameters to the kernel's
// template arguments; an explicit specialization's arguments must equal them.
func substitution(sk *Kernel, sig *parse.Signature) (map[string]*parse.CType, bool) {
	switch {
	case sk.SpecArgs != nil:
		if len(sk.SpecArgs) != len(sig.TemplateArgs) {
			return nil, false
		}
		for i, a := range sk.SpecArgs {
			b := sig.TemplateArgs[i]
			if (a.Type == nil) != (b.Type == nil) || a.Type == nil && a.Value != b.Value || a.Type != nil && !same(a.Type, b.Type, nil) {
				return nil, false
			}
		}
		return nil, true
	case !sk.Template:
		return nil, len(sig.TemplateArgs) == 0
	}
	if len(sk.TemplateParams) != len(sig.TemplateArgs) {
		return nil, false // packs and defaulted parameters: not matched
	}
	subst := map[string]*parse.CType{}
	for i, tp := range sk.TemplateParams {
		if tp.Pack {
			return nil, false
		}
		if tp.Type {
			if sig.TemplateArgs[i].Type == nil {
				return nil, false
			}
			subst[tp.Name] = sig.TemplateArgs[i].Type
		}
	}
	return subst, true
}

// same compares a source type with a mangled one: builtins by name,
// pointers by pointee (qualifiers included), classes by name and template
// arguments; restrict is ignored. A source name written without all its
// namespaces (it was declared in a header) matches the mangled name's tail.
func same(src, mangled *parse.CType, subst map[string]*parse.CType) bool {
	if src.Kind == parse.CNamed && len(src.Scope) == 0 && len(src.Args) == 0 && subst[src.Base] != nil {
		s := subst[src.Base].Qualified(src.Const, src.Volatile, false)
		return same(s, mangled, nil)
	}
	if src.Kind != mangled.Kind || src.Const != mangled.Const || src.Volatile != mangled.Volatile {
		return false
	}
	switch src.Kind {
	case parse.CBuiltin:
		return src.Name == mangled.Name
	case parse.CPointer:
		return same(src.Elem, mangled.Elem, subst)
	case parse.CNamed:
		if src.Base != mangled.Base || len(src.Args) != len(mangled.Args) || len(src.Scope) > len(mangled.Scope) {
			return false
		}
		tail := mangled.Scope[len(mangled.Scope)-len(src.Scope):]
		for i := range src.Scope {
			if src.Scope[i] != tail[i] {
				return false
			}
		}
		for i, a := range src.Args {
			b := mangled.Args[i]
			if a.Type != nil && b.Type != nil {
				if !same(a.Type, b.Type, subst) {
					return false
				}
			} else if a.Type != nil || b.Type != nil || a.Value != b.Value {
				return false
			}
		}
		return true
	}
	return src.Spelling == mangled.Spelling
}

// markEnums annotates the enums a kernel's parameter types name.
func markEnums(k *parse.Kernel, files []*File) {
	var walk func(t *parse.CType)
	walk = func(t *parse.CType) {
		if t == nil {
			return
		}
		switch t.Kind {
		case parse.CPointer:
			walk(t.Elem)
		case parse.CNamed:
			for _, f := range files {
				if e := f.enums[t.Name]; e != nil && !t.Enum {
					t.Enum, t.Underlying, t.Decl = true, e.Underlying, e.Pos.String()
				}
			}
			for _, a := range t.Args {
				walk(a.Type)
			}
		}
	}
	for _, p := range k.Params {
		walk(p.CType)
	}
}

func plural(n int, s string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, s)
	}
	return fmt.Sprintf("%d %ss", n, s)
}
