// Package fatbin reads and writes CUDA fatbin containers: the standalone
// .fatbin files that nvcc -fatbin writes and the .nv_fatbin / __nv_relfatbin
// sections of host objects, shared libraries and executables.
//
// A fatbin is a 16-byte header followed by entries, each holding one device
// image: a cubin (CUDA ELF), PTX text or obfuscated LTO-IR, optionally LZ4- or
// zstd-compressed. The types mirror the on-disk layout, in the style of
// debug/elf, so that cugen can both inspect a fatbin (which architectures,
// which PTX versions) and rewrite one (keep only some entries) without
// understanding every field. Malformed input yields a *FormatError carrying
// the byte offset of the problem. Memory is bounded by the input size and,
// for compressed entries and sections, by a Budget that every decompression
// of a run reserves its size in before allocating, never by sizes the input
// claims.
//
// NVIDIA documents only the outer header (fatbinary_section.h); the entry
// layout here is the one cross-checked against nvcc 13.0 output and against
// the independent readers of ZLUDA, jiegec/fatbinary and n-eiling.
package fatbin

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Magic is the fatbin header magic number (little-endian bytes 50 ed 55 ba).
const Magic = 0xBA55ED50

// HeaderSize is the size of the fatbin header that nvcc writes.
const HeaderSize = 16

// EntryHeaderSize is the size of the fixed part of an entry header; the
// identifier, options and compatibility blobs may follow it inside the
// header (Entry.HeaderSize covers them).
const EntryHeaderSize = 64

// Header mirrors the 16-byte fatbin header (fatBinaryHeader).
type Header struct {
	Magic      uint32 // Magic
	Version    uint16 // 1 in every known toolkit
	HeaderSize uint16 // bytes of this header; entries start here
	FatSize    uint64 // bytes of all entries following the header
}

// Fatbin is one parsed fatbin container.
type Fatbin struct {
	Header
	// Offset is the byte offset of the header in the input given to Parse,
	// ParseAll or FromELF (for FromELF: the offset in the ELF file).
	Offset int64
	// Entries are the entries in file order.
	Entries []*Entry
	// Raw is the container verbatim: header, entries and any zero padding
	// inside FatSize. It aliases the input (nil for FromELFAt's).
	Raw []byte
}

// Size is the container's size in bytes: header and entries.
func (fb *Fatbin) Size() int64 { return int64(fb.HeaderSize) + int64(fb.FatSize) }

// EntryHeader mirrors the fixed 64-byte part of an entry header; the
// comments give each field's offset. Field names follow jiegec/fatbinary
// where the readers disagree.
type EntryHeader struct {
	Kind       Kind   // 0x00 image kind
	Version    uint16 // 0x02 entry format version, 0x0101
	HeaderSize uint32 // 0x04 bytes of this header; the payload follows it
	// PayloadSize (0x08) is the stored payload size, padded to 8 bytes;
	// the next entry starts at HeaderSize+PayloadSize.
	PayloadSize    uint64
	CompressedSize uint32 // 0x10 exact compressed byte count, 0 when stored raw
	// ExtOffset (0x14) is the offset, from the entry start, of a
	// {u32 offset; u32 length} pair locating the options string (PTX,
	// LTO-IR) or compatibility blob (sm_100+ ELF); 0 when absent.
	ExtOffset   uint32
	Minor       uint16 // 0x18 PTX ISA minor (PTX) or code version minor (ELF)
	Major       uint16 // 0x1a PTX ISA major (PTX) or code version major (ELF)
	Arch        uint32 // 0x1c SM number: 90 for sm_90 / compute_90
	IdentOffset uint32 // 0x20 offset of the identifier string from the entry start, or 0
	IdentLen    uint32 // 0x24 identifier length without NUL
	Flags       Flags  // 0x28
	// Reserved (0x30) is zero except on LTO-IR entries, where it appears to
	// be an obfuscation key or hash.
	Reserved         uint64
	UncompressedSize uint64 // 0x38 size after decompression, 0 when stored raw
}

