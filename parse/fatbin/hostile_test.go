package fatbin_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
	"github.com/cugen/cugen/parse/hostile"
	kzstd "github.com/klauspost/compress/zstd"
)

// The hostile inputs of issue 17 that reach this package: decompression
// bombs in compressed ELF sections and in entries decoded in parallel, and
// thousands of section headers naming one fatbin.

func fromELF(t *testing.T, data []byte, b *fatbin.Budget) ([]fatbin.Section, error, uint64) {
	t.Helper()
	var secs []fatbin.Section
	var err error
	n := allocs(func() { secs, err = fatbin.FromELF(bytes.NewReader(data), b) })
	return secs, err, n
}

// A .nv_fatbin section compressed with zstd whose header claims 4 GiB (or
// 1 GiB), which its 131 KB (33 KB) of RLE blocks really expand to, is
// refused before anything is allocated for it.
func TestELFDecompressionBomb(t *testing.T) {
	for _, size := range []uint64{4 << 30, 1 << 30} {
		data := hostile.ELFBomb(size)
		_, err, n := fromELF(t, data, nil)
		formatError(t, fmt.Sprintf("%d-byte bomb", len(data)), err, 0x48, "section .nv_fatbin: decompressed size")
		if !errors.Is(err, fatbin.ErrBudget) {
			t.Errorf("bomb of %#x: %v does not wrap ErrBudget", size, err)
		}
		if n > 2*uint64(len(data))+1<<20 {
			t.Errorf("bomb of %#x: FromELF allocated %d bytes for a %d-byte file", size, n, len(data))
		}
	}
	// Within the budget, the section is decompressed and its content
	// judged: zeros hold no fatbin.
	_, err, _ := fromELF(t, hostile.ELFBomb(8<<20), nil)
	formatError(t, "8 MiB of zeros", err, 0, "decompressed section .nv_fatbin at file offset 0x40: no fatbin in 8388608 bytes")
	_, err, n := fromELF(t, hostile.ELFBomb(8<<20), fatbin.NewBudget(4<<20))
	if !errors.Is(err, fatbin.ErrBudget) || n > 1<<20 {
		t.Errorf("8 MiB section in a 4 MiB budget: %v (%d bytes allocated)", err, n)
	}
}

// compressedELF is a host object holding fb in a .nv_fatbin section
// compressed with typ.
func compressedELF(typ elf.CompressionType, fb []byte) []byte {
	payload := hostile.Zlib(fb)
	if typ == elf.COMPRESS_ZSTD {
		payload = zstdEncode(fb)
	}
	return hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED, Data: hostile.Compressed(typ, uint64(len(fb)), payload)})
}

func TestCompressedSections(t *testing.T) {
	// A fatbin whose sm_90 entry is zstd-compressed in turn: nested
	// decompression, each level within the one budget.
	inner := readFile(t, "k.size.fatbin")
	want := parseFile(t, "k.size.fatbin")
	for _, typ := range []elf.CompressionType{elf.COMPRESS_ZLIB, elf.COMPRESS_ZSTD} {
		b := fatbin.NewBudget(1 << 20)
		secs, err, _ := fromELF(t, compressedELF(typ, inner), b)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		if len(secs) != 1 || !secs[0].Compressed || len(secs[0].Fatbins) != 1 {
			t.Fatalf("%v: %+v", typ, secs)
		}
		if b.InUse() != int64(len(inner)) {
			t.Errorf("%v: %d bytes of the budget in use, want the section's %d", typ, b.InUse(), len(inner))
		}
		got := secs[0].Entries()
		entriesEqual(t, typ.String(), got, want.Entries)
		for i, e := range got {
			d, release, err := e.DataBudget(b)
			wd, _ := want.Entries[i].Data()
			if err != nil || !bytes.Equal(d, wd) {
				t.Errorf("%v: entry %s: %v", typ, e.Target(), err)
			}
			release()
		}
		if b.InUse() != int64(len(inner)) {
			t.Errorf("%v: %d bytes in use after the entries were released", typ, b.InUse())
		}
	}

	sec := func(flags elf.SectionFlag, data []byte) []byte {
		return hostile.ELF(hostile.Section{Name: ".nv_fatbin", Flags: flags, Data: data})
	}
	zl := hostile.Zlib(inner)
	for _, c := range []struct {
		what string
		data []byte
		off  int64
		msg  string
	}{
		{"allocated and compressed", sec(elf.SHF_ALLOC|elf.SHF_COMPRESSED, hostile.Compressed(elf.COMPRESS_ZLIB, uint64(len(inner)), zl)),
			0x40, "SHF_COMPRESSED and SHF_ALLOC"},
		{"unknown compression", sec(elf.SHF_COMPRESSED, hostile.Compressed(7, 100, zl)), 0x40, "unknown compression type 7"},
		// debug/elf reads the compression header itself.
		{"no header", sec(elf.SHF_COMPRESSED, []byte{1, 0, 0, 0}), 0, "not a readable ELF file"},
		{"size claimed too large", sec(elf.SHF_COMPRESSED, hostile.Compressed(elf.COMPRESS_ZLIB, uint64(len(inner))+8, zl)),
			0x40 + 24, "decompressed to"},
		{"size claimed too small", sec(elf.SHF_COMPRESSED, hostile.Compressed(elf.COMPRESS_ZLIB, uint64(len(inner))-8, zl)),
			0x40 + 24, "more than"},
		{"size impossible for zlib", sec(elf.SHF_COMPRESSED, hostile.Compressed(elf.COMPRESS_ZLIB, 1<<30, zl[:100])),
			0x48, "impossible for 0x64 bytes"},
		{"zstd garbage", sec(elf.SHF_COMPRESSED, hostile.Compressed(elf.COMPRESS_ZSTD, 4096, []byte("not a zstd frame"))),
			0x40 + 24, "decompressing section .nv_fatbin"},
	} {
		_, err, n := fromELF(t, c.data, nil)
		formatError(t, c.what, err, c.off, c.msg)
		if n > 4<<20 {
			t.Errorf("%s: %d bytes allocated", c.what, n)
		}
	}

	// debug/elf itself would decompress a compressed section-name table.
	named := sec(0, inner)
	shoff := le.Uint64(named[0x28:])
	hdr := shoff + 2*64 // null, .nv_fatbin, .shstrtab
	le.PutUint64(named[hdr+8:], uint64(elf.SHF_COMPRESSED))
	_, err, _ := fromELF(t, named, nil)
	formatError(t, "compressed .shstrtab", err, int64(hdr), "section name table is compressed")
}

