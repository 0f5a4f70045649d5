package golden

// A case directory may hold a cugen.flags file with the -src and -type
// options of cmd/cugen, whitespace-separated ('#' starts a comment); -src
// paths are relative to the case directory. A directory without an input
// (testdata/gotypes) holds Go types that -type cases map to.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cugen/cugen/gen"
	"github.com/cugen/cugen/parse"
	"github.com/cugen/cugen/parse/csrc"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// inputExts are the input kinds, in the order a case directory is searched.
var inputExts = []string{".o", ".so", ".ptx", ".cubin", ".fatbin"} // host ELF first: its dir also holds the extracted .fatbin

// inputs returns testdata/NAME/INPUT for every case: the directory's first
// file with an input extension.
func inputs(t *testing.T) []string {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join("testdata", d.Name()))
		if err != nil {
			t.Fatal(err)
		}
	search:
		for _, ext := range inputExts {
			for _, f := range files {
				if strings.HasSuffix(f.Name(), ext) {
					out = append(out, filepath.Join("testdata", d.Name(), f.Name()))
					break search
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no golden inputs")
	}
	return out
}

// imageName is the embedded file's name, as cmd/cugen chooses it: the input
// itself, or NAME.fatbin extracted from a host object.
func imageName(input string, m *parse.Module) string {
	if m.Format == parse.FormatHostELF {
		return strings.TrimSuffix(filepath.Base(input), filepath.Ext(input)) + ".fatbin"
	}
	return filepath.Base(input)
}

func generate(t *testing.T, input string) []byte {
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := parse.Read(filepath.Base(input), data, parse.Options{})
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	types, err := applyFlags(filepath.Dir(input), mod)
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	pkg := filepath.Base(filepath.Dir(input))
	img := imageName(input, mod)
	src, err := gen.Generate(mod, gen.Options{Package: strings.ReplaceAll(pkg, "_", ""), ImageFile: img, Source: filepath.Base(input), Types: types})
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	if img != filepath.Base(input) {
		path := filepath.Join(filepath.Dir(input), img)
		old, err := os.ReadFile(path)
		switch {
		case *update:
			if err := os.WriteFile(path, mod.Image, 0o644); err != nil {
				t.Fatal(err)
			}
		case err != nil:
			t.Fatalf("%v (run go test ./golden -update)", err)
		case !bytes.Equal(old, mod.Image):
			t.Errorf("%s differs from the extracted image; run go test ./golden -update", path)
		}
	}
	return src
}

// applyFlags reads dir/cugen.flags, if any: it applies the -src files to mod
// as cmd/cugen does and returns the loaded -type mappings.
func applyFlags(dir string, mod *parse.Module) ([]gen.TypeMapping, error) {
	data, err := os.ReadFile(filepath.Join(dir, "cugen.flags"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var args []string
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		args = append(args, strings.Fields(line)...)
	}
	var srcs []string
	var types []gen.TypeMapping
	fs := flag.NewFlagSet("cugen.flags", flag.ContinueOnError)
	fs.Func("src", "CUDA source", func(s string) error { srcs = append(srcs, s); return nil })
	fs.Func("type", "C++ type as a Go type", func(s string) error {
		m, err := gen.ParseTypeMapping(s)
		types = append(types, m)
		return err
	})
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("cugen.flags: %v", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("cugen.flags: unexpected %q", fs.Args())
	}
	var files []*csrc.File
	for _, s := range srcs {
		data, err := os.ReadFile(filepath.Join(dir, s))
		if err != nil {
			return nil, err
		}
		f, err := csrc.Parse(filepath.Base(s), data)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	warnings, err := csrc.Apply(mod, files)
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		return nil, fmt.Errorf("-src warnings (a golden case must not have any): %q", warnings)
	}
	return gen.LoadTypeMappings(dir, types)
}

func goldenPath(input string) string {
	dir := filepath.Dir(input)
	return filepath.Join(dir, filepath.Base(dir)+"_cugen.go")
}

func TestGolden(t *testing.T) {
	for _, in := range inputs(t) {
		t.Run(filepath.Base(filepath.Dir(in)), func(t *testing.T) {
			got := generate(t, in)
			path := goldenPath(in)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./golden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the generated code; run go test ./golden -update and review the diff", path)
			}
			// Deterministic: a second run gives the same bytes.
			if again := generate(t, in); !bytes.Equal(again, got) {
				t.Errorf("%s: two runs generated different output", in)
			}
		})
	}
}

// TestGoldenCompiles builds and vets every golden package in a scratch module
// that points at this repository, so a golden file that does not compile fails.
func TestGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every golden package with the go tool; skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the go tool is needed to compile the golden outputs:", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	gomod := "module goldencheck\n\ngo 1.25\n\nrequire github.com/cugen/cugen v0.0.0\n\nreplace github.com/cugen/cugen => " + root + "\n"
	write(t, filepath.Join(scratch, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(scratch, "go.sum"), sum)
	for _, in := range inputs(t) {
		name := filepath.Base(filepath.Dir(in))
		dir := filepath.Join(scratch, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files, err := os.ReadDir(filepath.Dir(in))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(filepath.Dir(in), f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, f.Name()), data)
		}
	}
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the golden packages failed: %v\n%s", err, out)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
