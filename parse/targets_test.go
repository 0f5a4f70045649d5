package parse

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

func readPart(t *testing.T, path string, data []byte) Part {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Read(path, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Part{Name: path, Data: data, Module: m}
}

// TestCombine builds, from an sm_90 cubin and the compute_90 PTX of one
// source (nvcc 13, k.cu), the fatbin nvcc -gencode would: the cubin first,
// and the driver loads it on sm_90, the PTX elsewhere.
func TestCombine(t *testing.T) {
	cub := readPart(t, "cubin/testdata/k90.cubin", nil)
	ptx := readPart(t, "fatbin/testdata/k.ptx", nil)
	m, err := Combine("k.fatbin", []Part{ptx, cub}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Arches, []string{"compute_90", "sm_90"}) || m.Format != fatbin.FormatFatbin {
		t.Errorf("combined: %s, %v", m.Format, m.Arches)
	}
	if len(m.Kernels) != len(ptx.Module.Kernels) || m.Kernel("k1") == nil {
		t.Errorf("combined: %d kernels, want the %d of k.cu", len(m.Kernels), len(ptx.Module.Kernels))
	}
	fb, err := fatbin.Parse(m.Image)
	if err != nil {
		t.Fatal(err)
	}
	if got := fatbin.Select(fb.Entries, 90); got == nil || got.Target() != "sm_90" {
		t.Errorf("on sm_90 the driver loads %v, want the cubin", got)
	}
	if got := fatbin.SelectPTX(fb.Entries, 90); got == nil || got.Target() != "compute_90" {
		t.Errorf("rt/soft loads %v, want the PTX", got)
	}
	if fb.Entries[0].Kind != fatbin.KindELF {
		t.Errorf("the cubin is not first, as nvcc puts it")
	}
	d, err := fb.Entries[0].Data()
	if err != nil || !slices.Equal(d, cub.Data) {
		t.Errorf("the cubin entry is not the cubin (%v)", err)
	}

	// -arch keeps some of the targets.
	m, err = Combine("k.fatbin", []Part{ptx, cub}, Options{Arches: []string{"compute_90"}})
	if err != nil || !slices.Equal(m.Arches, []string{"compute_90"}) {
		t.Errorf("-arch compute_90: %v, %v", m.Arches, err)
	}

	// One target twice; one part alone.
	if _, err := Combine("k.fatbin", []Part{ptx, ptx}, Options{}); err == nil || !strings.Contains(err.Error(), "both hold code for compute_90") {
		t.Errorf("the same PTX twice: %v", err)
	}
	if _, err := Combine("k.fatbin", []Part{ptx}, Options{}); err == nil {
		t.Error("one part: no error")
	}
	// A variable of another size.
	bad := readPart(t, "k_big.ptx", []byte(strings.Replace(string(ptx.Data), ".global .align 4 .u32 g1;", ".global .align 8 .u64 g1;", 1)))
	if _, err := Combine("k.fatbin", []Part{ptx, bad}, Options{}); err == nil || !strings.Contains(err.Error(), "variable g1 is 4 bytes in fatbin/testdata/k.ptx, 8 in k_big.ptx") {
		t.Errorf("a variable of another size: %v", err)
	}
}
