package parse

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

// A kernel cugen cannot type keeps its binary widths, with a warning naming
// it; the kernels beside it are typed as usual.
func TestUntypedKernelDegrades(t *testing.T) {
	deep := "_Z1f" + strings.Repeat("P", 300) + "i"
	src := ".version 8.0\n.target sm_90\n.address_size 64\n" +
		".visible .entry _Z1kii(.param .u32 a, .param .u32 b, .param .u32 c)\n{\n\tret;\n}\n" +
		".visible .entry " + deep + "(.param .u64 p)\n{\n\tret;\n}\n" +
		".visible .entry _Z2okPf(.param .u64 p)\n{\n\tret;\n}\n"
	m, err := Read("t.ptx", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Kernels) != 3 {
		t.Fatalf("%d kernels", len(m.Kernels))
	}
	k := m.Kernel("_Z1kii")
	if k.Untyped != "its mangled name has 2 parameters, the code 3" || k.Signature == nil || k.Signature.Base != "k" || k.Params[0].CType != nil {
		t.Errorf("k: untyped %q, signature %+v", k.Untyped, k.Signature)
	}
	d := m.Kernel(deep)
	if !strings.Contains(d.Untyped, "nested more than 256 levels deep") || d.Signature != nil || d.Params[0].CType != nil {
		t.Errorf("deep: untyped %q", d.Untyped)
	}
	if p := d.Pretty(); len(p) > 300 || !strings.Contains(p, "(305 bytes)") {
		t.Errorf("deep: Pretty %q not abbreviated", p)
	}
	if ok := m.Kernel("_Z2okPf"); ok.Untyped != "" || ok.Params[0].CType == nil || ok.Params[0].CType.Spelling != "float*" {
		t.Errorf("ok: %+v", ok)
	}
	want := []string{
		"kernel _Z1kii (t.ptx:4): parameters typed by their binary widths: its mangled name has 2 parameters, the code 3",
	}
	if len(m.Warnings) != 2 || m.Warnings[1] != want[0] || !strings.Contains(m.Warnings[0], "(305 bytes) (t.ptx:8): parameters typed by their binary widths: its name does not demangle: nested more than 256 levels deep") {
		t.Errorf("warnings %q", m.Warnings)
	}
}

// A host ELF file without device code (libcudart, libnvrtc) is a module of
// no kernels with a note, not an error; it has no image to embed.
func TestHostELFWithoutDeviceCode(t *testing.T) {
	exe, err := os.Executable() // this test binary: an ELF file with no fatbin
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read("host", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != fatbin.FormatHostELF || len(m.Kernels) != 0 || len(m.Globals) != 0 || m.Image != nil ||
		!slices.Equal(m.Warnings, []string{NoDeviceCode}) {
		t.Errorf("module %+v", m)
	}
}
