package parse

import "testing"

// References to variables are counted in the PTX (a fatbin's too); a cubin
// does not say. The compiler's own variables are marked.
func TestGlobalRefsAndInternal(t *testing.T) {
	src := `.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 used;
.global .align 4 .u32 unused; // used only in this comment
.global .align 8 .u64 table = generic(used);
.global .align 1 .b8 __unnamed_1[3] = {104, 105};
.global .align 1 .b8 _ZN4cuda3std3__45__cpo4swapE[1];
.global .align 1 .b8 _ZN34_INTERNAL_a4a9a764_4_m_cu_b546f6383tabE[4];
.global .align 4 .b8 _ZN2ns5lanesE[16];
.visible .entry k()
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, _ZN2ns5lanesE;
	ret;
}
`
	m, err := Read("t.ptx", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Refs{"used": RefsSome, "unused": RefsNone, "table": RefsNone, "_ZN2ns5lanesE": RefsSome, "__unnamed_1": RefsNone} {
		if g := m.Global(name); g == nil || g.Refs != want {
			t.Errorf("%s: refs %v, want %v", name, g, want)
		}
	}
	for name, want := range map[string]bool{"used": false, "_ZN2ns5lanesE": false, "__unnamed_1": true,
		"_ZN4cuda3std3__45__cpo4swapE": true, "_ZN34_INTERNAL_a4a9a764_4_m_cu_b546f6383tabE": true} {
		if g := m.Global(name); g == nil || g.Internal() != want {
			t.Errorf("%s: internal %v, want %v", name, !want, want)
		}
	}
	if q := DemangleName("_ZN2ns5lanesE"); q != "ns::lanes" {
		t.Errorf("DemangleName = %q", q)
	}
	// From a fatbin: the PTX entry's counts; from a cubin alone: unknown.
	fat := readFile(t, "testdata/field11/field11.default.fatbin", Options{NoImage: true})
	if g := fat.Global("cells"); g.Refs != RefsSome {
		t.Errorf("fatbin cells: %v", g.Refs)
	}
	cub := readFile(t, "testdata/field11/field11_sm90.cubin", Options{})
	if g := cub.Global("cells"); g.Refs != RefsUnknown {
		t.Errorf("cubin cells: %v", g.Refs)
	}
}
