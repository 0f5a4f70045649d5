package fatbin_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cugen/cugen/parse/fatbin"
)

var le = binary.LittleEndian

// formatError asserts err is a *FormatError at offset off (off < 0: any)
// whose text contains msg and names the offset.
func formatError(t *testing.T, what string, err error, off int64, msg string) {
	t.Helper()
	var fe *fatbin.FormatError
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

// allocs returns the bytes allocated while running f.
func allocs(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

func TestBadHeaders(t *testing.T) {
	orig := readFile(t, "k.size.fatbin") // sm_90 zstd, sm_100 zstd, compute_100 zstd
	fb := parseFile(t, "k.size.fatbin")
	e1 := int(fb.Entries[1].Offset)
	patch := func(f func(b []byte)) []byte {
		b := slices.Clone(orig)
		f(b)
		return b
	}
	parseErr := func(what string, b []byte, off int64, msg string) {
		t.Helper()
		_, err := fatbin.Parse(b)
		formatError(t, what, err, off, msg)
	}
	parseErr("empty", nil, 0, "truncated fatbin header")
	parseErr("wrong magic", patch(func(b []byte) { b[0] ^= 1 }), 0, "bad magic")
	parseErr("header size too small", patch(func(b []byte) { le.PutUint16(b[6:], 8) }), 6, "header size")
	parseErr("fat size 4 GiB", patch(func(b []byte) { le.PutUint64(b[8:], 4<<30) }), 8, "runs past end of input")
	parseErr("fat size 2^64-1", patch(func(b []byte) { le.PutUint64(b[8:], ^uint64(0)) }), 8, "runs past end of input")
	parseErr("entry header size 0", patch(func(b []byte) { le.PutUint32(b[e1+4:], 0) }), int64(e1+4), "entry header size")
	parseErr("entry header size huge", patch(func(b []byte) { le.PutUint32(b[e1+4:], 0xffffffff) }), int64(e1+4), "entry header size")
	parseErr("entry payload past EOF", patch(func(b []byte) { le.PutUint64(b[e1+8:], 1<<40) }), int64(e1+8), "runs past end of fatbin")
	parseErr("entry payload 2^64-1", patch(func(b []byte) { le.PutUint64(b[e1+8:], ^uint64(0)) }), int64(e1+8), "runs past end of fatbin")
	parseErr("compressed size > payload", patch(func(b []byte) { le.PutUint32(b[e1+16:], 0xffffff) }), int64(e1+16), "exceeds payload size")
	parseErr("identifier outside entry", patch(func(b []byte) { le.PutUint32(b[e1+32:], 0x40); le.PutUint32(b[e1+36:], 0xffffffff) }), int64(e1+32), "identifier")
	parseErr("options pair outside entry", patch(func(b []byte) { le.PutUint32(b[e1+20:], 0xfffffff0) }), int64(e1+20), "options pair")
	// The sm_100 entry's pair at +0x40 points at its compat blob.
	parseErr("options blob outside entry", patch(func(b []byte) { le.PutUint32(b[e1+0x44:], 0x7fffffff) }), int64(e1+0x40), "options blob")
	parseErr("trailing garbage", append(slices.Clone(orig), 0, 0, 0, 0, 0, 0, 0, 0, 1), int64(len(orig)+8), "trailing data")
	grown := append(patch(func(b []byte) { le.PutUint64(b[8:], le.Uint64(b[8:])+8) }), 1, 2, 3, 4, 5, 6, 7, 8)
	parseErr("entry header cut", grown, int64(len(orig)), "truncated entry header")
	_, err := fatbin.ParseAll(append(slices.Clone(orig), 0, 0, 0, 0, 0, 0, 0, 0, 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'))
	formatError(t, "ParseAll garbage after fatbin", err, int64(len(orig)+8), "bad magic")
	_, err = fatbin.ParseAll(make([]byte, 64))
	formatError(t, "ParseAll of zeros", err, 0, "no fatbin")
	if _, err := fatbin.Parse(append(slices.Clone(orig), make([]byte, 13)...)); err != nil {
		t.Errorf("zero padding after a fatbin: %v", err)
	}
}

// TestTruncated cuts every standalone fatbin at many points.
func TestTruncated(t *testing.T) {
	for _, name := range standaloneFatbins(t) {
		data := readFile(t, name)
		for n := 0; n < len(data); n += 1 + n/32 {
			_, err := fatbin.Parse(slices.Clone(data[:n]))
			formatError(t, name+" cut", err, -1, "")
			if err == nil {
				t.Fatalf("%s cut at %d parsed", name, n)
			}
		}
	}
}

// zstdRLEFrame hand-writes a zstd frame of n RLE blocks of 128 KiB each:
// a few bytes that expand to n*128 KiB. With fcs it declares its content
// size in the header (single-segment), otherwise only a window size.
func zstdRLEFrame(n int, fcs bool) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if fcs {
		b = append(b, 0xe0) // FCS 8 bytes, single segment
		b = le.AppendUint64(b, uint64(n)<<17)
	} else {
		b = append(b, 0x00, 0x38) // no FCS, window 2^(10+7) = 128 KiB
	}
	for i := range n {
		h := uint32(128<<10)<<3 | 1<<1 // RLE block of 128 KiB
		if i == n-1 {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 'A')
	}
	return b
}

// withPayload returns a one-entry fatbin whose ELF entry holds payload with
// the given flags and declared uncompressed size.
func withPayload(payload []byte, flags fatbin.Flags, usize uint64) []byte {
	padded := slices.Concat(payload, make([]byte, (8-len(payload)%8)%8))
	h := make([]byte, 64)
	le.PutUint16(h[0:], uint16(fatbin.KindELF))
	le.PutUint16(h[2:], 0x101)
	le.PutUint32(h[4:], 64)
	le.PutUint64(h[8:], uint64(len(padded)))
	le.PutUint32(h[16:], uint32(len(payload)))
	le.PutUint32(h[28:], 90)
	le.PutUint64(h[40:], uint64(flags|fatbin.Flag64Bit|fatbin.FlagHostLinux))
	le.PutUint64(h[56:], usize)
	return fatbin.Build([]*fatbin.Entry{{Raw: slices.Concat(h, padded)}})
}

func TestDecompressionBombs(t *testing.T) {
	orig := readFile(t, "k.size.fatbin")
	e := parseFile(t, "k.size.fatbin").Entries[0]
	cases := []struct {
		what  string
		data  []byte
		off   int64 // relative to the entry
		msg   string
		cause error
	}{
		{"zstd entry claiming 4 GiB", func() []byte {
			b := slices.Clone(orig)
			le.PutUint64(b[e.Offset+56:], 4<<30)
			return b
		}(), 56, "exceeds limit", nil},
		{"zstd entry claiming 200 MiB from 2 KiB", func() []byte {
			b := slices.Clone(orig)
			le.PutUint64(b[e.Offset+56:], 200<<20)
			return b
		}(), 56, "impossible", nil},
		{"zstd entry claiming a byte too few", func() []byte {
			b := slices.Clone(orig)
			le.PutUint64(b[e.Offset+56:], e.UncompressedSize-1)
			return b
		}(), 64, "zstd frame declares", nil},
		{"LZ4 entry claiming 4 GiB", withPayload([]byte{0x10, 'A'}, fatbin.FlagLZ4, 4<<30), 56, "exceeds limit", nil},
		{"LZ4 entry claiming more than 255x", withPayload([]byte{0x10, 'A'}, fatbin.FlagLZ4, 1<<20), 56, "impossible", nil},
		{"LZ4 garbage", withPayload([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, fatbin.FlagLZ4, 1000), 64, "decompressing lz4", nil},
		{"LZ4 short output", withPayload([]byte{0x20, 'A', 'B'}, fatbin.FlagLZ4, 3), 64, "decompressed to 2 bytes", nil},
		// 8 KiB of frame expanding to 256 MiB, declared honestly: the
		// ratio is possible but the size is over the cap.
		{"zstd bomb over the cap", withPayload(zstdRLEFrame(2049, true), fatbin.FlagZstd, 2049<<17), 56, "exceeds limit", nil},
		// A tiny frame declaring 1 GiB while the header says 4 KiB.
		{"zstd frame declaring 1 GiB", withPayload(zstdRLEFrame(8192, true)[:40], fatbin.FlagZstd, 4096), 64, "zstd frame declares", nil},
		// No content size in the frame: decoding stops at the declared
		// size instead of producing 64 MiB.
		{"zstd frame without size", withPayload(zstdRLEFrame(512, false), fatbin.FlagZstd, 4096), 64, "decompressing zstd", nil},
		{"compressed size 0", withPayload(nil, fatbin.FlagZstd, 4096), 16, "compressed size 0", nil},
		{"uncompressed size 0", withPayload([]byte{1, 2, 3}, fatbin.FlagLZ4, 0), 56, "uncompressed size 0", nil},
	}
	for _, c := range cases {
		fb, err := fatbin.Parse(c.data)
		if err != nil {
			t.Errorf("%s: Parse: %v", c.what, err)
			continue
		}
		var derr error
		n := allocs(func() { _, derr = fb.Entries[0].Data() })
		formatError(t, c.what, derr, fb.Entries[0].Offset+c.off, c.msg)
		if n > 8<<20 {
			t.Errorf("%s: Data allocated %d bytes", c.what, n)
		}
	}
	// The honest frame decodes when the caller lifts the cap.
	fb, err := fatbin.Parse(withPayload(zstdRLEFrame(8, true), fatbin.FlagZstd, 8<<17))
	if err != nil {
		t.Fatal(err)
	}
	d, err := fb.Entries[0].Data()
	if err != nil || len(d) != 8<<17 || bytes.Count(d, []byte("A")) != len(d) {
		t.Errorf("1 MiB RLE frame: %d bytes, %v", len(d), err)
	}
	if _, err := fb.Entries[0].DataLimit(1 << 19); err == nil {
		t.Error("DataLimit below the size accepted")
	}
}

func TestBadHostELF(t *testing.T) {
	orig := readFile(t, "k.o")
	ef, err := elf.NewFile(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	shoff := int(le.Uint64(orig[0x28:]))
	idx := slices.IndexFunc(ef.Sections, func(s *elf.Section) bool { return s.Name == ".nv_fatbin" })
	hdr := shoff + 64*idx
	sec := ef.Sections[idx]
	patch := func(f func(b []byte)) []byte {
		b := slices.Clone(orig)
		f(b)
		return b
	}
	_, err = fatbin.FromELF(bytes.NewReader(patch(func(b []byte) { le.PutUint64(b[hdr+24:], 1<<40) })), nil)
	formatError(t, "section offset out of range", err, 1<<40, "reading section .nv_fatbin")
	var n uint64
	n = allocs(func() {
		_, err = fatbin.FromELF(bytes.NewReader(patch(func(b []byte) { le.PutUint64(b[hdr+32:], 1<<40) })), nil)
	})
	formatError(t, "section size 1 TiB", err, int64(sec.Offset), "reading section .nv_fatbin")
	if n > 64<<20 {
		t.Errorf("1 TiB section: FromELF allocated %d bytes", n)
	}
	_, err = fatbin.FromELF(bytes.NewReader(patch(func(b []byte) { b[sec.Offset] ^= 1 })), nil)
	formatError(t, "bad magic in section", err, int64(sec.Offset), "section .nv_fatbin: bad magic")
	_, err = fatbin.FromELF(bytes.NewReader(patch(func(b []byte) { le.PutUint64(b[sec.Offset+0x10+8:], 1<<40) })), nil)
	formatError(t, "entry past section", err, int64(sec.Offset)+0x18, "runs past end of fatbin")
	_, err = fatbin.FromELF(bytes.NewReader(orig[:100]), nil)
	formatError(t, "truncated ELF", err, 0, "not a readable ELF")
}
