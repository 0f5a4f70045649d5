// Package gen writes the Go package for a parse.Module: one typed launch
// function per kernel, one typed accessor per module-scope variable, and the
// device image embedded with //go:embed. It plans names and types from the
// model first (plan.go's rules live in names.go and types.go), then emits the
// file with jennifer; the output is gofmt'd and byte-for-byte deterministic.
package gen

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/cugen/cugen/parse"
	"github.com/dave/jennifer/jen"
)

// Options control the generated package.
type Options struct {
	Package   string         // Go package name
	ImageFile string         // the embedded file, relative to the output's directory
	Source    string         // the input named in the header comment
	Kernels   *regexp.Regexp // when set, only matching kernels (mangled or demangled name) are wrapped
	Types     []TypeMapping  // C++ types passed as Go types (-type), loaded by LoadTypeMappings
}

// kernelPlan is one kernel's Go function.
type kernelPlan struct {
	k      *parse.Kernel
	goName string
	handle string // the unexported *rt.Kernel variable
	params []paramPlan
	buf    string // the parameter buffer's identifier
	note   string // collision note
}

type paramPlan struct {
	p    *parse.Param
	name string
	typ  goType
}

type globalPlan struct {
	g      *parse.Global
	goName string
	elem   goType
}

type plan struct {
	opts    Options
	mod     *parse.Module
	kernels []*kernelPlan
	globals []*globalPlan
	typer   *typer
}

