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
//     source declares, and every class with its definition (ClassDef), a
//     class template's with the instance's arguments substituted;
//   - a module-scope variable gets the type and array extents its
//     declaration gives (Global.CType, Global.Dims, Global.Decl).
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
		warnings = append(warnings, f.Warnings...)
	}
	an := &annotator{files: files, instances: map[string]*parse.ClassDef{}, done: map[*parse.ClassDef]bool{}}
	for _, k := range m.Kernels {
		if k.Untyped != "" {
			continue // its parameters are binary widths: no prototype fits them
		}
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
	}
	for _, k := range m.Kernels {
		for _, p := range k.Params {
			an.annotate(p.CType, 0)
		}
	}
	applyVars(m, files, an)
	return warnings, nil
}

// applyVars gives each module-scope variable the declaration a source has
// for it, found by its (demangled) qualified name.
func applyVars(m *parse.Module, files []*File, an *annotator) {
	vars := map[string]*Var{}
	for _, f := range files {
		for _, v := range f.Vars {
			if old, ok := vars[v.QualifiedName()]; !ok || old.Extern && !v.Extern {
				vars[v.QualifiedName()] = v
			}
		}
	}
	for _, g := range m.Globals {
		v := vars[parse.DemangleName(g.Name)]
		if v == nil {
			continue
		}
		g.CType, g.Dims, g.Decl = v.Type, v.Dims, v.Pos.String()
		an.annotate(g.CType, 0)
	}
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
	sig := &parse.Signature{Base: k.Name, ExternC: true, Source: best.Pos.String(), Pretty: best.Signature(), Doc: docOf(best, found)}
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

// docOf is best's doc comment, else that of another declaration of the
// kernel (a prototype in a header documents a definition elsewhere).
func docOf(best *Kernel, all []*Kernel) string {
	if best.Doc != "" {
		return best.Doc
	}
	for _, k := range all {
		if k.Doc != "" {
			return k.Doc
		}
	}
	return ""
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
	var bestNames []string
	sameName := 0
	for _, f := range files {
		for _, sk := range f.Kernels {
			if sk.ExternC || sk.Name != sig.Base || !sameScope(sk.Scope, sig.Scope) {
				continue
			}
			sameName++
			sub, ok := substitution(sk, sig)
			if !ok {
				continue
			}
			names, ok := matchParams(sk, sig, sub)
			if ok && (best == nil || namedCount(sk) > namedCount(best)) {
				best, bestNames = sk, names
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
	sig.Doc = best.Doc
	sig.ParamNames = bestNames
	markHandles(k, best)
	return ""
}

// markHandles gives the kernel's unsigned long long parameters that the
// source declares as a texture or surface object handle their typedef
// (CType.Typedef). The mangled name's types are shared between parameters,
// so a marked one is a copy. Kernels with a pack expansion are left alone.
func markHandles(k *parse.Kernel, sk *Kernel) {
	if k.Signature.PackSizes != nil || len(sk.Params) != len(k.Params) {
		return
	}
	for i, sp := range sk.Params {
		if sp.Type == nil || sp.Type.Typedef == "" || k.Params[i].CType == nil {
			continue
		}
		c := *k.Params[i].CType
		if c.Kind != parse.CBuiltin || c.Name != sp.Type.Name {
			continue
		}
		c.Typedef = sp.Type.Typedef
		k.Params[i].CType = &c
		k.Signature.Params[i] = &c
	}
}

// matchParams matches a source kernel's parameters with the mangled ones,
// a pack expansion's pattern once per element, and returns the names the
// kernel's parameters get: a pack's elements are numbered (xs0, xs1).
func matchParams(sk *Kernel, sig *parse.Signature, sub *subst) ([]string, bool) {
	declared := sig.PackSizes
	if declared == nil {
		declared = make([]int, len(sig.Params))
		for i := range declared {
			declared[i] = -1
		}
	}
	if len(sk.Params) != len(declared) {
		return nil, false
	}
	var names []string
	at := 0 // the next mangled parameter
	for i, sp := range sk.Params {
		if sp.Type == nil || sp.Pack != (declared[i] >= 0) {
			return nil, false
		}
		if !sp.Pack {
			if !same(sp.Type.Unqualified(), sig.Params[at].Unqualified(), sub) {
				return nil, false
			}
			names = append(names, sp.Name)
			at++
			continue
		}
		pack := sub.packIn(sp.Type)
		if pack == "" || len(sub.packs[pack]) != declared[i] {
			return nil, false
		}
		for j, elem := range sub.packs[pack] {
			one := sub.with(pack, elem)
			if !same(sp.Type.Unqualified(), sig.Params[at].Unqualified(), one) {
				return nil, false
			}
			name := ""
			if sp.Name != "" {
				name = fmt.Sprintf("%s%d", sp.Name, j)
			}
			names = append(names, name)
			at++
		}
	}
	return names, at == len(sig.Params)
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

// subst maps a function template's parameters to a kernel's template
// arguments: type parameters to types, parameter packs to their elements.
type subst struct {
	types map[string]*parse.CType
	packs map[string][]*parse.CType
}

// with is s with the pack name standing for one element (a pattern's
// instance).
func (s *subst) with(pack string, elem *parse.CType) *subst {
	types := map[string]*parse.CType{pack: elem}
	for k, v := range s.types {
		if k != pack {
			types[k] = v
		}
	}
	return &subst{types: types, packs: s.packs}
}

// packIn is the parameter pack a pattern type names, "" when none.
func (s *subst) packIn(t *parse.CType) string {
	if s == nil || t == nil {
		return ""
	}
	switch t.Kind {
	case parse.CPointer:
		return s.packIn(t.Elem)
	case parse.CNamed:
		if _, ok := s.packs[t.Base]; ok && len(t.Scope) == 0 && len(t.Args) == 0 {
			return t.Base
		}
		for _, a := range t.Args {
			if p := s.packIn(a.Type); p != "" {
				return p
			}
		}
	}
	return ""
}

// substitution maps a function template's parameters to the kernel's
// template arguments; an explicit specialization's arguments must equal
// them (packs flattened).
func substitution(sk *Kernel, sig *parse.Signature) (*subst, bool) {
	switch {
	case sk.SpecArgs != nil:
		spec, args := parse.Flatten(sk.SpecArgs), parse.Flatten(sig.TemplateArgs)
		if len(spec) != len(args) {
			return nil, false
		}
		for i, a := range spec {
			b := args[i]
			if (a.Type == nil) != (b.Type == nil) || a.Type == nil && a.Value != b.Value || a.Type != nil && !same(a.Type, b.Type, nil) {
				return nil, false
			}
		}
		return nil, true
	case !sk.Template:
		return nil, len(sig.TemplateArgs) == 0
	}
	if len(sk.TemplateParams) != len(sig.TemplateArgs) {
		return nil, false // defaulted parameters: not matched
	}
	s := &subst{types: map[string]*parse.CType{}, packs: map[string][]*parse.CType{}}
	for i, tp := range sk.TemplateParams {
		arg := sig.TemplateArgs[i]
		switch {
		case tp.Pack != arg.Pack:
			return nil, false
		case tp.Pack && tp.Type:
			elems := []*parse.CType{}
			for _, e := range arg.Elems {
				if e.Type == nil {
					return nil, false
				}
				elems = append(elems, e.Type)
			}
			s.packs[tp.Name] = elems
		case tp.Type:
			if arg.Type == nil {
				return nil, false
			}
			s.types[tp.Name] = arg.Type
		}
	}
	return s, true
}

// same compares a source type with a mangled one: builtins by name,
// pointers by pointee (qualifiers included), classes by name and template
// arguments (a pack expansion, Tuple<A...>, against the pack's elements);
// restrict is ignored. A source name written without all its namespaces
// (it was declared in a header) matches the mangled name's tail.
func same(src, mangled *parse.CType, sub *subst) bool {
	if sub != nil && src.Kind == parse.CNamed && len(src.Scope) == 0 && len(src.Args) == 0 && sub.types[src.Base] != nil {
		s := sub.types[src.Base].Qualified(src.Const, src.Volatile, false)
		return same(s, mangled, nil)
	}
	if src.Kind != mangled.Kind || src.Const != mangled.Const || src.Volatile != mangled.Volatile {
		return false
	}
	switch src.Kind {
	case parse.CBuiltin:
		return src.Name == mangled.Name
	case parse.CPointer:
		return same(src.Elem, mangled.Elem, sub)
	case parse.CNamed:
		if src.Base != mangled.Base || len(src.Scope) > len(mangled.Scope) {
			return false
		}
		tail := mangled.Scope[len(mangled.Scope)-len(src.Scope):]
		for i := range src.Scope {
			if src.Scope[i] != tail[i] {
				return false
			}
		}
		return sameArgs(src.Args, mangled.Args, sub)
	}
	return src.Spelling == mangled.Spelling
}

// sameArgs compares template argument lists, packs flattened; a source
// argument "A..." expands the pack A.
func sameArgs(src, mangled []parse.TemplateArg, sub *subst) bool {
	var flat []parse.TemplateArg
	for _, a := range src {
		if name, ok := strings.CutSuffix(a.Value, "..."); ok && a.Type == nil && sub != nil && sub.packs[name] != nil {
			for _, e := range sub.packs[name] {
				flat = append(flat, parse.TemplateArg{Type: e})
			}
			continue
		}
		flat = append(flat, a)
	}
	src, mangled = parse.Flatten(flat), parse.Flatten(mangled)
	if len(src) != len(mangled) {
		return false
	}
	for i, a := range src {
		b := mangled[i]
		if a.Type != nil && b.Type != nil {
			if !same(a.Type, b.Type, sub) {
				return false
			}
		} else if a.Type != nil || b.Type != nil || a.Value != b.Value {
			return false
		}
	}
	return true
}

// annotator marks the enums and classes types name with what the sources
// declare: an enum's underlying type, a class's definition. A class
// template's instance gets the template's definition with its arguments
// substituted, made once per instance.
type annotator struct {
	files     []*File
	instances map[string]*parse.ClassDef // by the instance's name
	done      map[*parse.ClassDef]bool   // definitions whose members are annotated
}

// maxAnnotateDepth bounds the walk through members' types (a hostile
// source's classes could nest without end through templates).
const maxAnnotateDepth = 64

func (an *annotator) annotate(t *parse.CType, depth int) {
	if t == nil || depth > maxAnnotateDepth {
		return
	}
	switch t.Kind {
	case parse.CPointer:
		an.annotate(t.Elem, depth+1)
	case parse.CNamed:
		for _, f := range an.files {
			if e := f.enums[t.Name]; e != nil && !t.Enum {
				t.Enum, t.Underlying, t.Decl = true, e.Underlying, e.Pos.String()
			}
		}
		for _, a := range parse.Flatten(t.Args) {
			an.annotate(a.Type, depth+1)
		}
		if t.Def == nil && !t.Enum {
			t.Def = an.definition(t)
		}
		if d := t.Def; d != nil && !an.done[d] {
			an.done[d] = true
			for _, fl := range d.Fields {
				an.annotate(fl.Type, depth+1)
			}
		}
	}
}

// definition is the class definition of t, a class template's with t's
// arguments substituted; nil when no source defines it.
func (an *annotator) definition(t *parse.CType) *parse.ClassDef {
	if d, ok := an.instances[t.Name]; ok {
		return d
	}
	qualified := strings.Join(append(append([]string(nil), t.Scope...), t.Base), "::")
	var c *class
	for _, f := range an.files {
		if c = f.classes[qualified]; c != nil {
			break
		}
	}
	if c == nil {
		return nil
	}
	if len(c.params) == 0 {
		if len(t.Args) > 0 {
			return nil // an instance of a class the source does not define as a template
		}
		return c.def
	}
	args := parse.Flatten(t.Args)
	if len(args) != len(c.params) {
		return nil // defaulted or packed parameters: beyond cugen
	}
	types := map[string]*parse.CType{}
	for i, a := range args {
		if a.Type != nil {
			types[c.params[i]] = a.Type
		}
	}
	d := *c.def
	d.Fields = nil
	for _, fl := range c.def.Fields {
		fl.Type = substituted(fl.Type, types)
		if fl.Type == nil {
			d.Opaque = "a member's type depends on a template argument cugen cannot substitute"
			fl.Type = parse.NewOther("?")
		}
		d.Fields = append(d.Fields, fl)
	}
	an.instances[t.Name] = &d
	return &d
}

// substituted is t with the template parameters in types replaced; nil
// when t names one that types lacks (a value parameter in an array bound is
// already a number after preprocessing, or is beyond cugen).
func substituted(t *parse.CType, types map[string]*parse.CType) *parse.CType {
	switch t.Kind {
	case parse.CPointer:
		e := substituted(t.Elem, types)
		if e == nil {
			return nil
		}
		if e == t.Elem {
			return t
		}
		return parse.NewPointer(e).Qualified(t.Const, t.Volatile, t.Restrict)
	case parse.CNamed:
		if r := types[t.Base]; r != nil && len(t.Scope) == 0 && len(t.Args) == 0 {
			return r.Qualified(t.Const, t.Volatile, t.Restrict)
		}
	}
	return t
}

func plural(n int, s string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, s)
	}
	return fmt.Sprintf("%d %ss", n, s)
}
