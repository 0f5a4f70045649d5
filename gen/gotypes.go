package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"path"
	"strings"

	"github.com/cugen/cugen/parse"
	"golang.org/x/tools/go/packages"
)

// TypeMapping maps a C++ class (or union, or enum) to a Go type of the same
// layout, which the generated code then takes and copies by value into the
// parameter buffer (cugen -type 'Params=example.com/m/pkg.Params').
type TypeMapping struct {
	CName   string // the C++ name as demangled: "Params", "ns::Params", "Pair<float>"
	PkgPath string // the Go type's import path
	PkgName string // its package name
	Name    string // the Go type's name in it
	// The Go type's layout for gc on amd64 (go/types), checked against the
	// binary's layout of every parameter of that C++ type.
	Size, Align int64
}

// maxGoAlign is the strictest alignment Go gives any type on amd64.
const maxGoAlign = 8

// ParseTypeMapping parses the value of a -type flag,
// "CNAME=IMPORT/PATH.Name"; LoadTypeMappings fills in the layout.
func ParseTypeMapping(s string) (TypeMapping, error) {
	bad := func(why string) (TypeMapping, error) {
		return TypeMapping{}, fmt.Errorf("%q: %s; want CNAME=IMPORT/PATH.Name, e.g. 'Params=example.com/m/pkg.Params'", s, why)
	}
	cname, goName, ok := strings.Cut(s, "=")
	cname, goName = strings.TrimSpace(cname), strings.TrimSpace(goName)
	if !ok || cname == "" || goName == "" {
		return bad("no C++ name or no Go type")
	}
	slash := strings.LastIndex(goName, "/")
	dot := strings.LastIndex(goName, ".")
	if dot <= slash+1 || dot == len(goName)-1 {
		return bad(fmt.Sprintf("%q names no package", goName))
	}
	m := TypeMapping{CName: cname, PkgPath: goName[:dot], Name: goName[dot+1:]}
	if !token.IsIdentifier(m.Name) || !token.IsExported(m.Name) {
		return bad(fmt.Sprintf("%s is not an exported Go identifier", m.Name))
	}
	return m, nil
}

// LoadTypeMappings type-checks each mapping's Go package from source, as the
// go command resolves its import path from dir (the generated package's
// directory), and records the type's size and alignment with
// types.SizesFor("gc", "amd64"). The type must be a defined, non-generic type
// holding no Go pointers: the device sees its bytes.
//
// The packages are loaded with golang.org/x/tools/go/packages.
func LoadTypeMappings(dir string, ms []TypeMapping) ([]TypeMapping, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	// One go/packages load for every mapped package, resolved as the go
	// command would from dir (the generated package's directory).
	var paths []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.PkgPath] {
			seen[m.PkgPath] = true
			paths = append(paths, m.PkgPath)
		}
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesSizes, Dir: dir}
	loaded, err := packages.Load(cfg, paths...)
	if err != nil {
		return nil, &OptionError{Option: "-type", Err: fmt.Errorf("loading %s: %v", strings.Join(paths, ", "), err)}
	}
	byPath := map[string]*packages.Package{}
	for _, p := range loaded {
		byPath[p.PkgPath] = p
	}
	sizes := types.SizesFor("gc", "amd64")
	out := make([]TypeMapping, len(ms))
	for i, m := range ms {
		bad := func(format string, args ...any) error {
			return &OptionError{Option: "-type", Value: m.CName + "=" + m.goPath(), Err: fmt.Errorf(format, args...)}
		}
		lp := byPath[m.PkgPath]
		if lp == nil {
			return nil, bad("package %s not found from %s", m.PkgPath, dir)
		}
		if len(lp.Errors) > 0 {
			return nil, bad("loading %s: %v", m.PkgPath, lp.Errors[0])
		}
		pkg := lp.Types
		obj, ok := pkg.Scope().Lookup(m.Name).(*types.TypeName)
		if !ok {
			return nil, bad("package %s declares no type %s", m.PkgPath, m.Name)
		}
		named, ok := obj.Type().(*types.Named)
		if !ok || obj.IsAlias() {
			return nil, bad("%s is an alias; name the defined type", m.Name)
		}
		if named.TypeParams().Len() > 0 {
			return nil, bad("%s is generic; map a defined instance (type X = ...[T] is an alias: declare type X struct{ ... })", m.Name)
		}
		if where := pointerIn(named.Underlying(), m.Name); where != "" {
			return nil, bad("%s holds Go pointers (%s); a kernel parameter is plain bytes", m.Name, where)
		}
		m.PkgName = pkg.Name()
		m.Size, m.Align = sizes.Sizeof(named), sizes.Alignof(named)
		out[i] = m
	}
	return out, nil
}

// pointerIn names the first part of t that holds a Go pointer, or "".
func pointerIn(t types.Type, where string) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Kind() == types.String || u.Kind() == types.UnsafePointer {
			return where + " is " + u.String()
		}
		return ""
	case *types.Array:
		return pointerIn(u.Elem(), where+"[i]")
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if s := pointerIn(f.Type(), where+"."+f.Name()); s != "" {
				return s
			}
		}
		return ""
	}
	return where + " is " + types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// check compares the Go type's layout with the binary's layout of a
// parameter of the mapped C++ type. Go cannot align beyond 8 bytes, so a
// 16-aligned C++ type matches an 8-aligned Go type of the same size.
func (m *TypeMapping) check(p *parse.Param) error {
	want := int64(min(max(p.Align, 1), maxGoAlign))
	if m.Size == int64(p.Size) && m.Align == want {
		return nil
	}
	return &OptionError{Option: "-type", Value: m.CName + "=" + m.goPath(), Err: fmt.Errorf("the layouts differ: C++ %s is %s, %d-byte aligned (the binary's parameter); Go %s is %s, %d-byte aligned (go/types, gc/amd64)",
		m.CName, plural(p.Size, "byte"), p.Align, m.goPath(), plural(int(m.Size), "byte"), m.Align)}
}

func (m *TypeMapping) goPath() string { return m.PkgPath + "." + m.Name }

// goSpelling is the type as the generated code spells it.
func (m *TypeMapping) goSpelling() string {
	n := m.PkgName
	if n == "" {
		n = path.Base(m.PkgPath)
	}
	return n + "." + m.Name
}
