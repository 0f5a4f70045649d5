package cubin_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/cubin"
	"github.com/cugen/cugen/parse/fatbin"
)

// testdata holds nvcc 13.0.88 output for k.cu and b.cu (both in testdata):
// k90/k100/k120.cubin (-cubin -arch sm_XX), kr.cubin and br.cubin (-rdc,
// sm_90), b.cubin (sm_90), and cuobjdump -elf listings of k90 and b.

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t testing.TB, name string) *cubin.File {
	t.Helper()
	f, err := cubin.Parse(read(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// TestAgainstDump checks the whole model of k90.cubin and b.cubin against
// cuobjdump -elf: header, every kernel's attributes, parameters and
// resources, every variable and its initial bytes.
func TestAgainstDump(t *testing.T) {
	for _, name := range []string{"k90", "b"} {
		t.Run(name, func(t *testing.T) {
			f := parse(t, name+".cubin")
			d := parseDump(t, read(t, name+".elf.txt"))
			checkAgainstDump(t, f, d)
		})
	}
}

func checkAgainstDump(t *testing.T, f *cubin.File, d *dump) {
	if got := f.Type.String(); got != d.header["type"] {
		t.Errorf("type %s, dump %s", got, d.header["type"])
	}
	if got := fmt.Sprint(f.ABIVersion); got != d.header["ABI"] {
		t.Errorf("ABI %s, dump %s", got, d.header["ABI"])
	}
	if got := fmt.Sprint(f.SM); got != d.header["sm"] || f.FlagsSM != f.SM {
		t.Errorf("sm %s (flags %d), dump %s", got, f.FlagsSM, d.header["sm"])
	}
	if maj, min := f.Toolkit(); fmt.Sprintf("%d.%d", maj, min) != d.header["toolkit"] {
		t.Errorf("toolkit %d.%d, dump %s", maj, min, d.header["toolkit"])
	}
	if got := fmt.Sprintf("%#x", f.Flags); got != d.header["flags"] {
		t.Errorf("flags %s, dump %s", got, d.header["flags"])
	}
	checkAttrNames(t, ".nv.info", f.Info, d.infos[".nv.info"])
	// .nv.compat uses EICOMPAT ids, which the package does not name; the
	// formats and the accelerator-target flag must agree.
	if want := d.infos[".nv.compat"]; len(f.Compat) != len(want) || len(want) == 0 {
		t.Errorf(".nv.compat: %d records, dump %d", len(f.Compat), len(want))
	} else {
		for i, a := range want {
			if f.Compat[i].Format.String() != a.format {
				t.Errorf(".nv.compat record %d: %v, dump %s", i, f.Compat[i].Format, a.format)
			}
			if a.name == "EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET" && f.ArchSpecific != (a.value != "0x0") {
				t.Errorf("ArchSpecific %v, dump accelerator target %s", f.ArchSpecific, a.value)
			}
		}
	}

	// Kernels: FUNC symbols with the entry bit.
	var want []dumpSym
	for _, s := range d.syms {
		if s.info&0xf == uint64(elf.STT_FUNC) && s.other&0x10 != 0 {
			want = append(want, s)
		}
	}
	if len(f.Kernels) != len(want) || len(want) == 0 {
		t.Fatalf("%d kernels, dump has %d", len(f.Kernels), len(want))
	}
	for i, s := range want {
		k := f.Kernels[i]
		if k.Name != s.name || k.Symbol != s.index {
			t.Errorf("kernel %d: %s (sym %d), dump %s (sym %d)", i, k.Name, k.Symbol, s.name, s.index)
			continue
		}
		text := d.sections[int(s.shndx)]
		if k.Section != text.name || k.CodeSize != s.size || k.CodeSize != text.size {
			t.Errorf("%s: section %s size %#x, dump %s sym size %#x section size %#x", k.Name, k.Section, k.CodeSize, text.name, s.size, text.size)
		}
		if k.Binding != elf.SymBind(s.info>>4) {
			t.Errorf("%s: binding %v, dump info %#x", k.Name, k.Binding, s.info)
		}
		checkKernel(t, k, d)
	}

	// Variables: OBJECT / CUDA_OBJECT symbols in variable sections.
	var wantVars []dumpSym
	for _, s := range d.syms {
		typ := s.info & 0xf
		sec := d.sections[int(s.shndx)].name
		if (typ == 1 || typ == 13) && s.shndx != 0 && !strings.HasPrefix(s.name, ".nv.") &&
			(strings.HasPrefix(sec, ".nv.global") || strings.HasPrefix(sec, ".nv.constant") && sec[len(".nv.constant")] != '0') {
			wantVars = append(wantVars, s)
		}
	}
	if len(f.Globals) != len(wantVars) || len(wantVars) == 0 {
		t.Fatalf("%d globals, dump has %d", len(f.Globals), len(wantVars))
	}
	for i, s := range wantVars {
		g := f.Globals[i]
		sec := d.sections[int(s.shndx)].name
		if g.Name != s.name || g.Section != sec || g.Offset != s.value || g.Size != s.size ||
			g.Managed != (s.other&4 != 0) || g.Binding != elf.SymBind(s.info>>4) || uint64(g.Other) != s.other {
			t.Errorf("global %d: %+v, dump %+v in %s", i, g, s, sec)
		}
		wantSpace := cubin.SpaceGlobal
		if strings.HasPrefix(sec, ".nv.constant") {
			wantSpace = cubin.SpaceConst
		}
		if g.Space != wantSpace {
			t.Errorf("%s: space %v, want %v", g.Name, g.Space, wantSpace)
		}
		if sec == ".nv.global" {
			if g.Init != nil {
				t.Errorf("%s: initializer %x in NOBITS .nv.global", g.Name, g.Init)
			}
			continue
		}
		data, ok := d.data[sec]
		if !ok {
			t.Fatalf("dump has no data for %s", sec)
		}
		if !bytes.Equal(g.Init, data[s.value:s.value+s.size]) {
			t.Errorf("%s: initializer %x, dump %x", g.Name, g.Init, data[s.value:s.value+s.size])
		}
	}
}

func checkAttrNames(t *testing.T, where string, got []cubin.Attr, want []dumpAttr) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("%s: %d records, dump has %d", where, len(got), len(want))
		return
	}
	for i := range got {
		if got[i].ID.String() != want[i].name || got[i].Format.String() != want[i].format {
			t.Errorf("%s record %d: %v %v, dump %s %s", where, i, got[i].ID, got[i].Format, want[i].name, want[i].format)
		}
	}
}

// checkKernel compares one kernel with its .nv.info.<name> records in the
// dump, decoding the dump's text independently of the package.
func checkKernel(t *testing.T, k *cubin.Kernel, d *dump) {
	t.Helper()
	attrs, ok := d.infos[".nv.info."+k.Name]
	if !ok {
		t.Errorf("%s: no .nv.info section in the dump", k.Name)
		return
	}
	checkAttrNames(t, ".nv.info."+k.Name, k.Attrs, attrs)
	var params []cubin.Param
	var w struct {
		size, base          uint64
		maxThreads, cluster []uint64
		explicit            bool
		maxReg, api         uint64
		hasSize, hasCBank   bool
	}
	for _, a := range attrs {
		switch a.name {
		case "EIATTR_KPARAM_INFO", "EIATTR_KPARAM_INFO_V2":
			p := cubin.Param{
				Index:    uint32(field(t, a.value, "Index")),
				Ordinal:  int(field(t, a.value, "Ordinal")),
				Offset:   uint32(field(t, a.value, "Offset")),
				Size:     uint32(field(t, a.value, "Size")),
				LogAlign: uint8(field(t, a.value, "Pointee's logAlignment")),
				Space:    uint8(field(t, a.value, "Space")),
				V2:       a.name == "EIATTR_KPARAM_INFO_V2",
			}
			if !p.V2 {
				p.CBank = uint8(field(t, a.value, "cbank"))
				p.SMEM = !strings.Contains(a.value, "Parameter Space : CBANK")
			}
			params = append(params, p)
		case "EIATTR_CBANK_PARAM_SIZE":
			w.size, w.hasSize = words(t, a.value)[0], true
		case "EIATTR_PARAM_CBANK":
			v := words(t, a.value)
			// "0x1f 0x300210": the bank's SECTION symbol, then size<<16|base.
			if sym := d.syms[v[0]]; sym.name != ".nv.constant0."+k.Name {
				t.Errorf("%s: PARAM_CBANK symbol %d is %s", k.Name, v[0], sym.name)
			}
			w.base, w.hasCBank = v[1]&0xffff, true
			if v[1]>>16 != w.size {
				t.Errorf("%s: PARAM_CBANK size %#x, CBANK_PARAM_SIZE %#x", k.Name, v[1]>>16, w.size)
			}
		case "EIATTR_MAX_THREADS":
			w.maxThreads = words(t, a.value)
		case "EIATTR_CTA_PER_CLUSTER":
			w.cluster = words(t, a.value)
		case "EIATTR_EXPLICIT_CLUSTER":
			w.explicit = true
		case "EIATTR_MAXREG_COUNT":
			w.maxReg = words(t, a.value)[0]
		case "EIATTR_CUDA_API_VERSION":
			w.api = words(t, a.value)[0]
		}
	}
	slices.SortFunc(params, func(a, b cubin.Param) int { return a.Ordinal - b.Ordinal })
	if !reflect.DeepEqual(k.Params, params) {
		t.Errorf("%s: params\n got %+v\nwant %+v", k.Name, k.Params, params)
	}
	for i, p := range k.Params {
		if p.Ordinal != i {
			t.Errorf("%s: param %d has ordinal %d", k.Name, i, p.Ordinal)
		}
	}
	if !w.hasSize || !w.hasCBank || uint64(k.ParamSize) != w.size || uint64(k.ParamBase) != w.base {
		t.Errorf("%s: param block %#x at %#x, dump %#x at %#x", k.Name, k.ParamSize, k.ParamBase, w.size, w.base)
	}
	// The parameter bank is the base plus the block.
	if bank := d.byName[".nv.constant0."+k.Name]; bank.size != w.base+w.size {
		t.Errorf("%s: .nv.constant0 is %#x bytes, base+size %#x", k.Name, bank.size, w.base+w.size)
	}
	if last := params[len(params)-1]; uint64(last.Offset+last.Size) > w.size {
		t.Errorf("%s: last parameter ends at %#x, past the %#x-byte block", k.Name, last.Offset+last.Size, w.size)
	}
	dim := func(v []uint64) cubin.Dim3 {
		if v == nil {
			return cubin.Dim3{}
		}
		return cubin.Dim3{X: uint32(v[0]), Y: uint32(v[1]), Z: uint32(v[2])}
	}
	if k.MaxThreads != dim(w.maxThreads) || k.ClusterDim != dim(w.cluster) || k.ExplicitCluster != w.explicit ||
		uint64(k.MaxRegCount) != w.maxReg || uint64(k.CUDAAPIVersion) != w.api || !k.ReqNTID.IsZero() {
		t.Errorf("%s: maxntid %v cluster %v explicit %v maxreg %#x api %#x reqntid %v; dump %v %v %v %#x %#x",
			k.Name, k.MaxThreads, k.ClusterDim, k.ExplicitCluster, k.MaxRegCount, k.CUDAAPIVersion, k.ReqNTID,
			w.maxThreads, w.cluster, w.explicit, w.maxReg, w.api)
	}
	if k.RegCount != uint32(d.regs["EIATTR_REGCOUNT"][k.Name]) || k.RegCount == 0 ||
		k.FrameSize != uint32(d.regs["EIATTR_FRAME_SIZE"][k.Name]) ||
		k.MinStackSize != uint32(d.regs["EIATTR_MIN_STACK_SIZE"][k.Name]) {
		t.Errorf("%s: regs %d frame %d minstack %d; dump %d %d %d", k.Name, k.RegCount, k.FrameSize, k.MinStackSize,
			d.regs["EIATTR_REGCOUNT"][k.Name], d.regs["EIATTR_FRAME_SIZE"][k.Name], d.regs["EIATTR_MIN_STACK_SIZE"][k.Name])
	}
	if smem, ok := d.smem[k.Section]; !ok || k.SharedSize != uint64(smem) {
		t.Errorf("%s: shared %d, dump smem=%d", k.Name, k.SharedSize, smem)
	}
}

// TestSourceFacts checks what k.cu and b.cu say, independently of any dump.
func TestSourceFacts(t *testing.T) {
	k := parse(t, "k90.cubin")
	k1 := k.Kernel("k1")
	if k1 == nil || k1.MaxThreads != (cubin.Dim3{256, 1, 1}) || k1.MaxRegCount != 0x80 || len(k1.Params) != 4 || k1.ParamSize != 0x30 {
		t.Errorf("k1 (__launch_bounds__(256,2), 4 params): %+v", k1)
	}
	// S{int;double;char[3]} is 24 bytes at offset 16; q at 40.
	if p := k1.Params; p[2].Offset != 16 || p[2].Size != 24 || p[3].Offset != 40 {
		t.Errorf("k1 params: %+v", p)
	}
	if k4 := k.Kernel("_Z2k41AcPi"); k4 == nil || k4.ClusterDim != (cubin.Dim3{2, 1, 1}) || !k4.ExplicitCluster {
		t.Errorf("k4 (__cluster_dims__(2,1,1)): %+v", k4)
	}
	if k5 := k.Kernel("_Z2k51SPi"); k5 == nil || k5.MaxRegCount != 40 {
		t.Errorf("k5 (__maxnreg__(40)): %+v", k5)
	}
	if m1 := k.Global("m1"); m1 == nil || !m1.Managed || m1.Size != 4 || m1.Init != nil {
		t.Errorf("m1 (__managed__ int): %+v", m1)
	}
	if c1 := k.Global("c1"); c1 == nil || c1.Space != cubin.SpaceConst || !bytes.Equal(c1.Init, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}) {
		t.Errorf("c1 (__constant__ int[4]={1,2,3,4}): %+v", c1)
	}
	if g2 := k.Global("g2"); g2 == nil || g2.Size != 64 || !bytes.Equal(g2.Init[:8], []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}) {
		t.Errorf("g2 (float[16]={1,2}): %+v", g2)
	}
	b := parse(t, "b.cubin")
	for _, name := range []string{"_Z4kbig3BigPi", "_Z6ksmall6float4Pd3Big"} {
		kb := b.Kernel(name)
		if kb == nil || !kb.Params[0].V2 {
			t.Fatalf("%s: want KPARAM_INFO_V2 params (block > 4 KiB): %+v", name, kb)
		}
	}
	if kb := b.Kernel("_Z4kbig3BigPi"); kb.ParamSize != 5000+8 || kb.Params[0].Size != 5000 {
		t.Errorf("kbig(Big, int*): %+v", kb)
	}
	if ks := b.Kernel("_Z6ksmall6float4Pd3Big"); ks.MaxThreads != (cubin.Dim3{128, 1, 1}) || ks.Params[2].Size != 5000 {
		t.Errorf("ksmall: %+v", ks)
	}
	if ext := b.Global("ext"); ext == nil || !bytes.Equal(ext.Init, []byte{3, 0, 0, 0}) {
		t.Errorf("ext (= 3): %+v", ext)
	}
}

