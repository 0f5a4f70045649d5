package parse

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// deviceLayouts reads field11_host.txt: the offsets the H100 reported for
// each extern "C" kernel of field11.cu, as "off:size off:size".
func deviceLayouts(t *testing.T) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(mustRead(t, "testdata/field11/field11_host.txt")))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 1 && f[0] == "PARAMS" {
			out[f[1]] = strings.Join(f[2:], " ")
		}
	}
	if len(out) != 5 {
		t.Fatalf("%d kernels in field11_host.txt, want 5", len(out))
	}
	return out
}

// layoutString is the offsets and sizes arch's code expects for k.
func layoutString(k *Kernel, arch string) string {
	offsets, _ := k.Layout(arch)
	var parts []string
	for i, o := range offsets {
		parts = append(parts, fmt.Sprintf("%d:%d", o, k.Params[i].Size))
	}
	return strings.Join(parts, " ")
}

// A fatbin of sm_80 + sm_90 + compute_90 PTX whose over-aligned parameters
// sit at different offsets per target is read in every compress mode and
// from its host object: the parameters are in the canonical layout (the
// PTX's), each cubin's own layout is kept, and the sm_90 one is what the
// H100 reports for the kernels it loads.
func TestPerTargetLayouts(t *testing.T) {
	device := deviceLayouts(t)
	for _, file := range []string{"field11.default.fatbin", "field11.none.fatbin", "field11.size.fatbin", "field11.speed.fatbin", "field11.o"} {
		m := readFile(t, field11(file), Options{NoImage: true})
		if len(m.Kernels) != 15 {
			t.Errorf("%s: %d kernels, want 15 (warnings %q)", file, len(m.Kernels), m.Warnings)
		}
		for name, want := range device {
			k := m.Kernel(name)
			if k == nil {
				t.Fatalf("%s: no kernel %s", file, name)
			}
			if got := layoutString(k, "sm_90"); got != want {
				t.Errorf("%s: %s sm_90 layout %s, the H100 reports %s", file, name, got, want)
			}
		}
		k := m.Kernel("bigParam")
		if got := layoutString(k, "compute_90"); got != "0:64 64:8" || k.ParamSize != 72 {
			t.Errorf("%s: bigParam canonical layout %s (%d bytes), want the PTX's 0:64 64:8 (72)", file, got, k.ParamSize)
		}
		if got := layoutString(k, "sm_80"); got != "32:64 96:8" {
			t.Errorf("%s: bigParam sm_80 layout %s, want 32:64 96:8", file, got)
		}
		if len(k.Layouts) != 2 || !k.Params[0].OverAligned() || k.Params[0].Align != 64 || k.Params[1].OverAligned() {
			t.Errorf("%s: bigParam layouts %v, params %+v %+v", file, k.Layouts, *k.Params[0], *k.Params[1])
		}
		if tma := m.Kernel("tmaTile"); tma.Params[0].Align != 128 || tma.Layouts[1].ParamSize != 256 {
			t.Errorf("%s: tmaTile align %d, layouts %+v", file, tma.Params[0].Align, tma.Layouts)
		}
		// Kernels without over-aligned parameters have one layout.
		if v := m.Kernel("_Z2vkIJPf4CellPKS1_EEvPyDpT_"); v == nil || len(v.Layouts) != 0 {
			t.Errorf("%s: vk<float*, Cell, Cell const*>: %+v", file, v)
		}
	}
}

// Without PTX, the canonical layout is still the natural one, with the
// alignments the cubins' padding implies; each cubin keeps its own.
func TestCubinLayouts(t *testing.T) {
	for _, c := range []struct {
		file, arch string
		align      int // of tmaTile's CUtensorMap: the padding's lower bound
	}{
		{"field11_sm80.cubin", "sm_80", 64},
		{"field11_sm90.cubin", "sm_90", 128},
	} {
		m := readFile(t, field11(c.file), Options{})
		k := m.Kernel("tmaTile")
		if k.Params[0].Align != c.align || k.Params[0].Offset != 0 || k.Params[1].Offset != 128 || k.ParamSize != 144 {
			t.Errorf("%s: tmaTile params %+v %+v (%d bytes)", c.file, *k.Params[0], *k.Params[1], k.ParamSize)
		}
		if len(k.Layouts) != 1 || !slices.Equal(k.Layouts[0].Arches, []string{c.arch}) {
			t.Errorf("%s: tmaTile layouts %+v", c.file, k.Layouts)
		}
	}
	// Two cubins: the larger alignment wins, so the layout is the same as
	// with the PTX.
	m := readFile(t, "testdata/field11/field11.default.fatbin", Options{Arches: []string{"sm_80", "sm_90"}})
	if k := m.Kernel("tmaTile"); k.Params[0].Align != 128 || layoutString(k, "") != "0:128 128:8 136:4 140:4" {
		t.Errorf("sm_80 + sm_90: tmaTile %+v, canonical %s", *k.Params[0], layoutString(k, ""))
	}
}

// A kernel whose targets disagree on the number of parameters is dropped
// with a warning; the other 14 are kept.
func TestParamCountMismatchDropsTheKernel(t *testing.T) {
	data := bytes.Clone(mustRead(t, field11("field11.none.fatbin")))
	last := []byte(",\n.param .u32 _Z5mixedIfJiiiEEvPT_iDpT0__param_4")
	if !bytes.Contains(data, last) {
		t.Fatal("field11.none.fatbin has no uncompressed mixed<float, int, int, int> PTX")
	}
	data = bytes.Replace(data, last, bytes.Repeat([]byte(" "), len(last)), 1)
	m, err := Read("edited.fatbin", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Kernels) != 14 || m.Kernel("_Z5mixedIfJiiiEEvPT_iDpT0_") != nil {
		t.Errorf("%d kernels", len(m.Kernels))
	}
	want := "kernel _Z5mixedIfJiiiEEvPT_iDpT0_ dropped: 5 parameters in sm_80, 4 in compute_90"
	if !slices.Contains(m.Warnings, want) {
		t.Errorf("warnings %q, want %q", m.Warnings, want)
	}
}

// inExample are the nvcc outputs of field11.cu that examples/tma/kernels
// builds its package from (compile_nvcc.go there, the same nvcc 13.0 runs):
// read from there, not copied here.
var inExample = map[string]bool{"field11.none.fatbin": true, "field11.speed.fatbin": true, "field11_sm90.cubin": true, "field11.o": true}

// field11 is the path of one of field11.cu's files.
func field11(file string) string {
	if inExample[file] {
		return "../examples/tma/kernels/" + file
	}
	return "testdata/field11/" + file
}
