package fatbin_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

// The testdata files are nvcc 13.0.88 outputs of k.cu and b.cu (kept in
// ../cubin/testdata): k.<mode>.fatbin were built with
// -gencode for sm_90, sm_100 and compute_100 under each --compress-mode
// (nc = -Xfatbin -compress=false, ca = -Xfatbin -compress-all); the b.*
// fatbins with -arch sm_90a / sm_100f, -G, and -compress-all speed;
// blto with -dlto; k.o, kr.o (-rdc), kr_dl.o (-dlink), blto.o and k.so
// are host objects.

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseFile(t testing.TB, name string) *fatbin.Fatbin {
	t.Helper()
	fb, err := fatbin.Parse(readFile(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fb
}

func standaloneFatbins(t testing.TB) []string {
	t.Helper()
	names, err := filepath.Glob("testdata/*.fatbin")
	if err != nil || len(names) == 0 {
		t.Fatalf("no fatbins in testdata: %v", err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

var hostObjects = []string{"k.o", "kr.o", "kr_dl.o", "blto.o", "k.so"}

// listing is one fatbin's entry list as printed by cuobjdump -lelf -lptx.
type listing struct {
	kind fatbin.Kind
	arch uint32
}

// parseLists reads cuobjdump-lists.txt: a "== file" line, then lines like
// "ELF file    1: k.balance.1.sm_90.cubin" / "PTX file    1: k.x.1.sm_100.ptx".
// Everything else in the file (the nvcc version, a directory listing) is
// ignored.
func parseLists(t *testing.T) map[string][]listing {
	t.Helper()
	re := regexp.MustCompile(`^(ELF|PTX) file\s+(\d+): \S+\.sm_(\d+)[af]?\.(cubin|ptx)$`)
	out := map[string][]listing{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, "cuobjdump-lists.txt")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "== "); ok {
			cur = name
			out[cur] = nil
			continue
		}
		m := re.FindStringSubmatch(line)
		if m == nil || cur == "" {
			continue
		}
		arch, _ := strconv.Atoi(m[3])
		k := fatbin.KindELF
		if m[1] == "PTX" {
			k = fatbin.KindPTX
		}
		out[cur] = append(out[cur], listing{k, uint32(arch)})
	}
	if len(out) == 0 {
		t.Fatal("cuobjdump-lists.txt: no listings parsed")
	}
	return out
}

// TestCuobjdumpLists checks the entry kinds and architectures against
// cuobjdump's own listing. cuobjdump lists all ELF entries, then all PTX
// entries, each in file order; we compare the same grouping.
func TestCuobjdumpLists(t *testing.T) {
	lists := parseLists(t)
	for name, want := range lists {
		fb := parseFile(t, name)
		var got []listing
		for _, k := range []fatbin.Kind{fatbin.KindELF, fatbin.KindPTX} {
			for _, e := range fb.Entries {
				if e.Kind == k {
					got = append(got, listing{e.Kind, e.Arch})
				}
			}
		}
		if len(got) != len(fb.Entries) {
			t.Errorf("%s: %d entries, %d of them ELF or PTX", name, len(fb.Entries), len(got))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: entries %v, cuobjdump lists %v", name, got, want)
		}
	}
}

// entrySpec is what an entry is expected to look like. The compression per
// --compress-mode is what nvcc 13.0 does: none/nc store everything raw;
// default and balance compress PTX with zstd; speed compresses PTX with
// LZ4; size and -compress-all compress everything with zstd; -G and -rdc
// compress everything.
type entrySpec struct {
	target string
	comp   fatbin.Compression
	flags  fatbin.Flags // flags that must be set besides 64bit|linux
	ident  string
	opts   string
}

const (
	none = fatbin.CompressNone
	lz4  = fatbin.CompressLZ4
	zstd = fatbin.CompressZstd
)

func kSpec(elf, ptx fatbin.Compression) []entrySpec {
	return []entrySpec{
		{target: "sm_90", comp: elf},
		{target: "sm_100", comp: elf, flags: fatbin.FlagCompat},
		{target: "compute_100", comp: ptx},
	}
}

var fatbinSpecs = map[string][]entrySpec{
	"k.none.fatbin":    kSpec(none, none),
	"k.nc.fatbin":      kSpec(none, none),
	"k.default.fatbin": kSpec(none, zstd),
	"k.balance.fatbin": kSpec(none, zstd),
	"k.speed.fatbin":   kSpec(none, lz4),
	"k.size.fatbin":    kSpec(zstd, zstd),
	"k.ca.fatbin":      kSpec(zstd, zstd),
	"b.speedall.fatbin": {
		{target: "sm_90", comp: lz4},
		{target: "compute_90", comp: lz4},
	},
	"b.g.fatbin": {
		{target: "sm_90", comp: zstd, flags: fatbin.FlagDebug, ident: "b.cu"},
		{target: "compute_90", comp: zstd, flags: fatbin.FlagDebug, ident: "b.cu",
			opts: " -g --dont-merge-basicblocks --return-at-end "},
	},
	"b.90a.fatbin": {
		{target: "sm_90a", comp: none, flags: fatbin.FlagArchSpecific},
		{target: "compute_90a", comp: zstd, flags: fatbin.FlagArchSpecific},
	},
	"b.100f.fatbin": {
		{target: "sm_100f", comp: none, flags: fatbin.FlagFamily | fatbin.FlagCompat},
		{target: "compute_100f", comp: zstd, flags: fatbin.FlagFamily},
	},
	"blto.fatbin": {
		{target: "compute_90", comp: zstd, opts: "--compile-only  "},
		{target: "lto_90", comp: zstd, flags: fatbin.FlagObfuscated,
			opts: "-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 "},
	},
}

func TestEntrySpecs(t *testing.T) {
	for _, name := range standaloneFatbins(t) {
		want, ok := fatbinSpecs[name]
		if !ok {
			t.Errorf("%s: no expectations; add it to fatbinSpecs", name)
			continue
		}
		fb := parseFile(t, name)
		if fb.Magic != fatbin.Magic || fb.Version != 1 || fb.HeaderSize != 16 {
			t.Errorf("%s: header %+v", name, fb.Header)
		}
		if len(fb.Entries) != len(want) {
			t.Fatalf("%s: %d entries, want %d", name, len(fb.Entries), len(want))
		}
		for i, e := range fb.Entries {
			w := want[i]
			if e.Target() != w.target {
				t.Errorf("%s[%d]: target %s, want %s", name, i, e.Target(), w.target)
			}
			if e.Compression() != w.comp {
				t.Errorf("%s[%d]: compression %v, want %v", name, i, e.Compression(), w.comp)
			}
			if !e.Flags.Is64Bit() || e.Flags.HostOS() != "linux" {
				t.Errorf("%s[%d]: flags %v lack 64bit|linux", name, i, e.Flags)
			}
			if e.Flags&w.flags != w.flags {
				t.Errorf("%s[%d]: flags %v lack %v", name, i, e.Flags, w.flags)
			}
			if e.Flags.Debug() != (w.flags&fatbin.FlagDebug != 0) ||
				e.Flags.ArchSpecific() != (w.flags&fatbin.FlagArchSpecific != 0) ||
				e.Flags.FamilySpecific() != (w.flags&fatbin.FlagFamily != 0) ||
				e.Flags.Obfuscated() != (w.flags&fatbin.FlagObfuscated != 0) {
				t.Errorf("%s[%d]: flags %v, want exactly the optional flags %v", name, i, e.Flags, w.flags)
			}
			if e.Identifier != w.ident {
				t.Errorf("%s[%d]: identifier %q, want %q", name, i, e.Identifier, w.ident)
			}
			if e.Options() != w.opts {
				t.Errorf("%s[%d]: options %q, want %q", name, i, e.Options(), w.opts)
			}
			switch e.Kind {
			case fatbin.KindPTX:
				if maj, min := e.PTXVersion(); maj != 9 || min != 0 {
					t.Errorf("%s[%d]: PTX version %d.%d, want 9.0 (CUDA 13.0)", name, i, maj, min)
				}
			case fatbin.KindELF:
				if e.Major != 1 || e.Minor != 8 {
					t.Errorf("%s[%d]: code version %d.%d, want 1.8", name, i, e.Major, e.Minor)
				}
				// sm_100+ entries carry a copy of .nv.compat.
				if (e.Arch >= 100) != (len(e.Ext) > 0) {
					t.Errorf("%s[%d]: compat blob of %d bytes for arch %d", name, i, len(e.Ext), e.Arch)
				}
			}
		}
	}
}

// checkData decompresses an entry and checks the image against what its
// kind promises.
func checkData(t *testing.T, where string, e *fatbin.Entry) []byte {
	t.Helper()
	d, err := e.Data()
	if e.Flags.Obfuscated() {
		var fe *fatbin.FormatError
		if !errors.Is(err, fatbin.ErrObfuscated) || !errors.As(err, &fe) || fe.Off != e.Offset+int64(e.HeaderSize) {
			t.Errorf("%s: Data of obfuscated entry: %v", where, err)
		}
		return nil
	}
	if err != nil {
		t.Errorf("%s: Data: %v", where, err)
		return nil
	}
	if e.Compression() != fatbin.CompressNone && e.Kind != fatbin.KindPTX && uint64(len(d)) != e.UncompressedSize {
		t.Errorf("%s: %d bytes, header says %d", where, len(d), e.UncompressedSize)
	}
	switch e.Kind {
	case fatbin.KindELF:
		if fatbin.Sniff(d) != fatbin.FormatCubin {
			t.Errorf("%s: image is %v, want cubin", where, fatbin.Sniff(d))
			return d
		}
		f, err := elf.NewFile(bytes.NewReader(d))
		if err != nil {
			t.Errorf("%s: debug/elf: %v", where, err)
			return d
		}
		// Every cubin has the note; device-link stubs have no .nv.info.
		if f.Section(".note.nv.cuinfo") == nil {
			t.Errorf("%s: cubin lacks .note.nv.cuinfo", where)
		}
	case fatbin.KindPTX:
		if fatbin.Sniff(d) != fatbin.FormatPTX {
			t.Errorf("%s: image is %v, want PTX: %.40q", where, fatbin.Sniff(d), d)
		}
		if bytes.IndexByte(d, 0) >= 0 {
			t.Errorf("%s: PTX keeps a NUL", where)
		}
		maj, min := e.PTXVersion()
		if v := ".version " + strconv.Itoa(maj) + "." + strconv.Itoa(min) + "\n"; !bytes.Contains(d, []byte(v)) {
			t.Errorf("%s: PTX text lacks %q", where, v)
		}
		if !bytes.Contains(d, []byte(".target sm_"+strconv.Itoa(int(e.Arch)))) {
			t.Errorf("%s: PTX text lacks .target sm_%d", where, e.Arch)
		}
	default:
		t.Errorf("%s: unexpected kind %v", where, e.Kind)
	}
	return d
}

// TestDataAllModes decompresses every entry of every file and checks that
// the same image comes out of every compression mode: the sm_90 and sm_100
// cubins and the compute_100 PTX of k.cu are identical whether stored raw,
// as LZ4 or as zstd.
func TestDataAllModes(t *testing.T) {
	images := map[string][]byte{} // target -> image from k.none.fatbin
	ref := parseFile(t, "k.none.fatbin")
	for _, e := range ref.Entries {
		images[e.Target()] = checkData(t, "k.none.fatbin "+e.Target(), e)
	}
	for _, name := range standaloneFatbins(t) {
		fb := parseFile(t, name)
		for i, e := range fb.Entries {
			d := checkData(t, name+"["+strconv.Itoa(i)+"]", e)
			if strings.HasPrefix(name, "k.") && !bytes.Equal(d, images[e.Target()]) {
				t.Errorf("%s %s: image differs from the uncompressed one (%d vs %d bytes)", name, e.Target(), len(d), len(images[e.Target()]))
			}
		}
	}
	// The speed (LZ4) and size (zstd) cubins of b.cu agree too.
	var sm90 [][]byte
	for _, name := range []string{"b.speedall.fatbin", "b.90a.fatbin"} {
		d, err := parseFile(t, name).Entries[0].Data()
		if err != nil {
			t.Fatal(err)
		}
		sm90 = append(sm90, d)
	}
	if len(sm90[0]) != 0x4168 || len(sm90[1]) != 0x4168 {
		t.Errorf("b.cu sm_90 cubins: %d and %d bytes, want 0x4168", len(sm90[0]), len(sm90[1]))
	}
}

func entriesEqual(t *testing.T, where string, got, want []*fatbin.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d", where, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.EntryHeader != w.EntryHeader || g.Identifier != w.Identifier ||
			!bytes.Equal(g.Ext, w.Ext) || !bytes.Equal(g.Raw, w.Raw) {
			t.Errorf("%s[%d]: round trip changed the entry:\n got %+v\nwant %+v", where, i, g.EntryHeader, w.EntryHeader)
		}
	}
}

// TestBuildRoundTrip: Build of all entries reproduces a standalone file
// byte for byte and parses back into the same entries; Build of a subset
// holds exactly that subset.
func TestBuildRoundTrip(t *testing.T) {
	for _, name := range standaloneFatbins(t) {
		data := readFile(t, name)
		fb := parseFile(t, name)
		out := fatbin.Build(fb.Entries)
		if !bytes.Equal(out, data) {
			t.Errorf("%s: Build(all entries) differs from the file (%d vs %d bytes)", name, len(out), len(data))
		}
		back, err := fatbin.Parse(out)
		if err != nil {
			t.Fatalf("%s: Parse(Build): %v", name, err)
		}
		entriesEqual(t, name, back.Entries, fb.Entries)

		// Keep every other entry, as -arch filtering would.
		var sub []*fatbin.Entry
		for i, e := range fb.Entries {
			if i%2 == 0 {
				sub = append(sub, e)
			}
		}
		back, err = fatbin.Parse(fatbin.Build(sub))
		if err != nil {
			t.Fatalf("%s: Parse(Build(subset)): %v", name, err)
		}
		entriesEqual(t, name+" subset", back.Entries, sub)
		for _, e := range back.Entries {
			checkData(t, name+" subset "+e.Target(), e)
		}
	}
	if got := fatbin.Build(nil); !bytes.Equal(got, []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("Build(nil) = % x", got)
	}
}

// hostExpect describes the fatbin sections expected in a host object.
type hostExpect struct {
	sections []string         // section names in order
	fatbins  []int            // fatbin count per section
	targets  []string         // targets of all entries, in order
	elfType  elf.Type         // e_type of the cubins inside
	sameAs   string           // standalone fatbin with identical bytes, if any
	offsets  map[int64]string // fatbin offset within section -> section
}

var hostSpecs = map[string]hostExpect{
	"k.o": {sections: []string{".nv_fatbin"}, fatbins: []int{1},
		targets: []string{"sm_90", "sm_100", "compute_100"}, elfType: elf.ET_EXEC, sameAs: "k.default.fatbin"},
	"kr.o": {sections: []string{"__nv_relfatbin"}, fatbins: []int{1},
		targets: []string{"sm_90", "sm_100", "compute_100"}, elfType: elf.ET_REL},
	"kr_dl.o": {sections: []string{".nv_fatbin"}, fatbins: []int{1},
		targets: []string{"sm_90", "sm_100"}, elfType: elf.ET_EXEC},
	"blto.o": {sections: []string{"__nv_relfatbin"}, fatbins: []int{1},
		targets: []string{"compute_90", "lto_90"}, sameAs: "blto.fatbin"},
	// A shared library's .nv_fatbin holds the -dlink fatbin and the TU's.
	"k.so": {sections: []string{".nv_fatbin"}, fatbins: []int{2},
		targets: []string{"sm_90", "sm_100", "sm_90", "sm_100", "compute_100"}, elfType: elf.ET_EXEC,
		offsets: map[int64]string{0: ".nv_fatbin", 0xd20: ".nv_fatbin"}},
}

func TestFromELF(t *testing.T) {
	for _, name := range hostObjects {
		want := hostSpecs[name]
		data := readFile(t, name)
		if fatbin.Sniff(data) != fatbin.FormatHostELF {
			t.Errorf("%s: sniffed as %v", name, fatbin.Sniff(data))
		}
		secs, err := fatbin.FromELF(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		var counts []int
		var targets []string
		for _, s := range secs {
			names = append(names, s.Name)
			counts = append(counts, len(s.Fatbins))
			es := ef.Section(s.Name)
			if s.Offset != int64(es.Offset) {
				t.Errorf("%s %s: offset %#x, readelf says %#x", name, s.Name, s.Offset, es.Offset)
			}
			end := s.Offset
			for _, fb := range s.Fatbins {
				if want.offsets != nil && want.offsets[fb.Offset-s.Offset] != s.Name {
					t.Errorf("%s: unexpected fatbin at section offset %#x", name, fb.Offset-s.Offset)
				}
				// Offsets are file offsets: the bytes there are the fatbin.
				if !bytes.Equal(data[fb.Offset:fb.Offset+int64(len(fb.Raw))], fb.Raw) {
					t.Errorf("%s: fatbin offset %#x does not locate its bytes", name, fb.Offset)
				}
				for _, e := range fb.Entries {
					if !bytes.Equal(data[e.Offset:e.Offset+int64(len(e.Raw))], e.Raw) {
						t.Errorf("%s: entry offset %#x does not locate its bytes", name, e.Offset)
					}
				}
				end = fb.Offset + int64(len(fb.Raw))
				// The extracted standalone fatbin is the container verbatim.
				if out := fatbin.Build(fb.Entries); !bytes.Equal(out, fb.Raw) {
					t.Errorf("%s: Build(entries) differs from the embedded fatbin", name)
				}
			}
			if end != s.Offset+int64(es.Size) {
				t.Errorf("%s %s: fatbins end at %#x, section at %#x", name, s.Name, end, s.Offset+int64(es.Size))
			}
			for _, e := range s.Entries() {
				targets = append(targets, e.Target())
				d := checkData(t, name+" "+e.Target(), e)
				if e.Kind == fatbin.KindELF && len(d) > 0x12 {
					if typ := elf.Type(uint16(d[0x10]) | uint16(d[0x11])<<8); typ != want.elfType {
						t.Errorf("%s %s: cubin type %v, want %v", name, e.Target(), typ, want.elfType)
					}
				}
			}
			if want.sameAs != "" {
				if raw := s.Fatbins[0].Raw; !bytes.Equal(raw, readFile(t, want.sameAs)) {
					t.Errorf("%s: embedded fatbin differs from %s", name, want.sameAs)
				}
			}
		}
		if !slices.Equal(names, want.sections) || !slices.Equal(counts, want.fatbins) || !slices.Equal(targets, want.targets) {
			t.Errorf("%s: sections %v fatbins %v targets %v; want %v %v %v", name, names, counts, targets, want.sections, want.fatbins, want.targets)
		}
	}
}

func TestFromELFNotCUDA(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if _, err := fatbin.FromELF(f, nil); !errors.Is(err, fatbin.ErrNoFatbin) {
		t.Errorf("FromELF(test binary) = %v, want ErrNoFatbin", err)
	}
	cubin := parseFile(t, "k.none.fatbin").Entries[0].Payload()
	_, err = fatbin.FromELF(bytes.NewReader(cubin), nil)
	var fe *fatbin.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "cubin") {
		t.Errorf("FromELF(cubin) = %v, want a FormatError naming the cubin", err)
	}
	if _, err := fatbin.FromELF(bytes.NewReader(readFile(t, "k.none.fatbin")), nil); !errors.As(err, &fe) {
		t.Errorf("FromELF(fatbin) = %v, want FormatError", err)
	}
}

func TestParseAllSO(t *testing.T) {
	data := readFile(t, "k.so")
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sec, err := ef.Section(".nv_fatbin").Data()
	if err != nil {
		t.Fatal(err)
	}
	fbs, err := fatbin.ParseAll(sec)
	if err != nil {
		t.Fatal(err)
	}
	if len(fbs) != 2 || fbs[0].Offset != 0 || fbs[1].Offset != 0xd20 {
		t.Fatalf("ParseAll(k.so .nv_fatbin): %d fatbins", len(fbs))
	}
	// Parse refuses the two-fatbin section and points at the second one.
	_, err = fatbin.Parse(sec)
	var fe *fatbin.FormatError
	if !errors.As(err, &fe) || fe.Off != 0xd20 {
		t.Errorf("Parse(two fatbins) = %v, want an error at 0xd20", err)
	}
	// Zero padding between and after fatbins is skipped: pad the first
	// to 8 + 16 bytes and append 13 zero bytes.
	padded := slices.Concat(fbs[0].Raw, make([]byte, 24), fbs[1].Raw, make([]byte, 13))
	pfbs, err := fatbin.ParseAll(padded)
	if err != nil {
		t.Fatal(err)
	}
	if len(pfbs) != 2 || pfbs[1].Offset != int64(len(fbs[0].Raw)+24) {
		t.Errorf("padded ParseAll: %d fatbins", len(pfbs))
	}
	entriesEqual(t, "padded", pfbs[1].Entries, fbs[1].Entries)
}

func TestSniff(t *testing.T) {
	cases := map[string]fatbin.Format{
		"k.none.fatbin": fatbin.FormatFatbin,
		"k.o":           fatbin.FormatHostELF,
		"k.so":          fatbin.FormatHostELF,
		"k.ptx":         fatbin.FormatPTX, // nvcc -ptx output, starting with comments
		"b_rdc.ptx":     fatbin.FormatPTX,
	}
	for name, want := range cases {
		if got := fatbin.Sniff(readFile(t, name)); got != want {
			t.Errorf("Sniff(%s) = %v, want %v", name, got, want)
		}
	}
	texts := map[string]fatbin.Format{
		"//\n// Generated by NVIDIA NVVM Compiler\n\n.version 9.0\n.target sm_90\n": fatbin.FormatPTX,
		"\n\n\n.version 9.0\n.target sm_100\n":                                      fatbin.FormatPTX,
		"/* c */ .target sm_80\n":                                                   fatbin.FormatPTX,
		".version 9.0\n\x00\x00\x00":                                                fatbin.FormatPTX,
		".version 9.0\n\x00x":                                                       fatbin.FormatUnknown,
		".versionx":                                                                 fatbin.FormatUnknown,
		"// only a comment":                                                         fatbin.FormatUnknown,
		"/* unterminated":                                                           fatbin.FormatUnknown,
		"\x7fELF":                                                                   fatbin.FormatUnknown,
		"":                                                                          fatbin.FormatUnknown,
		"int main() {}":                                                             fatbin.FormatUnknown,
		// A fragment without a header is still PTX: the parser, not the
		// sniffer, decides what is missing (parse.Read and rt/soft agree).
		".visible .entry k()\n{\n\tret;\n}\n": fatbin.FormatPTX,
		"// g\n.global .align 4 .u32 g;":      fatbin.FormatPTX,
		"\xEF\xBB\xBF.version 9.0\n":          fatbin.FormatPTX,
		".entryx k()":                         fatbin.FormatUnknown,
		".reg .b32 %r;":                       fatbin.FormatUnknown,
	}
	for text, want := range texts {
		if got := fatbin.Sniff([]byte(text)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestDataConcurrent decodes entries of every compression method from
// several goroutines: the zstd decoder is shared.
func TestDataConcurrent(t *testing.T) {
	var entries []*fatbin.Entry
	want := map[*fatbin.Entry][]byte{}
	for _, name := range []string{"k.size.fatbin", "k.speed.fatbin", "b.speedall.fatbin", "k.ca.fatbin"} {
		for _, e := range parseFile(t, name).Entries {
			d, err := e.Data()
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, e)
			want[e] = d
		}
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 50 {
				e := entries[(g+i)%len(entries)]
				d, err := e.Data()
				if err == nil && !bytes.Equal(d, want[e]) {
					err = errors.New("different bytes from " + e.Target())
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
