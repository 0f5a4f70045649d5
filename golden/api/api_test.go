package api

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

var update = flag.Bool("update", false, "take added names and changed types into api.txt (removals stay refused)")

const (
	module    = "github.com/cugen/cugen"
	listFile  = "api.txt"
	deprecMrk = " // Deprecated"
)

// An entry is one exported name: "rt Primary func(dev int) (*Context, error)".
type entry struct {
	pkg, name  string // package path within the module ("rt"), and the name ("Kernel.Launch")
	decl       string // kind and type: "func(dev int) (*Context, error)"
	deprecated bool
}

func (e entry) key() string { return e.pkg + " " + e.name }

func (e entry) String() string {
	s := e.key() + " " + e.decl
	if e.deprecated {
		s += deprecMrk
	}
	return s
}

// public says whether a package of the module is part of its API.
func public(path string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	if rel == path || rel == "" {
		return rel == ""
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "internal" || part == "testdata" {
			return false
		}
	}
	top, _, _ := strings.Cut(rel, "/")
	return top != "cmd" && top != "examples" && top != "golden"
}

// current is the API the code declares now, sorted.
func current(t *testing.T) []entry {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  "../..",
		// The API is rt/cgo's with cgo (without, its Driver is a stub).
		Env: append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, module+"/...")
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, p := range pkgs {
		if !public(p.PkgPath) || p.Name == "main" {
			continue
		}
		for _, e := range p.Errors {
			t.Fatalf("%s: %v (the API of rt/cgo needs cgo: a C compiler)", p.PkgPath, e)
		}
		out = append(out, pkgAPI(p)...)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.key(), b.key()) })
	return out
}

// pkgAPI lists a package's exported names: package-level objects, the
// methods of exported types (promoted ones included), exported struct
// fields and interface methods.
func pkgAPI(p *packages.Package) []entry {
	rel := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, module), "/")
	if rel == "" {
		rel = "."
	}
	deprecated := deprecations(p)
	qual := func(other *types.Package) string {
		if other == p.Types {
			return ""
		}
		return strings.TrimPrefix(other.Path(), module+"/") // "parse", "regexp"
	}
	var out []entry
	add := func(name, decl string, pos token.Pos) {
		out = append(out, entry{pkg: rel, name: name, decl: decl, deprecated: deprecated[pos]})
	}
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			add(name, "func"+strings.TrimPrefix(types.TypeString(obj.Type(), qual), "func"), obj.Pos())
		case *types.Var:
			add(name, "var "+types.TypeString(obj.Type(), qual), obj.Pos())
		case *types.Const:
			add(name, "const "+types.TypeString(obj.Type(), qual), obj.Pos())
		case *types.TypeName:
			kind := "type"
			if obj.IsAlias() {
				kind = "type ="
			}
			under := obj.Type().Underlying()
			desc := types.TypeString(under, qual)
			switch under.(type) {
			case *types.Struct:
				desc = "struct"
			case *types.Interface:
				desc = "interface"
			}
			if n, ok := obj.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
				var tps []string
				for i := 0; i < n.TypeParams().Len(); i++ {
					tp := n.TypeParams().At(i)
					tps = append(tps, tp.Obj().Name()+" "+types.TypeString(tp.Constraint(), qual))
				}
				kind += "[" + strings.Join(tps, ", ") + "]"
			}
			add(name, kind+" "+desc, obj.Pos())
			member := add
			if obj.IsAlias() {
				// An alias of a named type (rt.ArrayDesc = tex.ArrayDesc)
				// keeps its members reachable under its name: they are
				// listed with it, and leave with it, deprecated when it is.
				if _, named := types.Unalias(obj.Type()).(*types.Named); !named {
					continue
				}
				aliasDep := deprecated[obj.Pos()]
				member = func(name, decl string, pos token.Pos) {
					out = append(out, entry{pkg: rel, name: name, decl: decl, deprecated: aliasDep || deprecated[pos]})
				}
			}
			switch u := under.(type) {
			case *types.Struct:
				for i := 0; i < u.NumFields(); i++ {
					if f := u.Field(i); f.Exported() {
						member(name+"."+f.Name(), "field "+types.TypeString(f.Type(), qual), f.Pos())
					}
				}
			case *types.Interface:
				for i := 0; i < u.NumMethods(); i++ {
					if m := u.Method(i); m.Exported() {
						member(name+"."+m.Name(), "method"+strings.TrimPrefix(types.TypeString(m.Type(), qual), "func"), m.Pos())
					}
				}
				continue
			}
			ms := types.NewMethodSet(types.NewPointer(obj.Type()))
			for i := 0; i < ms.Len(); i++ {
				m := ms.At(i).Obj()
				if m.Exported() {
					member(name+"."+m.Name(), "method"+strings.TrimPrefix(types.TypeString(m.Type(), qual), "func"), m.Pos())
				}
			}
		}
	}
	return out
}

