package parse

import "testing"

// References to variables are counted in the PTX (a fatbin's too); a cubin
// does not say. The compiler's own variables are marked: nvcc's and clang's
// (its names are clang-19's for assert and printf).
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
.global .align 1 .b8 _$_str[6] = {110, 32, 62, 32, 48};
.global .align 1 .b8 _$_str3[13] = {112, 32, 33, 61, 32, 110, 117, 108, 108, 112, 116, 114};
.global .align 1 .b8 __PRETTY_FUNCTION___$__Z1kPii[19] = {118, 111, 105, 100, 32, 107, 40, 105, 110, 116, 32, 42, 44, 32, 105, 110, 116, 41};
.global .align 1 .b8 __func___$_k[2] = {107};
.visible .entry k()
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, _ZN2ns5lanesE;
	mov.u64 %rd1, _$_str;
	mov.u64 %rd1, __PRETTY_FUNCTION___$__Z1kPii;
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
		"_ZN4cuda3std3__45__cpo4swapE": true, "_ZN34_INTERNAL_a4a9a764_4_m_cu_b546f6383tabE": true,
		// clang's printf and assert strings, referred to by the code that prints.
		"_$_str": true, "_$_str3": true, "__PRETTY_FUNCTION___$__Z1kPii": true, "__func___$_k": true} {
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
	cub := readFile(t, field11("field11_sm90.cubin"), Options{})
	if g := cub.Global("cells"); g.Refs != RefsUnknown {
		t.Errorf("cubin cells: %v", g.Refs)
	}
}
