package soft

import (
	"os"
	"slices"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/rt"
)

// TestImageChoice: from a fatbin of several targets soft loads the PTX the
// CUDA driver would JIT-compile on the emulated device (fatbin.SelectPTX),
// which the kernels' PTXVersion attribute shows, also where a GPU would
// load a cubin (soft executes PTX only).
func TestImageChoice(t *testing.T) {
	entry := func(kind fatbin.Kind, arch uint32, file string) *fatbin.Entry {
		data, err := os.ReadFile("testdata/targets/" + file)
		if err != nil {
			t.Fatal(err)
		}
		e, err := fatbin.NewEntry(fatbin.Image{Kind: kind, Arch: arch, Major: 1, Minor: 8, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cubin := entry(fatbin.KindELF, 90, "k90.cubin") // another code set's: a GPU would load it, soft cannot
	p50, p70, p80 := entry(fatbin.KindPTX, 50, "madd3_50.ptx"), entry(fatbin.KindPTX, 70, "madd3_70.ptx"), entry(fatbin.KindPTX, 80, "madd3_80.ptx")
	all := []*fatbin.Entry{cubin, p50, p70, p80}
	image := fatbin.Build(all)
	for _, c := range []struct {
		cc, want int
	}{{90, 80}, {86, 80}, {75, 70}, {70, 70}, {61, 50}} {
		if e := fatbin.SelectPTX(all, c.cc); int(e.Arch) != c.want {
			t.Fatalf("SelectPTX on sm_%d: %s", c.cc, e.Target())
		}
		d := New(Options{ComputeCapability: c.cc})
		lib, err := d.LibraryLoad(image, rt.LoadOptions{})
		if err != nil {
			t.Fatalf("sm_%d: %v", c.cc, err)
		}
		names, _ := d.LibraryKernelNames(lib)
		if !slices.Equal(slices.Sorted(slices.Values(names)), []string{"madd3", "normalize"}) {
			t.Errorf("sm_%d: kernels %v, want madd3's", c.cc, names)
		}
		k, err := d.LibraryKernel(lib, "madd3")
		if err != nil {
			t.Fatal(err)
		}
		ptxv, _ := d.KernelAttribute(k, rt.FuncPTXVersion, 0)
		bin, _ := d.KernelAttribute(k, rt.FuncBinaryVersion, 0)
		if ptxv != c.want || bin != c.cc {
			t.Errorf("sm_%d: PTX version %d, binary version %d; want %d and %d", c.cc, ptxv, bin, c.want, c.cc)
		}
	}
	if e := fatbin.Select(all, 90); e != cubin {
		t.Errorf("a GPU of sm_90 would load %s, want the cubin", e.Target())
	}
	// Below every PTX target: nothing to run, and the error says what there is.
	d := New(Options{ComputeCapability: 35})
	if _, err := d.LibraryLoad(image, rt.LoadOptions{}); rt.CodeOf(err) != rt.ErrNoBinaryForGPU {
		t.Errorf("sm_35: %v, want %s", err, rt.ErrNoBinaryForGPU.Name())
	}
}
