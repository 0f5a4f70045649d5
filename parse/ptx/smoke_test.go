package ptx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSmoke(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ptx")
	for _, f := range files {
		src, _ := os.ReadFile(f)
		m, err := Parse(filepath.Base(f), src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		n := 0
		for _, fn := range m.Funcs {
			if fn.Body != nil {
				n += len(fn.Body.Stmts)
			}
		}
		t.Logf("%s: %d vars %d funcs %d stmts %v", f, len(m.Vars), len(m.Funcs), n, m.Target)
	}
}
