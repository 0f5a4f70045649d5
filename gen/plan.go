package gen

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cugen/cugen/parse"
)

// A plan is everything the emitter needs, decided before it writes a line:
// which kernels are wrapped, every Go name (by the rules in names.go), every
// parameter's Go type (by the rules in types.go, computed once and stored
// here), and the types the package declares. emit.go only reads it.
type plan struct {
	opts     Options
	libs     []*libPlan
	kernels  []*kernelPlan // by library, then in the model's order (by mangled name)
	globals  []*globalPlan
	hidden   []string       // the variables not wrapped, each name once (inputs may share names)
	decls    []*declType    // the types the package declares, by Go name
	mappings []*TypeMapping // the -type mappings some parameter uses, by C++ name
	notes    []string       // the name collisions and how they were resolved
	// skipped says, per kernel no device can launch, why it has no
	// function, for the file's header (parse warns about each too).
	skipped []string
}

// libPlan is one input: its rt.Library and embedded image.
type libPlan struct {
	Library
	input    string // the input's name as a name part, "Attention"
	libVar   string // the exported *rt.Library
	imageVar string // the //go:embed'ed bytes
}

// kernelPlan is one kernel's Go function.
type kernelPlan struct {
	lib    *libPlan
	k      *parse.Kernel
	goName string
	plain  string // goName before the package's style (Style), which names made from it get
	handle string // the exported *rt.Kernel variable
	node   string // the node update function
	params []paramPlan
	buf    string // the parameter buffer's identifier
	nodeP  string // the node update function's rt.KernelNode parameter
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
	lib    *libPlan
	g      *parse.Global
	goName string
	elem   goType
	n      int    // elements
	note   string // why the -src declaration went unused, if it did
}

