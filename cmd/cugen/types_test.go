package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	typesPTX = "../../golden/testdata/types/types.ptx"
	typesCU  = "../../golden/src/types.cu"
	gotypes  = "github.com/cugen/cugen/cmd/cugen/testdata/gotypes"
)

// scratchModule is a module that requires this repository (replaced by its
// directory), so that -type can load packages from it.
func scratchModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module scratch\n\ngo 1.25\n\nrequire github.com/cugen/cugen v0.0.0\n\nreplace github.com/cugen/cugen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOWORK", "off")
	return dir
}

func TestSrcNamesAndTypes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "types.go")
	code, _, stderr := runCLI(t, "-o", out, "-pkg", "types", "-src", typesCU, typesPTX)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, _ := os.ReadFile(out)
	// Each name collision is printed once, and listed once in the file.
	notes := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(notes) != 4 {
		t.Errorf("stderr: %s", stderr)
	}
	for _, n := range notes {
		note, ok := strings.CutPrefix(n, "cugen: name collision in "+out+": ")
		if !ok || strings.Count(stderr, note) != 1 || strings.Count(string(src), "//\t"+note+"\n") != 1 {
			t.Errorf("note %q: printed %d times, listed %d times", n, strings.Count(stderr, note), strings.Count(string(src), "//\t"+note+"\n"))
		}
	}
	for _, want := range []string{
		"func CvecAdd(cfg rt.Config, a rt.ConstPtr[float32], b rt.ConstPtr[float32], c rt.Ptr[float32], n int32, p Params) error {",
		"func Pairs(cfg rt.Config, p PairFloat32, q PairFloat64, prm Params, bits Bits, many rt.Ptr[Params], out rt.Ptr[float32]) error {",
		"type Mode uint8",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated file lacks %q", want)
		}
	}
}

func TestSrcMismatchFails(t *testing.T) {
	dir := t.TempDir()
	cu := filepath.Join(dir, "k.cu")
	os.WriteFile(cu, []byte("struct Params { float s; int c; double o; };\n"+
		"extern \"C\" __global__ void cvecAdd(const float *a, const float *b, float *c,\n    short n, Params p) {}\n"), 0o644)
	out := filepath.Join(dir, "types.go")
	code, _, stderr := runCLI(t, "-o", out, "-pkg", "types", "-src", cu, typesPTX)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	for _, want := range []string{`kernel extern "C" cvecAdd(`, `parameter 3 "n"`, "k.cu:2:28", "short is 2 bytes, but the binary passes 4 bytes"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run wrote the output")
	}

	// A syntax error names file:line:col.
	os.WriteFile(cu, []byte("__global__ void k(int n\n"), 0o644)
	if code, _, stderr := runCLI(t, "-o", out, "-pkg", "types", "-src", cu, typesPTX); code != 1 || !strings.Contains(stderr, "k.cu:1:18: unbalanced '('") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestSrcWarnsAboutMissingPrototypes(t *testing.T) {
	dir := t.TempDir()
	cu := filepath.Join(dir, "other.cu")
	os.WriteFile(cu, []byte("__global__ void unrelated(int n) {}\n"), 0o644)
	code, _, stderr := runCLI(t, "-o", filepath.Join(dir, "types.go"), "-pkg", "types", "-src", cu, typesPTX)
	if code != 0 || !strings.Contains(stderr, `warning: `+typesPTX+`: no prototype for extern "C" kernel cvecAdd`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestTypeMapping(t *testing.T) {
	dir := scratchModule(t)
	out := filepath.Join(dir, "k", "types.go")
	os.MkdirAll(filepath.Dir(out), 0o755)
	code, _, stderr := runCLI(t, "-o", out, "-pkg", "types", "-src", typesCU, "-type", "Params="+gotypes+".Params", typesPTX)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, _ := os.ReadFile(out)
	for _, want := range []string{
		"p gotypes.Params) error {",
		"prm gotypes.Params, bits Bits, many rt.Ptr[gotypes.Params]",
		"copy(args[32:48], unsafe.Slice((*byte)(unsafe.Pointer(&p)), 16))",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated file lacks %q", want)
		}
	}

	code, _, stderr = runCLI(t, "-o", out, "-pkg", "types", "-type", "Params="+gotypes+".Short", typesPTX)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"C++ Params is 16 bytes, 8-byte aligned", "Go " + gotypes + ".Short is 8 bytes, 4-byte aligned"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}

	if code, _, stderr := runCLI(t, "-o", out, "-type", "Params=nodot", typesPTX); code != 2 || !strings.Contains(stderr, "want CNAME=IMPORT/PATH.Name") {
		t.Errorf("bad -type: exit %d: %s", code, stderr)
	}
}
