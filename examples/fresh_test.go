// Package examples_test checks that every example's generated code is what
// its //go:generate lines produce today (the protobuf-go "stale generated
// files" test). It runs each line in a scratch copy of the package: cugen
// (built once from this repository), clang when a line compiles with it, and
// nvcc where one is installed; a step whose compiler is missing is skipped
// and said so, except clang under CI (CI=true), where .ci/run installs it.
package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildCugen builds cmd/cugen into dir.
func buildCugen(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "cugen")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/cugen")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building cugen: %v\n%s", err, out)
	}
	return bin
}

// generatedPackages lists the example directories with //go:generate lines.
func generatedPackages(t *testing.T) []string {
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte("\n//go:generate ")) {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// regenerate copies dir to a scratch directory, runs its //go:generate
// lines there and returns the files that differ from dir's, or a reason the
// check could not run.
func regenerate(t *testing.T, cugen, dir string) (stale []string, skipped string) {
	t.Helper()
	// The scratch copy lives inside the module (a dot directory, which the go
	// tool's ./... ignores) so that -type can resolve the module's packages.
	scratch, err := os.MkdirTemp(".", ".fresh-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	pkg := ""
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(scratch, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			for _, l := range strings.Split(string(data), "\n") {
				if f, ok := strings.CutPrefix(l, "//go:generate "); ok {
					lines = append(lines, f)
				}
				if p, ok := strings.CutPrefix(l, "package "); ok && pkg == "" {
					pkg = strings.TrimSpace(p)
				}
			}
		}
	}
	for _, line := range lines {
		args := strings.Fields(line)
		switch {
		case len(args) > 3 && args[0] == "go" && args[1] == "run" && args[2] == "github.com/cugen/cugen/cmd/cugen":
			args = append([]string{cugen}, args[3:]...)
			if strings.Contains(line, "-compiler clang") {
				if _, err := exec.LookPath("clang-16"); err != nil {
					if _, err := exec.LookPath("clang"); err != nil {
						if os.Getenv("CI") != "" {
							t.Fatalf("%s: clang is not installed; .ci/run installs clang-16", dir)
						}
						return nil, "no clang on PATH"
					}
				}
			}
		case args[0] == "nvcc":
			if _, err := exec.LookPath("nvcc"); err != nil {
				t.Logf("%s: no nvcc here: checking the committed nvcc output, not rebuilding it", dir)
				continue
			}
		default:
			t.Fatalf("%s: unexpected //go:generate line %q", dir, line)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = scratch
		cmd.Env = append(os.Environ(), "GOPACKAGE="+pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", dir, line, err, out)
		}
	}
	after, err := os.ReadDir(scratch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range after {
		got, _ := os.ReadFile(filepath.Join(scratch, e.Name()))
		want, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			stale = append(stale, filepath.Join(dir, e.Name()))
		}
	}
	return stale, ""
}

func TestGeneratedCodeIsFresh(t *testing.T) {
	cugen := buildCugen(t, t.TempDir())
	dirs := generatedPackages(t)
	if len(dirs) < 6 {
		t.Fatalf("found %d generated packages, want every example's", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			stale, skipped := regenerate(t, cugen, dir)
			if skipped != "" {
				t.Skip(skipped)
			}
			for _, f := range stale {
				t.Errorf("%s is stale: run go generate ./%s and commit the result", f, dir)
			}
		})
	}
}

// TestStaleCodeIsCaught edits a kernel source without regenerating, as a
// contributor might, and checks that the freshness check notices.
func TestStaleCodeIsCaught(t *testing.T) {
	if _, err := exec.LookPath("clang-16"); err != nil && os.Getenv("CI") == "" {
		t.Skip("needs clang-16 (CI installs it)")
	}
	work := t.TempDir()
	cugen := buildCugen(t, work)
	dir := filepath.Join(work, "saxpy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"gen.go", "saxpy.cu", "saxpy.ptx", "saxpy_cugen.go"} {
		data, err := os.ReadFile(filepath.Join("saxpy/kernels", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "saxpy.cu" {
			data = bytes.Replace(data, []byte("y[i] = a * x[i] + y[i];"), []byte("y[i] = a * x[i] - y[i];"), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stale, skipped := regenerate(t, cugen, dir)
	if skipped != "" {
		t.Fatal(skipped)
	}
	if len(stale) != 1 || filepath.Base(stale[0]) != "saxpy.ptx" {
		t.Errorf("an edited saxpy.cu left stale %v, want [saxpy.ptx]", stale)
	}
}