// Thousands of section headers naming one fatbin are one section; headers
// whose ranges partly overlap are refused.
func TestOverlappingSections(t *testing.T) {
	data := hostile.OverlappingELF(2000, 64<<10)
	secs, err, n := fromELF(t, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 1 || len(secs[0].Entries()) != 1 {
		t.Fatalf("%d sections", len(secs))
	}
	// debug/elf's Section per header is most of it.
	if n > 8*uint64(len(data)) {
		t.Errorf("FromELF allocated %d bytes for a %d-byte file", n, len(data))
	}

	fb := readFile(t, "k.size.fatbin")
	for _, c := range []struct {
		what string
		secs []hostile.Section
		msg  string
	}{
		{"shifted by 8", []hostile.Section{{Name: ".nv_fatbin", Data: fb}, {Name: ".nv_fatbin", Same: 0, Skip: 8}},
			"section .nv_fatbin [0x48, "},
		{"nested", []hostile.Section{{Name: ".nv_fatbin", Data: fb}, {Name: "__nv_relfatbin", Same: 0, Size: 16}},
			"section .nv_fatbin [0x40, 0x"},
		{"same bytes, one compressed", []hostile.Section{{Name: ".nv_fatbin", Data: fb}, {Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED, Same: 0}},
			"overlaps section .nv_fatbin [0x40"},
	} {
		_, err, _ := fromELF(t, hostile.ELF(c.secs...), nil)
		formatError(t, c.what, err, -1, c.msg)
		if err != nil && !strings.Contains(err.Error(), "overlaps") {
			t.Errorf("%s: %v", c.what, err)
		}
	}
	// A zero-size section overlaps nothing.
	secs, err, _ = fromELF(t, hostile.ELF(hostile.Section{Name: ".nv_fatbin", Data: fb}, hostile.Section{Name: "__nv_relfatbin", Same: 0, Skip: 16, Size: -1}), nil)
	if err == nil || strings.Contains(err.Error(), "overlaps") {
		t.Errorf("empty section: %v %v", secs, err)
	}
}

// Entries decoded from many goroutines share one budget: however many run
// at once, what they hold never exceeds it, and every entry decodes.
func TestBudgetShared(t *testing.T) {
	const size = 1 << 20
	fb, err := fatbin.Parse(hostile.ZstdEntries(16, size))
	if err != nil {
		t.Fatal(err)
	}
	b := fatbin.NewBudget(3 * size)
	var mu sync.Mutex
	peak := int64(0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(fb.Entries); i += 8 {
				d, release, err := fb.Entries[i].DataBudget(b)
				if err != nil || len(d) != size {
					t.Errorf("entry %d: %d bytes, %v", i, len(d), err)
				}
				mu.Lock()
				peak = max(peak, b.InUse())
				mu.Unlock()
				release()
				release() // a second call gives nothing back twice
			}
		}()
	}
	wg.Wait()
	if peak > 3*size || peak < size || b.InUse() != 0 {
		t.Errorf("peak %d bytes in a budget of %d; %d in use at the end", peak, 3*size, b.InUse())
	}
	// An entry larger than the whole budget fails at once, naming it.
	_, _, err = fb.Entries[3].DataBudget(fatbin.NewBudget(size - 1))
	formatError(t, "entry over the budget", err, fb.Entries[3].Offset+56, "entry sm_73: decompressed size 0x100000 exceeds the memory budget")
}