// signature is the part of the model that must not depend on the target
// architecture, the compression of the carrying fatbin, or -rdc.
type signature struct {
	Kernels map[string]kernelSig
	Globals map[string]string
}

type kernelSig struct {
	Params    [][3]int // ordinal, offset, size
	ParamSize uint32
	Bounds    [3]cubin.Dim3
	MaxReg    uint32
}

func sig(f *cubin.File) signature {
	s := signature{Kernels: map[string]kernelSig{}, Globals: map[string]string{}}
	for _, k := range f.Kernels {
		ks := kernelSig{ParamSize: k.ParamSize, Bounds: [3]cubin.Dim3{k.MaxThreads, k.ReqNTID, k.ClusterDim}, MaxReg: k.MaxRegCount}
		for _, p := range k.Params {
			ks.Params = append(ks.Params, [3]int{p.Ordinal, int(p.Offset), int(p.Size)})
		}
		s.Kernels[k.Name] = ks
	}
	for _, g := range f.Globals {
		name := g.Name
		// -rdc renames file-static variables __nv_static_<n>__<hash>_<name>.
		if strings.HasPrefix(name, "__nv_static_") {
			name = name[strings.LastIndexByte(name, '_')+1:]
		}
		s.Globals[name] = fmt.Sprintf("%v size=%d managed=%v init=%x", g.Space, g.Size, g.Managed, g.Init)
	}
	return s
}

