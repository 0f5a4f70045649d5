package parse

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/hostile"
)

// Parameter blocks over CUDA's limits: one warning per kernel, the input
// still read, the kernels still in the model (cugen -list shows them).
func TestParamBlockLimits(t *testing.T) {
	const gib = 1 << 30
	src := hostile.ParamPTX([]int{2147483647}, []int{gib, gib, gib, gib, gib, gib, gib, gib}, []int{40000}, []int{5000}, []int{16})
	mod, err := Read("p.ptx", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(mod.Kernels) != 5 {
		t.Fatalf("%d kernels", len(mod.Kernels))
	}
	want := map[string]int{"k0": 2147483647, "k1": 8 * gib, "k2": 40000}
	for _, k := range mod.Kernels {
		if n, over := want[k.Name]; over != !k.Launchable() || over && k.ParamSize != n {
			t.Errorf("%s: %d bytes, launchable %v", k.Name, k.ParamSize, k.Launchable())
		}
	}
	w := strings.Join(mod.Warnings, "\n")
	for name, n := range want {
		if s := "kernel " + name + ": parameter block of "; strings.Count(w, s) != 1 || !strings.Contains(w, s+strconv.Itoa(n)+" bytes exceeds CUDA's limit of 32764 bytes") {
			t.Errorf("warnings lack %s once with %d bytes:\n%s", name, n, w)
		}
	}
	if strings.Contains(w, "k3") || strings.Contains(w, "k4") {
		t.Errorf("warnings name a kernel within the limit (sm_70):\n%s", w)
	}
	// Before sm_70 the limit is 4,096 bytes: k3 (5,000) does not launch
	// there, but the file is still generated.
	old, err := Read("p60.ptx", []byte(strings.Replace(string(src), ".target sm_70", ".target sm_60", 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(old.Warnings, "\n"); !strings.Contains(w, "kernel k3: parameter block of 5000 bytes exceeds the 4096 bytes CUDA allows before sm_70: it does not launch from compute_60") {
		t.Errorf("sm_60 warnings:\n%s", w)
	}
	for arch, limit := range map[string]int{"sm_60": 4096, "compute_61": 4096, "sm_70": 32764, "sm_90a": 32764, "sm_100f": 32764, "lto_52": 4096, "x": 32764} {
		if ParamLimit(arch) != limit {
			t.Errorf("ParamLimit(%s) = %d, want %d", arch, ParamLimit(arch), limit)
		}
	}
}

// A target whose layout moves parameters may have a larger block than the
// canonical one: the limits apply to each target's own.
func TestParamBlockPerTarget(t *testing.T) {
	m := &Module{Arches: []string{"compute_60", "sm_60", "sm_90"}, Kernels: []*Kernel{
		{Name: "a", ParamSize: 100, Layouts: []*TargetLayout{{Arches: []string{"sm_90"}, ParamSize: 40000}}},
		{Name: "b", ParamSize: 100, Layouts: []*TargetLayout{{Arches: []string{"sm_60"}, ParamSize: 5000}}},
	}}
	checkParamBlocks(m)
	w := strings.Join(m.Warnings, "\n")
	if m.Kernels[0].Launchable() || !m.Kernels[1].Launchable() || len(m.Warnings) != 2 ||
		!strings.Contains(w, "kernel a: parameter block of 40000 bytes exceeds CUDA's limit") ||
		!strings.Contains(w, "kernel b: parameter block of 5000 bytes exceeds the 4096 bytes CUDA allows before sm_70: it does not launch from sm_60") {
		t.Errorf("warnings:\n%s", w)
	}
}
