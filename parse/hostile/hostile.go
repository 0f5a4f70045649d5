// Package hostile builds the hostile inputs that cugen's robustness tests
// and measurements feed it: decompression bombs in fatbin entries and in
// compressed ELF sections, ELF files whose section headers name the same
// bytes thousands of times, huge single-line PTX, and kernels whose
// parameter blocks exceed what CUDA allows. Each is a few kilobytes to a few
// megabytes built on the fly, so that no test commits a blob.
package hostile

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
)

var le = binary.LittleEndian

// ZstdRLE hand-writes a zstd frame of n RLE blocks of 128 KiB of fill: 4
// bytes per block, so a few kilobytes that expand to n*128 KiB. The frame
// header declares that content size.
func ZstdRLE(n int, fill byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0} // magic; FCS 8 bytes, single segment
	b = le.AppendUint64(b, uint64(n)<<17)
	for i := range n {
		h := uint32(128<<10)<<3 | 1<<1 // RLE block of 128 KiB
		if i == n-1 {
			h |= 1 // last block
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), fill)
	}
	return b
}

// Zlib compresses data with zlib, as ld --compress-debug-sections=zlib does.
func Zlib(data []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// Compressed is the contents of a SHF_COMPRESSED section of an ELF64 file:
// the compression header (Elf64_Chdr) declaring size bytes, then payload.
func Compressed(typ elf.CompressionType, size uint64, payload []byte) []byte {
	h := make([]byte, 24)
	le.PutUint32(h[0:], uint32(typ))
	le.PutUint64(h[8:], size)
	le.PutUint64(h[16:], 8)
	return append(h, payload...)
}

// A Section is one section header of an ELF file built by ELF. Its bytes
// are Data; or, when Data is nil, the bytes of the earlier section Same
// (an index into the list), so that several headers name one range.
type Section struct {
	Name  string
	Type  elf.SectionType // SHT_PROGBITS when 0
	Flags elf.SectionFlag
	Data  []byte
	Same  int
	// Skip and Size narrow the range named with Same: Skip bytes in, Size
	// bytes long (0: to the end; negative: empty).
	Skip, Size int
}

// ELF returns a little-endian ELF64 x86-64 relocatable object with the
// given sections after the null section, then .shstrtab.
func ELF(secs ...Section) []byte {
	out := make([]byte, 64)
	type placed struct{ off, size int }
	at := make([]placed, len(secs))
	for i, s := range secs {
		if s.Data == nil {
			p := at[s.Same]
			p.off += s.Skip
			p.size -= s.Skip
			if s.Size != 0 {
				p.size = max(s.Size, 0)
			}
			at[i] = p
			continue
		}
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		at[i] = placed{len(out), len(s.Data)}
		out = append(out, s.Data...)
	}
	var names []byte
	nameOff := func(n string) uint32 {
		if i := bytes.Index(names, []byte("\x00"+n+"\x00")); i >= 0 {
			return uint32(i + 1)
		}
		if len(names) == 0 {
			names = append(names, 0)
		}
		o := len(names)
		names = append(names, n...)
		names = append(names, 0)
		return uint32(o)
	}
	shstrName := nameOff(".shstrtab")
	secNames := make([]uint32, len(secs))
	for i, s := range secs {
		secNames[i] = nameOff(s.Name)
	}
	strOff := len(out)
	out = append(out, names...)
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	shdr := func(name uint32, typ elf.SectionType, flags elf.SectionFlag, off, size int) {
		h := make([]byte, 64)
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], uint32(typ))
		le.PutUint64(h[8:], uint64(flags))
		le.PutUint64(h[24:], uint64(off))
		le.PutUint64(h[32:], uint64(size))
		le.PutUint64(h[48:], 8)
		out = append(out, h...)
	}
	shdr(0, 0, 0, 0, 0)
	for i, s := range secs {
		typ := s.Type
		if typ == 0 {
			typ = elf.SHT_PROGBITS
		}
		shdr(secNames[i], typ, s.Flags, at[i].off, at[i].size)
	}
	shdr(shstrName, elf.SHT_STRTAB, 0, strOff, len(names))
	copy(out, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1})
	le.PutUint16(out[0x10:], uint16(elf.ET_REL))
	le.PutUint16(out[0x12:], uint16(elf.EM_X86_64))
	le.PutUint32(out[0x14:], 1)
	le.PutUint64(out[0x28:], uint64(shoff))
	le.PutUint16(out[0x34:], 64)
	le.PutUint16(out[0x3a:], 64)
	le.PutUint16(out[0x3c:], uint16(len(secs)+2))
	le.PutUint16(out[0x3e:], uint16(len(secs)+1))
	return out
}

// Fatbin entry kinds and flags, as parse/fatbin reads them (spelled out so
// that this package depends on nothing it tests).
const (
	KindPTX  = 1
	KindELF  = 2
	flagBase = 0x1 | 0x10 // 64-bit, Linux host
	FlagLZ4  = 0x2000
	FlagZstd = 0x8000
)

// Entry is one fatbin entry: a 64-byte header and payload, padded to 8.
// With FlagLZ4 or FlagZstd in flags the payload is the compressed bytes and
// usize the declared decompressed size.
func Entry(kind uint16, arch uint32, flags uint64, payload []byte, usize uint64) []byte {
	padded := append(bytes.Clone(payload), make([]byte, (8-len(payload)%8)%8)...)
	h := make([]byte, 64)
	le.PutUint16(h[0:], kind)
	le.PutUint16(h[2:], 0x101)
	le.PutUint32(h[4:], 64)
	le.PutUint64(h[8:], uint64(len(padded)))
	if flags&(FlagLZ4|FlagZstd) != 0 {
		le.PutUint32(h[16:], uint32(len(payload)))
		le.PutUint64(h[56:], usize)
	}
	if kind == KindPTX {
		le.PutUint16(h[24:], 0) // PTX ISA 9.0
		le.PutUint16(h[26:], 9)
	}
	le.PutUint32(h[28:], arch)
	le.PutUint64(h[40:], flags|flagBase)
	return append(h, padded...)
}

