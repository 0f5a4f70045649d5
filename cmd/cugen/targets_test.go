package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

// TestClangSeveralTargets: -compiler clang with several -gpu targets
// compiles once per target (clang refuses -o for several outputs) and
// embeds one fatbin of them, from which the driver and rt/soft choose per
// device; the Go functions are those of one target.
func TestClangSeveralTargets(t *testing.T) {
	cc := cliClang(t)
	dir := t.TempDir()
	src := `extern "C" __global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
`
	cu := filepath.Join(dir, "scale.cu")
	if err := os.WriteFile(cu, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scale_cugen.go")
	var stderr strings.Builder
	if rc := run([]string{"-compiler", "clang", "-cc", cc, "-gpu", "sm_70,sm_80,sm_90", "-pkg", "k", "-o", out, cu}, os.Stdout, &stderr); rc != 0 {
		t.Fatalf("cugen: exit %d: %s", rc, stderr.String())
	}
	img, err := os.ReadFile(filepath.Join(dir, "scale.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := fatbin.Parse(img)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, e := range fb.Entries {
		targets = append(targets, e.Target())
	}
	if !slices.Equal(targets, []string{"compute_70", "compute_80", "compute_90"}) {
		t.Errorf("the fatbin holds %v", targets)
	}
	gosrc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`rt.NewLibrary("scale.fatbin", image)`, "func Scale(cfg rt.Config, x rt.Ptr[float32], a float32, n int32) error"} {
		if !strings.Contains(string(gosrc), want) {
			t.Errorf("the generated file lacks %q", want)
		}
	}

	// Kernels that __CUDA_ARCH__ makes differ are an error naming them.
	bad := filepath.Join(dir, "bad.cu")
	if err := os.WriteFile(bad, []byte(src+`#if __CUDA_ARCH__ >= 800
extern "C" __global__ void fast(float *x) { x[0] = 1; }
#endif
`), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if rc := run([]string{"-compiler", "clang", "-cc", cc, "-gpu", "sm_70,sm_80", "-pkg", "k", "-o", filepath.Join(dir, "bad_cugen.go"), bad}, os.Stdout, &stderr); rc == 0 ||
		!strings.Contains(stderr.String(), "kernel fast is in") || !strings.Contains(stderr.String(), "--cuda-gpu-arch=sm_80") {
		t.Errorf("kernels that differ by target: exit %d: %s", rc, stderr.String())
	}
}