func TestAcrossTargets(t *testing.T) {
	cases := []struct {
		file, ref string
		typ       elf.Type
		sm        int
	}{
		{"k100.cubin", "k90.cubin", elf.ET_EXEC, 100},
		{"k120.cubin", "k90.cubin", elf.ET_EXEC, 120},
		{"kr.cubin", "k90.cubin", elf.ET_REL, 90},
		{"br.cubin", "b.cubin", elf.ET_REL, 90},
	}
	for _, c := range cases {
		f := parse(t, c.file)
		if f.Type != c.typ || f.SM != c.sm || f.FlagsSM != c.sm || f.VirtualSM != c.sm || f.ToolkitVersion != 130 || f.ArchSpecific {
			t.Errorf("%s: type %v sm %d/%d/%d toolkit %d archSpecific %v", c.file, f.Type, f.SM, f.FlagsSM, f.VirtualSM, f.ToolkitVersion, f.ArchSpecific)
		}
		got, want := sig(f), sig(parse(t, c.ref))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s differs from %s:\n got %+v\nwant %+v", c.file, c.ref, got, want)
		}
	}
	// -rdc: variables become STT_CUDA_OBJECT globals, the template kernel
	// weak, and the extern device variable of b.cu is referenced.
	kr := parse(t, "kr.cubin")
	if g := kr.Global("g1"); g == nil || g.Type != cubin.STTCUDAObject || g.Binding != elf.STB_GLOBAL {
		t.Errorf("kr g1: %+v", g)
	}
	if k := kr.Kernel("_Z2k2IfLi4EEvPT_"); k == nil || k.Binding != elf.STB_WEAK {
		t.Errorf("kr k2<float,4>: %+v", k)
	}
}

