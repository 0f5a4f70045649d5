package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

func readFile(t *testing.T, path string, opts Options) *Module {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(path, data, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// The binaries of k.cu and b.cu (every compress mode, cubins, host objects and
// a shared library) give the same kernels, parameter layouts and globals as
// the PTX of the same source.
func TestBinariesMatchPTXModel(t *testing.T) {
	want := map[string]*Module{
		"k": readFile(t, "ptx/testdata/k.ptx", Options{}),
		"b": readFile(t, "ptx/testdata/b.ptx", Options{}),
	}
	var files []string
	for _, pat := range []string{"fatbin/testdata/*.fatbin", "fatbin/testdata/*.o", "fatbin/testdata/*.so", "cubin/testdata/*.cubin"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d binaries found", len(files))
	}
	for _, f := range files {
		base := filepath.Base(f)
		src := base[:1]
		ref := want[src]
		m := readFile(t, f, Options{})
		if len(m.Kernels) != len(ref.Kernels) {
			t.Errorf("%s: %d kernels, PTX has %d", base, len(m.Kernels), len(ref.Kernels))
			continue
		}
		for i, k := range m.Kernels {
			rk := ref.Kernels[i]
			if k.Name != rk.Name {
				t.Errorf("%s: kernel %d is %s, PTX has %s", base, i, k.Name, rk.Name)
				continue
			}
			if len(k.Params) != len(rk.Params) {
				t.Errorf("%s: %s has %d params, PTX %d", base, k.Name, len(k.Params), len(rk.Params))
				continue
			}
			for j, p := range k.Params {
				if p.Offset != rk.Params[j].Offset || p.Size != rk.Params[j].Size {
					t.Errorf("%s: %s param %d at %d/%d, PTX %d/%d", base, k.Name, j, p.Offset, p.Size, rk.Params[j].Offset, rk.Params[j].Size)
				}
			}
			if (k.Signature == nil) != (rk.Signature == nil) {
				t.Errorf("%s: %s typed differently from PTX", base, k.Name)
			}
		}
		var names, refNames []string
		for _, g := range m.Globals {
			names = append(names, g.Name)
		}
		for _, g := range ref.Globals {
			refNames = append(refNames, g.Name)
		}
		if strings.Join(names, ",") != strings.Join(refNames, ",") && !strings.HasPrefix(base, "kr") && !strings.HasPrefix(base, "br") {
			// -rdc objects rename statics (__nv_static_...); the others must agree.
			t.Errorf("%s: globals %v, PTX %v", base, names, refNames)
		}
		warned := strings.Contains(strings.Join(m.Warnings, "\n"), "no PTX")
		if warned == m.HasPTX() {
			t.Errorf("%s: arches %v, warnings %v", base, m.Arches, m.Warnings)
		}
		if strings.HasSuffix(base, ".cubin") && m.HasPTX() {
			t.Errorf("%s: a cubin claims PTX", base)
		}
	}
}

func TestArchFilterAndEmbeddedImage(t *testing.T) {
	m := readFile(t, "fatbin/testdata/k.default.fatbin", Options{Arches: []string{"sm_90"}})
	if strings.Join(m.Arches, " ") != "sm_90" {
		t.Errorf("arches %v, want [sm_90]", m.Arches)
	}
	if len(m.Warnings) == 0 || !strings.Contains(m.Warnings[0], "no PTX") {
		t.Errorf("dropping the PTX entry gave no warning: %v", m.Warnings)
	}
	fb, err := fatbin.Parse(m.Image)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.Entries) != 1 || fb.Entries[0].Target() != "sm_90" {
		t.Errorf("embedded image has %d entries", len(fb.Entries))
	}
	if _, err := Read("k.default.fatbin", mustRead(t, "fatbin/testdata/k.default.fatbin"), Options{Arches: []string{"sm_75"}}); err == nil ||
		!strings.Contains(err.Error(), "keeps none of the entries (sm_90 sm_100 compute_100)") {
		t.Errorf("-arch sm_75: err = %v", err)
	}
	// Nothing dropped: the input itself is embedded.
	data := mustRead(t, "fatbin/testdata/k.default.fatbin")
	all := readFile(t, "fatbin/testdata/k.default.fatbin", Options{})
	if !bytes.Equal(all.Image, data) {
		t.Error("unfiltered fatbin not embedded verbatim")
	}
	// A shared library: the standalone fatbin holds no device-link stub.
	so := readFile(t, "fatbin/testdata/k.so", Options{})
	sfb, err := fatbin.Parse(so.Image)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range sfb.Entries {
		if seen[e.Target()] {
			t.Errorf("embedded fatbin of k.so repeats target %s", e.Target())
		}
		seen[e.Target()] = true
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A kernel whose parameters differ in size between PTX and cubins fits no
// launch function: it is dropped with a warning, and the others are kept.
func TestPTXCubinMismatchDropsTheKernel(t *testing.T) {
	data := bytes.Clone(mustRead(t, "fatbin/testdata/k.none.fatbin"))
	old := []byte(".param .f32 k1_param_1")
	if !bytes.Contains(data, old) {
		t.Fatal("k.none.fatbin has no uncompressed k1 PTX")
	}
	data = bytes.Replace(data, old, []byte(".param .f64 k1_param_1"), 1)
	m, err := Read("edited.fatbin", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Kernel("k1") != nil {
		t.Error("k1 kept")
	}
	if len(m.Kernels) != 4 {
		t.Errorf("%d kernels kept, want the other 4", len(m.Kernels))
	}
	want := "kernel k1 dropped: parameter 1 is 4 bytes in sm_90, 8 in compute_100"
	if !slices.Contains(m.Warnings, want) {
		t.Errorf("warnings %q, want %q", m.Warnings, want)
	}
}

func TestKernelsOnlyForSomeArches(t *testing.T) {
	k, err := fatbin.Parse(mustRead(t, "fatbin/testdata/k.default.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := fatbin.Parse(mustRead(t, "fatbin/testdata/b.100f.fatbin"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []*fatbin.Entry
	for _, e := range k.Entries {
		if e.Target() == "sm_90" {
			entries = append(entries, e)
		}
	}
	for _, e := range b.Entries {
		if e.Target() == "sm_100f" {
			entries = append(entries, e)
		}
	}
	m, err := Read("mixed.fatbin", fatbin.Build(entries), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := m.Kernel("k1"); k == nil || strings.Join(k.Arches, ",") != "sm_90" {
		t.Errorf("k1 arches = %v, want [sm_90]", k)
	}
	if k := m.Kernel("_Z4kbig3BigPi"); k == nil || strings.Join(k.Arches, ",") != "sm_100f" {
		t.Errorf("kbig arches = %v, want [sm_100f]", k)
	}
}

// Read dispatches on fatbin.Sniff, the one sniffer, and records its verdict.
func TestReadFormat(t *testing.T) {
	for path, want := range map[string]fatbin.Format{
		"ptx/testdata/k.ptx":               fatbin.FormatPTX,
		"fatbin/testdata/k.default.fatbin": fatbin.FormatFatbin,
		"cubin/testdata/k90.cubin":         fatbin.FormatCubin,
		"fatbin/testdata/k.o":              fatbin.FormatHostELF,
	} {
		if got := readFile(t, path, Options{NoImage: true}).Format; got != want {
			t.Errorf("Read(%s).Format = %v, want %v", path, got, want)
		}
	}
	// A fragment without a header is PTX to the model as to rt/soft.
	m, err := Read("frag.ptx", []byte(".visible .entry k()\n{\n\tret;\n}\n"), Options{})
	if err != nil || m.Format != fatbin.FormatPTX || m.Kernel("k") == nil {
		t.Errorf("header-less PTX: %v, %v", m, err)
	}
	if _, err := Read("junk.bin", []byte("hello"), Options{}); err == nil || !strings.Contains(err.Error(), "junk.bin: unrecognized input") {
		t.Errorf("junk: %v", err)
	}
}
