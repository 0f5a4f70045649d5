package cubin_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/cubin"
)

func TestSynthetic(t *testing.T) {
	data := buildCubin([]synthKernel{
		{name: "a", params: [][2]uint16{{0, 8}, {8, 4}, {16, 24}}, code: 256, regCount: 32,
			records: slices.Concat(
				sval(0x10, 64, 2, 1),        // REQNTID
				sval(0x3f, 8),               // MAX_CLUSTER_RANK
				rec(4, 0xee, 4, 1, 2, 3, 4), // unknown SVAL id
				rec(2, 0xef, 5),             // unknown BVAL id
				rec(1, 0x3e, 0),             // EXPLICIT_CLUSTER
				sval(0x3d, 4, 2, 1),         // CTA_PER_CLUSTER
			),
			externs: []string{"ext_a", "ext_b"}},
		{name: "b", params: [][2]uint16{{0, 5000}, {5000, 8}}, v2: true, code: 128, regCount: 8},
		{name: "c", code: 128, regCount: 4},
	})
	f, err := cubin.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.SM != 90 || f.ToolkitVersion != 130 || f.Type != elf.ET_EXEC || len(f.Kernels) != 3 {
		t.Fatalf("header: %+v", f)
	}
	a := f.Kernel("a")
	want := []cubin.Param{
		{Ordinal: 0, Offset: 0, Size: 8, CBank: 0x1f},
		{Ordinal: 1, Offset: 8, Size: 4, CBank: 0x1f},
		{Ordinal: 2, Offset: 16, Size: 24, CBank: 0x1f},
	}
	if !slices.Equal(a.Params, want) || a.ParamSize != 40 || a.ParamBase != 0x210 || a.CodeSize != 256 {
		t.Errorf("a: params %+v size %d base %#x", a.Params, a.ParamSize, a.ParamBase)
	}
	if a.ReqNTID != (cubin.Dim3{64, 2, 1}) || a.MaxClusterRank != 8 || a.ClusterDim != (cubin.Dim3{4, 2, 1}) ||
		!a.ExplicitCluster || a.RegCount != 32 || a.SharedSize != 0x400 || !slices.Equal(a.Externs, []string{"ext_a", "ext_b"}) {
		t.Errorf("a: %+v", a)
	}
	var unknown []cubin.Attr
	for _, at := range a.Attrs {
		if at.ID == 0xee || at.ID == 0xef {
			unknown = append(unknown, at)
		}
	}
	if len(unknown) != 2 || !bytes.Equal(unknown[0].Data, []byte{1, 2, 3, 4}) || unknown[1].Value != 5 ||
		unknown[0].ID.String() != "EIATTR(0xee)" || !bytes.Equal(data[unknown[0].Off:unknown[0].Off+8], []byte{4, 0xee, 4, 0, 1, 2, 3, 4}) {
		t.Errorf("unknown records not kept raw with their offsets: %+v", unknown)
	}
	b := f.Kernel("b")
	if len(b.Params) != 2 || !b.Params[0].V2 || b.Params[0].Size != 5000 || b.Params[1].Offset != 5000 || b.ParamSize != 5008 {
		t.Errorf("b: %+v", b.Params)
	}
	if c := f.Kernel("c"); len(c.Params) != 0 || c.ParamSize != 0 || c.RegCount != 4 {
		t.Errorf("c: %+v", c)
	}
	gv, gz := f.Global("gv"), f.Global("gz")
	if gv == nil || !bytes.Equal(gv.Init, []byte{7, 0, 0, 0}) || gz == nil || gz.Init != nil || len(f.Globals) != 2 {
		t.Errorf("globals: %+v", f.Globals)
	}

	big, err := cubin.Parse(largeCubin(300))
	if err != nil {
		t.Fatal(err)
	}
	if len(big.Kernels) != 300 || big.Kernels[299].RegCount != 16+299%64 || len(big.Kernels[7].Params) != 8 || !big.Kernels[7].Params[0].V2 {
		t.Errorf("large cubin: %d kernels", len(big.Kernels))
	}
}

