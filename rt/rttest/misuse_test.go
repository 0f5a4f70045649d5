package rttest

import (
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// exemptAPI are rt's exported names that take no handle, no driver and no
// size to allocate: plain values and their encoders, descriptors and error
// helpers, whose misuse is a Go mistake like any other (a short buffer for
// a Put panics as encoding/binary's Put functions do). Each has the reason.
var exemptAPI = map[string]string{
	"Register":   "a backend's init-time registration: a duplicate name panics, as documented (database/sql.Register does the same)",
	"SetDefault": "deprecated; replaces the process's default driver, which a misuse case must not do to the tests after it",
}

// exemptPattern exempts whole families of plain values, by name.
func exemptPattern(name string) (string, bool) {
	typ, method, isMethod := strings.Cut(name, ".")
	plain := map[string]bool{
		"ArrayDesc": true, "ArrayFormat": true, "Config": true, "ConstPtr": true, "Dim3": true, "Error": true,
		"GraphNode": true, "Im2colTensor": true, "NodeType": true, "Ptr": true, "ResourceDesc": true, "Result": true,
		"TensorDataType": true, "TensorMap": true, "TextureDesc": true, "TiledTensor": true,
		"BFloat16": true, "Half": true, "Float8E4M3": true, "Float8E5M2": true, "MemoryKind": true,
	}
	switch {
	case isMethod && method == "Put":
		return "a value encoder (generated code packs parameters with it)", true
	case isMethod && plain[typ]:
		return "a method of a plain value type (no handle)", true
	case isMethod && method == "Validate":
		return "a descriptor's own check", true
	case !isMethod && (strings.HasPrefix(name, "Make") || strings.HasSuffix(name, "From")):
		return "a value constructor", true
	}
	switch name {
	case "D1", "D2", "D3", "Linear", "Cast", "PtrOf", "CodeOf", "Errorf", "TensorMapFromBytes":
		return "a value helper", true
	}
	return "", false
}

// TestMisuseCoversRt checks that every exported function and method of rt
// has a case in TestMisuse or a reason above: a new method without a
// misuse case fails here.
func TestMisuseCoversRt(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, "github.com/cugen/cugen/rt")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading rt: %v %v", err, pkgs)
	}
	covered := map[string]bool{}
	for _, a := range MisuseAPIs() {
		covered[a] = true
	}
	api := exported(pkgs[0].Types)
	var missing []string
	for _, name := range api {
		if covered[name] {
			delete(covered, name)
			continue
		}
		if _, ok := exemptAPI[name]; ok {
			continue
		}
		if _, ok := exemptPattern(name); ok {
			continue
		}
		missing = append(missing, name)
	}
	if len(missing) > 0 {
		t.Errorf("%d exported names of rt have no misuse case (add one to misuse_cases.go, or a reason to exemptAPI):\n\t%s", len(missing), strings.Join(missing, "\n\t"))
	}
	for name := range covered {
		t.Errorf("misuse cases name %s, which rt does not export", name)
	}
	t.Logf("%d exported names, %d with misuse cases", len(api), len(MisuseAPIs()))
}

// exported lists pkg's exported functions and the exported methods of its
// exported non-interface types (promoted ones included), as Type.Method.
func exported(pkg *types.Package) []string {
	var out []string
	sc := pkg.Scope()
	for _, n := range sc.Names() {
		switch o := sc.Lookup(n).(type) {
		case *types.Func:
			if o.Exported() {
				out = append(out, n)
			}
		case *types.TypeName:
			if !o.Exported() {
				continue
			}
			if _, ok := o.Type().Underlying().(*types.Interface); ok {
				continue // the backends' contracts: rttest.TestDriver checks them
			}
			ms := types.NewMethodSet(types.NewPointer(o.Type()))
			for i := range ms.Len() {
				if m := ms.At(i).Obj(); m.Exported() {
					out = append(out, n+"."+m.Name())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