// deprecations marks the declarations whose doc comment has a paragraph
// starting "Deprecated:", by the position of the name declared.
func deprecations(p *packages.Package) map[token.Pos]bool {
	out := map[token.Pos]bool{}
	is := func(cg ...*ast.CommentGroup) bool {
		for _, c := range cg {
			if c == nil {
				continue
			}
			for _, para := range strings.Split(c.Text(), "\n\n") {
				if strings.HasPrefix(para, "Deprecated:") {
					return true
				}
			}
		}
		return false
	}
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			if is(f.Doc) {
				for _, n := range f.Names {
					out[n.Pos()] = true
				}
			}
		}
	}
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			switch d := n.(type) {
			case *ast.FuncDecl:
				if is(d.Doc) {
					out[d.Name.Pos()] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if is(s.Doc, singleDoc(d)) {
							out[s.Name.Pos()] = true
						}
					case *ast.ValueSpec:
						if is(s.Doc, singleDoc(d)) {
							for _, n := range s.Names {
								out[n.Pos()] = true
							}
						}
					}
				}
			case *ast.StructType:
				fields(d.Fields)
			case *ast.InterfaceType:
				fields(d.Methods)
			}
			return true
		})
	}
	return out
}

// singleDoc is a declaration's doc comment when it declares one spec
// ("// Deprecated: ...\nvar X = 1").
func singleDoc(d *ast.GenDecl) *ast.CommentGroup {
	if len(d.Specs) == 1 {
		return d.Doc
	}
	return nil
}

// committed reads api.txt.
func committed(t *testing.T) []entry {
	t.Helper()
	data, err := os.ReadFile(listFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e := entry{}
		if strings.HasSuffix(line, deprecMrk) {
			e.deprecated, line = true, strings.TrimSuffix(line, deprecMrk)
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			t.Fatalf("%s: bad line %q", listFile, sc.Text())
		}
		e.pkg, e.name, e.decl = f[0], f[1], f[2]
		out = append(out, e)
	}
	return out
}

const header = `# The exported API of github.com/cugen/cugen: package, name, kind and type;
# "// Deprecated" marks a name whose doc says so. Generated by
# go test ./golden/api -update; a name leaves only after it was marked
# deprecated here and CHANGELOG.md names it (package api's doc).
`

// TestAPI compares the exported API with api.txt (see the package doc).
func TestAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module; skipped in -short mode")
	}
	now, was := current(t), committed(t)
	changelog, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	d := compare(was, now, changelog)
	refused, added, changed, deprecated, removed := d.refused, d.added, d.changed, d.deprecated, d.removed
	if len(refused) > 0 {
		t.Errorf("exported names removed (-update does not take these):\n\t%s", strings.Join(refused, "\n\t"))
	}
	if len(added)+len(changed)+len(deprecated)+len(removed) == 0 {
		return
	}
	if !*update {
		t.Errorf("the API differs from %s; review, note it in CHANGELOG.md, and run go test ./golden/api -update:\n"+
			"added:\n\t%s\nchanged:\n\t%s\ndeprecation marked or unmarked:\n\t%s\nremoved after deprecation:\n\t%s",
			listFile, strings.Join(added, "\n\t"), strings.Join(changed, "\n\t"), strings.Join(deprecated, "\n\t"), strings.Join(removed, "\n\t"))
		return
	}
	if len(refused) > 0 {
		return
	}
	var b strings.Builder
	b.WriteString(header)
	for _, e := range now {
		b.WriteString(e.String() + "\n")
	}
	if err := os.WriteFile(listFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("updated %s: %d added, %d changed, %d deprecation changes, %d removed", listFile, len(added), len(changed), len(deprecated), len(removed))
}