// newPlan plans the file. Types are computed before names (an overload's
// name holds its parameter types), and names are given in a fixed order of
// precedence, each kind avoiding the names of the kinds before it: the
// library variables, the kernels, the declared types, the globals. Within a
// kind, a name depends only on the thing named (names.go), so adding a
// kernel renames only what it collides with.
func newPlan(libs []Library, opts Options) (*plan, error) {
	taken := map[string]string{}
	for id, file := range opts.Taken {
		taken[id] = "declared in " + file
	}
	names := newNamer(taken, opts.Style)
	typer, err := newTyper(opts.Types)
	if err != nil {
		return nil, err
	}
	p := &plan{opts: opts}
	p.planLibraries(libs, names)

	total := 0
	for _, lp := range p.libs {
		for _, k := range lp.Module.Kernels {
			total++
			if opts.Kernels != nil && !opts.Kernels.MatchString(k.Name) && !opts.Kernels.MatchString(k.Pretty()) {
				continue
			}
			if !utf8.ValidString(k.Name) {
				return nil, &KernelError{Kernel: k.Name, pretty: strconv.Quote(k.Name) + p.of(lp), Err: errNotUTF8("-kernels")}
			}
			if !k.Launchable() {
				// Its parameter buffer would not compile, and no device could take it.
				p.skipped = append(p.skipped, fmt.Sprintf("%s%s: parameter block of %d bytes, over CUDA's limit of %d", k.Name, p.of(lp), k.MaxParamSize(), parse.MaxParamBlock))
				continue
			}
			kp := &kernelPlan{lib: lp, k: k}
			for _, q := range k.Params {
				kp.params = append(kp.params, paramPlan{p: q})
			}
			p.kernels = append(p.kernels, kp)
		}
	}
	if len(p.kernels)+len(p.skipped) == 0 && total > 0 {
		return nil, &OptionError{Option: "-kernels", Value: opts.Kernels.String(), Err: fmt.Errorf("matches none of the %d kernels", total)}
	}

	// Named C++ types passed by value first, so that pointers to them are
	// typed whatever the kernels' order; then the rest of the C++ types.
	for _, named := range []bool{true, false} {
		for _, kp := range p.kernels {
			for i, q := range kp.params {
				if q.p.CType != nil && (q.p.CType.Kind == parse.CNamed) == named {
					if _, err := kp.typeParam(typer, i); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	var reqs []*nameReq
	for _, kp := range p.kernels {
		base := kernelBaseName(kp.k)
		reqs = append(reqs, &nameReq{
			cands: kernelCandidates(base, kp.overloadElems(typer), kp.overloadSuffix(typer), kp.lib.input, kp.k),
			key:   kp.lib.Source + ":" + kp.k.Name,
			what:  kp.k.Pretty() + p.of(kp.lib),
		})
	}
	names.assign(reqs)
	for i, kp := range p.kernels {
		kp.goName, kp.plain = reqs[i].name, reqs[i].plain
	}

	// Each kernel's exported handle and node update function, named after
	// its launch function.
	reqs = nil
	for _, kp := range p.kernels {
		key, what := kp.lib.Source+":"+kp.k.Name, kp.k.Pretty()+p.of(kp.lib)
		reqs = append(reqs,
			&nameReq{cands: []string{handleName(kp.goName)}, key: key + ":handle", what: "the handle of " + what, raw: true},
			&nameReq{cands: []string{nodeName(kp.goName)}, key: key + ":node", what: "the node update of " + what, raw: true})
	}
	names.assign(reqs)
	for i, kp := range p.kernels {
		kp.handle, kp.node = reqs[2*i].name, reqs[2*i+1].name
	}

	for _, kp := range p.kernels {
		used := bodyNames(kp.handle)
		for i := range kp.params {
			q := &kp.params[i]
			if _, err := kp.typeParam(typer, i); err != nil {
				return nil, err
			}
			q.name = paramName(kp.k, q.p, used)
		}
		kp.buf = unique(bufVar, used)
		kp.nodeP = unique(nodeParam, used)
	}

	// Variables are typed before the types are named: a variable of a
	// class -src defines declares its type.
	variables, matched := 0, 0
	hidden := map[string]bool{}
	for _, lp := range p.libs {
		for _, g := range lp.Module.Globals {
			if g.Extern || g.Count == 0 {
				continue
			}
			variables++
			if !opts.wrapsGlobal(g) {
				if !hidden[g.Name] {
					hidden[g.Name] = true
					p.hidden = append(p.hidden, shown(g.Name))
				}
				continue
			}
			matched++
			if !utf8.ValidString(g.Name) {
				return nil, fmt.Errorf("variable %s%s: %w", strconv.Quote(g.Name), p.of(lp), errNotUTF8("-globals"))
			}
			elem, n, note := typer.globalType(g)
			p.globals = append(p.globals, &globalPlan{lib: lp, g: g, elem: elem, n: n, note: note})
		}
	}
	if opts.Globals != nil && !opts.NoGlobals && matched == 0 && variables > 0 {
		return nil, &OptionError{Option: "-globals", Value: opts.Globals.String(), Err: fmt.Errorf("matches none of the %d variables (-globals none wraps none)", variables)}
	}

	decls := typer.declared()
	reqs = nil
	for _, d := range decls {
		reqs = append(reqs, &nameReq{cands: typeCandidates(d.want, d.scope), key: d.key, what: d.what})
	}
	names.assign(reqs)
	for i, d := range decls {
		d.name = reqs[i].name
	}

	reqs = nil
	for _, gp := range p.globals {
		reqs = append(reqs, &nameReq{cands: globalCandidates(gp.g.Name, gp.lib.input), key: gp.lib.Source + ":" + gp.g.Name, what: globalKind(gp.g) + " " + gp.g.Name + p.of(gp.lib)})
	}
	names.assign(reqs)
	for i, gp := range p.globals {
		gp.goName = reqs[i].name
	}
	p.decls, p.mappings, p.notes = typer.sortedDecls(), typer.sortedMappings(), names.notes
	for _, kp := range p.kernels {
		for _, q := range kp.params {
			if q.typ.kind == gkDecl {
				q.typ.decl.markPacked()
			}
		}
	}
	return p, nil
}

// planLibraries names each input's library and image variables: Library and
// image for a file of one input, unless the package declares them already
// or has other cugen runs (Options.NamedLibraries); else each named after
// its input (libraryNames).
func (p *plan) planLibraries(libs []Library, names *namer) {
	stems := map[string]int{}
	for _, l := range libs {
		stems[camel(l.name())]++
	}
	for _, l := range libs {
		input := camel(l.name())
		if stems[input] > 1 {
			input = camel(l.Source)
		}
		p.libs = append(p.libs, &libPlan{Library: l, input: input})
	}
	var reqs []*nameReq
	for _, lp := range p.libs {
		lib, image := libraryNames(lp.input)
		libReq := &nameReq{cands: []string{lib}, key: lp.Source, what: "the library of " + lp.Source}
		imageReq := &nameReq{cands: []string{image}, key: lp.Source, what: "the image of " + lp.Source, raw: true}
		if len(libs) == 1 && !p.opts.NamedLibraries {
			libReq.cands = []string{libraryVar, lib}
			imageReq.cands = []string{imageVar, image}
		}
		reqs = append(reqs, libReq, imageReq)
	}
	names.assign(reqs)
	for i, lp := range p.libs {
		lp.libVar, lp.imageVar = reqs[2*i].name, reqs[2*i+1].name
	}
}

// stem is a file name without its directory and extension.
func stem(name string) string {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	return strings.TrimSuffix(base, path.Ext(base))
}

// globalKind is how CUDA declares g: __device__, __constant__, __managed__.
func globalKind(g *parse.Global) string {
	switch {
	case g.Managed:
		return "__managed__"
	case g.Space == parse.SpaceConst:
		return "__constant__"
	}
	return "__device__"
}

// wrapsGlobal says whether the package wraps a variable: none with
// -globals none, the ones -globals chooses, or by default every one but the
// compiler's internals (parse.Global.Internal) and those no code refers to
// and no source declares.
func (o *Options) wrapsGlobal(g *parse.Global) bool {
	if o.NoGlobals {
		return false
	}
	if o.Globals != nil {
		return o.Globals.MatchString(g.Name) || o.Globals.MatchString(parse.DemangleName(g.Name))
	}
	return !g.Internal() && (g.Refs != parse.RefsNone || g.Decl != "")
}

// typeParam computes parameter i's Go type on its first call and returns the
// stored result after. The kernel's Go name matters only to a parameter of
// no C++ type passed as bytes (its type is named after the kernel), and such
// a parameter is first typed after the kernels are named.
func (kp *kernelPlan) typeParam(t *typer, i int) (goType, error) {
	q := &kp.params[i]
	if !q.typed {
		q.typ, q.err = t.paramType(kp.k, q.p, kp.plain)
		q.typed = true
	}
	return q.typ, q.err
}

// overloadElems is the element types of the kernel's parameters (what a
// pointer points to, or the type itself), each once in the order they first
// appear, as a name part: residual(bf16*, const bf16*, int) →
// BFloat16Int32. It tells apart the overloads that differ by the type they
// compute in, with a name much shorter than overloadSuffix's.
func (kp *kernelPlan) overloadElems(t *typer) string {
	if len(kp.params) == 0 {
		return "Void"
	}
	var parts []string
	seen := map[string]bool{}
	for i, q := range kp.params {
		var part string
		if q.p.CType == nil {
			part = camel(q.p.PTXType)
		} else if g, err := kp.typeParam(t, i); err != nil {
			part = fmt.Sprint(q.p.Size)
		} else {
			part = g.elemSuffix()
		}
		if !seen[part] {
			seen[part] = true
			parts = append(parts, part)
		}
	}
	return join(parts...)
}

// overloadSuffix is the kernel's parameter types as a name part, which tells
// overloads apart.
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
