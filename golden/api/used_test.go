package api

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// usedPkgs are the packages whose every exported name must be used by
// generated code, an example or a test (TestEveryNameUsed).
var usedPkgs = []string{"rt", "rt/tex", "rt/tex/texobj", "rt/tensormap"}

// implicit are methods the standard library calls through its interfaces
// (fmt's Stringer and error, errors.Is and Unwrap): a test that formats or
// compares a value uses them without naming them.
var implicit = map[string]bool{"String": true, "Error": true, "Is": true, "Unwrap": true, "GoString": true, "Format": true}

// TestEveryNameUsed: each exported name of usedPkgs (package-level names,
// methods and struct fields) is referenced from generated code (golden/),
// an example (examples/), rt/rttest's suites or a _test.go file of any
// package, or is deprecated. A name nothing outside its own package
// exercises fails here: test it, or deprecate it.
func TestEveryNameUsed(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module with its tests; skipped in -short mode")
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedFiles,
		Dir:   "../..",
		Tests: true,
		Env:   append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, module+"/...")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	counts := func(file string) bool {
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		return strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "examples/") ||
			strings.HasPrefix(rel, "golden/") || strings.HasPrefix(rel, "rt/rttest/")
	}
	// Objects are keyed by their declaration's position: the test variant
	// of a package ("rt [rt.test]") declares the same names again.
	used := map[string]bool{}
	at := func(obj types.Object) string {
		if obj == nil {
			return ""
		}
		return cfgFset(pkgs).Position(origin(obj).Pos()).String()
	}
	var viaIface []*types.Func // interface methods counted files call
	api := map[string]*packages.Package{}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, module), "/")
		if slices.Contains(usedPkgs, rel) && p.ID == p.PkgPath {
			api[rel] = p
		}
		for id, obj := range p.TypesInfo.Uses {
			if !counts(p.Fset.Position(id.Pos()).Filename) {
				continue
			}
			used[at(obj)] = true
			if f, ok := obj.(*types.Func); ok {
				if r := f.Signature().Recv(); r != nil && types.IsInterface(r.Type()) {
					viaIface = append(viaIface, f)
				}
			}
		}
	}
	// Generated code names rt's types through gen's tables, as strings
	// ({name: "Int128"}): a string literal of gen that is an rt name counts.
	named := map[string]bool{}
	for _, p := range pkgs {
		if p.PkgPath != module+"/gen" || p.ID != p.PkgPath {
			continue
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil && token.IsExported(v) {
						named[v] = true
					}
				}
				return true
			})
		}
	}
	// A deprecated alias (rt.ArrayDesc = tex.ArrayDesc, rt.FormatFloat =
	// tex.FormatFloat) used is its target used.
	for _, rel := range usedPkgs {
		p := api[rel]
		if p == nil {
			t.Fatalf("package %s not loaded", rel)
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, spec := range gd.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Assign.IsValid() && used[at(p.TypesInfo.Defs[s.Name])] {
							if n, ok := types.Unalias(p.TypesInfo.Defs[s.Name].Type()).(*types.Named); ok {
								used[at(n.Obj())] = true
							}
						}
					case *ast.ValueSpec:
						for i, name := range s.Names {
							if i < len(s.Values) && used[at(p.TypesInfo.Defs[name])] {
								if sel, ok := s.Values[i].(*ast.SelectorExpr); ok {
									used[at(p.TypesInfo.Uses[sel.Sel])] = true
								}
							}
						}
					}
				}
			}
		}
	}
	// A method is used where a counted file calls it through an interface
	// its type implements (fmt's Stringer aside, see implicit).
	calledVia := func(m *types.Func) bool {
		recv := m.Signature().Recv().Type()
		for _, f := range viaIface {
			if f.Name() == m.Name() && types.Implements(recv, f.Signature().Recv().Type().Underlying().(*types.Interface)) {
				return true
			}
		}
		return false
	}
	var missing []string
	for _, rel := range usedPkgs {
		p := api[rel]
		deprecated := deprecations(p)
		check := func(name string, obj types.Object) {
			if !used[at(obj)] && !(rel == "rt" && named[name]) && !deprecated[obj.Pos()] {
				missing = append(missing, rel+"."+name)
			}
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			check(name, obj)
			tn, ok := obj.(*types.TypeName)
			if !ok || tn.IsAlias() || deprecated[obj.Pos()] {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok && !vectorType(p, tn) {
				for i := 0; i < st.NumFields(); i++ {
					if f := st.Field(i); f.Exported() && !f.Embedded() {
						check(name+"."+f.Name(), f)
					}
				}
			}
			if _, ok := tn.Type().Underlying().(*types.Interface); ok {
				continue // its methods are the backends' (TestDriver, TestEveryCapability)
			}
			nt := tn.Type().(*types.Named)
			for i := 0; i < nt.NumMethods(); i++ {
				if m := nt.Method(i); m.Exported() && !implicit[m.Name()] && !calledVia(m) {
					check(name+"."+m.Name(), m)
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d exported names no generated code, example or test uses (test them, or deprecate them):\n\t%s", len(missing), strings.Join(missing, "\n\t"))
	}
}

// origin is the generic declaration behind an instantiated method or field.
func origin(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return obj
}

// vectorType says tn is one of the CUDA vector types of vector_types.go
// (rt/internal/gentypes), whose fields TestVectorPut checks one by one,
// by reflection, for all 48.
func vectorType(p *packages.Package, tn *types.TypeName) bool {
	return filepath.Base(p.Fset.Position(tn.Pos()).Filename) == "vector_types.go"
}

func cfgFset(pkgs []*packages.Package) *token.FileSet { return pkgs[0].Fset }