func zstdEncode(b []byte) []byte {
	w, err := kzstd.NewWriter(nil)
	if err != nil {
		panic(err)
	}
	return w.EncodeAll(b, nil)
}

// liveHeap is the heap's live objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestZstdEntryLetGo: once a large zstd entry's data is released and
// dropped, none of it stays live (the shared decoder used to keep its last
// output: 256 MiB held after a 256 MiB entry, which made cugen's
// generation of such a fatbin peak at 1.06 GB; now under 0.8 GB).
func TestZstdEntryLetGo(t *testing.T) {
	const size = 64 << 20
	ptx := hostile.PaddedPTX(size)
	enc, err := kzstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := fatbin.Parse(hostile.Fatbin(hostile.Entry(hostile.KindPTX, 70, hostile.FlagZstd, enc.EncodeAll(ptx, nil), uint64(len(ptx)))))
	if err != nil {
		t.Fatal(err)
	}
	ptx = nil
	base := liveHeap()
	data, release, err := fb.Entries[0].DataBudget(fatbin.NewBudget(2 * size))
	if err != nil || len(data) < size-1024 {
		t.Fatalf("decoded %d bytes: %v", len(data), err)
	}
	release()
	data = nil
	if after := liveHeap(); after > base+size/8 {
		t.Errorf("%d bytes live after the entry was released and dropped, %d before: the decoder keeps its output", after, base)
	}
}

// TestFromELFAtAgrees: FromELFAt, which reads entries from the file when
// decoded, finds what FromELF finds in the file in memory: the same
// sections, containers and entry headers, identifiers, options, and the
// same Data; and a file cut short fails at the entry, not before.
func TestFromELFAtAgrees(t *testing.T) {
	for _, name := range []string{"k.so", "k.o", "kr.o", "kr_dl.o", "blto.o"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fatbin.FromELF(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := fatbin.FromELFAt(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("%s: FromELFAt: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d sections, want %d", name, len(got), len(want))
		}
		for i := range want {
			ge, we := got[i].Entries(), want[i].Entries()
			if len(ge) != len(we) || len(got[i].Fatbins) != len(want[i].Fatbins) {
				t.Fatalf("%s: section %s: %d entries in %d fatbins, want %d in %d", name, want[i].Name, len(ge), len(got[i].Fatbins), len(we), len(want[i].Fatbins))
			}
			for j, w := range we {
				g := ge[j]
				if g.EntryHeader != w.EntryHeader || g.Offset != w.Offset || g.Identifier != w.Identifier || !bytes.Equal(g.Ext, w.Ext) || g.Raw != nil {
					t.Errorf("%s: entry %d: %+v, want %+v (Raw %d bytes, want none)", name, j, g, w, len(g.Raw))
				}
				gd, gerr := g.Data()
				wd, werr := w.Data()
				if !bytes.Equal(gd, wd) || (gerr == nil) != (werr == nil) {
					t.Errorf("%s: entry %d %s: Data %d bytes (%v), want %d (%v)", name, j, w.Target(), len(gd), gerr, len(wd), werr)
				}
			}
		}
	}
	// A payload the file fails to give (a disk error, a file cut short
	// under the run): found when the entry is read, and said so.
	data, _ := os.ReadFile("testdata/k.so")
	secs, _ := fatbin.FromELF(bytes.NewReader(data), nil)
	es := secs[0].Entries()
	last := es[len(es)-1]
	from := last.Offset + int64(last.HeaderSize) + 8
	got, err := fatbin.FromELFAt(&failingReader{data: data, from: from, to: last.Offset + int64(len(last.Raw))}, int64(len(data)), nil)
	if err != nil {
		t.Fatalf("headers: %v", err)
	}
	ge := got[0].Entries()
	if _, err := ge[len(ge)-1].Data(); err == nil || !strings.Contains(err.Error(), "reading the") || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("the unreadable entry's Data: %v, want a read error", err)
	}
}

// failingReader is data whose bytes [from, to) cannot be read.
type failingReader struct {
	data     []byte
	from, to int64
}

func (r *failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off < r.to && off+int64(len(p)) > r.from {
		return 0, io.ErrUnexpectedEOF
	}
	return bytes.NewReader(r.data).ReadAt(p, off)
}