// Fatbin is a fatbin container of the given entries.
func Fatbin(entries ...[]byte) []byte {
	size := 0
	for _, e := range entries {
		size += len(e)
	}
	out := make([]byte, 16, 16+size)
	le.PutUint32(out[0:], 0xBA55ED50)
	le.PutUint16(out[4:], 1)
	le.PutUint16(out[6:], 16)
	le.PutUint64(out[8:], uint64(size))
	for _, e := range entries {
		out = append(out, e...)
	}
	return out
}

// SmallPTX is a valid PTX module with one kernel, k(.u64, .u32).
const SmallPTX = `.version 8.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 k_p0, .param .u32 k_p1)
{
	ret;
}
`

// PaddedPTX is SmallPTX grown to size bytes by a trailing comment.
func PaddedPTX(size int) []byte {
	b := []byte(SmallPTX + "//")
	b = append(b, bytes.Repeat([]byte("x"), max(size-len(b)-1, 0))...)
	return append(b, '\n')
}

// ELFBomb is a host object whose .nv_fatbin section is SHF_COMPRESSED with
// zstd, its header declaring chSize bytes (a multiple of 128 KiB) that its
// few bytes of RLE blocks really expand to: 131 KB of file for 4 GiB.
func ELFBomb(chSize uint64) []byte {
	frame := ZstdRLE(int(chSize>>17), 0)
	return ELF(Section{Name: ".nv_fatbin", Flags: elf.SHF_COMPRESSED, Data: Compressed(elf.COMPRESS_ZSTD, chSize, frame)})
}

// OverlappingELF is a host object with n .nv_fatbin section headers all
// naming one fatbin of about size bytes (a PTX entry: SmallPTX padded).
func OverlappingELF(n, size int) []byte {
	fb := Fatbin(Entry(KindPTX, 70, 0, PaddedPTX(size-16-64), 0))
	secs := []Section{{Name: ".nv_fatbin", Flags: elf.SHF_ALLOC, Data: fb}}
	for range n - 1 {
		secs = append(secs, Section{Name: ".nv_fatbin", Flags: elf.SHF_ALLOC, Same: 0})
	}
	return ELF(secs...)
}

// ZstdEntries is a fatbin of n zstd-compressed ELF entries, each a few
// kilobytes that inflate to size bytes (a multiple of 128 KiB) of zeros:
// 16 entries of 256 MiB are a 133 KB file. Each entry names another target,
// so that none repeats another.
func ZstdEntries(n int, size uint64) []byte {
	var es [][]byte
	for i := range n {
		es = append(es, Entry(KindELF, uint32(70+i), FlagZstd, ZstdRLE(int(size>>17), 0), size))
	}
	return Fatbin(es...)
}

// HugePTX is a module of about size bytes on one line: one kernel whose body
// is add instructions, the densest PTX the parser builds a tree of.
func HugePTX(size int) []byte {
	var b strings.Builder
	b.WriteString(".version 8.0 .target sm_70 .address_size 64 .visible .entry k(.param .u64 p){ .reg .b32 %r<4>; ")
	const ins = "add.s32 %r1, %r2, %r3; "
	b.Grow(size)
	for b.Len()+len(ins)+6 < size {
		b.WriteString(ins)
	}
	b.WriteString("ret; }")
	return []byte(b.String())
}

// HugeKernelsPTX is HugePTX's instructions spread over kernels of about
// kernel bytes each, on one line: a module the size of a large library's.
func HugeKernelsPTX(size, kernel int) []byte {
	var b strings.Builder
	b.Grow(size)
	b.WriteString(".version 8.0 .target sm_70 .address_size 64 ")
	const ins = "add.s32 %r1, %r2, %r3; "
	for k := 0; b.Len() < size; k++ {
		start := b.Len()
		fmt.Fprintf(&b, ".visible .entry k%d(.param .u64 p){ .reg .b32 %%r<4>; ", k)
		for b.Len()-start+len(ins)+6 < kernel && b.Len()+len(ins)+6 < size {
			b.WriteString(ins)
		}
		b.WriteString("ret; } ")
	}
	return []byte(b.String())
}

// HugeInitPTX is a module of about size bytes on one line: one .b8 array
// with an initializer of single digits, two bytes per element.
func HugeInitPTX(size int) []byte {
	n := max((size-100)/2, 1)
	var b strings.Builder
	b.Grow(size)
	fmt.Fprintf(&b, ".version 8.0 .target sm_70 .address_size 64 .visible .global .align 4 .b8 g[%d] = {", n)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('1' + byte(i%9))
	}
	b.WriteString("};")
	return []byte(b.String())
}

// ParamPTX is a module with one kernel per entry of blocks, kernel kI
// taking byte arrays of those sizes (its parameter block is their sum).
func ParamPTX(blocks ...[]int) []byte {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_70\n.address_size 64\n")
	for i, sizes := range blocks {
		var ps []string
		for j, n := range sizes {
			ps = append(ps, fmt.Sprintf(".param .align 1 .b8 k%d_p%d[%d]", i, j, n))
		}
		fmt.Fprintf(&b, ".visible .entry k%d(%s)\n{\n\tret;\n}\n", i, strings.Join(ps, ", "))
	}
	return []byte(b.String())
}
