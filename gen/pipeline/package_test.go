package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/rt/soft"
)

const (
	scalePTX = "../../cmd/cugen/testdata/multi/scale.ptx"
	shiftPTX = "../../cmd/cugen/testdata/multi/shift.ptx"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPackageOfDir: the package is the one already in the output's
// directory (its test and ignored files aside); -pkg must agree with it.
func TestPackageOfDir(t *testing.T) {
	in := input(t, kPTX)
	dir := filepath.Join(t.TempDir(), "sub")
	os.Mkdir(dir, 0o755)
	writeFiles(t, dir, map[string]string{
		"a.go":       "package foo\n",
		"a_test.go":  "package foo_test\n",
		"tool.go":    "//go:build ignore\n\npackage main\n",
		"linux.go":   "//go:build linux\n\npackage foo\n",
		"broken.txt": "package bar\n",
	})
	r := run(t, &Request{Inputs: []Input{in}, Output: filepath.Join(dir, "k.go")})
	mustContain(t, r.Go.Data, "\npackage foo\n")
	run(t, &Request{Inputs: []Input{in}, Output: filepath.Join(dir, "k.go"), Package: "foo"})

	_, err := Run(&Request{Inputs: []Input{in}, Output: filepath.Join(dir, "k.go"), Package: "bar"})
	var oe *gen.OptionError
	if !errors.As(err, &oe) || err.Error() != "-pkg bar: "+dir+" holds package foo (a.go)" {
		t.Errorf("-pkg disagreeing with the directory: %v", err)
	}
	writeFiles(t, dir, map[string]string{"b.go": "package bar\n"})
	if _, err := Run(&Request{Inputs: []Input{in}, Output: filepath.Join(dir, "k.go")}); err == nil || !strings.Contains(err.Error(), "holds Go files of several packages: bar (b.go), foo (a.go)") {
		t.Errorf("a directory of two packages: %v", err)
	}
}

// TestOtherFilesNames: names another file of the package declares are not
// declared again, and the notes say where they are; a package doc there
// means none here; a file that does not parse is a warning.
func TestOtherFilesNames(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"doc.go":         "// Package kernels is mine.\npackage kernels\n\nfunc K1() {}\n\ntype A struct{}\n",
		"helper_test.go": "package kernels\n\nvar Library = 1\n",
	})
	r := run(t, &Request{Inputs: []Input{input(t, kPTX)}, Output: filepath.Join(dir, "k_cugen.go")})
	mustContain(t, r.Go.Data, "var KLibrary = rt.NewLibrary(", "func KK1(", "type AType struct")
	if strings.Contains(string(r.Go.Data), "// Package") {
		t.Error("a package doc although doc.go has one")
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"the library of k.ptx → KLibrary (Library is declared in helper_test.go)", ") → KK1 (K1 is declared in doc.go)", "the C++ type A → AType (A is declared in doc.go)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %q", want, r.Notes)
		}
	}

	writeFiles(t, dir, map[string]string{"bad.go": "package kernels\n\nfunc {\n"})
	r = run(t, &Request{Inputs: []Input{input(t, kPTX)}, Output: filepath.Join(dir, "k_cugen.go")})
	if r.Warnings = typedWarnings(r.Warnings); len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].String(), "bad.go does not parse, so cugen cannot avoid its names") {
		t.Errorf("warnings %v", r.Warnings)
	}
}

// TestSeveralInputs: one file for two inputs; and two runs into one
// directory, the second avoiding the first's names, each run idempotent.
func TestSeveralInputs(t *testing.T) {
	scale, shift := input(t, scalePTX), input(t, shiftPTX)
	dir := t.TempDir()
	r := run(t, &Request{Inputs: []Input{scale, shift}, Output: filepath.Join(dir, "multi_cugen.go")})
	mustContain(t, r.Go.Data, "var ScaleLibrary = ", "var ShiftLibrary = ", "func ScaleCount(", "func ShiftCount(", "var ScaleCounter = ", "var ShiftCounter = ")
	if len(r.Images) != 2 || r.Images[0].Name != filepath.Join(dir, "scale.ptx") || r.Images[1].Name != filepath.Join(dir, "shift.ptx") {
		t.Errorf("images %v", names(r.Images))
	}

	dir = t.TempDir()
	write := func(dir string, r *Result) {
		writeFiles(t, dir, map[string]string{filepath.Base(r.Go.Name): string(r.Go.Data)})
	}
	generate := func(dir string, in Input) *Result {
		r := run(t, &Request{Inputs: []Input{in}, Output: filepath.Join(dir, stem(in.Name)+"_cugen.go"), Package: "multi"})
		write(dir, r)
		return r
	}
	first := generate(dir, scale)
	second := generate(dir, shift)
	mustContain(t, second.Go.Data, "package multi\n", "var ShiftLibrary = ", "func ShiftCount(", "var CounterVar = ", "type PairType struct")
	// Generated again beside the other, the first names its library after
	// its input too; after that each run is idempotent.
	if again := generate(dir, scale); !strings.Contains(string(again.Go.Data), "var ScaleLibrary = ") || string(again.Go.Data) == string(first.Go.Data) {
		t.Errorf("scale_cugen.go generated again beside shift_cugen.go keeps Library")
	}
	for _, in := range []Input{shift, scale, shift} {
		before, _ := os.ReadFile(filepath.Join(dir, stem(in.Name)+"_cugen.go"))
		if again := generate(dir, in); string(again.Go.Data) != string(before) {
			t.Errorf("%s changed when generated again beside the other file", again.Go.Name)
		}
	}
}

