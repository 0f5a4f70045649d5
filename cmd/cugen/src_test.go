package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const srcPTX = `.version 8.0
.target sm_90
.address_size 64
.global .align 4 .b8 table[64];
.global .align 4 .b8 spare[16];
.visible .entry scale(
	.param .u64 scale_param_0,
	.param .u32 scale_param_1
)
{
	.reg .b32 %r<2>;
	ld.global.u32 %r1, [table];
	ret;
}
`

// -src is preprocessed with -I and -D; -globals chooses the variables.
func TestSrcPreprocessorFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("k.ptx", srcPTX)
	write("inc/real.h", "#ifdef DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\n")
	write("k.cu", "#include \"real.h\"\n__device__ real table[WIDTH];\nextern \"C\" __global__ void scale(real* x, int n) {}\n")
	out := filepath.Join(dir, "k_cugen.go")
	code, _, stderr := runCLI(t, "-o", out, "-pkg", "k", "-src", filepath.Join(dir, "k.cu"), "-I", filepath.Join(dir, "inc"), "-D", "WIDTH=16",
		"-globals", "^(table|spare)$", filepath.Join(dir, "k.ptx"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, _ := os.ReadFile(out)
	for _, want := range []string{
		"func Scale(cfg rt.Config, x rt.Ptr[float32], n int32) error",
		`var Table = rt.NewGlobal[float32](Library, "table", 16)`,
		`var Spare = rt.NewGlobal[uint8](Library, "spare", 16)`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated file lacks %q", want)
		}
	}
	// Without -globals, spare (declared nowhere, used by no code) is not wrapped.
	code, _, stderr = runCLI(t, "-o", out, "-pkg", "k", "-src", filepath.Join(dir, "k.cu"), "-I", filepath.Join(dir, "inc"), "-D", "WIDTH=16", "-D", "DOUBLE", filepath.Join(dir, "k.ptx"))
	src, _ = os.ReadFile(out)
	if code != 0 || strings.Contains(string(src), `"spare"`) || !strings.Contains(string(src), "x rt.Ptr[float64]") {
		t.Errorf("exit %d %s:\n%s", code, stderr, src)
	}
	if code, _, stderr := runCLI(t, "-o", out, "-globals", "(", filepath.Join(dir, "k.ptx")); code == 0 || !strings.Contains(stderr, "-globals: error parsing regexp") {
		t.Errorf("bad -globals: exit %d %s", code, stderr)
	}
	// A pattern that matches nothing is a mistake; -globals none is not.
	if code, _, stderr := runCLI(t, "-o", out, "-globals", "^$", filepath.Join(dir, "k.ptx")); code == 0 || !strings.Contains(stderr, "matches none of the 2 variables (-globals none wraps none)") {
		t.Errorf("-globals ^$: exit %d %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "-o", out, "-pkg", "k", "-src", filepath.Join(dir, "k.cu"), "-I", filepath.Join(dir, "inc"), "-D", "WIDTH=16", "-globals", "none", filepath.Join(dir, "k.ptx"))
	src, _ = os.ReadFile(out)
	if code != 0 || strings.Contains(string(src), "NewGlobal") || !strings.Contains(string(src), "// Not wrapped: spare, table: cugen -globals none.") {
		t.Errorf("-globals none: exit %d %s:\n%s", code, stderr, src)
	}
}

// A .cu that cugen compiles is its own -src: the extern "C" kernel's
// parameters are typed from it. The compiler here is a stand-in that
// writes the PTX a real one would.
func TestCompiledSourceIsDefaultSrc(t *testing.T) {
	dir := t.TempDir()
	ptx := filepath.Join(dir, "out.ptx")
	os.WriteFile(ptx, []byte(srcPTX), 0o644)
	cc := filepath.Join(dir, "fakecc")
	os.WriteFile(cc, []byte("#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\ncp "+ptx+" \"$2\"\n"), 0o755)
	cu := filepath.Join(dir, "k.cu")
	os.WriteFile(cu, []byte("__device__ int table[16];\nextern \"C\" __global__ void scale(float* x, int n) {}\n"), 0o644)
	out := filepath.Join(dir, "k_cugen.go")
	code, _, stderr := runCLI(t, "-compiler", "nvcc", "-cc", cc, "-o", out, "-pkg", "k", cu)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	src, _ := os.ReadFile(out)
	for _, want := range []string{"func Scale(cfg rt.Config, x rt.Ptr[float32], n int32) error", `var Table = rt.NewGlobal[int32](Library, "table", 16)`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated file lacks %q:\n%s", want, src)
		}
	}
}

// A host library without device code (libcudart, libnvrtc) lists as no
// kernels, with a note, and exit status 0.
func TestListHostELFWithoutDeviceCode(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "-list", exe)
	if code != 0 || !strings.HasSuffix(strings.SplitN(stdout, "\n", 2)[0], ": host-elf; 0 kernels, 0 globals") ||
		!strings.Contains(stdout, "warning: no CUDA device code") {
		t.Errorf("exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "-list", "-json", exe)
	if code != 0 || !strings.Contains(stdout, `"kernels": []`) || !strings.Contains(stdout, `"arches": []`) {
		t.Errorf("-json: exit %d, %s", code, stdout)
	}
}

// The nvcc route passes -I, -D and -U (the flags' and -cflags') to nvcc as
// cugen's reading of the source applies them, and the input relative to
// the working directory (nvcc's line information names it as given). The
// nvcc here is a stand-in that records its arguments.
func TestNVCCGetsPreprocessorFlags(t *testing.T) {
	dir := t.TempDir()
	ptx := filepath.Join(dir, "out.ptx")
	os.WriteFile(ptx, []byte(srcPTX), 0o644)
	argsFile := filepath.Join(dir, "args")
	cc := filepath.Join(dir, "fakenvcc")
	os.WriteFile(cc, []byte("#!/bin/sh\necho \"$@\" > "+argsFile+"\nwhile [ \"$1\" != -o ]; do shift; done\ncp "+ptx+" \"$2\"\n"), 0o755)
	os.MkdirAll(filepath.Join(dir, "inc"), 0o755)
	os.WriteFile(filepath.Join(dir, "inc", "real.h"), []byte("#ifdef DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\n"), 0o644)
	cu := filepath.Join(dir, "k.cu")
	os.WriteFile(cu, []byte("#include \"real.h\"\nextern \"C\" __global__ void scale(real* x, int n) {}\n"), 0o644)
	t.Chdir(dir)
	code, _, stderr := runCLI(t, "-compiler", "nvcc", "-cc", cc, "-o", "k_cugen.go", "-pkg", "k",
		"-I", "inc", "-D", "DOUBLE", "-U", "OTHER", "-cflags", "-DWIDTH=4 -lineinfo", cu)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	args, _ := os.ReadFile(argsFile)
	if want := "-I inc -D DOUBLE -D WIDTH=4 -U OTHER -lineinfo -o "; !strings.Contains(string(args), want) || !strings.HasSuffix(strings.TrimSpace(string(args)), " k.cu") {
		t.Errorf("nvcc got %q, want %q ... k.cu", args, want)
	}
	if src, _ := os.ReadFile("k_cugen.go"); !strings.Contains(string(src), "x rt.Ptr[float64]") {
		t.Errorf("-D DOUBLE did not reach the source's reading:\n%s", src)
	}
}
