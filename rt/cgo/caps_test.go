//go:build cgo

package cgo

import (
	"go/types"
	"os/exec"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestEveryCapability: *Driver implements every optional capability
// interface rt declares, as the package doc says; a new capability without
// an implementation here fails.
func TestEveryCapability(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks rt and rt/cgo; skipped in -short mode")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("type-checks rt and rt/cgo's source, which needs the go command (a test binary carried to a machine without Go)")
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, "github.com/cugen/cugen/rt", "github.com/cugen/cugen/rt/cgo")
	if err != nil || len(pkgs) != 2 {
		t.Fatalf("loading rt and rt/cgo: %v", err)
	}
	var rt, cgo *types.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		if p.Name == "rt" {
			rt = p.Types
		} else {
			cgo = p.Types
		}
	}
	drv := types.NewPointer(cgo.Scope().Lookup("Driver").Type())
	n := 0
	for _, name := range rt.Scope().Names() {
		tn, ok := rt.Scope().Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		if i, ok := tn.Type().Underlying().(*types.Interface); ok {
			n++
			if !types.Implements(drv, i) {
				t.Errorf("*cgo.Driver does not implement rt.%s", name)
			}
		}
	}
	if n < 18 {
		t.Errorf("found %d interfaces in rt, want the Driver and its 17 capabilities at least", n)
	}
}