// Entry is one device image in a fatbin.
type Entry struct {
	EntryHeader
	// Offset is the byte offset of the entry header in the input given to
	// Parse, ParseAll or FromELF.
	Offset int64
	// Identifier is the string at IdentOffset (the source file name in -G
	// builds), or "".
	Identifier string
	// Ext is the blob located through ExtOffset: the ptxas options of PTX
	// entries, the NVVM options of LTO-IR entries, a copy of .nv.compat on
	// sm_100+ ELF entries. It aliases Raw.
	Ext []byte
	// Raw is the entry verbatim, header and payload, so that Build can
	// write it back unchanged. It aliases the input. It is nil for an entry
	// of a file read in pieces (FromELFAt), whose payload Data reads from
	// the file when asked.
	Raw []byte

	src    io.ReaderAt // the file of an entry FromELFAt made
	srcOff int64       // the entry's offset in it
}

// Options returns the compiler options recorded with a PTX or LTO-IR entry
// (for example "--compile-only  " for -rdc PTX) and "" for other kinds, whose
// Ext blob is binary.
func (e *Entry) Options() string {
	if e.Kind != KindPTX && e.Kind != KindLTOIR {
		return ""
	}
	b := e.Ext
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return string(b)
}

// Payload returns the payload as stored: compressed bytes (padded to 8) for
// compressed entries, the image itself otherwise. It aliases Raw (nil for
// an entry FromELFAt made: Data reads its payload from the file).
func (e *Entry) Payload() []byte {
	if uint64(e.HeaderSize) > uint64(len(e.Raw)) {
		return nil // an Entry not made by this package
	}
	p := e.Raw[e.HeaderSize:]
	return p[:len(p):len(p)]
}

// Target returns the nvcc-style target name of the entry: "sm_90",
// "sm_90a", "sm_100f" for cubins, "compute_100" for PTX, "lto_90" for
// LTO-IR, or "kind<N>_<arch>" for unknown kinds.
func (e *Entry) Target() string {
	var prefix string
	switch e.Kind {
	case KindELF:
		prefix = "sm_"
	case KindPTX:
		prefix = "compute_"
	case KindLTOIR:
		prefix = "lto_"
	default:
		prefix = fmt.Sprintf("kind%d_", uint16(e.Kind))
	}
	s := fmt.Sprintf("%s%d", prefix, e.Arch)
	switch {
	case e.Flags.ArchSpecific():
		s += "a"
	case e.Flags.FamilySpecific():
		s += "f"
	}
	return s
}

// FormatError reports malformed input: what is wrong and the byte offset in
// the input at which it was found.
type FormatError struct {
	Off int64  // byte offset in the input
	Msg string // what is wrong
	Err error  // underlying cause, or nil
}

