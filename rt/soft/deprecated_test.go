package soft

import (
	"strings"
	"testing"

	"github.com/cugen/cugen/rt"
)

// TestDeprecatedDriverNames: LoadNamed names the image in its errors as
// LoadOptions.Name does, and InstrCount counts a launch's
// thread-instructions.
func TestDeprecatedDriverNames(t *testing.T) {
	e := newEnv(t, Options{})
	d := e.d
	if _, err := d.LoadNamed([]byte(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n"), "mine.ptx", rt.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "mine.ptx:4") {
		t.Errorf("LoadNamed of bad PTX: %v, want an error at mine.ptx:4", err)
	}
	const src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"
	lib, err := d.LoadNamed([]byte(src), "k.ptx", rt.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := d.InstrCount()
	e.launch(e.kernel(lib, "k"), rt.D1(2), rt.D1(32), 0)
	if err := d.CtxSynchronize(e.ctx); err != nil {
		t.Fatal(err)
	}
	if n := d.InstrCount() - before; n != 64 {
		t.Errorf("InstrCount grew by %d for 64 threads of one ret, want 64", n)
	}
}
