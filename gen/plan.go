package gen

import (
	"fmt"

	"github.com/cugen/cugen/parse"
)

// A plan is everything the emitter needs, decided before it writes a line:
// which kernels are wrapped, every Go name (by the rules in names.go), every
// parameter's Go type (by the rules in types.go, computed once and stored
// here), and the types the package declares. emit.go only reads it.
type plan struct {
	opts     Options
	mod      *parse.Module
	kernels  []*kernelPlan // in the model's order (by mangled name)
	globals  []*globalPlan
	decls    []*declType    // the types the package declares, by Go name
	mappings []*TypeMapping // the -type mappings some parameter uses, by C++ name
}

// kernelPlan is one kernel's Go function.
type kernelPlan struct {
	k      *parse.Kernel
	goName string
	handle string // the unexported *rt.Kernel variable
	params []paramPlan
	buf    string // the parameter buffer's identifier
	note   string // how a name collision was resolved, for the file's header
}

// paramPlan is one parameter of a launch function.
type paramPlan struct {
	p    *parse.Param
	name string
	typ  goType
	// typed says typ (or err) holds the parameter's one computation.
	typed bool
	err   error
}

type globalPlan struct {
	g      *parse.Global
	goName string
	elem   goType
}

// newPlan plans the package in a fixed order, which the names depend on
// when two things want the same identifier: first the named C++ types passed
// by value (so that pointers to them can be typed), then the kernels' names
// (overloads told apart by their parameter types), then the remaining
// parameter types and the parameter names, then the globals.
func newPlan(m *parse.Module, opts Options) (*plan, error) {
	names := newNamer(libraryVar)
	typer, err := newTyper(names, opts.Types)
	if err != nil {
		return nil, err
	}
	p := &plan{opts: opts, mod: m}

	for _, k := range m.Kernels {
		if opts.Kernels != nil && !opts.Kernels.MatchString(k.Name) && !opts.Kernels.MatchString(k.Pretty()) {
			continue
		}
		kp := &kernelPlan{k: k}
		for _, q := range k.Params {
			kp.params = append(kp.params, paramPlan{p: q})
		}
		p.kernels = append(p.kernels, kp)
	}
	if len(p.kernels) == 0 && len(m.Kernels) > 0 {
		return nil, &OptionError{Option: "-kernels", Value: opts.Kernels.String(), Err: fmt.Errorf("matches none of the %d kernels", len(m.Kernels))}
	}

	for _, kp := range p.kernels {
		for i, q := range kp.params {
			if q.p.CType != nil && q.p.CType.Kind == parse.CNamed {
				if _, err := kp.typeParam(typer, i); err != nil {
					return nil, err
				}
			}
		}
	}

	base := map[*kernelPlan]string{}
	groups := map[string]int{}
	for _, kp := range p.kernels {
		base[kp] = kernelBaseName(kp.k)
		groups[base[kp]]++
	}
	for _, kp := range p.kernels {
		want := base[kp]
		if groups[want] > 1 {
			want = join(want, kp.overloadSuffix(typer))
		}
		kp.goName = names.claim(want, kp.k.Name)
		if kp.goName != base[kp] {
			kp.note = fmt.Sprintf("%s → %s", kp.k.Pretty(), kp.goName)
		}
	}

	for _, kp := range p.kernels {
		kp.handle = handleName(kp.goName)
		used := bodyNames(kp.handle)
		for i := range kp.params {
			q := &kp.params[i]
			if _, err := kp.typeParam(typer, i); err != nil {
				return nil, err
			}
			q.name = paramName(kp.k, q.p, used)
		}
		kp.buf = unique(bufVar, used)
	}

	for _, g := range m.Globals {
		if g.Extern || g.Count == 0 {
			continue
		}
		elem, ok := ptxScalars[g.PTXType]
		if !ok || elem.size != g.ElemSize {
			elem = goType{kind: gkInt, size: 1, name: "uint8"}
		}
		p.globals = append(p.globals, &globalPlan{g: g, goName: names.claim(camel(g.Name), g.Name), elem: elem})
	}
	p.decls, p.mappings = typer.sortedDecls(), typer.sortedMappings()
	return p, nil
}

// typeParam computes parameter i's Go type on its first call and returns the
// stored result after. The kernel's Go name matters only to a parameter of
// no C++ type passed as bytes (its type is named after the kernel), and such
// a parameter is first typed after the kernels are named.
func (kp *kernelPlan) typeParam(t *typer, i int) (goType, error) {
	q := &kp.params[i]
	if !q.typed {
		q.typ, q.err = t.paramType(kp.k, q.p, kp.goName)
		q.typed = true
	}
	return q.typ, q.err
}

// overloadSuffix tells overloads apart by their parameter types.
func (kp *kernelPlan) overloadSuffix(t *typer) string {
	if len(kp.params) == 0 {
		return "Void"
	}
	var parts []string
	for i, q := range kp.params {
		if q.p.CType == nil {
			parts = append(parts, camel(q.p.PTXType))
			continue
		}
		g, err := kp.typeParam(t, i)
		if err != nil {
			parts = append(parts, fmt.Sprint(q.p.Size))
			continue
		}
		parts = append(parts, g.suffix())
	}
	return join(parts...)
}
