// Package examples_test checks that every example's generated code is what
// its //go:generate lines produce today (the protobuf-go "stale generated
// files" test). It runs each line in a scratch copy of the package: cugen
// (built once from this repository), clang when a line compiles with it, and
// nvcc where one is installed; a step whose compiler is missing is skipped
// and said so, except clang under CI (CI=true), where .ci/run installs it.
//
// The committed PTX that clang compiled is clang 16's (CI's). Another clang
// writes other comments, which are not compared, and may write other code:
// then the PTX is not checked (the Go files still are), and the test says so.
package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/gen/fresh"
)

// committedClang is the major version of the clang whose PTX is committed:
// .ci/run installs clang-16.
const committedClang = 16

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

// clang is the compiler the -compiler clang lines run (first on their PATH).
type clang struct {
	path    string // "" when there is none
	version int    // major version
}

// findClang prefers the committed version, then clang, then the newest
// clang-N on PATH.
func findClang(t *testing.T) clang {
	var paths []string
	if p, err := exec.LookPath("clang-" + strconv.Itoa(committedClang)); err == nil {
		paths = append(paths, p)
	}
	if p, err := exec.LookPath("clang"); err == nil {
		paths = append(paths, p)
	}
	newest, newestVersion := "", 0
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		matches, _ := filepath.Glob(filepath.Join(dir, "clang-[0-9]*"))
		for _, m := range matches {
			if v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "clang-")); err == nil && v > newestVersion {
				newest, newestVersion = m, v
			}
		}
	}
	if newest != "" {
		paths = append(paths, newest)
	}
	for _, p := range paths {
		out, err := exec.Command(p, "--version").Output()
		if err != nil {
			continue
		}
		m := regexp.MustCompile(`clang version (\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s --version: no version in %q", p, out)
		}
		v, _ := strconv.Atoi(string(m[1]))
		return clang{path: p, version: v}
	}
	return clang{}
}

// generatedPackages lists the example directories with //go:generate lines.
func generatedPackages(t *testing.T) []string {
	var dirs []string
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if bytes.Contains(src, []byte("\n//go:generate ")) && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// generateIn runs the //go:generate lines of dir's Go files in dir, as go
// generate would (files in name order, build tags ignored: a step whose
// compiler is missing is skipped and said so). It returns a reason the lines
// could not run, and whether some line compiles with clang. Messages name the
// package as label.
func generateIn(t *testing.T, cugen string, cc clang, dir, label string) (skipped string, usesClang bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	pkg := ""
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if f, ok := strings.CutPrefix(l, "//go:generate "); ok {
				lines = append(lines, f)
			}
			if p, ok := strings.CutPrefix(l, "package "); ok && pkg == "" {
				pkg = strings.TrimSpace(p)
			}
		}
	}
	for _, line := range lines {
		args := strings.Fields(line)
		path := os.Getenv("PATH")
		switch {
		case len(args) > 2 && args[0] == "go" && args[1] == "tool" && args[2] == "cugen":
			args = append([]string{cugen}, args[3:]...)
			if strings.Contains(line, "-compiler clang") {
				usesClang = true
				if cc.path == "" {
					if os.Getenv("CI") != "" {
						t.Fatalf("%s: clang is not installed; .ci/run installs clang-%d", label, committedClang)
					}
					return "no clang on PATH", usesClang
				}
				path = clangFirst(t, cc.path)
			}
		case args[0] == "nvcc":
			if _, err := exec.LookPath("nvcc"); err != nil {
				t.Logf("%s: no nvcc here: checking the committed nvcc output, not rebuilding it", label)
				continue
			}
		default:
			t.Fatalf("%s: unexpected //go:generate line %q", label, line)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPACKAGE="+pkg, "PATH="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", label, line, err, out)
		}
	}
	return "", usesClang
}

// clangFirst is $PATH with a directory first in which clang is cc: cugen
// runs clang from PATH, and the line runs as written (the generated
// file's header records it).
func clangFirst(t *testing.T, cc string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(cc, filepath.Join(dir, "clang")); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// ptxCode is PTX text without its comments and blank lines.
func ptxCode(ptx []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(ptx), "\n") {
		line, _, _ = strings.Cut(line, "//")
		if line = strings.TrimRight(line, " \t"); line != "" {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// regenerate copies dir to a scratch directory, runs its //go:generate
// lines there and returns the files that differ from dir's, or a reason the
// check could not run. strictPTX says the committed PTX is from cc's version,
// so that PTX clang compiled to other code is stale.
func regenerate(t *testing.T, cugen string, cc clang, dir string, strictPTX bool) (stale []string, skipped string) {
	t.Helper()
	// The scratch copy lives inside the module (a dot directory, which the go
	// tool's ./... ignores) so that -type can resolve the module's packages.
	scratch, err := os.MkdirTemp(".", ".fresh-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	copyDir(t, dir, scratch)
	skipped, usesClang := generateIn(t, cugen, cc, scratch, dir)
	if skipped != "" {
		return nil, skipped
	}
	after, err := os.ReadDir(scratch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range after {
		got, _ := os.ReadFile(filepath.Join(scratch, e.Name()))
		path := filepath.Join(dir, e.Name())
		want, err := os.ReadFile(path)
		clangPTX := err == nil && usesClang && strings.HasSuffix(e.Name(), ".ptx")
		switch {
		case err == nil && bytes.Equal(got, want):
		case clangPTX && ptxCode(got) == ptxCode(want):
			t.Logf("%s: clang %d writes the same code, with other comments", path, cc.version)
		case clangPTX && !strictPTX:
			t.Logf("%s: clang %d compiles other code than the committed clang %d's: the PTX is not checked here (CI checks it)", path, cc.version, committedClang)
		default:
			stale = append(stale, path)
		}
	}
	return stale, ""
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGeneratedCodeIsFresh(t *testing.T) {
	cugen := buildCugen(t, t.TempDir())
	cc := findClang(t)
	dirs := generatedPackages(t)
	if len(dirs) < 6 {
		t.Fatalf("found %d generated packages, want every example's", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			stale, skipped := regenerate(t, cugen, cc, dir, cc.version == committedClang)
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
// contributor might, and checks that the freshness check notices. The
// package is first generated with the clang at hand, so that the check is
// strict whatever its version.
func TestStaleCodeIsCaught(t *testing.T) {
	cc := findClang(t)
	if cc.path == "" && os.Getenv("CI") == "" {
		t.Skip("needs clang (CI installs clang-16)")
	}
	work := t.TempDir()
	cugen := buildCugen(t, work)
	dir := filepath.Join(work, "saxpy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir(t, "saxpy/kernels", dir)
	if skipped, _ := generateIn(t, cugen, cc, dir, dir); skipped != "" {
		t.Fatal(skipped)
	}
	src := filepath.Join(dir, "saxpy.cu")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte("y[i] = a * x[i] + y[i];"), []byte("y[i] = a * x[i] - y[i];"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("saxpy.cu no longer has the line this test edits")
	}
	if err := os.WriteFile(src, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	stale, skipped := regenerate(t, cugen, cc, dir, true)
	if skipped != "" {
		t.Fatal(skipped)
	}
	// The PTX, and the Go file, which records the .cu's SHA-256: without a
	// compiler, fresh.Dir says so too.
	if len(stale) != 2 || filepath.Base(stale[0]) != "saxpy.ptx" || filepath.Base(stale[1]) != "saxpy_cugen.go" {
		t.Errorf("an edited saxpy.cu left stale %v, want [saxpy.ptx saxpy_cugen.go]", stale)
	}
	if err := fresh.Dir(dir); err == nil || !strings.Contains(err.Error(), "saxpy.cu has changed since") {
		t.Errorf("fresh.Dir after editing saxpy.cu: %v", err)
	}
}
