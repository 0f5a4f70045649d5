package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/gen/pipeline"
)

// oneLine checks that a failed run printed exactly want, as one line, and
// no temporary file's name.
func oneLine(t *testing.T, code int, stderr, want string) {
	t.Helper()
	if code != 1 || stderr != "cugen: "+want+"\n" {
		t.Errorf("exit %d, stderr %q\nwant %q", code, stderr, "cugen: "+want+"\n")
	}
	if strings.Contains(stderr, ".tmp") {
		t.Errorf("stderr names a temporary file: %s", stderr)
	}
}

// TestOutputPaths: an -o cugen cannot write is a one-line error naming it,
// before anything is compiled or written.
func TestOutputPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("k.ptx", mustRead(t, "k.ptx"), 0o644)

	code, _, stderr := runCLI(t, "-o", "nodir/x.go", "k.ptx")
	oneLine(t, code, stderr, "-o nodir/x.go: directory nodir does not exist")
	os.Mkdir("sub", 0o755)
	code, _, stderr = runCLI(t, "-o", "sub", "k.ptx")
	oneLine(t, code, stderr, "-o sub is a directory; name the Go file, e.g. -o sub/kernels_cugen.go")
	code, _, stderr = runCLI(t, "-o", "sub/", "k.ptx")
	oneLine(t, code, stderr, "-o sub/ is a directory; name the Go file, e.g. -o sub/kernels_cugen.go")
	os.WriteFile("file", nil, 0o644)
	code, _, stderr = runCLI(t, "-o", "file/x.go", "k.ptx")
	oneLine(t, code, stderr, "-o file/x.go: file is not a directory")

	// A hand-written Go file is never overwritten.
	mine := []byte("package sub\n\nfunc Mine() {}\n")
	os.WriteFile("sub/mine.go", mine, 0o644)
	code, _, stderr = runCLI(t, "-o", "sub/mine.go", "k.ptx")
	oneLine(t, code, stderr, `-o sub/mine.go: the file exists and is not generated code (it has no "// Code generated ... DO NOT EDIT." line); cugen does not overwrite it`)
	if got, _ := os.ReadFile("sub/mine.go"); !bytes.Equal(got, mine) {
		t.Error("cugen overwrote a hand-written file")
	}
	if entries, _ := os.ReadDir("sub"); len(entries) != 1 {
		t.Errorf("a failed run wrote into sub: %d files", len(entries))
	}

	// A write that fails names the file, not the temporary one: creating
	// the temporary file fails, or renaming it.
	if err := writeOutputs(pipeline.File{Name: "nodir/k.go"}, nil); err == nil || err.Error() != "writing nodir/k.go: no such file or directory" {
		t.Errorf("writing into a missing directory: %v", err)
	}
	if err := writeOutputs(pipeline.File{Name: "sub"}, nil); err == nil || !strings.HasPrefix(err.Error(), "writing sub: ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("renaming onto a directory: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: a read-only directory is writable, so the failing write is not checked")
		return
	}
	os.Mkdir("ro", 0o555)
	code, _, stderr = runCLI(t, "-o", "ro/x.go", "k.ptx")
	oneLine(t, code, stderr, "writing ro/k.ptx: permission denied")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// mustRead reads a file of testdata from before the test changed directory.
func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// testdata is this package's testdata directory, absolute, so that tests
// that change directory can read it.
var testdata = must(filepath.Abs("testdata"))

// TestPackageOfOutputDir: -o into another directory takes that directory's
// package, or its name, never the package go generate runs in.
func TestPackageOfOutputDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("GOPACKAGE", "parent") // as go generate sets it
	os.WriteFile("gen.go", []byte("package parent\n\n//go:generate cugen\n"), 0o644)
	os.WriteFile("k.ptx", mustRead(t, "k.ptx"), 0o644)
	for _, d := range []string{"other", "fresh"} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile("other/doc.go", []byte("// Package mine is mine.\npackage mine\n"), 0o644)
	for out, want := range map[string]string{
		"x_cugen.go":       "\npackage parent\n",
		"other/x_cugen.go": "\npackage mine\n",
		"fresh/x_cugen.go": "\npackage fresh\n",
	} {
		if code, _, stderr := runCLI(t, "-o", out, "k.ptx"); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", out, code, stderr)
		}
		if src, _ := os.ReadFile(out); !bytes.Contains(src, []byte(want)) {
			t.Errorf("-o %s: the generated file lacks %q", out, want)
		}
	}
	code, _, stderr := runCLI(t, "-o", "other/y_cugen.go", "-pkg", "parent", "k.ptx")
	oneLine(t, code, stderr, "-pkg parent: other holds package mine (doc.go)")
}

// TestHeader: the header records the command line and is what Go takes for
// generated code.
func TestHeader(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("k.ptx", mustRead(t, "k.ptx"), 0o644)
	if code, _, stderr := runCLI(t, "-pkg", "k", "-kernels", "k1|k3", "k.ptx"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile("k_cugen.go")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(src), "\n")
	if want := "// Code generated by cugen -pkg k -kernels 'k1|k3' k.ptx; DO NOT EDIT."; first != want {
		t.Errorf("header %q, want %q", first, want)
	}
	if !regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`).MatchString(first) {
		t.Error("the header does not match Go's generated-code pattern")
	}
	f, err := parser.ParseFile(token.NewFileSet(), "k_cugen.go", src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || !ast.IsGenerated(f) {
		t.Errorf("go/ast does not take the file for generated code (%v)", err)
	}
}

// TestGenerateTimeCheck: an instruction rt/soft rejects fails the run with
// file:line:col and writes nothing, unless -gpu-only says the image is for
// the GPU only.
func TestGenerateTimeCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	bad := bytes.Replace(mustRead(t, "multi/scale.ptx"), []byte("mul.f32"), []byte("mul.ff32"), 1)
	os.WriteFile("bad.ptx", bad, 0o644)
	code, _, stderr := runCLI(t, "-o", "bad_cugen.go", "-pkg", "p", "bad.ptx")
	oneLine(t, code, stderr, "bad.ptx:42:2: mul.ff32: modifier .ff32 is not supported (rt/soft cannot run bad.ptx; generate with -gpu-only if it is meant for the GPU only)")
	if _, err := os.Stat("bad_cugen.go"); err == nil {
		t.Error("a failed check wrote the Go file")
	}
	if code, _, stderr := runCLI(t, "-o", "bad_cugen.go", "-pkg", "p", "-gpu-only", "bad.ptx"); code != 0 {
		t.Errorf("-gpu-only: exit %d: %s", code, stderr)
	}
}