// sectionHeader returns the file offset of the header of the named section
// and the section itself.
func sectionHeader(t *testing.T, data []byte, name string) (int, *elf.Section) {
	t.Helper()
	ef, err := cubin.OpenELF(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	shoff := int(le.Uint64(data[0x28:]))
	for i, s := range ef.Sections {
		if s.Name == name {
			return shoff + 64*i, s
		}
	}
	t.Fatalf("no section %s", name)
	return 0, nil
}

func wantError(t *testing.T, what string, data []byte, off int64, msg string) {
	t.Helper()
	_, err := cubin.Parse(data)
	var fe *cubin.FormatError
	if !errors.As(err, &fe) {
		t.Errorf("%s: got %v, want a FormatError", what, err)
		return
	}
	if off >= 0 && fe.Off != off {
		t.Errorf("%s: error at %#x, want %#x: %v", what, fe.Off, off, err)
	}
	if !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "offset 0x") {
		t.Errorf("%s: error %q lacks %q or the offset", what, err, msg)
	}
}

func TestBadInput(t *testing.T) {
	orig := read(t, "k90.cubin")
	patch := func(f func(b []byte)) []byte {
		b := slices.Clone(orig)
		f(b)
		return b
	}
	hdrOff, info := sectionHeader(t, orig, ".nv.info.k1")

	wantError(t, "empty", nil, 0, "not an ELF")
	wantError(t, "bad magic", patch(func(b []byte) { b[1] = 'X' }), 0, "not an ELF")
	wantError(t, "host ELF", patch(func(b []byte) { b[0x12] = 62 }), 0x12, "not EM_CUDA")
	wantError(t, "big-endian", patch(func(b []byte) { b[5] = 2 }), 5, "little-endian")
	wantError(t, "section offset out of range", patch(func(b []byte) {
		le.PutUint64(b[hdrOff+24:], 0xffff_ffff_0000)
	}), int64(hdrOff), "runs past end of file")
	wantError(t, "section size out of range", patch(func(b []byte) {
		le.PutUint64(b[hdrOff+32:], uint64(len(orig)))
	}), int64(hdrOff), "runs past end of file")
	wantError(t, "section header table past EOF", patch(func(b []byte) {
		le.PutUint64(b[0x28:], uint64(len(orig)-64))
	}), 0, "invalid ELF")
	// The first record of .nv.info.k1 is CUDA_API_VERSION, SVAL of 4 bytes.
	recOff := int(info.Offset)
	wantError(t, ".nv.info record past section", patch(func(b []byte) {
		le.PutUint16(b[recOff+2:], 0xfff0)
	}), int64(recOff), "runs past end of section")
	wantError(t, ".nv.info unknown format", patch(func(b []byte) { b[recOff] = 9 }), int64(recOff), "unknown format")
	wantError(t, ".nv.info truncated record", patch(func(b []byte) {
		le.PutUint64(b[hdrOff+32:], info.Size+2)
	}), int64(recOff)+int64(info.Size), "truncated record")
	// Relabel that 4-byte record KPARAM_INFO, which needs 12 bytes.
	wantError(t, "KPARAM_INFO of wrong size", patch(func(b []byte) {
		b[recOff+1] = 0x17
	}), int64(recOff), "multiple of 12")
	wantError(t, "MAX_THREADS of wrong size", patch(func(b []byte) {
		b[recOff+1] = 0x05
	}), int64(recOff), "multiple of 12")
	_, g2 := sectionHeader(t, orig, ".nv.global.init")
	wantError(t, "variable past its section", patch(func(b []byte) {
		_, symtab := sectionHeader(t, orig, ".symtab")
		le.PutUint64(b[int(symtab.Offset)+0xa*24+16:], g2.Size+1) // g2 is symbol 0xa
	}), -1, "outside section")
	_, note := sectionHeader(t, orig, ".note.nv.cuinfo")
	wantError(t, "note past section", patch(func(b []byte) {
		le.PutUint32(b[int(note.Offset)+4:], 0x1000)
	}), int64(note.Offset), "runs past end of section")

	cHdr, _ := sectionHeader(t, orig, ".nv.compat")
	wantError(t, "SHT_NULL section out of range", patch(func(b []byte) {
		le.PutUint32(b[cHdr+4:], 0)
		le.PutUint64(b[cHdr+24:], 1<<40)
	}), int64(cHdr), "runs past end of file")

	// Unknown attribute ids are no error.
	f, err := cubin.Parse(patch(func(b []byte) { b[recOff+1] = 0xee }))
	if err != nil || f.Kernel("k1").CUDAAPIVersion != 0 || f.Kernel("k1").Attrs[0].ID != 0xee {
		t.Errorf("unknown id: %v", err)
	}
	// nvJitLink writes a toolkit number as e_version; debug/elf alone
	// rejects such files.
	for _, v := range []uint32{0x80, 129, 0x73} {
		b := patch(func(b []byte) { le.PutUint32(b[0x14:], v) })
		if _, err := elf.NewFile(bytes.NewReader(b)); err == nil {
			t.Errorf("debug/elf accepts e_version %#x; the quirk test is moot", v)
		}
		f, err := cubin.Parse(b)
		if err != nil || f.Version != v || len(f.Kernels) != 5 {
			t.Errorf("e_version %#x: %v", v, err)
		}
	}
}

