//go:build cgo

package cgo

import (
	"go/types"
	"os/exec"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestEveryCapability: *Driver implements every optional capability
// interface rt and rt/tensormap declare, as the package doc says; a new
// capability without an implementation here fails.
func TestEveryCapability(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks rt and rt/cgo; skipped in -short mode")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("type-checks rt and rt/cgo's source, which needs the go command (a test binary carried to a machine without Go)")
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, "github.com/cugen/cugen/rt", "github.com/cugen/cugen/rt/tensormap", "github.com/cugen/cugen/rt/cgo")
	if err != nil || len(pkgs) != 3 {
		t.Fatalf("loading rt, rt/tensormap and rt/cgo: %v", err)
	}
	var capPkgs []*types.Package
	var cgo *types.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		if p.Name == "cgo" {
			cgo = p.Types
		} else {
			capPkgs = append(capPkgs, p.Types)
		}
	}
	drv := types.NewPointer(cgo.Scope().Lookup("Driver").Type())
	n := 0
	for _, p := range capPkgs {
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() {
				continue
			}
			if i, ok := tn.Type().Underlying().(*types.Interface); ok {
				n++
				if !types.Implements(drv, i) {
					t.Errorf("*cgo.Driver does not implement %s.%s", p.Name(), name)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d interfaces in rt and rt/tensormap, want the Driver and its 17 capabilities, and tensormap's Driver and Encoder, at least", n)
	}
}