// Error formats the message with the offset, e.g. "fatbin: bad magic 0x1 at offset 0x0".
func (e *FormatError) Error() string {
	s := fmt.Sprintf("fatbin: %s at offset %#x", e.Msg, e.Off)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

func errorf(off int64, format string, args ...any) *FormatError {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

var le = binary.LittleEndian

// Parse parses a standalone fatbin: one container starting at data[0].
// Zero padding after the container is accepted; any other trailing data is
// an error (use ParseAll for sections holding several fatbins). The result
// aliases data.
func Parse(data []byte) (*Fatbin, error) {
	fb, end, err := parseOne(inMemory(data), 0, 0)
	if err != nil {
		return nil, err
	}
	if i := firstNonZero(data[end:]); i >= 0 {
		return nil, errorf(int64(end+i), "trailing data after fatbin of %#x bytes (several fatbins need ParseAll)", end)
	}
	return fb, nil
}

// ParseAll parses a sequence of fatbins laid out back to back, as in the
// .nv_fatbin section of a shared library: after each container it skips
// zero padding up to the next 8-byte boundary and any all-zero 8-byte words,
// then requires the magic again. The result aliases section.
func ParseAll(section []byte) ([]*Fatbin, error) {
	return parseAll(inMemory(section), 0)
}

// input is what containers are parsed from: bytes in memory, which the
// results alias, or a file read in pieces, whose entries read their
// payloads from it when decoded (FromELFAt).
type input struct {
	mem []byte
	r   io.ReaderAt
	off int64 // where the input starts in r
	n   int
}

func inMemory(b []byte) *input { return &input{mem: b, n: len(b)} }

// at returns the n bytes at off of the input (off+n ≤ in.n): a slice of
// it in memory, a fresh read from a file.
func (in *input) at(off, n int) ([]byte, error) {
	if in.mem != nil || in.r == nil {
		return in.mem[off : off+n : off+n], nil
	}
	b := make([]byte, n)
	if _, err := in.r.ReadAt(b, in.off+int64(off)); err != nil {
		return nil, &FormatError{Off: in.off + int64(off), Msg: fmt.Sprintf("reading %d bytes", n), Err: err}
	}
	return b, nil
}

// parseAll is ParseAll with every reported offset shifted by base, so that
// FromELF can report offsets in the file rather than in the section.
func parseAll(in *input, base int64) ([]*Fatbin, error) {
	var fbs []*Fatbin
	off := 0
	for {
		var err error
		if off, err = skipPadding(in, off); err != nil {
			return nil, err
		}
		if off >= in.n {
			break
		}
		fb, end, err := parseOne(in, off, base)
		if err != nil {
			return nil, err
		}
		fbs = append(fbs, fb)
		off = end
	}
	if len(fbs) == 0 {
		return nil, errorf(base, "no fatbin in %d bytes", in.n)
	}
	return fbs, nil
}

// skipPadding returns the offset of the first byte at or after off that is
// not zero padding: zeros up to the next 8-byte boundary, then whole zero
// 8-byte words. It returns in.n when only zeros remain. It reads the input
// a chunk at a time.
func skipPadding(in *input, off int) (int, error) {
	for off < in.n {
		b, err := in.at(off, min(4096, in.n-off))
		if err != nil {
			return 0, err
		}
		for i := 0; i < len(b); {
			if off%8 != 0 {
				if b[i] != 0 {
					return off, nil
				}
				i, off = i+1, off+1
				continue
			}
			n := min(8, len(b)-i)
			if n < 8 && off+n < in.n {
				break // the word continues in the next chunk
			}
			if firstNonZero(b[i:i+n]) >= 0 {
				return off, nil
			}
			i, off = i+n, off+n
		}
	}
	return off, nil
}

func firstNonZero(b []byte) int {
	for i, c := range b {
		if c != 0 {
			return i
		}
	}
	return -1
}

// parseOne parses the container at off of the input and returns it with the
// offset just past it.
func parseOne(in *input, off int, base int64) (*Fatbin, int, error) {
	pos := func(o int) int64 { return base + int64(o) }
	rest := in.n - off
	if rest < HeaderSize {
		return nil, 0, errorf(pos(off), "truncated fatbin header: %d bytes, need %d", rest, HeaderSize)
	}
	data, err := in.at(off, HeaderSize)
	if err != nil {
		return nil, 0, err
	}
	h := Header{ // data is the header's 16 bytes
		Magic:      le.Uint32(data[0:]),
		Version:    le.Uint16(data[4:]),
		HeaderSize: le.Uint16(data[6:]),
		FatSize:    le.Uint64(data[8:]),
	}
	if h.Magic != Magic {
		return nil, 0, errorf(pos(off), "bad magic %#08x, want %#08x", h.Magic, uint32(Magic))
	}
	if h.HeaderSize < HeaderSize || int(h.HeaderSize) > rest {
		return nil, 0, errorf(pos(off+6), "header size %d out of range [%d, %d]", h.HeaderSize, HeaderSize, rest)
	}
	if h.FatSize > uint64(rest-int(h.HeaderSize)) {
		return nil, 0, errorf(pos(off+8), "fat size %#x runs past end of input (%#x bytes left)", h.FatSize, rest-int(h.HeaderSize))
	}
	end := off + int(h.HeaderSize) + int(h.FatSize)
	fb := &Fatbin{Header: h, Offset: pos(off)}
	if in.mem != nil {
		fb.Raw = in.mem[off:end:end]
	}
	for p := off + int(h.HeaderSize); p < end; {
		if end-p < EntryHeaderSize {
			// nvcc never leaves a gap, but tolerate zero padding to
			// the end of the container.
			tail, err := in.at(p, end-p)
			if err != nil {
				return nil, 0, err
			}
			if i := firstNonZero(tail); i >= 0 {
				return nil, 0, errorf(pos(p), "truncated entry header: %d bytes left in fatbin, need %d", end-p, EntryHeaderSize)
			}
			break
		}
		e, n, err := parseEntry(in, p, end, pos(p))
		if err != nil {
			return nil, 0, err
		}
		fb.Entries = append(fb.Entries, e)
		p += n
	}
	return fb, end, nil
}

// parseEntry parses the entry at p of the input, whose container ends at
// end; at is its offset as errors report it. It returns the entry and its
// size.
func parseEntry(in *input, p, end int, at int64) (*Entry, int, error) {
	b, err := in.at(p, EntryHeaderSize)
	if err != nil {
		return nil, 0, err
	}
	avail := end - p
	h := EntryHeader{
		Kind:             Kind(le.Uint16(b[0:])),
		Version:          le.Uint16(b[2:]),
		HeaderSize:       le.Uint32(b[4:]),
		PayloadSize:      le.Uint64(b[8:]),
		CompressedSize:   le.Uint32(b[16:]),
		ExtOffset:        le.Uint32(b[20:]),
		Minor:            le.Uint16(b[24:]),
		Major:            le.Uint16(b[26:]),
		Arch:             le.Uint32(b[28:]),
		IdentOffset:      le.Uint32(b[32:]),
		IdentLen:         le.Uint32(b[36:]),
		Flags:            Flags(le.Uint64(b[40:])),
		Reserved:         le.Uint64(b[48:]),
		UncompressedSize: le.Uint64(b[56:]),
	}
	if h.HeaderSize < EntryHeaderSize || uint64(h.HeaderSize) > uint64(avail) {
		return nil, 0, errorf(at+4, "entry header size %#x out of range [%#x, %#x]", h.HeaderSize, EntryHeaderSize, avail)
	}
	if h.PayloadSize > uint64(avail)-uint64(h.HeaderSize) {
		return nil, 0, errorf(at+8, "entry payload size %#x runs past end of fatbin (%#x bytes left)", h.PayloadSize, uint64(avail)-uint64(h.HeaderSize))
	}
	n := int(h.HeaderSize) + int(h.PayloadSize)
	e := &Entry{EntryHeader: h, Offset: at}
	if in.mem != nil {
		e.Raw = in.mem[p : p+n : p+n]
	} else {
		e.src, e.srcOff = in.r, in.off+int64(p)
	}
	if uint64(h.CompressedSize) > h.PayloadSize {
		return nil, 0, errorf(at+16, "compressed size %#x exceeds payload size %#x", h.CompressedSize, h.PayloadSize)
	}
	if h.IdentOffset != 0 || h.IdentLen != 0 {
		s, ok := span(n, uint64(h.IdentOffset), uint64(h.IdentLen))
		if !ok {
			return nil, 0, errorf(at+32, "identifier [%#x, +%#x) outside entry of %#x bytes", h.IdentOffset, h.IdentLen, n)
		}
		id, err := in.at(p+s, int(h.IdentLen))
		if err != nil {
			return nil, 0, err
		}
		e.Identifier = string(id)
	}
	if h.ExtOffset != 0 {
		s, ok := span(n, uint64(h.ExtOffset), 8)
		if !ok {
			return nil, 0, errorf(at+20, "options pair at %#x outside entry of %#x bytes", h.ExtOffset, n)
		}
		pair, err := in.at(p+s, 8)
		if err != nil {
			return nil, 0, err
		}
		xo, xl := le.Uint32(pair), le.Uint32(pair[4:])
		x, ok := span(n, uint64(xo), uint64(xl))
		if !ok {
			return nil, 0, errorf(at+int64(s), "options blob [%#x, +%#x) outside entry of %#x bytes", xo, xl, n)
		}
		if e.Ext, err = in.at(p+x, int(xl)); err != nil {
			return nil, 0, err
		}
	}
	return e, n, nil
}

// span reports whether [off, off+n) lies within [0, size), returning off as
// an int; the arithmetic is done in uint64 so hostile values cannot wrap.
func span(size int, off, n uint64) (int, bool) {
	if off > uint64(size) || n > uint64(size)-off {
		return 0, false
	}
	return int(off), true
}

// Build returns a standalone fatbin holding exactly the given entries, in
// order: a version-1 header with FatSize recomputed, followed by each
// entry's Raw bytes verbatim. Entries must come from Parse, ParseAll or
// FromELF (an entry without Raw contributes nothing). Build of all entries
// of a standalone nvcc fatbin reproduces the file byte for byte.
func Build(entries []*Entry) []byte {
	size := 0
	for _, e := range entries {
		size += len(e.Raw)
	}
	out := make([]byte, HeaderSize, HeaderSize+size)
	le.PutUint32(out[0:], Magic)
	le.PutUint16(out[4:], 1)
	le.PutUint16(out[6:], HeaderSize)
	le.PutUint64(out[8:], uint64(size))
	for _, e := range entries {
		out = append(out, e.Raw...)
	}
	return out
}