// Generate returns the Go source of the package for m.
func Generate(m *parse.Module, opts Options) ([]byte, error) {
	if opts.Package == "" {
		return nil, fmt.Errorf("gen: no package name")
	}
	if opts.ImageFile == "" {
		return nil, fmt.Errorf("gen: no image file name")
	}
	p, err := newPlan(m, opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := p.emit().Render(&buf); err != nil {
		return nil, fmt.Errorf("gen: rendering: %v", err)
	}
	return buf.Bytes(), nil
}

func newPlan(m *parse.Module, opts Options) (*plan, error) {
	names := newNamer("Library")
	typer, err := newTyper(names, opts.Types)
	if err != nil {
		return nil, err
	}
	p := &plan{opts: opts, mod: m, typer: typer}

	var kernels []*parse.Kernel
	for _, k := range m.Kernels {
		if opts.Kernels != nil && !opts.Kernels.MatchString(k.Name) && !opts.Kernels.MatchString(k.Pretty()) {
			continue
		}
		kernels = append(kernels, k)
	}
	if len(kernels) == 0 && len(m.Kernels) > 0 {
		return nil, fmt.Errorf("gen: -kernels %s matches none of the %d kernels", opts.Kernels, len(m.Kernels))
	}

	// Types passed by value first, so pointers to them can be typed.
	for _, k := range kernels {
		for _, q := range k.Params {
			if q.CType != nil && q.CType.Kind == parse.CNamed {
				if _, err := p.typer.paramType(k, q, ""); err != nil {
					return nil, err
				}
			}
		}
	}

	// Base names, then overload and collision resolution in a fixed order.
	base := map[*parse.Kernel]string{}
	groups := map[string][]*parse.Kernel{}
	for _, k := range kernels {
		b := kernelBaseName(p.typer, k)
		base[k] = b
		groups[b] = append(groups[b], k)
	}
	var plans []*kernelPlan
	for _, k := range kernels {
		kp := &kernelPlan{k: k}
		want := base[k]
		if len(groups[want]) > 1 {
			want = join(want, p.overloadSuffix(k))
		}
		kp.goName = names.claim(want, k.Name)
		if kp.goName != base[k] {
			kp.note = fmt.Sprintf("%s → %s", k.Pretty(), kp.goName)
		}
		plans = append(plans, kp)
	}
	for _, kp := range plans {
		kp.handle = "kern" + kp.goName
		if err := p.planParams(kp); err != nil {
			return nil, err
		}
	}
	p.kernels = plans

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
	return p, nil
}

// kernelBaseName is the Go name before collision handling: namespaces
// dropped, CamelCase, template arguments appended.
func kernelBaseName(t *typer, k *parse.Kernel) string {
	if k.Signature == nil {
		return camel(k.Name)
	}
	parts := []string{camel(k.Signature.Base)}
	for _, a := range k.Signature.TemplateArgs {
		parts = append(parts, t.argName(a))
	}
	return join(parts...)
}

// overloadSuffix tells overloads apart by their parameter types.
func (p *plan) overloadSuffix(k *parse.Kernel) string {
	if len(k.Params) == 0 {
		return "Void"
	}
	var parts []string
	for _, q := range k.Params {
		if q.CType == nil {
			parts = append(parts, camel(q.PTXType))
			continue
		}
		g, err := p.typer.paramType(k, q, "")
		if err != nil {
			parts = append(parts, fmt.Sprint(q.Size))
			continue
		}
		parts = append(parts, g.suffix())
	}
	return join(parts...)
}

func (p *plan) planParams(kp *kernelPlan) error {
	used := bodyNames(kp.handle)
	for _, q := range kp.k.Params {
		g, err := p.typer.paramType(kp.k, q, kp.goName)
		if err != nil {
			return err
		}
		kp.params = append(kp.params, paramPlan{p: q, name: paramName(kp.k, q, used), typ: g})
	}
	kp.buf = unique("args", used)
	return nil
}

func (p *plan) emit() *jen.File {
	f := jen.NewFile(p.opts.Package)
	f.ImportName(rtPkg, "rt")
	src := p.opts.Source
	if src == "" {
		src = p.opts.ImageFile
	}
	f.HeaderComment(fmt.Sprintf("Code generated by cugen from %s; DO NOT EDIT.", src))
	f.PackageComment(lineComment(fmt.Sprintf("Package %s launches the CUDA kernels of %s from Go.\n\n"+
		"Each kernel is a function taking an rt.Config and its parameters with their exact Go types;\n"+
		"the library is loaded once per driver, on first use, and launches in the context\n"+
		"of the config's stream (or the calling thread's current context).", p.opts.Package, src)))
	f.Anon("embed")

	f.Comment("//go:embed " + p.opts.ImageFile)
	f.Var().Id("image").Index().Byte()
	f.Line()
	f.Commentf("Library is the device image %s (%s, %s), loaded once per driver on first use.",
		p.opts.ImageFile, p.mod.Format, strings.Join(p.mod.Arches, " "))
	f.Var().Id("Library").Op("=").Qual(rtPkg, "NewLibrary").Call(jen.Lit(p.opts.ImageFile), jen.Id("image"))

	var notes []string
	for _, kp := range p.kernels {
		if kp.note != "" {
			notes = append(notes, kp.note)
		}
	}
	if len(notes) > 0 {
		f.Line()
		f.Comment(lineComment("Name collisions, resolved deterministically:\n\t" + strings.Join(notes, "\n\t")))
	}

	if len(p.kernels) > 0 {
		var defs []jen.Code
		for _, kp := range p.kernels {
			var specs []jen.Code
			specs = append(specs, jen.Lit(kp.k.Name))
			for _, q := range kp.params {
				specs = append(specs, jen.Qual(rtPkg, "ParamSpec").Values(
					jen.Id("Offset").Op(":").Lit(q.p.Offset), jen.Id("Size").Op(":").Lit(q.p.Size)))
			}
			defs = append(defs, jen.Id(kp.handle).Op("=").Id("Library").Dot("Kernel").Call(multiline(specs)...))
		}
		f.Var().Defs(defs...)
	}

	p.typer.emitDecls(f)
	byName := append([]*kernelPlan(nil), p.kernels...)
	sort.Slice(byName, func(i, j int) bool { return byName[i].goName < byName[j].goName })
	for _, kp := range byName {
		p.emitKernel(f, kp)
	}
	for _, gp := range p.globals {
		p.emitGlobal(f, gp)
	}
	return f
}

func multiline(c []jen.Code) []jen.Code {
	if len(c) <= 1 {
		return c
	}
	out := []jen.Code{c[0]}
	for _, x := range c[1:] {
		out = append(out, jen.Line().Add(x))
	}
	out[len(out)-1] = jen.Add(out[len(out)-1]).Op(",").Line()
	return out
}

func (p *plan) emitKernel(f *jen.File, kp *kernelPlan) {
	k := kp.k
	f.Line()
	var doc []string
	doc = append(doc, fmt.Sprintf("%s launches the kernel %s:", kp.goName, k.Name), "", "\t"+k.Pretty(), "")
	switch {
	case k.Signature == nil:
		doc = append(doc, "The kernel is extern \"C\": its name carries no C++ types, so the parameters",
			"are typed by their PTX widths (a pointer is a uint64 device address); cugen -src",
			"reads their types from the CUDA source.")
	case k.Signature.ExternC:
		doc = append(doc, "The kernel is extern \"C\": its parameter types are from its prototype at",
			k.Signature.Source+".")
	case k.Signature.Source != "":
		doc = append(doc, "Parameter names are from its definition at "+k.Signature.Source+".")
	}
	var bounds []string
	if k.MaxThreads[0] > 0 {
		bounds = append(bounds, fmt.Sprintf("at most %s threads per block", dimsString(k.MaxThreads)))
	}
	if k.ReqThreads[0] > 0 {
		bounds = append(bounds, fmt.Sprintf("exactly %s threads per block", dimsString(k.ReqThreads)))
	}
	if k.MinBlocksPerSM > 0 {
		bounds = append(bounds, fmt.Sprintf("at least %d blocks per multiprocessor", k.MinBlocksPerSM))
	}
	if k.MaxRegs > 0 {
		bounds = append(bounds, fmt.Sprintf("at most %d registers per thread", k.MaxRegs))
	}
	if k.ClusterDims[0] > 0 {
		bounds = append(bounds, fmt.Sprintf("cluster of %s blocks (set cfg.Cluster)", dimsString(k.ClusterDims)))
	}
	if len(bounds) > 0 {
		doc = append(doc, "Launch bounds: "+strings.Join(bounds, "; ")+".")
	}
	if len(k.Arches) > 0 {
		doc = append(doc, "Present only for: "+strings.Join(k.Arches, ", ")+"; launching on another device fails.")
	}
	if len(kp.params) > 0 {
		var ps []string
		for _, q := range kp.params {
			ct := q.p.PTXType
			if q.p.CType != nil {
				ct = q.p.CType.Spelling
			}
			ps = append(ps, fmt.Sprintf("%s %s (%s, offset %d, %s)", q.name, q.typ.spelling(), ct, q.p.Offset, plural(q.p.Size, "byte")))
		}
		doc = append(doc, "Parameters:", "")
		for _, s := range ps {
			doc = append(doc, "  - "+s)
		}
	}
	for len(doc) > 0 && doc[len(doc)-1] == "" {
		doc = doc[:len(doc)-1]
	}
	f.Comment(lineComment(strings.Join(doc, "\n")))

	sig := []jen.Code{jen.Id("cfg").Qual(rtPkg, "Config")}
	for _, q := range kp.params {
		sig = append(sig, jen.Id(q.name).Add(q.typ.code()))
	}
	var body []jen.Code
	if k.ParamSize == 0 {
		body = append(body, jen.Return(jen.Id(kp.handle).Dot("Launch").Call(jen.Id("cfg"), jen.Nil())))
	} else {
		body = append(body, jen.Var().Id(kp.buf).Index(jen.Lit(k.ParamSize)).Byte())
		for _, q := range kp.params {
			body = append(body, q.typ.pack(kp.buf, q.p.Offset, jen.Id(q.name)))
		}
		body = append(body, jen.Return(jen.Id(kp.handle).Dot("Launch").Call(jen.Id("cfg"), jen.Id(kp.buf).Index(jen.Empty(), jen.Empty()))))
	}
	f.Func().Id(kp.goName).Params(sig...).Error().Block(body...)
}

func dimsString(d [3]int) string {
	switch {
	case d[2] > 1:
		return fmt.Sprintf("%d×%d×%d", d[0], d[1], d[2])
	case d[1] > 1:
		return fmt.Sprintf("%d×%d", d[0], d[1])
	}
	return fmt.Sprint(d[0])
}

func (p *plan) emitGlobal(f *jen.File, gp *globalPlan) {
	g := gp.g
	n := g.Size / gp.elem.size
	kind := "__device__"
	ctor := "NewGlobal"
	scope := "Each context has its own copy: pass the context to every accessor."
	switch {
	case g.Managed:
		kind, ctor = "__managed__", "NewManaged"
		scope = "One address serves every context and the host."
	case g.Space == parse.SpaceConst:
		kind = "__constant__"
	}
	f.Line()
	desc := fmt.Sprintf("%s is the %s variable %s: .%s, %s", gp.goName, kind, g.Name, g.PTXType, plural(g.Size, "byte"))
	if g.Count > 1 || g.ElemSize != g.Size {
		desc += fmt.Sprintf(" (%s of %s)", plural(n, "element"), gp.elem.name)
	}
	desc += "."
	if len(g.Init) > 0 {
		desc += " It is initialized by the image."
	}
	f.Comment(lineComment(desc + "\n" + scope))
	f.Var().Id(gp.goName).Op("=").Qual(rtPkg, ctor).Types(gp.elem.code()).Call(jen.Id("Library"), jen.Lit(g.Name), jen.Lit(n))
}

// lineComment renders text as // comment lines (jennifer would use /* */ for
// multi-line text); blank lines become a bare //.
func lineComment(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = "//"
		} else {
			lines[i] = "// " + l
		}
	}
	return strings.Join(lines, "\n")
}