// TestFlagsLayouts decodes e_flags in the ABI v7 layout (SM in bits 0..7,
// as CUDA 12 wrote for sm_90: 0x0055055a) and v8 (bits 8..15), and takes
// SM from e_flags when .note.nv.cuinfo is missing.
func TestFlagsLayouts(t *testing.T) {
	orig := read(t, "k90.cubin")
	_, note := sectionHeader(t, orig, ".note.nv.cuinfo")
	for _, c := range []struct {
		abi     byte
		flags   uint32
		sm      int
		noNote  bool
		virtual int
	}{
		{8, 0x06005a04, 90, false, 90},
		{8, 0x06006402, 100, true, 0},
		{7, 0x0055055a, 90, true, 0},
		{7, 0x00500550, 80, true, 0},
		{7, 0x00500550, 90, false, 90}, // the note wins
	} {
		b := slices.Clone(orig)
		b[elf.EI_ABIVERSION] = c.abi
		le.PutUint32(b[0x30:], c.flags)
		if c.noNote {
			le.PutUint32(b[int(note.Offset)+8:], 999) // not a cuinfo note any more
		}
		f, err := cubin.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		flagsSM := int(c.flags >> 8 & 0xff)
		if c.abi == 7 {
			flagsSM = int(c.flags & 0xff)
		}
		if f.SM != c.sm || f.FlagsSM != flagsSM || f.VirtualSM != c.virtual || f.ABIVersion != c.abi {
			t.Errorf("ABI %d flags %#x note %v: SM %d FlagsSM %d VirtualSM %d", c.abi, c.flags, !c.noNote, f.SM, f.FlagsSM, f.VirtualSM)
		}
	}
}

// TestTruncated cuts every corpus cubin at many points: each cut must give
// a FormatError naming an offset, never a panic or a half model.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"k90.cubin", "b.cubin", "kr.cubin", "k100.cubin"} {
		data := read(t, name)
		for n := 0; n < len(data); n += 1 + n/64 {
			_, err := cubin.Parse(slices.Clone(data[:n]))
			var fe *cubin.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "offset 0x") {
				t.Fatalf("%s cut at %d: %v", name, n, err)
			}
		}
	}
}

// TestBoundedMemory: a cubin claiming huge sections and symbol tables
// must not make Parse allocate for them.
func TestBoundedMemory(t *testing.T) {
	orig := read(t, "k90.cubin")
	b := slices.Clone(orig)
	hdr, _ := sectionHeader(t, orig, ".symtab")
	le.PutUint64(b[hdr+32:], 1<<40) // symtab size 1 TiB
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := cubin.Parse(b)
	runtime.ReadMemStats(&m1)
	if err == nil {
		t.Fatal("huge symtab accepted")
	}
	if d := m1.TotalAlloc - m0.TotalAlloc; d > 16<<20 {
		t.Errorf("Parse allocated %d bytes for a %d-byte file", d, len(b))
	}
}