// fatbinImages returns the decompressed cubins of a fatbin in testdata of
// package fatbin, keyed by target.
func fatbinImages(t *testing.T, name string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fatbin", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var entries []*fatbin.Entry
	if fatbin.Sniff(data) == fatbin.FormatHostELF {
		secs, err := fatbin.FromELF(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secs {
			entries = append(entries, s.Entries()...)
		}
	} else {
		fb, err := fatbin.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		entries = fb.Entries
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Kind != fatbin.KindELF {
			continue
		}
		d, err := e.Data()
		if err != nil {
			t.Fatalf("%s %s: %v", name, e.Target(), err)
		}
		out[e.Target()] = d
	}
	return out
}

// TestFatbinCubins: the cubins inside fatbins of every compression mode
// give the same model as the standalone cubins.
func TestFatbinCubins(t *testing.T) {
	cases := []struct {
		fatbin string
		want   map[string]string // target -> standalone cubin with the same model
		exact  bool              // whole model equal, not only the signature
	}{
		{"k.none.fatbin", map[string]string{"sm_90": "k90.cubin", "sm_100": "k100.cubin"}, true},
		{"k.default.fatbin", map[string]string{"sm_90": "k90.cubin", "sm_100": "k100.cubin"}, true},
		{"k.speed.fatbin", map[string]string{"sm_90": "k90.cubin", "sm_100": "k100.cubin"}, true},
		{"k.size.fatbin", map[string]string{"sm_90": "k90.cubin", "sm_100": "k100.cubin"}, true},
		{"k.ca.fatbin", map[string]string{"sm_90": "k90.cubin", "sm_100": "k100.cubin"}, true},
		{"k.o", map[string]string{"sm_90": "k90.cubin", "sm_100": "k100.cubin"}, true},
		{"kr.o", map[string]string{"sm_90": "kr.cubin", "sm_100": "k100.cubin"}, false},
		{"b.speedall.fatbin", map[string]string{"sm_90": "b.cubin"}, true},
		{"b.g.fatbin", map[string]string{"sm_90": "b.cubin"}, false},
		{"b.90a.fatbin", map[string]string{"sm_90a": "b.cubin"}, false},
		{"b.100f.fatbin", map[string]string{"sm_100f": "b.cubin"}, false},
	}
	for _, c := range cases {
		imgs := fatbinImages(t, c.fatbin)
		if len(imgs) != len(c.want) {
			t.Errorf("%s: %d cubins, want %d", c.fatbin, len(imgs), len(c.want))
		}
		for target, ref := range c.want {
			img, ok := imgs[target]
			if !ok {
				t.Errorf("%s: no %s cubin", c.fatbin, target)
				continue
			}
			got, err := cubin.Parse(img)
			if err != nil {
				t.Errorf("%s %s: %v", c.fatbin, target, err)
				continue
			}
			want := parse(t, ref)
			if c.exact {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s: model differs from %s", c.fatbin, target, ref)
				}
			} else if gs, ws := sig(got), sig(want); !reflect.DeepEqual(gs, ws) {
				t.Errorf("%s %s: differs from %s:\n got %+v\nwant %+v", c.fatbin, target, ref, gs, ws)
			}
			if got.ArchSpecific != strings.HasSuffix(target, "a") {
				t.Errorf("%s %s: ArchSpecific %v", c.fatbin, target, got.ArchSpecific)
			}
			if wantSM := strings.TrimRight(strings.TrimPrefix(target, "sm_"), "af"); fmt.Sprint(got.SM) != wantSM {
				t.Errorf("%s %s: SM %d", c.fatbin, target, got.SM)
			}
		}
	}
}

func TestSniffCubins(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.cubin")
	if len(names) != 6 {
		t.Fatalf("%d cubins in testdata", len(names))
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := fatbin.Sniff(b); got != fatbin.FormatCubin {
			t.Errorf("%s sniffed as %v", n, got)
		}
	}
}
