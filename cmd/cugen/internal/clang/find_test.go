package clang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeClang writes a script named name into dir that answers --version as
// clang version v and -print-resource-dir.
func fakeClang(t *testing.T, dir, name, v string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo 'Debian clang version " + v + "';;\n-print-resource-dir) echo /usr/lib/llvm/lib/clang/x;;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFind: clang on PATH first, else the newest clang-N; a clang older
// than MinVersion is passed over, and when every one is, the error names
// them and what to install.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	fakeClang(t, dir, "clang-9", "9.0.1")
	fakeClang(t, dir, "clang-16", "16.0.6")
	want := fakeClang(t, dir, "clang-22", "22.1.8")
	for _, name := range []string{"clang-format-20", "clang-tidy"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho 'LLVM version 20.0.0'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	if got := Candidates(); len(got) != 3 || got[0] != want {
		t.Errorf("Candidates() = %q, want clang-22, clang-16, clang-9", got)
	}
	c, err := Find("")
	if err != nil || c.Path != want || c.Version != 22 || c.ResourceDir != "/usr/lib/llvm/lib/clang/x" {
		t.Errorf("Find() = %+v, %v; want clang-22", c, err)
	}
	plain := fakeClang(t, dir, "clang", "19.1.7")
	if c, err := Find(""); err != nil || c.Path != plain {
		t.Errorf("Find() = %+v, %v; want the plain clang", c, err)
	}
	// A plain clang that is too old gives way to a clang-N.
	fakeClang(t, dir, "clang", "12.0.1")
	if c, err := Find(""); err != nil || c.Path != want {
		t.Errorf("Find() with an old plain clang = %+v, %v; want clang-22", c, err)
	}
	if _, err := Find("clang-9"); err == nil || !strings.Contains(err.Error(), "needs clang 13 or newer") || !strings.Contains(err.Error(), "apt install clang-19") {
		t.Errorf("Find(clang-9) = %v, want a too-old error naming what to install", err)
	}
	if _, err := Find("clang-tidy"); err == nil || !strings.Contains(err.Error(), "-cc clang-tidy") {
		t.Errorf("Find(clang-tidy) = %v, want an error naming -cc", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(""); err == nil || !strings.Contains(err.Error(), "no clang on PATH") {
		t.Errorf("Find() with no clang on PATH: %v", err)
	}
}
