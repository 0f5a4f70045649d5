package pipeline

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// pkgDir is what the Go files already in the output's directory say about
// the package the generated file joins: its name, the identifiers it
// declares, whether it has a doc comment, and the files it embeds. Several
// cugen runs into one directory build together because each reads the
// others' files: their identifiers are taken, and one package doc is enough.
type pkgDir struct {
	name     string            // the package clause, "" when there is no Go file
	nameFile string            // a file that has it
	taken    map[string]string // package-level identifier → the file declaring it
	doc      bool              // some file has the package doc comment
	embeds   map[string]string // //go:embed pattern → the file embedding it
	warnings []string
}

// readPkgDir reads the Go files of dir but output: those of the package
// (test files of an external _test package and files excluded by
// "//go:build ignore" are not). A file that does not parse gives its package
// clause, and a warning that its names are not avoided.
func readPkgDir(dir, output string) (*pkgDir, error) {
	pd := &pkgDir{taken: map[string]string{}, embeds: map[string]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return pd, nil
		}
		return nil, err
	}
	outAbs, _ := filepath.Abs(output)
	names := map[string]string{} // package name → a file of it
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if abs, _ := filepath.Abs(path); abs == outAbs {
			continue
		}
		f, perr := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if f == nil || f.Name == nil {
			continue // not even a package clause: not a Go file of any package
		}
		if ignored(f) {
			continue
		}
		test := strings.HasSuffix(name, "_test.go")
		if test && strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		if !test {
			if _, ok := names[f.Name.Name]; !ok {
				names[f.Name.Name] = name
			}
			pd.doc = pd.doc || f.Doc != nil
		}
		if perr != nil {
			pd.warnings = append(pd.warnings, fmt.Sprintf("%s does not parse, so cugen cannot avoid its names: %v", path, firstLine(perr)))
			continue
		}
		for id := range declared(f) {
			if _, ok := pd.taken[id]; !ok {
				pd.taken[id] = name
			}
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if pats, ok := strings.CutPrefix(c.Text, "//go:embed "); ok {
					for _, p := range strings.Fields(pats) {
						pd.embeds[p] = name
					}
				}
			}
		}
	}
	if len(names) > 1 {
		var list []string
		for n, file := range names {
			list = append(list, fmt.Sprintf("%s (%s)", n, file))
		}
		sort.Strings(list)
		return nil, fmt.Errorf("%s holds Go files of several packages: %s", dir, strings.Join(list, ", "))
	}
	for n, file := range names {
		pd.name, pd.nameFile = n, file
	}
	return pd, nil
}

// declared lists the package-level identifiers f declares (not methods,
// which live in their types, nor imports, which live in the file).
func declared(f *ast.File) map[string]bool {
	ids := map[string]bool{}
	add := func(id *ast.Ident) {
		if id != nil && id.Name != "_" {
			ids[id.Name] = true
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(n)
					}
				}
			}
		}
	}
	return ids
}

// ignored says f's //go:build line excludes it from every build: it holds
// only tags it requires to be "ignore" (the convention for a file that is
// not part of the package, as a go run'able tool). A file for another
// platform is part of the package and is not ignored.
func ignored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return !satisfiable(expr)
		}
	}
	return false
}

// satisfiable says some assignment of expr's tags, "ignore" false, makes it
// true. Build lines name a handful of tags; past 12 it gives up and says yes.
func satisfiable(expr constraint.Expr) bool {
	var tags []string
	var walk func(constraint.Expr)
	walk = func(e constraint.Expr) {
		switch e := e.(type) {
		case *constraint.AndExpr:
			walk(e.X)
			walk(e.Y)
		case *constraint.OrExpr:
			walk(e.X)
			walk(e.Y)
		case *constraint.NotExpr:
			walk(e.X)
		case *constraint.TagExpr:
			if e.Tag != "ignore" && !slices.Contains(tags, e.Tag) {
				tags = append(tags, e.Tag)
			}
		}
	}
	walk(expr)
	if len(tags) > 12 {
		return true
	}
	for bits := 0; bits < 1<<len(tags); bits++ {
		if expr.Eval(func(tag string) bool {
			for i, t := range tags {
				if t == tag {
					return bits&(1<<i) != 0
				}
			}
			return false
		}) {
			return true
		}
	}
	return false
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
