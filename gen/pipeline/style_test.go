package pipeline

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/gen"
)

// TestStyle: -prefix and -unexported spell every generated identifier so
// that it lives beside the package's hand-written API (which declares
// Madd3 and Normalize here, as a micromagnetics code base's does).
func TestStyle(t *testing.T) {
	in := input(t, filepath.Join(targetsDir, "madd3_80.ptx"))
	src := []File{source(t, filepath.Join(targetsDir, "madd3.cu"))}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"mm.go": "package mm\n\nimport \"image\"\n\nvar _ image.Point\n\nfunc Madd3() {}\n\nfunc Normalize() {}\n"})
	out := filepath.Join(dir, "madd3_cugen.go")
	for _, c := range []struct {
		style gen.Style
		wants []string
	}{
		{gen.Style{Prefix: "Cu"}, []string{"func CuMadd3(cfg rt.Config, dstx rt.Ptr[float32]", "CuMadd3Kernel = CuLibrary.Kernel(\"madd3\"", "func CuMadd3Node(", "func CuNormalize(", "var CuLibrary = rt.NewLibrary"}},
		{gen.Style{Unexported: true}, []string{"func madd3(cfg rt.Config, dstx rt.Ptr[float32]", "madd3Kernel = library.Kernel(\"madd3\"", "func madd3Node(", "func normalize(", "var library = rt.NewLibrary"}},
		{gen.Style{Prefix: "cu"}, []string{"func cuMadd3(", "cuMadd3Kernel = cuLibrary.Kernel", "var cuLibrary = rt.NewLibrary"}},
		{gen.Style{Prefix: "Cu", Unexported: true}, []string{"func cuMadd3(", "var cuLibrary = rt.NewLibrary"}},
	} {
		r := run(t, &Request{Inputs: []Input{in}, Sources: src, Output: out, Style: c.style})
		mustContain(t, r.Go.Data, c.wants...)
		if len(r.Notes) != 0 {
			t.Errorf("%+v: collisions %v: the style should avoid the hand-written names", c.style, r.Notes)
		}
		// The image variable: not image, which mm.go imports.
		if bytes.Contains(r.Go.Data, []byte("var image []byte")) {
			t.Errorf("%+v: the image variable is image, which mm.go imports", c.style)
		}
	}

	// An unexported name that is Go's own moves on, and says so.
	goKeyword := Input{Name: "len.ptx", Data: bytes.ReplaceAll(in.Data, []byte("normalize"), []byte("len"))}
	r := run(t, &Request{Inputs: []Input{goKeyword}, Output: out, Style: gen.Style{Unexported: true}})
	if bytes.Contains(r.Go.Data, []byte("func len(")) {
		t.Error("-unexported declared func len, hiding the builtin")
	}
	if len(r.Notes) == 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "len is predeclared in Go") {
		t.Errorf("notes %v", r.Notes)
	}

	_, err := Run(&Request{Inputs: []Input{in}, Output: out, Style: gen.Style{Prefix: "9x"}})
	var oe *gen.OptionError
	if !errors.As(err, &oe) || oe.Option != "-prefix" {
		t.Errorf("-prefix 9x: %v", err)
	}
}