// A diff is how the code's API differs from the list's.
type diff struct {
	refused, added, changed, deprecated, removed []string
}

// compare is TestAPI's judgement: a name the list has and the code lacks is
// removed if the list marks it deprecated and the changelog names it, and
// refused otherwise.
func compare(was, now []entry, changelog []byte) diff {
	var d diff
	nowBy := map[string]entry{}
	for _, e := range now {
		nowBy[e.key()] = e
	}
	wasBy := map[string]entry{}
	for _, e := range was {
		wasBy[e.key()] = e
		n, ok := nowBy[e.key()]
		switch {
		case !ok && e.deprecated && mentions(changelog, e):
			d.removed = append(d.removed, e.key())
		case !ok && e.deprecated:
			d.refused = append(d.refused, fmt.Sprintf("%s: deprecated, but CHANGELOG.md does not name %s under ### Removed", e.key(), e.name))
		case !ok:
			d.refused = append(d.refused, fmt.Sprintf("%s: not deprecated first; restore it, mark it \"Deprecated: use X.\" and keep it working", e.key()))
		case n.decl != e.decl:
			d.changed = append(d.changed, fmt.Sprintf("%s: %s → %s", e.key(), e.decl, n.decl))
		case n.deprecated != e.deprecated:
			d.deprecated = append(d.deprecated, e.key())
		}
	}
	for _, e := range now {
		if _, ok := wasBy[e.key()]; !ok {
			d.added = append(d.added, e.key())
		}
	}
	return d
}

// mentions says a "### Removed" section of CHANGELOG.md names e (as
// `Name`, or pkg.Name with the package's last element: rt.Primary,
// rt.Kernel.Placement).
func mentions(changelog []byte, e entry) bool {
	var removed []byte
	for _, sec := range bytes.Split(changelog, []byte("\n### "))[1:] {
		if title, body, _ := bytes.Cut(sec, []byte("\n")); string(bytes.TrimSpace(title)) == "Removed" {
			if end := bytes.Index(body, []byte("\n## ")); end >= 0 {
				body = body[:end]
			}
			removed = append(removed, body...)
		}
	}
	return bytes.Contains(removed, []byte("`"+e.name+"`")) || bytes.Contains(removed, []byte(filepath.Base(e.pkg)+"."+e.name))
}

// TestCompare: what the list takes and what it refuses.
func TestCompare(t *testing.T) {
	was := []entry{
		{pkg: "rt", name: "Keep", decl: "func()"},
		{pkg: "rt", name: "Gone", decl: "func()"},
		{pkg: "rt", name: "Old", decl: "func()", deprecated: true},
		{pkg: "rt", name: "Older", decl: "func()", deprecated: true},
		{pkg: "rt", name: "Typed", decl: "func(int)"},
		{pkg: "rt", name: "Marked", decl: "func()"},
	}
	now := []entry{
		{pkg: "rt", name: "Keep", decl: "func()"},
		{pkg: "rt", name: "Typed", decl: "func(int64)"},
		{pkg: "rt", name: "Marked", decl: "func()", deprecated: true},
		{pkg: "rt", name: "New", decl: "func()"},
	}
	d := compare(was, now, []byte("## Unreleased\n### Deprecated\n- `Old`\n### Removed\n- `Older`, deprecated in v0.3.\n## v0.3\n### Removed\n- `Gone`\n"))
	if len(d.refused) != 2 || !strings.HasPrefix(d.refused[0], "rt Gone: not deprecated first") || !strings.HasPrefix(d.refused[1], "rt Old: deprecated, but CHANGELOG.md does not name Old") {
		t.Errorf("refused %q", d.refused)
	}
	if fmt.Sprint(d.removed, d.added, d.deprecated) != "[rt Older] [rt New] [rt Marked]" || len(d.changed) != 1 || !strings.Contains(d.changed[0], "func(int) → func(int64)") {
		t.Errorf("removed %q, added %q, deprecated %q, changed %q", d.removed, d.added, d.deprecated, d.changed)
	}
}