// TestLibraryNamesOrder: which run of a package takes the plain name
// Library does not depend on the order the runs go in: where the
// package's //go:generate lines run cugen more than once, every file's
// library is named after its input from the first run on.
func TestLibraryNamesOrder(t *testing.T) {
	scale, shift := input(t, scalePTX), input(t, shiftPTX)
	libs := map[string]string{}
	for _, order := range [][]Input{{scale, shift}, {shift, scale}} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"gen.go": "package multi\n\n//go:generate go tool cugen -o scale_cugen.go scale.ptx\n//go:generate go tool cugen -o shift_cugen.go shift.ptx\n"})
		for _, in := range order {
			r := run(t, &Request{Inputs: []Input{in}, Output: filepath.Join(dir, stem(in.Name)+"_cugen.go")})
			writeFiles(t, dir, map[string]string{filepath.Base(r.Go.Name): string(r.Go.Data)})
			lib := regexp.MustCompile(`var (\w+) = rt.NewLibrary`).FindSubmatch(r.Go.Data)
			if lib == nil {
				t.Fatalf("%s: no library", r.Go.Name)
			}
			if prev, ok := libs[in.Name]; ok && prev != string(lib[1]) {
				t.Errorf("%s's library is %s in one order, %s in the other", in.Name, prev, lib[1])
			}
			libs[in.Name] = string(lib[1])
		}
	}
	if libs[scalePTX] != "ScaleLibrary" || libs[shiftPTX] != "ShiftLibrary" {
		t.Errorf("libraries %v", libs)
	}
	// One cugen run in the package: Library.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gen.go": "package one\n\n//go:generate go tool cugen -o scale_cugen.go scale.ptx\n"})
	r := run(t, &Request{Inputs: []Input{scale}, Output: filepath.Join(dir, "scale_cugen.go")})
	mustContain(t, r.Go.Data, "var Library = rt.NewLibrary")
}

// TestImagesDoNotClobber: two inputs of one image name, and an image that
// would overwrite a file another Go file embeds, are errors.
func TestImagesDoNotClobber(t *testing.T) {
	in := input(t, kPTX)
	_, err := Run(&Request{Inputs: []Input{{Name: "a/k.ptx", Data: in.Data}, {Name: "b/k.ptx", Data: in.Data}}, Output: filepath.Join(t.TempDir(), "x.go")})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Input != "b/k.ptx" || !strings.Contains(err.Error(), "its image would be k.ptx, as a/k.ptx's is") {
		t.Errorf("two inputs of one image name: %v", err)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"other.go": "package k\n\nimport _ \"embed\"\n\n//go:embed k.ptx\nvar other []byte\n", "k.ptx": string(in.Data)})
	_, err = Run(&Request{Inputs: []Input{in}, Output: filepath.Join(dir, "x.go")})
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "would overwrite the file other.go embeds") {
		t.Errorf("an image another file embeds: %v", err)
	}
	// The input itself, embedded where it is, overwrites nothing.
	if _, err := Run(&Request{Inputs: []Input{{Name: filepath.Join(dir, "k.ptx"), Data: in.Data}}, Output: filepath.Join(dir, "x.go")}); err != nil {
		t.Errorf("the input in place: %v", err)
	}
}

// TestCheck: an image the check rejects fails the run with the position;
// without a check (-gpu-only) it generates.
func TestCheck(t *testing.T) {
	in := input(t, scalePTX)
	in.Name = "dir/bad.ptx"
	in.Data = []byte(strings.Replace(string(in.Data), "mul.f32", "mul.ff32", 1))
	out := filepath.Join(t.TempDir(), "x.go")
	_, err := Run(&Request{Inputs: []Input{in}, Output: out, Check: soft.CheckBudget})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Input != "dir/bad.ptx" || !strings.HasPrefix(err.Error(), "bad.ptx:42:2: mul.ff32: modifier .ff32 is not supported (rt/soft cannot run bad.ptx; generate with -gpu-only") {
		t.Errorf("error %v", err)
	}
	if _, err := Run(&Request{Inputs: []Input{in}, Output: out}); err != nil {
		t.Errorf("without the check: %v", err)
	}
	run(t, &Request{Inputs: []Input{input(t, scalePTX)}, Output: out, Check: soft.CheckBudget})
}

// TestSourcePositions: doc comments give the -src file's path from the
// generated file, never an absolute one; errors give it as named.
func TestSourcePositions(t *testing.T) {
	abs, err := filepath.Abs(typesCU)
	if err != nil {
		t.Fatal(err)
	}
	src := source(t, typesCU)
	src.Name = abs
	out := filepath.Join(filepath.Dir(abs), "gen", "types.go")
	r, err := Run(&Request{Inputs: []Input{input(t, typesPTX)}, Output: out, Sources: []File{src}, Package: "types"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, r.Go.Data, "prototype at\n// ../types.cu:67:28.", "It is declared at ../types.cu:53:12.")
	if strings.Contains(string(r.Go.Data), abs) {
		t.Error("the generated file holds the absolute -src path")
	}
}

func TestCommandLine(t *testing.T) {
	for args, want := range map[string]string{
		"-o\x00k_cugen.go\x00k.ptx":                 "cugen -o k_cugen.go k.ptx",
		"-type\x00Pair<float>=m/p.P\x00-cflags\x00": "cugen -type 'Pair<float>=m/p.P' -cflags ''",
		"-cflags\x00-DX='a b'":                      `cugen -cflags '-DX='\''a b'\'''`,
		"-cflags\x00a\nb":                           `cugen -cflags "a\nb"`,
	} {
		if got := CommandLine(strings.Split(args, "\x00")); got != want {
			t.Errorf("CommandLine(%q) = %s, want %s", args, got, want)
		}
	}
}
