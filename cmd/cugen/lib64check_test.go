package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fatbinListing is what cuobjdump -elf prints for a fatbin of two cubins:
// each cubin's listing after a "Fatbin elf code:" header (the header's
// format as cuobjdump prints it; the listings are cuobjdump's own, of
// field11.cu's sm_80 and sm_90 cubins, the cubins of field11.default.fatbin).
func fatbinListing(t *testing.T) string {
	var b strings.Builder
	for _, arch := range []string{"sm_80", "sm_90"} {
		data, err := os.ReadFile("testdata/lib64/field11_" + strings.ReplaceAll(arch, "_", "") + ".elf.txt")
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("\nFatbin elf code:\n================\narch = " + arch + "\ncode version = [1,8]\nhost = linux\ncompile_size = 64bit\n")
		b.Write(data)
	}
	b.WriteString("\nFatbin ptx code:\n================\narch = sm_90\ncode version = [9,0]\nhost = linux\ncompile_size = 64bit\ncompressed\n")
	return b.String()
}

func python(t *testing.T) string {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: lib64check.py, the GPU machine's lib64 comparison, is not tested here")
	}
	return py
}

// The cuobjdump -elf parser of lib64check.py, on listings cuobjdump made:
// every kernel of the cubins, with its offsets, sizes and block size.
func TestLib64CheckParser(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	listing := filepath.Join(dir, "fatbin.elf.txt")
	if err := os.WriteFile(listing, []byte(fatbinListing(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "lib64check.py", "--selftest", "../../parse/cubin/testdata/k90.elf.txt", listing).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{
		"FILE k90.elf.txt cubins sm_90=1\n",
		"k1 sm_90 0:8 8:4 16:24 40:8|48\n",
		"_ZN2ns2k3EcsxPh sm_90 0:1 2:2 8:8 16:8|24\n",
		"FILE fatbin.elf.txt cubins sm_80=1 sm_90=1\n",
		"bigParam sm_80 32:64 96:8|104\n",
		"bigParam sm_90 48:64 112:8|120\n",
		"tmaTile sm_90 112:128 240:8 248:4 252:4|256\n",
		"_Z2vkIJEEvPyDpT_ sm_80 0:8|8\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("selftest output lacks %q", want)
		}
	}
	if n := strings.Count(string(out), " sm_80 "); n != 15 {
		t.Errorf("%d sm_80 kernels read, want 15:\n%s", n, out)
	}
}

// The whole check, with a stand-in cuobjdump that prints the listing and
// the real cugen: field11's fatbin matches target for target; an offset
// changed in the listing is a mismatch and a failing exit status.
func TestLib64CheckCompares(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	cugen := filepath.Join(dir, "cugen")
	if out, err := exec.Command("go", "build", "-o", cugen, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	listing := fatbinListing(t)
	fake := func(text string) {
		os.WriteFile(filepath.Join(dir, "listing.txt"), []byte(text), 0o644)
		os.WriteFile(filepath.Join(dir, "cuobjdump"), []byte("#!/bin/sh\ncat "+filepath.Join(dir, "listing.txt")+"\n"), 0o755)
	}
	run := func() (string, error) {
		cmd := exec.Command(py, "lib64check.py", "--cugen", cugen, "../../parse/testdata/field11/field11.default.fatbin")
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	fake(listing)
	out, err := run()
	if err != nil || !strings.Contains(out, "LIB64 field11.default.fatbin kernels=15 cugen=15 targets=30 params=90 mismatches=0 ") {
		t.Errorf("%v:\n%s", err, out)
	}
	if !strings.Contains(out, "TOTAL (1 libraries; MiB, ratio: max)") || !strings.Contains(out, "mem ratio") ||
		!strings.Contains(out, "LIB64-MEM cugen's peak RSS at most cuobjdump's on 1 of 1 libraries") {
		t.Errorf("no table with the peaks' ratio:\n%s", out)
	}
	// bigParam's sm_90 u64 at 0x78 instead of 0x70.
	i := strings.LastIndex(listing, ".nv.info.bigParam")
	bad := listing[:i] + strings.Replace(listing[i:], "Offset  : 0x70", "Offset  : 0x78", 1)
	fake(bad)
	out, err = run()
	if err == nil || !strings.Contains(out, "mismatches=1 ") || !strings.Contains(out, "differs: bigParam sm_90: cugen 48:64 112:8|120") {
		t.Errorf("tampered listing: %v:\n%s", err, out)
	}
}
